//! `pitwatch incidents`, `pitwatch incident ack|note|resolve`, `pitwatch user add`: working
//! incidents from the command line, each step by a named, authenticated user and audited.
//!
//! Passwords are never arguments (they would end up in shell history and process lists): they
//! come from the `PITWATCH_PASSWORD` environment variable or the first line of standard input.

use std::io::BufRead;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context};
use clap::{Args, Subcommand, ValueEnum};
use pitwatch_api::record::Installation;
use pitwatch_model::Timestamp;
use pitwatch_store::{Incident, IncidentFilter, IncidentId, Role, Status, Store};

/// Arguments of `pitwatch incidents`.
#[derive(Debug, Args)]
pub struct ListArgs {
    /// The Pitwatch database.
    #[arg(long)]
    db: PathBuf,
    /// Only incidents at this table.
    #[arg(long)]
    table: Option<String>,
    /// Only incidents in this state.
    #[arg(long, value_enum)]
    status: Option<StatusArg>,
    /// Only incidents opened at or after this time (RFC 3339).
    #[arg(long)]
    since: Option<Timestamp>,
    /// One JSON object per incident instead of a table.
    #[arg(long)]
    json: bool,
}

/// An incident state on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum StatusArg {
    /// Not yet acknowledged.
    Open,
    /// Acknowledged, not resolved.
    Acknowledged,
    /// Resolved.
    Resolved,
}

impl From<StatusArg> for Status {
    fn from(value: StatusArg) -> Self {
        match value {
            StatusArg::Open => Status::Open,
            StatusArg::Acknowledged => Status::Acknowledged,
            StatusArg::Resolved => Status::Resolved,
        }
    }
}

/// `pitwatch incident …`: one step of the workflow.
#[derive(Debug, Subcommand)]
pub enum IncidentCommand {
    /// Acknowledge an open incident.
    Ack(StepArgs),
    /// Add a note to an incident.
    Note {
        #[command(flatten)]
        step: StepArgs,
        /// The note.
        text: String,
    },
    /// Resolve an incident, saying how.
    Resolve {
        #[command(flatten)]
        step: StepArgs,
        /// How it was resolved.
        #[arg(long)]
        resolution: String,
    },
    /// Show one incident with its history.
    Show {
        /// The Pitwatch database.
        #[arg(long)]
        db: PathBuf,
        /// The incident's number.
        id: i64,
    },
}

/// Who does what to which incident.
#[derive(Debug, Args)]
pub struct StepArgs {
    /// The Pitwatch database.
    #[arg(long)]
    db: PathBuf,
    /// The user taking the step (password from PITWATCH_PASSWORD or standard input).
    #[arg(long)]
    user: String,
    /// The incident's number.
    id: i64,
}

/// `pitwatch user …`.
#[derive(Debug, Subcommand)]
pub enum UserCommand {
    /// Add a user (password from PITWATCH_PASSWORD or standard input).
    Add {
        /// The Pitwatch database (created if missing).
        #[arg(long)]
        db: PathBuf,
        /// What the user may do.
        #[arg(long, value_enum)]
        role: RoleArg,
        /// The user's name.
        name: String,
    },
}

/// A role on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RoleArg {
    /// Pit supervisor.
    Supervisor,
    /// Surveillance or compliance.
    Surveillance,
    /// Administrator.
    Admin,
}

fn password() -> anyhow::Result<String> {
    if let Ok(password) = std::env::var("PITWATCH_PASSWORD") {
        return Ok(password);
    }
    let mut line = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut line)
        .context("cannot read the password from standard input")?;
    let password = line.trim_end_matches(['\r', '\n']).to_owned();
    if password.is_empty() {
        bail!("no password: set PITWATCH_PASSWORD or give it on standard input");
    }
    Ok(password)
}

fn open(db: &std::path::Path) -> anyhow::Result<Store> {
    if !db.exists() {
        bail!("{} does not exist", db.display());
    }
    Installation::from_env()
        .open(db)
        .with_context(|| format!("cannot open {}", db.display()))
}

/// Runs `pitwatch user …`.
pub fn run_user(command: UserCommand) -> anyhow::Result<ExitCode> {
    let UserCommand::Add { db, role, name } = command;
    let mut store = Installation::from_env()
        .open(&db)
        .with_context(|| format!("cannot open {}", db.display()))?;
    let role = match role {
        RoleArg::Supervisor => Role::Supervisor,
        RoleArg::Surveillance => Role::Surveillance,
        RoleArg::Admin => Role::Admin,
    };
    store.add_user(&name, role, &password()?, crate::now())?;
    outln!("user {name} added as {}", role.as_str());
    Ok(ExitCode::SUCCESS)
}

