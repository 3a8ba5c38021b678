//! Engine speed: a simulated stream of honest Blackjack and Pontoon shoes (box targets, decisions,
//! seven boxes) replayed through the engine, measured per card event. The target is at least
//! 5 million card events per second per game (docs/benchmarks.md).
//!
//! `cargo bench -p pitwatch-blackjack --bench engine`

// criterion_group! generates a public function without a doc comment.
#![allow(missing_docs)]

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use pitwatch_blackjack::dealer::{deal, Config};
use pitwatch_blackjack::{Book, Engine};
use pitwatch_model::EventKind;
use pitwatch_rules::Game;

fn engine(c: &mut Criterion) {
    let mut group = c.benchmark_group("blackjack_engine");
    for book in [Book::nz_blackjack(), Book::nz_pontoon()] {
        let dealt = deal(
            &book,
            &Config {
                seed: 42,
                shoes: 40,
                ..Config::default()
            },
        );
        let cards = dealt
            .events
            .iter()
            .filter(|e| matches!(e.kind, EventKind::CardDrawn { .. }))
            .count() as u64;
        group.throughput(Throughput::Elements(cards));
        group.bench_function(format!("{}_40_shoes", book.id), |b| {
            b.iter(|| {
                let mut engine = Engine::new(book.clone());
                let mut outputs = 0usize;
                for event in &dealt.events {
                    engine.handle_event(black_box(event));
                    while let Some(o) = engine.poll_output() {
                        black_box(&o);
                        outputs += 1;
                    }
                }
                engine.finish();
                while engine.poll_output().is_some() {
                    outputs += 1;
                }
                outputs
            })
        });
    }
    group.finish();
}

criterion_group!(benches, engine);
criterion_main!(benches);
