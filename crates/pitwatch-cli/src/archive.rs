//! `pitwatch archive run|list|check`: retention and the archive step from the command line
//! (issue 32), through the application layer (`pitwatch_app::archive`), each by a named,
//! authenticated user whose role allows it, audited. Passwords are never arguments (see
//! [`crate::credentials`]).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Args, Subcommand};
use pitwatch_model::Timestamp;
use pitwatch_recording::pit::{PitConfig, RecordConfig};
use pitwatch_store::archive::ArchiveEntry;

use crate::credentials;

/// `pitwatch archive …`.
#[derive(Debug, Subcommand)]
pub enum ArchiveCommand {
    /// Move the device record older than the site allows (90 days by default) to an archive
    /// file in the site's archive folder, once the record verifies in full and the file
    /// verifies on its own (administrators only).
    Run {
        #[command(flatten)]
        common: Common,
        /// The pit definition, for its `[record]` retention and archive folder (default: New
        /// Zealand's seven years, `archive/` beside the database, 90 days).
        #[arg(long, value_name = "FILE")]
        pit: Option<PathBuf>,
        /// Archive only what was recorded before this time (RFC 3339); never more recent than
        /// the site allows.
        #[arg(long)]
        before: Option<Timestamp>,
    },
    /// List the record's archives: what each holds, where, and until when it must be kept.
    List {
        #[command(flatten)]
        common: Common,
        /// One JSON object per archive.
        #[arg(long)]
        json: bool,
    },
    /// Check every archive the record names: there, unchanged (SHA-256), verifying on its own,
    /// and whether it is past its retention. Exits 1 if any is not.
    Check {
        #[command(flatten)]
        common: Common,
    },
}

/// What every `pitwatch archive` command takes.
#[derive(Debug, Args)]
pub struct Common {
    /// The live Pitwatch database.
    #[arg(long)]
    db: PathBuf,
    /// Who acts (their password from `PITWATCH_PASSWORD`, or asked for on the terminal).
    #[arg(long)]
    user: String,
}

/// Runs `pitwatch archive …`.
pub fn run(command: ArchiveCommand) -> anyhow::Result<ExitCode> {
    let now = crate::now();
    match command {
        ArchiveCommand::Run {
            common,
            pit,
            before,
        } => {
            let config = match &pit {
                Some(path) => {
                    let text = std::fs::read_to_string(path)
                        .with_context(|| format!("cannot read {}", path.display()))?;
                    PitConfig::load(&text)
                        .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?
                        .record
                }
                None => RecordConfig::default(),
            };
            let mut store = crate::incidents::open(&common.db)?;
            let who = credentials::login(&mut store, &common.user, credentials::PASSWORD)?;
            let entry =
                pitwatch_app::archive::archive(&mut store, &who, &config, &common.db, before, now)?;
            outln!(
                "archive {} written to {} ({} bytes, SHA-256 {})",
                entry.number,
                entry.path().display(),
                entry.bytes,
                entry.sha256
            );
            print_entry(&entry);
            outln!(
                "the live record now begins after checkpoint {}; check the archives with: \
                 pitwatch archive check --db {} --user {}",
                entry.checkpoint,
                common.db.display(),
                common.user
            );
            Ok(ExitCode::SUCCESS)
        }
        ArchiveCommand::List { common, json } => {
            let mut store = crate::incidents::open(&common.db)?;
            let who = credentials::login(&mut store, &common.user, credentials::PASSWORD)?;
            let entries = pitwatch_app::archive::list(&mut store, &who, now)?;
            if json {
                for entry in &entries {
                    crate::out::json(entry, false);
                }
            } else if entries.is_empty() {
                outln!(
                    "no archives: the whole record is in {}",
                    common.db.display()
                );
            } else {
                for entry in &entries {
                    outln!("archive {}: {}", entry.number, entry.path().display());
                    print_entry(entry);
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        ArchiveCommand::Check { common } => {
            let mut store = crate::incidents::open(&common.db)?;
            let who = credentials::login(&mut store, &common.user, credentials::PASSWORD)?;
            let checks = pitwatch_app::archive::check(&mut store, &who, now)?;
            let mut failed = false;
            if checks.is_empty() {
                outln!("no archives");
            }
            for check in &checks {
                let entry = &check.entry;
                if check.problems.is_empty() {
                    outln!(
                        "archive {}: intact ({}){}",
                        entry.number,
                        entry.path().display(),
                        if check.past_retention {
                            format!(
                                "; past its retention ({}, kept until {}): it may be disposed of \
                                 under the site's procedure (Pitwatch deletes nothing)",
                                entry.retention.cite, entry.keep_until
                            )
                        } else {
                            String::new()
                        }
                    );
                } else {
                    failed = true;
                    for problem in &check.problems {
                        errln!("ARCHIVE {} NOT INTACT: {problem}", entry.number);
                    }
                }
            }
            Ok(if failed {
                ExitCode::from(1)
            } else {
                ExitCode::SUCCESS
            })
        }
    }
}

fn print_entry(entry: &ArchiveEntry) {
    for chain in &entry.chains {
        outln!(
            "  {:<11} rows {}–{} left the live record (the archive holds {}–{})",
            chain.chain,
            chain.first,
            chain.last,
            chain.first,
            chain.held_to
        );
    }
    outln!(
        "  events from {} to {}",
        entry.first_at.as_deref().unwrap_or("-"),
        entry.last_at.as_deref().unwrap_or("-")
    );
    outln!(
        "  keep until {} ({} years: {})",
        entry.keep_until,
        entry.retention.years,
        entry.retention.cite
    );
    outln!(
        "  archived at {} by {}; its last checkpoint {} ({})",
        entry.made_at,
        entry.made_by,
        entry.end_checkpoint,
        entry.end_hash
    );
}
