//! `pitwatch replay FILE --rules BOOK [--json]`: replays a table event file through the rules
//! engine and prints what it saw: one line per round and a block per irregularity, or JSON Lines.
//!
//! The whole file is read and checked before anything is printed, so an unusable file (exit 2)
//! never leaves half a report on stdout. Irregularities are findings, not failures: a replay that
//! runs to the end exits 0.

use std::fs::File;
use std::io::{self, BufReader, BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;
use pitwatch_model::jsonl::EventReader;
use pitwatch_model::{EventFileError, TableEvent};
use pitwatch_rules::{Engine, LoadError, Output, RuleBook};

/// Arguments of `pitwatch replay`.
#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// The table event file (JSON Lines, one event per line).
    file: PathBuf,
    /// The rule book: a built-in id (nz-baccarat, nz-baccarat-continuous, macau-baccarat) or the
    /// path of a rule book TOML file.
    #[arg(long, value_name = "BOOK")]
    rules: String,
    /// Print JSON Lines (one object per round, irregularity and shoe) instead of text.
    #[arg(long)]
    json: bool,
}

/// Runs `pitwatch replay`.
pub fn run(args: ReplayArgs) -> anyhow::Result<ExitCode> {
    let book = match RuleBook::load(&args.rules) {
        Ok(book) => book,
        Err(LoadError::Invalid { source_name, error }) => {
            eprintln!(
                "error: rule book {source_name} is invalid ({} problems):",
                error.problems.len()
            );
            for problem in &error.problems {
                eprintln!("  - {problem}");
            }
            return Ok(ExitCode::from(2));
        }
        Err(error) => {
            eprintln!("error: {error}");
            return Ok(ExitCode::from(2));
        }
    };
    let path = &args.file;
    let source = File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let mut events = Vec::new();
    for event in EventReader::new(BufReader::new(source)) {
        match event {
            Ok(event) => events.push(event),
            Err(EventFileError::Io(e)) => {
                return Err(e).with_context(|| format!("cannot read {}", path.display()));
            }
            Err(error) => {
                eprintln!("{}: {error}", path.display());
                return Ok(ExitCode::from(2));
            }
        }
    }
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    match write_replay(&book, &events, args.json, &mut out).and_then(|()| out.flush()) {
        Ok(()) => Ok(ExitCode::SUCCESS),
        // A reader that stops early (`| head`) is not an error.
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(ExitCode::SUCCESS),
        Err(e) => Err(e).context("cannot write the report"),
    }
}

/// Replays `events` under `book` and writes the report to `out`.
fn write_replay(
    book: &RuleBook,
    events: &[TableEvent],
    json: bool,
    out: &mut impl Write,
) -> io::Result<()> {
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
    let mut tally = Tally::default();
    let mut write_all = |engine: &mut Engine, out: &mut dyn Write| -> io::Result<()> {
        while let Some(output) = engine.poll_output() {
            tally.count(&output);
            if json {
                serde_json::to_writer(&mut *out, &output)?;
                writeln!(out)?;
            } else {
                write_text(&output, book, out)?;
            }
        }
        Ok(())
    };
    for event in events {
        engine.handle_event(event);
        write_all(&mut engine, out)?;
    }
    engine.finish();
    write_all(&mut engine, out)?;
    if !json {
        tally.write(out)?;
    }
    Ok(())
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

fn write_text(output: &Output, book: &RuleBook, out: &mut dyn Write) -> io::Result<()> {
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
            writeln!(out, "   {}", i.message)
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
        assert_eq!(
            lines[2],
            serde_json::json!({"type":"shoe","shoe":1,"rounds":1,"cards":8,"partial":false,
                "continuous":false,"open_device_errors":0,"first_seq":1,"last_seq":9})
        );
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
}
