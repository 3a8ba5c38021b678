//! `pitwatch import`: ingests a capture file into a record as if it had arrived live, through the
//! screen the live reader applies first (`capture.rs`: a line that could carry a deck's order is
//! withheld before anything keeps it) and the same recorder (codec, engine, store) that live
//! monitoring uses.
//!
//! A raw capture has bytes but no times. Line-based protocols (barcode, Pitwatch) are fed a line
//! at a time and Angel Eye captures in 4 KiB chunks, each stamped `--pace-ms` after the one
//! before, starting now; the codecs' time-based rules (the barcode repeat window) then see the
//! capture as a dealer's pace rather than all at once. An event file's events keep their own `at`
//! times; those without one count as received at the moment of import.

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context};
use clap::{Args, ValueEnum};
use pitwatch_games::book_text;
use pitwatch_games::GameBook;
use pitwatch_model::Timestamp;
use pitwatch_protocols::ProtocolConfig;
use pitwatch_recording::lease::Holder;
use pitwatch_recording::record::Installation;
use pitwatch_recording::recorder::{Derived, TableRecorder};
use pitwatch_rules::TableOutput as Output;
use pitwatch_store::Store;

use crate::capture::Screened;

/// What a capture file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CaptureFormat {
    /// Raw bytes from an Angel Eye II-EX shoe.
    AngelEye,
    /// Raw bytes from a barcode card-reader shoe.
    Barcode,
    /// Raw bytes in the Pitwatch open protocol.
    Pitwatch,
    /// A table event file (JSON Lines, docs/events.md).
    Events,
}

/// Arguments of `pitwatch import`.
#[derive(Debug, Args)]
pub struct ImportArgs {
    /// The Pitwatch database (created if missing).
    #[arg(long)]
    db: PathBuf,
    /// The table the capture was taken at (created if new).
    #[arg(long)]
    table: String,
    /// What the capture holds.
    #[arg(long, value_enum)]
    format: CaptureFormat,
    /// The rule book for a new table: a built-in name or a path.
    #[arg(long, default_value = "nz-baccarat")]
    rules: String,
    /// The site's name, for reports (kept in the record).
    #[arg(long)]
    site: Option<String>,
    /// Milliseconds between successive chunks of the capture.
    #[arg(long, default_value_t = 500)]
    pace_ms: i64,
    /// The capture file.
    capture: PathBuf,
}

/// Runs `pitwatch import`.
pub fn run(args: ImportArgs) -> anyhow::Result<ExitCode> {
    // The table runs the engine of its book's game (Baccarat, Blackjack or Pontoon).
    let book = pitwatch_games::load_game_book(&args.rules).map_err(|e| anyhow::anyhow!("{e}"))?;
    let mut bytes = Vec::new();
    File::open(&args.capture)
        .and_then(|f| BufReader::new(f).read_to_end(&mut bytes))
        .with_context(|| format!("cannot read {}", args.capture.display()))?;
    let start = crate::now();
    let mut store = Installation::from_env()
        .open(&args.db)
        .with_context(|| format!("cannot open {}", args.db.display()))?;
    if let Some(site) = &args.site {
        store.set_meta("site", site, start)?;
    }
    // One writer per table: a table a monitor (or another import) records is refused, naming
    // who records it; otherwise it is ours until the import ends.
    let holder = Holder::this_process("pitwatch import");
    holder.acquire(&mut store, std::slice::from_ref(&args.table), start)?;
    let outcome = import_leased(&args, book, &bytes, &mut store, start);
    let _ = store.release_leases(&holder.process);
    holder.retire();
    outcome
}

