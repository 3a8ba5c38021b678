//! The desktop app's application state: the live pit, the logged-in user, and the commands a
//! supervisor gives, with no Tauri in sight (the shell in `src-tauri` adapts each method to a
//! command and forwards [`PitUpdate`]s to the window as events).
//!
//! Threads: [`Desk::start`] starts one simulated device per simulated table (a pseudo-terminal
//! the monitor then opens as a serial port, so the demo runs through the real transport, codec,
//! engine and store), the [`Monitor`] (a reader per device and one writer), and a *fold* thread.
//! The fold thread reads the monitor's events, which are already on record, folds them into the
//! [`PitModel`] (one [`TableTile`] per table), and sends the changed tiles at most every
//! [`FLUSH_EVERY`] so a busy pit does not flood the window; a new incident is sent at once. The
//! desk's own connection to the store (SQLite takes several) serves queries and the incident
//! workflow, each action by the logged-in user and audited by the store.

use std::path::PathBuf;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use pitwatch_api::dto::{ApiError, ErrorCode, PitOverview, PitUpdate, RecordingStatus};
#[cfg(feature = "demo")]
use pitwatch_games::GameBook;
use pitwatch_model::Timestamp;
use pitwatch_recording::monitor::{Monitor, MonitorEvent, MonitorOptions, MonitoredTable};
#[cfg(feature = "demo")]
use pitwatch_recording::pit::LinkConfig;
use pitwatch_recording::pit::PitConfig;
use pitwatch_recording::record::Installation;
#[cfg(feature = "demo")]
use pitwatch_sim::{Endpoint, FaultSpec, GameFault, GameSim, SimConfig, SimDevice, SimFault};
use pitwatch_store::Store;
use pitwatch_transport::{Clock, SystemClock};
#[cfg(feature = "demo")]
use pitwatch_transport::{SerialConfig, TransportConfig};

use crate::access::Principal;
use crate::pit_model::PitModel;
use crate::record::{verify_into, RecordAlerts, RecordStatusSource, Verified};
use crate::sessions::session_dto;
use crate::setup::{keep_the_demo_apart, DeskOptions};

/// How often changed tables are sent to the window, at most. 20 ms keeps a frame's way to the
/// screen inside 100 ms even with 50 tables at ten times a dealer's pace (docs/benchmarks.md,
/// "Desktop latency"); the shell sends each flush's tiles as one event, so a busy pit costs the
/// window at most 50 script evaluations a second.
pub const FLUSH_EVERY: Duration = Duration::from_millis(20);

/// The running desktop state.
pub struct Desk {
    /// The pit definition the desk started with (its whole-pit settings apply until the next
    /// start).
    pub(crate) pit: PitConfig,
    /// Where it was read from (none for the built-in demo pit): what a reload reads again.
    pub(crate) pit_file: Option<PathBuf>,
    /// The tables running now, and those disabled: the start's, then each reload's.
    pub(crate) running: Mutex<PitConfig>,
    /// Held while the pit is set up (a reload, a table added): one change at a time.
    pub(crate) configuring: Mutex<()>,
    /// Seconds without input after which the window locks (0: never).
    pub(crate) idle_lock_seconds: u32,
    pub(crate) db: PathBuf,
    pub(crate) model: Arc<Mutex<PitModel>>,
    pub(crate) store: Mutex<Store>,
    pub(crate) session: Mutex<Option<Principal>>,
    /// Whether the logged-in user muted the alarm's sound (see [`crate::alarm`]).
    pub(crate) alarm_muted: Mutex<bool>,
    /// The looks at incidents and replays audited lately (`viewed.rs`).
    pub(crate) viewed: Mutex<crate::viewed::Viewed>,
    /// This workstation's name, in every audit row of a login or a refusal.
    pub(crate) workstation: String,
    pub(crate) monitor: Mutex<Option<Monitor>>,
    #[cfg(feature = "demo")]
    pub(crate) sims: Mutex<Vec<SimDevice>>,
    /// Replication to the central database, when the pit definition names one.
    pub(crate) replicator: Mutex<Option<pitwatch_sync::Replicator>>,
    pub(crate) fold: Mutex<Option<JoinHandle<()>>>,
    pub(crate) updates: Mutex<Sender<PitUpdate>>,
    pub(crate) clock: Arc<dyn Clock>,
    /// How far each chain was verified (and when it was verified in full), so a replay verifies
    /// only what was appended since. A thread started with the desk verifies in full at once, so
    /// even the first replay of a long record does not wait for it.
    pub(crate) verified: Arc<Mutex<Verified>>,
    /// The installation: its key, which verification trusts, and its witnesses.
    pub(crate) installation: Installation,
    /// What is wrong with the record, shown on every screen (see [`RecordAlerts`]).
    pub(crate) alerts: Arc<Mutex<RecordAlerts>>,
}

pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic in another thread must not take the desk down with it: the data is still usable.
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

pub(crate) fn internal(message: impl Into<String>) -> ApiError {
    ApiError::new(ErrorCode::Internal, message)
}

