//! `pitwatch exposure --db DB --user NAME --table T --shoe N [--json]`: the house's exposure
//! before each round of a recorded shoe (issue 29), for the surveillance role and administrators
//! only. The user logs in like any other (password from `PITWATCH_PASSWORD` or standard input);
//! a supervisor is refused (exit code 3) and the attempt is audited, and every read is an audit
//! row of its own (`exposure.view`), through the application layer (`pitwatch_app::exposure`).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use crate::credentials;

/// `pitwatch exposure`.
#[derive(Debug, Args)]
pub struct ExposureArgs {
    /// The Pitwatch database.
    #[arg(long)]
    db: PathBuf,
    /// The user reading it: surveillance or an administrator (password from PITWATCH_PASSWORD or
    /// standard input).
    #[arg(long)]
    user: String,
    /// The table.
    #[arg(long)]
    table: String,
    /// The shoe (as `pitwatch replay --db DB --table T` lists them).
    #[arg(long)]
    shoe: u32,
    /// One JSON object per round instead of a table of figures.
    #[arg(long)]
    json: bool,
}

/// Runs `pitwatch exposure`.
pub fn run(args: ExposureArgs) -> anyhow::Result<ExitCode> {
    let mut store = crate::incidents::open(&args.db)?;
    let who = credentials::login(&mut store, &args.user, credentials::PASSWORD)?;
    let rounds = pitwatch_app::exposure::shoe_exposure(
        &mut store,
        &who,
        &args.table,
        args.shoe,
        crate::now(),
    )?;
    if args.json {
        for round in &rounds {
            outln!("{}", crate::safe::json(round, false));
        }
        return Ok(ExitCode::SUCCESS);
    }
    outln!(
        "exposure of {} shoe {}: the house's edge on each wager before each round (negative: the \
         house is behind), from the cards left",
        crate::safe::text(&args.table),
        args.shoe
    );
    for round in &rounds {
        outln!(
            "round {} ({} cards left, after event {})",
            round.round,
            round.cards_left,
            round.after_seq
        );
        for figure in &round.figures {
            outln!(
                "  {:<48} {:>9.4}{}",
                figure.name,
                figure.value,
                if figure.house_behind {
                    "  HOUSE BEHIND"
                } else {
                    ""
                }
            );
        }
    }
    let behind = rounds
        .iter()
        .filter(|r| r.figures.iter().any(|f| f.house_behind))
        .count();
    outln!(
        "{} round(s), {behind} with a figure against the house",
        rounds.len()
    );
    Ok(ExitCode::SUCCESS)
}
