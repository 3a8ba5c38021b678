//! The shoe list's shuffle quality, derived on demand from the record: a table of 300 recorded
//! 8-deck shoes, each shoe's analysis against the two before it computed from the recorded card
//! events (`shuffle::shoe_shuffles`), for a page of 50 shoes and for all 300.
//!
//! `cargo bench -p pitwatch-recording --bench shuffle`

// criterion_group! and criterion_main! generate undocumented public items.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, Criterion};
use pitwatch_baccarat::RuleBook;
use pitwatch_dealer::{deal, DealerConfig};
use pitwatch_model::Timestamp;
use pitwatch_protocols::ProtocolConfig;
use pitwatch_recording::recorder::TableRecorder;
use pitwatch_recording::shuffle;
use pitwatch_store::Store;

const SHOES: u32 = 300;

fn shoe_list(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(
        dir.path().join("bench.db"),
        &pitwatch_store::Sealing::key_file(dir.path().join("signing.key")),
    )
    .unwrap();
    let book = RuleBook::load("nz-baccarat").unwrap();
    let config = DealerConfig {
        shoes: SHOES,
        ..DealerConfig::angel_eye()
    };
    let session = deal(&book.shoe_book(), &config, &[], 42);
    let protocol = ProtocolConfig::by_name("angel-eye").unwrap();
    let mut encoder = protocol.encoder();
    let start = Timestamp::from_unix_millis(1_796_025_600_000).unwrap();
    let mut recorder = TableRecorder::resume(
        &mut store,
        "BAC-1",
        "baccarat",
        book.clone(),
        None,
        Some(protocol),
        start,
    )
    .unwrap();
    recorder
        .connect(&mut store, "bench", Default::default(), start)
        .unwrap();
    let mut derived = Vec::new();
    for events in session.events.chunks(2_000) {
        let mut batch = store.batch(start).unwrap();
        for event in events {
            if let Some(bytes) = encoder.encode(event) {
                recorder
                    .ingest(&mut batch, event.at.unwrap_or(start), &bytes, &mut derived)
                    .unwrap();
            }
        }
        batch.commit().unwrap();
        derived.clear();
    }
    let table = store.table_id("BAC-1").unwrap().unwrap();
    let terms = book.shuffle_terms();
    let all: Vec<u32> = (1..=SHOES).collect();
    assert_eq!(
        shuffle::shoe_shuffles(&store, table, &terms, &all)
            .unwrap()
            .len(),
        SHOES as usize
    );
    let page: Vec<u32> = (SHOES - 49..=SHOES).collect();
    c.bench_function(
        "shuffle quality of a page of 50 shoes from the record",
        |b| b.iter(|| shuffle::shoe_shuffles(&store, table, &terms, &page).unwrap()),
    );
    let mut group = c.benchmark_group("shuffle quality of 300 shoes from the record");
    group.sample_size(10);
    group.bench_function("all", |b| {
        b.iter(|| shuffle::shoe_shuffles(&store, table, &terms, &all).unwrap())
    });
    group.finish();
}

criterion_group!(benches, shoe_list);
criterion_main!(benches);