fn import_leased(
    args: &ImportArgs,
    book: GameBook,
    bytes: &[u8],
    store: &mut Store,
    start: Timestamp,
) -> anyhow::Result<ExitCode> {
    let protocol = match args.format {
        CaptureFormat::AngelEye => ProtocolConfig::by_name("angel-eye"),
        CaptureFormat::Barcode => ProtocolConfig::by_name("barcode"),
        CaptureFormat::Pitwatch => ProtocolConfig::by_name("pitwatch"),
        CaptureFormat::Events => None,
    };
    let mut recorder = TableRecorder::resume(
        store,
        &args.table,
        book.game(),
        book,
        book_text(&args.rules).as_deref(),
        protocol,
        start,
    )?;
    let port = format!("import:{}", args.capture.display());
    let mut derived = Vec::new();
    let session = recorder.connect(store, &port, Default::default(), start)?;
    match protocol {
        Some(protocol) => {
            let chunks = split(bytes, args.format);
            let mut batch = store.batch(start)?;
            // Through the screen the live reader applies first, so the record keeps no byte a
            // live recording would not (a deck's order), and judges the rest alike.
            let mut screened = Screened::new(&protocol);
            for (i, chunk) in chunks.iter().enumerate() {
                let at = at_offset(start, i as i64 * args.pace_ms)?;
                let kept = screened.chunk(chunk);
                if !kept.is_empty() {
                    recorder.ingest(&mut batch, at, &kept, &mut derived)?;
                }
            }
            let end = at_offset(start, chunks.len() as i64 * args.pace_ms)?;
            let rest = screened.finish();
            if !rest.is_empty() {
                recorder.ingest(&mut batch, end, &rest, &mut derived)?;
            }
            recorder.disconnect(&mut batch, end, &mut derived)?;
            batch.end_session(session, end, "end of capture")?;
            batch.commit()?;
        }
        None => {
            let events = pitwatch_model::read_events(bytes)
                .with_context(|| format!("{} is not a valid event file", args.capture.display()))?;
            let mut batch = store.batch(start)?;
            for event in &events {
                // Events carry their own time when the file has one; otherwise they count as
                // received now.
                let at = event.at.unwrap_or(start);
                recorder.ingest_event(&mut batch, event.clone(), at, &mut derived)?;
            }
            recorder.disconnect(&mut batch, start, &mut derived)?;
            batch.end_session(session, start, "end of event file")?;
            batch.commit()?;
        }
    }
    summarise(args, &derived);
    Ok(ExitCode::SUCCESS)
}

fn at_offset(start: Timestamp, ms: i64) -> anyhow::Result<Timestamp> {
    match Timestamp::from_unix_millis(start.unix_millis().saturating_add(ms)) {
        Some(at) => Ok(at),
        None => bail!("--pace-ms takes the capture's times out of range"),
    }
}

/// Splits a capture into the chunks fed to the codec: lines for line-based protocols.
fn split(bytes: &[u8], format: CaptureFormat) -> Vec<&[u8]> {
    match format {
        CaptureFormat::Barcode | CaptureFormat::Pitwatch => bytes
            .split_inclusive(|b| *b == b'\r' || *b == b'\n')
            .collect(),
        CaptureFormat::AngelEye | CaptureFormat::Events => bytes.chunks(4096).collect(),
    }
}

fn summarise(args: &ImportArgs, derived: &[Derived]) {
    let mut accepted = 0;
    let mut rejected = Vec::new();
    let mut events = 0;
    let mut rounds = 0;
    let mut incidents = Vec::new();
    // Incidents about the device or the recording rather than the game: identity, lost bytes.
    let mut others: Vec<(Option<i64>, &str, &str, String)> = Vec::new();
    for item in derived {
        match item {
            Derived::Frame { accepted: true, .. } => accepted += 1,
            Derived::Frame { reason, .. } => rejected.push(reason.clone().unwrap_or_default()),
            Derived::Event(_) => events += 1,
            Derived::Output {
                output: Output::Round(_),
                ..
            } => rounds += 1,
            Derived::Output {
                output: Output::Irregularity(irregularity),
                incident,
            } => incidents.push((incident.map(|i| i.0), irregularity.clone())),
            Derived::DeviceChanged {
                code,
                severity,
                message,
                incident,
                ..
            } => others.push((incident.map(|i| i.0), code, severity, message.clone())),
            Derived::Gap { bytes, incident } => others.push((
                incident.map(|i| i.0),
                pitwatch_recording::recorder::RECORDING_GAP,
                "critical",
                format!("{bytes} bytes from the device could not be recorded"),
            )),
            Derived::Output { .. }
            | Derived::Repeated { .. }
            | Derived::Liveness { .. }
            | Derived::DeviceIdentified { .. }
            | Derived::Shuffle(_) => {}
        }
    }
    outln!(
        "{} -> {} table {}: {accepted} frames accepted, {} rejected, {events} events, {rounds} rounds, {} incidents",
        args.capture.display(),
        args.db.display(),
        args.table,
        rejected.len(),
        incidents.len() + others.len()
    );
    for reason in rejected {
        outln!("  rejected: {reason}");
    }
    for (id, irregularity) in incidents {
        let round = irregularity
            .round
            .map_or_else(|| "-".to_owned(), |r| r.to_string());
        outln!(
            "  incident {}: {} ({}) shoe {} round {round}, seq {}: {}",
            id.map_or_else(|| "?".into(), |i| i.to_string()),
            irregularity.code,
            irregularity.severity,
            irregularity.shoe,
            irregularity.seq,
            irregularity.message
        );
    }
    for (id, code, severity, message) in others {
        outln!(
            "  incident {}: {code} ({severity}): {message}",
            id.map_or_else(|| "?".into(), |i| i.to_string()),
        );
    }
}
