//! `pitwatch verify --db FILE`: recomputes every hash chain of a record and SQLite's integrity
//! check. Exit 0 with the counts and chain heads when all is intact; exit 1 naming the first row
//! that does not match; exit 2 when the file cannot be read as a Pitwatch database.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;
use pitwatch_store::Store;

/// Arguments of `pitwatch verify`.
#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// The Pitwatch database file.
    #[arg(long)]
    db: PathBuf,
}

/// Runs `pitwatch verify`.
pub fn run(args: VerifyArgs) -> anyhow::Result<ExitCode> {
    if !args.db.exists() {
        anyhow::bail!("{} does not exist", args.db.display());
    }
    let store = Store::open_read_only(&args.db)
        .with_context(|| format!("cannot open {}", args.db.display()))?;
    let report = store.verify().context("cannot read the record")?;
    outln!("{}", args.db.display());
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
            chain.rows
        );
    }
    match &report.first_problem {
        Some(problem) => {
            errln!("NOT INTACT: {problem}");
            Ok(ExitCode::from(1))
        }
        None if report.integrity != "ok" => {
            errln!("NOT INTACT: SQLite integrity check: {}", report.integrity);
            Ok(ExitCode::from(1))
        }
        None => {
            outln!("intact");
            Ok(ExitCode::SUCCESS)
        }
    }
}
