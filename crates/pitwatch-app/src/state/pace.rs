//! Every running table's pace alerts followed live (issue 30): "pace below target" and "error
//! burst" as the table is dealt, for the supervisors' banner. Each table has a
//! [`TargetWatch`] (`pitwatch_games::targets::watch`), which judges only the table's last few
//! rounds when one is settled, so following a table costs the same whatever the size of its
//! record, and raises exactly the alerts the whole record gives (the dealers' report's).
//!
//! The watch runs on its own thread with its own connection to the record, fed by the pit's
//! fold: the events recorded and everything the engine output on them. A table is taken up
//! from the record the first time it deals (or at the start): its last shoe replayed, with the
//! dealer signed in before it, so after a restart the table's condition is known again from its
//! current shoe. A table is held to its game's target (`targets.toml`), its rounds an hour
//! replaced by the pit definition's `pace_target` where the table has one.
//!
//! The alerts are not written anywhere: they are the record's own rounds judged, which the
//! dealers' report gives again at any time.

use std::collections::BTreeMap;
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use pitwatch_games::targets::watch::TargetWatch;
use pitwatch_games::targets::{PaceAlert, PaceTarget, PaceTargets};
use pitwatch_games::{GameKind, GameOutput};
use pitwatch_model::{EventKind, TableEvent};
use pitwatch_recording::monitor::MonitorEvent;
use pitwatch_recording::recorder::Derived;
use pitwatch_recording::replay;
use pitwatch_store::Store;

use super::lock;

/// One table as the watch follows it.
#[derive(Debug, Clone)]
pub struct TablePace {
    /// The table's alerts, judged up to its last round settled.
    pub watch: TargetWatch,
    /// The last event taken in (events the record already held when taken up are skipped).
    seq: u64,
    /// The event being taken in, with the outputs it gave so far.
    input: Option<(TableEvent, Vec<GameOutput>)>,
}

impl TablePace {
    /// Takes in the event held with its outputs; the alerts it raised.
    fn flush(&mut self) -> Vec<PaceAlert> {
        match self.input.take() {
            Some((event, outputs)) => self.watch.step(&event, &outputs),
            None => Vec::new(),
        }
    }
}

/// Everything the watch knows, shared with the readers.
#[derive(Debug, Default)]
pub struct Paced {
    /// Each table followed, by name.
    pub tables: BTreeMap<String, TablePace>,
    /// Why a table cannot be followed (its record not readable), by name.
    pub problems: BTreeMap<String, String>,
}

impl Paced {
    /// The alerts whose condition holds now, each table's, by table name.
    pub fn active(&self) -> Vec<(&str, &PaceAlert)> {
        self.tables
            .iter()
            .flat_map(|(name, t)| {
                t.watch
                    .active()
                    .into_iter()
                    .map(move |a| (name.as_str(), a))
            })
            .collect()
    }
}

enum Feed {
    Event(String, TableEvent),
    Output(String, Box<GameOutput>),
    /// The end of an input.
    Input(String),
    /// The fold missed events: every table is taken up from the record again.
    Missed,
}

/// The live pace watch: fed by the pit's fold, read by the supervisors' banner.
pub struct PaceWatch {
    feed: Mutex<Sender<Feed>>,
    paced: Arc<Mutex<Paced>>,
    thread: Mutex<Option<JoinHandle<()>>>,
}

impl std::fmt::Debug for PaceWatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PaceWatch").finish_non_exhaustive()
    }
}

impl PaceWatch {
    /// Starts the watch on `store` (its own connection to the record), each table named in
    /// `pace_targets` held to its game's target with its own rounds an hour where given; takes
    /// those tables up from the record in the background.
    pub fn start(
        store: Store,
        pace_targets: BTreeMap<String, Option<u32>>,
    ) -> std::io::Result<PaceWatch> {
        let (feed, received) = mpsc::channel();
        let paced = Arc::new(Mutex::new(Paced::default()));
        let tables: Vec<String> = pace_targets.keys().cloned().collect();
        let thread = {
            let paced = Arc::clone(&paced);
            std::thread::Builder::new()
                .name("pitwatch-pace".into())
                .spawn(move || {
                    let mut worker = Worker {
                        store,
                        targets: PaceTargets::defaults(),
                        pace_targets,
                        paced,
                    };
                    for table in &tables {
                        worker.taken_up(table);
                    }
                    worker.run(received)
                })?
        };
        Ok(PaceWatch {
            feed: Mutex::new(feed),
            paced,
            thread: Mutex::new(Some(thread)),
        })
    }

