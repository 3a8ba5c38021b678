//! `pitwatch dealer …`: dealers on the table (issue 30). `sign-in` and `sign-out` record a dealer
//! signing in at a table or out of it, as a supervisor's console entry (through
//! `pitwatch_app::dealers::sign`: the role checked, the entry audited, the table's lease held
//! while it is written, so a table a monitor records is refused, naming the monitor). `report`
//! is the dealers' report of a table (the rota, each dealer's figures against the table's target,
//! their irregularities by kind, the alerts, the pace hour by hour), on the terminal, as JSON,
//! or written as PDF and CSV: supervisors and administrators only, every look audited
//! (`pitwatch_app::dealers::shift`).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Args, Subcommand};
use pitwatch_model::Timestamp;
use pitwatch_recording::report::{dealer_csv, dealer_report, DealerQuery};

use crate::credentials;

/// `pitwatch dealer …`.
#[derive(Debug, Subcommand)]
pub enum DealerCommand {
    /// Sign a dealer in at a table: the rounds, shoes and irregularities that follow are theirs
    /// until they sign out or another dealer signs in.
    SignIn(SignArgs),
    /// Sign a dealer out of a table.
    SignOut(SignArgs),
    /// The dealers' report of a table: the rota, each dealer's rounds, pace against the target
    /// and irregularities (supervisors and administrators only; every look audited).
    Report(ReportArgs),
}

/// Arguments of `pitwatch dealer report`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// The Pitwatch database.
    #[arg(long)]
    db: PathBuf,
    /// The user reading it: a supervisor or an administrator (password from PITWATCH_PASSWORD
    /// or standard input).
    #[arg(long)]
    user: String,
    /// The table.
    #[arg(long)]
    table: String,
    /// One dealer only.
    #[arg(long)]
    dealer: Option<String>,
    /// The period's start (RFC 3339), with --to: a shift.
    #[arg(long, requires = "to")]
    from: Option<String>,
    /// The period's end (RFC 3339).
    #[arg(long, requires = "from")]
    to: Option<String>,
    /// Print JSON (the figures, the rota and the alerts) instead of text.
    #[arg(long)]
    json: bool,
    /// Write the report as PDF to this file.
    #[arg(long)]
    pdf: Option<PathBuf>,
    /// Write the figures as CSV to this file.
    #[arg(long)]
    csv: Option<PathBuf>,
}

/// Arguments of `pitwatch dealer sign-in` and `sign-out`.
#[derive(Debug, Args)]
pub struct SignArgs {
    /// The Pitwatch database.
    #[arg(long)]
    db: PathBuf,
    /// The supervisor recording it (password from PITWATCH_PASSWORD or standard input).
    #[arg(long)]
    user: String,
    /// The table.
    #[arg(long)]
    table: String,
    /// The dealer's name, as the pit writes it.
    #[arg(long)]
    dealer: String,
}

/// Runs `pitwatch dealer …`.
pub fn run(command: DealerCommand) -> anyhow::Result<ExitCode> {
    let now = crate::now();
    let (args, signed_in) = match &command {
        DealerCommand::SignIn(args) => (args, true),
        DealerCommand::SignOut(args) => (args, false),
        DealerCommand::Report(args) => return report(args, now),
    };
    let mut store = crate::incidents::open(&args.db)?;
    let who = credentials::login(&mut store, &args.user, credentials::PASSWORD)?;
    let seq =
        pitwatch_app::dealers::sign(&mut store, &who, &args.table, &args.dealer, signed_in, now)?;
    outln!(
        "dealer {} signed {} at table {} (event {seq}), recorded by {}",
        args.dealer,
        if signed_in { "in" } else { "out" },
        args.table,
        args.user
    );
    Ok(ExitCode::SUCCESS)
}

fn report(args: &ReportArgs, now: Timestamp) -> anyhow::Result<ExitCode> {
    let period = match (&args.from, &args.to) {
        (Some(from), Some(to)) => {
            let read = |t: &str| {
                t.parse::<Timestamp>()
                    .map_err(|e| anyhow::anyhow!("{t:?} is not a time: {e}"))
            };
            let (from, to) = (read(from)?, read(to)?);
            if to <= from {
                anyhow::bail!("--to must come after --from");
            }
            Some((from, to))
        }
        _ => None,
    };
    let query = DealerQuery {
        table: &args.table,
        dealer: args.dealer.as_deref(),
        period,
    };
    let mut store = crate::incidents::open(&args.db)?;
    let who = credentials::login(&mut store, &args.user, credentials::PASSWORD)?;
    let shift = pitwatch_app::dealers::shift(&mut store, &who, query, now)?;
    if let Some(path) = &args.pdf {
        let document = dealer_report(&store, &shift, query)?.stamped(&who.user, now.as_datetime());
        let pdf = pitwatch_report::render_pdf(&document)?;
        std::fs::write(path, &pdf.bytes)
            .with_context(|| format!("cannot write {}", path.display()))?;
        audit_export(&mut store, &who, query, path, now)?;
    }
    if let Some(path) = &args.csv {
        std::fs::write(path, dealer_csv(&shift))
            .with_context(|| format!("cannot write {}", path.display()))?;
        audit_export(&mut store, &who, query, path, now)?;
    }
    if args.json {
        crate::out::json(
            &serde_json::json!({
                "table": shift.table,
                "game": shift.game.as_str(),
                "target": shift.target,
                "rota": shift.attribution.rota(period),
                "figures": shift.figures,
                "alerts": shift.alerts,
            }),
            false,
        );
        return Ok(ExitCode::SUCCESS);
    }
    outln!("dealers at {} ({}):", args.table, shift.game.as_str());
    if let Some(target) = &shift.target {
        outln!(
            "  target {:.0} rounds an hour of dealing (alerted under {:.0})",
            target.target_rounds_per_hour,
            target.alert_below()
        );
    }
    for f in &shift.figures {
        outln!(
            "  {}: {} rounds ({} interrupted by a device fault, not counted), {} an hour, {} irregularities per 100 rounds",
            f.dealer,
            f.rounds,
            f.rounds_excused,
            f.rounds_per_hour
                .map_or_else(|| "-".to_owned(), |v| format!("{v:.1}")),
            f.errors_per_100_rounds
                .map_or_else(|| "-".to_owned(), |v| format!("{v:.1}")),
        );
    }
    for alert in &shift.alerts {
        outln!(
            "  ALERT {} at round {}.{} ({}): {}",
            alert.kind.code(),
            alert.shoe,
            alert.round,
            alert.dealer.as_deref().unwrap_or("no dealer"),
            alert.message
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// The report written to `path`, on record (`dealers.export`).
fn audit_export(
    store: &mut pitwatch_store::Store,
    who: &pitwatch_app::Principal,
    query: DealerQuery<'_>,
    path: &std::path::Path,
    now: Timestamp,
) -> anyhow::Result<()> {
    let detail = who.actor().detail(&[
        ("role", who.role.as_str()),
        ("file", &path.display().to_string()),
    ]);
    let mut batch = store.batch(now)?;
    batch.append_audit(
        &who.user,
        pitwatch_app::dealers::EXPORTED,
        &pitwatch_app::dealers::subject(query),
        &detail,
        now,
    )?;
    batch.commit()?;
    Ok(())
}
