//! Live monitoring: every table's device read by its own transport thread, and one writer that
//! owns the store and every table's recorder.
//!
//! SQLite takes one writer at a time, so all tables funnel into one writer thread. Readers hand
//! their events straight to the writer's queue, each device within a budget of bytes waiting
//! ([`intake`]: a flooding device is slowed down, not buffered without end). The writer takes
//! whatever has arrived (up to [`GROUP_MAX`] inputs), plans its rows with each table's recorder,
//! writes them in one transaction (group commit: one fsync for many frames), and only then
//! publishes what was derived. A frame is therefore always on disk before anything derived from
//! it is shown.
//!
//! **Recording never stops because a write failed.** A transaction that fails (another process
//! holds the write lock, the disk is full, an I/O error) is rolled back whole; the writer keeps
//! the same planned rows and tries them again with a growing delay (opening the database afresh
//! after an I/O error), while what keeps arriving waits in its [`spool`] (memory, then a file
//! beside the database). Meanwhile [`MonitorEvent::Recording`] says that recording is degraded,
//! why, and how much is waiting, once a second; once the backlog is written it says so and the
//! alert clears. Only a full spool drops bytes, counted exactly per device and recorded as an
//! incident when writing resumes.
//!
//! **One writer per table.** The monitor takes each table's lease in the store before it writes
//! anything, renews it while it runs and gives it up when it stops ([`crate::lease`]).
//!
//! Stopping is orderly: the readers stop (each reports its disconnection), and the writer
//! records the ends of the sessions before it returns. A monitor stopped while the database
//! still cannot be written leaves what waits in the spool file, and the next start writes it.

mod clock;
mod intake;
pub mod spool;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::mpsc::{self, Receiver, Sender, SyncSender, TrySendError};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use pitwatch_games::GameView;
use pitwatch_model::{EventKind, Timestamp};
use pitwatch_store::{Actor, DeviceIdentity, Sealing, Store, StoreError, Trouble};
use pitwatch_transport::{spawn_device_into, Clock, DeviceHandle, TransportEvent};

use crate::lease::Holder;
use crate::liveness::{Change, Watch};
use crate::pit::{LinkConfig, TableConfig};
use crate::recorder::AlarmIncident;
use crate::recorder::{Derived, Gap, PlannedDerived, TableRecorder, Writes, Written};
use intake::{DeviceSink, Intake, Queued};
use spool::Spool;
pub use spool::SpoolLimits;
mod writer;
use writer::*;

/// The audit action of a reload of the pit definition ([`Monitor::reload`]).
pub const PIT_RELOAD: &str = "pit.reload";

/// The most inputs recorded in one transaction.
pub const GROUP_MAX: usize = 1024;

/// A table to monitor, with its link resolved (for a simulated table, the pseudo-terminal).
#[derive(Debug, Clone)]
pub struct MonitoredTable {
    /// The table's configuration.
    pub config: TableConfig,
    /// How to reach its main device (`config.devices[0]`) now.
    pub link: LinkConfig,
    /// How to reach each of its other devices now, in the order of `config.devices[1..]`.
    pub more_links: Vec<LinkConfig>,
}

impl MonitoredTable {
    /// A table whose devices are reached as its configuration says (a real pit: every device
    /// has its `link`); `None` when a device has none.
    pub fn from_config(config: TableConfig) -> Option<MonitoredTable> {
        let mut links = config
            .devices
            .iter()
            .map(|d| d.link.clone())
            .collect::<Option<Vec<_>>>()?
            .into_iter();
        let link = links.next()?;
        Some(MonitoredTable {
            config,
            link,
            more_links: links.collect(),
        })
    }

    /// The link of device `index` (0: the main device).
    fn link_of(&self, index: usize) -> Option<&LinkConfig> {
        match index {
            0 => Some(&self.link),
            k => self.more_links.get(k - 1),
        }
    }
}

