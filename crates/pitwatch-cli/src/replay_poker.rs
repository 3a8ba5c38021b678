//! `pitwatch replay FILE --rules nz-poker [--variant V] [--json]`: a poker table's event file (or
//! raw capture) through the poker engine. With `--json`, one object per hand (`type: "hand"`,
//! `game`, `variant`, `hand`, `shoe`, `seats`: each `{seat, cards, face_up, acted, folded}`,
//! `misdeal`: the reason's letter or null, `declared`, `substantial_action_seq`), irregularity,
//! deck (`type: "shoe"`) and cleared device error; otherwise a line per hand and a block per
//! irregularity with the rule's text.

use std::io::{self, BufWriter, Write};
use std::path::Path;
use std::process::ExitCode;

use pitwatch_poker::{Book, Engine, Output};
use pitwatch_protocols::ProtocolConfig;
use pitwatch_rules::Game;

use crate::replay::{feed_game, run_game_file, Item};

/// Replays the event file (or, with a `protocol`, the raw capture) at `path` under `book`. The
/// whole file is read and checked before anything is printed, as for Baccarat.
pub(crate) fn run(
    book: &Book,
    path: &Path,
    protocol: Option<ProtocolConfig>,
    pace_ms: i64,
    json: bool,
) -> anyhow::Result<ExitCode> {
    run_game_file(path, protocol, pace_ms, |items, out| {
        write(book, items, json, out)
    })
}

/// Replays `items` under `book` and writes the report to `out`.
pub(crate) fn write(
    book: &Book,
    items: impl IntoIterator<Item = Item>,
    json: bool,
    out: impl Write,
) -> io::Result<()> {
    let mut out = BufWriter::new(out);
    if !json {
        writeln!(
            out,
            "rule book {}: {} ({})",
            book.id, book.title, book.variant.name
        )?;
    }
    let mut engine = Engine::new(book.clone());
    let (mut decks, mut hands, mut flagged) = (0u32, 0u32, 0u32);
    let write_all = |engine: &mut Engine, out: &mut dyn Write| -> io::Result<()> {
        while let Some(output) = engine.poll_output() {
            match &output {
                Output::Hand(_) => hands += 1,
                Output::Irregularity(_) => flagged += 1,
                Output::Shoe(_) => decks += 1,
                Output::DeviceErrorCleared(_) => {}
            }
            write_output(&output, json, book, out)?;
        }
        Ok(())
    };
    let rejected = feed_game(items, &mut engine, json, &mut out, write_all)?;
    if !json {
        writeln!(
            out,
            "total: {decks} decks, {hands} hands, {flagged} irregularities"
        )?;
        if rejected > 0 {
            writeln!(out, "rejected: {rejected} frames")?;
        }
    }
    out.flush()
}

/// Writes one output as `replay FILE --rules nz-poker` prints it: a JSON object, or a line per
/// hand and a block per irregularity with the rule's text.
pub(crate) fn write_output(
    output: &Output,
    json: bool,
    book: &Book,
    out: &mut dyn Write,
) -> io::Result<()> {
    if json {
        out.write_all(crate::safe::json(output, false).as_bytes())?;
        return writeln!(out);
    }
    match output {
        Output::Hand(h) => writeln!(out, "{}", pitwatch_api::games::poker::hand_line(h)),
        Output::Irregularity(i) => {
            writeln!(
                out,
                "!! {} ({}) hand {} seq {}: {}\n   rule: {} ({})",
                i.code,
                i.severity,
                i.round.map_or_else(|| "-".to_owned(), |r| r.to_string()),
                i.seq,
                crate::safe::continued(&i.message, ""),
                i.rule,
                i.rule_book
            )?;
            for (number, text) in book.rule_texts(&i.rule) {
                writeln!(out, "   {number}: {}", text.replace('\n', " "))?;
            }
            Ok(())
        }
        Output::Shoe(s) => writeln!(
            out,
            "== deck {}: {} hands, {} cards{}",
            s.shoe,
            s.rounds,
            s.cards,
            if s.partial { " (partial)" } else { "" }
        ),
        Output::DeviceErrorCleared(c) => {
            writeln!(out, "   device error {} cleared (seq {})", c.code, c.seq)
        }
    }
}
