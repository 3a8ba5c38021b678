//! `pitwatch export incident N`, `pitwatch export shoe` and `pitwatch export shift`: reports from
//! the record as PDF (for regulators, dispute files and the shift handover), CSV or JSON, by an
//! authenticated user (every role may export), each export audited.
//!
//! From a central copy (`--central URL --workstation SITE/NAME`, issue 16) the user signs in
//! against the accounts the copy holds, and nothing is audited: the central copy takes no writes
//! (and an audit row written anywhere else would not be in the workstation's record either). The
//! report says so instead: it names who exported it, from which central copy and as of which
//! checkpoint, and that the export is not in the workstation's audit log.

use crate::credentials;

use std::path::{Path, PathBuf};

use std::process::ExitCode;

use anyhow::{bail, Context};
use clap::{Args, Subcommand};
use pitwatch_app::{reports, Command};
use pitwatch_model::Timestamp;
use pitwatch_recording::record::Installation;
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
    /// The shift handover report: every table's shoes and rounds, the incidents opened,
    /// acknowledged, resolved and still open, device errors and link outages with their
    /// durations, hand-over sign-offs, and the record's chain heads.
    Shift {
        /// The shift's start, RFC 3339 (`2026-11-30T06:00:00Z`).
        #[arg(long)]
        from: Timestamp,
        /// The shift's end (exclusive), RFC 3339.
        #[arg(long)]
        to: Timestamp,
        /// Only this table (default: every table).
        #[arg(long)]
        table: Option<String>,
        #[command(flatten)]
        out: Outputs,
    },
}

/// Where to write the report (any combination), and who exports it.
#[derive(Debug, Args)]
pub struct Outputs {
    /// The Pitwatch database.
    #[arg(long, required_unless_present = "central")]
    db: Option<PathBuf>,
    #[command(flatten)]
    source: crate::central::CentralSource,
    /// The user exporting (password from PITWATCH_PASSWORD or standard input); every role may
    /// export, and each export is audited with the user and the workstation.
    #[arg(long)]
    user: String,
    /// Write a PDF here.
    #[arg(long)]
    pdf: Option<PathBuf>,
    /// Write CSV here.
    #[arg(long)]
    csv: Option<PathBuf>,
    /// Write JSON here.
    #[arg(long)]
    json: Option<PathBuf>,
    /// The author named in the report's metadata (default: the user exporting).
    #[arg(long)]
    author: Option<String>,
}