impl Desk {
    /// Opens the database, starts a simulated device for each simulated table, the monitor and
    /// the fold thread. Live changes arrive on the returned receiver.
    pub fn start(options: DeskOptions) -> Result<(Desk, Receiver<PitUpdate>), ApiError> {
        let clock: Arc<dyn Clock> = Arc::new(SystemClock);
        let now = clock.now();
        if let Some(dir) = options.db.parent() {
            if !dir.as_os_str().is_empty() {
                std::fs::create_dir_all(dir)
                    .map_err(|e| internal(format!("cannot create {}: {e}", dir.display())))?;
            }
        }
        // The record is verified quickly before anything is appended to it; one that fails is
        // kept as it is and recording goes on in a new segment (see pitwatch_recording::record).
        let opened =
            pitwatch_recording::record::open_for_recording(&options.installation, &options.db)?;
        let db = opened.path.clone();
        let exposed = opened.exposed();
        let mut store = opened.store;
        let alerts = Arc::new(Mutex::new(RecordAlerts {
            segments: opened.failures,
            exposed,
            ..RecordAlerts::default()
        }));
        keep_the_demo_apart(&mut store, options.pit.demo, &db, now)?;
        // The site the window shows is the one every report prints, with its time zone: chained
        // facts of the record, written when they change (as `pitwatch monitor` writes them).
        pitwatch_recording::report::record_site(&mut store, &options.pit.site, now)?;
        if options.pit.demo {
            crate::setup::demo_users(&mut store, now)?;
        }
        #[cfg(feature = "demo")]
        let mut sims = Vec::new();
        let mut tables = Vec::new();
        for (index, table) in options.pit.tables.iter().enumerate() {
            let mut more_links = Vec::new();
            let link = if table.simulated {
                #[cfg(not(feature = "demo"))]
                let _ = index;
                #[cfg(not(feature = "demo"))]
                return Err(ApiError::new(
                    ErrorCode::InvalidInput,
                    format!(
                        "table {}: simulated devices are the demo's, and this build has no demo \
                         (built without the `demo` feature)",
                        table.name
                    ),
                ));
                #[cfg(feature = "demo")]
                {
                    let rules = table.rule_book().map_err(|e| {
                        ApiError::new(
                            ErrorCode::InvalidInput,
                            format!("table {}: {e}", table.name),
                        )
                    })?;
                    let seed = (now.unix_millis() as u64).wrapping_add(index as u64 * 7919);
                    let rules = match rules {
                        GameBook::Baccarat(rules) => rules,
                        GameBook::Poker(book) => {
                            let (device, more) =
                                simulated_poker_table(table, &book, &options, seed)?;
                            let path = device.path().unwrap_or_default().to_owned();
                            let more_links = device
                                .more_paths()
                                .iter()
                                .map(|p| pty_link(p.clone()))
                                .take(more)
                                .collect();
                            sims.push(device);
                            tables.push(MonitoredTable {
                                config: table.clone(),
                                link: pty_link(path),
                                more_links,
                            });
                            continue;
                        }
                        GameBook::Blackjack(book) => {
                            // A Blackjack or Pontoon table: the Blackjack dealer simulator (a
                            // seeded basic-strategy player per box) over the Pitwatch protocol,
                            // through the same driver stack, with the game's own faults.
                            let mut config = SimConfig::new(
                                table.device(),
                                pitwatch_baccarat::RuleBook::nz_baccarat(),
                            );
                            config.seed = seed;
                            config.pace = options.pace.into();
                            config.shoes = None;
                            config.endpoint = Endpoint::Pty;
                            let faults =
                                demo_game_faults(&book, options.fault_every, sims.is_empty());
                            config.game = Some(GameSim {
                                book: *book,
                                faults,
                            });
                            let device = SimDevice::start(config).map_err(|e| {
                                internal(format!(
                                    "table {}: the simulated device cannot start: {e}",
                                    table.name
                                ))
                            })?;
                            let path = device.path().unwrap_or_default().to_owned();
                            sims.push(device);
                            tables.push(MonitoredTable {
                                config: table.clone(),
                                link: pty_link(path),
                                more_links: Vec::new(),
                            });
                            continue;
                        }
                    };
                    let protocol = table.device().name();
                    // Round-level faults only: the simulator puts a shoe-level fault (a burn
                    // miscount) at the start of a shoe, so in a list picked from every few rounds it
                    // would open nearly every shoe.
                    let faults: Vec<SimFault> = [
                        SimFault::OutOfOrderCard,
                        SimFault::UnauthorisedThirdCard,
                        SimFault::MissingThirdCard,
                        SimFault::WrongDeclaredResult,
                        SimFault::CardExposed,
                        SimFault::ForeignCard,
                    ]
                    .into_iter()
                    .filter(|f| f.supported_by(protocol))
                    .collect();
                    let mut config = SimConfig::new(table.device(), rules.clone());
                    config.seed = seed;
                    config.pace = options.pace.into();
                    config.shoes = None;
                    config.endpoint = Endpoint::Pty;
                    if options.fault_every > 0 && !faults.is_empty() {
                        if sims.is_empty() {
                            // A newcomer sees the workflow within a minute: an early irregularity
                            // at the first simulated table.
                            config.faults.push(FaultSpec::At {
                                fault: faults[0],
                                shoe: 1,
                                round: 3,
                            });
                        }
                        config.faults.push(FaultSpec::Every {
                            rounds: options.fault_every,
                            faults,
                        });
                    }
                    let device = SimDevice::start(config).map_err(|e| {
                        internal(format!(
                            "table {}: the simulated device cannot start: {e}",
                            table.name
                        ))
                    })?;
                    let path = device.path().unwrap_or_default().to_owned();
                    sims.push(device);
                    // The table's other devices: a simulated shuffler shuffles for the shoe.
                    for extra in &table.devices[1..] {
                        let composition = rules.composition();
                        let shuffler = simulated_shuffler(
                            table,
                            extra,
                            ShufflerPlan {
                                decks: composition.decks,
                                cards_per_deck: composition.kind.cards_per_deck(),
                                // A shoe takes about a quarter of an hour at a dealer's pace (some
                                // 75 rounds of 12 s): a shuffle every 6 to 7 minutes leaves at least
                                // two per shoe, the latest loaded.
                                interval_ms: 6 * 60 * 1000,
                            },
                            &options,
                            seed,
                        )?;
                        more_links.push(pty_link(shuffler.path().unwrap_or_default().to_owned()));
                        sims.push(shuffler);
                    }
                    pty_link(path)
                }
            } else {
                match table.link() {
                    Some(link) => link.clone(),
                    None => {
                        return Err(ApiError::new(
                            ErrorCode::InvalidInput,
                            format!("table {} has no link and is not simulated", table.name),
                        ))
                    }
                }
            };
            if !table.simulated {
                more_links = table.devices[1..]
                    .iter()
                    .map(|d| d.link.clone())
                    .collect::<Option<Vec<_>>>()
                    .ok_or_else(|| {
                        ApiError::new(
                            ErrorCode::InvalidInput,
                            format!("table {}: a device has no link", table.name),
                        )
                    })?;
            }
            tables.push(MonitoredTable {
                config: table.clone(),
                link,
                more_links,
            });
        }
        let mut model = PitModel::new(&options.pit);
        model.set_incident_counts(&store.open_counts()?);
        // Each table's last finished shoe's shuffle, from the record, until the next one ends.
        for table in &options.pit.tables {
            let Some(id) = store.table_id(&table.name)? else {
                continue;
            };
            let Some(last) = store.last_shoe(id)? else {
                continue;
            };
            if last > 1 {
                let judged =
                    pitwatch_recording::shuffle::recorded_shoe_shuffles(&store, id, &[last - 1])?;
                model.set_last_shuffle(&table.name, judged.first());
            }
        }
        let monitor_store = options.installation.open(&db)?;
        let monitor_options = MonitorOptions {
            holder: "Pitwatch desktop".into(),
            // A window closed a moment ago may still be giving its tables up.
            lease_wait: std::time::Duration::from_secs(10),
            clock_limits: options.pit.clock.limits(),
            host_clock: options.host_clock.clone(),
            ..MonitorOptions::default()
        };
        let (monitor, events) =
            Monitor::start_with(monitor_store, tables, clock.clone(), monitor_options)?;
        let model = Arc::new(Mutex::new(model));
        let (updates, received) = mpsc::channel();
        let fold = {
            let alerts = Arc::clone(&alerts);
            let status = RecordStatusSource {
                installation: options.installation.clone(),
                db: db.clone(),
            };
            let model = Arc::clone(&model);
            let updates = updates.clone();
            let clock = Arc::clone(&clock);
            std::thread::Builder::new()
                .name("pitwatch-fold".into())
                .spawn(move || {
                    fold_loop(events, &model, &updates, clock.as_ref(), &alerts, &status)
                })
                .map_err(|e| internal(format!("cannot start the fold thread: {e}")))?
        };
        // The record is verified in full in the background while the pit runs; a replay then
        // only checks what was appended since. A failure is a critical alert on every screen,
        // and marks the segment so that the next start records into a new one.
        let verified: Arc<Mutex<Verified>> = Arc::new(Mutex::new(None));
        {
            let verified = Arc::clone(&verified);
            let clock = Arc::clone(&clock);
            let db = db.clone();
            let installation = options.installation.clone();
            let alerts = Arc::clone(&alerts);
            let updates = updates.clone();
            // A failure found here stops the desk's own writes (the workflow, console entries,
            // audit rows): no person's step is signed onto a record that failed.
            let refusal = store.refusal_handle();
            std::thread::Builder::new()
                .name("pitwatch-verify".into())
                .spawn(move || {
                    let outcome = installation
                        .open_read_only(&db)
                        .map_err(ApiError::from)
                        .and_then(|store| {
                            verify_into(&verified, clock.as_ref(), &installation, &store)
                        });
                    if let Ok((false, problem)) = outcome {
                        refusal.refuse(problem.clone());
                        pitwatch_recording::record::mark_failed(&db, &problem);
                        lock(&alerts).verification = Some(problem);
                        let status = RecordStatusSource { installation, db };
                        let _ = updates.send(PitUpdate::Record {
                            record: status.status(&lock(&alerts)),
                        });
                    }
                })
                .map_err(|e| internal(format!("cannot start the verification thread: {e}")))?;
        }
        // Replication to the central database, when the pit definition names one: beside
        // recording, on a connection of its own; its state and alerts are the record's.
        let replicator = match &options.pit.central {
            Some(central) => crate::record::replicate(
                central,
                RecordStatusSource {
                    installation: options.installation.clone(),
                    db: db.clone(),
                },
                Arc::clone(&alerts),
                updates.clone(),
            )?,
            None => None,
        };
        Ok((
            Desk {
                running: Mutex::new(options.pit.clone()),
                configuring: Mutex::new(()),
                pit: options.pit,
                pit_file: options.pit_file,
                idle_lock_seconds: options.idle_lock_seconds,
                db,
                installation: options.installation,
                alerts,
                model,
                store: Mutex::new(store),
                session: Mutex::new(None),
                alarm_muted: Mutex::new(false),
                viewed: Mutex::default(),
                workstation: crate::access::workstation(),
                monitor: Mutex::new(Some(monitor)),
                #[cfg(feature = "demo")]
                sims: Mutex::new(sims),
                replicator: Mutex::new(replicator),
                fold: Mutex::new(Some(fold)),
                updates: Mutex::new(updates),
                clock,
                verified,
            },
            received,
        ))
    }