/// Runs `pitwatch incidents`.
pub fn run_list(args: ListArgs) -> anyhow::Result<ExitCode> {
    let store = open(&args.db)?;
    let filter = IncidentFilter {
        table: args.table,
        status: args.status.map(Status::from),
        since: args.since,
        ..Default::default()
    };
    let incidents = store.incidents(&filter)?;
    if args.json {
        for incident in &incidents {
            outln!("{}", to_json(incident));
        }
        return Ok(ExitCode::SUCCESS);
    }
    if incidents.is_empty() {
        outln!("no incidents");
        return Ok(ExitCode::SUCCESS);
    }
    outln!(
        "{:>5}  {:<24}  {:<10}  {:<26}  {:<8}  {:<12}  {:>4}  {:>5}",
        "#",
        "opened",
        "table",
        "code",
        "severity",
        "status",
        "shoe",
        "round"
    );
    for i in &incidents {
        outln!(
            "{:>5}  {:<24}  {:<10}  {:<26}  {:<8}  {:<12}  {:>4}  {:>5}",
            i.id.0,
            i.opened_at,
            i.table,
            i.code,
            i.severity,
            i.status.as_str(),
            i.shoe.map_or_else(|| "-".into(), |s| s.to_string()),
            i.round.map_or_else(|| "-".into(), |r| r.to_string()),
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn to_json(i: &Incident) -> serde_json::Value {
    serde_json::json!({
        "id": i.id.0,
        "table": i.table,
        "code": i.code,
        "severity": i.severity,
        "rule": i.rule,
        "shoe": i.shoe,
        "round": i.round,
        "seq": i.seq,
        "evidence": i.evidence,
        "message": i.message,
        "opened_at": i.opened_at,
        "status": i.status.as_str(),
    })
}

/// Runs `pitwatch incident …`.
pub fn run_step(command: IncidentCommand) -> anyhow::Result<ExitCode> {
    let now = crate::now();
    match command {
        IncidentCommand::Show { db, id } => {
            let store = open(&db)?;
            let incident = store.incident(IncidentId(id))?;
            outln!(
                "incident {}: {} ({}) at {}, {}",
                id,
                incident.code,
                incident.severity,
                incident.table,
                incident.status.as_str()
            );
            outln!("  rule: {}", incident.rule);
            outln!("  {}", incident.message);
            outln!(
                "  evidence: seq {}",
                incident
                    .evidence
                    .iter()
                    .map(u64::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            if let Some(group) = store.incident_group(IncidentId(id))? {
                if group.count > 1 {
                    outln!(
                        "  stands for {} like irregularities ({}), the last at seq {}, {}",
                        group.count,
                        group.key,
                        group.last_seq,
                        group.last_at
                    );
                }
            }
            for step in store.incident_history(IncidentId(id))? {
                outln!(
                    "  {}  {:<12} {:<10} {}",
                    step.at,
                    step.what,
                    step.user.as_deref().unwrap_or("(engine)"),
                    step.text.as_deref().unwrap_or("")
                );
            }
            Ok(ExitCode::SUCCESS)
        }
        IncidentCommand::Ack(step) => {
            let mut store = authenticated(&step)?;
            store.acknowledge(IncidentId(step.id), &step.user, now)?;
            outln!("incident {} acknowledged by {}", step.id, step.user);
            Ok(ExitCode::SUCCESS)
        }
        IncidentCommand::Note { step, text } => {
            let mut store = authenticated(&step)?;
            store.add_note(IncidentId(step.id), &step.user, &text, now)?;
            outln!("note added to incident {} by {}", step.id, step.user);
            Ok(ExitCode::SUCCESS)
        }
        IncidentCommand::Resolve { step, resolution } => {
            let mut store = authenticated(&step)?;
            store.resolve(IncidentId(step.id), &step.user, &resolution, now)?;
            outln!("incident {} resolved by {}", step.id, step.user);
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn authenticated(step: &StepArgs) -> anyhow::Result<Store> {
    let store = open(&step.db)?;
    store.authenticate(&step.user, &password()?)?;
    Ok(store)
}
