//! Durable ingest throughput: frames journaled with their raw chunk, frame row and event, every
//! row hash-chained, committed in groups (as the monitor's writer does), each transaction ending
//! with a checkpoint signed by the installation's key, in WAL mode with `synchronous = FULL` on
//! a real file. Target (issues 5 and 10): at least 20,000 frames per second with signing.

// criterion_group! and criterion_main! generate undocumented public items.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use pitwatch_model::{EventKind, TableEvent, Timestamp};
use pitwatch_store::{DeviceIdentity, Store};

const FRAMES: u64 = 20_000;

fn ingest(c: &mut Criterion) {
    let mut group = c.benchmark_group("store");
    group.throughput(Throughput::Elements(FRAMES));
    group.sample_size(10);
    // 500 frames a transaction is what a busy pit's writer commits at once; 50 is a quiet one's.
    for size in [500u64, 50] {
        group.bench_function(
            format!("ingest 20k frames, groups of {size}, durable, signed"),
            |b| {
                b.iter_with_setup(
                    || {
                        let dir = tempfile::tempdir().unwrap();
                        let mut store = Store::open(
                            dir.path().join("bench.db"),
                            &pitwatch_store::Sealing::key_file(dir.path().join("signing.key")),
                        )
                        .unwrap();
                        let now = Timestamp::from_unix_millis(1_796_000_000_000).unwrap();
                        let table = store
                            .ensure_table("BAC-1", "baccarat", "nz-baccarat", now)
                            .unwrap();
                        let device = store
                            .ensure_device(
                                &DeviceIdentity {
                                    protocol: "angel-eye".into(),
                                    port: "bench".into(),
                                    ..Default::default()
                                },
                                now,
                            )
                            .unwrap();
                        let session = store.start_session(table, device, now).unwrap();
                        (dir, store, table, session, now)
                    },
                    |(_dir, mut store, table, session, now)| {
                        let card = "8S".parse().unwrap();
                        let frame_bytes = [0x05, b'1', b'D', 0x81, 0xB8, 0x03, b'4', b'F'];
                        let mut seq = 0;
                        while seq < FRAMES {
                            let mut batch = store.batch(now).unwrap();
                            for _ in 0..size {
                                seq += 1;
                                let chunk = batch.append_chunk(session, now, &frame_bytes).unwrap();
                                let frame = batch
                                    .append_frame(session, chunk, now, &frame_bytes, None)
                                    .unwrap();
                                let event = TableEvent::new(seq, EventKind::card(card)).at(now);
                                batch
                                    .append_event(table, Some(session), Some(frame), &event)
                                    .unwrap();
                            }
                            batch.commit().unwrap();
                        }
                    },
                );
            },
        );
    }
    group.finish();
}

criterion_group!(benches, ingest);
criterion_main!(benches);
