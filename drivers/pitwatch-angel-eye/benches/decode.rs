//! Throughput of the Angel Eye decoder on a realistic report stream (cards, results, the odd
//! error), fed in 4 KiB chunks the way a transport hands them over, outputs drained after each chunk.
#![allow(
    missing_docs,
    reason = "criterion_group! generates an undocumented public function"
)]

#[path = "../../decode_bench.rs"]
mod support;

use criterion::{criterion_group, criterion_main, Criterion};
use pitwatch_angel_eye::{AngelEyeDecoder, CardSlotKind, Report, ReportEncoder};
use pitwatch_model::{Card, Outcome};

fn stream() -> Vec<u8> {
    let mut encoder = ReportEncoder::new();
    let mut bytes = Vec::new();
    let mut i = 0usize;
    while bytes.len() < 1 << 20 {
        for (slot, index) in [
            (CardSlotKind::Player, 1),
            (CardSlotKind::Banker, 1),
            (CardSlotKind::Player, 2),
            (CardSlotKind::Banker, 2),
        ] {
            i += 1;
            bytes.extend(encoder.encode(&Report::Card {
                slot,
                index,
                card: Card::from_index(i % 52),
                retransmit: false,
            }));
        }
        bytes.extend(encoder.encode(&Report::Result {
            outcome: Outcome::Banker,
            player_pair: false,
            banker_pair: i % 3 == 0,
        }));
    }
    bytes
}

fn bench(c: &mut Criterion) {
    let bytes = stream();
    support::decode_in_chunks::<AngelEyeDecoder>(c, "angel_eye", &bytes);
}

criterion_group!(benches, bench);
criterion_main!(benches);