    /// The pit now: every tile, the session, and (demo only) the demo login.
    pub fn overview(&self) -> PitOverview {
        PitOverview {
            site: self.pit.site.name.clone(),
            time_zone: self.pit.site.time_zone.clone(),
            demo: self.pit.demo,
            demo_login: self.pit.demo.then(crate::setup::demo_login),
            session: lock(&self.session).as_ref().map(session_dto),
            tables: lock(&self.model).tables().to_vec(),
            record: self.record_status(),
            idle_lock_seconds: self.idle_lock_seconds,
            alarm_muted: self.alarm_muted(),
            pit_file: self.pit_file.as_ref().map(|f| f.display().to_string()),
            build: pitwatch_api::dto::BuildInfo::current(),
        }
    }

    /// The database in use.
    pub fn db(&self) -> &std::path::Path {
        &self.db
    }

    /// Who is logged in, or `unauthorised`.
    pub(crate) fn principal(&self) -> Result<Principal, ApiError> {
        lock(&self.session)
            .clone()
            .ok_or_else(|| ApiError::new(ErrorCode::Unauthorised, "log in first"))
    }

    /// Stops the simulated devices, the monitor (which records the ends of the sessions) and the
    /// fold thread. Idempotent.
    pub fn stop(&self) {
        if let Some(replicator) = lock(&self.replicator).take() {
            replicator.stop();
        }
        #[cfg(feature = "demo")]
        for sim in lock(&self.sims).drain(..) {
            let _ = sim.stop();
        }
        if let Some(monitor) = lock(&self.monitor).take() {
            let _ = monitor.stop();
        }
        if let Some(fold) = lock(&self.fold).take() {
            let _ = fold.join();
        }
    }
}

impl Drop for Desk {
    fn drop(&mut self) {
        self.stop();
    }
}

fn fold_loop(
    events: Receiver<MonitorEvent>,
    model: &Mutex<PitModel>,
    updates: &Sender<PitUpdate>,
    clock: &dyn Clock,
    alerts: &Mutex<RecordAlerts>,
    status: &RecordStatusSource,
) {
    let mut dirty: Vec<String> = Vec::new();
    let mut last_flush = Instant::now();
    loop {
        let wait = FLUSH_EVERY.saturating_sub(last_flush.elapsed());
        let received = events.recv_timeout(wait);
        let ended = matches!(received, Err(RecvTimeoutError::Disconnected));
        if let Ok(MonitorEvent::Witness(journals)) = &received {
            // A journal that cannot be written is an alert on every screen, until it can be.
            let failing: Vec<String> = journals.iter().filter_map(|j| j.error.clone()).collect();
            let changed = {
                let mut alerts = lock(alerts);
                let changed = alerts.journals != failing;
                alerts.journals = failing;
                changed
            };
            if changed {
                let _ = updates.send(PitUpdate::Record {
                    record: status.status(&lock(alerts)),
                });
            }
        }
        if let Ok(MonitorEvent::Clock(state)) = &received {
            if crate::record::set_clock_alert(alerts, state.alert.clone()) {
                let _ = updates.send(PitUpdate::Record {
                    record: status.status(&lock(alerts)),
                });
            }
        }
        if let Ok(MonitorEvent::Recording(state)) = &received {
            // On every screen at once, not at the next flush.
            let _ = updates.send(PitUpdate::Recording {
                status: RecordingStatus {
                    degraded: state.degraded,
                    reason: state.reason.clone(),
                    since_ms: state.since.map(Timestamp::unix_millis),
                    backlog_bytes: state.backlog_bytes,
                    backlog_inputs: state.backlog_inputs,
                    dropped_bytes: state.dropped_bytes,
                },
            });
        }
        if let Ok(event) = received {
            let (table, raised) = lock(model).apply(&event, clock.now());
            if let Some(table) = table {
                if !dirty.contains(&table) {
                    dirty.push(table);
                }
            }
            if let Some(incident) = raised {
                // An alert must not wait for the next flush.
                let _ = updates.send(PitUpdate::IncidentRaised { incident });
            }
        }
        if ended || last_flush.elapsed() >= FLUSH_EVERY {
            // Sent while the model is held: a reload's new tile list (sent under the same lock)
            // is never followed by a tile taken before it.
            let mut model = lock(model);
            for table in dirty.drain(..).filter_map(|name| model.take_unsent(&name)) {
                let _ = updates.send(PitUpdate::Table {
                    table: Box::new(table),
                });
            }
            drop(model);
            last_flush = Instant::now();
        }
        if ended {
            return;
        }
    }
}