    /// Passes on what of `event` the alerts need: the events recorded and everything the
    /// engine output on them, and the end of each input.
    pub fn feed(&self, event: &MonitorEvent) {
        let feed = match event {
            MonitorEvent::Derived {
                table,
                derived: Derived::Event(event),
            } => Feed::Event(table.clone(), event.clone()),
            MonitorEvent::Derived {
                table,
                derived: Derived::Output { output, .. } | Derived::Repeated { output, .. },
            } => Feed::Output(table.clone(), Box::new(output.clone())),
            MonitorEvent::View { table, .. } => Feed::Input(table.clone()),
            MonitorEvent::Missed { .. } => Feed::Missed,
            _ => return,
        };
        let _ = lock(&self.feed).send(feed);
    }

    /// A look at what the watch knows now.
    pub fn with<T>(&self, read: impl FnOnce(&Paced) -> T) -> T {
        read(&lock(&self.paced))
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

impl Drop for PaceWatch {
    fn drop(&mut self) {
        self.stop();
    }
}

struct Worker {
    store: Store,
    targets: PaceTargets,
    /// Each table's own rounds an hour, as the pit definition gave it at the start.
    pace_targets: BTreeMap<String, Option<u32>>,
    paced: Arc<Mutex<Paced>>,
}

impl Worker {
    fn run(&mut self, received: Receiver<Feed>) {
        for feed in received {
            match feed {
                Feed::Event(table, event) => {
                    if !self.taken_up(&table) {
                        continue;
                    }
                    self.table(&table, |t| {
                        t.flush();
                        if event.seq > t.seq {
                            t.seq = event.seq;
                            t.input = Some((event, Vec::new()));
                        }
                    });
                }
                Feed::Output(table, output) => {
                    self.table(&table, |t| {
                        if let Some((_, outputs)) = t.input.as_mut() {
                            outputs.push(*output);
                        }
                    });
                }
                Feed::Input(table) => {
                    self.table(&table, |t| t.flush());
                }
                Feed::Missed => lock(&self.paced).tables.clear(),
            }
        }
    }

    fn table<T>(&self, table: &str, change: impl FnOnce(&mut TablePace) -> T) -> Option<T> {
        lock(&self.paced).tables.get_mut(table).map(change)
    }

    /// Whether `table` is followed, taking it up from the record first if it is not yet.
    fn taken_up(&mut self, table: &str) -> bool {
        {
            let paced = lock(&self.paced);
            if paced.tables.contains_key(table) {
                return true;
            }
            if paced.problems.contains_key(table) {
                return false;
            }
        }
        let own = self.pace_targets.get(table).copied().flatten();
        match take_up(&self.store, table, &self.targets, own) {
            Ok(Some(taken)) => {
                lock(&self.paced).tables.insert(table.to_owned(), taken);
                true
            }
            Ok(None) => false,
            Err(problem) => {
                lock(&self.paced).problems.insert(table.to_owned(), problem);
                false
            }
        }
    }
}

/// The target `table` of `game` is held to.
fn target_of(targets: &PaceTargets, game: GameKind, own: Option<u32>) -> Option<PaceTarget> {
    targets.for_table(game, own)
}

/// `table` from the record: a watch that has taken in its last shoe, the dealer signed in
/// before it known; `Ok(None)` when the record has no such table yet or its game has no target.
fn take_up(
    store: &Store,
    table: &str,
    targets: &PaceTargets,
    own: Option<u32>,
) -> Result<Option<TablePace>, String> {
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
    let Some(target) = target_of(targets, GameKind::recorded(&row.game), own) else {
        return Ok(None);
    };
    let mut watch = TargetWatch::new(target);
    let Some(shoe) = store.last_shoe(id).map_err(problem)? else {
        return Ok(Some(TablePace {
            watch,
            seq: store.last_seq(id).map_err(problem)?.unwrap_or(0),
            input: None,
        }));
    };
    let run = replay::replay_shoe(store, table, shoe).map_err(problem)?;
    let first = run.steps.first().map_or(0, |s| s.event.seq);
    // The dealer signed in when the shoe began, from the events before it.
    let events = store.events(id).map_err(problem)?;
    let signed_in = events
        .iter()
        .take_while(|e| e.seq < first)
        .fold(None::<String>, |now, e| match &e.kind {
            EventKind::DealerSignedIn { dealer } => Some(dealer.clone()),
            EventKind::DealerSignedOut { dealer } if now.as_deref() == Some(dealer.as_str()) => {
                None
            }
            _ => now,
        });
    if let Some(dealer) = signed_in {
        let event = TableEvent::new(
            first.saturating_sub(1),
            EventKind::DealerSignedIn { dealer },
        );
        watch.step(&event, &[]);
    }
    let mut seq = 0;
    for step in &run.steps {
        seq = step.event.seq;
        watch.step(&step.event, &step.outputs);
    }
    Ok(Some(TablePace {
        watch,
        seq,
        input: None,
    }))
}
