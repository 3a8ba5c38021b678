//! Every table's exposure followed live, for surveillance (issue 29): each table's current shoe
//! as the monitor records it, each round's figures computed once when the round before it ends
//! ([`ShoeWatch`]), and an alert when a wager has been worth more than it costs for
//! [`SurveillanceConfig::exposure_alert_rounds`] rounds of one shoe.
//!
//! The watch runs on its own thread with its own connection to the record, so the enumeration
//! (a few milliseconds a round) never holds up the pit's tiles. A table is taken up from the
//! record the first time it is asked about or deals (its current shoe replayed once: after a
//! restart the figures and counts of the shoe so far are the same as if the watch had never
//! stopped); from then on only the monitor's events feed it.
//!
//! An alert is an audit row of its own (`exposure.alert`, by `pitwatch`), once per table, shoe
//! and wager, never an incident: incidents are the pit's, and exposure is surveillance's only.
//! Alerts already on record are not written again after a restart.
//!
//! [`SurveillanceConfig::exposure_alert_rounds`]: pitwatch_recording::pit::SurveillanceConfig

use std::collections::{BTreeMap, BTreeSet};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use pitwatch_games::exposure::{RoundExposure, ShoeWatch};
use pitwatch_games::{GameKind, GameOutput};
use pitwatch_model::{EventKind, TableEvent, Timestamp};
use pitwatch_recording::monitor::MonitorEvent;
use pitwatch_recording::recorder::Derived;
use pitwatch_recording::replay::{self, Books};
use pitwatch_rules::TableOutput;
use pitwatch_store::Store;
use serde::Serialize;

use super::lock;

/// The audit action of an exposure alert (the subject names the table and shoe).
pub const ALERT: &str = "exposure.alert";

/// Who the audit log names for an alert.
pub const BY: &str = "pitwatch";

/// A table's shoe as the watch follows it.
#[derive(Debug, Clone, Default)]
pub struct TableWatch {
    /// The game dealt (`None` until the table is taken up).
    pub game: Option<GameKind>,
    /// The shoe (0 before any), as the table's engine numbers it.
    pub shoe: u32,
    /// The figures before each round of the shoe so far, the round about to be dealt last.
    pub rounds: Vec<RoundExposure>,
    /// Per wager (its name), the rounds of this shoe on which the house was behind on it.
    pub behind: BTreeMap<String, u32>,
    /// Why the table's exposure cannot be followed, if it cannot (a shoe not readable).
    pub problem: Option<String>,
    watch: Option<ShoeWatch>,
    /// The last event taken in (events the record already held when taken up are skipped).
    seq: u64,
    /// The event being taken in, with the outputs it gave so far (complete when the next event
    /// or the end of its input arrives).
    input: Option<(TableEvent, Vec<GameOutput>)>,
}

impl TableWatch {
    /// Whether the table's game has exposure and the watch follows it.
    pub fn follows(&self) -> bool {
        self.watch.is_some()
    }

    /// Takes in the event held with its outputs: the figures of each round it makes the next.
    fn flush(&mut self) -> Vec<RoundExposure> {
        let (Some((event, outputs)), Some(watch)) = (self.input.take(), self.watch.as_mut()) else {
            return Vec::new();
        };
        let figures = watch.step(&event, &outputs);
        let ended = outputs.iter().find_map(|o| match o {
            TableOutput::Shoe(summary) => Some(summary.shoe),
            _ => None,
        });
        // A shuffle begins a shoe (its first round's figures come after the burn).
        let again = matches!(event.kind, EventKind::Shuffled { .. });
        if let Some(shoe) = ended {
            self.shoe = shoe + 1;
        } else if let Some(shoe) = outputs.iter().find_map(|o| match o {
            TableOutput::Round(done) => Some(done.shoe()),
            _ => None,
        }) {
            self.shoe = shoe;
        }
        if ended.is_some() || again {
            self.rounds.clear();
            self.behind.clear();
        }
        figures
    }
}

