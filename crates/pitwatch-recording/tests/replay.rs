//! Replay from the record equals what was recorded live: simulated shoes with injected faults go
//! through the live recorder as device bytes (with wire faults and a reconnect), then the table
//! is rebuilt from the raw bytes alone and must give the same rounds and irregularities.

use pitwatch_baccarat::RuleBook;
use pitwatch_dealer::{deal, DealerConfig, FaultKind, FaultPlan};
use pitwatch_model::{EventKind, ExposedDuring, Timestamp};
use pitwatch_protocols::ProtocolConfig;
use pitwatch_recording::recorder::TableRecorder;
use pitwatch_recording::replay;
use pitwatch_store::{IncidentFilter, Sealing, Store};

/// How the records these tests make are signed: a key beside them.
fn sealing(dir: &std::path::Path) -> Sealing {
    Sealing::key_file(dir.join("signing.key"))
}

fn plan(kind: FaultKind, round: u32) -> FaultPlan {
    FaultPlan {
        kind,
        shoe: 1,
        round,
    }
}

/// Records a dealt session live as `protocol` bytes and returns the store.
fn record_live(
    protocol: &str,
    config: DealerConfig,
    faults: &[FaultPlan],
    seed: u64,
) -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path().join("pit.db"), &sealing(dir.path())).unwrap();
    let book = RuleBook::load("nz-baccarat").unwrap();
    let session = deal(&book.shoe_book(), &config, faults, seed);
    assert!(!session.faults.is_empty() || faults.is_empty());
    let config = ProtocolConfig::by_name(protocol).unwrap();
    let mut encoder = config.encoder();
    let start = Timestamp::from_unix_millis(1_796_025_600_000).unwrap();
    let mut recorder = TableRecorder::resume(
        &mut store,
        "BAC-1",
        "baccarat",
        book,
        None,
        Some(config),
        start,
    )
    .unwrap();
    recorder
        .connect(&mut store, "/dev/ttyUSB0", Default::default(), start)
        .unwrap();
    let mut derived = Vec::new();
    let half = session.events.len() / 2;
    let mut reconnected = false;
    let mut batch = store.batch(start).unwrap();
    for (i, event) in session.events.iter().enumerate() {
        let at = event.at.unwrap_or(start);
        let Some(mut bytes) = encoder.encode(event) else {
            continue;
        };
        if i == 40 {
            // Line noise before a frame, and a copy of the frame with a broken checksum.
            let mut damaged = bytes.clone();
            if encoder.corrupt_checksum(&mut damaged) {
                recorder
                    .ingest(&mut batch, at, &damaged, &mut derived)
                    .unwrap();
            }
            bytes.splice(0..0, b"\xff\x00noise".iter().copied());
        }
        // Split each frame across two reads, as a slow serial line does.
        let (a, b) = bytes.split_at(bytes.len() / 2);
        recorder.ingest(&mut batch, at, a, &mut derived).unwrap();
        recorder.ingest(&mut batch, at, b, &mut derived).unwrap();
        if i >= half && !reconnected {
            // The device server drops and the monitor reconnects; a supervisor notes an exposure
            // (at the first event past half the stream that the protocol carries).
            reconnected = true;
            let session_id = recorder
                .disconnect(&mut batch, at, &mut derived)
                .unwrap()
                .unwrap();
            batch.commit().unwrap();
            store
                .end_session(session_id, at, "connection reset")
                .unwrap();
            recorder
                .connect(&mut store, "/dev/ttyUSB0", Default::default(), at)
                .unwrap();
            batch = store.batch(start).unwrap();
            recorder
                .console(
                    &mut batch,
                    EventKind::CardExposed {
                        card: None,
                        during: ExposedDuring::Dealing,
                    },
                    "ana",
                    at,
                    &mut derived,
                )
                .unwrap();
        }
    }
    let end = Timestamp::from_unix_millis(start.unix_millis() + 10_000_000).unwrap();
    let session_id = recorder
        .disconnect(&mut batch, end, &mut derived)
        .unwrap()
        .unwrap();
    batch.commit().unwrap();
    store.end_session(session_id, end, "end of test").unwrap();
    (dir, store)
}