/// How far behind the clock the writer's liveness timer looks: a device event stamped just
/// before a tick but not yet taken from the queue (its reader thread descheduled on a loaded
/// machine) is still seen before the tick's time, so the alarms live raises are those a replay
/// of the record gives. Half a second was seen to be needed under a load of 10 on 2 cores; an
/// alarm comes this much after its deadline, dated by the deadline.
const LIVENESS_SLACK_MS: i64 = 500;

/// How long the writer waits idle before it writes a checkpoint kept back from the journals.
const WITNESS_IDLE: Duration = Duration::from_secs(1);

/// How the monitor behaves under load and faults; [`MonitorOptions::default`] suits a pit.
#[derive(Debug, Clone)]
pub struct MonitorOptions {
    /// Bytes one device may have waiting for the writer before its reader waits.
    pub device_budget: usize,
    /// How much may wait in the spool while the database cannot be written.
    pub spool: SpoolLimits,
    /// The spool file; by default beside the database (`pit.db.spool-1`, the next free number
    /// when another monitor uses that one). `None` with a database in memory.
    pub spool_path: Option<PathBuf>,
    /// How long one write waits for another process's write lock before the writer counts it a
    /// failure and spools what arrives.
    pub busy_wait: Duration,
    /// The first delay before a failed write is tried again; it doubles up to `retry_max`.
    pub retry_first: Duration,
    /// The longest delay between two attempts.
    pub retry_max: Duration,
    /// How often a degraded recording's state is published again.
    pub report_every: Duration,
    /// How often the table leases are renewed.
    pub heartbeat_every: Duration,
    /// Published events that may wait for the consumer; beyond it events are counted as
    /// missed ([`MonitorEvent::Missed`]), never holding up recording.
    pub publish_queue: usize,
    /// How long [`Monitor::stop`] keeps trying to write what waits before it leaves it in the
    /// spool file for the next start.
    pub stop_grace: Duration,
    /// The lease holder's description (`pitwatch monitor`, `Pitwatch desktop`).
    pub holder: String,
    /// How long to wait for a table's lease held by another live process (an instance still
    /// shutting down when the next one starts) before refusing to start.
    pub lease_wait: Duration,
    /// The host clock's synchronisation state, sampled for clock truth ([`crate::clock`]; by
    /// default the kernel's).
    pub host_clock: crate::clock::HostClock,
    /// When the host clock is fit to match times by (the pit definition's `[clock]`).
    pub clock_limits: crate::clock::ClockLimits,
    /// How often the host clock is read to see whether its state changed.
    pub clock_check_every: Duration,
    /// How often a sample of the host clock goes on record when nothing changes.
    pub clock_sample_every: Duration,
}

impl Default for MonitorOptions {
    fn default() -> Self {
        MonitorOptions {
            device_budget: 256 * 1024,
            spool: SpoolLimits::default(),
            spool_path: None,
            busy_wait: Duration::from_millis(200),
            retry_first: Duration::from_millis(100),
            retry_max: Duration::from_secs(5),
            report_every: Duration::from_secs(1),
            heartbeat_every: Duration::from_secs(5),
            publish_queue: 200_000,
            stop_grace: Duration::from_secs(3),
            holder: "pitwatch monitor".into(),
            lease_wait: Duration::ZERO,
            host_clock: crate::clock::HostClock::default(),
            clock_limits: crate::clock::ClockLimits::default(),
            clock_check_every: crate::clock::CHECK_EVERY,
            clock_sample_every: crate::clock::SAMPLE_EVERY,
        }
    }
}

/// The state of a table's device link.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkState {
    /// Connected and reading.
    Connected,
    /// The link dropped.
    Disconnected,
    /// Connecting failed; retrying.
    Retrying,
}