#[cfg(feature = "demo")]
/// A simulated poker table: its shuffler (its first device) shuffles and checks a deck for every
/// hand, a short deck at its third shuffle when the demo injects faults (misdeal (h)); with a
/// dealer console as its second device, one simulated dealer drives both (so each hand's play
/// follows its deck) and the console reports six players' blinds and actions, with a declared
/// misdeal every `fault_every` hands when faults are on. Returns the device and how many more
/// links it has.
fn simulated_poker_table(
    table: &pitwatch_recording::pit::TableConfig,
    book: &pitwatch_poker::Book,
    options: &DeskOptions,
    seed: u64,
) -> Result<(SimDevice, usize), ApiError> {
    use pitwatch_recording::pit::DeviceRole;
    let roles: Vec<DeviceRole> = table.devices.iter().map(|d| d.role).collect();
    let composition = book.shoe.composition;
    let shuffler = pitwatch_sim::ShufflerSim {
        decks: composition.decks,
        cards_per_deck: composition.kind.cards_per_deck(),
        faults: if options.fault_every > 0 {
            vec![pitwatch_sim::ShufflerFault {
                fault: pitwatch_sim::ShufflerFaultKind::DeckShort,
                shuffle: 3,
            }]
        } else {
            Vec::new()
        },
        interval_ms: 5_000,
    };
    let config = match roles.as_slice() {
        [DeviceRole::Shuffler] => {
            // A shuffler alone: about two minutes a hand at a dealer's pace.
            let mut shuffler = shuffler;
            shuffler.interval_ms = 2 * 60 * 1000;
            let mut config =
                SimConfig::new(table.devices[0].protocol, pitwatch_baccarat::RuleBook::nz_baccarat());
            config.shuffler = Some(shuffler);
            config
        }
        [DeviceRole::Shuffler, DeviceRole::Console] => {
            let mut config =
                SimConfig::new(table.devices[0].protocol, pitwatch_baccarat::RuleBook::nz_baccarat());
            let every = options.fault_every;
            config.poker = Some(pitwatch_sim::PokerSim {
                shuffler,
                seats: 6,
                misdeal_hands: if every > 0 {
                    (1..=1000).map(|k| k * every).collect()
                } else {
                    Vec::new()
                },
            });
            config
        }
        _ => {
            return Err(ApiError::new(
                ErrorCode::InvalidInput,
                format!(
                    "table {}: a simulated poker table has a shuffler, or a shuffler and a dealer console",
                    table.name
                ),
            ))
        }
    };
    let mut config = config;
    config.seed = seed ^ 0x504f_4b45;
    config.pace = options.pace.into();
    config.shoes = None;
    config.endpoint = Endpoint::Pty;
    let device = SimDevice::start(config).map_err(|e| {
        internal(format!(
            "table {}: the simulated poker table cannot start: {e}",
            table.name
        ))
    })?;
    Ok((device, roles.len() - 1))
}

#[cfg(feature = "demo")]
/// The link to a simulated device's pseudo-terminal.
fn pty_link(path: String) -> LinkConfig {
    LinkConfig::new(TransportConfig::Serial(SerialConfig::new(path, 9600)))
}

#[cfg(feature = "demo")]
/// What a simulated shuffler shuffles, and how often.
struct ShufflerPlan {
    decks: u8,
    cards_per_deck: u32,
    /// The pause between shuffles at a real pace.
    interval_ms: u64,
}

#[cfg(feature = "demo")]
/// A simulated counting shuffler: beside a shoe, shuffling about twice a shoe (the shoe is loaded
/// from the latest), or a poker table's only device, shuffling for every hand; with a short deck
/// at its third shuffle when the demo injects faults. Other simulated roles are not offered.
fn simulated_shuffler(
    table: &pitwatch_recording::pit::TableConfig,
    device: &pitwatch_recording::pit::TableDevice,
    plan: ShufflerPlan,
    options: &DeskOptions,
    seed: u64,
) -> Result<SimDevice, ApiError> {
    if device.role != pitwatch_recording::pit::DeviceRole::Shuffler {
        return Err(ApiError::new(
            ErrorCode::InvalidInput,
            format!(
                "table {}: a simulated {} is not offered (a simulated table's other devices are shufflers)",
                table.name,
                device.role.as_str()
            ),
        ));
    }
    let mut config = SimConfig::new(device.protocol, pitwatch_baccarat::RuleBook::nz_baccarat());
    config.seed = seed ^ 0x5348_5546;
    config.pace = options.pace.into();
    config.shoes = None;
    config.endpoint = Endpoint::Pty;
    config.shuffler = Some(pitwatch_sim::ShufflerSim {
        decks: plan.decks,
        cards_per_deck: plan.cards_per_deck,
        faults: if options.fault_every > 0 {
            vec![pitwatch_sim::ShufflerFault {
                fault: pitwatch_sim::ShufflerFaultKind::DeckShort,
                shuffle: 3,
            }]
        } else {
            Vec::new()
        },
        interval_ms: plan.interval_ms,
    });
    SimDevice::start(config).map_err(|e| {
        internal(format!(
            "table {}: the simulated shuffler cannot start: {e}",
            table.name
        ))
    })
}

