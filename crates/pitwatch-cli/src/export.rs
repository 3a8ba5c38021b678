//! `pitwatch export incident N` and `pitwatch export shoe`: reports from the record as PDF (for
//! regulators and dispute files), CSV or JSON.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context};
use clap::{Args, Subcommand};
use pitwatch_report::Document;
use pitwatch_store::{IncidentId, Store};

/// `pitwatch export …`.
#[derive(Debug, Subcommand)]
pub enum ExportCommand {
    /// The report of one incident: rule, round, evidence timeline, sign-offs, anchoring hash.
    Incident {
        /// The incident's number.
        id: i64,
        #[command(flatten)]
        out: Outputs,
    },
    /// The report of one shoe of a table: every round and the irregularities raised in it.
    Shoe {
        /// The table.
        #[arg(long)]
        table: String,
        /// The shoe's number.
        #[arg(long)]
        shoe: u32,
        #[command(flatten)]
        out: Outputs,
    },
}

/// Where to write the report (any combination).
#[derive(Debug, Args)]
pub struct Outputs {
    /// The Pitwatch database.
    #[arg(long)]
    db: PathBuf,
    /// Write a PDF here.
    #[arg(long)]
    pdf: Option<PathBuf>,
    /// Write CSV here.
    #[arg(long)]
    csv: Option<PathBuf>,
    /// Write JSON here.
    #[arg(long)]
    json: Option<PathBuf>,
}

/// Runs `pitwatch export`.
pub fn run(command: ExportCommand) -> anyhow::Result<ExitCode> {
    let (document, out) = match command {
        ExportCommand::Incident { id, out } => {
            let store = open(&out.db)?;
            let name = out.db.file_name().map_or_else(
                || out.db.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            );
            (
                pitwatch_api::report::incident_report(&store, IncidentId(id), &name)?,
                out,
            )
        }
        ExportCommand::Shoe { table, shoe, out } => {
            let store = open(&out.db)?;
            (
                pitwatch_api::report::shoe_report(&store, &table, shoe)?,
                out,
            )
        }
    };
    if out.pdf.is_none() && out.csv.is_none() && out.json.is_none() {
        bail!("say where to write the report: --pdf FILE, --csv FILE and/or --json FILE");
    }
    write(&out.pdf, &document, pitwatch_report::render_pdf)?;
    write(&out.csv, &document, |d| d.to_csv().into_bytes())?;
    write(&out.json, &document, |d| d.to_json().into_bytes())?;
    Ok(ExitCode::SUCCESS)
}

fn open(db: &Path) -> anyhow::Result<Store> {
    if !db.exists() {
        bail!("{} does not exist", db.display());
    }
    Store::open_read_only(db).with_context(|| format!("cannot open {}", db.display()))
}

fn write(
    path: &Option<PathBuf>,
    document: &Document,
    render: impl Fn(&Document) -> Vec<u8>,
) -> anyhow::Result<()> {
    if let Some(path) = path {
        std::fs::write(path, render(document))
            .with_context(|| format!("cannot write {}", path.display()))?;
        outln!("wrote {}", path.display());
    }
    Ok(())
}