/// Whether everything received is being recorded, and if not, why and how much waits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordingState {
    /// Whether recording is degraded: inputs wait in the spool because the database cannot be
    /// written (or the backlog is still being written).
    pub degraded: bool,
    /// What is wrong, for people (`the disk is full: database error: …`); after recovery, what
    /// was wrong.
    pub reason: String,
    /// When the trouble started.
    pub since: Option<Timestamp>,
    /// Bytes waiting to be written (spool and the write being retried).
    pub backlog_bytes: u64,
    /// Inputs waiting to be written.
    pub backlog_inputs: u64,
    /// Of the bytes waiting, those in the spool file.
    pub spooled_bytes: u64,
    /// Bytes dropped because the spool was full, since the trouble started.
    pub dropped_bytes: u64,
    /// Failed attempts to write since the trouble started.
    pub attempts: u64,
}

/// What the monitor reports, after it is on record.
// Events move through a channel one at a time: boxing the larger (a derived output) would
// allocate for every event recorded.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum MonitorEvent {
    /// A table's link changed state.
    Link {
        /// The table.
        table: String,
        /// Which of the table's devices (0: its main device; the order of the pit definition).
        device: usize,
        /// The new state.
        state: LinkState,
        /// What was connected to, or why it dropped.
        detail: String,
        /// When.
        at: Timestamp,
    },
    /// Something was derived and recorded.
    Derived {
        /// The table.
        table: String,
        /// What.
        derived: Derived,
    },
    /// The table as its engine sees it after an input was recorded, published after what that
    /// input derived.
    View {
        /// The table.
        table: String,
        /// The engine's view.
        view: GameView,
    },
    /// The checkpoint journals and what went wrong writing each (sent when it changes): a
    /// journal that cannot be written never stops recording, but must be shown.
    Witness(Vec<pitwatch_store::JournalStatus>),
    /// Recording became degraded, is still degraded (once a second, with the backlog), or
    /// recovered (`degraded: false`, once, when the backlog is written).
    Recording(RecordingState),
    /// The host clock's state, once its sample is on record: at start and whenever its
    /// judgement changes (synchronisation lost or back, its error past the limit or back).
    /// The whole pit's, like [`MonitorEvent::Recording`]: while it has an alert, every screen
    /// shows it beside the record's own alerts (an incident belongs to a table; the host clock
    /// stamps every table's frames alike), and the record holds every sample for the reports.
    Clock(crate::clock::ClockState),
    /// The consumer did not keep up: this many events were not delivered (they are on record;
    /// a screen should reload what it shows).
    Missed {
        /// Events not delivered.
        count: u64,
    },
    /// Something failed that is not a write of the record (a table's input could not be
    /// planned, the spool file could not be used); the message says what and where.
    Failed {
        /// The table, when the failure is one table's.
        table: Option<String>,
        /// What went wrong.
        message: String,
    },
}

/// One input to the writer.
/// Devices are numbered across the pit (one reader each, its own budget and spool name); the
/// writer maps each to its table and the device's place at the table.
#[derive(Debug, Clone)]
pub(crate) enum Input {
    Transport(usize, TransportEvent),
    Console {
        table: String,
        kind: EventKind,
        by: Actor,
        at: Timestamp,
        reply: SyncSender<Result<u64, String>>,
    },
    /// Bytes a device lost because the spool was full, placed where its stream resumes.
    Gap(usize, Gap),
    /// A reload: the tables to retire (their readers already stopped) and those to start; the
    /// answer is the number of the first new device.
    Reload(Box<Reload>),
    Stop,
}

/// What a reload asks of the writer ([`Monitor::reload`]).
#[derive(Debug, Clone)]
pub(crate) struct Reload {
    by: Actor,
    fields: Vec<(String, String)>,
    stop: Vec<String>,
    start: Vec<MonitoredTable>,
    reply: SyncSender<Result<usize, String>>,
}

/// A running monitor.
pub struct Monitor {
    /// Each device's reader, with its table's name.
    readers: Vec<(String, DeviceHandle)>,
    input: Sender<Queued>,
    intake: Arc<Intake>,
    writer: Option<JoinHandle<Result<(), StoreError>>>,
    clock: Arc<dyn Clock>,
}

