//! Throughput of the Pitwatch-protocol decoder on a shoe's stream (card lines with targets,
//! results, heartbeats), fed in 4 KiB chunks the way a transport hands them over, outputs drained after each chunk.
#![allow(
    missing_docs,
    reason = "criterion_group! generates an undocumented public function"
)]

#[path = "../../decode_bench.rs"]
mod support;

use criterion::{criterion_group, criterion_main, Criterion};
use pitwatch_model::{Card, Outcome, Target};
use pitwatch_proto::{Message, MessageEncoder, ProtoDecoder};

fn bench(c: &mut Criterion) {
    let mut encoder = MessageEncoder::new();
    let mut bytes = Vec::new();
    let mut i = 0usize;
    while bytes.len() < 1 << 20 {
        for (target, index) in [
            (Target::Player, 1),
            (Target::Banker, 1),
            (Target::Player, 2),
            (Target::Banker, 2),
        ] {
            i += 1;
            bytes.extend(encoder.encode(&Message::Card {
                card: Card::from_index(i % 52),
                target: Some(target),
                index: Some(index),
                face_up: Some(true),
                retransmit: false,
            }));
        }
        bytes.extend(encoder.encode(&Message::Result {
            outcome: Outcome::Player,
            player_pair: Some(false),
            banker_pair: Some(false),
        }));
        bytes.extend(encoder.encode(&Message::Heartbeat));
    }
    support::decode_in_chunks::<ProtoDecoder>(c, "pitwatch_proto", &bytes);
}

criterion_group!(benches, bench);
criterion_main!(benches);
