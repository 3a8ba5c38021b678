//! The archive step (issue 32): old device records move to an archive file only when verified;
//! the live record and every archive still verify, shoes still read whole, and every way of
//! passing off removed rows as archived is found.

mod common;

use common::*;
use pitwatch_store::archive::{self, ArchiveEntry, Retention};
use pitwatch_store::{Actor, DeviceIdentity};

const DAY: i64 = 86_400_000;

fn nz() -> Retention {
    Retention {
        jurisdiction: "nz".into(),
        years: 7,
        cite: "Gambling Act 2003, s 177".into(),
    }
}

fn admin() -> Actor {
    Actor::at("root", "pit-ws-1")
}

/// A record dealt over `days` days at two tables: each day a shoe per table, dealt in several
/// transactions (one per round), the shoes of the two tables overlapping in time.
struct Floor {
    pit: Pit,
    tables: Vec<TableId>,
    session: pitwatch_store::SessionId,
    seq: Vec<u64>,
    shoe: Vec<u32>,
}

impl Floor {
    fn new() -> Floor {
        let pit = Pit::new();
        let mut store = pit.open();
        let mut tables = Vec::new();
        for name in ["BAC-1", "BAC-2"] {
            tables.push(
                store
                    .configure_table(name, "baccarat", "nz-baccarat", Some("book = 1"), t(0))
                    .unwrap(),
            );
        }
        let device = store
            .ensure_device(
                &DeviceIdentity {
                    protocol: "angel-eye".into(),
                    port: "/dev/ttyUSB0".into(),
                    ..Default::default()
                },
                t(0),
            )
            .unwrap();
        let session = store.start_session(tables[0], device, t(0)).unwrap();
        Floor {
            pit,
            tables,
            session,
            seq: vec![0, 0],
            shoe: vec![0, 0],
        }
    }

