//! The decoder benchmark every driver runs (included by each driver's `benches/decode.rs`): a
//! stream fed in 4 KiB chunks the way a transport hands them over, the outputs drained after each
//! chunk the way the monitor drains them.

use criterion::{Criterion, Throughput};
use pitwatch_codec::Decoder;
use pitwatch_model::Timestamp;

/// Benchmarks decoding `bytes` with a fresh `D` per iteration, in a group named `group`.
pub fn decode_in_chunks<D: Decoder + Default>(c: &mut Criterion, group: &str, bytes: &[u8]) {
    let now = Timestamp::from_unix_millis(1_796_000_000_000).unwrap();
    let mut group = c.benchmark_group(group);
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    group.bench_function("decode_1MiB_4KiB_chunks", |b| {
        let mut out = Vec::new();
        b.iter(|| {
            let mut decoder = D::default();
            let mut outputs = 0;
            for chunk in bytes.chunks(4096) {
                decoder.push(chunk, now, &mut out);
                outputs += out.len();
                out.clear();
            }
            outputs
        })
    });
    group.finish();
}