#[cfg(feature = "demo")]
/// The faults a demo Blackjack or Pontoon table deals: one every `every` rounds (the game's
/// faults in turn, those the book allows), and at round 3 of the first shoe when the table is the
/// pit's first simulated one; none when `every` is 0. The simulator takes faults at given rounds
/// of given shoes, so the demo's endless shoes get them for their first thousand shoes.
fn demo_game_faults(book: &pitwatch_blackjack::Book, every: u32, first: bool) -> Vec<GameFault> {
    use pitwatch_blackjack::dealer::Fault;
    let kinds: Vec<Fault> = Fault::ALL
        .iter()
        .copied()
        .filter(|f| f.applies(book))
        .collect();
    if every == 0 || kinds.is_empty() {
        return Vec::new();
    }
    let mut faults = Vec::new();
    if first {
        faults.push(GameFault {
            fault: kinds[0],
            shoe: 1,
            round: 3,
        });
    }
    // Every `every`-th round of the table, counted across shoes of some twelve rounds each (a
    // six-deck shoe deals more before its cutting card; a fault is put into its round or the
    // first after it where it can show).
    const ROUNDS: u32 = 12;
    let mut dealt = every;
    let mut next = 0usize;
    while dealt <= 1000 * ROUNDS {
        faults.push(GameFault {
            fault: kinds[next % kinds.len()],
            shoe: (dealt - 1) / ROUNDS + 1,
            round: (dealt - 1) % ROUNDS + 1,
        });
        next += 1;
        dealt += every;
    }
    faults
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;
    use std::time::{Duration, Instant};

    use crate::setup::Pace;
    use pitwatch_api::dto::{
        ConsoleEntry, ErrorCode, IncidentQuery, IncidentStatus, LinkStatus, PitUpdate, ShiftQuery,
    };
    use pitwatch_baccarat::RuleBook;
    use pitwatch_model::{EventKind, Target};
    use pitwatch_recording::pit::PitConfig;
    use pitwatch_transport::{Clock, SystemClock};

    use crate::live::{lock, Desk};
    use crate::setup::{DeskOptions, DEMO_PASSWORD, DEMO_USER};
    use crate::testkit::*;

    #[test]
    fn a_restarted_desk_shows_the_shoe_as_recorded_before_any_new_byte() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let db = dir.path().join("restart.db");
        let now = SystemClock.now();
        let book = RuleBook::load("nz-baccarat").expect("a rule book");
        {
            // A shoe under way, on record from an earlier run.
            let mut store = test_store(&db);
            let mut recorder = pitwatch_recording::recorder::TableRecorder::resume(
                &mut store, "T1", "baccarat", book, None, None, now,
            )
            .expect("a recorder");
            let mut batch = store.batch(now).expect("a batch");
            let mut derived = Vec::new();
            let card = |code: &str, target| EventKind::CardDrawn {
                card: Some(code.parse().expect("a card")),
                target: Some(target),
                index: None,
                face_up: None,
                retransmit: None,
            };
            let mut kinds = vec![
                EventKind::Shuffled {
                    decks: None,
                    cards: None,
                    shuffler: None,
                },
                card("3H", Target::First),
            ];
            kinds.extend((0..3).map(|_| card("2C", Target::Burn)));
            for kind in kinds {
                recorder
                    .console(&mut batch, kind, "test", now, &mut derived)
                    .expect("recorded");
            }
            batch.commit().expect("committed");
        }
        // Nobody listens at the table's address: no new byte will arrive.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let pit = PitConfig::from_toml(&format!(
            "[site]\nname = \"Test\"\ntime_zone = \"Pacific/Auckland\"\n[[table]]\nname = \"T1\"\ngame = \"baccarat\"\n\
             rules = \"nz-baccarat\"\ndevice = {{ protocol = \"angel-eye\" }}\n\
             link = {{ kind = \"tcp\", address = \"127.0.0.1:{port}\" }}\n"
        ))
        .expect("a pit definition");
        let (desk, _updates) = Desk::start(DeskOptions {
            pit,
            ..DeskOptions::demo(db)
        })
        .expect("the desk starts");
        // The window shows its times in the zone the pit definition names, as the reports do.
        assert_eq!(
            desk.overview().time_zone.as_deref(),
            Some("Pacific/Auckland")
        );
        let deadline = Instant::now() + Duration::from_secs(10);
        let tile = loop {
            let tile = desk.overview().tables[0].clone();
            if tile.shoe == 1 || Instant::now() > deadline {
                break tile;
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        desk.stop();
        assert_eq!(tile.shoe, 1, "{tile:?}");
        // The engine counts the cards on record; the shoe is partial now (nobody listened while
        // Pitwatch was down), so how many are left is unknown.
        assert_eq!(tile.cards_dealt, 4, "{tile:?}");
        assert_eq!(tile.cards_left, None, "{tile:?}");
        assert!(
            matches!(&tile.play, pitwatch_api::games::TablePlay::Baccarat(p) if !p.burn_due),
            "no burn is due in a shoe cut off: {tile:?}"
        );
        assert_eq!(tile.frames_accepted, 0, "nothing new arrived");
    }

    #[test]
    fn the_demo_pit_runs_live_rounds_and_the_workflow_persists() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let db = dir.path().join("desk.db");
        let options = DeskOptions {
            pace: Pace::Times(200.0),
            fault_every: 2,
            ..DeskOptions::demo(db.clone())
        };
        let (desk, updates) = Desk::start(options.clone()).expect("the desk starts");
        let deadline = Instant::now() + Duration::from_secs(60);
        let mut with_rounds = HashSet::new();
        let mut raised = None;
        while Instant::now() < deadline
            && (with_rounds.len() < desk.pit.tables.len() || raised.is_none())
        {
            match updates.recv_timeout(Duration::from_millis(500)) {
                Ok(PitUpdate::Table { table }) if table.play.rounds_shown() > 0 => {
                    assert_eq!(table.status, LinkStatus::Connected, "{table:?}");
                    with_rounds.insert(table.name.clone());
                }
                Ok(PitUpdate::IncidentRaised { incident }) => raised = Some(incident),
                _ => {}
            }
        }
        assert_eq!(
            with_rounds.len(),
            desk.pit.tables.len(),
            "rounds at every table"
        );
        let raised = raised.expect("an injected irregularity raised an incident");
        // Anyone at the workstation may look at an incident: the look is audited as nobody's.
        desk.incident(raised.id).expect("a look before a login");

        let error = desk
            .acknowledge(raised.id)
            .expect_err("nobody is logged in");
        assert_eq!(error.code, ErrorCode::Unauthorised);
        assert!(desk.login(DEMO_USER, "wrong password").is_err());
        // After a failed login the next attempt waits a second (throttling; accounts.rs tests it
        // on a fixed clock). On a loaded machine the second may be over before the next attempt
        // is checked: then it is let in, otherwise refused saying when to try again.
        if let Err(early) = desk.login(DEMO_USER, DEMO_PASSWORD) {
            assert!(early.message.contains("try again"), "{early}");
        }
        std::thread::sleep(Duration::from_millis(1100));
        desk.login(DEMO_USER, DEMO_PASSWORD)
            .expect("the demo user logs in");
        assert_eq!(
            desk.acknowledge(raised.id).expect("ack").status,
            IncidentStatus::Acknowledged
        );
        std::thread::sleep(Duration::from_millis(5));
        desk.add_note(raised.id, "watched the replay")
            .expect("note");
        std::thread::sleep(Duration::from_millis(5));
        let resolved = desk.resolve(raised.id, "dealer retrained", None);
        assert_eq!(resolved.expect("resolve").status, IncidentStatus::Resolved);
        let twice = desk.resolve(raised.id, "again", None).expect_err("twice");
        assert_eq!(twice.code, ErrorCode::Conflict);
        let detail = desk.incident(raised.id).expect("detail");
        desk.incident(raised.id).expect("the same look again");
        // Who looked, once per user within the window (viewed.rs), beside what they changed.
        let looks: Vec<(String, String)> = lock(&desk.store)
            .recent_audit(&["incident.view"], 100)
            .expect("the audit log")
            .into_iter()
            .filter(|e| e.subject == raised.id.to_string())
            .map(|e| (e.user, e.detail))
            .collect();
        let users: Vec<&str> = looks.iter().map(|(u, _)| u.as_str()).collect();
        assert_eq!(users, [DEMO_USER, crate::viewed::NOBODY], "{looks:?}");
        assert!(looks[0].1.contains("supervisor"), "{looks:?}");
        assert!(!detail.timeline.is_empty(), "{detail:?}");
        assert!(detail.timeline.iter().any(|t| t.evidence));
        assert!(
            detail.timeline.iter().any(|t| t.frame.is_some()),
            "device events show their frames"
        );
        let whats: Vec<&str> = detail.history.iter().map(|h| h.what.as_str()).collect();
        assert_eq!(whats, ["opened", "acknowledged", "note", "resolved"]);
        let pdf = desk.export_incident_pdf(raised.id).expect("a PDF");
        let bytes = std::fs::read(&pdf).expect("the PDF was written");
        assert!(bytes.starts_with(b"%PDF-"), "{pdf}");
        // Where the user chose (the path the shell's save dialog gives).
        let chosen = dir.path().join("chosen").join("incident report.pdf");
        let written = desk
            .export_incident_pdf_to(raised.id, &chosen)
            .expect("written where chosen");
        assert_eq!(written, chosen.display().to_string());
        assert!(std::fs::read(&chosen)
            .expect("the chosen file")
            .starts_with(b"%PDF-"));
        // A folder is no file name: refused, saying so.
        let folder = desk
            .export_incident_pdf_to(raised.id, dir.path())
            .expect_err("a folder");
        assert_eq!(folder.code, ErrorCode::InvalidInput);
        assert!(folder.message.contains("is a folder"), "{folder}");
        // The shift handover: the report of the shift so far, then the sign-off, both audited;
        // a later report of the same shift shows who signed off.
        let shift = ShiftQuery {
            from: "2000-01-01T00:00:00Z".into(),
            to: "2100-01-01T00:00:00Z".into(),
            table: None,
        };
        let report = desk.export_shift_report(&shift).expect("a shift report");
        assert!(report.pages >= 1);
        let bytes = std::fs::read(&report.path).expect("the shift report was written");
        assert!(bytes.starts_with(b"%PDF-"), "{}", report.path);
        let signed = desk
            .sign_off_shift(
                &shift,
                &crate::testkit::handover("Kua tirohia te kāmera 14"),
            )
            .expect("signed off");
        assert_eq!(
            (signed.user, signed.accepted_by),
            (DEMO_USER.into(), "demo-next".into())
        );
        {
            let store = lock(&desk.store);
            let exports = store.audit_entries("shift.export").expect("audit");
            assert_eq!(exports.len(), 1);
            let detail: serde_json::Value =
                serde_json::from_str(&exports[0].detail).expect("JSON detail");
            assert_eq!(detail["written"], report.path.as_str());
            assert!(detail["workstation"].is_string(), "{detail}");
            let sign_offs = store
                .audit_entries(pitwatch_recording::report::SHIFT_SIGN_OFF)
                .expect("audit");
            assert_eq!(sign_offs.len(), 1);
            assert_eq!(sign_offs[0].user, DEMO_USER);
            assert!(sign_offs[0].detail.contains("Kua tirohia te kāmera 14"));
            let later = pitwatch_recording::report::shift_report(
                &store,
                &Desk::shift(&shift).expect("a shift"),
                "pitwatch.db",
            )
            .expect("a later report")
            .to_json();
            assert!(later.contains("Kua tirohia te kāmera 14"), "{later}");
        }
        let backwards = ShiftQuery {
            from: shift.to.clone(),
            to: shift.from.clone(),
            table: None,
        };
        assert_eq!(
            desk.export_shift_report(&backwards).map_err(|e| e.code),
            Err(ErrorCode::InvalidInput)
        );
        let shoe = desk
            .replay(&raised.table, raised.shoe)
            .expect("the incident's shoe replays");
        let replayed = lock(&desk.store)
            .recent_audit(&["replay.view"], 10)
            .expect("the audit log");
        assert_eq!(replayed.len(), 1, "{replayed:?}");
        assert_eq!(replayed[0].user, DEMO_USER);
        assert_eq!(
            replayed[0].subject,
            format!("{} shoe {}", raised.table, shoe.shoe)
        );
        assert!(shoe.verified, "{}", shoe.verify_detail);
        assert!(shoe.divergences.is_empty(), "{:?}", shoe.divergences);
        assert!(
            shoe.steps.iter().any(|s| s.seq == raised.seq),
            "the raising event is a step"
        );
        // A round's irregularity is output when the round is settled: at the raising event's
        // step or a later one of the same round.
        let flagged = shoe
            .steps
            .iter()
            .filter(|s| s.seq >= raised.seq)
            .find(|s| s.irregularities.iter().any(|i| i.starts_with(&raised.code)));
        assert!(flagged.is_some(), "{:?}", shoe.steps);
        assert!(
            shoe.verify_detail.contains("in full"),
            "{}",
            shoe.verify_detail
        );
        // The second replay verifies only what was appended since the first, and says so.
        let again = desk.replay(&raised.table, None).expect("the last shoe");
        assert!(again.verified, "{}", again.verify_detail);
        assert!(
            again.verify_detail.contains("appended since"),
            "{}",
            again.verify_detail
        );
        for shoe in [0, u32::MAX] {
            let error = desk
                .replay(&raised.table, Some(shoe))
                .expect_err("no such shoe");
            assert_eq!(error.code, ErrorCode::NotFound, "shoe {shoe}: {error}");
        }
        let shoes = desk.shoes(&raised.table, None, Some(1)).expect("shoes");
        assert_eq!(shoes.shoes.len(), 1);
        // Newest first (the demo deals on: a newer shoe may have started since).
        assert!(shoes.shoes[0].shoe >= again.shoe, "{shoes:?}");
        assert!(desk.shoes("NO-SUCH-TABLE", None, None).is_err());

        // Incidents a page at a time, newest first, the resolved one found by its filter.
        let first = desk
            .incidents(&IncidentQuery {
                limit: Some(1),
                ..Default::default()
            })
            .expect("a page");
        assert_eq!(first.incidents.len(), 1);
        assert!(first.total >= 1);
        assert_eq!(first.next.is_some(), first.total > 1);
        let resolved_only = desk
            .incidents(&IncidentQuery {
                status: Some(IncidentStatus::Resolved),
                table: Some(raised.table.clone()),
                ..Default::default()
            })
            .expect("a filtered page");
        assert_eq!(
            resolved_only
                .incidents
                .iter()
                .map(|r| r.id)
                .collect::<Vec<_>>(),
            [raised.id]
        );
        let bad = desk
            .incidents(&IncidentQuery {
                since: Some("yesterday".into()),
                ..Default::default()
            })
            .expect_err("not a time");
        assert_eq!(bad.code, ErrorCode::InvalidInput);
        let seq = desk
            .record_console("BAC-1", &ConsoleEntry::TableVacant)
            .expect("a console event");
        assert!(seq > 0);
        desk.logout().expect("logs out");
        assert_eq!(
            desk.record_console("BAC-1", &ConsoleEntry::CardsReplaced)
                .expect_err("logged out")
                .code,
            ErrorCode::Unauthorised
        );
        desk.stop();
        drop(desk);

        let (desk, _updates) = Desk::start(DeskOptions {
            fault_every: 0,
            ..options
        })
        .expect("restarts");
        let detail = desk.incident(raised.id).expect("still there");
        assert_eq!(detail.incident.status, IncidentStatus::Resolved);
        // The tiles count the unresolved incidents on record, read by a count query.
        let unresolved = desk
            .incidents(&IncidentQuery {
                unresolved: true,
                limit: Some(1000),
                ..Default::default()
            })
            .expect("unresolved");
        let tiles: u64 = desk
            .overview()
            .tables
            .iter()
            .map(|t| {
                let c = t.incidents;
                u64::from(c.critical + c.high + c.medium + c.low)
            })
            .sum();
        assert!(tiles >= unresolved.total, "{tiles} < {}", unresolved.total);
        // The restarted desk verified the record in full in the background: its first replay
        // checks only what was appended since.
        let deadline = Instant::now() + Duration::from_secs(30);
        while !desk.verified_in_full() {
            assert!(
                Instant::now() < deadline,
                "the start-up verification finishes"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        let first = desk
            .replay(&raised.table, raised.shoe)
            .expect("the incident's shoe replays");
        assert!(first.verified, "{}", first.verify_detail);
        assert!(
            first.verify_detail.contains("appended since"),
            "{}",
            first.verify_detail
        );
        desk.stop();
    }
}

#[cfg(test)]
mod honest {
    use std::time::{Duration, Instant};

    use crate::setup::Pace;
    use pitwatch_api::dto::PitUpdate;

    use crate::live::Desk;
    use crate::setup::DeskOptions;

    /// The incidents the desk raises within `time`.
    fn incidents_raised(
        updates: &std::sync::mpsc::Receiver<PitUpdate>,
        time: Duration,
    ) -> Vec<pitwatch_api::dto::IncidentRow> {
        let deadline = Instant::now() + time;
        let mut raised = Vec::new();
        while Instant::now() < deadline {
            if let Ok(PitUpdate::IncidentRaised { incident }) =
                updates.recv_timeout(Duration::from_millis(200))
            {
                raised.push(incident);
            }
        }
        raised
    }

    #[test]
    fn an_honest_demo_pit_raises_no_incident() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let options = DeskOptions {
            pace: Pace::Times(100.0),
            fault_every: 0,
            ..DeskOptions::demo(dir.path().join("honest.db"))
        };
        let (desk, updates) = Desk::start(options).expect("the desk starts");
        let raised = incidents_raised(&updates, Duration::from_secs(3));
        desk.stop();
        assert!(raised.is_empty(), "{raised:#?}");
    }

    #[test]
    fn a_demo_shoe_is_loaded_from_its_shufflers_checked_shuffle_every_shoe() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let db = dir.path().join("shuffler.db");
        // The demo's table with a shuffler beside its shoe, on its own.
        let mut pit = pitwatch_recording::pit::PitConfig::demo();
        pit.tables.retain(|t| {
            let has = |role| t.devices.iter().any(|d| d.role == role);
            has(pitwatch_recording::pit::DeviceRole::Shoe)
                && has(pitwatch_recording::pit::DeviceRole::Shuffler)
        });
        assert_eq!(pit.tables.len(), 1);
        let name = pit.tables[0].name.clone();
        let options = DeskOptions {
            pace: Pace::Times(200.0),
            fault_every: 0,
            pit,
            ..DeskOptions::demo(db.clone())
        };
        let (desk, updates) = Desk::start(options).expect("the desk starts");
        // About three shoes at 200 times a dealer's pace.
        let raised = incidents_raised(&updates, Duration::from_secs(14));
        desk.stop();
        assert!(raised.is_empty(), "{raised:#?}");
        let store =
            pitwatch_recording::record::Installation::with_key(dir.path().join("signing.key"))
                .open(&db)
                .expect("the record opens");
        let id = store.table_id(&name).unwrap().expect("the table");
        let rows = store.event_rows(id).unwrap();
        let count = |f: &dyn Fn(&pitwatch_model::EventKind) -> bool| {
            rows.iter().filter(|r| f(&r.event.kind)).count()
        };
        // The Angel Eye reports no shuffle: each new shoe begins with its first card.
        let shoes = store.last_shoe(id).unwrap().unwrap_or(0) as usize;
        let checks = count(&|k| matches!(k, pitwatch_model::EventKind::DeckChecked { .. }));
        assert!(
            shoes >= 3 && checks >= shoes,
            "{shoes} shoes, {checks} deck checks"
        );
        let replay = pitwatch_recording::replay::rebuild(&store, &name).unwrap();
        assert!(replay.divergences.is_empty(), "{:?}", replay.divergences);
        assert_eq!(replay.irregularities().count(), 0);
    }
}