    /// Deals one shoe at each table on day `day` (table 2's starting half a shoe later).
    fn deal_day(&mut self, day: i64) {
        let mut store = self.pit.open();
        for round in 0..8i64 {
            for (i, table) in self.tables.clone().into_iter().enumerate() {
                // Table 2 starts its shoe four rounds after table 1.
                let start = if i == 0 { 0 } else { 4 };
                let local = (round + 8 - start) % 8;
                let now = t(day * DAY + round * 60_000 + i as i64 * 1000);
                let mut batch = store.batch(now).unwrap();
                if local == 0 {
                    self.shoe[i] += 1;
                    batch
                        .record_shoe(table, self.shoe[i], self.seq[i] + 1, r#"{"shoe":0}"#)
                        .unwrap();
                }
                for _ in 0..4 {
                    self.seq[i] += 1;
                    let bytes = format!("T{i} card {}", self.seq[i]).into_bytes();
                    let chunk = batch.append_chunk(self.session, now, &bytes).unwrap();
                    let frame = batch
                        .append_frame(self.session, chunk, now, &bytes, None)
                        .unwrap();
                    let event =
                        TableEvent::new(self.seq[i], EventKind::card("8S".parse().unwrap()))
                            .at(now);
                    batch
                        .append_event(table, Some(self.session), Some(frame), &event)
                        .unwrap();
                }
                batch.commit().unwrap();
            }
        }
    }

    /// Archives what was made before day `day`, keeping `before` shoes before each shoe then in
    /// progress in the live record.
    fn archive_before(
        &self,
        store: &mut Store,
        day: i64,
        before: u32,
        folder: &Path,
    ) -> ArchiveEntry {
        let plan = store
            .plan_archive(t(day * DAY), before)
            .unwrap()
            .expect("something to archive");
        store
            .archive(&plan, folder, &nz(), &admin(), t(400 * DAY))
            .unwrap()
    }
}

fn verify_archive(path: &Path, key: &SigningKey) -> VerifyReport {
    let store = Store::open_read_only(path).unwrap();
    assert!(store.is_archive().unwrap());
    let mut options = VerifyOptions::full(vec![key.public()], Vec::new());
    options.archive = true;
    store.verify_with(&options).unwrap()
}

fn events_of(store: &Store, table: TableId) -> Vec<u64> {
    store.events(table).unwrap().iter().map(|e| e.seq).collect()
}

#[test]
fn an_archived_record_and_its_archives_verify_and_every_shoe_reads_whole_in_one_file() {
    let mut floor = Floor::new();
    for day in 0..10 {
        floor.deal_day(day);
    }
    let folder = floor.pit.db.parent().unwrap().join("archive");
    let key = floor.pit.trusted();
    let mut store = floor.pit.open();
    let before: Vec<Vec<u64>> = floor.tables.iter().map(|&t| events_of(&store, t)).collect();
    let size_before: i64 = store.chain_length(&chain::EVENTS).unwrap();

    // The first archive: everything before day 4.
    let first = floor.archive_before(&mut store, 4, archive::SHOES_BEFORE, &folder);
    assert_eq!(first.number, 1);
    assert_eq!(first.retention.years, 7);
    assert!(first.keep_until.starts_with("2033-") || first.keep_until.starts_with("2034-"));
    let events = first.chains.iter().find(|c| c.chain == "events").unwrap();
    assert_eq!(events.first, 1);
    assert!(events.last < size_before && events.held_to >= events.last);
    // Table 2's shoe in progress at the checkpoint is held whole beyond it.
    assert!(first.tables.iter().any(|t| t.held_to_seq > t.last_seq));

    // The live record verifies in full, quickly, and says what is archived.
    for depth in [Depth::Full, Depth::Quick] {
        let report = floor.pit.verify(depth);
        assert!(report.intact(), "{depth:?}: {:?}", report.problems);
        let archived = report.archived.expect("archived rows named");
        assert!(archived.authentic);
        assert_eq!(archived.checkpoint, first.checkpoint);
        assert_eq!(archived.rows.len(), 3);
    }
    // The archive verifies on its own, and is what the entry says.
    let report = verify_archive(&first.path(), &key);
    assert!(report.intact(), "{:?}", report.problems);
    assert!(
        report.archived.is_none(),
        "the first archive begins at row 1"
    );
    assert_eq!(archive::file_digest(&first.path()).unwrap().0, first.sha256);
    assert_eq!(report.latest.unwrap().text.id, first.end_checkpoint);
    // Nothing is ever written to it.
    let Err(refused) = Store::open(first.path(), &floor.pit.sealing()) else {
        panic!("an archive opened for writing");
    };
    assert!(refused.to_string().contains("is an archive"), "{refused}");

    // Recording goes on, through the same store and a new one.
    drop(store);
    floor.deal_day(10);
    let mut store = floor.pit.open();
    assert!(floor.pit.verify(Depth::Full).intact());

    // Each table's events: the live record's and the archive's together, every one once, and
    // every shoe whole in one of them.
    let archived_store = Store::open_read_only(first.path()).unwrap();
    for (i, &table) in floor.tables.iter().enumerate() {
        let live = events_of(&store, table);
        let old = events_of(&archived_store, table);
        let span = first.tables.iter().find(|s| s.table_id == table.0).unwrap();
        assert_eq!(*old.last().unwrap() as i64, span.held_to_seq);
        assert_eq!(
            live.first().copied().unwrap() as i64,
            span.last_seq + 1,
            "table {i}"
        );
        let mut all: Vec<u64> = old
            .iter()
            .copied()
            .filter(|s| (*s as i64) <= span.last_seq)
            .collect();
        all.extend(&live);
        assert_eq!(&all[..before[i].len()], &before[i][..], "table {i}");
        // The shoe in progress at the checkpoint reads whole from the archive: every event from
        // its first to the one before the next shoe's.
        let starts = store.shoe_starts(table, 1, u32::MAX).unwrap();
        let (index, &(_, first)) = starts
            .iter()
            .enumerate()
            .rev()
            .find(|(_, (_, first))| (*first as i64) <= span.last_seq)
            .unwrap();
        let end = starts[index + 1].1 - 1;
        let held: Vec<u64> = old
            .iter()
            .copied()
            .filter(|s| *s >= first && *s <= end)
            .collect();
        assert_eq!(held, (first..=end).collect::<Vec<_>>(), "table {i}");
    }

    // A second archive carries on where the first ended.
    let second = floor.archive_before(&mut store, 8, archive::SHOES_BEFORE, &folder);
    assert_eq!(second.number, 2);
    for span in &second.chains {
        let previous = first.chains.iter().find(|c| c.chain == span.chain).unwrap();
        assert_eq!(span.first, previous.last + 1, "{}", span.chain);
    }
    let report = verify_archive(&second.path(), &key);
    assert!(report.intact(), "{:?}", report.problems);
    let anchor = report
        .archived
        .expect("the second archive begins where the first ended");
    assert_eq!(anchor.checkpoint, first.checkpoint);
    assert!(anchor.authentic);
    let report = floor.pit.verify(Depth::Full);
    assert!(report.intact(), "{:?}", report.problems);
    assert_eq!(report.archived.unwrap().checkpoint, second.checkpoint);
    assert_eq!(store.archives().unwrap(), vec![first, second]);
    // The step is audited.
    assert_eq!(
        store
            .audit_details(archive::ARCHIVED, "archive 2")
            .unwrap()
            .len(),
        1
    );
}

#[test]
fn nothing_recent_is_archived_and_an_archive_is_never_overwritten() {
    let mut floor = Floor::new();
    for day in 0..3 {
        floor.deal_day(day);
    }
    let mut store = floor.pit.open();
    // Before the first checkpoint: nothing.
    assert!(store
        .plan_archive(t(-DAY), archive::SHOES_BEFORE)
        .unwrap()
        .is_err());
    // Everything up to now would leave the live record no device row: the plan keeps one.
    let plan = store.plan_archive(t(100 * DAY), 0).unwrap().unwrap();
    let events = plan.chains.iter().find(|c| c.0.table == "events").unwrap();
    assert!(events.2 < store.chain_length(&chain::EVENTS).unwrap());
    let folder = floor.pit.db.parent().unwrap().join("archive");
    let name = format!("{}.archive-1.db", store.record_id().unwrap().unwrap());
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join(&name), b"something else").unwrap();
    let refused = store
        .archive(&plan, &folder, &nz(), &admin(), t(400 * DAY))
        .unwrap_err();
    assert!(
        refused.to_string().contains("never overwritten"),
        "{refused}"
    );
    assert_eq!(
        std::fs::read(folder.join(&name)).unwrap(),
        b"something else"
    );
    assert!(store.archives().unwrap().is_empty());
    assert!(floor.pit.verify(Depth::Full).intact());
}

