//! Shuffle integrity through the recorder: shoes dealt with a false shuffle (a slug kept from the
//! shoe before) go through the live recorder as device bytes, with a restart of the recorder in
//! the middle of a shoe; each suspect shoe is an incident on record, with the slug's card events
//! as evidence; replay from the record (the whole table, and each shoe on its own) raises the same
//! incidents and gives the same shuffle analysis; and the per-shoe quality derived on demand from
//! the recorded events agrees.

use pitwatch_baccarat::RuleBook;
use pitwatch_dealer::{deal_with, DealerConfig, ShuffleModel, Shuffling};
use pitwatch_model::Timestamp;
use pitwatch_protocols::ProtocolConfig;
use pitwatch_recording::recorder::TableRecorder;
use pitwatch_recording::{replay, shuffle};
use pitwatch_shuffle::Verdict;
use pitwatch_store::{IncidentFilter, Sealing, Store};

fn record(
    protocol: &str,
    model: ShuffleModel,
    shoes: u32,
    seed: u64,
) -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let sealing = Sealing::key_file(dir.path().join("signing.key"));
    let mut store = Store::open(dir.path().join("pit.db"), &sealing).unwrap();
    let book = RuleBook::load("nz-baccarat").unwrap();
    let config = match protocol {
        "barcode" => DealerConfig::barcode(),
        _ => DealerConfig::angel_eye(),
    };
    let session = deal_with(
        &book.shoe_book(),
        &DealerConfig { shoes, ..config },
        &[],
        seed,
        Shuffling {
            model,
            previous: None,
        },
    );
    let protocol = ProtocolConfig::by_name(protocol).unwrap();
    let mut encoder = protocol.encoder();
    let start = Timestamp::from_unix_millis(1_796_025_600_000).unwrap();
    let resume = |store: &mut Store, at| {
        let mut recorder = TableRecorder::resume(
            store,
            "BAC-1",
            "baccarat",
            book.clone(),
            None,
            Some(protocol),
            at,
        )
        .unwrap();
        recorder
            .connect(store, "/dev/ttyUSB0", Default::default(), at)
            .unwrap();
        recorder
    };
    let mut recorder = resume(&mut store, start);
    let mut derived = Vec::new();
    // Restart the recorder (Pitwatch stopped and started again) halfway through the stream.
    let restart_at = session.events.len() * 5 / 8;
    let mut batch = store.batch(start).unwrap();
    for (i, event) in session.events.iter().enumerate() {
        let at = event.at.unwrap_or(start);
        if let Some(bytes) = encoder.encode(event) {
            recorder
                .ingest(&mut batch, at, &bytes, &mut derived)
                .unwrap();
        }
        if i == restart_at {
            let id = recorder.disconnect(&mut batch, at, &mut derived).unwrap();
            batch.commit().unwrap();
            if let Some(id) = id {
                store.end_session(id, at, "Pitwatch stopped").unwrap();
            }
            drop(recorder);
            recorder = resume(&mut store, at);
            batch = store.batch(at).unwrap();
        }
    }
    let end = Timestamp::from_unix_millis(start.unix_millis() + 10_000_000).unwrap();
    let id = recorder.disconnect(&mut batch, end, &mut derived).unwrap();
    batch.commit().unwrap();
    if let Some(id) = id {
        store.end_session(id, end, "end of test").unwrap();
    }
    (dir, store)
}

fn suspect_incidents(store: &Store) -> Vec<(u64, Vec<u64>, Option<u32>, String)> {
    store
        .incidents(&IncidentFilter::default())
        .unwrap()
        .into_iter()
        .filter(|i| i.code == "SHUFFLE_SUSPECT")
        .map(|i| (i.seq, i.evidence, i.shoe, i.message))
        .collect()
}