/// An irregularity as compared: code, raising seq, evidence, shoe, round.
type Finding = (String, u64, Vec<u64>, Option<u32>, Option<u32>);

fn assert_replay_equals_live(store: &Store) -> replay::Replay {
    let replayed = replay::rebuild(store, "BAC-1").unwrap();
    assert_eq!(replayed.divergences, Vec::<String>::new());
    let table = store.table_id("BAC-1").unwrap().unwrap();
    let live_rounds: Vec<String> = store
        .rounds(table)
        .unwrap()
        .into_iter()
        .map(|(_, _, body)| body)
        .collect();
    let replayed_rounds: Vec<String> = replayed
        .rounds()
        .map(|r| serde_json::to_string(r).unwrap())
        .collect();
    assert!(!live_rounds.is_empty());
    assert_eq!(
        replayed_rounds, live_rounds,
        "the same rounds, byte for byte"
    );
    let live: Vec<Finding> = store
        .incidents(&IncidentFilter::default())
        .unwrap()
        .into_iter()
        .map(|i| (i.code, i.seq, i.evidence, i.shoe, i.round))
        .collect();
    let again: Vec<Finding> = replayed
        .irregularities()
        .map(|i| {
            (
                i.code.to_string(),
                i.seq,
                i.evidence.clone(),
                Some(i.shoe),
                i.round,
            )
        })
        .collect();
    assert_eq!(again, live, "the same irregularities, at the same events");
    assert_each_shoe_replays_as_the_whole(store, &replayed);
    replayed
}

/// Every shoe replayed on its own ([`replay::replay_shoe`]: from the shoe before, with the
/// engine's carry) has exactly the steps of the whole table's replay.
fn assert_each_shoe_replays_as_the_whole(store: &Store, whole: &replay::Replay) {
    let shoes = whole.shoes();
    assert!(!shoes.is_empty());
    for summary in &shoes {
        let one = replay::replay_shoe(store, "BAC-1", summary.shoe).unwrap();
        assert_eq!(
            one.divergences,
            Vec::<String>::new(),
            "shoe {}",
            summary.shoe
        );
        let expected = whole.shoe_steps(summary.shoe).unwrap();
        assert_eq!(one.steps.len(), expected.len(), "shoe {}", summary.shoe);
        assert!(
            one.steps.as_slice() == expected,
            "shoe {}: the steps differ from the whole replay's",
            summary.shoe
        );
        if summary.shoe > 2 {
            assert!(
                one.events_run < whole.steps.len(),
                "shoe {} ran {} events, the whole table has {}",
                summary.shoe,
                one.events_run,
                whole.steps.len()
            );
        }
    }
    let last = shoes.last().map_or(0, |s| s.shoe);
    assert!(matches!(
        replay::replay_shoe(store, "BAC-1", last + 1),
        Err(pitwatch_store::StoreError::NotFound(_))
    ));
}

#[test]
fn angel_eye_replay_from_the_record_equals_live() {
    let faults = [
        plan(FaultKind::BurnMiscount, 1),
        plan(FaultKind::UnauthorisedThirdCard, 5),
        plan(FaultKind::WrongDeclaredResult, 12),
        plan(FaultKind::ForeignCard, 20),
        plan(FaultKind::DeviceError, 40),
    ];
    let (_dir, store) = record_live("angel-eye", DealerConfig::angel_eye(), &faults, 7);
    let replayed = assert_replay_equals_live(&store);
    // Each incident's code, and the codes of what else was found in the same round (one incident
    // per round: the exposure entered at the console falls in the device error's round).
    let codes: Vec<String> = replayed
        .irregularities()
        .flat_map(|i| std::iter::once(i.code).chain(i.also.iter()))
        .map(|code| code.to_string())
        .collect();
    for expected in [
        "BURN_COUNT_MISMATCH",
        "UNAUTHORISED_THIRD_CARD",
        "RESULT_MISMATCH",
        "EXCESS_CARD",
        "DEVICE_ERROR",
        "CARD_EXPOSED",
    ] {
        assert!(
            codes.iter().any(|c| c == expected),
            "{expected} in {codes:?}"
        );
    }
    assert!(
        replayed
            .rejected
            .iter()
            .any(|r| r.reason.starts_with("bad_checksum")),
        "{:?}",
        replayed.rejected
    );
    assert!(
        replayed
            .rejected
            .iter()
            .any(|r| r.reason.starts_with("garbage")),
        "{:?}",
        replayed.rejected
    );
    let shoe = replayed.shoe_steps(1).unwrap();
    assert!(shoe.len() > 300, "a whole shoe: {} events", shoe.len());
    // Each step carries the table as it was: after the shoe's last event, every round is counted.
    let rounds_in_shoe = replayed.rounds().filter(|r| r.shoe() == 1).count() as u32;
    let last = shoe.last().unwrap();
    let view = last.view.baccarat().unwrap();
    assert_eq!(view.shoe, 1);
    assert_eq!(view.rounds_completed, rounds_in_shoe);
    assert!(view.cutting_card_out);
}

