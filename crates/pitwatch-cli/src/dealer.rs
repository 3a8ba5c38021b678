//! `pitwatch dealer …`: dealers on the table (issue 30). `sign-in` and `sign-out` record a dealer
//! signing in at a table or out of it, as a supervisor's console entry (through
//! `pitwatch_app::dealers::sign`: the role checked, the entry audited, the table's lease held
//! while it is written, so a table a monitor records is refused, naming the monitor).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};

use crate::credentials;

/// `pitwatch dealer …`.
#[derive(Debug, Subcommand)]
pub enum DealerCommand {
    /// Sign a dealer in at a table: the rounds, shoes and irregularities that follow are theirs
    /// until they sign out or another dealer signs in.
    SignIn(SignArgs),
    /// Sign a dealer out of a table.
    SignOut(SignArgs),
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
