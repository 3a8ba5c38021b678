//! Throughput of the barcode decoder on a stream of card codes (`\r\n` line ends, no repeats),
//! fed in 4 KiB chunks the way a transport hands them over, outputs drained after each chunk.
#![allow(
    missing_docs,
    reason = "criterion_group! generates an undocumented public function"
)]

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use pitwatch_barcode::{encode_card, BarcodeDecoder};
use pitwatch_codec::Decoder;
use pitwatch_model::{Card, Timestamp};

fn bench(c: &mut Criterion) {
    let mut bytes = Vec::new();
    let mut i = 0usize;
    while bytes.len() < 1 << 20 {
        i += 1;
        bytes.extend(encode_card(Card::from_index(i % 52).unwrap()));
        bytes.push(b'\n');
    }
    let now = Timestamp::from_unix_millis(1_796_000_000_000).unwrap();
    let mut group = c.benchmark_group("barcode");
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    group.bench_function("decode_1MiB_4KiB_chunks", |b| {
        let mut out = Vec::new();
        b.iter(|| {
            let mut decoder = BarcodeDecoder::default();
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
