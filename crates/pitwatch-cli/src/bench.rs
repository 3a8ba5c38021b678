//! `pitwatch bench pit --tables N --pace 10x --seconds S [--json]`: qualifies a machine for a
//! pit. N simulated tables (the simulator of `pitwatch sim`, honest shoes, three Angel Eye shoes
//! to one barcode shoe, each on its own pseudo-terminal) are read by the real monitor into a
//! fresh temporary database for S seconds. It reports the latency from the moment a frame's bytes
//! were read off the port to the moment the monitor published its event (after the transaction
//! holding it committed: read → committed → published), events per second, the process's
//! resident memory at start and end, and frames lost and duplicated (the frames on record
//! compared with the frames the simulators sent).
//!
//! Then, in the same run, a baseline: the same tables (same seeds, so the same byte streams) read
//! by the same transport, with a writer that only stores the raw bytes in SQLite with the same
//! durability (WAL, `synchronous = FULL`, group commit), and the same figures. The difference is
//! what decoding, judging, chaining and publishing cost.
//!
//! With `--json` the last line is one JSON object (see [`Report`]).
//!
//! Ctrl-C ends the run early as if its time were up: what was sent is drained, the
//! monitor stopped and the figures so far printed (no baseline then); a second Ctrl-C leaves at
//! once.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{anyhow, Context};
use clap::{Args, Subcommand};
use pitwatch_games::GameBook;
use pitwatch_model::Timestamp;
use pitwatch_protocols::{DecodeOutput, ProtocolConfig};
use pitwatch_recording::monitor::{Monitor, MonitorEvent, MonitoredTable};
use pitwatch_recording::pit::{LinkConfig, TableConfig};
use pitwatch_recording::recorder::Derived;
use pitwatch_sim::{Endpoint, Pace, SimConfig, SimDevice};
use pitwatch_store::rawsink::RawSink;
use pitwatch_store::{Sealing, SigningKey, Store};
use pitwatch_transport::{
    spawn_device_into, Clock, DeviceHandle, EventSink, SerialConfig, SystemClock, TransportConfig,
    TransportEvent,
};
use serde_json::json;

/// `pitwatch bench …`
#[derive(Debug, Subcommand)]
pub enum BenchCommand {
    /// Simulated tables through the real monitor, against a bare raw-bytes baseline.
    Pit(PitArgs),
}

/// Arguments of `pitwatch bench pit`.
#[derive(Debug, Args)]
pub struct PitArgs {
    /// How many tables.
    #[arg(long, default_value_t = 50)]
    tables: usize,
    /// How fast the simulated dealers deal: `real`, `fast` or a factor such as `10x`.
    #[arg(long, default_value = "10x", value_parser = crate::sim::parse_pace)]
    pace: Pace,
    /// How long each of the two runs (monitor, baseline) lasts.
    #[arg(long, default_value_t = 60.0)]
    seconds: f64,
    /// Print a progress line every this many seconds (0: none).
    #[arg(long, default_value_t = 0.0)]
    progress: f64,
    /// Skip the baseline run.
    #[arg(long)]
    no_baseline: bool,
    /// Follow every table's exposure live as the desk does (surveillance's figures before each
    /// round, on a thread of its own fed by the monitor's events), to measure what it costs.
    #[arg(long)]
    exposure: bool,
    /// Keep the databases in this directory instead of a temporary one.
    #[arg(long)]
    keep: Option<PathBuf>,
    /// End with one JSON object on the last line.
    #[arg(long)]
    json: bool,
}

/// Runs `pitwatch bench …`.
pub fn run(command: BenchCommand) -> anyhow::Result<ExitCode> {
    match command {
        BenchCommand::Pit(args) => pit(args),
    }
}

/// The figures of one run.
#[derive(Debug, Default)]
struct RunFigures {
    /// Lags in ms.
    lags: Lags,
    /// The lags after the first [`WARM_UP`] of the run (start-up excluded).
    steady: Lags,
    /// Whether lags are measured (not while the tables are drained after the run).
    measuring: bool,
    /// When the run started.
    started: Option<Instant>,
    /// Events (monitor) or chunks (baseline) measured.
    count: u64,
    seconds: f64,
    rss_start_mb: f64,
    rss_end_mb: f64,
    sent_frames: u64,
    recorded_frames: u64,
    lost: u64,
    duplicated: u64,
    rounds: u64,
    incidents: u64,
    degraded: u64,
    missed: u64,
    /// Rounds whose exposure was computed (with `--exposure`).
    exposure_rounds: Option<u64>,
    /// Seconds from the simulators stopped to everything sent on record (or given up on).
    drain_seconds: f64,
    /// Seconds the monitor took to stop (its readers and writer), what Ctrl-C waits for.
    stop_seconds: f64,
    /// Seconds `Monitor::start` took (the record opened, every table's reader started).
    start_seconds: f64,
    /// The process's threads at the end of the run (simulators included: one per table).
    threads: u64,
}