#[test]
fn a_slug_is_an_incident_on_record_and_replay_raises_it_again() {
    for protocol in ["angel-eye", "barcode"] {
        let (_dir, store) = record(protocol, ShuffleModel::Slug { cards: 20 }, 5, 3);
        let live = suspect_incidents(&store);
        assert!(
            live.len() >= 2,
            "{protocol}: shoes 2 to 4 keep a slug of 20, judged when the next starts: {live:?}"
        );
        for (_, evidence, shoe, message) in &live {
            assert!(shoe.unwrap() >= 2);
            assert!(evidence.len() >= 20, "both shoes' cards of the block");
            assert!(message.contains("keeps a block of"), "{message}");
        }

        // The whole table rebuilt from its bytes raises the same incidents at the same events.
        let whole = replay::rebuild(&store, "BAC-1").unwrap();
        assert_eq!(whole.divergences, Vec::<String>::new());
        let again: Vec<_> = whole
            .irregularities()
            .filter(|i| i.code.as_str() == "SHUFFLE_SUSPECT")
            .map(|i| (i.seq, i.evidence.clone(), Some(i.shoe), i.message.clone()))
            .collect();
        assert_eq!(again, live, "{protocol}: replay == live");
        // Shoes 1 to 4 judged, shoe 5 (the last, never followed by another) provisional.
        let judged: Vec<(u32, bool)> = whole
            .shuffles
            .iter()
            .map(|s| (s.shoe, s.provisional))
            .collect();
        assert_eq!(
            judged,
            [(1, false), (2, false), (3, false), (4, false), (5, true)]
        );
        assert_eq!(whole.shuffles[0].analysis.verdict, Verdict::NotCompared);

        // Each shoe replayed on its own has the whole replay's analysis.
        for expected in &whole.shuffles {
            let one = replay::replay_shoe(&store, "BAC-1", expected.shoe).unwrap();
            let mut expected = expected.clone();
            let mut got = one.shuffle.expect("analysed");
            expected.irregularity = None;
            got.irregularity = None;
            assert_eq!(got, expected, "{protocol} shoe {}", expected.shoe);
        }

        // And derived on demand from the recorded events, for a shoe list.
        let table = store.table_id("BAC-1").unwrap().unwrap();
        let terms = RuleBook::load("nz-baccarat").unwrap().shuffle_terms();
        let listed = shuffle::shoe_shuffles(&store, table, &terms, &[5, 4, 3, 2, 1]).unwrap();
        let strip = |v: &[pitwatch_shuffle::ShoeShuffle]| {
            v.iter()
                .map(|s| (s.shoe, s.provisional, s.analysis.clone()))
                .collect::<Vec<_>>()
        };
        assert_eq!(strip(&listed), strip(&whole.shuffles));
        let page = shuffle::shoe_shuffles(&store, table, &terms, &[3, 4]).unwrap();
        assert_eq!(strip(&page), strip(&whole.shuffles[2..4]));

        // The shoe report has a Shuffle section with the verdict and the block.
        let suspect = live[0].2.unwrap();
        let report = pitwatch_recording::report::shoe_report(&store, "BAC-1", suspect).unwrap();
        let at = report
            .blocks
            .iter()
            .position(
                |b| matches!(b, pitwatch_report::Block::Heading { text } if text == "Shuffle"),
            )
            .expect("a Shuffle section");
        let pitwatch_report::Block::Fields { fields } = &report.blocks[at + 1] else {
            panic!("the section's fields");
        };
        let field = |name: &str| {
            fields
                .iter()
                .find(|(label, _)| label == name)
                .map(|(_, value)| value.as_str())
                .unwrap_or_default()
        };
        assert!(
            field("Verdict").starts_with("suspect: a block of"),
            "{fields:?}"
        );
        assert!(field("Longest preserved run").contains(&format!("of shoe {}", suspect - 1)));
        let compared: Vec<String> = (1..suspect).rev().take(2).map(|s| s.to_string()).collect();
        assert_eq!(field("Compared with shoes"), compared.join(", "));
    }
}

#[test]
fn honest_shoes_raise_nothing_and_are_well_mixed() {
    let (_dir, store) = record("angel-eye", ShuffleModel::Random, 4, 11);
    assert!(suspect_incidents(&store).is_empty());
    let whole = replay::rebuild(&store, "BAC-1").unwrap();
    assert!(whole.shuffles[1..3]
        .iter()
        .all(|s| s.analysis.verdict == Verdict::WellMixed));
}
