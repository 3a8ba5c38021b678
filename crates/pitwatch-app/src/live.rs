//! The desktop app's application state: the live pit, the logged-in user, and the commands a
//! supervisor gives, with no Tauri in sight (the shell in `src-tauri` adapts each method to a
//! command and forwards [`PitUpdate`]s to the window as events).
//!
//! Threads: [`Desk::start`] starts the simulated devices of each simulated table (`demo.rs`, the
//! demo's: a pseudo-terminal per device the monitor then opens as a serial port, so the demo runs
//! through the real transport, codec, engine and store), the [`Monitor`] (a reader per device and
//! one writer), and a *fold* thread.
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
use pitwatch_model::Timestamp;
use pitwatch_recording::monitor::{Monitor, MonitorEvent, MonitorOptions, MonitoredTable};
use pitwatch_recording::pit::PitConfig;
use pitwatch_recording::record::Installation;
#[cfg(feature = "demo")]
use pitwatch_sim::SimDevice;
use pitwatch_store::Store;
use pitwatch_transport::{Clock, SystemClock};

use crate::access::Principal;
use crate::exposure::ExposureWatch;
use crate::pit_model::PitModel;
use crate::record::{verify_into, RecordAlerts, RecordStatusSource, Verified};
use crate::sessions::session_dto;
use crate::setup::{keep_the_demo_apart, DeskOptions};

#[cfg(feature = "demo")]
mod demo;

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
    /// Every table's exposure, followed live for surveillance ([`crate::exposure::watch`]).
    pub(crate) exposure: Arc<ExposureWatch>,
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
                    let seed = (now.unix_millis() as u64).wrapping_add(index as u64 * 7919);
                    let (link, links) = demo::start_table(table, seed, &options, &mut sims)?;
                    more_links = links;
                    link
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
        // Exposure (surveillance's): on a connection of its own, fed by the fold.
        let exposure = Arc::new(
            ExposureWatch::start(
                options.installation.open(&db)?,
                options.pit.surveillance.exposure_alert_rounds,
                options.pit.tables.iter().map(|t| t.name.clone()).collect(),
                Arc::clone(&clock),
            )
            .map_err(|e| internal(format!("cannot start the exposure thread: {e}")))?,
        );
        let fold = {
            let exposure = Arc::clone(&exposure);
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
                    fold_loop(
                        events,
                        &model,
                        &updates,
                        clock.as_ref(),
                        &alerts,
                        &status,
                        &exposure,
                    )
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
                exposure,
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
        self.exposure.stop();
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
    exposure: &ExposureWatch,
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
            exposure.feed(&event);
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

#[cfg(test)]
mod tests;
