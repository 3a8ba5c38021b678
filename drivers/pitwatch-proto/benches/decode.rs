//! Throughput of the Pitwatch-protocol decoder on a shoe's stream (card lines with targets,
//! results, heartbeats), fed in 4 KiB chunks the way a transport hands them over, outputs drained after each chunk.
#![allow(
    missing_docs,
    reason = "criterion_group! generates an undocumented public function"
)]

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use pitwatch_codec::Decoder;
use pitwatch_model::{Card, Outcome, Target, Timestamp};
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
    let now = Timestamp::from_unix_millis(1_796_000_000_000).unwrap();
    let mut group = c.benchmark_group("pitwatch_proto");
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    group.bench_function("decode_1MiB_4KiB_chunks", |b| {
        let mut out = Vec::new();
        b.iter(|| {
            let mut decoder = ProtoDecoder::default();
            let mut outputs = 0;
            for chunk in bytes.chunks(4096) {
                // The monitor drains the outputs of each chunk before the next arrives.
                decoder.push(chunk, now, &mut out);
                outputs += out.len();
                out.clear();
            }
            outputs
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