#[test]
fn barcode_replay_from_the_record_equals_live() {
    let faults = [
        plan(FaultKind::BurnMiscount, 1),
        plan(FaultKind::ForeignCard, 10),
        plan(FaultKind::MissingThirdCard, 20),
    ];
    let (_dir, store) = record_live("barcode", DealerConfig::barcode(), &faults, 11);
    let replayed = assert_replay_equals_live(&store);
    assert!(replayed.irregularities().count() >= 2);
}

#[test]
fn pitwatch_protocol_replay_from_the_record_equals_live() {
    let faults = [
        plan(FaultKind::OutOfOrderCard, 3),
        plan(FaultKind::CuttingCardTooCloseToBack, 1),
    ];
    let (_dir, store) = record_live("pitwatch", DealerConfig::angel_eye(), &faults, 5);
    assert_replay_equals_live(&store);
}

#[test]
fn a_restart_mid_round_is_replayed_as_the_live_recorder_saw_it() {
    let replayed = restart_mid_round(1, 100);
    let shoes = replayed.shoes();
    assert!(
        shoes[0].partial,
        "the shoe cut off by the restart is partial: {shoes:?}"
    );
    assert!(
        replayed
            .rounds()
            .filter_map(|r| r.baccarat())
            .any(|r| r.partial && !r.complete)
            || replayed.irregularities().count() == 0,
        "a round cut off is closed unfinished, or the cut fell between rounds"
    );
    assert_eq!(
        replayed.irregularities().count(),
        0,
        "the gap is not the dealer's fault: {:?}",
        replayed.irregularities().collect::<Vec<_>>()
    );
}

#[test]
fn a_restart_mid_round_in_a_later_shoe_replays_shoe_by_shoe_as_the_whole() {
    // Past the first shoe (about 500 frames): the cut-off shoe and the ones after it, each on
    // its own, equal the whole replay (checked by assert_replay_equals_live).
    let replayed = restart_mid_round(4, 700);
    let shoes = replayed.shoes();
    assert!(shoes.len() >= 4, "{shoes:?}");
    assert!(
        shoes.iter().skip(1).any(|s| s.partial),
        "a later shoe was cut off: {shoes:?}"
    );
}

