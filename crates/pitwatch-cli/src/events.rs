//! `pitwatch events …`: validating table event files.

use std::fs::File;
use std::io::BufReader;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Subcommand;
use pitwatch_model::jsonl::EventReader;
use pitwatch_model::EventFileError;

/// Subcommands of `pitwatch events`.
#[derive(Debug, Subcommand)]
pub enum EventsCommand {
    /// Check that FILE is a valid table event file: exit 0, or exit 2 naming the first bad line.
    Check {
        /// The event file (JSON Lines, one event per line).
        file: PathBuf,
    },
}

/// Runs an `events` subcommand.
pub fn run(command: EventsCommand) -> anyhow::Result<ExitCode> {
    match command {
        EventsCommand::Check { file } => check(&file),
    }
}

fn check(path: &PathBuf) -> anyhow::Result<ExitCode> {
    let source = File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let mut count = 0u64;
    let mut seqs = None;
    let mut kinds = std::collections::BTreeMap::<&'static str, u64>::new();
    for event in EventReader::new(BufReader::new(source)) {
        match event {
            Ok(event) => {
                count += 1;
                *kinds.entry(event.kind.name()).or_default() += 1;
                seqs = Some(match seqs {
                    None => (event.seq, event.seq),
                    Some((first, _)) => (first, event.seq),
                });
            }
            Err(EventFileError::Io(e)) => {
                return Err(e).with_context(|| format!("cannot read {}", path.display()));
            }
            Err(error) => {
                errln!("{}: {error}", path.display());
                return Ok(ExitCode::from(2));
            }
        }
    }
    match seqs {
        None => outln!("{}: valid, no events", path.display()),
        Some((first, last)) => {
            outln!(
                "{}: valid, {count} events (seq {first} to {last})",
                path.display()
            );
            for (kind, n) in kinds {
                outln!("  {kind:<22} {n}");
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
