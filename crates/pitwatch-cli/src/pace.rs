//! `pitwatch pace --db FILE --table NAME [--rounds] [--json]`: a table's pace from the record
//! (issue 30): every round timed (bets closed → first card, the deal, the reveal, the gap before
//! it), each change of shoe's downtime, and the rounds per hour of dealing time.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context};
use clap::Args;
use pitwatch_games::pace::{Pace, BREAK_AFTER_MS};
use pitwatch_recording::record::Installation;
use pitwatch_recording::replay;

/// `pitwatch pace`.
#[derive(Debug, Args)]
pub struct PaceArgs {
    /// The Pitwatch database.
    #[arg(long)]
    db: PathBuf,
    /// The table.
    #[arg(long)]
    table: String,
    /// A gap between rounds longer than this many seconds is a break, not dealing time.
    #[arg(long, default_value_t = BREAK_AFTER_MS / 1000)]
    break_after: i64,
    /// Print every round's timings too.
    #[arg(long)]
    rounds: bool,
    /// Print JSON (one object: the rounds, the shoe changes and rounds per hour).
    #[arg(long)]
    json: bool,
}

/// Runs `pitwatch pace`.
pub fn run(args: PaceArgs) -> anyhow::Result<ExitCode> {
    if !args.db.exists() {
        bail!("{} does not exist", args.db.display());
    }
    if args.break_after <= 0 {
        errln!("error: --break-after must be a positive number of seconds");
        return Ok(ExitCode::from(2));
    }
    let store = Installation::from_env()
        .open_read_only(&args.db)
        .with_context(|| format!("cannot open {}", args.db.display()))?;
    let replayed = replay::rebuild(&store, &args.table)?;
    let pace = Pace::of(
        replayed
            .steps
            .iter()
            .map(|s| (&s.event, s.outputs.as_slice())),
    );
    let break_ms = args.break_after * 1000;
    let per_hour = pace.rounds_per_hour(break_ms);
    if args.json {
        crate::out::json(
            &serde_json::json!({
                "table": args.table,
                "rounds_per_hour": per_hour,
                "break_after_s": args.break_after,
                "rounds": pace.rounds,
                "shoes": pace.shoes,
                "irregularities": pace.irregularities,
                "errors_per_100_rounds": pace.errors_per_100_rounds(),
            }),
            false,
        );
        return Ok(ExitCode::SUCCESS);
    }
    outln!(
        "pace of {}: {} rounds, {} shoe changes",
        args.table,
        pace.rounds.len(),
        pace.shoes.len()
    );
    match per_hour {
        Some(n) => outln!(
            "  {n:.1} rounds an hour of dealing (gaps over {} s are breaks)",
            args.break_after
        ),
        None => outln!("  no round carries times"),
    }
    let mean = |values: Vec<i64>| -> String {
        if values.is_empty() {
            return "-".into();
        }
        format!(
            "{:.1} s",
            values.iter().sum::<i64>() as f64 / values.len() as f64 / 1000.0
        )
    };
    let of = |f: fn(&pitwatch_games::pace::RoundPace) -> Option<i64>| -> Vec<i64> {
        pace.rounds.iter().filter_map(f).collect()
    };
    outln!(
        "  on average: bets closed → first card {}, the deal {}, the reveal {}, the gap before a round {}",
        mean(of(|r| r.bets_closed_to_first_card_ms)),
        mean(of(|r| r.deal_ms)),
        mean(of(|r| r.reveal_ms)),
        mean(
            of(|r| r.gap_before_ms)
                .into_iter()
                .filter(|g| *g <= break_ms)
                .collect()
        ),
    );
    if let Some(rate) = pace.errors_per_100_rounds() {
        let by_code: Vec<String> = pace
            .irregularities
            .iter()
            .map(|(code, n)| format!("{code} {n}"))
            .collect();
        outln!(
            "  {rate:.1} irregularities per 100 rounds{}",
            if by_code.is_empty() {
                String::new()
            } else {
                format!(" ({})", by_code.join(", "))
            }
        );
    }
    for change in &pace.shoes {
        outln!(
            "  shoe {}: {} from the shoe before's last card to its first",
            change.shoe,
            change
                .downtime_ms()
                .map_or_else(|| "-".into(), |ms| format!("{:.0} s", ms as f64 / 1000.0))
        );
    }
    if args.rounds {
        let s = |ms: Option<i64>| {
            ms.map_or_else(|| "-".into(), |ms| format!("{:.1}", ms as f64 / 1000.0))
        };
        outln!(
            "  {:>5} {:>5}  {:>8} {:>8} {:>8} {:>8}   (seconds)",
            "shoe",
            "round",
            "bets→1st",
            "deal",
            "reveal",
            "gap"
        );
        for r in &pace.rounds {
            outln!(
                "  {:>5} {:>5}  {:>8} {:>8} {:>8} {:>8}",
                r.shoe,
                r.round,
                s(r.bets_closed_to_first_card_ms),
                s(r.deal_ms),
                s(r.reveal_ms),
                s(r.gap_before_ms)
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}
