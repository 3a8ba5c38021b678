//! `pitwatch monitor --config pit.toml [--db FILE]`: watches every table of a pit, records
//! everything, and prints rounds and incidents as they happen. Ctrl-C stops it cleanly: the
//! readers stop, the ends of the sessions are recorded, everything is flushed. A change of the
//! pit definition's file is applied while it runs ([`reload`]).

mod reload;

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{bail, Context};
use clap::Args;
use pitwatch_recording::liveness::{duration_words, AlarmKind, Change};
use pitwatch_recording::monitor::{
    LinkState, Monitor, MonitorEvent, MonitorOptions, MonitoredTable, RecordingState, SpoolLimits,
};
use pitwatch_recording::pit::PitConfig;
use pitwatch_recording::record::{self, Installation};
use pitwatch_recording::recorder::{clock_time, Derived};
use pitwatch_rules::TableOutput as Output;
use pitwatch_transport::SystemClock;

/// Arguments of `pitwatch monitor`.
#[derive(Debug, Args)]
pub struct MonitorArgs {
    /// The pit definition (TOML): the site and each table's game, rule book, device and link.
    #[arg(long)]
    config: PathBuf,
    /// The database to record into (created if missing).
    #[arg(long, default_value = "pitwatch.db")]
    db: PathBuf,
    /// Print every table event too, not only rounds and incidents.
    #[arg(long)]
    events: bool,
    /// While the database cannot be written, what arrives waits in memory up to this many MB...
    #[arg(long, default_value_t = 64)]
    spool_memory_mb: u64,
    /// ...then in a spool file beside the database up to this many MB (0: none); beyond both,
    /// bytes are dropped, counted, and recorded as an incident once writing resumes.
    #[arg(long, default_value_t = 1024)]
    spool_file_mb: u64,
}

