//! `pitwatch archive run|list|check` with the binary as an administrator runs it (issue 32): a
//! record dealt more than the retention's 90 days ago archived, the live record and the archive
//! each verifying with `pitwatch verify`, an archived shoe replayed from its archive (the live
//! record saying where it is), a changed archive found by `pitwatch archive check`, and another
//! role refused.

use super::*;

use pitwatch_model::{EventKind, TableEvent, Timestamp};
use pitwatch_protocols::ProtocolConfig;
use pitwatch_recording::recorder::TableRecorder;

/// A record at `dir/pit.db` of `shoes` shoes dealt at table BAC-1 over a Pitwatch-protocol link
/// 400 days ago: a shuffle, then forty cards, a transaction every five reads.
fn old_record(dir: &Path, shoes: u32) -> PathBuf {
    let db = dir.join("pit.db");
    let mut store =
        pitwatch_store::Store::open(&db, &pitwatch_store::Sealing::key_file(key_file())).unwrap();
    let config = ProtocolConfig::by_name("pitwatch").unwrap();
    let mut encoder = config.encoder();
    let start = Timestamp::from_unix_millis(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis() as i64
            - 400 * 86_400_000,
    )
    .unwrap();
    let book = pitwatch_baccarat::RuleBook::load("nz-baccarat").unwrap();
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
        .connect(&mut store, "tcp:10.0.0.5:4001", Default::default(), start)
        .unwrap();
    let cards = ["8S", "KD", "3C", "9H", "QS", "2D", "7C", "TH"];
    let mut derived = Vec::new();
    let mut seq = 0u64;
    let mut batch = store.batch(start).unwrap();
    for shoe in 0..shoes {
        for i in 0..41u64 {
            seq += 1;
            let at = Timestamp::from_unix_millis(start.unix_millis() + seq as i64 * 2_000).unwrap();
            let kind = if i == 0 {
                EventKind::Shuffled {
                    decks: Some(8),
                    cards: None,
                    shuffler: None,
                }
            } else {
                EventKind::card(
                    cards[(i as usize + shoe as usize) % cards.len()]
                        .parse()
                        .unwrap(),
                )
            };
            let event = TableEvent::new(seq, kind).at(at);
            let bytes = encoder.encode(&event).unwrap();
            recorder
                .ingest(&mut batch, at, &bytes, &mut derived)
                .unwrap();
            if seq % 5 == 0 {
                batch.commit().unwrap();
                batch = store.batch(at).unwrap();
            }
        }
    }
    batch.commit().unwrap();
    db
}

#[test]
fn an_old_record_archived_verifies_replays_and_is_checked_from_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let db = old_record(dir.path(), 4);
    let db_s = db.to_str().unwrap();
    first_admin(db_s);
    add_staff(db_s, "supervisor", "ana");

    // A supervisor may not archive.
    let refused = pitwatch_as(STAFF_PW, &["archive", "run", "--db", db_s, "--user", "ana"]);
    assert!(!refused.status.success(), "{}", text(&refused.stdout));
    assert!(
        text(&refused.stderr).contains("may not archive"),
        "{}",
        text(&refused.stderr)
    );

    let run = pitwatch_as(ROOT_PW, &["archive", "run", "--db", db_s, "--user", "root"]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    let said = text(&run.stdout);
    assert!(said.contains("archive 1 written to"), "{said}");
    assert!(said.contains("Gambling Act 2003, s 177"), "{said}");

    let listed = pitwatch_as(
        ROOT_PW,
        &["archive", "list", "--db", db_s, "--user", "root", "--json"],
    );
    assert!(listed.status.success(), "{}", text(&listed.stderr));
    let entry: serde_json::Value = serde_json::from_str(text(&listed.stdout).trim()).unwrap();
    assert_eq!(entry["number"], 1);
    let archive =
        PathBuf::from(entry["folder"].as_str().unwrap()).join(entry["file"].as_str().unwrap());
    assert!(archive.starts_with(dir.path().join("archive")));
    let archive_s = archive.to_str().unwrap();

    // Both verify; each says what it is.
    let live = pitwatch(&["verify", "--db", db_s]);
    assert!(
        live.status.success(),
        "{}{}",
        text(&live.stdout),
        text(&live.stderr)
    );
    assert!(
        text(&live.stdout).contains("not in this file: raw_chunks rows 1–"),
        "{}",
        text(&live.stdout)
    );
    let old = pitwatch(&["verify", "--db", archive_s]);
    assert!(
        old.status.success(),
        "{}{}",
        text(&old.stdout),
        text(&old.stderr)
    );
    assert!(
        text(&old.stdout).contains("an archive of the record"),
        "{}",
        text(&old.stdout)
    );

    // Shoe 1 replays through the live record, from its archive, the look audited in the live
    // record; the archive itself is never written to (nor replayed on its own).
    let before = std::fs::read(&archive).unwrap();
    let here = pitwatch(&["replay", "--db", db_s, "--table", "BAC-1", "--shoe", "1"]);
    assert!(here.status.success(), "{}", text(&here.stderr));
    assert!(
        text(&here.stderr).contains("in archive 1 of the record"),
        "{}",
        text(&here.stderr)
    );
    assert!(
        text(&here.stdout).contains("verified intact"),
        "{}",
        text(&here.stdout)
    );
    let direct = pitwatch(&[
        "replay", "--db", archive_s, "--table", "BAC-1", "--shoe", "1",
    ]);
    assert!(!direct.status.success());
    assert!(
        text(&direct.stderr).contains("is an archive"),
        "{}",
        text(&direct.stderr)
    );
    assert_eq!(
        std::fs::read(&archive).unwrap(),
        before,
        "the archive is unchanged"
    );
    let audited = rusqlite::Connection::open(&db)
        .unwrap()
        .query_row(
            "SELECT COUNT(*) FROM audit_log WHERE action = 'replay.view' AND subject LIKE 'BAC-1 shoe 1%'",
            [],
            |r| r.get::<_, i64>(0),
        )
        .unwrap();
    assert_eq!(audited, 1);

    // Checked: intact; then one byte changed, found, exit 1.
    let check = pitwatch_as(
        ROOT_PW,
        &["archive", "check", "--db", db_s, "--user", "root"],
    );
    assert!(check.status.success(), "{}", text(&check.stderr));
    assert!(
        text(&check.stdout).contains("archive 1: intact"),
        "{}",
        text(&check.stdout)
    );
    let mut bytes = std::fs::read(&archive).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(&archive, bytes).unwrap();
    let check = pitwatch_as(
        ROOT_PW,
        &["archive", "check", "--db", db_s, "--user", "root"],
    );
    assert_eq!(check.status.code(), Some(1));
    assert!(
        text(&check.stderr).contains("ARCHIVE 1 NOT INTACT"),
        "{}",
        text(&check.stderr)
    );
}
