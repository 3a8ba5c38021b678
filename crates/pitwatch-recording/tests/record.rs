//! The record as the application opens it: a record that fails verification at start-up is kept
//! as evidence and recording goes on in a new segment; reports print what the chained record
//! says, never an unchecked derived table.

use pitwatch_baccarat::RuleBook;
use pitwatch_dealer::{deal, DealerConfig};
use pitwatch_model::Timestamp;
use pitwatch_protocols::ProtocolConfig;
use pitwatch_recording::record::{self, Installation};
use pitwatch_recording::recorder::TableRecorder;

fn t(ms: i64) -> Timestamp {
    Timestamp::from_unix_millis(1_796_025_600_000 + ms).unwrap()
}

/// A record of two barcode shoes dealt through the live recorder, at `db`.
fn record_two_shoes(installation: &Installation, db: &std::path::Path) {
    let mut store = installation.open(db).unwrap();
    let book = RuleBook::load("nz-baccarat").unwrap();
    let session = deal(
        &book.shoe_book(),
        &DealerConfig {
            shoes: 2,
            ..DealerConfig::barcode()
        },
        &[],
        5,
    );
    let protocol = ProtocolConfig::by_name("barcode").unwrap();
    let mut encoder = protocol.encoder();
    let mut recorder = TableRecorder::resume(
        &mut store,
        "MINI-1",
        "baccarat",
        book,
        pitwatch_games::book_text("nz-baccarat").as_deref(),
        Some(protocol),
        t(0),
    )
    .unwrap();
    recorder
        .connect(&mut store, "/dev/ttyS0", Default::default(), t(0))
        .unwrap();
    let mut derived = Vec::new();
    let mut batch = store.batch(t(1)).unwrap();
    for event in &session.events {
        if let Some(bytes) = encoder.encode(event) {
            recorder
                .ingest(&mut batch, event.at.unwrap_or(t(1)), &bytes, &mut derived)
                .unwrap();
        }
    }
    batch.commit().unwrap();
}

#[test]
fn a_record_that_fails_at_start_up_is_kept_and_recording_goes_on_in_a_new_segment() {
    let dir = tempfile::tempdir().unwrap();
    let installation = Installation::with_key(dir.path().join("signing.key"));
    let db = dir.path().join("pit.db");
    record_two_shoes(&installation, &db);

    // An honest record opens as it is.
    let opened = record::open_for_recording(&installation, &db).unwrap();
    assert_eq!(opened.path, db);
    assert!(opened.failures.is_empty(), "{:?}", opened.failures);
    drop(opened);

    // Someone promotes a user behind the record's back.
    rusqlite::Connection::open(&db)
        .unwrap()
        .execute_batch(
            "INSERT INTO users (name, role, password_hash, created_at) VALUES ('mallory', 'admin', 'x', 'now')",
        )
        .unwrap();
    let before = std::fs::read(&db).unwrap();
    let opened = record::open_for_recording(&installation, &db).unwrap();
    assert_eq!(opened.path, record::segment_path(&db, 2));
    assert_eq!(opened.failures.len(), 1);
    let message = opened.failures[0].message();
    assert!(message.contains("mallory"), "{message}");
    assert!(message.contains("kept unchanged as evidence"), "{message}");
    // The new segment is a record of its own, signed; the broken one is untouched.
    let mut store = opened.store;
    store.set_meta("site", "Main pit", t(5)).unwrap();
    assert!(store.verify().unwrap().intact());
    drop(store);
    assert_eq!(
        std::fs::read(&db).unwrap(),
        before,
        "the evidence is untouched"
    );

    // The next start records into the new segment again and still reports the broken one.
    let opened = record::open_for_recording(&installation, &db).unwrap();
    assert_eq!(opened.path, record::segment_path(&db, 2));
    assert_eq!(opened.failures.len(), 1);
    assert_eq!(opened.failures[0].path, db);
}

