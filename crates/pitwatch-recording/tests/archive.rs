//! An archived record still replays (issue 32): shoes recorded live as device bytes through the
//! recorder, the older part of the record moved to an archive, and every shoe replayed again,
//! from the live record or from the archive that holds it whole, step for step as before, with
//! no divergence: also the shoe whose device session began in the archived part.

use pitwatch_baccarat::RuleBook;
use pitwatch_dealer::{deal, DealerConfig};
use pitwatch_model::Timestamp;
use pitwatch_protocols::ProtocolConfig;
use pitwatch_recording::recorder::TableRecorder;
use pitwatch_recording::{archived, replay, report};
use pitwatch_store::archive::Retention;
use pitwatch_store::{Actor, Depth, Sealing, Store, VerifyOptions};

/// Records `shoes` shoes dealt in `protocol` through the live recorder in one device session,
/// each frame split across two reads and a transaction committed every `every` reads (so some
/// checkpoints fall inside a frame).
fn record(protocol: &str, shoes: u32, every: usize, dir: &std::path::Path) -> Store {
    let mut store = Store::open(
        dir.join("pit.db"),
        &Sealing::key_file(dir.join("signing.key")),
    )
    .unwrap();
    let book = RuleBook::load("nz-baccarat").unwrap();
    let config = match protocol {
        "barcode" => DealerConfig::barcode(),
        _ => DealerConfig::angel_eye(),
    };
    let session = deal(&book.shoe_book(), &DealerConfig { shoes, ..config }, &[], 7);
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
    let mut reads = 0;
    let mut at = start;
    let mut batch = store.batch(start).unwrap();
    for event in &session.events {
        at = event.at.unwrap_or(at);
        let Some(bytes) = encoder.encode(event) else {
            continue;
        };
        let (a, b) = bytes.split_at(bytes.len() / 2);
        for part in [a, b] {
            recorder.ingest(&mut batch, at, part, &mut derived).unwrap();
            reads += 1;
            if reads % every == 0 {
                batch.commit().unwrap();
                batch = store.batch(at).unwrap();
            }
        }
    }
    batch.commit().unwrap();
    store
}

fn nz() -> Retention {
    Retention {
        jurisdiction: "nz".into(),
        years: 7,
        cite: "Gambling Act 2003, s 177".into(),
    }
}

