//! `pitwatch replay FILE --rules BOOK [--json]`: replays a table event file through the rules
//! engine and prints what it saw: one line per round and a block per irregularity, or JSON Lines.
//!
//! With `--format angel-eye|barcode|pitwatch` the file is a raw capture (bytes exactly as a device
//! sent them): it is read as the live reader reads it (through the protocol's screen, so a line
//! that could carry a deck's order is withheld and raised as `ORDER_DISCLOSED`; `capture.rs`),
//! decoded with the protocol's decoder, the events go through the engine, and every rejected
//! frame is reported too, in stream order. A raw capture has no times, so (as
//! `pitwatch import` does) line-based protocols are fed a line at a time and Angel Eye in 4 KiB
//! chunks, each `--pace-ms` after the one before; a barcode scanner's repeated code therefore
//! counts as a rescan only if it came within the repeat window live, which a capture cannot tell.
//!
//! The whole file is read and checked before anything is printed, so an unusable file (exit 2)
//! never leaves half a report on stdout. Irregularities are findings, not failures: a replay that
//! runs to the end exits 0.

use std::fs::File;
use std::io::{self, BufReader, BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Args, ValueEnum};
use pitwatch_baccarat::{Engine, LoadError, Output, RuleBook};
use pitwatch_model::jsonl::EventReader;
use pitwatch_model::{EventFileError, TableEvent, Timestamp};
use pitwatch_protocols::{DecodeOutput, ProtocolConfig, Rejection};
use pitwatch_shuffle::{ShoeShuffle, ShuffleWatch};

use crate::capture::Screened;

/// Arguments of `pitwatch replay`.
#[derive(Debug, Args)]
#[command(group = clap::ArgGroup::new("source").required(true).args(["file", "db", "central"]))]
#[command(group = clap::ArgGroup::new("record").args(["db", "central"]))]
pub struct ReplayArgs {
    /// The table event file (JSON Lines, one event per line), or a raw capture with `--format`.
    file: Option<PathBuf>,
    /// Replay from a Pitwatch database instead: the table's raw bytes re-decoded and re-run.
    #[arg(long, requires = "table", conflicts_with_all = ["file", "rules", "format"])]
    db: Option<PathBuf>,
    /// Or replay from the central database's copy of a workstation's record.
    #[command(flatten)]
    source: crate::central::CentralSource,
    /// With --db: the table.
    #[arg(long, requires = "record")]
    table: Option<String>,
    /// With --db: the shoe (1-based; default: the shoe in play at --at, or the last shoe).
    #[arg(long, requires = "record")]
    shoe: Option<u32>,
    /// With --db: the shoe in play at this time (RFC 3339).
    #[arg(long, requires = "record", conflicts_with = "shoe")]
    at: Option<Timestamp>,
    /// With --db: print every event with the table as it stood after it.
    #[arg(long, requires = "record")]
    steps: bool,
    /// What the file holds: a table event file, or a raw capture in a device protocol.
    #[arg(long, value_enum, default_value = "events")]
    format: ReplayFormat,
    /// For a raw capture: milliseconds between successive chunks (lines) of the capture.
    #[arg(long, default_value_t = 500)]
    pace_ms: i64,
    /// The rule book: a built-in id (nz-baccarat, nz-baccarat-continuous, macau-baccarat,
    /// nz-blackjack, nz-pontoon, nz-poker) or the path of a rule book TOML file.
    #[arg(long, value_name = "BOOK", required_unless_present_any = ["db", "central"])]
    rules: Option<String>,
    /// With a poker book: the variant dealt (texas_holdem, draw, five_card_stud,
    /// seven_card_stud; default the book's).
    #[arg(long, requires = "rules")]
    variant: Option<String>,
    /// Print JSON Lines (one object per round, irregularity and shoe) instead of text.
    #[arg(long)]
    json: bool,
}

/// What a replayed file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReplayFormat {
    /// A table event file (JSON Lines, docs/events.md).
    Events,
    /// Raw bytes from an Angel Eye II-EX shoe.
    AngelEye,
    /// Raw bytes from a barcode card-reader shoe.
    Barcode,
    /// Raw bytes in the Pitwatch open protocol.
    Pitwatch,
}