/// A wager that stayed in the players' favour for the alert's number of rounds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Alert {
    /// The table.
    pub table: String,
    /// The shoe.
    pub shoe: u32,
    /// The round about to be dealt when it was raised.
    pub round: u32,
    /// The wager, in words with its pay.
    pub wager: String,
    /// Rounds of the shoe with the house behind on it.
    pub rounds_behind: u32,
    /// The house's edge on it then, in percent (negative).
    pub house_edge: f64,
    /// When it was raised (or, for one raised before a restart, when the watch found it again).
    pub at: Timestamp,
}

/// Everything the watch knows, shared with the readers.
#[derive(Debug, Default)]
pub struct Watched {
    /// Each table's shoe, by name.
    pub tables: BTreeMap<String, TableWatch>,
    /// Every alert raised, oldest first.
    pub alerts: Vec<Alert>,
    /// Rounds whose figures were computed since the watch started (taken up from the record or
    /// live).
    pub computed: u64,
}

enum Feed {
    Event(String, TableEvent),
    /// A round completed or a shoe ended, on the event before.
    Output(String, Box<GameOutput>),
    /// The end of an input: the table's shoe after it.
    Shoe(String, u32),
    TakeUp(Vec<String>),
    /// The fold missed events: every table is taken up from the record again.
    Missed,
}

/// The live exposure watch: fed by the pit's fold, read by surveillance's screens.
pub struct ExposureWatch {
    feed: Mutex<Sender<Feed>>,
    watched: Arc<Mutex<Watched>>,
    thread: Mutex<Option<JoinHandle<()>>>,
}

impl std::fmt::Debug for ExposureWatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExposureWatch").finish_non_exhaustive()
    }
}

impl ExposureWatch {
    /// Starts the watch on `store` (its own connection to the record), alerting after
    /// `alert_rounds` rounds, and takes up `tables` from the record in the background.
    pub fn start(
        store: Store,
        alert_rounds: u32,
        tables: Vec<String>,
        clock: Arc<dyn pitwatch_transport::Clock>,
    ) -> std::io::Result<ExposureWatch> {
        let (feed, received) = mpsc::channel();
        let watched = Arc::new(Mutex::new(Watched::default()));
        let thread = {
            let watched = Arc::clone(&watched);
            std::thread::Builder::new()
                .name("pitwatch-exposure".into())
                .spawn(move || {
                    let mut worker = Worker {
                        store,
                        alert_rounds: alert_rounds.max(1),
                        watched,
                        on_record: BTreeSet::new(),
                        clock,
                    };
                    worker.run(received)
                })?
        };
        let _ = feed.send(Feed::TakeUp(tables));
        Ok(ExposureWatch {
            feed: Mutex::new(feed),
            watched,
            thread: Mutex::new(Some(thread)),
        })
    }

    /// Passes on what of `event` the exposure needs: the events recorded (any may begin a
    /// shoe), the rounds completed, and the shoe each table is in after each input.
    pub fn feed(&self, event: &MonitorEvent) {
        let feed = match event {
            MonitorEvent::Derived {
                table,
                derived: Derived::Event(event),
            } => Feed::Event(table.clone(), event.clone()),
            MonitorEvent::Derived {
                table,
                derived: Derived::Output { output, .. },
            } if matches!(output, TableOutput::Round(_) | TableOutput::Shoe(_)) => {
                Feed::Output(table.clone(), Box::new(output.clone()))
            }
            MonitorEvent::View { table, view } => Feed::Shoe(table.clone(), view.shoe()),
            MonitorEvent::Missed { .. } => Feed::Missed,
            _ => return,
        };
        let _ = lock(&self.feed).send(feed);
    }

    /// Takes up `tables` (a reload's new ones) from the record.
    pub fn take_up(&self, tables: Vec<String>) {
        let _ = lock(&self.feed).send(Feed::TakeUp(tables));
    }

