//! The desktop app's application state, the [`Desk`]: the record, the workstation and the live
//! pit (its three parts, [`crate::state`]), with no Tauri in sight (the shell in `src-tauri`
//! adapts each method to a command and forwards [`PitUpdate`]s to the window as events). The
//! commands a supervisor gives are the use cases' `impl Desk` blocks, in the modules above this
//! one; nothing here uses them.
//!
//! Threads: [`Desk::start`] starts the simulated devices of each simulated table (`demo.rs`, the
//! demo's: a pseudo-terminal per device the monitor then opens as a serial port, so the demo runs
//! through the real transport, codec, engine and store), the [`Monitor`] (a reader per device and
//! one writer), and a *fold* thread.
//! The fold thread reads the monitor's events, which are already on record, folds them into the
//! [`PitModel`] (one tile of its own per table, sent as the window's `TableTile`), and sends the
//! changed tiles at most every [`FLUSH_EVERY`] so a busy pit does not flood the window; a new
//! incident is sent at once. The
//! desk's own connection to the store (SQLite takes several) serves queries and the incident
//! workflow, each action by the logged-in user and audited by the store.

use std::path::PathBuf;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use pitwatch_api::dto::{ApiError, ErrorCode, PitOverview, PitUpdate, RecordingStatus};
use pitwatch_model::Timestamp;
use pitwatch_recording::monitor::{Monitor, MonitorEvent, MonitorOptions, MonitoredTable};
use pitwatch_recording::pit::PitConfig;
use pitwatch_transport::{Clock, SystemClock};

use crate::access::Principal;
use crate::pit_model::PitModel;
use crate::setup::{keep_the_demo_apart, DeskOptions};
use crate::state::exposure::ExposureWatch;
use crate::state::pace::PaceWatch;
use crate::state::pit::{Devices, LivePit};
use crate::state::record::{replicate, Record, RecordAlerts, RecordWatch};
use crate::state::workstation::Workstation;

pub(crate) use crate::state::{internal, lock};

#[cfg(feature = "demo")]
mod demo;

/// How often changed tables are sent to the window, at most. 20 ms keeps a frame's way to the
/// screen inside 100 ms even with 50 tables at ten times a dealer's pace (docs/benchmarks.md,
/// "Desktop latency"); the shell sends each flush's tiles as one event, so a busy pit costs the
/// window at most 50 script evaluations a second.
pub const FLUSH_EVERY: Duration = Duration::from_millis(20);