/// Deals `shoes` shoes, records them live, kills the recorder in the middle of a round after
/// `after` frames, loses five frames, restarts and records the rest; checks that replay equals
/// what was recorded live.
fn restart_mid_round(shoes: u32, after: usize) -> replay::Replay {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pit.db");
    let book = RuleBook::load("nz-baccarat").unwrap();
    let config = DealerConfig {
        shoes,
        ..DealerConfig::angel_eye()
    };
    let session = deal(&book.shoe_book(), &config, &[], 23);
    let config = ProtocolConfig::by_name("angel-eye").unwrap();
    let mut encoder = config.encoder();
    let mut frames: Vec<(Timestamp, Vec<u8>)> = Vec::new();
    let mut cut = None;
    for event in &session.events {
        // Cut in the middle of a round: right after the Player's second card of some round.
        let mid_round = matches!(
            event.kind,
            EventKind::CardDrawn {
                target: Some(pitwatch_model::Target::Player),
                index: Some(2),
                ..
            }
        );
        if let Some(bytes) = encoder.encode(event) {
            frames.push((event.at.unwrap(), bytes));
            if mid_round && cut.is_none() && frames.len() > after {
                cut = Some(frames.len());
            }
        }
    }
    let cut = cut.expect("a round to cut");
    let start = frames[0].0;
    {
        let mut store = Store::open(&path, &sealing(dir.path())).unwrap();
        let mut recorder = TableRecorder::resume(
            &mut store,
            "BAC-1",
            "baccarat",
            book.clone(),
            None,
            Some(config),
            start,
        )
        .unwrap();
        recorder
            .connect(&mut store, "/dev/ttyUSB0", Default::default(), start)
            .unwrap();
        let mut derived = Vec::new();
        let mut batch = store.batch(start).unwrap();
        for (at, bytes) in &frames[..cut] {
            recorder
                .ingest(&mut batch, *at, bytes, &mut derived)
                .unwrap();
        }
        batch.commit().unwrap();
        // The process dies here: no disconnect, no end of session.
    }
    let mut store = Store::open(&path, &sealing(dir.path())).unwrap();
    let restart = frames[cut + 5].0;
    let mut recorder = TableRecorder::resume(
        &mut store,
        "BAC-1",
        "baccarat",
        book,
        None,
        Some(config),
        restart,
    )
    .unwrap();
    recorder
        .connect(&mut store, "/dev/ttyUSB0", Default::default(), restart)
        .unwrap();
    let mut derived = Vec::new();
    let mut batch = store.batch(start).unwrap();
    // Five frames were sent while nobody was listening.
    for (at, bytes) in &frames[cut + 5..] {
        recorder
            .ingest(&mut batch, *at, bytes, &mut derived)
            .unwrap();
    }
    batch.commit().unwrap();
    assert_replay_equals_live(&store)
}

#[test]
fn one_shoe_of_many_replays_as_in_the_whole_record_for_every_protocol() {
    let faults = [
        FaultPlan {
            kind: FaultKind::OutOfOrderCard,
            shoe: 2,
            round: 4,
        },
        FaultPlan {
            kind: FaultKind::CardExposed,
            shoe: 3,
            round: 2,
        },
        FaultPlan {
            kind: FaultKind::RoundPastLastCoup,
            shoe: 4,
            round: 1,
        },
        FaultPlan {
            kind: FaultKind::WrongDeclaredResult,
            shoe: 5,
            round: 6,
        },
    ];
    for (protocol, config) in [
        ("angel-eye", DealerConfig::angel_eye()),
        ("barcode", DealerConfig::barcode()),
        ("pitwatch", DealerConfig::angel_eye()),
    ] {
        let config = DealerConfig { shoes: 5, ..config };
        let (_dir, store) = record_live(protocol, config, &faults, 31);
        let replayed = assert_replay_equals_live(&store);
        assert!(
            replayed.shoes().len() >= 5,
            "{protocol}: {:?}",
            replayed.shoes()
        );
    }
}

#[test]
fn a_record_from_before_shoe_starts_were_kept_gets_them_on_the_next_start() {
    // Events on record with no shoe starts, as a database from before migration 2 has them.
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path().join("pit.db"), &sealing(dir.path())).unwrap();
    let book = RuleBook::load("nz-baccarat").unwrap();
    let start = Timestamp::from_unix_millis(1_796_025_600_000).unwrap();
    let table = store
        .ensure_table("BAC-1", "baccarat", "nz-baccarat", start)
        .unwrap();
    let faults = [FaultPlan {
        kind: FaultKind::DeviceError,
        shoe: 2,
        round: 3,
    }];
    let config = DealerConfig {
        shoes: 4,
        ..DealerConfig::barcode()
    };
    let session = deal(&book.shoe_book(), &config, &faults, 9);
    let mut batch = store.batch(start).unwrap();
    for event in &session.events {
        batch.append_event(table, None, None, event).unwrap();
    }
    batch.commit().unwrap();
    assert_eq!(store.last_shoe(table).unwrap(), None);
    assert!(replay::replay_shoe(&store, "BAC-1", 3).is_err());

    TableRecorder::resume(&mut store, "BAC-1", "baccarat", book, None, None, start).unwrap();
    assert_eq!(store.last_shoe(table).unwrap(), Some(4));
    let whole = replay::rebuild(&store, "BAC-1").unwrap();
    assert_each_shoe_replays_as_the_whole(&store, &whole);
}

