//! Replays one case of the differential fault-injection test and prints its events and the
//! engine's outputs around the fault, for finding out why a case failed:
//!
//! ```text
//! cargo run -p pitwatch-baccarat --example fault_case -- KIND ROUND SEED [plain] [bets] [results] [burn]
//! ```

#[allow(dead_code)]
#[path = "../tests/support/judge.rs"]
mod judge;

use judge::{run, truth};
use pitwatch_baccarat::{replay, RuleBook};
use pitwatch_dealer::{deal, DealerConfig, FaultKind, FaultPlan, Mode};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let kind: FaultKind = args[0].parse().expect("a fault kind");
    let round: u32 = args[1].parse().expect("a round");
    let seed: u64 = args[2].parse().expect("a seed");
    let has = |word: &str| args.iter().any(|a| a == word);
    let config = DealerConfig {
        mode: if has("plain") {
            Mode::Plain
        } else {
            Mode::Targets
        },
        shoes: 2,
        bets_closed: has("bets"),
        declare_results: has("results"),
        report_burn_count: has("burn"),
        ..DealerConfig::angel_eye()
    };
    let book = RuleBook::nz_baccarat();
    let verdict = run(&book, &config, kind, round, seed);
    println!("{verdict:#?}");
    let plan = FaultPlan {
        kind,
        shoe: 1,
        round,
    };
    let session = deal(&book.shoe_book(), &config, &[plan], seed);
    let Some(fault) = session.faults.first() else {
        return;
    };
    let from = fault.seq.saturating_sub(25);
    let to = fault.seq + 25;
    for event in session
        .events
        .iter()
        .filter(|e| (from..=to).contains(&e.seq))
    {
        println!("{}", event.to_json_line());
    }
    for r in truth(&session)
        .iter()
        .filter(|r| r.last_seq + 1 >= from && r.first_seq <= to)
    {
        println!(
            "truth  {}.{} P[{}] B[{}] {}-{}",
            r.shoe, r.round, r.player, r.banker, r.first_seq, r.last_seq
        );
    }
    for o in replay(&book, &session.events) {
        match o {
            pitwatch_baccarat::Output::Round(r) if r.last_seq + 1 >= from && r.first_seq <= to => {
                println!(
                    "engine {}.{} P[{}] B[{}] {}-{}",
                    r.shoe, r.round, r.player, r.banker, r.first_seq, r.last_seq
                )
            }
            pitwatch_baccarat::Output::Irregularity(i) => {
                println!("flag   {} {:?} {}: {}", i.code, i.round, i.seq, i.message)
            }
            _ => {}
        }
    }
}