fn archive_and_replay(protocol: &str, every: usize) {
    let dir = tempfile::tempdir().unwrap();
    let mut store = record(protocol, 6, every, dir.path());
    let whole = replay::rebuild(&store, "BAC-1").unwrap();
    assert_eq!(whole.divergences, Vec::<String>::new());
    let shoes: Vec<u32> = whole.shoes().iter().map(|s| s.shoe).collect();
    assert!(shoes.len() >= 6, "{shoes:?}");
    let before: Vec<_> = shoes
        .iter()
        .map(|&shoe| replay::replay_shoe(&store, "BAC-1", shoe).unwrap().steps)
        .collect();

    let reports: Vec<String> = shoes
        .iter()
        .map(|&shoe| format!("{:?}", report::shoe_report(&store, "BAC-1", shoe).unwrap()))
        .collect();
    // The cut-off in the middle of the fifth shoe: it and the two shoes before it stay whole in
    // the live record.
    let table = store.table_id("BAC-1").unwrap().unwrap();
    let third = store.shoe_start(table, 3).unwrap().unwrap();
    let middle = whole
        .shoe_steps(5)
        .unwrap()
        .get(20)
        .and_then(|s| s.event.at)
        .unwrap();
    let plan = store
        .plan_archive(middle, pitwatch_store::archive::SHOES_BEFORE)
        .unwrap()
        .unwrap();
    let folder = dir.path().join("archive");
    let now = Timestamp::from_unix_millis(1_900_000_000_000).unwrap();
    let entry = store
        .archive(&plan, &folder, &nz(), &Actor::at("root", "ws-1"), now)
        .unwrap();
    // The shoe in progress at the cut-off stays whole in the live record.
    let span = entry.tables.iter().find(|t| t.table_id == table.0).unwrap();
    assert!(
        (span.last_seq as u64) < third.first_seq,
        "shoe 3 is kept whole"
    );
    assert!(span.held_to_seq as u64 >= store.shoe_start(table, 4).unwrap().unwrap().first_seq);
    assert!(store.verify().unwrap().intact());
    let archived = Store::open_read_only(entry.path()).unwrap();
    let mut options = VerifyOptions::full(store.trusted_keys(), Vec::new());
    options.archive = true;
    options.depth = Depth::Full;
    let report = archived.verify_with(&options).unwrap();
    assert!(report.intact(), "{:?}", report.problems);

    // Every shoe from the file that holds it and the shoe before it whole, as before: the first
    // shoes from the archive, the later ones from the live record.
    let mut places = Vec::new();
    for (&shoe, steps) in shoes.iter().zip(&before) {
        let (again, archive) = archived::replay_shoe(&store, "BAC-1", shoe).unwrap();
        let place = archive.map_or("live record".to_owned(), |a| {
            format!("archive {}", a.number)
        });
        assert_eq!(
            again.divergences,
            Vec::<String>::new(),
            "{protocol}: shoe {shoe} from the {place}"
        );
        assert!(
            &again.steps == steps,
            "{protocol}: shoe {shoe} from the {place} replays otherwise ({} steps, {} before)",
            again.steps.len(),
            steps.len()
        );
        places.push(place);
    }
    assert_eq!(places.first().unwrap(), "archive 1");
    assert_eq!(places.last().unwrap(), "live record");
    // Every shoe's report, read through the live record, says what it said before, up to the
    // record's integrity (the record has moved on: the archive step is a transaction); an
    // archived shoe's report names its archive.
    let upto =
        |text: &str| text[..text.find("Heading { text: \"Integrity\" }").unwrap()].to_owned();
    for (&shoe, was) in shoes.iter().zip(&reports) {
        let now = format!("{:?}", report::shoe_report(&store, "BAC-1", shoe).unwrap());
        assert!(
            upto(&now) == upto(was),
            "{protocol}: shoe {shoe}'s report differs"
        );
        let in_archive = archived::archive_for_shoe(&store, table, shoe)
            .unwrap()
            .is_some();
        assert_eq!(
            now.contains("archive 1 of this record"),
            in_archive,
            "{protocol}: shoe {shoe}"
        );
    }
    // The live record's table replayed whole begins at its first shoe held whole, numbered as
    // before, every shoe step for step as before.
    let live = replay::rebuild(&store, "BAC-1").unwrap();
    assert_eq!(live.divergences, Vec::<String>::new(), "{protocol}");
    let live_shoes: Vec<u32> = live.shoes().iter().map(|s| s.shoe).collect();
    assert_eq!(live_shoes.first(), Some(&3), "{protocol}: {live_shoes:?}");
    assert_eq!(live_shoes.last(), shoes.last());
    for &shoe in &live_shoes {
        let (now, was) = (live.shoe_steps(shoe).unwrap(), &before[shoe as usize - 1]);
        if shoe == 3 {
            // The first shoe held whole begins the replay, resumed with what the recorder
            // carried into it: everything as before but the shoe before's closing summary,
            // which its shuffle gave (the shoe before replays from the archive, with it).
            assert_eq!(now.len(), was.len());
            assert!(
                now[1..] == was[1..],
                "{protocol}: shoe 3 of the live record"
            );
            assert_eq!(now[0].view, was[0].view);
            assert!(now[0].outputs.iter().all(|o| was[0].outputs.contains(o)));
        } else {
            assert!(
                now == was.as_slice(),
                "{protocol}: shoe {shoe} of the live record replayed whole"
            );
        }
    }
    // The archive on its own replays every shoe it holds whole, as before.
    for (&shoe, steps) in shoes.iter().zip(&before).take(2) {
        let again = replay::replay_shoe(&archived, "BAC-1", shoe).unwrap();
        assert!(
            &again.steps == steps,
            "{protocol}: shoe {shoe} from the archive"
        );
    }
    let _ = third;
}

#[test]
fn every_shoe_of_an_archived_angel_eye_record_replays_as_before() {
    for every in [5, 6, 7] {
        archive_and_replay("angel-eye", every);
    }
}

#[test]
fn every_shoe_of_an_archived_barcode_record_replays_as_before() {
    archive_and_replay("barcode", 7);
}

#[test]
fn every_shoe_of_an_archived_pitwatch_protocol_record_replays_as_before() {
    archive_and_replay("pitwatch", 5);
}