impl Monitor {
    /// Starts monitoring `tables`, recording into `store`, with the default options. Events
    /// arrive on the returned receiver once they are on record.
    pub fn start(
        store: Store,
        tables: Vec<MonitoredTable>,
        clock: Arc<dyn Clock>,
    ) -> Result<(Monitor, Receiver<MonitorEvent>), StoreError> {
        Monitor::start_with(store, tables, clock, MonitorOptions::default())
    }

    /// Starts monitoring `tables` with `options`. Fails, recording nothing, when another live
    /// process records one of the tables (the error names it), a rule book cannot be loaded, or
    /// the system cannot start the threads.
    pub fn start_with(
        mut store: Store,
        tables: Vec<MonitoredTable>,
        clock: Arc<dyn Clock>,
        options: MonitorOptions,
    ) -> Result<(Monitor, Receiver<MonitorEvent>), StoreError> {
        let holder = Holder::this_process(&options.holder);
        let names: Vec<String> = tables.iter().map(|t| t.config.name.clone()).collect();
        let deadline = Instant::now() + options.lease_wait;
        loop {
            match holder.acquire(&mut store, &names, clock.now()) {
                Ok(()) => break,
                Err(StoreError::Leased { .. }) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(200));
                }
                Err(e) => {
                    holder.retire();
                    return Err(e);
                }
            }
        }
        Monitor::start_leased(store, tables, clock, options, &holder, names)
    }

    fn start_leased(
        mut store: Store,
        tables: Vec<MonitoredTable>,
        clock: Arc<dyn Clock>,
        options: MonitorOptions,
        holder: &Holder,
        names: Vec<String>,
    ) -> Result<(Monitor, Receiver<MonitorEvent>), StoreError> {
        let now = clock.now();
        let release = |store: &mut Store| {
            let _ = store.release_leases(&holder.process);
            holder.retire();
        };
        // Every device of every table, in order: (table, device at the table).
        let streams: Vec<(usize, usize)> = tables
            .iter()
            .enumerate()
            .flat_map(|(i, t)| (0..=t.more_links.len()).map(move |k| (i, k)))
            .collect();
        let stream_names: Vec<String> = streams
            .iter()
            .map(|&(i, k)| tables[i].config.stream_name(k))
            .collect();
        let mut recorders = Vec::with_capacity(tables.len());
        for table in &tables {
            match open_recorder(&mut store, table, now) {
                Ok(recorder) => recorders.push(recorder),
                Err(e) => {
                    release(&mut store);
                    return Err(e);
                }
            }
        }
        let mut spool = Spool::new(options.spool, stream_names.clone());
        let mut notes = Vec::new();
        let spool_lock = match spool_path(&store, &options) {
            Some(path) => attach_spool(
                &mut spool,
                &store,
                &path,
                &stream_names,
                &holder.process,
                &mut notes,
            ),
            None => None,
        };
        // Each device's liveness, watched from now.
        let watches = tables.iter().map(|t| watches_of(t, now)).collect();
        let (intake, input, inputs) = Intake::new(streams.len(), options.device_budget);
        let (events_tx, events) = mpsc::sync_channel(options.publish_queue.max(16));
        if let Err(e) = store.set_busy_timeout(options.busy_wait) {
            release(&mut store);
            return Err(e);
        }
        let writer = Writer {
            path: store.path(),
            sealing: store.sealing(),
            journals: Vec::new(),
            store: Some(store),
            recorders,
            watches,
            streams: streams.clone(),
            by_name: names
                .iter()
                .enumerate()
                .map(|(i, n)| (n.clone(), i))
                .collect(),
            intake: Arc::clone(&intake),
            inputs,
            spool,
            flight: None,
            publisher: Publisher {
                tx: events_tx,
                missed: 0,
            },
            clock: Arc::clone(&clock),
            trouble: None,
            holder: holder.clone(),
            options: options.clone(),
            spool_mark: 0,
            spool_key: None,
            notes,
            reload: None,
            clock_watch: crate::clock::ClockWatch::new(
                options.host_clock.clone(),
                options.clock_limits,
                options.clock_check_every,
                options.clock_sample_every,
            ),
            _spool_lock: spool_lock,
        };
        let path = writer.path.clone();
        let sealing = writer.sealing.clone();
        let writer = match std::thread::Builder::new()
            .name("pitwatch-writer".into())
            .spawn(move || writer.run())
        {
            Ok(writer) => writer,
            Err(e) => {
                // The store went with the writer that never ran: give the leases up on a
                // connection of our own.
                let reopened = path
                    .zip(sealing)
                    .and_then(|(p, sealing)| Store::open(p, &sealing).ok());
                if let Some(mut store) = reopened {
                    release(&mut store);
                }
                return Err(StoreError::Invalid(format!(
                    "cannot start the writer thread: {e}"
                )));
            }
        };
        let mut monitor = Monitor {
            readers: Vec::with_capacity(streams.len()),
            input: input.clone(),
            intake: Arc::clone(&intake),
            writer: Some(writer),
            clock: Arc::clone(&clock),
        };
        if let Err(e) = monitor.spawn_readers(&tables, 0) {
            // Stop what started (the writer gives the leases up as it ends).
            let _ = monitor.shutdown();
            return Err(StoreError::Invalid(e));
        }
        Ok((monitor, events))
    }

    /// Starts the readers of `tables`' devices, numbered from `first` in order.
    fn spawn_readers(&mut self, tables: &[MonitoredTable], first: usize) -> Result<(), String> {
        let streams: Vec<(usize, usize)> = tables
            .iter()
            .enumerate()
            .flat_map(|(i, t)| (0..=t.more_links.len()).map(move |k| (i, k)))
            .collect();
        for (n, &(t, k)) in streams.iter().enumerate() {
            let table = &tables[t];
            let (Some(link), Some(device)) = (table.link_of(k), table.config.devices.get(k)) else {
                continue;
            };
            let sink = DeviceSink {
                device: first + n,
                intake: Arc::clone(&self.intake),
                tx: self.input.clone(),
                screen: device.protocol.screen(),
            };
            match spawn_device_into(link, self.clock.clone(), Box::new(sink)) {
                Ok(handle) => self.readers.push((table.config.name.clone(), handle)),
                Err(e) => {
                    return Err(format!(
                        "table {}: {e} ({} of {} device readers started; the system may limit \
                         threads or memory)",
                        table.config.name,
                        n,
                        streams.len()
                    ));
                }
            }
        }
        Ok(())
    }

    /// Applies a reloaded pit definition: the tables named in `stop` are stopped (their readers
    /// joined, their sessions ended on record, their leases given up), then the tables in
    /// `start` are started as at start-up (their leases taken, their recorders resumed from the
    /// record, their devices opened). Every other table is not touched: its readers, recorder
    /// and engine keep running. A changed table is in both lists. Waits until what arrived
    /// before is on record (while recording is degraded, until the backlog is written). The
    /// reload is audited ([`PIT_RELOAD`]) as `by`'s, with `fields` (what it changes,
    /// [`crate::pit::PitDiff::fields`]) and its result; a reload that changes no table (a file
    /// refused) is audited alike. A table whose start fails stays stopped, and the error says
    /// why.
    pub fn reload(
        &mut self,
        by: impl Into<Actor>,
        fields: &[(&str, String)],
        stop: &[String],
        start: Vec<MonitoredTable>,
    ) -> Result<(), String> {
        let mut seen = std::collections::BTreeSet::new();
        if let Some(t) = start.iter().find(|t| !seen.insert(t.config.name.clone())) {
            return Err(format!("table {} is given twice", t.config.name));
        }
        let (gone, kept): (Vec<_>, Vec<_>) = std::mem::take(&mut self.readers)
            .into_iter()
            .partition(|(table, _)| stop.contains(table));
        self.readers = kept;
        // Each reader reports its disconnection before it is joined: the ends of the sessions
        // are queued ahead of the reload.
        stop_all(gone.into_iter().map(|(_, reader)| reader));
        let (reply, answer) = mpsc::sync_channel(1);
        self.input
            .send(Queued {
                input: Input::Reload(Box::new(Reload {
                    by: by.into(),
                    fields: fields
                        .iter()
                        .map(|(k, v)| ((*k).to_owned(), v.clone()))
                        .collect(),
                    stop: stop.to_vec(),
                    start: start.clone(),
                    reply,
                })),
                weight: 0,
            })
            .map_err(|_| "the monitor has stopped".to_owned())?;
        let first = answer
            .recv()
            .map_err(|_| "the monitor stopped before reloading".to_owned())??;
        self.spawn_readers(&start, first)
    }

    /// Records an event no device can see, entered at the console by `by` for `table`, and
    /// returns its `seq` once it is on record. Refused while recording is degraded.
    pub fn console(
        &self,
        table: &str,
        kind: EventKind,
        by: impl Into<Actor>,
    ) -> Result<u64, String> {
        let (reply, answer) = mpsc::sync_channel(1);
        self.input
            .send(Queued {
                input: Input::Console {
                    table: table.to_owned(),
                    kind,
                    by: by.into(),
                    at: self.clock.now(),
                    reply,
                },
                weight: 0,
            })
            .map_err(|_| "the monitor has stopped".to_owned())?;
        answer
            .recv()
            .map_err(|_| "the monitor stopped before recording it".to_owned())?
    }

    /// The monitor's clock.
    pub fn now(&self) -> Timestamp {
        self.clock.now()
    }

    /// Stops every reader, records the ends of their sessions, and waits for the writer.
    pub fn stop(mut self) -> Result<(), StoreError> {
        self.shutdown()
    }

    fn shutdown(&mut self) -> Result<(), StoreError> {
        stop_all(self.readers.drain(..).map(|(_, reader)| reader));
        let _ = self.input.send(Queued {
            input: Input::Stop,
            weight: 0,
        });
        let outcome = match self.writer.take() {
            Some(writer) => writer
                .join()
                .unwrap_or_else(|_| Err(StoreError::Invalid("the writer thread panicked".into()))),
            None => Ok(()),
        };
        self.intake.close();
        outcome
    }
}