/// One thing to replay: an event, or bytes a decoder rejected (consecutive rejections of the
/// same kind are one item: how many, and how many bytes in all; the first piece's bytes, up to
/// [`SHOWN_BYTES`], are shown).
pub(crate) enum Item {
    Event(TableEvent),
    Rejected {
        first: Rejection,
        pieces: u64,
        bytes: u64,
    },
}

/// Reads the event file, or with `protocol` the raw capture, at `path` whole (a file that does
/// not read is refused before anything is printed) and hands its items to `write`, which replays
/// them under a game's book: what `replay FILE --rules` does for every game on the game seam.
pub(crate) fn run_game_file(
    path: &std::path::Path,
    protocol: Option<ProtocolConfig>,
    pace_ms: i64,
    write: impl FnOnce(Vec<Item>, &mut dyn Write) -> io::Result<()>,
) -> anyhow::Result<ExitCode> {
    let out = &mut crate::safe::Lines::new(io::stdout().lock());
    let items: Vec<Item> = match protocol {
        Some(protocol) => {
            let bytes =
                std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
            let Some(items) = decode_capture(&protocol, &bytes, pace_ms) else {
                errln!("error: --pace-ms takes the capture's times out of range");
                return Ok(ExitCode::from(2));
            };
            items.collect()
        }
        None => {
            let source =
                File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
            let mut items = Vec::new();
            for event in EventReader::new(BufReader::new(source)) {
                match event {
                    Ok(event) => items.push(Item::Event(event)),
                    Err(EventFileError::Io(e)) => {
                        return Err(e).with_context(|| format!("cannot read {}", path.display()));
                    }
                    Err(error) => {
                        errln!("{}: {error}", path.display());
                        return Ok(ExitCode::from(2));
                    }
                }
            }
            items
        }
    };
    finish(write(items, out))
}

/// Feeds `items` to a game's `engine`, writing what it outputs after each event with
/// `write_outputs` and each run of rejected bytes as [`write_rejection`] does, then finishes the
/// stream and writes the rest. Returns how many frames were rejected.
pub(crate) fn feed_game<G: pitwatch_rules::Game>(
    items: impl IntoIterator<Item = Item>,
    engine: &mut G,
    json: bool,
    out: &mut dyn Write,
    mut write_outputs: impl FnMut(&mut G, &mut dyn Write) -> io::Result<()>,
) -> io::Result<u64> {
    let mut rejected = 0u64;
    for item in items {
        match item {
            Item::Event(event) => {
                engine.handle_event(&event);
                write_outputs(engine, out)?;
            }
            Item::Rejected {
                first,
                pieces,
                bytes,
            } => {
                rejected += pieces;
                write_rejection(&first, pieces, bytes, json, out)?;
            }
        }
    }
    engine.finish();
    write_outputs(engine, out)?;
    Ok(rejected)
}

/// The most bytes of a run of rejected bytes a report shows.
const SHOWN_BYTES: usize = 256;

/// The most bytes handed to a decoder at once: a capture with no line end is decoded in pieces,
/// so its rejections never pile up in memory.
const PIECE: usize = 64 * 1024;