#[test]
fn a_record_that_does_not_verify_is_not_archived() {
    let mut floor = Floor::new();
    for day in 0..3 {
        floor.deal_day(day);
    }
    let conn = floor.pit.sql();
    let restore = drop_triggers(&conn);
    conn.execute("UPDATE events SET body = '{}' WHERE id = 5", [])
        .unwrap();
    for sql in restore {
        conn.execute_batch(&sql).unwrap();
    }
    drop(conn);
    let mut store = Store::open(&floor.pit.db, &floor.pit.sealing()).unwrap();
    let plan = store.plan_archive(t(2 * DAY), 0).unwrap().unwrap();
    let folder = floor.pit.db.parent().unwrap().join("archive");
    let refused = store
        .archive(&plan, &folder, &nz(), &admin(), t(400 * DAY))
        .unwrap_err();
    assert!(refused.to_string().contains("does not verify"), "{refused}");
    assert_eq!(std::fs::read_dir(&folder).map_or(0, |d| d.count()), 0);
}

/// An archived floor, its key and the first archive, for the attacks.
fn archived_floor() -> (Floor, ArchiveEntry) {
    let mut floor = Floor::new();
    for day in 0..6 {
        floor.deal_day(day);
    }
    let folder = floor.pit.db.parent().unwrap().join("archive");
    let mut store = floor.pit.open();
    let entry = floor.archive_before(&mut store, 3, 0, &folder);
    drop(store);
    assert!(floor.pit.verify(Depth::Full).intact());
    (floor, entry)
}

fn delete_events_through(conn: &Connection, id: i64) {
    let restore = drop_triggers(conn);
    conn.execute("DELETE FROM events WHERE id <= ?1", [id])
        .unwrap();
    for sql in restore {
        conn.execute_batch(&sql).unwrap();
    }
}

#[test]
fn rows_removed_from_the_start_without_an_archive_are_missing() {
    let mut floor = Floor::new();
    for day in 0..3 {
        floor.deal_day(day);
    }
    // Up to a checkpoint's count, as a careful attacker would.
    let counts: String = floor
        .pit
        .sql()
        .query_row("SELECT counts FROM checkpoints WHERE id = 5", [], |r| {
            r.get(0)
        })
        .unwrap();
    let events = pitwatch_store::seal::parse_counts(&counts).unwrap()[2];
    delete_events_through(&floor.pit.sql(), events);
    for depth in [Depth::Full, Depth::Quick] {
        let report = floor.pit.verify(depth);
        assert!(!report.intact(), "{depth:?}");
        assert!(report.archived.is_none());
    }
}