impl Drop for Monitor {
    fn drop(&mut self) {
        let _ = self.shutdown();
    }
}

/// Stops `readers` in bounded time whatever their number: every one is asked first, then each
/// is waited for, so their read timeouts run at once (one after another, a thousand readers
/// would take a thousand timeouts).
fn stop_all(readers: impl Iterator<Item = DeviceHandle>) {
    let readers: Vec<DeviceHandle> = readers.collect();
    for reader in &readers {
        reader.request_stop();
    }
    for reader in readers {
        reader.stop();
    }
}

/// Opens table `table`'s recorder, resumed from the record as it stands at `now`.
pub(crate) fn open_recorder(
    store: &mut Store,
    table: &MonitoredTable,
    now: Timestamp,
) -> Result<TableRecorder, StoreError> {
    if table.config.devices.len() != table.more_links.len() + 1 {
        return Err(StoreError::Invalid(format!(
            "table {}: {} device(s) configured but {} link(s) given",
            table.config.name,
            table.config.devices.len(),
            table.more_links.len() + 1
        )));
    }
    let book = table
        .config
        .rule_book()
        .map_err(|e| StoreError::Invalid(format!("table {}: {e}", table.config.name)))?;
    let mut recorder = TableRecorder::resume(
        store,
        &table.config.name,
        table.config.game.as_str(),
        book,
        pitwatch_games::book_text(&table.config.rules).as_deref(),
        Some(table.config.device()),
        now,
    )?;
    for device in &table.config.devices[1..] {
        recorder.add_device(store, device.protocol)?;
    }
    Ok(recorder)
}

