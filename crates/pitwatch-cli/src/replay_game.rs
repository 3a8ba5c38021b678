//! `pitwatch replay FILE --rules nz-blackjack|nz-pontoon [--json]`: a Blackjack or Pontoon table's
//! event file (or raw capture) through the Blackjack engine. With `--json`, one object per round
//! (`type: "round"`, `game`, `shoe`, `round`, `dealer`, `dealer_total`, `boxes`: each
//! `{box, hands: [{cards, total, soft, doubled, outcome, pays}], side_bets}`), irregularity, shoe
//! summary and cleared device error, as for Baccarat; otherwise a line per round and a block per
//! irregularity.

use std::io::{self, BufWriter, Write};
use std::path::Path;
use std::process::ExitCode;

use pitwatch_blackjack::{Book, Engine, Output, RoundRecord};
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
        writeln!(out, "rule book {}: {}", book.id, book.title)?;
    }
    let mut engine = Engine::new(book.clone());
    let (mut shoes, mut rounds, mut flagged) = (0u32, 0u32, 0u32);
    let write_all = |engine: &mut Engine, out: &mut dyn Write| -> io::Result<()> {
        while let Some(output) = engine.poll_output() {
            match &output {
                Output::Round(_) => rounds += 1,
                Output::Irregularity(_) => flagged += 1,
                Output::Shoe(_) => shoes += 1,
                Output::DeviceErrorCleared(_) => {}
            }
            write_output(&output, json, out)?;
        }
        Ok(())
    };
    let rejected = feed_game(items, &mut engine, json, &mut out, write_all)?;
    if !json {
        writeln!(
            out,
            "total: {shoes} shoes, {rounds} rounds, {flagged} irregularities"
        )?;
        if rejected > 0 {
            writeln!(out, "rejected: {rejected} frames")?;
        }
    }
    out.flush()
}

/// Writes one output of the Blackjack engine: its JSON object with `--json`, else a line per
/// round and a block per irregularity (`replay FILE` and `replay --db` print the same).
pub(crate) fn write_output<R: std::borrow::Borrow<RoundRecord>>(
    output: &pitwatch_rules::TableOutput<R>,
    json: bool,
    out: &mut dyn Write,
) -> io::Result<()> {
    use pitwatch_rules::TableOutput;
    if json {
        // The same object whoever owns the round.
        let line: TableOutput<&RoundRecord> = match output {
            TableOutput::Round(r) => TableOutput::Round(r.borrow()),
            TableOutput::Irregularity(i) => TableOutput::Irregularity(i.clone()),
            TableOutput::Shoe(s) => TableOutput::Shoe(*s),
            TableOutput::DeviceErrorCleared(c) => TableOutput::DeviceErrorCleared(c.clone()),
        };
        out.write_all(crate::safe::json(&line, false).as_bytes())?;
        return writeln!(out);
    }
    match output {
        TableOutput::Round(r) => writeln!(
            out,
            "{}",
            pitwatch_api::games::blackjack::round_line(r.borrow())
        ),
        TableOutput::Irregularity(i) => writeln!(
            out,
            "!! {} ({}) shoe {} round {} seq {}: {}\n   rule: {} ({})",
            i.code,
            i.severity,
            i.shoe,
            i.round.map_or_else(|| "-".to_owned(), |r| r.to_string()),
            i.seq,
            crate::safe::continued(&i.message, ""),
            i.rule,
            i.rule_book
        ),
        TableOutput::Shoe(s) => writeln!(
            out,
            "== shoe {}: {} rounds, {} cards{}",
            s.shoe,
            s.rounds,
            s.cards,
            if s.partial { " (partial)" } else { "" }
        ),
        TableOutput::DeviceErrorCleared(c) => {
            writeln!(out, "   device error {} cleared (seq {})", c.code, c.seq)
        }
    }
}