#[test]
fn more_rows_removed_than_the_archive_took_are_found() {
    let (floor, entry) = archived_floor();
    let last = entry
        .chains
        .iter()
        .find(|c| c.chain == "events")
        .unwrap()
        .last;
    delete_events_through(&floor.pit.sql(), last + 3);
    let report = floor.pit.verify(Depth::Full);
    assert!(!report.intact());
    assert!(
        report.problems.iter().any(|p| p.contains("events")),
        "{:?}",
        report.problems
    );
}

#[test]
fn an_archive_entry_rewritten_to_claim_more_is_found() {
    let (floor, entry) = archived_floor();
    // The entry moved on to a later checkpoint, the rows up to it removed, the fact's hash and
    // every later fact rechained as an attacker would: the signature no longer covers the facts.
    let conn = floor.pit.sql();
    let later = entry.checkpoint + 4;
    let counts: String = conn
        .query_row(
            "SELECT counts FROM checkpoints WHERE id = ?1",
            [later],
            |r| r.get(0),
        )
        .unwrap();
    let counts = pitwatch_store::seal::parse_counts(&counts).unwrap();
    let mut forged = entry.clone();
    forged.checkpoint = later;
    for (span, n) in forged
        .chains
        .iter_mut()
        .zip([counts[0], counts[1], counts[2]])
    {
        let hash: Vec<u8> = conn
            .query_row(
                &format!("SELECT hash FROM {} WHERE id = ?1", span.chain),
                [n],
                |r| r.get(0),
            )
            .unwrap();
        span.last = n;
        span.hash = hex::encode(hash);
    }
    let restore = drop_triggers(&conn);
    let body = serde_json::json!({
        "key": "archive.1",
        "value": serde_json::to_string(&forged).unwrap(),
    })
    .to_string();
    conn.execute(
        "UPDATE facts SET body = ?1 WHERE kind = 'meta' AND subject = '\"archive.1\"'",
        [&body],
    )
    .unwrap();
    conn.execute(
        "UPDATE meta SET value = ?1 WHERE key = 'archive.1'",
        [serde_json::to_string(&forged).unwrap()],
    )
    .unwrap();
    rechain(&conn, &chain::FACTS);
    for table in ["raw_chunks", "frames", "events"] {
        let n = forged
            .chains
            .iter()
            .find(|c| c.chain == table)
            .unwrap()
            .last;
        conn.execute(&format!("DELETE FROM {table} WHERE id <= ?1"), [n])
            .unwrap();
    }
    for sql in restore {
        conn.execute_batch(&sql).unwrap();
    }
    for depth in [Depth::Full, Depth::Quick] {
        let report = floor.pit.verify(depth);
        assert!(!report.intact(), "{depth:?}");
    }
}

#[test]
fn an_archive_file_altered_or_cut_short_fails_on_its_own() {
    let (floor, entry) = archived_floor();
    let key = floor.pit.trusted();
    // A row changed.
    let copy = entry.path().with_extension("altered.db");
    std::fs::copy(entry.path(), &copy).unwrap();
    {
        let conn = Connection::open(&copy).unwrap();
        let restore = drop_triggers(&conn);
        conn.execute("UPDATE frames SET bytes = x'00' WHERE id = 7", [])
            .unwrap();
        for sql in restore {
            conn.execute_batch(&sql).unwrap();
        }
    }
    assert!(!verify_archive(&copy, &key).intact());
    // Its first rows removed, passing it off as a later archive.
    let cut = entry.path().with_extension("cut.db");
    std::fs::copy(entry.path(), &cut).unwrap();
    delete_events_through(&Connection::open(&cut).unwrap(), 5);
    let report = verify_archive(&cut, &key);
    assert!(!report.intact());
    // Another installation's key.
    let other = SigningKey::generate();
    let report = verify_archive(&entry.path(), &other);
    assert!(!report.intact());
    assert!(
        report
            .problems
            .iter()
            .any(|p| p.contains("not a trusted key")),
        "{:?}",
        report.problems
    );
    // Without archive mode, the live record's rules: an archive that begins after row 1 is missing
    // rows (checked on the second archive's kind of file: here, the live record's own prefix).
    assert!(floor.pit.verify(Depth::Full).intact());
}