/// Runs `pitwatch replay`.
pub fn run(args: ReplayArgs) -> anyhow::Result<ExitCode> {
    if let (Some(db), Some(table)) = (&args.db, &args.table) {
        return crate::replay_record::run(db, table, args.shoe, args.at, args.steps, args.json);
    }
    if args.source.central.is_some() {
        let Some(table) = &args.table else {
            anyhow::bail!("give --table with --central");
        };
        let source = args.source.resolve(None)?;
        return crate::replay_record::run(
            &source.db, table, args.shoe, args.at, args.steps, args.json,
        );
    }
    let (Some(path), Some(rules)) = (&args.file, &args.rules) else {
        anyhow::bail!("give a FILE and --rules, or --db and --table");
    };
    if let Err(problem) = pitwatch_games::rule_book_file_ok(rules) {
        errln!("error: {problem}");
        return Ok(ExitCode::from(2));
    }
    // A poker book: the same file formats through the poker engine.
    match pitwatch_games::poker_file_book(rules, args.variant.as_deref()) {
        Some(Ok(book)) => {
            let protocol = protocol_of(args.format);
            return crate::replay_poker::run(&book, path, protocol, args.pace_ms, args.json);
        }
        Some(Err(problem)) => {
            errln!("error: {problem}");
            return Ok(ExitCode::from(2));
        }
        None if args.variant.is_some() => {
            errln!("error: --variant is for a poker rule book (nz-poker)");
            return Ok(ExitCode::from(2));
        }
        None => {}
    }
    // A Blackjack or Pontoon book: the same file formats through the Blackjack engine.
    match pitwatch_games::blackjack_file_book(rules) {
        Some(Ok(book)) => {
            let protocol = protocol_of(args.format);
            return crate::replay_game::run(&book, path, protocol, args.pace_ms, args.json);
        }
        Some(Err(problem)) => {
            errln!("error: {problem}");
            return Ok(ExitCode::from(2));
        }
        None => {}
    }
    let book = match pitwatch_games::load_baccarat(rules) {
        Ok(book) => book,
        Err(LoadError::Invalid { source_name, error }) => {
            errln!(
                "error: rule book {source_name} is invalid ({} problems):",
                error.problems.len()
            );
            for problem in &error.problems {
                errln!("  - {problem}");
            }
            return Ok(ExitCode::from(2));
        }
        Err(error) => {
            errln!("error: {error}");
            return Ok(ExitCode::from(2));
        }
    };
    let protocol = protocol_of(args.format);
    if let Some(protocol) = protocol {
        let bytes =
            std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
        let Some(items) = decode_capture(&protocol, &bytes, args.pace_ms) else {
            errln!("error: --pace-ms takes the capture's times out of range");
            return Ok(ExitCode::from(2));
        };
        return finish(write_items(
            &book,
            items,
            args.json,
            &mut crate::safe::Lines::new(io::stdout().lock()),
        ));
    }
    let source = File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let mut events = Vec::new();
    for event in EventReader::new(BufReader::new(source)) {
        match event {
            Ok(event) => events.push(event),
            Err(EventFileError::Io(e)) => {
                return Err(e).with_context(|| format!("cannot read {}", path.display()));
            }
            Err(error) => {
                errln!("{}: {error}", path.display());
                return Ok(ExitCode::from(2));
            }
        }
    }
    finish(write_replay(
        &book,
        &events,
        args.json,
        &mut crate::safe::Lines::new(io::stdout().lock()),
    ))
}

/// The decoder of a raw capture format (`None` for an event file).
fn protocol_of(format: ReplayFormat) -> Option<ProtocolConfig> {
    match format {
        ReplayFormat::Events => None,
        ReplayFormat::AngelEye => ProtocolConfig::by_name("angel-eye"),
        ReplayFormat::Barcode => ProtocolConfig::by_name("barcode"),
        ReplayFormat::Pitwatch => ProtocolConfig::by_name("pitwatch"),
    }
}

pub(crate) fn finish(written: io::Result<()>) -> anyhow::Result<ExitCode> {
    match written {
        Ok(()) => Ok(ExitCode::SUCCESS),
        // A reader that stops early (`| head`) is not an error.
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(ExitCode::SUCCESS),
        Err(e) => Err(e).context("cannot write the report"),
    }
}

