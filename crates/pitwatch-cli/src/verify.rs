//! `pitwatch verify --db FILE`: does the record prove itself? (`--pack FILE`, an incident's
//! evidence pack, is [`crate::verify_pack`]'s.) Recomputes every hash chain and
//! SQLite's integrity check, compares the derived tables and the schema with the chained record,
//! checks that the latest checkpoint is a valid signature by a trusted key covering every row,
//! and that no witness (the journal beside the record, `--witness` journals or folders, a
//! `--checkpoint` printed in a report) holds a checkpoint the record no longer has.
//!
//! Exit 0 when intact, 1 naming what failed, 2 when the file cannot be read as a Pitwatch
//! database or no trusted key is at hand to check its signature.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context};
use clap::Args;
use pitwatch_recording::record::{self, Installation};
use pitwatch_store::{CheckpointText, Depth, PublicKey, VerifyReport};

/// Arguments of `pitwatch verify`.
#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// The Pitwatch database file.
    #[arg(long, required_unless_present_any = ["central", "pack"])]
    db: Option<PathBuf>,
    /// Check an incident's evidence pack instead of a record, with no database (see
    /// docs/evidence.md).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["db", "central", "witness", "checkpoint", "public_key", "quick"])]
    pack: Option<PathBuf>,
    /// With --pack: the key the pack must be signed by: its 64 hexadecimal digits, its
    /// fingerprint, or a file holding either (default: this machine's installation key).
    #[arg(long, value_name = "KEY", requires = "pack")]
    key: Option<String>,
    #[command(flatten)]
    source: crate::central::CentralSource,
    /// Another witness: a checkpoint journal, a folder holding `<record id>.checkpoints`, or
    /// the central database (`postgres://…`, `env:NAME`, `file:PATH`), which holds the
    /// record's latest replicated checkpoint and every chain's head (repeatable). The journal
    /// beside the database is always read.
    #[arg(long, value_name = "PATH")]
    witness: Vec<String>,
    /// A checkpoint written down elsewhere (as printed in a report: `pitwatch-checkpoint:1:…`)
    /// that the record must still hold, unchanged (repeatable).
    #[arg(long, value_name = "TEXT")]
    checkpoint: Vec<String>,
    /// A public key to trust besides the installation's (64 hexadecimal digits, as
    /// `pitwatch verify` prints it), for checking a record on another machine (repeatable).
    #[arg(long, value_name = "HEX")]
    public_key: Vec<String>,
    /// Check everything but re-hashing every row (what start-up does).
    #[arg(long)]
    quick: bool,
}

/// Runs `pitwatch verify`.
pub fn run(args: VerifyArgs) -> anyhow::Result<ExitCode> {
    if let Some(pack) = &args.pack {
        return crate::verify_pack::run(pack, args.key.as_deref());
    }
    let source = args.source.resolve(args.db.as_deref())?;
    let db = &source.db;
    if !db.exists() {
        bail!("{} does not exist", db.display());
    }
    let mut installation = Installation::from_env();
    if source.central {
        // A central copy is checked against the key enrolled for its workstation (and any
        // --public-key), never against this machine's own installation key.
        installation.key = source.db.with_extension("no-installation-key");
    }
    // A central copy's checkpoints are checked against the key enrolled for its workstation.
    let mut trusted = source.trusted.clone();
    for key in &args.public_key {
        trusted.push(PublicKey::from_hex(key).with_context(|| {
            format!("--public-key {key:?} is not a public key (64 hexadecimal digits)")
        })?);
    }
    let mut checkpoints = Vec::new();
    for text in &args.checkpoint {
        checkpoints.push(
            text.parse::<CheckpointText>()
                .map_err(|e| anyhow::anyhow!("--checkpoint {text:?}: {e}"))?,
        );
    }
    let store = installation
        .open_read_only(db)
        .with_context(|| format!("cannot open {}", db.display()))?;
    let record_id = store.record_id().context("cannot read the record")?;
    let mut journals = Vec::new();
    let mut central_problems = Vec::new();
    for witness in &args.witness {
        if is_central(witness) {
            let url = crate::central::central_url(witness)?;
            let mut central = pitwatch_sync::Central::connect(&url).with_context(|| {
                format!("cannot reach the witness {}", pitwatch_sync::redact(&url))
            })?;
            central.check_schema()?;
            let held = match &record_id {
                Some(id) => central.witness(id)?,
                None => None,
            };
            match held {
                Some(checkpoint) => {
                    outln!(
                        "  central witness {}: checkpoint {} at {}",
                        pitwatch_sync::redact(&url),
                        checkpoint.id,
                        checkpoint.at
                    );
                    checkpoints.push(checkpoint);
                }
                None => errln!(
                    "note: the central database {} holds no checkpoint of this record",
                    pitwatch_sync::redact(&url)
                ),
            }
            central_problems.extend(central.witness_problems(&store)?);
            continue;
        }
        let witness = PathBuf::from(witness);
        if witness.is_dir() {
            match &record_id {
                Some(id) => journals.push(pitwatch_store::witness::journal_in(&witness, id)),
                None => errln!(
                    "note: {} is a folder, but the record has no id to find its journal by",
                    witness.display()
                ),
            }
        } else {
            journals.push(witness);
        }
    }
    // The host clock as last sampled (clock truth: a chained fact, verified with the rest).
    let clock = store
        .latest_clock_sample()
        .ok()
        .flatten()
        .and_then(|(_, json)| {
            serde_json::from_str::<pitwatch_recording::clock::ClockSample>(&json).ok()
        });
    let is_archive = store.is_archive().unwrap_or(false);
    drop(store);
    let depth = if args.quick {
        Depth::Quick
    } else {
        Depth::Full
    };
    let mut report = record::verify(&installation, db, depth, &trusted, &journals, &checkpoints)
        .context("cannot read the record")?;
    report.problems.extend(central_problems);
    let trust_known = !trusted.is_empty() || installation.trusted().is_ok_and(|k| !k.is_empty());
    if source.central {
        print_report(db, &report, None);
        match source.trusted.first() {
            Some(key) => outln!(
                "  enrolled key {} (the central database's, for this workstation), public key {}",
                key.fingerprint(),
                key.to_hex()
            ),
            None => outln!("  enrolled key: none (the workstation is not enrolled)"),
        }
    } else {
        print_report(db, &report, Some(&installation));
    }
    if is_archive {
        outln!(
            "  an archive of the record (`pitwatch archive`): checked against its own signatures; \
             `pitwatch archive check` on the live record also checks it is the file it names"
        );
    }
    match &clock {
        Some(sample) => outln!(
            "  host clock, last sampled: {}",
            pitwatch_recording::clock::report_line(Some((sample, sample.at.to_string())))
        ),
        None => outln!("  host clock: never sampled in this record"),
    }
    if !trust_known && report.latest.is_some() {
        errln!(
            "CANNOT CHECK THE SIGNATURE: no trusted key (the installation key {} is not here); \
             give the installation's public key with --public-key (its fingerprint is printed \
             in every report)",
            installation.key.display()
        );
        return Ok(ExitCode::from(2));
    }
    if report.intact() {
        outln!("intact");
        Ok(ExitCode::SUCCESS)
    } else {
        for problem in &report.problems {
            errln!("NOT INTACT: {problem}");
        }
        Ok(ExitCode::from(1))
    }
}

