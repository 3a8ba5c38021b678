//! `pitwatch replay --db FILE --table NAME [--shoe N | --at TIME] [--steps] [--json]`: a shoe
//! rebuilt from the record — the table's raw bytes decoded again and re-run through the engine —
//! printed like a replay of an event file, with every event and the table after it on request.
//!
//! It also says whether the record verified intact and whether re-decoding the bytes gave the
//! events on record, since a replay is only worth what its record is worth.

use std::io::{self, BufWriter, Write};
use std::path::Path;
use std::process::ExitCode;

use anyhow::{bail, Context};
use pitwatch_games::GameBook;
use pitwatch_model::Timestamp;
use pitwatch_recording::record::Installation;
use pitwatch_recording::replay;

/// Runs a replay from the record; `audit` is told the shoe before anything of it is printed
/// (an error from it stops the replay).
pub fn run(
    db: &Path,
    table: &str,
    shoe: Option<u32>,
    at: Option<Timestamp>,
    steps: bool,
    json: bool,
    audit: impl FnOnce(u32) -> anyhow::Result<()>,
) -> anyhow::Result<ExitCode> {
    if !db.exists() {
        bail!("{} does not exist", db.display());
    }
    let live = Installation::from_env()
        .open_read_only(db)
        .with_context(|| format!("cannot open {}", db.display()))?;
    if live.is_archive()? {
        bail!(
            "{} is an archive: replay through the live record (pitwatch replay --db LIVE \
             --table {table} --shoe N), which finds the archive that holds the shoe, checks it is \
             the one it names, and audits the look",
            db.display()
        );
    }
    // A shoe asked for by number may be in an archive: replayed from there, which must be the
    // file the record names and verify on its own too.
    let archived = match (shoe, live.table_id(table)?) {
        (Some(n), Some(id)) => pitwatch_recording::archived::archive_for_shoe(&live, id, n)?,
        _ => None,
    };
    let mut verified = live.verify().context("cannot check the record")?;
    let (store, source) = match archived {
        Some((archive, entry)) => {
            // Its signatures and structure: re-hashing every row of an archive is `pitwatch
            // archive check`'s.
            let mut options = archive.verify_options(pitwatch_store::Depth::Quick);
            options.trusted = live.trusted_keys();
            options.journals.clear();
            options.archive = true;
            let report = archive
                .verify_with(&options)
                .context("cannot check the archive")?;
            verified.problems.extend(
                report
                    .problems
                    .into_iter()
                    .map(|p| format!("archive {}: {p}", entry.number)),
            );
            (archive, Some(entry))
        }
        None => (live, None),
    };
    if let Some(entry) = &source {
        errln!(
            "note: this shoe is in archive {} of the record ({})",
            entry.number,
            entry.path().display()
        );
    }
    let replayed = replay::rebuild(&store, table)?;
    let shoes = replayed.shoes();
    let Some(last) = shoes.last().copied() else {
        bail!("table {table} has no shoe on record");
    };
    let shoe = match (shoe, at) {
        (Some(shoe), _) => shoe,
        (None, Some(at)) => match replayed.shoe_at(at) {
            Some(shoe) => shoe,
            None => bail!("no shoe of table {table} had started by {at} (give its number with --shoe to replay one that was archived)"),
        },
        (None, None) => last.shoe,
    };
    let Some(steps_of_shoe) = replayed.shoe_steps(shoe) else {
        bail!(
            "table {table} has shoes {} to {} on record, not shoe {shoe}",
            shoes.first().map_or(1, |s| s.shoe),
            last.shoe
        );
    };
    let book = GameBook::load(&replayed.rule_book).map_err(|e| anyhow::anyhow!("{e}"))?;
    let intact = verified.intact();
    drop(store);
    audit(shoe)?;
    let mut out = BufWriter::new(crate::safe::Lines::new(io::stdout().lock()));
    let written = (|| -> io::Result<()> {
        if json {
            let header = serde_json::json!({
                "type": "record",
                "table": table,
                "shoe": shoe,
                "rule_book": replayed.rule_book,
                "intact": intact,
                "problem": (!intact).then(|| verified.problems.join("; ")),
                "divergences": replayed.divergences,
            });
            writeln!(out, "{}", crate::safe::json(&header, false))?;
        } else {
            writeln!(
                out,
                "table {table}, shoe {shoe}, rule book {}: record {}",
                replayed.rule_book,
                if intact {
                    "verified intact".to_owned()
                } else {
                    format!("NOT INTACT ({})", verified.problems.join("; "))
                }
            )?;
            for divergence in &replayed.divergences {
                writeln!(out, "!! the bytes and the record disagree: {divergence}")?;
            }
        }
        for step in steps_of_shoe {
            if steps {
                if json {
                    let line = serde_json::json!({
                        "type": "step",
                        "seq": step.event.seq,
                        "event": step.event.to_json(),
                        "view": step.view.compact_json(),
                    });
                    writeln!(out, "{}", crate::safe::json(&line, false))?;
                } else {
                    writeln!(
                        out,
                        "   {:>5}  {}",
                        step.event.seq,
                        crate::safe::json(&step.event, false)
                    )?;
                    writeln!(out, "          {}", step.view.compact_line())?;
                }
            }
            // What closed the shoe before (its last round, its summary) is that shoe's: shown
            // with it, not here.
            for output in step.outputs.iter().filter(|o| {
                pitwatch_recording::replay::about_shoe(o).is_none_or(|about| about >= shoe)
            }) {
                crate::replay::write_output(output, None, json, &book, &mut out)?;
            }
        }
        // This shoe's last round and summary, said when the next shoe began.
        for output in replayed.closed_by_next(shoe) {
            crate::replay::write_output(output, None, json, &book, &mut out)?;
        }
        if shoe == last.shoe {
            // The record ends in this shoe: what the engine said when the stream ended.
            for output in &replayed.closing {
                crate::replay::write_output(output, None, json, &book, &mut out)?;
            }
        }
        // The shoe's shuffle analysis (judged when the next shoe started, or so far); its
        // SHUFFLE_SUSPECT, if any, is among the next shoe's first outputs, as on record.
        if let Some(shuffle) = replayed.shuffles.iter().find(|s| s.shoe == shoe) {
            if json {
                let mut line = crate::replay::shuffle_json(shuffle);
                line["type"] = "shuffle".into();
                line["shoe"] = shoe.into();
                writeln!(out, "{}", crate::safe::json(&line, false))?;
            } else {
                crate::replay::write_shuffle_text(shuffle, &mut out)?;
            }
        }
        out.flush()
    })();
    match crate::replay::finish(written)? {
        code if code == ExitCode::SUCCESS && (!intact || !replayed.divergences.is_empty()) => {
            Ok(ExitCode::from(1))
        }
        code => Ok(code),
    }
}
