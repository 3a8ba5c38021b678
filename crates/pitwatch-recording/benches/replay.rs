//! Rebuilding and replaying one whole 8-deck shoe from the record: read the session's raw chunks,
//! re-decode them, merge with the recorded stream, and run the engine, as the Replay screen and
//! `pitwatch replay --db` do. Target (issue 5): within 20 ms.

// criterion_group! and criterion_main! generate undocumented public items.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, Criterion};
use pitwatch_baccarat::RuleBook;
use pitwatch_dealer::{deal, DealerConfig};
use pitwatch_model::Timestamp;
use pitwatch_protocols::ProtocolConfig;
use pitwatch_recording::recorder::TableRecorder;
use pitwatch_recording::replay;
use pitwatch_store::Store;

fn rebuild(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(
        dir.path().join("bench.db"),
        &pitwatch_store::Sealing::key_file(dir.path().join("signing.key")),
    )
    .unwrap();
    let book = RuleBook::load("nz-baccarat").unwrap();
    let session = deal(&book.shoe_book(), &DealerConfig::angel_eye(), &[], 42);
    let protocol = ProtocolConfig::by_name("angel-eye").unwrap();
    let mut encoder = protocol.encoder();
    let start = Timestamp::from_unix_millis(1_796_025_600_000).unwrap();
    let mut recorder = TableRecorder::resume(
        &mut store,
        "BAC-1",
        "baccarat",
        book,
        None,
        Some(protocol),
        start,
    )
    .unwrap();
    recorder
        .connect(&mut store, "bench", Default::default(), start)
        .unwrap();
    let mut derived = Vec::new();
    let mut batch = store.batch(start).unwrap();
    let mut frames = 0;
    for event in &session.events {
        if let Some(bytes) = encoder.encode(event) {
            recorder
                .ingest(&mut batch, event.at.unwrap_or(start), &bytes, &mut derived)
                .unwrap();
            frames += 1;
        }
    }
    batch.commit().unwrap();
    let replayed = replay::rebuild(&store, "BAC-1").unwrap();
    let rounds = replayed.rounds().count();
    assert!(
        rounds > 60,
        "a whole shoe: {rounds} rounds from {frames} frames"
    );
    c.bench_function("rebuild and replay one 8-deck shoe from the record", |b| {
        b.iter(|| replay::rebuild(&store, "BAC-1").unwrap())
    });
}

criterion_group!(benches, rebuild);
criterion_main!(benches);