/// Decodes a raw capture as a device stream starting at a fixed time, a chunk every `pace_ms`,
/// as the items come (nothing of the whole capture's decoding is held at once); `None` when the
/// times leave the representable range.
pub(crate) fn decode_capture<'a>(
    protocol: &ProtocolConfig,
    bytes: &'a [u8],
    pace_ms: i64,
) -> Option<impl Iterator<Item = Item> + 'a> {
    let line_based = !matches!(protocol, ProtocolConfig::AngelEye(_));
    let chunks = move || -> Box<dyn Iterator<Item = &'a [u8]> + 'a> {
        if line_based {
            Box::new(bytes.split_inclusive(|b| *b == b'\r' || *b == b'\n'))
        } else {
            Box::new(bytes.chunks(4096))
        }
    };
    // A fixed start keeps the replay of a capture the same whenever it runs.
    const START_MS: i64 = 1_796_025_600_000; // 2026-12-01T00:00:00Z
    let at = move |i: usize| {
        let ms = i64::try_from(i)
            .ok()?
            .checked_mul(pace_ms)?
            .checked_add(START_MS)?;
        Timestamp::from_unix_millis(ms)
    };
    let count = chunks().count();
    let end = at(count)?;
    let mut decoder = protocol.decoder(1);
    // The bytes as the live reader keeps them (its screen first), each chunk handed over a
    // piece at a time, its outputs merged before the next piece; what the screen still holds
    // comes at the end, as when a connection ends live.
    let mut screened = Screened::new(protocol);
    let mut chunks = chunks().enumerate();
    let mut kept: (usize, Vec<u8>, usize) = (0, Vec::new(), 0);
    let mut queue: std::collections::VecDeque<Item> = std::collections::VecDeque::new();
    let mut pending: Option<Item> = None;
    let mut finished = false;
    let mut outputs = Vec::new();
    Some(std::iter::from_fn(move || loop {
        if let Some(item) = queue.pop_front() {
            return Some(item);
        }
        if finished {
            return None;
        }
        outputs.clear();
        while kept.2 >= kept.1.len() {
            match chunks.next() {
                Some((i, chunk)) => kept = (i, screened.chunk(chunk).into_owned(), 0),
                None => break,
            }
        }
        if kept.2 < kept.1.len() {
            let (i, bytes, from) = &mut kept;
            let to = (*from + PIECE).min(bytes.len());
            decoder.push(&bytes[*from..to], at(*i)?, &mut outputs);
            *from = to;
        } else {
            let rest = screened.finish();
            for piece in rest.chunks(PIECE) {
                decoder.push(piece, end, &mut outputs);
            }
            decoder.finish(end, &mut outputs);
            finished = true;
        }
        for output in outputs.drain(..) {
            match output {
                DecodeOutput::Accepted(accepted) => {
                    queue.extend(pending.take());
                    queue.extend(accepted.events.into_iter().map(Item::Event));
                }
                DecodeOutput::Rejected(rejection) => match &mut pending {
                    Some(Item::Rejected {
                        first,
                        pieces,
                        bytes,
                    }) if first.kind == rejection.kind => {
                        *pieces += 1;
                        *bytes += rejection.bytes.len() as u64;
                        if first.bytes.len() < SHOWN_BYTES {
                            let room = SHOWN_BYTES - first.bytes.len();
                            let take = rejection.bytes.len().min(room);
                            first.bytes.extend_from_slice(&rejection.bytes[..take]);
                        }
                    }
                    _ => {
                        queue.extend(pending.take());
                        let bytes = rejection.bytes.len() as u64;
                        let mut first = rejection;
                        first.bytes.truncate(SHOWN_BYTES);
                        pending = Some(Item::Rejected {
                            first,
                            pieces: 1,
                            bytes,
                        });
                    }
                },
            }
        }
        if finished {
            queue.extend(pending.take());
        }
    }))
}

/// Replays `events` under `book` and writes the report to `out`.
fn write_replay(
    book: &RuleBook,
    events: &[TableEvent],
    json: bool,
    out: &mut impl Write,
) -> io::Result<()> {
    let items = events.iter().cloned().map(Item::Event);
    write_items(book, items, json, out)
}