    /// A look at what the watch knows now.
    pub fn with<T>(&self, read: impl FnOnce(&Watched) -> T) -> T {
        read(&lock(&self.watched))
    }

    /// Stops the thread (what was fed before is taken in first).
    pub fn stop(&self) {
        let (dead, _) = mpsc::channel();
        *lock(&self.feed) = dead;
        if let Some(thread) = lock(&self.thread).take() {
            let _ = thread.join();
        }
    }
}

impl Drop for ExposureWatch {
    fn drop(&mut self) {
        self.stop();
    }
}

struct Worker {
    store: Store,
    alert_rounds: u32,
    watched: Arc<Mutex<Watched>>,
    /// Alerts already on record: (subject, wager).
    on_record: BTreeSet<(String, String)>,
    clock: Arc<dyn pitwatch_transport::Clock>,
}

impl Worker {
    fn run(&mut self, received: Receiver<Feed>) {
        if let Ok(rows) = self.store.audit_entries(ALERT) {
            for row in rows {
                let wager = serde_json::from_str::<serde_json::Value>(&row.detail)
                    .ok()
                    .and_then(|v| v.get("wager").and_then(|w| w.as_str()).map(str::to_owned))
                    .unwrap_or_default();
                self.on_record.insert((row.subject, wager));
            }
        }
        for feed in received {
            match feed {
                Feed::TakeUp(tables) => {
                    for table in tables {
                        self.taken_up(&table);
                    }
                }
                Feed::Event(table, event) => {
                    if !self.taken_up(&table) {
                        continue;
                    }
                    let figures = self.table(&table, |t| {
                        let figures = t.flush();
                        if event.seq > t.seq {
                            t.seq = event.seq;
                            t.input = Some((event, Vec::new()));
                        }
                        figures
                    });
                    self.rounds(&table, figures);
                }
                Feed::Output(table, output) => {
                    self.table(&table, |t| {
                        if let Some((_, outputs)) = t.input.as_mut() {
                            outputs.push(*output);
                        }
                    });
                }
                Feed::Shoe(table, shoe) => {
                    let figures = self.table(&table, |t| {
                        let figures = t.flush();
                        if shoe > 0 && t.watch.is_some() {
                            t.shoe = shoe;
                        }
                        figures
                    });
                    self.rounds(&table, figures);
                }
                Feed::Missed => lock(&self.watched).tables.clear(),
            }
        }
    }

    fn rounds(&mut self, table: &str, figures: Option<Vec<RoundExposure>>) {
        for figures in figures.into_iter().flatten() {
            self.round(table, figures);
        }
    }

    fn table<T>(&self, table: &str, change: impl FnOnce(&mut TableWatch) -> T) -> Option<T> {
        lock(&self.watched).tables.get_mut(table).map(change)
    }

    /// Whether `table` is followed, taking it up from the record first if it is not yet.
    fn taken_up(&mut self, table: &str) -> bool {
        if lock(&self.watched).tables.contains_key(table) {
            return true;
        }
        let taken = match take_up(&self.store, table) {
            Ok(Some(taken)) => taken,
            Ok(None) => return false,
            Err(problem) => TableWatch {
                problem: Some(problem),
                ..TableWatch::default()
            },
        };
        let rounds = taken.rounds.clone();
        lock(&self.watched).tables.insert(
            table.to_owned(),
            TableWatch {
                rounds: Vec::new(),
                ..taken
            },
        );
        // The shoe so far, counted as it was dealt (alerts on record found again, not written).
        for figures in rounds {
            self.round(table, figures);
        }
        true
    }

