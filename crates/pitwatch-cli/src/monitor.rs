//! `pitwatch monitor --config pit.toml [--db FILE]`: watches every table of a pit, records
//! everything, and prints rounds and incidents as they happen. Ctrl-C stops it cleanly: the
//! readers stop, the ends of the sessions are recorded, everything is flushed.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{bail, Context};
use clap::Args;
use pitwatch_api::monitor::{LinkState, Monitor, MonitorEvent, MonitoredTable};
use pitwatch_api::pit::PitConfig;
use pitwatch_api::record::{self, Installation};
use pitwatch_api::recorder::Derived;
use pitwatch_rules::Output;
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
}

/// Runs `pitwatch monitor`.
pub fn run(args: MonitorArgs) -> anyhow::Result<ExitCode> {
    let text = std::fs::read_to_string(&args.config)
        .with_context(|| format!("cannot read {}", args.config.display()))?;
    let pit = PitConfig::from_toml(&text)
        .map_err(|e| anyhow::anyhow!("{}: {e}", args.config.display()))?;
    let mut tables = Vec::new();
    for table in &pit.tables {
        match &table.link {
            Some(link) => tables.push(MonitoredTable {
                config: table.clone(),
                link: link.clone(),
            }),
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
        eprintln!("CRITICAL: {}", failure.message());
    }
    let db = opened.path.clone();
    let mut store = opened.store;
    store.set_meta("site", &pit.site.name, crate::now())?;
    println!(
        "record {} verified intact at start-up (signed by key {}); recording into it",
        db.display(),
        installation.fingerprint().unwrap_or_else(|| "-".into())
    );
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    ctrlc::set_handler(move || flag.store(true, Ordering::SeqCst))
        .context("cannot install the Ctrl-C handler")?;
    let (monitor, events) = Monitor::start(store, tables, Arc::new(SystemClock))?;
    println!(
        "monitoring {} table(s) of {} into {}; Ctrl-C to stop",
        pit.tables.len(),
        pit.site.name,
        db.display()
    );
    let mut failed = false;
    while !stop.load(Ordering::SeqCst) {
        match events.recv_timeout(Duration::from_millis(200)) {
            Ok(event) => {
                failed |= print(&event, args.events);
                if matches!(event, MonitorEvent::Failed { table: None, .. }) {
                    // The record can no longer be written: monitoring on would show what is
                    // not on record.
                    break;
                }
            }
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break,
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
        }
    }
    println!("stopping…");
    if let Err(error) = monitor.stop() {
        eprintln!("FAILED monitor: {error}");
        failed = true;
    }
    for event in events.try_iter() {
        failed |= print(&event, args.events);
    }
    if failed {
        println!(
            "stopped after a failure; everything before it is on record in {}",
            db.display()
        );
    } else {
        println!("stopped; everything is on record in {}", db.display());
    }
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// Prints one event; returns whether it reports a failure.
fn print(event: &MonitorEvent, all_events: bool) -> bool {
    match event {
        MonitorEvent::Link {
            table,
            state,
            detail,
            at,
        } => {
            let state = match state {
                LinkState::Connected => "connected",
                LinkState::Disconnected => "disconnected",
                LinkState::Retrying => "cannot connect, retrying",
            };
            println!("{at}  {table:<10} {state}: {detail}");
            false
        }
        // Where the table stands is for screens; the console prints what happened.
        MonitorEvent::View { .. } => false,
        MonitorEvent::Witness(journals) => {
            for journal in journals {
                match &journal.error {
                    Some(error) => eprintln!(
                        "WARNING checkpoint journal {}: {error}; recording goes on",
                        journal.path.display()
                    ),
                    None => println!(
                        "checkpoint journal {} written again",
                        journal.path.display()
                    ),
                }
            }
            false
        }
        MonitorEvent::Failed { table, message } => {
            eprintln!(
                "FAILED {}: {message}",
                table.as_deref().unwrap_or("monitor")
            );
            true
        }
        MonitorEvent::Derived { table, derived } => {
            match derived {
                Derived::Event(event) if all_events => {
                    println!("{table:<10} {}", event.to_json_line())
                }
                Derived::Frame {
                    accepted: false,
                    reason,
                } => println!(
                    "{table:<10} frame rejected: {}",
                    reason.as_deref().unwrap_or("")
                ),
                Derived::Output { output, incident } => match output {
                    Output::Round(r) => {
                        let hand = |cards: &[Option<pitwatch_model::Card>]| {
                            cards
                                .iter()
                                .map(|c| c.map_or_else(|| "??".to_owned(), |c| c.to_string()))
                                .collect::<Vec<_>>()
                                .join(" ")
                        };
                        println!(
                            "{table:<10} shoe {} round {:>2}: P [{}] {}  B [{}] {}  {}",
                            r.shoe,
                            r.round,
                            hand(r.player.cards()),
                            r.player_total.map_or_else(|| "?".into(), |t| t.to_string()),
                            hand(r.banker.cards()),
                            r.banker_total.map_or_else(|| "?".into(), |t| t.to_string()),
                            r.outcome.map_or("unknown", |o| o.as_str()),
                        );
                    }
                    Output::Irregularity(i) => {
                        println!(
                            "{table:<10} INCIDENT {}: {} [{}] rule {} shoe {} round {} seq {}\n           {}",
                            incident.map_or_else(|| "?".into(), |id| id.0.to_string()),
                            i.code,
                            i.severity,
                            i.rule,
                            i.shoe,
                            i.round.map_or_else(|| "-".into(), |r| r.to_string()),
                            i.seq,
                            i.message
                        );
                    }
                    Output::Shoe(s) => println!(
                        "{table:<10} shoe {} ended: {} rounds, {} cards{}",
                        s.shoe,
                        s.rounds,
                        s.cards,
                        if s.partial { " (partial)" } else { "" }
                    ),
                    Output::DeviceErrorCleared(c) => {
                        println!("{table:<10} device error {} cleared", c.code);
                    }
                },
                _ => {}
            }
            false
        }
    }
}