/// The start of a run that the steady-state figures leave out (the tables connecting, the
/// pseudo-terminals' first bytes).
const WARM_UP: Duration = Duration::from_secs(5);

/// Lags counted per millisecond: exact quantiles in constant memory, so a soak of hours measures
/// the monitor's memory, not the bench's.
#[derive(Debug)]
struct Lags {
    /// `counts[ms]` for lags up to [`Lags::SPAN`] ms.
    counts: Vec<u64>,
    /// Lags beyond the span, exactly (there are few, or something is badly wrong).
    beyond: Vec<i64>,
    total: u64,
}

impl Default for Lags {
    fn default() -> Self {
        Lags {
            counts: vec![0; Lags::SPAN + 1],
            beyond: Vec::new(),
            total: 0,
        }
    }
}

impl Lags {
    const SPAN: usize = 60_000;

    fn record(&mut self, lag: i64) {
        let lag = lag.max(0);
        match usize::try_from(lag) {
            Ok(ms) if ms <= Lags::SPAN => self.counts[ms] += 1,
            _ => self.beyond.push(lag),
        }
        self.total += 1;
    }

    /// The lag at rank `round((n - 1) × q)` in ascending order (0 when there are none).
    fn pick(&self, q: f64) -> i64 {
        if self.total == 0 {
            return 0;
        }
        let rank = ((self.total as f64 - 1.0) * q).round() as u64;
        let mut seen = 0;
        for (ms, &n) in self.counts.iter().enumerate() {
            seen += n;
            if seen > rank {
                return ms as i64;
            }
        }
        let mut beyond = self.beyond.clone();
        beyond.sort_unstable();
        let i = usize::try_from(rank - seen).unwrap_or(usize::MAX);
        beyond.get(i).or(beyond.last()).copied().unwrap_or(0)
    }

    fn max(&self) -> i64 {
        self.pick(1.0)
    }
}

impl RunFigures {
    fn pick(&self, q: f64) -> i64 {
        self.lags.pick(q)
    }

    fn max(&self) -> i64 {
        self.lags.max()
    }

    fn record_lag(&mut self, lag: i64) {
        if !self.measuring {
            return;
        }
        self.lags.record(lag);
        if self.started.is_some_and(|s| s.elapsed() >= WARM_UP) {
            self.steady.record(lag);
        }
    }
}

/// How many times Ctrl-C was pressed during the bench.
static INTERRUPTS: AtomicU32 = AtomicU32::new(0);

/// Whether the run was asked to end early.
fn interrupted() -> bool {
    INTERRUPTS.load(Ordering::SeqCst) > 0
}

/// Ctrl-C ends the run early; a second one leaves at once (exit status 130).
fn on_interrupt() -> anyhow::Result<()> {
    ctrlc::set_handler(|| {
        if INTERRUPTS.fetch_add(1, Ordering::SeqCst) > 0 {
            std::process::exit(130);
        }
        errln!("interrupted: ending the run now and printing what was measured (Ctrl-C again to leave at once)");
    })
    .context("cannot install the Ctrl-C handler")
}