/// Replays `items` under `book` and writes the report to `out`: rejections where they came in
/// the stream, engine outputs as the events produce them.
fn write_items(
    book: &RuleBook,
    items: impl IntoIterator<Item = Item>,
    json: bool,
    out: impl Write,
) -> io::Result<()> {
    let mut out = BufWriter::new(out);
    if !json {
        writeln!(
            out,
            "rule book {}: {}, {} (effective {})",
            book.id(),
            book.jurisdiction(),
            book.gazette(),
            book.effective()
        )?;
    }
    let mut engine = Engine::new(book.clone());
    // Shuffle integrity: each shoe judged when the next starts, the last when the stream ends.
    let mut watch = ShuffleWatch::new(book);
    let mut tally = Tally::default();
    let mut write_all =
        |engine: &mut Engine, judged: Option<ShoeShuffle>, out: &mut dyn Write| -> io::Result<()> {
            let mut judged = judged;
            while let Some(output) = engine.poll_output() {
                tally.count(&output);
                // The shoe's summary carries its shuffle analysis.
                let shuffle = match &output {
                    Output::Shoe(summary)
                        if judged.as_ref().is_some_and(|j| j.shoe == summary.shoe) =>
                    {
                        judged.take()
                    }
                    _ => None,
                };
                if let Some(irregularity) = shuffle.as_ref().and_then(|s| s.irregularity.clone()) {
                    tally.count(&Output::Irregularity(irregularity));
                }
                write_output(&output, shuffle.as_ref(), json, book, out)?;
            }
            // A shoe judged without a summary at this event (never, with the engine as it is).
            if let Some(j) = &judged {
                if let Some(irregularity) = j.irregularity.clone() {
                    tally.count(&Output::Irregularity(irregularity));
                }
                write_shuffle(j, json, out)?;
            }
            Ok(())
        };
    let mut rejected = 0u64;
    for item in items {
        match item {
            Item::Event(event) => {
                let shoe = engine.shoe();
                engine.handle_event(&event);
                watch.observe(&event);
                let judged = if engine.shoe() != shoe {
                    watch.shoe_started(engine.shoe(), event.seq)
                } else {
                    None
                };
                write_all(&mut engine, judged, &mut out)?;
            }
            Item::Rejected {
                first,
                pieces,
                bytes,
            } => {
                rejected += pieces;
                write_rejection(&first, pieces, bytes, json, &mut out)?;
            }
        }
    }
    engine.finish();
    let judged = watch.finish();
    write_all(&mut engine, judged, &mut out)?;
    if !json {
        tally.write(&mut out)?;
        if rejected > 0 {
            writeln!(out, "rejected: {rejected} frames")?;
        }
    }
    out.flush()
}

/// One rejected frame, or a run of `pieces` rejected the same way (`total` bytes, the first
/// [`SHOWN_BYTES`] shown): `{"type":"rejected","kind":…,"reason":…,"bytes":"hex"}` (with
/// `"pieces"` and `"length"` for a run) or a text line.
pub(crate) fn write_rejection(
    rejection: &Rejection,
    pieces: u64,
    total: u64,
    json: bool,
    out: &mut (impl Write + ?Sized),
) -> io::Result<()> {
    if json {
        let hex: String = rejection.bytes.iter().map(|b| format!("{b:02x}")).collect();
        let mut line = serde_json::json!({
            "type": "rejected",
            "kind": rejection.kind.as_str(),
            "reason": rejection.reason,
            "bytes": hex,
        });
        if pieces > 1 {
            line["pieces"] = pieces.into();
            line["length"] = total.into();
        }
        out.write_all(crate::safe::json(&line, false).as_bytes())?;
        writeln!(out)
    } else {
        let mut shown = String::new();
        for &b in &rejection.bytes {
            if (0x20..0x7f).contains(&b) && b != b'\\' {
                shown.push(b as char);
            } else {
                shown.push_str(&format!("\\x{b:02X}"));
            }
        }
        let run = if pieces > 1 {
            format!("  (and {} more like it: {total} bytes in all)", pieces - 1)
        } else {
            String::new()
        };
        writeln!(
            out,
            "xx REJECTED {}: {}  bytes: {shown}{run}",
            rejection.kind, rejection.reason
        )
    }
}

/// Writes one engine output; a shoe's summary with its shuffle analysis (`--json`: a `shuffle`
/// object in the summary), and after it the `SHUFFLE_SUSPECT` the analysis raised.
pub(crate) fn write_output(
    output: &Output,
    shuffle: Option<&ShoeShuffle>,
    json: bool,
    book: &RuleBook,
    out: &mut dyn Write,
) -> io::Result<()> {
    if json {
        let mut line = serde_json::to_value(output).map_err(io::Error::other)?;
        if let Some(shuffle) = shuffle {
            line["shuffle"] = shuffle_json(shuffle);
        }
        out.write_all(crate::safe::json(&line, false).as_bytes())?;
        writeln!(out)?;
    } else {
        write_text(output, book, out)?;
        if let Some(shuffle) = shuffle {
            write_shuffle_text(shuffle, out)?;
        }
    }
    if let Some(irregularity) = shuffle.and_then(|s| s.irregularity.clone()) {
        write_output(&Output::Irregularity(irregularity), None, json, book, out)?;
    }
    Ok(())
}

