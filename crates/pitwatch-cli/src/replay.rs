//! `pitwatch replay FILE --rules BOOK [--json]`: replays a table event file through the engine of
//! the book's game and prints what it saw: one line per round and a block per irregularity, or
//! JSON Lines. Nothing here names a game: the registry chooses the book and the engine
//! (`pitwatch_games::file_book`, `TableEngine`) and each game's wording
//! (`pitwatch_api::games::terminal`); this file reads the input and writes what they give.
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
use pitwatch_api::games::terminal::{self, Totals};
use pitwatch_games::{FileBookError, GameBook, GameOutput, TableEngine};
use pitwatch_model::jsonl::EventReader;
use pitwatch_model::{EventFileError, TableEvent, Timestamp};
use pitwatch_protocols::{DecodeOutput, ProtocolConfig, Rejection};
use pitwatch_rules::TableOutput;
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
    /// With --db: who replays (password from PITWATCH_PASSWORD or standard input). The replay
    /// is audited (`replay.view`) with them, or as nobody logged in without it; a replay of the
    /// central copy, which takes no writes, is not.
    #[arg(long, requires = "db")]
    user: Option<String>,
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

/// The most bytes of a run of rejected bytes a report shows.
const SHOWN_BYTES: usize = 256;

/// The most bytes handed to a decoder at once: a capture with no line end is decoded in pieces,
/// so its rejections never pile up in memory.
const PIECE: usize = 64 * 1024;