/// Each of `table`'s devices' liveness, watched from `now`.
pub(crate) fn watches_of(
    table: &MonitoredTable,
    now: Timestamp,
) -> Vec<(Watch, Option<AlarmIncident>)> {
    (0..table.config.devices.len())
        .map(|k| {
            let shoe = table.config.devices[k].role == crate::pit::DeviceRole::Shoe;
            (Watch::new(table.config.liveness(k), shoe, now), None)
        })
        .collect()
}

/// Where the spool file goes: as configured, else beside the database.
fn spool_path(store: &Store, options: &MonitorOptions) -> Option<PathBuf> {
    if options.spool.file == 0 {
        return None;
    }
    options.spool_path.clone().or_else(|| store.path())
}

/// Claims `path` for this process with a lock file beside it (`<path>.lock`, holding the
/// process's identity); a lock left by a process that is gone is taken over. The lock file is
/// removed when the writer ends ([`SpoolLock`]).
fn claim_spool(path: &std::path::Path, me: &str) -> Option<SpoolLock> {
    let mut lock = path.as_os_str().to_owned();
    lock.push(".lock");
    let lock = PathBuf::from(lock);
    for _ in 0..2 {
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&lock)
        {
            Ok(mut file) => {
                use std::io::Write;
                let _ = file.write_all(me.as_bytes());
                return Some(SpoolLock(lock));
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                let holder = std::fs::read_to_string(&lock).unwrap_or_default();
                if holder == me || crate::lease::process_gone(&holder) {
                    let _ = std::fs::remove_file(&lock);
                    continue;
                }
                return None;
            }
            Err(_) => return None,
        }
    }
    None
}

