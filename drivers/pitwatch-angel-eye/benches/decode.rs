//! Throughput of the Angel Eye decoder on a realistic report stream (cards, results, the odd
//! error), fed in 4 KiB chunks the way a transport hands them over, outputs drained after each chunk.
#![allow(
    missing_docs,
    reason = "criterion_group! generates an undocumented public function"
)]

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use pitwatch_angel_eye::{AngelEyeDecoder, CardSlotKind, Report, ReportEncoder};
use pitwatch_codec::Decoder;
use pitwatch_model::{Card, Outcome, Timestamp};

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
    let now = Timestamp::from_unix_millis(1_796_000_000_000).unwrap();
    let mut group = c.benchmark_group("angel_eye");
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    group.bench_function("decode_1MiB_4KiB_chunks", |b| {
        let mut out = Vec::new();
        b.iter(|| {
            let mut decoder = AngelEyeDecoder::default();
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