#[cfg(test)]
mod poker {
    use std::time::{Duration, Instant};

    use crate::setup::Pace;
    use pitwatch_api::dto::{ConsoleEntry, ErrorCode, PitUpdate};
    use pitwatch_api::games::{GameRoundResult, TablePlay};

    use crate::live::Desk;
    use crate::setup::{DeskOptions, DEMO_PASSWORD, DEMO_USER};

    #[test]
    fn the_demo_poker_table_deals_from_its_shuffler_and_takes_a_declared_misdeal() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let db = dir.path().join("poker.db");
        // The demo's poker table and a Baccarat table, on their own.
        let mut pit = pitwatch_recording::pit::PitConfig::demo();
        pit.tables
            .retain(|t| t.name == "POK-1" || t.name == "BAC-1");
        assert_eq!(pit.tables.len(), 2);
        let options = DeskOptions {
            // A shuffle every 2 minutes at a real pace: one every 0.6 s.
            pace: Pace::Times(200.0),
            fault_every: 0,
            pit,
            ..DeskOptions::demo(db.clone())
        };
        let (desk, updates) = Desk::start(options).expect("the desk starts");
        desk.login(DEMO_USER, DEMO_PASSWORD).expect("logs in");
        let tile = |desk: &Desk| {
            desk.overview()
                .tables
                .into_iter()
                .find(|t| t.name == "POK-1")
                .expect("the poker tile")
        };
        let first = tile(&desk);
        match &first.play {
            TablePlay::Poker(play) => assert_eq!(play.variant, "texas_holdem"),
            other => panic!("{other:?}"),
        }
        // The shuffler's shuffles are the table's decks.
        let deadline = Instant::now() + Duration::from_secs(20);
        while tile(&desk).shoe < 2 {
            assert!(Instant::now() < deadline, "two decks shuffled");
            std::thread::sleep(Duration::from_millis(100));
        }