fn pit(args: PitArgs) -> anyhow::Result<ExitCode> {
    if args.tables == 0 {
        return Err(anyhow!("--tables must be at least 1"));
    }
    if !(args.seconds.is_finite() && args.seconds > 0.0) {
        return Err(anyhow!("--seconds must be a positive number"));
    }
    on_interrupt()?;
    let mut temp = None;
    let dir: &Path = match &args.keep {
        Some(dir) => {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create {}", dir.display()))?;
            dir
        }
        None => temp
            .insert(tempfile::tempdir().context("cannot create a temporary directory")?)
            .path(),
    };
    let load_start = load_average();
    errln!(
        "bench pit: {} tables at {}, {} s each run, in {} (load average {load_start})",
        args.tables,
        pace_text(args.pace),
        args.seconds,
        dir.display()
    );
    let monitor = monitor_run(&args, dir)?;
    let baseline = if args.no_baseline || interrupted() {
        None
    } else {
        Some(baseline_run(&args, dir)?)
    };
    let load_end = load_average();
    if interrupted() {
        outln!(
            "interrupted after {:.1} s of the monitor's run: the figures are for that time",
            monitor.seconds
        );
    }
    outln!(
        "monitor:  {} events in {:.0} s ({:.0}/s), {} rounds, {} incidents",
        monitor.count,
        monitor.seconds,
        monitor.count as f64 / monitor.seconds,
        monitor.rounds,
        monitor.incidents
    );
    outln!(
        "          read → committed → published: p50 {} ms, p99 {} ms, max {} ms (after the first {} s: p99 {} ms, max {} ms)",
        monitor.pick(0.5),
        monitor.pick(0.99),
        monitor.max(),
        WARM_UP.as_secs(),
        monitor.steady.pick(0.99),
        monitor.steady.max()
    );
    outln!(
        "          frames: {} sent, {} recorded, {} lost, {} duplicated; resident memory {:.1} MB at start, {:.1} MB at end",
        monitor.sent_frames,
        monitor.recorded_frames,
        monitor.lost,
        monitor.duplicated,
        monitor.rss_start_mb,
        monitor.rss_end_mb
    );
    outln!(
        "          starting: the monitor started in {:.2} s; {} threads in this process at the end ({} simulators, one per table, among them)",
        monitor.start_seconds,
        monitor.threads,
        args.tables
    );
    outln!(
        "          stopping: {:.1} s to drain what was sent, then the monitor stopped in {:.2} s",
        monitor.drain_seconds,
        monitor.stop_seconds
    );
    if let Some(rounds) = monitor.exposure_rounds {
        outln!("          exposure followed live: the figures of {rounds} rounds computed");
    }
    if monitor.degraded > 0 || monitor.missed > 0 {
        outln!(
            "          recording degraded reports: {}, events not delivered to the bench: {}",
            monitor.degraded,
            monitor.missed
        );
    }
    if let Some(b) = &baseline {
        outln!(
            "baseline: {} chunks in {:.0} s ({:.0}/s), raw bytes only",
            b.count,
            b.seconds,
            b.count as f64 / b.seconds
        );
        outln!(
            "          read → committed: p50 {} ms, p99 {} ms, max {} ms (after the first {} s: p99 {} ms, max {} ms)",
            b.pick(0.5),
            b.pick(0.99),
            b.max(),
            WARM_UP.as_secs(),
            b.steady.pick(0.99),
            b.steady.max()
        );
        outln!(
            "          bytes: {} sent, {} recorded, {} lost, {} duplicated; resident memory {:.1} MB at start, {:.1} MB at end",
            b.sent_frames,
            b.recorded_frames,
            b.lost,
            b.duplicated,
            b.rss_start_mb,
            b.rss_end_mb
        );
    }
    outln!("load average: {load_start} at start, {load_end} at end");
    if args.json {
        let report = json!({
            "tables": args.tables,
            "pace": pace_text(args.pace),
            "seconds": args.seconds,
            "run_s": round1(monitor.seconds),
            "events": monitor.count,
            "events_per_s": (monitor.count as f64 / monitor.seconds).round(),
            "rounds": monitor.rounds,
            "incidents": monitor.incidents,
            "p50_ms": monitor.pick(0.5),
            "p99_ms": monitor.pick(0.99),
            "max_ms": monitor.max(),
            "steady_p99_ms": monitor.steady.pick(0.99),
            "steady_max_ms": monitor.steady.max(),
            "frames_sent": monitor.sent_frames,
            "frames_recorded": monitor.recorded_frames,
            "lost": monitor.lost,
            "duplicated": monitor.duplicated,
            "rss_start_mb": round1(monitor.rss_start_mb),
            "rss_end_mb": round1(monitor.rss_end_mb),
            "degraded_reports": monitor.degraded,
            "exposure_rounds": monitor.exposure_rounds,
            "drain_s": (monitor.drain_seconds * 10.0).round() / 10.0,
            "stop_s": (monitor.stop_seconds * 100.0).round() / 100.0,
            "start_s": (monitor.start_seconds * 100.0).round() / 100.0,
            "threads": monitor.threads,
            "baseline_chunks": baseline.as_ref().map(|b| b.count),
            "baseline_p50_ms": baseline.as_ref().map(|b| b.pick(0.5)),
            "baseline_p99_ms": baseline.as_ref().map(|b| b.pick(0.99)),
            "baseline_max_ms": baseline.as_ref().map(RunFigures::max),
            "baseline_steady_p99_ms": baseline.as_ref().map(|b| b.steady.pick(0.99)),
            "baseline_lost_bytes": baseline.as_ref().map(|b| b.lost),
            "baseline_duplicated_bytes": baseline.as_ref().map(|b| b.duplicated),
            "baseline_rss_end_mb": baseline.as_ref().map(|b| round1(b.rss_end_mb)),
            "interrupted": interrupted(),
            "load_average_start": load_start,
            "load_average_end": load_end,
        });
        crate::out::json(&report, false);
    }
    let clean = monitor.lost == 0
        && monitor.duplicated == 0
        && baseline
            .as_ref()
            .is_none_or(|b| b.lost == 0 && b.duplicated == 0);
    if !clean {
        // What was recorded is the evidence of what went wrong: it is not thrown away.
        if let Some(temp) = temp {
            let kept = temp.keep();
            errln!(
                "the record and the simulators' captures are kept in {} for inspection",
                kept.display()
            );
        }
    }
    Ok(if clean {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn round1(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

fn pace_text(pace: Pace) -> String {
    match pace {
        Pace::RealTime => "real".into(),
        Pace::Fast => "fast".into(),
        Pace::Times(f) => format!("{f}x"),
    }
}

/// The rule book every table of the bench's pit deals by, named as a pit definition names it
/// (the simulator deals its shoes by such a book, and every protocol carries them, so the pit
/// mixes Angel Eye and barcode shoes); the registry loads it and says its game.
const BOOK: &str = "nz-baccarat";

/// The protocol of table `i`: three Angel Eye shoes to one barcode shoe.
fn protocol_of(i: usize) -> anyhow::Result<ProtocolConfig> {
    let name = if i % 4 == 3 { "barcode" } else { "angel-eye" };
    ProtocolConfig::by_name(name).ok_or_else(|| anyhow!("no protocol {name}"))
}

/// Starts the simulated tables, each writing what it sends to a capture file in `dir`.
fn start_sims(
    args: &PitArgs,
    dir: &Path,
    tag: &str,
) -> anyhow::Result<(Vec<SimDevice>, Vec<PathBuf>, Vec<String>)> {
    let book = pitwatch_games::load_rule_book(BOOK).map_err(|e| anyhow!("{e}"))?;
    let mut sims = Vec::with_capacity(args.tables);
    let mut captures = Vec::with_capacity(args.tables);
    let mut paths = Vec::with_capacity(args.tables);
    for i in 0..args.tables {
        let capture = dir.join(format!("{tag}-{i:03}.bin"));
        let mut config = SimConfig::new(protocol_of(i)?, book.clone());
        config.seed = 1000 + i as u64;
        config.pace = args.pace;
        config.shoes = None;
        config.endpoint = Endpoint::Pty;
        config.capture = Some(capture.clone());
        let sim = SimDevice::start(config).with_context(|| {
            format!("cannot start simulated table {} of {}", i + 1, args.tables)
        })?;
        paths.push(sim.path().unwrap_or_default().to_owned());
        sims.push(sim);
        captures.push(capture);
    }
    Ok((sims, captures, paths))
}

fn link(path: &str) -> LinkConfig {
    LinkConfig::new(TransportConfig::Serial(SerialConfig::new(path, 9600)))
}

fn table_name(i: usize) -> String {
    format!("T{:03}", i + 1)
}

fn monitor_run(args: &PitArgs, dir: &Path) -> anyhow::Result<RunFigures> {
    let db = dir.join("monitor.db");
    let (sims, captures, paths) = start_sims(args, dir, "monitor")?;
    let game = GameBook::load(BOOK).map_err(|e| anyhow!("{e}"))?.kind();
    let tables: Vec<MonitoredTable> = (0..args.tables)
        .map(|i| {
            Ok(MonitoredTable {
                config: TableConfig::new(
                    table_name(i),
                    game,
                    BOOK,
                    protocol_of(i)?,
                    Some(link(&paths[i])),
                ),
                link: link(&paths[i]),
                more_links: Vec::new(),
            })
        })
        .collect::<anyhow::Result<_>>()?;
    let clock: Arc<dyn Clock> = Arc::new(SystemClock);
    // Signed like any record (signing is part of what is measured), with a key of its own that
    // lives as long as the run: the bench's record is thrown away.
    let sealing = Sealing::key(SigningKey::generate());
    let store =
        Store::open(&db, &sealing).with_context(|| format!("cannot open {}", db.display()))?;
    let names: Vec<String> = (0..args.tables).map(table_name).collect();
    let starting = Instant::now();
    let (monitor, events) = Monitor::start(store, tables, Arc::clone(&clock))?;
    let start_seconds = starting.elapsed().as_secs_f64();
    let exposure = if args.exposure {
        let store =
            Store::open(&db, &sealing).with_context(|| format!("cannot open {}", db.display()))?;
        Some(pitwatch_app::exposure::ExposureWatch::start(
            store,
            3,
            names,
            Arc::clone(&clock),
        )?)
    } else {
        None
    };
    let feed = |event: &MonitorEvent| {
        if let Some(watch) = &exposure {
            watch.feed(event);
        }
    };
    let mut figures = RunFigures {
        rss_start_mb: rss_mb(),
        start_seconds,
        ..RunFigures::default()
    };
    let started = Instant::now();
    figures.started = Some(started);
    figures.measuring = true;
    let mut next_progress = args.progress;
    let run_for = Duration::from_secs_f64(args.seconds);
    while started.elapsed() < run_for && !interrupted() {
        match events.recv_timeout(Duration::from_millis(100)) {
            Ok(event) => {
                feed(&event);
                count(&mut figures, &event, clock.as_ref());
            }
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => break,
        }
        if args.progress > 0.0 && started.elapsed().as_secs_f64() >= next_progress {
            next_progress += args.progress;
            errln!(
                "  {:>6.0} s: {} events, resident memory {:.1} MB, load average {}",
                started.elapsed().as_secs_f64(),
                figures.count,
                rss_mb(),
                load_average()
            );
        }
    }
    figures.seconds = started.elapsed().as_secs_f64();
    figures.rss_end_mb = rss_mb();
    figures.threads = threads();
    if let Some(watch) = exposure {
        watch.stop();
        figures.exposure_rounds = Some(watch.with(|w| w.computed));
    }
    // Lags are measured within the run only.
    figures.measuring = false;
    // The simulators deal no more; what they sent and the monitor has not read yet waits in the
    // terminals and is still recorded: the monitor runs on until the record holds every byte
    // the captures hold (or nothing more arrives for a while). The terminals stay open until
    // then, since closing one hangs it up and throws away what it holds.
    stop_dealing(&sims);
    // Each table's own count: a simulator stopped in the middle of a write leaves bytes on
    // record that its capture does not hold, which must not stand in for another table's bytes
    // still waiting in its terminal.
    let sent: Vec<(String, u64)> = captures
        .iter()
        .enumerate()
        .map(|(i, c)| (table_name(i), std::fs::metadata(c).map_or(0, |m| m.len())))
        .collect();
    let draining = Instant::now();
    drain(&events, &mut figures, clock.as_ref(), || {
        Store::open_read_only(&db)
            .and_then(|s| s.raw_bytes_by_table())
            .is_ok_and(|recorded| {
                sent.iter()
                    .all(|(table, bytes)| recorded.get(table).copied().unwrap_or(0) >= *bytes)
            })
    });
    figures.drain_seconds = draining.elapsed().as_secs_f64();
    let stopping = Instant::now();
    monitor.stop()?;
    figures.stop_seconds = stopping.elapsed().as_secs_f64();
    for sim in sims {
        let _ = sim.stop();
    }
    for event in events.try_iter() {
        count(&mut figures, &event, clock.as_ref());
    }
    let store = Store::open_read_only(&db)?;
    for (i, capture) in captures.iter().enumerate() {
        let protocol = protocol_of(i)?;
        let sent = frames_of(&std::fs::read(capture)?, protocol);
        let recorded = recorded_frames(&store, &table_name(i))?;
        let (lost, duplicated) = compare(&sent, &recorded);
        if lost + duplicated > 0 {
            explain_mismatch(&table_name(i), &sent, &recorded);
        }
        figures.sent_frames += sent.len() as u64;
        figures.recorded_frames += recorded.len() as u64;
        figures.lost += lost;
        figures.duplicated += duplicated;
    }
    Ok(figures)
}

/// Asks every simulator to deal no more, then waits (up to 10 s) until each has finished the
/// frame it was sending, so its capture holds all it will send.
fn stop_dealing(sims: &[SimDevice]) {
    for sim in sims {
        sim.stop_dealing();
    }
    let deadline = Instant::now() + Duration::from_secs(10);
    for sim in sims {
        sim.wait_finished(deadline.saturating_duration_since(Instant::now()));
    }
}

/// Takes the monitor's events until `done` says everything sent is on record, or nothing has come
/// for 10 s (a simulator stopped in the middle of a write leaves bytes no capture holds).
fn drain(
    events: &Receiver<MonitorEvent>,
    figures: &mut RunFigures,
    clock: &dyn Clock,
    done: impl Fn() -> bool,
) {
    let deadline = Instant::now() + Duration::from_secs(120);
    let mut last_event = Instant::now();
    let mut checked = Instant::now();
    while Instant::now() < deadline && last_event.elapsed() < Duration::from_secs(10) {
        if let Ok(event) = events.recv_timeout(Duration::from_millis(100)) {
            last_event = Instant::now();
            count(figures, &event, clock);
        }
        if checked.elapsed() >= Duration::from_millis(500) {
            checked = Instant::now();
            if done() {
                // What was committed last is published right after: take it too.
                while let Ok(event) = events.recv_timeout(Duration::from_millis(300)) {
                    count(figures, &event, clock);
                }
                return;
            }
        }
    }
}

fn count(figures: &mut RunFigures, event: &MonitorEvent, clock: &dyn Clock) {
    match event {
        MonitorEvent::Derived { derived, .. } => match derived {
            Derived::Event(event) => {
                figures.count += 1;
                if let Some(at) = event.at {
                    figures.record_lag(clock.now().unix_millis() - at.unix_millis());
                }
            }
            Derived::Output {
                output: pitwatch_rules::TableOutput::Round(_),
                ..
            } => figures.rounds += 1,
            Derived::Output {
                incident: Some(_), ..
            }
            | Derived::Gap { .. }
            | Derived::DeviceChanged { .. } => figures.incidents += 1,
            _ => {}
        },
        MonitorEvent::Recording(state) if state.degraded => figures.degraded += 1,
        MonitorEvent::Missed { count } => figures.missed += count,
        _ => {}
    }
}

/// The frames a codec finds in `bytes` (what a simulator sent), accepted ones only. Lines are
/// fed a second apart, so a barcode scanner's repeat window (which the simulator waits out live)
/// never merges two cards here.
fn frames_of(bytes: &[u8], protocol: ProtocolConfig) -> Vec<Vec<u8>> {
    let mut decoder = protocol.decoder(1);
    let mut out = Vec::new();
    let pieces: Vec<&[u8]> = match protocol {
        ProtocolConfig::AngelEye(_) => bytes.chunks(4096).collect(),
        _ => bytes
            .split_inclusive(|b| *b == b'\r' || *b == b'\n')
            .collect(),
    };
    for (i, piece) in pieces.into_iter().enumerate() {
        let at = Timestamp::from_unix_millis(1_000 * i as i64).unwrap_or_else(|| SystemClock.now());
        decoder.push(piece, at, &mut out);
    }
    out.into_iter()
        .filter_map(|o| match o {
            DecodeOutput::Accepted(a) => Some(a.frame.to_vec()),
            DecodeOutput::Rejected(_) => None,
        })
        .collect()
}

/// The accepted frames on record for table `name`, in order.
fn recorded_frames(store: &Store, name: &str) -> anyhow::Result<Vec<Vec<u8>>> {
    let Some(table) = store.table_id(name)? else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for session in store.sessions(table)? {
        for frame in store.frames_between(session.id, i64::MIN, i64::MAX)? {
            if frame.accepted {
                out.push(frame.bytes);
            }
        }
    }
    Ok(out)
}

/// Lines `recorded` up against `sent`, in order: frames sent and never recorded are lost; a
/// recorded frame that matches none of the frames still to come is duplicated (recorded again,
/// or never sent: either way the record holds something it should not).
fn compare(sent: &[Vec<u8>], recorded: &[Vec<u8>]) -> (u64, u64) {
    let alignment = align(sent, recorded);
    (
        alignment.lost.len() as u64,
        alignment.duplicated.len() as u64,
    )
}

/// Where [`compare`] found frames lost (positions in `sent`) and duplicated (positions in
/// `recorded`).
#[derive(Debug, Default)]
struct Alignment {
    lost: Vec<usize>,
    duplicated: Vec<usize>,
}

fn align(sent: &[Vec<u8>], recorded: &[Vec<u8>]) -> Alignment {
    const LOOK_AHEAD: usize = 4096;
    let mut i = 0usize;
    let mut alignment = Alignment::default();
    for (r, frame) in recorded.iter().enumerate() {
        match sent[i.min(sent.len())..]
            .iter()
            .take(LOOK_AHEAD)
            .position(|s| s == frame)
        {
            Some(k) => {
                alignment.lost.extend(i..i + k);
                i += k + 1;
            }
            None => alignment.duplicated.push(r),
        }
    }
    alignment.lost.extend(i.min(sent.len())..sent.len());
    alignment
}

/// Says, for a table whose record does not match what its simulator sent, which frames are
/// missing or extra (the first few, with their bytes), so a loss seen in a long soak can be
/// traced in the record that is kept.
fn explain_mismatch(table: &str, sent: &[Vec<u8>], recorded: &[Vec<u8>]) {
    let alignment = align(sent, recorded);
    if alignment.lost.is_empty() && alignment.duplicated.is_empty() {
        return;
    }
    errln!(
        "  {table}: {} of {} frames sent not on record, {} on record not sent",
        alignment.lost.len(),
        sent.len(),
        alignment.duplicated.len()
    );
    for &at in alignment.lost.iter().take(5) {
        errln!(
            "    not on record: frame {at} sent, {}",
            pitwatch_api::convert::printable(&sent[at])
        );
    }
    for &at in alignment.duplicated.iter().take(5) {
        errln!(
            "    not sent: frame {at} on record, {}",
            pitwatch_api::convert::printable(&recorded[at])
        );
    }
}

/// A sink that stamps nothing more: the baseline's readers hand chunks to one channel.
struct ChannelSink {
    device: u32,
    tx: mpsc::Sender<(u32, TransportEvent)>,
}

impl EventSink for ChannelSink {
    fn deliver(&mut self, event: TransportEvent) -> bool {
        self.tx.send((self.device, event)).is_ok()
    }
}

fn baseline_run(args: &PitArgs, dir: &Path) -> anyhow::Result<RunFigures> {
    let db = dir.join("baseline.db");
    let (sims, captures, paths) = start_sims(args, dir, "baseline")?;
    let clock: Arc<dyn Clock> = Arc::new(SystemClock);
    let (tx, rx) = mpsc::channel();
    let mut readers: Vec<DeviceHandle> = Vec::with_capacity(args.tables);
    for (i, path) in paths.iter().enumerate() {
        let sink = ChannelSink {
            device: i as u32,
            tx: tx.clone(),
        };
        readers.push(spawn_device_into(
            &link(path),
            Arc::clone(&clock),
            Box::new(sink),
        )?);
    }
    drop(tx);
    let mut sink = RawSink::create(&db)?;
    let mut figures = RunFigures {
        rss_start_mb: rss_mb(),
        ..RunFigures::default()
    };
    let started = Instant::now();
    figures.started = Some(started);
    figures.measuring = true;
    let run_for = Duration::from_secs_f64(args.seconds);
    let mut stopped_at: Option<Instant> = None;
    loop {
        let first = match rx.recv_timeout(Duration::from_millis(100)) {
            Ok(item) => Some(item),
            Err(RecvTimeoutError::Timeout) => None,
            Err(RecvTimeoutError::Disconnected) => break,
        };
        let mut group: Vec<(u32, TransportEvent)> = first.into_iter().collect();
        while group.len() < 1024 {
            match rx.try_recv() {
                Ok(item) => group.push(item),
                Err(_) => break,
            }
        }
        let chunks: Vec<(u32, i64, &[u8])> = group
            .iter()
            .filter_map(|(device, event)| match event {
                TransportEvent::Chunk { received_at, bytes } => {
                    Some((*device, received_at.unix_millis(), bytes.as_slice()))
                }
                _ => None,
            })
            .collect();
        if !chunks.is_empty() {
            sink.write(&chunks)?;
            let now = clock.now().unix_millis();
            if stopped_at.is_none() {
                for (_, at, _) in &chunks {
                    figures.record_lag(now - at);
                    figures.count += 1;
                }
            }
        }
        if stopped_at.is_none() && started.elapsed() >= run_for {
            figures.seconds = started.elapsed().as_secs_f64();
            figures.rss_end_mb = rss_mb();
            // As in the monitor's run: the terminals stay open until what they hold is read.
            stop_dealing(&sims);
            stopped_at = Some(Instant::now());
        }
        if let Some(at) = stopped_at {
            // Drain what the terminals still hold, then stop.
            if chunks.is_empty() && at.elapsed() >= Duration::from_secs(1) {
                break;
            }
        }
    }
    // Every reader is asked first, so their read timeouts run at once, not one after another.
    for reader in &readers {
        reader.request_stop();
    }
    for reader in readers {
        reader.stop();
    }
    for sim in sims {
        let _ = sim.stop();
    }
    for item in rx.try_iter() {
        if let (device, TransportEvent::Chunk { received_at, bytes }) = item {
            sink.write(&[(device, received_at.unix_millis(), bytes.as_slice())])?;
        }
    }
    for (i, capture) in captures.iter().enumerate() {
        let sent = std::fs::read(capture)?;
        let recorded = sink.bytes_of(i as u32)?;
        figures.sent_frames += sent.len() as u64;
        figures.recorded_frames += recorded.len() as u64;
        let common = sent
            .iter()
            .zip(&recorded)
            .take_while(|(a, b)| a == b)
            .count();
        figures.lost += (sent.len() - common) as u64;
        figures.duplicated += (recorded.len() - common) as u64;
    }
    Ok(figures)
}

/// This process's threads (from `/proc/self/status`; 0 where there is none).
fn threads() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find_map(|l| l.strip_prefix("Threads:"))
                .and_then(|v| v.trim().parse().ok())
        })
        .unwrap_or(0)
}

/// This process's resident memory, in MB (from `/proc/self/status`; 0 where there is none).
fn rss_mb() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        })
        .map_or(0.0, |kb| kb / 1024.0)
}

