//! `pitwatch incidents`, `pitwatch incident ack|note|surveillance|resolve|reopen|pack`, `pitwatch user …`: working
//! incidents and accounts from the command line through the application layer
//! (`pitwatch-app`), each step by a named, authenticated user whose role allows it, audited.
//!
//! Passwords are never arguments (see [`crate::credentials`]).

use crate::credentials;

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context};
use clap::{Args, Subcommand, ValueEnum};
use pitwatch_api::dto::ResolutionKind;
use pitwatch_api::{ApiError, ErrorCode};
use pitwatch_app::accounts::{self, Policy};
use pitwatch_app::reviews::{self, ReviewPeriods};
use pitwatch_model::Timestamp;
use pitwatch_recording::record::Installation;
use pitwatch_store::{Incident, IncidentFilter, IncidentId, Role, Status, Store};

/// Arguments of `pitwatch incidents`.
#[derive(Debug, Args)]
pub struct ListArgs {
    /// The Pitwatch database.
    #[arg(long, required_unless_present = "central")]
    db: Option<PathBuf>,
    #[command(flatten)]
    source: crate::central::CentralSource,
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

/// A resolution on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutcomeArg {
    /// Confirmed irregularity — handled per procedure.
    Confirmed,
    /// False alarm — device misread.
    FalseAlarm,
    /// Duplicate (of another incident).
    Duplicate,
    /// Something else, said with --resolution.
    Other,
}