        // A misdeal is a poker table's: refused elsewhere, and checked.
        let misdeal = |reason: &str, seats: Vec<u8>, ruling: &str| ConsoleEntry::Misdeal {
            reason: reason.into(),
            seats,
            ruling: ruling.into(),
        };
        let refused = desk
            .record_console("BAC-1", &misdeal("d", vec![4], "misdeal"))
            .expect_err("not a poker table");
        assert_eq!(refused.code, ErrorCode::InvalidInput);
        assert!(refused.message.contains("poker"), "{refused}");
        for (entry, why) in [
            (misdeal("z", vec![], "misdeal"), "z"),
            (misdeal("d", vec![0], "misdeal"), "seat 0"),
            (misdeal("d", vec![11], "misdeal"), "seat 11"),
            (misdeal("d", vec![], "maybe"), "maybe"),
        ] {
            let error = desk.record_console("POK-1", &entry).expect_err(why);
            assert_eq!(error.code, ErrorCode::InvalidInput, "{why}: {error}");
            assert!(
                error.message.contains(why.trim_start_matches("seat ")),
                "{error}"
            );
        }

        let seq = desk
            .record_console("POK-1", &misdeal("D", vec![4, 2, 4], "misdeal"))
            .expect("declared");
        // Generous limits: the machine may be busy (a shuffle comes every 0.6 s at this pace).
        let deadline = Instant::now() + Duration::from_secs(30);
        let raised = loop {
            assert!(Instant::now() < deadline, "the declaration is an incident");
            if let Ok(PitUpdate::IncidentRaised { incident }) =
                updates.recv_timeout(Duration::from_millis(100))
            {
                if incident.code == "MISDEAL_DECLARED" {
                    break incident;
                }
            }
        };
        assert_eq!(raised.table, "POK-1");
        assert_eq!(raised.seq, seq);
        assert_eq!(raised.rule, "Misdeal (d)");
        let detail = desk.incident(raised.id).expect("the incident");
        assert!(
            detail.rule_texts.iter().any(|r| r
                .text
                .contains("deals a player out or deals an extra hand in")),
            "{:?}",
            detail.rule_texts
        );
        // The next shuffle closes the hand: the tile shows it misdealt by (d), for seats 2 and 4.
        let deadline = Instant::now() + Duration::from_secs(30);
        let hand = loop {
            let play = tile(&desk).play;
            assert!(Instant::now() < deadline, "the hand closes: {play:#?}");
            if let TablePlay::Poker(play) = play {
                if let Some(hand) = play
                    .hands
                    .iter()
                    .find(|h| h.declared.iter().any(|d| d.seq == seq))
                {
                    break hand.clone();
                }
            }
            std::thread::sleep(Duration::from_millis(100));
        };
        assert_eq!(hand.misdeal.as_deref(), Some("d"));
        assert_eq!(hand.declared.len(), 1);
        assert_eq!(hand.declared[0].seats, [2, 4]);
        // The incident's detail names its hand.
        let detail = desk.incident(raised.id).expect("the incident");
        match detail.round {
            Some(GameRoundResult::Poker(h)) => assert_eq!(h.hand, hand.hand),
            other => panic!("{other:?}"),
        }
        desk.stop();