/// The running desktop state, in three parts (see [`crate::state`], which gives the order in
/// which their locks are taken): the record, the workstation, the running pit.
pub struct Desk {
    /// The pit definition the desk started with (its whole-pit settings apply until the next
    /// start).
    pub(crate) pit: PitConfig,
    /// Where it was read from (none for the built-in demo pit): what a reload reads again.
    pub(crate) pit_file: Option<PathBuf>,
    /// Seconds without input after which the window locks (0: never).
    pub(crate) idle_lock_seconds: u32,
    /// How often the access and log reviews are due.
    pub(crate) reviews: crate::setup::ReviewPeriods,
    pub(crate) clock: Arc<dyn Clock>,
    /// The record: the desk's own connection to the store (queries and the incident workflow,
    /// each action by the logged-in user and audited by the store), its verification and alerts.
    pub(crate) record: Record,
    /// This workstation: its name, who is logged in, the alarm's mute, the looks audited.
    pub(crate) workstation: Workstation,
    /// The running pit: the tables, the live model, the updates, the monitor and the threads.
    pub(crate) live: LivePit,
    /// Every table's exposure, followed live for surveillance ([`crate::state::exposure`]).
    pub(crate) exposure: Arc<ExposureWatch>,
    /// Every table's pace alerts, followed live for the supervisors ([`crate::state::pace`]).
    pub(crate) pace: Arc<PaceWatch>,
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
        let alerts = RecordAlerts {
            segments: opened.failures,
            exposed,
            ..RecordAlerts::default()
        };
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
        let record = Record::new(options.installation.clone(), db.clone(), store, alerts);
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
        // The pace alerts (the supervisors'): on a connection of their own, fed by the fold.
        let pace = Arc::new(
            PaceWatch::start(
                options.installation.open(&db)?,
                options
                    .pit
                    .tables
                    .iter()
                    .map(|t| (t.name.clone(), t.pace_target))
                    .collect(),
            )
            .map_err(|e| internal(format!("cannot start the pace thread: {e}")))?,
        );
        let fold = {
            let exposure = Arc::clone(&exposure);
            let pace = Arc::clone(&pace);
            let watch = record.watch();
            let model = Arc::clone(&model);
            let updates = updates.clone();
            let clock = Arc::clone(&clock);
            std::thread::Builder::new()
                .name("pitwatch-fold".into())
                .spawn(move || {
                    let watches = Watches {
                        exposure: &exposure,
                        pace: &pace,
                    };
                    fold_loop(events, &model, &updates, clock.as_ref(), &watch, watches)
                })
                .map_err(|e| internal(format!("cannot start the fold thread: {e}")))?
        };
        // The record is verified in full in the background while the pit runs; a replay then
        // only checks what was appended since.
        record.verify_in_background(Arc::clone(&clock), updates.clone())?;
        // Replication to the central database, when the pit definition names one: beside
        // recording, on a connection of its own; its state and alerts are the record's.
        let replicator = match &options.pit.central {
            Some(central) => replicate(&record, central, updates.clone())?,
            None => None,
        };
        let devices = Devices {
            monitor,
            #[cfg(feature = "demo")]
            sims,
            replicator,
            fold,
        };
        Ok((
            Desk {
                live: LivePit::new(options.pit.clone(), model, updates, devices),
                pit: options.pit,
                pit_file: options.pit_file,
                idle_lock_seconds: options.idle_lock_seconds,
                reviews: options.reviews,
                record,
                workstation: Workstation::new(crate::access::workstation()),
                clock,
                exposure,
                pace,
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
            session: self
                .workstation
                .logged_in()
                .as_ref()
                .map(Principal::session),
            tables: self.live.model().tables(),
            record: self.record_status(),
            idle_lock_seconds: self.idle_lock_seconds,
            alarm_muted: self.workstation.alarm_muted(),
            pit_file: self.pit_file.as_ref().map(|f| f.display().to_string()),
            build: pitwatch_api::dto::BuildInfo::current(),
        }
    }

    /// The database in use.
    pub fn db(&self) -> &std::path::Path {
        self.record.db()
    }

    /// Who is logged in, or `unauthorised`: also when their session was ended by a login as
    /// them elsewhere since (one session per user, see the sessions module's notes), which
    /// clears the seat and says where and when that login was.
    pub(crate) fn principal(&self) -> Result<Principal, ApiError> {
        self.seated(&mut self.workstation.seat())
    }

    /// [`Desk::principal`] for a step that holds the seat already (the alarm's mute).
    pub(crate) fn seated(
        &self,
        seat: &mut crate::state::workstation::Seat,
    ) -> Result<Principal, ApiError> {
        let principal = seat
            .principal
            .clone()
            .ok_or_else(|| ApiError::new(ErrorCode::Unauthorised, "log in first"))?;
        if let Some(session) = seat.session {
            let live = crate::accounts::check_live(&self.record.store(), &principal.user, session);
            if let Err(ended) = live {
                seat.principal = None;
                seat.session = None;
                // Their mute ends with their session, on record as any other's.
                self.end_mute(seat, &principal, "session_ended", self.clock.now())?;
                return Err(ended);
            }
        }
        Ok(principal)
    }

    /// Stops the simulated devices, the monitor (which records the ends of the sessions) and the
    /// fold thread. Idempotent.
    pub fn stop(&self) {
        self.live.stop();
        self.exposure.stop();
        self.pace.stop();
    }
}

impl Drop for Desk {
    fn drop(&mut self) {
        self.stop();
    }
}

/// The watches beside the pit the fold feeds.
struct Watches<'a> {
    exposure: &'a ExposureWatch,
    pace: &'a PaceWatch,
}

fn fold_loop(
    events: Receiver<MonitorEvent>,
    model: &Mutex<PitModel>,
    updates: &Sender<PitUpdate>,
    clock: &dyn Clock,
    record: &RecordWatch,
    watches: Watches<'_>,
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
            if let Some(record) = record.set_journals(failing) {
                let _ = updates.send(PitUpdate::Record { record });
            }
        }
        if let Ok(MonitorEvent::Clock(state)) = &received {
            if let Some(record) = record.set_clock(state.alert.clone()) {
                let _ = updates.send(PitUpdate::Record { record });
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
            watches.exposure.feed(&event);
            watches.pace.feed(&event);
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
