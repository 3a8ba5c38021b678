//! The replay bench's work without its timing, for counting instructions, which other processes
//! on a shared machine do not change (docs/benchmarks.md, "Rules engine"): deals the bench's
//! streams (20 shoes, seed 2026, `nz-baccarat`) and replays them `ITERATIONS` times through one
//! engine, after 200 warm-up passes. A third argument `table` replays them through Baccarat's
//! rounds on the shared shoe tracker instead (`rounds::table`, issue 27), to compare the two.
//!
//! ```text
//! cargo build --release -p pitwatch-baccarat --example baccarat_replay_loop
//! valgrind --tool=cachegrind --cache-sim=no target/release/examples/baccarat_replay_loop 100 targets
//! valgrind --tool=cachegrind --cache-sim=no target/release/examples/baccarat_replay_loop 100 targets table
//! ```
//!
//! Instructions per card event: (instructions at 100 iterations − at 0) / (100 × card events).

use pitwatch_baccarat::{Engine, Output, RuleBook};
use pitwatch_dealer::{deal, DealerConfig};
use pitwatch_model::EventKind;
use pitwatch_rules::TableOutput;

fn main() {
    let mut args = std::env::args().skip(1);
    let iterations: u32 = args.next().map_or(100, |s| s.parse().expect("ITERATIONS"));
    let only = args.next().unwrap_or_default();
    let on_table = args.next().is_some_and(|s| s == "table");
    let book = RuleBook::nz_baccarat();
    for (name, config) in [
        ("targets", DealerConfig::angel_eye()),
        ("plain", DealerConfig::barcode()),
    ] {
        if !only.is_empty() && only != name {
            continue;
        }
        let config = DealerConfig {
            shoes: 20,
            ..config
        };
        let session = deal(&book.shoe_book(), &config, &[], 2026);
        let cards = session
            .events
            .iter()
            .filter(|e| matches!(e.kind, EventKind::CardDrawn { .. }))
            .count();
        let mut rounds = 0u64;
        if on_table {
            let mut table = pitwatch_baccarat::rounds::table(&book);
            for pass in 0..200 + iterations {
                for event in &session.events {
                    table.handle_event(event);
                    while let Some(output) = table.poll_output() {
                        if pass >= 200 && matches!(output, TableOutput::Round(_)) {
                            rounds += 1;
                        }
                    }
                }
            }
        } else {
            let mut engine = Engine::new(book.clone());
            for pass in 0..200 + iterations {
                for event in &session.events {
                    engine.handle_event(event);
                    while let Some(output) = engine.poll_output() {
                        if pass >= 200 && matches!(output, Output::Round(_)) {
                            rounds += 1;
                        }
                    }
                }
            }
        }
        println!("{name}: {cards} card events, {iterations} iterations, {rounds} rounds");
    }
}
