//! How long the analysis of one 8-deck shoe takes against 1, 2 and 5 previous shoes (the target:
//! under 10 ms against the previous one). Shoes are dealt by the honest-dealer simulator.
//!
//! `cargo bench -p pitwatch-shuffle --bench analyse`

// criterion_group! generates a public function without a doc comment.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use pitwatch_baccarat::RuleBook;
use pitwatch_dealer::{deal, DealerConfig};
use pitwatch_model::Card;
use pitwatch_shuffle::{analyse, Settings};

fn shoes(count: u32) -> Vec<Vec<Option<Card>>> {
    let book = RuleBook::nz_baccarat();
    let config = DealerConfig {
        shoes: count,
        ..DealerConfig::angel_eye()
    };
    let session = deal(&book.shoe_book(), &config, &[], 17);
    session
        .stacks
        .iter()
        .zip(&session.cards_per_shoe)
        .map(|(stack, dealt)| stack[..*dealt as usize].iter().copied().map(Some).collect())
        .collect()
}

fn bench(c: &mut Criterion) {
    let book = RuleBook::nz_baccarat();
    let all = shoes(6);
    let (current, previous) = all.split_last().expect("shoes");
    let mut group = c.benchmark_group("shuffle_analysis_8_decks");
    for n in [1usize, 2, 5] {
        let before: Vec<&[Option<Card>]> =
            previous.iter().rev().take(n).map(Vec::as_slice).collect();
        let settings = Settings {
            previous_shoes: n as u32,
            ..Settings::default()
        };
        group.bench_with_input(
            BenchmarkId::new("previous_shoes", n),
            &before,
            |b, before| b.iter(|| analyse(current, before, book.composition(), &settings)),
        );
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
