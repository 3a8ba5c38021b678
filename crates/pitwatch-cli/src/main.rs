//! `pitwatch`: the command line for table-game monitoring.
//!
//! Every subcommand is a thin adapter: it parses arguments, calls the core crates, and maps the
//! outcome to text and an exit code. Exit codes: 0 success, 1 a check found a problem in recorded
//! data, 2 unusable input (bad arguments, a file that does not parse), 3 refused: wrong
//! credentials, a throttled or locked login, or a role that may not run the command (each
//! refusal is audited in the record). Commands that change the record go through the application
//! layer (`pitwatch-app`), which checks the user's role.

/// Prints a line on stdout; once stdout is closed (`pitwatch … | head`), prints nothing more
/// instead of panicking (see [`out`]).
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::out::line(format_args!($($arg)*))
    };
}

/// Prints a line on stderr, quietly doing nothing once stderr is closed.
macro_rules! errln {
    ($($arg:tt)*) => {
        $crate::out::error_line(format_args!($($arg)*))
    };
}

#[cfg(feature = "demo")]
mod archive;
mod bench;
mod capture;
mod central;
mod credentials;
mod dealer;
mod events;
mod export;
mod exposure;
mod import;
mod incidents;
mod monitor;
mod out;
mod pace;
mod ports;
mod replay;
mod replay_record;
mod safe;
#[cfg(feature = "demo")]
mod sim;
mod verify;
mod verify_pack;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Pitwatch: live monitoring of casino table games against the published rules.
#[derive(Debug, Parser)]
#[command(
    name = "pitwatch",
    version,
    about = "Pitwatch: live monitoring of casino table games against the published rules.",
    long_about = None
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Work with table event files (JSON Lines, see docs/events.md).
    #[command(subcommand)]
    Events(events::EventsCommand),
    /// Check that a Pitwatch database is intact: every hash chain and SQLite's integrity check.
    Verify(verify::VerifyArgs),
    /// List serial ports with USB vendor, product and serial number where available.
    Ports(ports::PortsArgs),
    /// Watch every table of a pit live, recording everything; Ctrl-C stops cleanly, SIGHUP (or a change of the file) reloads the pit definition.
    Monitor(monitor::MonitorArgs),
    /// Write a report of an incident or a shoe as PDF, CSV or JSON.
    #[command(subcommand)]
    Export(export::ExportCommand),
    /// List incidents, with filters.
    Incidents(incidents::ListArgs),
    /// Work one incident: acknowledge, note, resolve, reopen, show.
    #[command(subcommand)]
    Incident(incidents::IncidentCommand),
    /// Manage the users who work incidents.
    #[command(subcommand)]
    User(incidents::UserCommand),
    /// Ingest a capture file into a record as if it had arrived live.
    Import(import::ImportArgs),
    /// Replay an event file, a raw capture (--format) or a shoe from the record (--db) through
    /// the rules engine: rounds and irregularities.
    Replay(replay::ReplayArgs),
    /// Simulate a table's shoe in a device protocol on a pseudo-terminal or TCP, with faults.
    #[cfg(feature = "demo")]
    Sim(sim::SimArgs),
    /// Qualify this machine: simulated tables through the real monitor, with latency, memory
    /// and loss figures beside a bare baseline.
    #[command(subcommand)]
    #[cfg(feature = "demo")]
    Bench(bench::BenchCommand),
    /// The central database every workstation replicates its record to (PostgreSQL).
    #[command(subcommand)]
    Central(central::CentralCommand),
    /// Ship a record's outbox to the central database: once, or continuously until Ctrl-C.
    Sync(central::SyncArgs),
    /// The house's exposure before each round of a shoe (surveillance and administrators only;
    /// every read audited).
    Exposure(exposure::ExposureArgs),
    /// Retention and the archive step: move old device records to archive files the record
    /// names and keeps verifying; list and check them.
    #[command(subcommand)]
    Archive(archive::ArchiveCommand),
    /// A table's pace from the record: every round timed, each shoe change's downtime, the
    /// rounds per hour of dealing time.
    Pace(pace::PaceArgs),
    /// Dealers on the table: a dealer signed in at a table or out of it (supervisors and
    /// administrators; audited).
    #[command(subcommand)]
    Dealer(dealer::DealerCommand),
}

/// The host's current time: the CLI is an edge of the system, where the clock may be read.
pub(crate) fn now() -> pitwatch_model::Timestamp {
    let millis = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
    pitwatch_model::Timestamp::from_unix_millis(millis)
        .or_else(|| pitwatch_model::Timestamp::from_unix_millis(0))
        .expect("the Unix epoch is a valid time")
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let outcome = match cli.command {
        Command::Events(command) => events::run(command),
        Command::Verify(args) => verify::run(args),
        Command::Ports(args) => ports::run(args),
        Command::Replay(args) => replay::run(args),
        #[cfg(feature = "demo")]
        Command::Sim(args) => sim::run(args),
        Command::Import(args) => import::run(args),
        Command::Monitor(args) => monitor::run(args),
        Command::Export(command) => export::run(command),
        Command::Incidents(args) => incidents::run_list(args),
        Command::Incident(command) => incidents::run_step(command),
        Command::User(command) => incidents::run_user(command),
        #[cfg(feature = "demo")]
        Command::Bench(command) => bench::run(command),
        Command::Central(command) => central::run(command),
        Command::Sync(args) => central::run_sync(args),
        Command::Exposure(args) => exposure::run(args),
        Command::Pace(args) => pace::run(args),
        Command::Archive(command) => archive::run(command),
        Command::Dealer(command) => dealer::run(command),
    };
    match outcome {
        Ok(code) => code,
        // Whoever read the output stopped reading (`| head`): nothing is wrong.
        Err(error) if out::closed() || out::is_broken_pipe(&error) => ExitCode::SUCCESS,
        Err(error) => {
            errln!("error: {error:#}");
            let refused = error
                .downcast_ref::<pitwatch_api::ApiError>()
                .is_some_and(|e| {
                    matches!(
                        e.code,
                        pitwatch_api::ErrorCode::Forbidden | pitwatch_api::ErrorCode::Unauthorised
                    )
                });
            ExitCode::from(if refused { 3 } else { 2 })
        }
    }
}
