//! Criterion benchmark: the engine replaying whole simulated shoes (events already in memory),
//! reported as card events per second.

// criterion_group! generates a public function without a doc comment.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use pitwatch_baccarat::{Engine, Output, RuleBook};
use pitwatch_dealer::{deal, DealerConfig};
use pitwatch_model::EventKind;

fn replay_shoes(c: &mut Criterion) {
    let book = RuleBook::nz_baccarat();
    let mut group = c.benchmark_group("engine");
    for (name, config) in [
        ("targets", DealerConfig::angel_eye()),
        ("plain", DealerConfig::barcode()),
    ] {
        let config = DealerConfig {
            shoes: 20,
            ..config
        };
        let session = deal(&book.shoe_book(), &config, &[], 2026);
        let cards = session
            .events
            .iter()
            .filter(|e| matches!(e.kind, EventKind::CardDrawn { .. }))
            .count() as u64;
        group.throughput(Throughput::Elements(cards));
        // One engine for the whole run, as a table's engine lives for days: each iteration
        // replays twenty more shoes through it.
        let mut engine = Engine::new(book.clone());
        group.bench_function(format!("replay_20_shoes_{name}"), |b| {
            b.iter(|| {
                let mut rounds = 0u32;
                for event in &session.events {
                    engine.handle_event(event);
                    while let Some(output) = engine.poll_output() {
                        if let Output::Round(_) = output {
                            rounds += 1;
                        }
                    }
                }
                std::hint::black_box(rounds)
            })
        });
    }
    group.finish();
}

criterion_group!(benches, replay_shoes);
criterion_main!(benches);