/// Runs `pitwatch monitor`.
pub fn run(args: MonitorArgs) -> anyhow::Result<ExitCode> {
    let text = std::fs::read_to_string(&args.config)
        .with_context(|| format!("cannot read {}", args.config.display()))?;
    // A table whose section is wrong is disabled with its problems; the others run.
    let pit =
        PitConfig::load(&text).map_err(|e| anyhow::anyhow!("{}: {e}", args.config.display()))?;
    print_disabled(&pit);
    if pit.tables.is_empty() {
        bail!(
            "{}: no table can run ({} disabled)",
            args.config.display(),
            pit.disabled.len()
        );
    }
    let mut tables = Vec::new();
    for table in &pit.tables {
        match MonitoredTable::from_config(table.clone()) {
            Some(monitored) => tables.push(monitored),
            None => bail!(
                "table {}: simulated tables run only in the desktop app's demo pit",
                table.name
            ),
        }
    }
    // The record is verified (quickly: everything but re-hashing every row) before anything is
    // added to it; a record that fails is kept as evidence and recording goes on in a new
    // segment beside it. `pitwatch verify` checks every row.
    let installation = Installation::from_env().witnessed_in(pit.record.witness.clone());
    let opened = record::open_for_recording(&installation, &args.db)
        .with_context(|| format!("cannot open {}", args.db.display()))?;
    for failure in &opened.failures {
        errln!("CRITICAL: {}", failure.message());
    }
    for warning in opened.exposed() {
        errln!("WARNING: {warning}");
    }
    let db = opened.path.clone();
    let mut store = opened.store;
    pitwatch_recording::report::record_site(&mut store, &pit.site, crate::now())?;
    outln!(
        "record {} verified intact at start-up (signed by key {}); recording into it",
        db.display(),
        installation.fingerprint().unwrap_or_else(|| "-".into())
    );
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    ctrlc::set_handler(move || flag.store(true, Ordering::SeqCst))
        .context("cannot install the Ctrl-C handler")?;
    // SIGHUP (`systemctl reload`, `kill -HUP`) reads the pit definition again at once, as a
    // change of the file's modification time does within seconds.
    let hangup = Arc::new(AtomicBool::new(false));
    #[cfg(unix)]
    signal_hook::flag::register(signal_hook::consts::SIGHUP, hangup.clone())
        .context("cannot install the SIGHUP handler")?;
    // SIGTERM (`kill`, a service manager's default, a shutdown) stops in order too, as Ctrl-C
    // does: every table's session closed and the record flushed, not cut off mid-write.
    #[cfg(unix)]
    signal_hook::flag::register(signal_hook::consts::SIGTERM, stop.clone())
        .context("cannot install the SIGTERM handler")?;
    let options = MonitorOptions {
        spool: SpoolLimits {
            memory: usize::try_from(args.spool_memory_mb.saturating_mul(1 << 20))
                .unwrap_or(usize::MAX),
            file: args.spool_file_mb.saturating_mul(1 << 20),
        },
        clock_limits: pit.clock.limits(),
        ..MonitorOptions::default()
    };
    let (mut monitor, events) = Monitor::start_with(store, tables, Arc::new(SystemClock), options)?;
    let mut running = pit.clone();
    let mut watcher = reload::Watcher::new(&args.config);
    // Replication to the central database runs beside recording, on its own connection: the
    // record never waits for the network.
    let replicator = match &pit.central {
        Some(central) => {
            let url = central.url().map_err(|e| anyhow::anyhow!("{e}"))?;
            let id = pitwatch_sync::Identity {
                site: central.site.clone(),
                workstation: central.workstation.clone(),
            };
            outln!(
                "replicating to {} as {id}; alert when more than {} s behind",
                pitwatch_sync::redact(&url),
                central.alert_after_s
            );
            Some(crate::central::replicate(
                url,
                db.clone(),
                id,
                Duration::from_millis(250),
                Duration::from_secs(central.alert_after_s),
            )?)
        }
        None => None,
    };
    let mut degraded = false;
    outln!(
        "monitoring {} table(s) of {} into {}; Ctrl-C to stop, SIGHUP to reload the pit definition",
        pit.tables.len(),
        pit.site.name,
        db.display()
    );
    let mut failed = false;
    // Whoever reads the output may go away (`| head`): then the monitor stops in order.
    while !stop.load(Ordering::SeqCst) && !crate::out::closed() {
        let asked = hangup.swap(false, Ordering::SeqCst);
        if asked {
            outln!(
                "SIGHUP: reading the pit definition {} again",
                args.config.display()
            );
        }
        if watcher.changed() || asked {
            watcher.seen();
            running = reload::reload(&mut monitor, &running, &args.config);
        }
        match events.recv_timeout(Duration::from_millis(200)) {
            Ok(event) => {
                if let MonitorEvent::Recording(state) = &event {
                    degraded = state.degraded;
                }
                failed |= print(&event, args.events);
            }
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break,
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
        }
    }
    if degraded {
        errln!("stopping while recording is degraded: what waits is written now, or kept in the spool file for the next start");
    }
    outln!("stopping…");
    if let Some(replicator) = replicator {
        replicator.stop();
    }
    if let Err(error) = monitor.stop() {
        errln!("FAILED monitor: {error}");
        failed = true;
    }
    for event in events.try_iter() {
        failed |= print(&event, args.events);
    }
    if failed {
        outln!(
            "stopped after a failure; everything before it is on record in {}",
            db.display()
        );
    } else {
        outln!("stopped; everything is on record in {}", db.display());
    }
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// Prints each disabled table of `pit` with its problems.
fn print_disabled(pit: &PitConfig) {
    for disabled in &pit.disabled {
        errln!(
            "table {} (line {}) DISABLED: {} problem(s)",
            if disabled.name.is_empty() {
                format!("{}", disabled.index)
            } else {
                disabled.name.clone()
            },
            disabled.line,
            disabled.problems.len()
        );
        for problem in &disabled.problems {
            errln!("  - {problem}");
        }
    }
}

/// Prints one event; returns whether it reports a failure.
fn print(event: &MonitorEvent, all_events: bool) -> bool {
    match event {
        MonitorEvent::Link {
            table,
            device,
            state,
            detail,
            at,
        } => {
            let state = match state {
                LinkState::Connected => "connected",
                LinkState::Disconnected => "disconnected",
                LinkState::Retrying => "cannot connect, retrying",
            };
            // A table's other devices are named after it: BAC-1#2 is its second device.
            let table = if *device == 0 {
                table.clone()
            } else {
                format!("{table}#{}", device + 1)
            };
            outln!("{at}  {table:<10} {state}: {detail}");
            false
        }
        // Where the table stands is for screens; the console prints what happened.
        MonitorEvent::View { .. } => false,
        MonitorEvent::Witness(journals) => {
            for journal in journals {
                match &journal.error {
                    Some(error) => errln!(
                        "WARNING checkpoint journal {}: {error}; recording goes on",
                        journal.path.display()
                    ),
                    None => outln!(
                        "checkpoint journal {} written again",
                        journal.path.display()
                    ),
                }
            }
            false
        }
        MonitorEvent::Failed {
            table: Some(table),
            message,
        } => {
            errln!("FAILED {table}: {message}");
            true
        }
        MonitorEvent::Failed {
            table: None,
            message,
        } => {
            errln!("WARNING monitor: {message}");
            false
        }
        MonitorEvent::Recording(state) => {
            print_recording(state);
            false
        }
        MonitorEvent::Clock(state) => {
            let line = pitwatch_recording::clock::report_line(Some((
                &state.sample,
                state.sample.at.to_string(),
            )));
            match &state.alert {
                Some(alert) => errln!("WARNING {alert} Host clock: {line}"),
                None => outln!("host clock: {line}"),
            }
            false
        }
        MonitorEvent::Missed { count } => {
            errln!("WARNING monitor: {count} event(s) were recorded but not printed (the console fell behind)");
            false
        }
        MonitorEvent::Derived { table, derived } => {
            match derived {
                Derived::Event(event) if all_events => {
                    outln!("{table:<10} {}", crate::safe::json(&event, false))
                }
                Derived::Frame {
                    accepted: false,
                    reason,
                } => outln!(
                    "{table:<10} frame rejected: {}",
                    reason.as_deref().unwrap_or("")
                ),
                Derived::Output { output, incident } => match output {
                    Output::Round(round) => {
                        outln!("{table:<10} {}", pitwatch_api::games::round_line(round));
                    }
                    Output::Irregularity(i) => {
                        outln!(
                            "{table:<10} INCIDENT {}: {} [{}] rule {} shoe {} round {} seq {}",
                            incident.map_or_else(|| "?".into(), |id| id.0.to_string()),
                            i.code,
                            i.severity,
                            i.rule,
                            i.shoe,
                            i.round.map_or_else(|| "-".into(), |r| r.to_string()),
                            i.seq,
                        );
                        outln!("           {}", i.message);
                    }
                    Output::Shoe(s) => outln!(
                        "{table:<10} shoe {} ended: {} rounds, {} cards{}",
                        s.shoe,
                        s.rounds,
                        s.cards,
                        if s.partial { " (partial)" } else { "" }
                    ),
                    Output::DeviceErrorCleared(c) => {
                        outln!("{table:<10} device error {} cleared", c.code);
                    }
                },
                Derived::Repeated {
                    output: Output::Irregularity(i),
                    incident,
                    count,
                } => {
                    outln!(
                        "{table:<10} {} again (seq {}): counted on incident {} ({count} in all)",
                        i.code,
                        i.seq,
                        incident.0
                    );
                }
                Derived::Shuffle(s) => {
                    outln!(
                        "{table:<10} shoe {} shuffle: {}",
                        s.shoe,
                        s.analysis.label()
                    );
                }
                Derived::Gap { bytes, incident } => {
                    outln!(
                        "{table:<10} INCIDENT {}: RECORDING_GAP [critical] {bytes} bytes from the device could not be recorded (the spool was full)",
                        incident.map_or_else(|| "?".into(), |id| id.0.to_string()),
                    );
                }
                Derived::Liveness {
                    device,
                    change,
                    incident,
                } => {
                    let id = incident.map_or_else(|| "?".into(), |id| id.0.to_string());
                    outln!("{table:<10} {}", liveness_line(*device, change, &id));
                }
                Derived::DeviceIdentified {
                    device,
                    hello: Some(h),
                    ..
                } => {
                    outln!(
                        "{table:<10} DEVICE {}: {}",
                        device + 1,
                        crate::safe::text(&format!(
                            "{} {} serial {} firmware {}",
                            h.make, h.model, h.serial, h.firmware
                        ))
                    );
                }
                Derived::DeviceChanged {
                    code,
                    severity,
                    message,
                    incident,
                    ..
                } => {
                    outln!(
                        "{table:<10} INCIDENT {}: {code} [{severity}] {}",
                        incident.map_or_else(|| "?".into(), |id| id.0.to_string()),
                        crate::safe::text(message)
                    );
                }
                _ => {}
            }
            false
        }
    }
}

/// A device's liveness alarm, raised or cleared, in one line.
fn liveness_line(device: usize, change: &Change, incident: &str) -> String {
    let state = |kind: AlarmKind| match kind {
        AlarmKind::NeverConnected => "never connected",
        AlarmKind::Offline => "offline",
        AlarmKind::Silent => "silent",
    };
    match change {
        Change::Raised(alarm) => format!(
            "INCIDENT {incident}: {} [high] device {} {} since {} UTC (threshold {})",
            alarm.kind.code(),
            device + 1,
            state(alarm.kind),
            clock_time(alarm.since),
            duration_words(alarm.threshold_ms)
        ),
        Change::Cleared {
            alarm,
            at,
            duration_ms,
        } => format!(
            "device {} back at {} UTC after {} ({} since {} UTC; incident {incident})",
            device + 1,
            clock_time(*at),
            duration_words(*duration_ms),
            state(alarm.kind),
            clock_time(alarm.since)
        ),
    }
}

/// Says on stderr whether everything is being recorded.
fn print_recording(state: &RecordingState) {
    let since = state
        .since
        .map_or_else(String::new, |t| format!(" since {t}"));
    if state.degraded {
        errln!(
            "RECORDING DEGRADED{since}: {}; {} bytes ({} inputs) waiting, {} of them in the spool file, {} dropped, {} failed attempts",
            state.reason,
            state.backlog_bytes,
            state.backlog_inputs,
            state.spooled_bytes,
            state.dropped_bytes,
            state.attempts
        );
    } else if state.since.is_some() {
        errln!(
            "recording recovered: the backlog is written ({}{since}; {} bytes dropped, each loss recorded as an incident)",
            state.reason,
            state.dropped_bytes
        );
    } else {
        errln!(
            "WARNING monitor: {} bytes dropped ({}); each loss is recorded as an incident",
            state.dropped_bytes,
            state.reason
        );
    }
}