    /// Takes in the figures of the round about to be dealt at `table`: counts the wagers with
    /// the house behind and raises an alert at the threshold.
    fn round(&mut self, table: &str, figures: RoundExposure) {
        let mut raised = Vec::new();
        let shoe = {
            let mut watched = lock(&self.watched);
            let Some(t) = watched.tables.get_mut(table) else {
                return;
            };
            for figure in figures.figures.iter().filter(|f| f.wager && f.house_behind) {
                let count = t.behind.entry(figure.name.to_string()).or_insert(0);
                *count += 1;
                if *count == self.alert_rounds {
                    raised.push((figure.name.clone(), *count, figure.value));
                }
            }
            let shoe = t.shoe;
            t.rounds.push(figures.clone());
            watched.computed += 1;
            shoe
        };
        let now = self.clock.now();
        for (wager, rounds_behind, house_edge) in raised {
            let subject = subject(table, shoe);
            let alert = Alert {
                table: table.to_owned(),
                shoe,
                round: figures.round,
                wager: wager.to_string(),
                rounds_behind,
                house_edge,
                at: now,
            };
            if self.on_record.insert((subject.clone(), wager.to_string())) {
                let detail = serde_json::json!({
                    "wager": wager,
                    "round": figures.round,
                    "rounds_behind": rounds_behind,
                    "house_edge_percent": format!("{house_edge:.4}"),
                })
                .to_string();
                let written = self.store.batch(now).and_then(|mut batch| {
                    batch.append_audit(BY, ALERT, &subject, &detail, now)?;
                    batch.commit()
                });
                if let Err(e) = written {
                    eprintln!(
                        "pitwatch: the exposure alert for {subject} could not be recorded: {e}"
                    );
                }
            }
            // A table taken up again (after missed events) finds its alerts again: listed once.
            let mut watched = lock(&self.watched);
            let listed = watched
                .alerts
                .iter()
                .any(|a| a.table == alert.table && a.shoe == alert.shoe && a.wager == alert.wager);
            if !listed {
                watched.alerts.push(alert);
            }
        }
    }
}

/// The audit subject of `table`'s shoe `shoe` (as `exposure.view` names it).
pub fn subject(table: &str, shoe: u32) -> String {
    format!("table {table} shoe {shoe}")
}

/// `table`'s current shoe from the record: the figures before each of its rounds and a watch
/// at its last event; `Ok(None)` when the record has no such table yet or its game has no
/// exposure (poker).
fn take_up(store: &Store, table: &str) -> Result<Option<TableWatch>, String> {
    let problem = |e: pitwatch_store::StoreError| format!("{table}: {e}");
    let Some(id) = store.table_id(table).map_err(problem)? else {
        return Ok(None);
    };
    let Some(row) = store
        .tables()
        .map_err(problem)?
        .into_iter()
        .find(|t| t.id == id)
    else {
        return Ok(None);
    };
    let books = Books::read(store, id, &row.rule_book).map_err(problem)?;
    let Some(shoe) = store.last_shoe(id).map_err(problem)? else {
        // Nothing dealt yet: a fresh watch under the table's book.
        let book = books.at(u64::MAX).0;
        let Some(watch) = ShoeWatch::new(book) else {
            return Ok(None);
        };
        return Ok(Some(TableWatch {
            game: Some(book.kind()),
            watch: Some(watch),
            seq: store.last_seq(id).map_err(problem)?.unwrap_or(0),
            ..TableWatch::default()
        }));
    };
    let run = replay::replay_shoe(store, table, shoe).map_err(problem)?;
    let first = run.steps.first().map_or(0, |s| s.event.seq);
    let book = books.at(first).0;
    let Some(mut watch) = ShoeWatch::new(book) else {
        return Ok(None);
    };
    let mut rounds = Vec::new();
    let mut seq = 0;
    for step in run.steps.iter().filter(|s| s.event.seq >= first) {
        seq = step.event.seq;
        rounds.extend(watch.step(&step.event, &step.outputs));
    }
    if rounds.is_empty() {
        rounds.extend(watch.now());
    }
    Ok(Some(TableWatch {
        game: Some(book.kind()),
        shoe,
        rounds,
        watch: Some(watch),
        seq,
        ..TableWatch::default()
    }))
}