/// A shoe's shuffle analysis on its own line (`{"type":"shuffle",…}`).
fn write_shuffle(shuffle: &ShoeShuffle, json: bool, out: &mut dyn Write) -> io::Result<()> {
    if json {
        let mut line = shuffle_json(shuffle);
        line["type"] = "shuffle".into();
        line["shoe"] = shuffle.shoe.into();
        out.write_all(crate::safe::json(&line, false).as_bytes())?;
        writeln!(out)
    } else {
        write_shuffle_text(shuffle, out)
    }
}

/// The `shuffle` object: the analysis (`longest_preserved_run`, `preserved_pairs`,
/// `expected_pairs`, `p_run`, `p_pairs`, `p_value`, `verdict`, the block with its positions, the
/// riffle estimate, one comparison per previous shoe), its label, and whether it is provisional.
pub(crate) fn shuffle_json(shuffle: &ShoeShuffle) -> serde_json::Value {
    let mut value = serde_json::to_value(&shuffle.analysis).unwrap_or_default();
    value["label"] = shuffle.analysis.label().into();
    value["provisional"] = shuffle.provisional.into();
    value
}

/// `   shuffle: suspect: a block of 20 cards kept; longest preserved run 20 (cards …), p …`.
pub(crate) fn write_shuffle_text(shuffle: &ShoeShuffle, out: &mut dyn Write) -> io::Result<()> {
    if shuffle.analysis.verdict == pitwatch_shuffle::Verdict::NotCompared {
        return writeln!(out, "   shuffle: not compared");
    }
    writeln!(
        out,
        "   shuffle: {}{}; {}",
        shuffle.analysis.label(),
        if shuffle.provisional { " (so far)" } else { "" },
        shuffle.detail()
    )
}

/// Totals for the closing line of the text report.
#[derive(Default)]
struct Tally {
    shoes: u32,
    rounds: u32,
    by_code: std::collections::BTreeMap<&'static str, u32>,
}

impl Tally {
    fn count(&mut self, output: &Output) {
        match output {
            Output::Round(_) => self.rounds += 1,
            Output::Shoe(_) => self.shoes += 1,
            Output::Irregularity(i) => *self.by_code.entry(i.code.as_str()).or_default() += 1,
            Output::DeviceErrorCleared(_) => {}
        }
    }

    fn write(&self, out: &mut impl Write) -> io::Result<()> {
        let total: u32 = self.by_code.values().sum();
        let codes: Vec<String> = self
            .by_code
            .iter()
            .map(|(code, n)| format!("{n} {code}"))
            .collect();
        writeln!(
            out,
            "total: {} shoes, {} rounds, {total} irregularities{}",
            self.shoes,
            self.rounds,
            if codes.is_empty() {
                String::new()
            } else {
                format!(" ({})", codes.join(", "))
            }
        )
    }
}

