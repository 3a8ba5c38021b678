//! The confusion matrix of the differential fault-injection test: for every fault kind and every
//! stream configuration it can be followed in, `--per N` shoes (default 40) with that one fault at a
//! random round, replayed through the rules engine; prints what was raised, as the Markdown table
//! in `docs/irregularities.md`, and every case that broke the rules of the test.
//!
//! ```text
//! cargo run --release -p pitwatch-baccarat --example baccarat_fault_matrix -- [--per N] [--seed N] [--only KIND]
//! ```
//!
//! `--only KIND` (repeatable) runs only those fault kinds, with the same cases as the whole matrix.

#[allow(dead_code)]
#[path = "../tests/support/judge.rs"]
mod judge;

use judge::{configs, run, stream_name, Matrix};
use pitwatch_baccarat::RuleBook;
use pitwatch_dealer::FaultKind;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn main() {
    let mut per = 40u32;
    let mut seed = 2026u64;
    let mut only: Vec<FaultKind> = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().expect("a value after the option");
        match arg.as_str() {
            "--per" => per = value().parse().expect("--per N"),
            "--seed" => seed = value().parse().expect("--seed N"),
            "--only" => only.push(value().parse().expect("--only KIND")),
            other => panic!("unknown argument {other}"),
        }
    }
    let book = RuleBook::nz_baccarat();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut matrix = Matrix::default();
    let started = std::time::Instant::now();
    for config in configs() {
        for &kind in FaultKind::ALL {
            if !kind.injectable(&config) {
                continue;
            }
            for _ in 0..per {
                let round = rng.gen_range(1..76);
                let shoe_seed = rng.gen::<u64>();
                if !only.is_empty() && !only.contains(&kind) {
                    continue;
                }
                let verdict = run(&book, &config, kind, round, shoe_seed);
                if !verdict.problems.is_empty() {
                    eprintln!(
                        "FAIL {} in {} (round {round}, seed {shoe_seed}): {}",
                        kind.name(),
                        stream_name(&config),
                        verdict.problems.join("; ")
                    );
                }
                matrix.add(kind, &config, &verdict);
            }
        }
    }
    let (cases, failures) = matrix.totals();
    println!("{}", matrix.to_markdown());
    println!(
        "{cases} shoes pairs (2 shoes each), {failures} failed, {:.1} s",
        started.elapsed().as_secs_f64()
    );
}