/// Runs `pitwatch replay`.
pub fn run(args: ReplayArgs) -> anyhow::Result<ExitCode> {
    if let (Some(db), Some(table)) = (&args.db, &args.table) {
        // Audited before anything is shown: a replay that cannot be put on record is not made.
        let audit = |shoe: u32| -> anyhow::Result<()> {
            let mut store = crate::incidents::open(db)?;
            let who = match &args.user {
                Some(user) => Some(crate::credentials::login(
                    &mut store,
                    user,
                    crate::credentials::PASSWORD,
                )?),
                None => None,
            };
            pitwatch_app::viewed::audit_read(
                &mut store,
                who.as_ref(),
                pitwatch_app::viewed::REPLAY_VIEWED,
                &format!("{table} shoe {shoe}"),
                crate::now(),
            )
            .map_err(|e| anyhow::anyhow!("the replay could not be put on record: {}", e.message))
        };
        return crate::replay_record::run(
            db, table, args.shoe, args.at, args.steps, args.json, audit,
        );
    }
    if args.source.central.is_some() {
        let Some(table) = &args.table else {
            anyhow::bail!("give --table with --central");
        };
        let source = args.source.resolve(None)?;
        // The central copy takes no writes: a replay of it is not audited.
        return crate::replay_record::run(
            &source.db,
            table,
            args.shoe,
            args.at,
            args.steps,
            args.json,
            |_| Ok(()),
        );
    }
    let (Some(path), Some(rules)) = (&args.file, &args.rules) else {
        anyhow::bail!("give a FILE and --rules, or --db and --table");
    };
    if let Err(problem) = pitwatch_games::rule_book_file_ok(rules) {
        errln!("error: {problem}");
        return Ok(ExitCode::from(2));
    }
    // The book says which game's engine runs the file.
    let book = match pitwatch_games::file_book(rules, args.variant.as_deref()) {
        Ok(book) => book,
        Err(FileBookError::NoVariants) => {
            errln!("error: --variant is for a poker rule book (nz-poker)");
            return Ok(ExitCode::from(2));
        }
        Err(FileBookError::Refused { reason, problems }) => {
            errln!("error: {reason}");
            for problem in &problems {
                errln!("  - {problem}");
            }
            return Ok(ExitCode::from(2));
        }
    };
    // The whole file is read and checked (a capture's times too) before anything is printed; a
    // capture is decoded as its items are replayed, so its rejections never pile up in memory.
    let bytes;
    let items: Box<dyn Iterator<Item = Item>> = match protocol_of(args.format) {
        Some(protocol) => {
            bytes =
                std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
            let Some(items) = decode_capture(&protocol, &bytes, args.pace_ms) else {
                errln!("error: --pace-ms takes the capture's times out of range");
                return Ok(ExitCode::from(2));
            };
            Box::new(items)
        }
        None => {
            let source =
                File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
            let mut events = Vec::new();
            for event in EventReader::new(BufReader::new(source)) {
                match event {
                    Ok(event) => events.push(Item::Event(event)),
                    Err(EventFileError::Io(e)) => {
                        return Err(e).with_context(|| format!("cannot read {}", path.display()));
                    }
                    Err(error) => {
                        errln!("{}: {error}", path.display());
                        return Ok(ExitCode::from(2));
                    }
                }
            }
            Box::new(events.into_iter())
        }
    };
    finish(write_items(
        &book,
        items,
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

/// Replays `items` under `book` (a table of any game) and writes the report to `out`:
/// rejections where they came in the stream, engine outputs as the events produce them, and with
/// text a header line and the totals.
fn write_items(
    book: &GameBook,
    items: impl IntoIterator<Item = Item>,
    json: bool,
    out: impl Write,
) -> io::Result<()> {
    let mut out = BufWriter::new(out);
    if !json {
        writeln!(out, "{}", terminal::report_header(book))?;
    }
    let mut engine = TableEngine::new(book.clone());
    // Shuffle integrity, where the game's file replay judges it: each shoe judged when the next
    // starts, the last when the stream ends.
    let mut watch = terminal::file_shuffle_book(book).map(ShuffleWatch::new);
    let mut totals = Totals::default();
    let mut write_all = |engine: &mut TableEngine,
                         judged: Option<ShoeShuffle>,
                         out: &mut dyn Write|
     -> io::Result<()> {
        let mut judged = judged;
        while let Some(output) = engine.poll_output() {
            totals.count(&output);
            // The shoe's summary carries its shuffle analysis.
            let shuffle = match &output {
                TableOutput::Shoe(summary)
                    if judged.as_ref().is_some_and(|j| j.shoe == summary.shoe) =>
                {
                    judged.take()
                }
                _ => None,
            };
            if let Some(irregularity) = shuffle.as_ref().and_then(|s| s.irregularity.clone()) {
                totals.count(&TableOutput::Irregularity(irregularity));
            }
            write_output(&output, shuffle.as_ref(), json, book, out)?;
        }
        // A shoe judged without a summary at this event (never, with the engines as they are).
        if let Some(j) = &judged {
            if let Some(irregularity) = j.irregularity.clone() {
                totals.count(&TableOutput::Irregularity(irregularity));
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
                let judged = watch.as_mut().and_then(|watch| {
                    watch.observe(&event);
                    if engine.shoe() != shoe {
                        watch.shoe_started(engine.shoe(), event.seq)
                    } else {
                        None
                    }
                });
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
    let judged = watch.as_mut().and_then(ShuffleWatch::finish);
    write_all(&mut engine, judged, &mut out)?;
    if !json {
        writeln!(out, "{}", totals.line(book))?;
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

/// Writes one output of a table under `book` as its game words it (`--json`: its game's JSON
/// object); a shoe's summary with its shuffle analysis (`--json`: a `shuffle` object in the
/// summary), and after it the `SHUFFLE_SUSPECT` the analysis raised.
pub(crate) fn write_output(
    output: &GameOutput,
    shuffle: Option<&ShoeShuffle>,
    json: bool,
    book: &GameBook,
    out: &mut dyn Write,
) -> io::Result<()> {
    if json {
        // A round of another game than the book's has no line (an engine never outputs one).
        let Some(mut line) = terminal::output_json(book, output) else {
            return Ok(());
        };
        if let Some(shuffle) = shuffle {
            line["shuffle"] = shuffle_json(shuffle);
        }
        out.write_all(crate::safe::json(&line, false).as_bytes())?;
        writeln!(out)?;
    } else {
        out.write_all(terminal::output_text(book, output).as_bytes())?;
        if let Some(shuffle) = shuffle {
            write_shuffle_text(shuffle, out)?;
        }
    }
    if let Some(irregularity) = shuffle.and_then(|s| s.irregularity.clone()) {
        write_output(
            &TableOutput::Irregularity(irregularity),
            None,
            json,
            book,
            out,
        )?;
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

    fn baccarat() -> GameBook {
        GameBook::load("nz-baccarat").unwrap()
    }

    fn report(json: bool) -> String {
        let mut out = Vec::new();
        let items = events().into_iter().map(Item::Event);
        write_items(&baccarat(), items, json, &mut out).unwrap();
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
        write_items(&baccarat(), items, true, &mut out).unwrap();
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
        write_items(&baccarat(), items, false, &mut out).unwrap();
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
        write_items(&baccarat(), items, true, &mut out).unwrap();
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