pub(crate) fn write_text(output: &Output, book: &RuleBook, out: &mut dyn Write) -> io::Result<()> {
    let total = |t: Option<u8>| t.map_or("?".to_owned(), |t| t.to_string());
    match output {
        Output::Round(r) => {
            let mut notes = String::new();
            if r.player_pair == Some(true) {
                notes.push_str("  player pair");
            }
            if r.banker_pair == Some(true) {
                notes.push_str("  banker pair");
            }
            if !r.complete {
                notes.push_str("  (unfinished)");
            }
            if r.no_bets {
                notes.push_str("  (no bets, 12.1(b))");
            }
            if r.partial {
                notes.push_str("  (partial shoe)");
            }
            writeln!(
                out,
                "shoe {} round {:>2}  player {:<9} = {}  banker {:<9} = {}  {:<7} seq {}-{}{notes}",
                r.shoe,
                r.round,
                r.player.to_string(),
                total(r.player_total),
                r.banker.to_string(),
                total(r.banker_total),
                r.outcome.map_or("unknown".to_owned(), |o| o.to_string()),
                r.first_seq,
                r.last_seq,
            )
        }
        Output::Irregularity(i) => {
            let place = match i.round {
                Some(round) => format!("shoe {} round {round}", i.shoe),
                None => format!("shoe {}, outside a round", i.shoe),
            };
            let evidence: Vec<String> = i.evidence.iter().map(u64::to_string).collect();
            writeln!(
                out,
                "!! {} {} ({place}, seq {})",
                i.severity.name().to_uppercase(),
                i.code,
                i.seq
            )?;
            writeln!(out, "   rule:     {} {}", book.id(), i.rule)?;
            writeln!(out, "   evidence: seq {}", evidence.join(", "))?;
            writeln!(out, "   {}", crate::safe::continued(&i.message, "   "))
        }
        Output::Shoe(s) => writeln!(
            out,
            "== shoe {}: {} rounds, {} cards{}{}{}",
            s.shoe,
            s.rounds,
            s.cards,
            if s.partial {
                ", partial (joined mid-shoe)"
            } else {
                ""
            },
            if s.continuous {
                ", continuous shuffler"
            } else {
                ""
            },
            if s.open_device_errors > 0 {
                format!(", {} device error(s) still open", s.open_device_errors)
            } else {
                String::new()
            }
        ),
        Output::DeviceErrorCleared(c) => writeln!(
            out,
            "   device error {} cleared (raised at seq {}, cleared at seq {})",
            c.code, c.raised_seq, c.seq
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pitwatch_model::{EventKind, Target};
    use serde_json::Value;

    fn card(seq: u64, text: &str, target: Target, index: u8) -> TableEvent {
        TableEvent::new(
            seq,
            EventKind::CardDrawn {
                card: Some(text.parse().unwrap()),
                target: Some(target),
                index: Some(index),
                face_up: None,
                retransmit: None,
            },
        )
    }

    /// A shoe whose burn is one card short, then one round.
    fn events() -> Vec<TableEvent> {
        vec![
            TableEvent::new(
                1,
                EventKind::Shuffled {
                    decks: Some(8),
                    cards: Some(416),
                    shuffler: None,
                },
            ),
            card(2, "2S", Target::First, 1),
            card(3, "5H", Target::Burn, 1),
            card(4, "AS", Target::Player, 1),
            card(5, "KD", Target::Banker, 1),
            card(6, "9D", Target::Player, 2),
            card(7, "5C", Target::Banker, 2),
            card(8, "4H", Target::Player, 3),
            card(9, "2H", Target::Banker, 3),
        ]
    }

    fn report(json: bool) -> String {
        let mut out = Vec::new();
        write_replay(&RuleBook::nz_baccarat(), &events(), json, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn json_lines_carry_the_documented_fields() {
        let lines: Vec<Value> = report(true)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 3);
        let irregularity = &lines[0];
        assert_eq!(irregularity["type"], "irregularity");
        assert_eq!(irregularity["code"], "BURN_COUNT_MISMATCH");
        assert_eq!(irregularity["severity"], "high");
        assert_eq!(irregularity["rule"], "7.7(b), 7.9");
        assert_eq!(irregularity["shoe"], 1);
        assert_eq!(irregularity["round"], Value::Null);
        assert_eq!(irregularity["seq"], 4);
        assert!(irregularity["message"]
            .as_str()
            .unwrap()
            .contains("1 burned"));
        let round = &lines[1];
        for (field, value) in [
            ("type", serde_json::json!("round")),
            ("shoe", 1.into()),
            ("round", 1.into()),
            ("player", serde_json::json!(["AS", "9D", "4H"])),
            ("banker", serde_json::json!(["KD", "5C", "2H"])),
            ("player_total", 4.into()),
            ("banker_total", 7.into()),
            ("outcome", "banker".into()),
            ("first_seq", 4.into()),
            ("last_seq", 9.into()),
        ] {
            assert_eq!(round[field], value, "{field}");
        }
        // The shoe's summary, with its shuffle analysis (the table's first shoe: nothing to
        // compare with).
        let mut shoe = lines[2].clone();
        let shuffle = shoe.as_object_mut().unwrap().remove("shuffle").unwrap();
        assert_eq!(
            shoe,
            serde_json::json!({"type":"shoe","shoe":1,"rounds":1,"cards":8,"partial":false,
                "continuous":false,"open_device_errors":0,"first_seq":1,"last_seq":9})
        );
        assert_eq!(shuffle["verdict"], "not_compared");
        assert_eq!(shuffle["cards"], 8);
        for field in [
            "longest_preserved_run",
            "preserved_pairs",
            "p_value",
            "label",
        ] {
            assert!(!shuffle[field].is_null(), "{field}");
        }
    }

    #[test]
    fn text_has_a_line_per_round_and_a_block_per_irregularity() {
        let text = report(false);
        assert!(
            text.starts_with("rule book nz-baccarat: New Zealand"),
            "{text}"
        );
        assert!(text.contains("!! HIGH BURN_COUNT_MISMATCH (shoe 1, outside a round, seq 4)"));
        assert!(text.contains("   rule:     nz-baccarat 7.7(b), 7.9"));
        assert!(text.contains(
            "shoe 1 round  1  player AS 9D 4H  = 4  banker KD 5C 2H  = 7  banker  seq 4-9"
        ));
        assert!(text.contains("== shoe 1: 1 rounds, 8 cards"));
        assert!(
            text.ends_with("total: 1 shoes, 1 rounds, 1 irregularities (1 BURN_COUNT_MISMATCH)\n")
        );
    }

    #[test]
    fn a_capture_reports_rejected_frames_in_stream_order() {
        let protocol = ProtocolConfig::by_name("barcode").unwrap();
        // The shuffle card, a card, a bad line, another card.
        let items = decode_capture(&protocol, b"511\r001\rxyz\r005\r", 500).unwrap();
        let mut out = Vec::new();
        write_items(&RuleBook::nz_baccarat(), items, true, &mut out).unwrap();
        let lines: Vec<Value> = String::from_utf8(out)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let rejected = &lines[0];
        assert_eq!(rejected["type"], "rejected", "{lines:?}");
        assert_eq!(rejected["kind"], "malformed");
        assert_eq!(rejected["bytes"], "78797a0d");
        assert!(rejected["reason"].as_str().unwrap().contains("xyz"));
        assert_eq!(lines.last().unwrap()["type"], "shoe");

        let items = decode_capture(&protocol, b"511\r001\rxyz\r005\r", 500).unwrap();
        let mut out = Vec::new();
        write_items(&RuleBook::nz_baccarat(), items, false, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.contains("xx REJECTED malformed: ") && text.contains("bytes: xyz\\x0D"),
            "{text}"
        );
        assert!(text.ends_with("rejected: 1 frames\n"), "{text}");
        // Times out of range are refused, not wrapped.
        assert!(decode_capture(&protocol, b"001\r002\r", i64::MAX).is_none());
    }

    #[test]
    fn a_capture_of_garbage_with_no_line_end_is_one_rejected_run() {
        let protocol = ProtocolConfig::by_name("barcode").unwrap();
        let mut capture = b"511\r".to_vec();
        capture.extend(std::iter::repeat_n(b'x', 1 << 20));
        capture.extend_from_slice(b"\r005\r");
        let items = decode_capture(&protocol, &capture, 500).unwrap();
        let mut out = Vec::new();
        write_items(&RuleBook::nz_baccarat(), items, true, &mut out).unwrap();
        let lines: Vec<Value> = String::from_utf8(out)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let rejected: Vec<&Value> = lines.iter().filter(|l| l["type"] == "rejected").collect();
        // The long run, and at most the piece its line end closes (which the codec words
        // differently).
        assert!(rejected.len() <= 2, "{rejected:?}");
        let length = |l: &Value| {
            l["length"]
                .as_u64()
                .unwrap_or(l["bytes"].as_str().unwrap().len() as u64 / 2)
        };
        assert_eq!(
            rejected.iter().map(|l| length(l)).sum::<u64>(),
            (1 << 20) + 1
        );
        assert!(rejected[0]["pieces"].as_u64().unwrap() > 60_000);
        assert_eq!(
            rejected[0]["bytes"].as_str().unwrap().len(),
            2 * SHOWN_BYTES
        );
    }
}