#[test]
fn a_failure_found_by_the_full_verification_moves_the_next_start_to_a_new_segment() {
    let dir = tempfile::tempdir().unwrap();
    let installation = Installation::with_key(dir.path().join("signing.key"));
    let db = dir.path().join("pit.db");
    record_two_shoes(&installation, &db);
    // The quick start-up check does not re-hash every row; the full one, run in the background,
    // found an altered row and marked the segment.
    record::mark_failed(&db, "frames row 7: its content does not match its hash");
    let opened = record::open_for_recording(&installation, &db).unwrap();
    assert_eq!(opened.path, record::segment_path(&db, 2));
    assert!(opened.failures[0].message().contains("frames row 7"));
}

#[test]
fn a_file_that_is_not_a_record_is_kept_and_recording_goes_on_beside_it() {
    let dir = tempfile::tempdir().unwrap();
    let installation = Installation::with_key(dir.path().join("signing.key"));
    let db = dir.path().join("pit.db");
    std::fs::write(&db, b"not a database at all").unwrap();
    let opened = record::open_for_recording(&installation, &db).unwrap();
    assert_eq!(opened.path, record::segment_path(&db, 2));
    assert!(opened.failures[0].message().contains("cannot be read"));
    assert_eq!(std::fs::read(&db).unwrap(), b"not a database at all");
}

#[test]
fn reports_print_the_rounds_a_replay_gives_not_the_derived_table() {
    let dir = tempfile::tempdir().unwrap();
    let installation = Installation::with_key(dir.path().join("signing.key"));
    let db = dir.path().join("pit.db");
    record_two_shoes(&installation, &db);
    let store = installation.open_read_only(&db).unwrap();
    let honest = pitwatch_recording::report::shoe_report(&store, "MINI-1", 1)
        .unwrap()
        .to_csv();
    drop(store);
    // The derived rounds table is edited: a Banker win becomes a Player win.
    rusqlite::Connection::open(&db)
        .unwrap()
        .execute_batch(
            "UPDATE rounds SET body = replace(body, '\"outcome\":\"banker\"', '\"outcome\":\"player\"')",
        )
        .unwrap();
    let store = installation.open_read_only(&db).unwrap();
    let after = pitwatch_recording::report::shoe_report(&store, "MINI-1", 1)
        .unwrap()
        .to_csv();
    assert!(honest.contains("Result=Banker"), "{honest}");
    assert_eq!(honest, after, "the report does not read the edited table");
    assert!(
        after.contains(r#""Latest checkpoint","pitwatch-checkpoint:1:"#),
        "{after}"
    );
}

#[test]
fn the_rule_book_a_table_was_judged_by_is_kept_in_the_record() {
    let dir = tempfile::tempdir().unwrap();
    let installation = Installation::with_key(dir.path().join("signing.key"));
    let db = dir.path().join("pit.db");
    record_two_shoes(&installation, &db);
    let store = installation.open_read_only(&db).unwrap();
    let table = store.table_id("MINI-1").unwrap().unwrap();
    assert_eq!(
        store.table_book(table).unwrap().as_deref(),
        pitwatch_games::book_text("nz-baccarat").as_deref()
    );
}

#[test]
fn a_signed_record_whose_key_is_gone_is_refused_not_moved_to_a_new_segment_with_a_new_key() {
    let dir = tempfile::tempdir().unwrap();
    let installation = Installation::with_key(dir.path().join("signing.key"));
    let db = dir.path().join("pit.db");
    record_two_shoes(&installation, &db);
    std::fs::remove_file(&installation.key).unwrap();
    let err = record::open_for_recording(&installation, &db)
        .err()
        .expect("refused");
    assert!(err.to_string().contains("signing.key"), "{err}");
    assert!(!installation.key.exists());
    assert!(!record::segment_path(&db, 2).exists());
}

#[test]
fn a_record_path_that_cannot_be_opened_is_an_error_not_a_new_segment() {
    let dir = tempfile::tempdir().unwrap();
    let installation = Installation::with_key(dir.path().join("signing.key"));
    // A folder where the database file should be: the installation is wrong, and says so.
    let db = dir.path().join("pit.db");
    std::fs::create_dir(&db).unwrap();
    let err = record::open_for_recording(&installation, &db)
        .err()
        .expect("refused");
    assert!(err.to_string().contains("unable to open"), "{err}");
    assert!(!record::segment_path(&db, 2).exists());
}