        // The record replays with the same verdicts.
        let store =
            pitwatch_recording::record::Installation::with_key(dir.path().join("signing.key"))
                .open(&db)
                .expect("the record opens");
        let replay = pitwatch_recording::replay::rebuild(&store, "POK-1").unwrap();
        assert!(replay.divergences.is_empty(), "{:?}", replay.divergences);
        assert_eq!(
            replay
                .irregularities()
                .map(|i| i.code.as_str().to_owned())
                .collect::<Vec<_>>(),
            ["MISDEAL_DECLARED"]
        );
    }

    #[test]
    fn the_demo_poker_tables_console_reports_each_hands_play_after_its_deck() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let db = dir.path().join("poker-console.db");
        let mut pit = pitwatch_recording::pit::PitConfig::demo();
        pit.tables.retain(|t| t.name == "POK-1");
        assert_eq!(pit.tables[0].devices.len(), 2, "a shuffler and a console");
        let options = DeskOptions {
            // About 100 s a hand at a dealer's pace: half a second here.
            pace: Pace::Times(200.0),
            fault_every: 3,
            pit,
            ..DeskOptions::demo(db.clone())
        };
        let (desk, updates) = Desk::start(options).expect("the desk starts");
        let deadline = Instant::now() + Duration::from_secs(12);
        let mut raised = Vec::new();
        while Instant::now() < deadline {
            if let Ok(PitUpdate::IncidentRaised { incident }) =
                updates.recv_timeout(Duration::from_millis(100))
            {
                raised.push((incident.code, incident.rule));
            }
        }
        let tile = desk
            .overview()
            .tables
            .into_iter()
            .find(|t| t.name == "POK-1")
            .expect("the tile");
        desk.stop();
        let TablePlay::Poker(play) = tile.play else {
            panic!("{:?}", tile.play)
        };
        // Hands with seats that acted; every third declared a misdeal (c) by the console, the
        // third deck short (h); nothing else.
        assert!(play.hands.len() >= 6, "{} hands", play.hands.len());
        // Every hand shown closed at its next deck's shuffle, none cut off.
        assert!(play.hands.iter().all(|h| h.complete), "{:#?}", play.hands);
        assert!(play
            .hands
            .iter()
            .any(|h| h.seats.len() >= 2 && h.substantial_action_seq.is_some()));
        assert!(
            raised.contains(&(
                "SHUFFLE_COUNT_MISMATCH".to_owned(),
                "Misdeal (h)".to_owned()
            )),
            "{raised:?}"
        );
        assert!(
            raised.contains(&("MISDEAL_DECLARED".to_owned(), "Misdeal (c)".to_owned())),
            "{raised:?}"
        );
        assert!(
            raised
                .iter()
                .all(|(code, _)| code == "SHUFFLE_COUNT_MISMATCH" || code == "MISDEAL_DECLARED"),
            "{raised:?}"
        );
        assert_eq!(
            raised
                .iter()
                .filter(|(code, _)| code == "SHUFFLE_COUNT_MISMATCH")
                .count(),
            1
        );
        let store =
            pitwatch_recording::record::Installation::with_key(dir.path().join("signing.key"))
                .open(&db)
                .expect("the record opens");
        let replay = pitwatch_recording::replay::rebuild(&store, "POK-1").unwrap();
        assert!(replay.divergences.is_empty(), "{:?}", replay.divergences);
    }
}
