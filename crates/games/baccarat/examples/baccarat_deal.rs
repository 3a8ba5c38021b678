//! Writes a simulated table event file (JSON Lines) to stdout, for demos and for trying
//! `pitwatch replay`:
//!
//! ```text
//! cargo run -p pitwatch-baccarat --example baccarat_deal -- [--plain] [--shoes N] [--seed N] [--fault KIND:SHOE:ROUND]...
//! ```
//!
//! Fault kinds are the snake_case names of `FaultKind` (e.g. `burn_miscount`). What was injected
//! where goes to stderr as JSON.

use std::io::Write;

use pitwatch_baccarat::RuleBook;
use pitwatch_dealer::{deal, DealerConfig, FaultKind, FaultPlan};

fn main() {
    let mut config = DealerConfig::angel_eye();
    let mut seed = 1u64;
    let mut faults = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().expect("a value after the option");
        match arg.as_str() {
            "--plain" => config = DealerConfig::barcode(),
            "--shoes" => config.shoes = value().parse().expect("--shoes N"),
            "--seed" => seed = value().parse().expect("--seed N"),
            "--fault" => {
                let spec = value();
                let parts: Vec<&str> = spec.split(':').collect();
                let kind: FaultKind = parts[0].parse().unwrap_or_else(|e| panic!("{e}"));
                faults.push(FaultPlan {
                    kind,
                    shoe: parts.get(1).map_or(1, |s| s.parse().expect("shoe")),
                    round: parts.get(2).map_or(1, |s| s.parse().expect("round")),
                });
            }
            other => panic!("unknown argument {other}"),
        }
    }
    let session = deal(&RuleBook::nz_baccarat().shoe_book(), &config, &faults, seed);
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for event in &session.events {
        writeln!(out, "{}", event.to_json_line()).expect("write");
    }
    for fault in &session.faults {
        eprintln!("{}", serde_json::to_string(fault).expect("json"));
    }
}
