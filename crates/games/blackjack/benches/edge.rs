//! Criterion benchmark: the basic-strategy player's edge off the top (issue 29; target well
//! under 1 ms per round per table), on a whole six-deck NZ Blackjack shoe, a shoe about half
//! dealt, and a whole six-deck Pontoon shoe (its card-count bonuses make more states).

// criterion_group! generates a public function without a doc comment.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, Criterion};
use pitwatch_blackjack::exposure::edge::{player_edge_of, RanksLeft};
use pitwatch_blackjack::Book;
use pitwatch_model::{DeckKind, Rank, ShoeComposition};

fn player_edge(c: &mut Criterion) {
    let blackjack = Book::nz_blackjack();
    let pontoon = Book::nz_pontoon();
    let full = RanksLeft::full(ShoeComposition::new(6, DeckKind::Standard52));
    let mut half = full;
    for (i, rank) in Rank::ALL.iter().cycle().take(156).enumerate() {
        // Unevenly: more of the low ranks gone, as a real shoe drifts.
        if i % 5 != 0 || rank.pip() < 6 {
            half.take(*rank);
        }
    }
    let spanish = RanksLeft::full(ShoeComposition::new(6, DeckKind::Spanish48));
    let mut group = c.benchmark_group("player edge");
    for (name, book, left) in [
        ("blackjack whole shoe", &blackjack, full),
        ("blackjack half dealt", &blackjack, half),
        ("pontoon whole shoe", &pontoon, spanish),
    ] {
        group.bench_function(name, |b| {
            b.iter(|| player_edge_of(book, &left).map(|e| e.percent))
        });
    }
    group.finish();
}

criterion_group!(benches, player_edge);
criterion_main!(benches);
