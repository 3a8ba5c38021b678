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
use crate::pit::{LinkConfig, TableConfig};
use crate::recorder::{Derived, Gap, PlannedDerived, TableRecorder, Writes, Written};
use intake::{DeviceSink, Intake, Queued};
use spool::Spool;
pub use spool::SpoolLimits;

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
    Stop,
}

/// A running monitor.
pub struct Monitor {
    readers: Vec<DeviceHandle>,
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
            if table.config.devices.len() != table.more_links.len() + 1 {
                release(&mut store);
                return Err(StoreError::Invalid(format!(
                    "table {}: {} device(s) configured but {} link(s) given",
                    table.config.name,
                    table.config.devices.len(),
                    table.more_links.len() + 1
                )));
            }
            let book = match table.config.rule_book() {
                Ok(book) => book,
                Err(e) => {
                    release(&mut store);
                    return Err(StoreError::Invalid(format!(
                        "table {}: {e}",
                        table.config.name
                    )));
                }
            };
            match TableRecorder::resume(
                &mut store,
                &table.config.name,
                table.config.game.as_str(),
                book,
                pitwatch_games::book_text(&table.config.rules).as_deref(),
                Some(table.config.device()),
                now,
            )
            .and_then(|mut recorder| {
                for device in &table.config.devices[1..] {
                    recorder.add_device(&store, device.protocol)?;
                }
                Ok(recorder)
            }) {
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
        for (index, &(t, k)) in streams.iter().enumerate() {
            let table = &tables[t];
            let (Some(link), Some(device)) = (table.link_of(k), table.config.devices.get(k)) else {
                continue;
            };
            let sink = DeviceSink {
                device: index,
                intake: Arc::clone(&intake),
                tx: input.clone(),
                screen: device.protocol.screen(),
            };
            match spawn_device_into(link, clock.clone(), Box::new(sink)) {
                Ok(handle) => monitor.readers.push(handle),
                Err(e) => {
                    // Stop what started (the writer gives the leases up as it ends).
                    let _ = monitor.shutdown();
                    return Err(StoreError::Invalid(format!(
                        "table {}: {e} ({} of {} device readers started; the system may limit \
                         threads or memory)",
                        table.config.name,
                        index,
                        streams.len()
                    )));
                }
            }
        }
        Ok((monitor, events))
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
        for reader in self.readers.drain(..) {
            reader.stop();
        }
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

/// The consumer's end of the published events: never blocks the writer.
struct Publisher {
    tx: SyncSender<MonitorEvent>,
    missed: u64,
}

impl Publisher {
    fn publish(&mut self, event: MonitorEvent) {
        if self.missed > 0 {
            match self
                .tx
                .try_send(MonitorEvent::Missed { count: self.missed })
            {
                Ok(()) => self.missed = 0,
                Err(_) => {
                    self.missed += 1;
                    return;
                }
            }
        }
        match self.tx.try_send(event) {
            Ok(()) => {}
            // Nobody listening is fine: the record is what matters.
            Err(TrySendError::Disconnected(_)) => {}
            Err(TrySendError::Full(_)) => self.missed += 1,
        }
    }
}

/// Where a console entry's answer goes.
type Reply = SyncSender<Result<u64, String>>;

/// What a flight publishes once it is on record, in the order of its inputs.
#[allow(clippy::large_enum_variant)] // as MonitorEvent: one at a time, no allocation each
enum Shown {
    /// What a table derived from an input, and the table's view after it.
    Derived(usize, Vec<PlannedDerived>, GameView),
    /// A link change or a failure.
    Event(MonitorEvent),
}

/// A group of inputs whose rows are planned and not yet on record.
struct Flight {
    inputs: Vec<Input>,
    writes: Writes,
    shown: Vec<Shown>,
    replies: Vec<(Reply, Result<u64, String>)>,
    touched: Vec<usize>,
    mark: Option<u64>,
    bytes: u64,
}

/// Why the writer cannot write, since when, and when it tries again.
struct Troubled {
    trouble: Trouble,
    reason: String,
    since: Timestamp,
    attempts: u64,
    dropped: u64,
    next_try: Instant,
    delay: Duration,
    reported: Instant,
    reopen: bool,
}

/// The writer thread's state: the store, every table's recorder, the spool, and what is being
/// retried.
struct Writer {
    store: Option<Store>,
    path: Option<PathBuf>,
    /// How the record is signed, to open it again after an I/O error.
    sealing: Option<Sealing>,
    /// The checkpoint journals as last published.
    journals: Vec<pitwatch_store::JournalStatus>,
    recorders: Vec<TableRecorder>,
    /// Each device's (table, device at the table), by the device's number in the pit.
    streams: Vec<(usize, usize)>,
    by_name: HashMap<String, usize>,
    intake: Arc<Intake>,
    inputs: Receiver<Queued>,
    spool: Spool,
    flight: Option<Flight>,
    publisher: Publisher,
    clock: Arc<dyn Clock>,
    trouble: Option<Troubled>,
    holder: Holder,
    options: MonitorOptions,
    /// The number of the last spool file entry on record.
    spool_mark: u64,
    spool_key: Option<String>,
    notes: Vec<MonitorEvent>,
    // Held while the writer runs: the spool file is this monitor's.
    _spool_lock: Option<SpoolLock>,
}

impl Writer {
    fn run(mut self) -> Result<(), StoreError> {
        self.spool_key = self.spool.file_path().map(mark_key);
        if let (Some(store), Some(key)) = (&self.store, &self.spool_key) {
            self.spool_mark = store
                .meta(key)
                .ok()
                .flatten()
                .and_then(|m| m.parse().ok())
                .unwrap_or(0);
        }
        for note in std::mem::take(&mut self.notes) {
            self.publisher.publish(note);
        }
        // Each table as resumed from the record, so a restarted monitor shows where the shoe
        // stands before the first new byte arrives.
        for recorder in &self.recorders {
            let view = MonitorEvent::View {
                table: recorder.name().to_owned(),
                view: recorder.view(),
            };
            self.publisher.publish(view);
        }
        let outcome = self.work();
        self.intake.close();
        if let Some(store) = self.store.as_mut() {
            // The last checkpoint kept back from the journals is written before leaving.
            store.flush_witness();
            let _ = store.release_leases(&self.holder.process);
        }
        // Should the database not have let the leases go, they are known to be free now.
        self.holder.retire();
        outcome
    }

    fn work(&mut self) -> Result<(), StoreError> {
        let mut stopping: Option<Instant> = None;
        let mut heartbeat = Instant::now();
        let mut last_input = Instant::now();
        loop {
            let wait = self.wait_time(stopping.is_some());
            match intake::next(&self.inputs, &self.intake, wait) {
                Ok(Some(input)) => {
                    self.gather(input, &mut stopping);
                    last_input = Instant::now();
                }
                Ok(None) => {
                    if last_input.elapsed() >= WITNESS_IDLE {
                        // Idle: the checkpoint the journals were kept waiting for is written.
                        if let Some(store) = self.store.as_mut() {
                            store.flush_witness();
                        }
                    }
                }
                // Every sender gone (the monitor was dropped mid-start): stop.
                Err(()) => stopping = stopping.or(Some(Instant::now())),
            }
            while let Some(input) = intake::try_next(&self.inputs, &self.intake) {
                self.gather(input, &mut stopping);
                if self.spool.len() >= GROUP_MAX as u64 {
                    break;
                }
            }
            if stopping.is_some() {
                // Whatever a device was losing is on account now.
                self.spool.close_gaps();
            }
            self.write_what_waits(&mut stopping);
            self.spool.flush();
            self.report();
            self.report_journals();
            if self.trouble.is_none() && heartbeat.elapsed() >= self.options.heartbeat_every {
                heartbeat = Instant::now();
                let now = self.clock.now().unix_millis();
                if let Some(store) = self.store.as_mut() {
                    let _ = store.renew_leases(&self.holder.process, now);
                }
            }
            if let Some(since) = stopping {
                let done = self.flight.is_none() && self.spool.is_empty();
                if done {
                    return Ok(());
                }
                if since.elapsed() >= self.options.stop_grace {
                    return self.leave_for_next_start();
                }
            }
        }
    }

    /// How long to wait for input: until the next retry when a write failed, else a while.
    fn wait_time(&self, stopping: bool) -> Duration {
        let tick = if stopping {
            Duration::from_millis(20)
        } else {
            self.options.report_every.min(Duration::from_millis(500))
        };
        match &self.trouble {
            Some(t) => t
                .next_try
                .saturating_duration_since(Instant::now())
                .min(tick),
            None if !self.spool.is_empty() => Duration::ZERO,
            None => tick,
        }
    }

    /// Puts an input that arrived in the spool (console entries are answered at once while
    /// recording is degraded: a supervisor must not wait on a database that cannot be written).
    fn gather(&mut self, input: Input, stopping: &mut Option<Instant>) {
        match input {
            Input::Stop => *stopping = stopping.or(Some(Instant::now())),
            Input::Console { reply, .. } if self.trouble.is_some() => {
                let _ = reply.send(Err(format!(
                    "not recorded: recording is degraded ({}); enter it again once the \
                     database can be written",
                    self.trouble.as_ref().map_or("", |t| t.trouble.describe())
                )));
            }
            input => self.spool.push(input),
        }
    }

    /// Retries the write that failed, when it is time, then writes what waits, group by group,
    /// until a write fails or nothing waits.
    fn write_what_waits(&mut self, stopping: &mut Option<Instant>) {
        if self.spool.gaps_closable() {
            self.spool.close_gaps();
        }
        loop {
            if self.flight.is_none() {
                if self.spool.is_empty() {
                    return;
                }
                let (inputs, mark) = self.spool.take(GROUP_MAX);
                if inputs.is_empty() {
                    return;
                }
                self.flight = Some(self.plan(inputs, mark));
            }
            if let Some(t) = &self.trouble {
                if Instant::now() < t.next_try {
                    return;
                }
            }
            if !self.attempt() {
                return;
            }
            // Between groups, let the readers hand on what arrived meanwhile (a long backlog
            // must not hold them up).
            while let Some(input) = intake::try_next(&self.inputs, &self.intake) {
                self.gather(input, stopping);
            }
            if self.trouble.is_some() {
                self.report();
            }
        }
    }

    /// Plans the rows of a group of inputs with the tables' recorders.
    fn plan(&mut self, inputs: Vec<Input>, mark: Option<u64>) -> Flight {
        let mut flight = Flight {
            inputs: Vec::new(),
            writes: Writes::new(),
            shown: Vec::new(),
            replies: Vec::new(),
            touched: Vec::new(),
            mark,
            bytes: 0,
        };
        for input in inputs {
            flight.bytes += spool::weight(&input) as u64;
            let mut derived = Vec::new();
            let mut link: Option<MonitorEvent> = None;
            match &input {
                Input::Transport(stream, event) => {
                    let Some(&(index, device)) = self.streams.get(*stream) else {
                        continue;
                    };
                    let Some(recorder) = self.recorders.get_mut(index) else {
                        continue;
                    };
                    match event {
                        TransportEvent::Connected {
                            at,
                            description,
                            usb,
                        } => {
                            let identity =
                                usb.clone().map_or_else(DeviceIdentity::default, |usb| {
                                    DeviceIdentity {
                                        make: usb.manufacturer.unwrap_or_default(),
                                        model: usb.product.unwrap_or_else(|| {
                                            format!("{:04x}:{:04x}", usb.vid, usb.pid)
                                        }),
                                        serial: usb.serial_number.unwrap_or_default(),
                                        ..DeviceIdentity::default()
                                    }
                                });
                            recorder.plan_connect(
                                device,
                                &mut flight.writes,
                                description,
                                identity,
                                *at,
                                &mut derived,
                            );
                            link = Some(MonitorEvent::Link {
                                table: recorder.name().to_owned(),
                                device,
                                state: LinkState::Connected,
                                detail: description.clone(),
                                at: *at,
                            });
                        }
                        TransportEvent::ConnectFailed { at, reason, .. } => {
                            link = Some(MonitorEvent::Link {
                                table: recorder.name().to_owned(),
                                device,
                                state: LinkState::Retrying,
                                detail: reason.clone(),
                                at: *at,
                            });
                        }
                        TransportEvent::Chunk { received_at, bytes } => {
                            if let Err(e) = recorder.plan_chunk(
                                device,
                                &mut flight.writes,
                                *received_at,
                                bytes,
                                &mut derived,
                            ) {
                                link = Some(MonitorEvent::Failed {
                                    table: Some(recorder.name().to_owned()),
                                    message: e.to_string(),
                                });
                            }
                        }
                        TransportEvent::Disconnected { at, reason } => {
                            recorder.plan_disconnect(
                                device,
                                &mut flight.writes,
                                *at,
                                reason,
                                &mut derived,
                            );
                            link = Some(MonitorEvent::Link {
                                table: recorder.name().to_owned(),
                                device,
                                state: LinkState::Disconnected,
                                detail: reason.clone(),
                                at: *at,
                            });
                        }
                    }
                    if !matches!(event, TransportEvent::ConnectFailed { .. }) {
                        flight
                            .shown
                            .push(Shown::Derived(index, derived, recorder.view()));
                        flight.touched.push(index);
                    }
                    flight.shown.extend(link.take().map(Shown::Event));
                }
                Input::Gap(stream, gap) => {
                    let Some(&(index, device)) = self.streams.get(*stream) else {
                        continue;
                    };
                    let now = self.clock.now();
                    if let Some(recorder) = self.recorders.get_mut(index) {
                        recorder.plan_gap(device, &mut flight.writes, gap, now, &mut derived);
                        flight
                            .shown
                            .push(Shown::Derived(index, derived, recorder.view()));
                        flight.touched.push(index);
                    }
                }
                Input::Console { .. } | Input::Stop => {}
            }
            match input {
                Input::Console {
                    table,
                    kind,
                    by,
                    at,
                    reply,
                } => match self.by_name.get(&table) {
                    None => flight
                        .replies
                        .push((reply, Err(format!("no table named {table:?}")))),
                    Some(&index) => {
                        let recorder = &mut self.recorders[index];
                        let mut derived = Vec::new();
                        let seq =
                            recorder.plan_console(&mut flight.writes, kind, &by, at, &mut derived);
                        flight.replies.push((reply, Ok(seq)));
                        flight
                            .shown
                            .push(Shown::Derived(index, derived, recorder.view()));
                        flight.touched.push(index);
                    }
                },
                Input::Stop => {}
                other => flight.inputs.push(other),
            }
        }
        flight.touched.sort_unstable();
        flight.touched.dedup();
        // Rejected bytes held back by a table are written with this group.
        for &index in &flight.touched {
            let recorder = &mut self.recorders[index];
            let mut derived = Vec::new();
            recorder.flush_garbage(&mut flight.writes, &mut derived);
            if !derived.is_empty() {
                flight
                    .shown
                    .push(Shown::Derived(index, derived, recorder.view()));
            }
        }
        if let (Some(mark), Some(key)) = (mark, &self.spool_key) {
            flight.writes.set_meta(key, &mark.to_string());
        }
        flight
    }

    /// Tries to write the flight; true when it is on record (and published).
    fn attempt(&mut self) -> bool {
        let Some(flight) = self.flight.take() else {
            return true;
        };
        match self.try_write(&flight.writes) {
            Ok(written) => {
                if let Some(mark) = flight.mark {
                    self.spool_mark = mark;
                }
                self.spool.written();
                self.published(flight, &written);
                if let Some(t) = self.trouble.as_mut() {
                    // Written again: the next failure starts its backoff afresh.
                    t.delay = self.options.retry_first;
                    t.next_try = Instant::now();
                }
                true
            }
            Err(error) => {
                let trouble = error.trouble();
                let now = self.clock.now();
                let first = self.options.retry_first;
                let t = self.trouble.get_or_insert_with(|| Troubled {
                    trouble,
                    reason: String::new(),
                    since: now,
                    attempts: 0,
                    dropped: 0,
                    next_try: Instant::now(),
                    delay: first,
                    reported: Instant::now() - Duration::from_secs(3600),
                    reopen: false,
                });
                t.trouble = trouble;
                t.reason = format!("{}: {error}", trouble.describe());
                t.attempts += 1;
                t.reopen |= trouble.reopen();
                t.next_try = Instant::now() + t.delay;
                t.delay = (t.delay * 2).min(self.options.retry_max);
                self.flight = Some(flight);
                false
            }
        }
    }

    fn try_write(&mut self, writes: &Writes) -> Result<Written, StoreError> {
        if writes.is_empty() {
            // Only link attempts: nothing to record, nothing to wait for.
            return Ok(Written::default());
        }
        let reopen = self.trouble.as_ref().is_some_and(|t| t.reopen);
        if reopen || self.store.is_none() {
            // After an I/O error SQLite may keep failing on the same connection.
            self.store = None;
            let path = self.path.clone().ok_or_else(|| {
                StoreError::Invalid("the database in memory cannot be opened again".into())
            })?;
            let sealing = self.sealing.clone().ok_or_else(|| {
                StoreError::Invalid("the record cannot be opened again for writing".into())
            })?;
            let mut store = Store::open(&path, &sealing)?;
            store.set_busy_timeout(self.options.busy_wait)?;
            self.store = Some(store);
            if let Some(t) = self.trouble.as_mut() {
                t.reopen = false;
            }
        }
        let store = self
            .store
            .as_mut()
            .ok_or_else(|| StoreError::Invalid("no database".into()))?;
        // The transaction's time, for its signed checkpoint.
        let mut batch = store.batch(self.clock.now())?;
        let written = writes.execute(&mut batch)?;
        batch.commit()?;
        Ok(written)
    }

    /// Publishes the checkpoint journals when what went wrong writing them changed: a journal
    /// that cannot be written never stops recording, but must be shown.
    fn report_journals(&mut self) {
        let Some(store) = self.store.as_ref() else {
            return;
        };
        let now = store.journal_status();
        if now != self.journals {
            self.journals = now;
            self.publisher
                .publish(MonitorEvent::Witness(self.journals.clone()));
        }
    }

    /// The flight is on record: the recorders learn their rows' ids, and only now is anything
    /// shown.
    fn published(&mut self, flight: Flight, written: &Written) {
        for &index in &flight.touched {
            self.recorders[index].settle(written);
        }
        for shown in flight.shown {
            match shown {
                Shown::Derived(index, derived, view) => {
                    let table = self.recorders[index].name().to_owned();
                    for item in derived {
                        self.publisher.publish(MonitorEvent::Derived {
                            table: table.clone(),
                            derived: written.resolve(item),
                        });
                    }
                    self.publisher.publish(MonitorEvent::View { table, view });
                }
                Shown::Event(event) => self.publisher.publish(event),
            }
        }
        for (reply, answer) in flight.replies {
            let _ = reply.send(answer);
        }
    }

    /// Publishes the recording state: on every change of trouble, once a second while
    /// degraded, and once when recovered.
    fn report(&mut self) {
        let backlog_bytes = self.spool.memory_bytes() as u64
            + self.spool.file_bytes()
            + self.flight.as_ref().map_or(0, |f| f.bytes);
        let backlog_inputs =
            self.spool.len() + self.flight.as_ref().map_or(0, |f| f.inputs.len() as u64);
        let recovered =
            self.flight.is_none() && self.spool.is_empty() && !self.spool.has_open_gaps();
        let dropped = self.spool.take_dropped();
        let Some(t) = self.trouble.as_mut() else {
            if dropped > 0 {
                // Dropped without a failed write (the spool's bounds are smaller than one
                // group): still reported, once.
                let state = RecordingState {
                    degraded: false,
                    reason: "the spool was full".into(),
                    since: None,
                    backlog_bytes,
                    backlog_inputs,
                    spooled_bytes: self.spool.file_bytes(),
                    dropped_bytes: dropped,
                    attempts: 0,
                };
                self.publisher.publish(MonitorEvent::Recording(state));
            }
            return;
        };
        t.dropped += dropped;
        let state = RecordingState {
            degraded: !recovered,
            reason: t.reason.clone(),
            since: Some(t.since),
            backlog_bytes,
            backlog_inputs,
            spooled_bytes: self.spool.file_bytes(),
            dropped_bytes: t.dropped,
            attempts: t.attempts,
        };
        if recovered {
            self.trouble = None;
            self.publisher.publish(MonitorEvent::Recording(state));
        } else if t.reported.elapsed() >= self.options.report_every {
            t.reported = Instant::now();
            self.publisher.publish(MonitorEvent::Recording(state));
        }
    }

    /// Stopping while the database still cannot be written: what waits goes to the spool file,
    /// which the next start writes first.
    fn leave_for_next_start(&mut self) -> Result<(), StoreError> {
        let mut inputs = Vec::new();
        let mut reason = "stopping".to_owned();
        if let Some(flight) = self.flight.take() {
            for (reply, _) in flight.replies {
                let _ = reply.send(Err("the monitor stopped before recording it".into()));
            }
            inputs = flight.inputs;
        }
        if let Some(t) = &self.trouble {
            reason = t.reason.clone();
        }
        let waiting = inputs.len() as u64 + self.spool.len();
        let lost = self.spool.persist(inputs, self.spool_mark);
        let kept = match self.spool.file_path() {
            Some(path) if lost == 0 => format!("kept in {} for the next start", path.display()),
            Some(path) => format!(
                "kept in {} for the next start, except {lost} bytes that did not fit",
                path.display()
            ),
            None => "lost: there is no spool file".into(),
        };
        let message =
            format!("stopped while {reason}: {waiting} input(s) not on record were {kept}");
        self.publisher.publish(MonitorEvent::Failed {
            table: None,
            message: message.clone(),
        });
        Err(StoreError::Invalid(message))
    }
}