/// Whether a `--witness` names the central database rather than a journal or folder.
fn is_central(witness: &str) -> bool {
    // key=value connection settings (`host=db user=ana …`) too, unless such a file exists.
    let settings = witness.split_whitespace().next().is_some_and(|word| {
        word.split_once('=').is_some_and(|(key, _)| {
            !key.is_empty() && key.chars().all(|c| c.is_ascii_lowercase() || c == '_')
        })
    }) && !std::path::Path::new(witness).exists();
    settings
        || ["postgres://", "postgresql://", "env:", "file:"]
            .iter()
            .any(|p| witness.starts_with(p))
}

fn print_report(db: &std::path::Path, report: &VerifyReport, installation: Option<&Installation>) {
    outln!("{}", db.display());
    if let Some(record) = &report.record {
        outln!("  record {record}");
    }
    outln!("  sqlite integrity check: {}", report.integrity);
    for chain in &report.chains {
        let state = match &chain.problem {
            Some(_) => "BROKEN",
            None => "intact",
        };
        let head = if chain.head.is_empty() {
            "-"
        } else {
            &chain.head
        };
        outln!(
            "  {:<17} {:>9} rows  {state:<6}  head {head}",
            chain.table,
            chain.length
        );
    }
    if let Some(archived) = &report.archived {
        let rows = archived
            .rows
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(", ");
        outln!(
            "  not in this file: {rows}, up to checkpoint {}{} (`pitwatch archive list`)",
            archived.checkpoint,
            if archived.authentic {
                ", whose signature covers where the chains here carry on from"
            } else {
                ""
            }
        );
    }
    match &report.latest {
        Some(latest) => {
            outln!(
                "  signed: checkpoint {} of {} at {} by key {}{}",
                latest.text.id,
                report.checkpoints,
                latest.text.at,
                latest.key,
                match (latest.signature_valid, latest.trusted) {
                    (true, true) => " (valid, trusted)",
                    (true, false) => " (valid, but NOT a trusted key)",
                    (false, _) => " (NOT a valid signature of the record as it stands)",
                }
            );
            outln!("  latest checkpoint: {}", latest.text);
        }
        None => outln!("  signed: no checkpoint"),
    }
    let Some(installation) = installation else {
        return print_witnesses(report);
    };
    match installation.trusted() {
        Ok(keys) if !keys.is_empty() => {
            for key in keys {
                outln!(
                    "  installation key {} ({}), public key {}",
                    key.fingerprint(),
                    installation.key.display(),
                    key.to_hex()
                );
            }
        }
        Ok(_) => outln!("  installation key: none at {}", installation.key.display()),
        Err(e) => outln!("  installation key: {e}"),
    }
    print_witnesses(report);
}

/// The witnesses read, and the rows older than signing.
fn print_witnesses(report: &VerifyReport) {
    for journal in &report.journals {
        match &journal.read {
            Ok(()) => outln!(
                "  witness {}: {} checkpoint(s) of this record{}{}",
                journal.path.display(),
                journal.checkpoints,
                journal
                    .latest
                    .as_ref()
                    .map_or_else(String::new, |c| format!(", latest {} at {}", c.id, c.at)),
                if journal.unreadable > 0 {
                    format!(", {} line(s) unreadable", journal.unreadable)
                } else {
                    String::new()
                }
            ),
            Err(e) => outln!(
                "  witness {}: not read ({e}); truncation and rollback cannot be checked against it",
                journal.path.display()
            ),
        }
    }
    for range in &report.predating {
        outln!("  written before signing (vouched for by its chain alone): {range}");
    }
}