/// The machine's 1, 5 and 15 minute load averages, as `/proc/loadavg` gives them.
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(s: &str) -> Vec<u8> {
        s.as_bytes().to_vec()
    }

    #[test]
    fn lags_give_the_quantiles_of_the_sorted_lags() {
        let mut lags = Lags::default();
        let mut all: Vec<i64> = (0..1000).map(|i| (i * 37) % 250).collect();
        all.push(75_000);
        for lag in &all {
            lags.record(*lag);
        }
        all.sort_unstable();
        for q in [0.0, 0.5, 0.9, 0.99, 1.0] {
            assert_eq!(lags.pick(q), pick_sorted(&all, q), "q {q}");
        }
        assert_eq!(lags.max(), 75_000);
        assert_eq!(Lags::default().pick(0.99), 0);
    }

    fn pick_sorted(lags: &[i64], q: f64) -> i64 {
        lags[((lags.len() as f64 - 1.0) * q).round() as usize]
    }

    #[test]
    fn frames_line_up_and_losses_and_repeats_are_counted() {
        let sent = vec![f("a"), f("b"), f("a"), f("c"), f("d")];
        assert_eq!(compare(&sent, &sent), (0, 0));
        assert_eq!(compare(&sent, &[f("a"), f("b"), f("a")]), (2, 0));
        assert_eq!(compare(&sent, &[f("a"), f("a"), f("c"), f("d")]), (1, 0));
        assert_eq!(
            compare(&sent, &[f("a"), f("b"), f("b"), f("a"), f("c"), f("d")]),
            (0, 1)
        );
        assert_eq!(
            compare(&sent, &[f("a"), f("b"), f("x"), f("a"), f("c"), f("d")]),
            (0, 1)
        );
        // Where: the frames lost by their place in what was sent, the extra ones by their
        // place on record.
        let alignment = align(&sent, &[f("a"), f("x"), f("a"), f("d")]);
        assert_eq!(alignment.lost, vec![1, 3]);
        assert_eq!(alignment.duplicated, vec![1]);
    }
}