/// A table recorded under one book and resumed under another (the pit definition changed
/// between two runs: here from eight decks to six) is replayed with each part of its stream under
/// the book that was in force when it was dealt, as the live recorder judged it: the eight-deck
/// shoes are not judged by the six-deck book recorded last (which would find every card past its
/// sixth copy foreign to the shoe), the whole replay and each shoe on its own equal live, and a
/// shoe's replay names the book it was dealt by.
#[test]
fn a_table_resumed_under_another_book_replays_each_part_by_the_book_then_in_force() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pit.db");
    let eight = RuleBook::load("nz-baccarat").unwrap();
    let six = eight.with_decks(6).unwrap();
    let config = ProtocolConfig::by_name("angel-eye").unwrap();
    let dealer = DealerConfig {
        shoes: 2,
        ..DealerConfig::angel_eye()
    };
    let record = |store: &mut Store, book: &RuleBook, seed: u64, from: Timestamp| {
        let mut recorder = TableRecorder::resume(
            store,
            "BAC-1",
            "baccarat",
            book.clone(),
            None,
            Some(config),
            from,
        )
        .unwrap();
        recorder
            .connect(store, "/dev/ttyUSB0", Default::default(), from)
            .unwrap();
        let session = deal(&book.shoe_book(), &dealer, &[], seed);
        let mut encoder = config.encoder();
        let mut derived = Vec::new();
        let mut batch = store.batch(from).unwrap();
        let mut last = from;
        for event in &session.events {
            let at = Timestamp::from_unix_millis(
                from.unix_millis() + event.at.map_or(0, |t| t.unix_millis() % 10_000_000),
            )
            .unwrap();
            last = last.max(at);
            if let Some(bytes) = encoder.encode(event) {
                recorder
                    .ingest(&mut batch, at, &bytes, &mut derived)
                    .unwrap();
            }
        }
        let session_id = recorder
            .disconnect(&mut batch, last, &mut derived)
            .unwrap()
            .unwrap();
        batch.commit().unwrap();
        store.end_session(session_id, last, "stopped").unwrap();
        last
    };
    let start = Timestamp::from_unix_millis(1_796_025_600_000).unwrap();
    let mut store = Store::open(&path, &sealing(dir.path())).unwrap();
    let ended = record(&mut store, &eight, 31, start);
    let later = Timestamp::from_unix_millis(ended.unix_millis() + 3_600_000).unwrap();
    record(&mut store, &six, 32, later);

    let table = store.table_id("BAC-1").unwrap().unwrap();
    let books = store.table_books(table).unwrap();
    assert_eq!(books.len(), 2, "{books:?}");
    assert_eq!(
        (books[0].from_seq, books[0].reference.as_str()),
        (0, "nz-baccarat")
    );
    assert_eq!(books[1].reference, "nz-baccarat;decks=6");
    let replayed = assert_replay_equals_live(&store);
    assert_eq!(
        replayed.irregularities().count(),
        0,
        "honest shoes, each judged by its own book: {:?}",
        replayed.irregularities().collect::<Vec<_>>()
    );
    let shoes = replayed.shoes();
    assert!(shoes.len() >= 4, "{shoes:?}");
    let first = replay::replay_shoe(&store, "BAC-1", 1).unwrap();
    assert_eq!(first.rule_book, "nz-baccarat");
    let last = replay::replay_shoe(&store, "BAC-1", shoes.last().unwrap().shoe).unwrap();
    assert_eq!(last.rule_book, "nz-baccarat;decks=6");
    assert!(store.verify().unwrap().intact());
}