/// Runs `pitwatch export`.
pub fn run(command: ExportCommand) -> anyhow::Result<ExitCode> {
    let (what, subject, out) = match &command {
        ExportCommand::Incident { id, out } => {
            (Command::ExportIncident, format!("incident {id}"), out)
        }
        ExportCommand::Shoe { table, shoe, out } => (
            Command::ExportShoe,
            format!("table {table} shoe {shoe}"),
            out,
        ),
        ExportCommand::Shift { from, to, out, .. } => {
            (Command::ExportShift, format!("shift {from} to {to}"), out)
        }
    };
    if out.pdf.is_none() && out.csv.is_none() && out.json.is_none() {
        bail!("say where to write the report: --pdf FILE, --csv FILE and/or --json FILE");
    }
    if out.source.central.is_some() {
        return run_central(&command, what, out);
    }
    let Some(db) = out.db.as_deref() else {
        bail!("give --db FILE or --central URL");
    };
    let name = db.file_name().map_or_else(
        || db.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    // Who exports, and whether their role may: on a writable connection, which audits the
    // export (and a refusal) in the record.
    if !db.exists() {
        bail!("{} does not exist", db.display());
    }
    let mut audit = Installation::from_env()
        .open(db)
        .with_context(|| format!("cannot open {}", db.display()))?;
    let who = credentials::login(&mut audit, &out.user, credentials::PASSWORD)?;
    reports::may_export(&mut audit, &who, what, &subject, crate::now())?;
    let store = open(db)?;
    // The shift's dealers' section only for a role that may read the dealers' figures.
    let dealers = Command::ViewDealers.allowed(who.role);
    let document = report(&command, &store, &name, dealers)?;
    // A report vouches only for what it verified; a record that failed is not extended by the
    // export's audit row, and no report is written.
    reports::vouch(&store, &mut audit)?;
    let author = out.author.clone().unwrap_or_else(|| who.user.clone());
    let document = document.stamped(&author, crate::now().as_datetime());
    let written = write_all(out, &document)?;
    reports::exported(
        &mut audit,
        &who,
        what,
        &subject,
        &written.join(", "),
        crate::now(),
    )?;
    Ok(ExitCode::SUCCESS)
}

/// The report `command` asks for, from `store` (named `name` in it).
fn report(
    command: &ExportCommand,
    store: &Store,
    name: &str,
    dealers: bool,
) -> anyhow::Result<Document> {
    Ok(match command {
        ExportCommand::Incident { id, .. } => {
            pitwatch_recording::report::incident_report(store, IncidentId(*id), name)?
        }
        ExportCommand::Shift {
            from, to, table, ..
        } => {
            let shift = pitwatch_recording::report::Shift::new(*from, *to, table.clone())?;
            let own = std::collections::BTreeMap::new();
            pitwatch_recording::report::shift_report_with(
                store,
                &shift,
                name,
                dealers.then_some(&own),
            )?
        }
        ExportCommand::Shoe { table, shoe, .. } => {
            pitwatch_recording::report::shoe_report(store, table, *shoe)?
        }
    })
}

/// `pitwatch export … --central URL --workstation SITE/NAME`: the report from the central copy,
/// by a user of the workstation's accounts, not audited (the central copy takes no writes), and
/// saying so in the report.
fn run_central(command: &ExportCommand, what: Command, out: &Outputs) -> anyhow::Result<ExitCode> {
    let source = out.source.resolve(None)?;
    let store = Installation::from_env()
        .open_read_only(&source.db)
        .context("cannot open the central copy")?;
    let password = credentials::password(credentials::PASSWORD, &out.user)?;
    let desk = pitwatch_app::access::workstation();
    let who =
        pitwatch_app::surveillance::central_exporter(&store, &out.user, &password, what, &desk)?;
    let copy = source
        .describe
        .clone()
        .unwrap_or_else(|| "the central copy".to_owned());
    let document = report(
        command,
        &store,
        &copy,
        Command::ViewDealers.allowed(who.role),
    )?;
    let author = out.author.clone().unwrap_or_else(|| who.user.clone());
    let mut document = document.stamped(&author, crate::now().as_datetime());
    document.blocks.push(pitwatch_report::Block::Heading {
        text: "Exported from the central copy".into(),
    });
    document.blocks.push(pitwatch_report::Block::Paragraph {
        text: format!(
            "Exported by {} ({}) at {desk} on {}, from {copy}. The central copy takes no writes, \
             so this export is not in the workstation's audit log.",
            who.user,
            who.role.as_str(),
            crate::now()
        ),
    });
    write_all(out, &document)?;
    errln!("not audited: the central copy takes no writes (the report says so)");
    Ok(ExitCode::SUCCESS)
}

/// Writes `document` everywhere `out` asks; what was written.
fn write_all(out: &Outputs, document: &Document) -> anyhow::Result<Vec<String>> {
    let mut written = Vec::new();
    write(&out.pdf, document, &mut written, |d| {
        Ok(pitwatch_report::render_pdf(d)?.bytes)
    })?;
    write(&out.csv, document, &mut written, |d| {
        Ok(d.to_csv().into_bytes())
    })?;
    write(&out.json, document, &mut written, |d| {
        Ok(d.to_json().into_bytes())
    })?;
    Ok(written)
}

/// `db` opened read-only, as the reports read it.
pub(crate) fn open(db: &Path) -> anyhow::Result<Store> {
    if !db.exists() {
        bail!("{} does not exist", db.display());
    }
    Installation::from_env()
        .open_read_only(db)
        .with_context(|| format!("cannot open {}", db.display()))
}

fn write(
    path: &Option<PathBuf>,
    document: &Document,
    written: &mut Vec<String>,
    render: impl Fn(&Document) -> anyhow::Result<Vec<u8>>,
) -> anyhow::Result<()> {
    if let Some(path) = path {
        std::fs::write(path, render(document)?)
            .with_context(|| format!("cannot write {}", path.display()))?;
        outln!("wrote {}", path.display());
        written.push(path.display().to_string());
    }
    Ok(())
}