impl From<OutcomeArg> for ResolutionKind {
    fn from(value: OutcomeArg) -> Self {
        match value {
            OutcomeArg::Confirmed => ResolutionKind::Confirmed,
            OutcomeArg::FalseAlarm => ResolutionKind::FalseAlarm,
            OutcomeArg::Duplicate => ResolutionKind::Duplicate,
            OutcomeArg::Other => ResolutionKind::Other,
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
    /// Resolve an acknowledged incident, saying how: a resolution from the list (--outcome),
    /// written text beside it (--resolution), or both.
    Resolve {
        #[command(flatten)]
        step: StepArgs,
        /// The resolution chosen (without it: `other`, which needs --resolution).
        #[arg(long, value_enum, default_value = "other")]
        outcome: OutcomeArg,
        /// How it was resolved, in words (required for `other`).
        #[arg(long, default_value = "")]
        resolution: String,
    },
    /// Reopen a resolved incident, saying why.
    Reopen {
        #[command(flatten)]
        step: StepArgs,
        /// Why it is reopened.
        #[arg(long)]
        reason: String,
    },
    /// Enter an incident's surveillance log: the camera or recording reviewed, its time code,
    /// the disposition and the employees involved (a note of its own form, audited).
    Surveillance {
        #[command(flatten)]
        step: StepArgs,
        /// The camera or recording reviewed (its reference).
        #[arg(long)]
        camera: String,
        /// The time code in that recording.
        #[arg(long)]
        time_code: String,
        /// What the footage showed and what was decided.
        #[arg(long)]
        disposition: String,
        /// An employee involved, by name or badge (repeatable).
        #[arg(long = "employee")]
        employees: Vec<String>,
    },
    /// Write an incident's evidence pack: its report, its rows and the signed checkpoints over
    /// them, in one file that `pitwatch verify --pack FILE --key KEY` checks on any machine
    /// with no database (audited as `incident.export_pack`; every role may export).
    Pack {
        #[command(flatten)]
        step: StepArgs,
        /// Where to write the pack (`incident-N.pwpack`, say).
        #[arg(long)]
        out: PathBuf,
    },
    /// Show one incident with its history.
    Show {
        /// The Pitwatch database.
        #[arg(long, required_unless_present = "central")]
        db: Option<PathBuf>,
        #[command(flatten)]
        source: crate::central::CentralSource,
        /// Who looks (password from PITWATCH_PASSWORD or standard input). The look is audited
        /// (`incident.view`) with them, or as nobody logged in without it; a look at the
        /// central copy, which takes no writes, is not.
        #[arg(long)]
        user: Option<String>,
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

/// `pitwatch user …`. Every command but the first administrator's creation needs an
/// administrator (`--admin NAME`, password from PITWATCH_ADMIN_PASSWORD or the first line of
/// standard input) and is audited with them as the actor.
#[derive(Debug, Subcommand)]
pub enum UserCommand {
    /// Add a user (their password from PITWATCH_PASSWORD or the next line of standard input).
    /// Without --admin only the first administrator of a record with no users can be added.
    Add {
        /// The Pitwatch database (created if missing).
        #[arg(long)]
        db: PathBuf,
        /// What the user may do.
        #[arg(long, value_enum)]
        role: RoleArg,
        /// The administrator adding them.
        #[arg(long)]
        admin: Option<String>,
        /// The user's name.
        name: String,
    },
    /// Give a user another role.
    Role {
        #[command(flatten)]
        target: AdminArgs,
        /// The new role.
        #[arg(long, value_enum)]
        role: RoleArg,
    },
    /// Set a user's password (the new one from PITWATCH_PASSWORD or the next line of standard
    /// input).
    Password {
        #[command(flatten)]
        target: AdminArgs,
    },
    /// Deactivate a user: they can no longer log in; their name stays on record.
    Deactivate {
        #[command(flatten)]
        target: AdminArgs,
    },
    /// Let a deactivated user log in again.
    Activate {
        #[command(flatten)]
        target: AdminArgs,
    },
    /// Set your own password: the current one from PITWATCH_PASSWORD or standard input, the new
    /// one from PITWATCH_NEW_PASSWORD or the next line. This is how a password older than 90 days
    /// is replaced; it logs you in like a login, throttled alike.
    Renew {
        /// The Pitwatch database.
        #[arg(long)]
        db: PathBuf,
        /// Your user name.
        name: String,
    },
    /// The access listing: every user with their role, whether active, when added, when their
    /// password was set, their last login and what their role may do.
    List {
        /// The Pitwatch database.
        #[arg(long)]
        db: PathBuf,
        /// The administrator asking.
        #[arg(long)]
        admin: String,
    },
    /// The access listing for an access review (administrators and inspectors, the password
    /// from PITWATCH_PASSWORD or standard input): every user's role, status (active, disabled,
    /// locked, password expired), password age, last login and live session, what each role
    /// may do, and the digest a review signs. `--csv FILE` writes it as CSV (no cell a formula).
    Access {
        /// The Pitwatch database.
        #[arg(long)]
        db: PathBuf,
        /// Who asks (an administrator or an inspector).
        #[arg(long = "as")]
        user: String,
        /// Write the listing as CSV to this file too.
        #[arg(long)]
        csv: Option<PathBuf>,
    },
    /// Where the periodic reviews stand: the last access and log reviews, when each is due,
    /// and which are overdue (PITWATCH_ACCESS_REVIEW_DAYS, PITWATCH_LOG_REVIEW_DAYS).
    Reviews {
        /// The Pitwatch database.
        #[arg(long)]
        db: PathBuf,
        /// Who asks (any user).
        #[arg(long = "as")]
        user: String,
    },
    /// Sign the access review of the listing whose digest `pitwatch user access` printed
    /// (administrators and inspectors).
    ReviewAccess {
        /// The Pitwatch database.
        #[arg(long)]
        db: PathBuf,
        /// The reviewer.
        #[arg(long = "as")]
        user: String,
        /// The digest of the listing reviewed.
        #[arg(long)]
        digest: String,
        /// What was found.
        #[arg(long)]
        comment: String,
    },
    /// Sign off the audit log from FROM to TO (RFC 3339; surveillance and inspectors, never an
    /// administrator).
    ReviewLog {
        /// The Pitwatch database.
        #[arg(long)]
        db: PathBuf,
        /// The reviewer.
        #[arg(long = "as")]
        user: String,
        /// The period's start.
        #[arg(long)]
        from: String,
        /// The period's end (exclusive).
        #[arg(long)]
        to: String,
        /// What was found.
        #[arg(long)]
        comment: String,
    },
}

/// An administrator acting on a user.
#[derive(Debug, Args)]
pub struct AdminArgs {
    /// The Pitwatch database.
    #[arg(long)]
    db: PathBuf,
    /// The administrator making the change.
    #[arg(long)]
    admin: String,
    /// The user changed.
    name: String,
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
    /// Inspector: reads and exports everything, changes nothing, every read audited.
    Inspector,
}

impl From<RoleArg> for Role {
    fn from(value: RoleArg) -> Self {
        match value {
            RoleArg::Supervisor => Role::Supervisor,
            RoleArg::Surveillance => Role::Surveillance,
            RoleArg::Admin => Role::Admin,
            RoleArg::Inspector => Role::Inspector,
        }
    }
}

pub(crate) fn open(db: &std::path::Path) -> anyhow::Result<Store> {
    if !db.exists() {
        bail!("{} does not exist", db.display());
    }
    Installation::from_env()
        .open(db)
        .with_context(|| format!("cannot open {}", db.display()))
}

/// Runs `pitwatch user …`.
pub fn run_user(command: UserCommand) -> anyhow::Result<ExitCode> {
    let now = crate::now();
    match command {
        UserCommand::Add {
            db,
            role,
            admin,
            name,
        } => {
            let mut store = Installation::from_env()
                .open(&db)
                .with_context(|| format!("cannot open {}", db.display()))?;
            let role = Role::from(role);
            match admin {
                None => {
                    if !accounts::needs_first_admin(&store)? {
                        return Err(ApiError::new(
                            ErrorCode::Forbidden,
                            "this record has users: an administrator adds more (--admin NAME, \
                             their password from PITWATCH_ADMIN_PASSWORD or standard input)",
                        )
                        .into());
                    }
                    if role != Role::Admin {
                        bail!("the first user of a record is its administrator: --role admin");
                    }
                    let password = credentials::password(credentials::PASSWORD, &name)?;
                    accounts::create_first_admin(
                        &mut store,
                        &name,
                        &password,
                        &pitwatch_app::access::workstation(),
                        now,
                    )?;
                    outln!("user {} added as the first administrator", name.trim());
                }
                Some(admin) => {
                    let who = credentials::login(&mut store, &admin, credentials::ADMIN_PASSWORD)?;
                    let password = credentials::password(credentials::PASSWORD, &name)?;
                    let added = accounts::add_user(&mut store, &who, &name, role, &password, now)?;
                    outln!("user {} added as {} by {admin}", added.name, added.role);
                }
            }
        }
        UserCommand::Role { target, role } => {
            let (mut store, who) = as_admin(&target)?;
            accounts::change_role(&mut store, &who, &target.name, role.into(), now)?;
            outln!("user {} is now {}", target.name, Role::from(role).as_str());
        }
        UserCommand::Password { target } => {
            let (mut store, who) = as_admin(&target)?;
            let password = credentials::password(credentials::PASSWORD, &target.name)?;
            accounts::reset_password(&mut store, &who, &target.name, &password, now)?;
            outln!("password of {} set", target.name);
        }
        UserCommand::Deactivate { target } => {
            let (mut store, who) = as_admin(&target)?;
            accounts::set_active(&mut store, &who, &target.name, false, now)?;
            outln!("user {} deactivated", target.name);
        }
        UserCommand::Activate { target } => {
            let (mut store, who) = as_admin(&target)?;
            accounts::set_active(&mut store, &who, &target.name, true, now)?;
            outln!("user {} active again", target.name);
        }
        UserCommand::Renew { db, name } => {
            let mut store = open(&db)?;
            let password = credentials::password(credentials::PASSWORD, &name)?;
            let new = credentials::password(credentials::NEW_PASSWORD, &format!("{name}'s new"))?;
            accounts::change_own_password(
                &mut store,
                &name,
                &password,
                &new,
                &pitwatch_app::access::workstation(),
                now,
            )?;
            outln!("password of {} set by {}", name.trim(), name.trim());
        }
        UserCommand::List { db, admin } => {
            let mut store = open(&db)?;
            let who = credentials::login(&mut store, &admin, credentials::ADMIN_PASSWORD)?;
            outln!(
                "{:<24}  {:<12}  {:<8}  {:<24}  {:<24}  {:<24}  may",
                "user",
                "role",
                "status",
                "added",
                "password set",
                "last login"
            );
            for user in accounts::users(&mut store, &who, now)? {
                outln!(
                    "{:<24}  {:<12}  {:<8}  {:<24}  {:<24}  {:<24}  {}",
                    user.name,
                    user.role,
                    if user.active { "active" } else { "inactive" },
                    user.created_at,
                    user.password_set_at.as_deref().unwrap_or("-"),
                    user.last_login_at.as_deref().unwrap_or("never"),
                    user.may.join(", ")
                );
            }
        }
        UserCommand::Access { db, user, csv } => {
            let mut store = open(&db)?;
            let who = credentials::login(&mut store, &user, credentials::PASSWORD)?;
            let listing = reviews::access_listing(&mut store, &who, &Policy::STANDARD, now)?;
            print_listing(&listing);
            if let Some(path) = csv {
                let site = store.meta("site")?.unwrap_or_default();
                std::fs::write(&path, reviews::listing_document(&listing, &site).to_csv())
                    .with_context(|| format!("cannot write {}", path.display()))?;
                outln!("written to {}", path.display());
            }
        }
        UserCommand::Reviews { db, user } => {
            let mut store = open(&db)?;
            credentials::login(&mut store, &user, credentials::PASSWORD)?;
            let periods = ReviewPeriods::from_env(|v| std::env::var(v).ok())?;
            let status = reviews::review_status(&store, &periods, now)?;
            let last = |r: &Option<pitwatch_api::dto::ReviewRow>| {
                r.as_ref().map_or("never".to_owned(), |r| {
                    format!("{} by {} ({})", r.at, r.reviewer, r.role)
                })
            };
            outln!(
                "access review: last {}; every {} days; due {}",
                last(&status.last_access),
                status.access_every_days,
                status.access_due
            );
            outln!(
                "audit log review: last {}; every {} days; due {}",
                last(&status.last_log),
                status.log_every_days,
                status.log_due
            );
            for alert in &status.alerts {
                outln!("ALERT: {}", alert.message);
            }
        }
        UserCommand::ReviewAccess {
            db,
            user,
            digest,
            comment,
        } => {
            let mut store = open(&db)?;
            let who = credentials::login(&mut store, &user, credentials::PASSWORD)?;
            let request = pitwatch_api::dto::AccessReviewRequest { digest, comment };
            let signed =
                reviews::sign_access_review(&mut store, &who, &Policy::STANDARD, &request, now)?;
            outln!(
                "access review signed by {} at {} (listing {})",
                signed.reviewer,
                signed.at,
                signed.digest
            );
        }
        UserCommand::ReviewLog {
            db,
            user,
            from,
            to,
            comment,
        } => {
            let mut store = open(&db)?;
            let who = credentials::login(&mut store, &user, credentials::PASSWORD)?;
            let request = pitwatch_api::dto::LogReviewRequest { from, to, comment };
            let signed = reviews::sign_log_review(&mut store, &who, &request, now)?;
            outln!(
                "audit log review signed by {} at {}: {} rows, digest {}",
                signed.reviewer,
                signed.at,
                signed.rows.unwrap_or(0),
                signed.digest
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Prints the access listing: one line per user, then each role's commands and the digest.
fn print_listing(listing: &pitwatch_api::dto::AccessListing) {
    outln!(
        "{:<24}  {:<12}  {:<16}  {:>8}  {:<24}  {:<16}  may",
        "user",
        "role",
        "status",
        "pw days",
        "last login",
        "session at"
    );
    for user in &listing.users {
        outln!(
            "{:<24}  {:<12}  {:<16}  {:>8}  {:<24}  {:<16}  {}",
            user.name,
            user.role,
            user.status,
            user.password_age_days
                .map_or("-".to_owned(), |d| d.to_string()),
            user.last_login_at.as_deref().unwrap_or("never"),
            user.session_at.as_deref().unwrap_or("-"),
            user.may.join(", ")
        );
    }
    outln!("");
    for role in &listing.roles {
        outln!("{:<12}  may {}", role.role, role.may.join(", "));
    }
    outln!("digest {}", listing.digest);
}

fn as_admin(target: &AdminArgs) -> anyhow::Result<(Store, pitwatch_app::Principal)> {
    let mut store = open(&target.db)?;
    let who = credentials::login(&mut store, &target.admin, credentials::ADMIN_PASSWORD)?;
    Ok((store, who))
}

/// Opens a record to read: a central copy read-only (nothing may be written to it), a file as
/// the installation opens it.
fn open_source(source: &crate::central::Source) -> anyhow::Result<Store> {
    if source.central {
        Store::open_read_only(&source.db).context("cannot open the central copy")
    } else {
        open(&source.db)
    }
}

/// Runs `pitwatch incidents`.
pub fn run_list(args: ListArgs) -> anyhow::Result<ExitCode> {
    let source = args.source.resolve(args.db.as_deref())?;
    let store = open_source(&source)?;
    let filter = IncidentFilter {
        table: args.table,
        status: args.status.map(Status::from),
        since: args.since,
        ..Default::default()
    };
    let incidents = store.incidents(&filter)?;
    if args.json {
        for incident in &incidents {
            crate::out::json(&to_json(incident), false);
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
        IncidentCommand::Show {
            db,
            source,
            user,
            id,
        } => {
            let source = source.resolve(db.as_deref())?;
            let mut store = open_source(&source)?;
            let who = match (&user, source.central) {
                (Some(user), false) => Some(credentials::login(
                    &mut store,
                    user,
                    credentials::PASSWORD,
                )?),
                (Some(_), true) => anyhow::bail!(
                    "--user is for a workstation's record: the central copy takes no writes, so a look there is not audited"
                ),
                (None, _) => None,
            };
            let incident = store.incident(IncidentId(id))?;
            if !source.central {
                // Audited before anything is shown: a look that cannot be put on record is
                // not made.
                pitwatch_app::viewed::audit_read(
                    &mut store,
                    who.as_ref(),
                    pitwatch_app::viewed::INCIDENT_VIEWED,
                    &id.to_string(),
                    now,
                )
                .map_err(|e| {
                    anyhow::anyhow!("the look could not be put on record: {}", e.message)
                })?;
            }
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
            let (mut store, who) = authenticated(&step)?;
            pitwatch_app::incidents::acknowledge(&mut store, &who, step.id, now)?;
            outln!("incident {} acknowledged by {}", step.id, step.user);
            Ok(ExitCode::SUCCESS)
        }
        IncidentCommand::Note { step, text } => {
            let (mut store, who) = authenticated(&step)?;
            pitwatch_app::incidents::add_note(&mut store, &who, step.id, &text, now)?;
            outln!("note added to incident {} by {}", step.id, step.user);
            Ok(ExitCode::SUCCESS)
        }
        IncidentCommand::Resolve {
            step,
            outcome,
            resolution,
        } => {
            let (mut store, who) = authenticated(&step)?;
            let kind = ResolutionKind::from(outcome);
            pitwatch_app::incidents::resolve(&mut store, &who, step.id, kind, &resolution, now)?;
            outln!("incident {} resolved by {}", step.id, step.user);
            Ok(ExitCode::SUCCESS)
        }
        IncidentCommand::Surveillance {
            step,
            camera,
            time_code,
            disposition,
            employees,
        } => {
            let (mut store, who) = authenticated(&step)?;
            let log = pitwatch_api::dto::SurveillanceLog {
                camera,
                time_code,
                disposition,
                employees,
            };
            pitwatch_app::incidents::add_surveillance_log(&mut store, &who, step.id, &log, now)?;
            outln!(
                "surveillance log added to incident {} by {}",
                step.id,
                step.user
            );
            Ok(ExitCode::SUCCESS)
        }
        IncidentCommand::Pack { step, out } => {
            let (mut store, who) = authenticated(&step)?;
            let subject = format!("incident {}", step.id);
            pitwatch_app::reports::may_export(
                &mut store,
                &who,
                pitwatch_app::Command::ExportIncident,
                &subject,
                now,
            )?;
            let reader = crate::export::open(&step.db)?;
            let name = step.db.file_name().map_or_else(
                || step.db.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            );
            let pdf = pitwatch_app::evidence::pack_report(&reader, &who, step.id, &name, now)?;
            // A pack vouches only for what its report verified.
            pitwatch_app::reports::vouch(&reader, &mut store)?;
            drop(reader);
            let written =
                pitwatch_app::evidence::write_pack(&mut store, &who, step.id, &pdf, &out, now)?;
            outln!(
                "wrote {} ({} bytes), signed by key {}",
                written.path,
                written.bytes,
                written.fingerprint
            );
            outln!(
                "check it anywhere with: pitwatch verify --pack {} --key {}",
                written.path,
                written.fingerprint
            );
            Ok(ExitCode::SUCCESS)
        }
        IncidentCommand::Reopen { step, reason } => {
            let (mut store, who) = authenticated(&step)?;
            pitwatch_app::incidents::reopen(&mut store, &who, step.id, &reason, now)?;
            outln!("incident {} reopened by {}", step.id, step.user);
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn authenticated(step: &StepArgs) -> anyhow::Result<(Store, pitwatch_app::Principal)> {
    let mut store = open(&step.db)?;
    let who = credentials::login(&mut store, &step.user, credentials::PASSWORD)?;
    Ok((store, who))
}
