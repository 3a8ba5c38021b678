//! Criterion benchmark: every wager's exact worth before a round (issue 29's target: at most
//! 5 ms per round per table on one core), from a whole eight-deck shoe (the most sequences) and
//! from a shoe half dealt.

// criterion_group! generates a public function without a doc comment.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, Criterion};
use pitwatch_baccarat::exposure::{outcomes, outcomes_by_walk, worth, CardsLeft, Wager};
use pitwatch_baccarat::DrawingTable;
use pitwatch_model::{DeckKind, Rank, ShoeComposition};

const WAGERS: [Wager; 8] = [
    Wager::Player,
    Wager::Banker {
        commission_percent: 5,
    },
    Wager::BankerNoCommission,
    Wager::Tie { pays: 8 },
    Wager::PlayerPair { pays: 11 },
    Wager::BankerPair { pays: 11 },
    Wager::Dragon7 { pays: 40 },
    Wager::Panda8 { pays: 25 },
];

fn every_wager(c: &mut Criterion) {
    let table = DrawingTable::punto_banco();
    let full = CardsLeft::full(ShoeComposition::new(8, DeckKind::Standard52));
    let mut half = full;
    for (i, rank) in Rank::ALL.iter().cycle().take(208).enumerate() {
        // Unevenly: more of the low ranks gone, as a real shoe drifts.
        if i % 5 != 0 || rank.pip() < 6 {
            half.take(*rank);
        }
    }
    let mut group = c.benchmark_group("exposure");
    for (name, left) in [("whole shoe", full), ("half dealt", half)] {
        group.bench_function(name, |b| {
            b.iter(|| {
                let o = outcomes(&table, &left).expect("enough cards");
                WAGERS.map(|w| worth(w, &o, &left).numerator)
            })
        });
    }
    // The general walk, asking the engine at every card (what the plan replaced), for comparison.
    group.bench_function("whole shoe, general walk", |b| {
        b.iter(|| {
            let o = outcomes_by_walk(&table, &full).expect("enough cards");
            WAGERS.map(|w| worth(w, &o, &full).numerator)
        })
    });
    group.finish();
}

criterion_group!(benches, every_wager);
criterion_main!(benches);