/// A claimed spool file's lock file, removed when dropped.
struct SpoolLock(PathBuf);

impl Drop for SpoolLock {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Attaches the first spool file this monitor can claim (`<db>.spool-1`, `-2`, …; exactly the
/// configured path when one is given), recovering what a stopped monitor left in it.
fn attach_spool(
    spool: &mut Spool,
    store: &Store,
    base: &std::path::Path,
    names: &[String],
    me: &str,
    notes: &mut Vec<MonitorEvent>,
) -> Option<SpoolLock> {
    let known = |t: &str| names.iter().position(|n| n == t);
    let candidates: Vec<PathBuf> = if base.extension().is_some_and(|e| e == "spool") {
        vec![base.to_owned()]
    } else {
        (1..=8)
            .map(|n| {
                let mut name = base.as_os_str().to_owned();
                name.push(format!(".spool-{n}"));
                PathBuf::from(name)
            })
            .collect()
    };
    let mut last_error = None;
    for path in candidates {
        let Some(lock) = claim_spool(&path, me) else {
            last_error = Some(format!("{} is in use by another monitor", path.display()));
            continue;
        };
        let key = mark_key(&path);
        let mark = store
            .meta(&key)
            .ok()
            .flatten()
            .and_then(|m| m.parse().ok())
            .unwrap_or(0);
        match spool.attach_file(&path, mark, &known) {
            Ok((recovered, torn)) => {
                if recovered > 0 || torn > 0 {
                    notes.push(MonitorEvent::Failed {
                        table: None,
                        message: format!(
                            "{} input(s) a stopped monitor left in {} are written now{}",
                            recovered,
                            path.display(),
                            if torn > 0 {
                                format!("; {torn} bytes at its end were torn and are lost")
                            } else {
                                String::new()
                            }
                        ),
                    });
                }
                return Some(lock);
            }
            Err(e) => last_error = Some(format!("{}: {e}", path.display())),
        }
    }
    notes.push(MonitorEvent::Failed {
        table: None,
        message: format!(
            "no spool file can be used ({}); while the database cannot be written, inputs wait \
             in memory only",
            last_error.unwrap_or_default()
        ),
    });
    None
}

fn mark_key(path: &std::path::Path) -> String {
    format!(
        "spool-mark:{}",
        path.file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
    )
}
