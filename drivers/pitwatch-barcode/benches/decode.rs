//! Throughput of the barcode decoder on a stream of card codes (`\r\n` line ends, no repeats),
//! fed in 4 KiB chunks the way a transport hands them over, outputs drained after each chunk.
#![allow(
    missing_docs,
    reason = "criterion_group! generates an undocumented public function"
)]

#[path = "../../decode_bench.rs"]
mod support;

use criterion::{criterion_group, criterion_main, Criterion};
use pitwatch_barcode::{encode_card, BarcodeDecoder};
use pitwatch_model::Card;

fn bench(c: &mut Criterion) {
    let mut bytes = Vec::new();
    let mut i = 0usize;
    while bytes.len() < 1 << 20 {
        i += 1;
        bytes.extend(encode_card(Card::from_index(i % 52).unwrap()));
        bytes.push(b'\n');
    }
    support::decode_in_chunks::<BarcodeDecoder>(c, "barcode", &bytes);
}

criterion_group!(benches, bench);
criterion_main!(benches);
