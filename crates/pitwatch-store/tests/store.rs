//! The store against real database files: migrations, append-only triggers, tamper detection,
//! durability across a kill, and chains that continue across restarts.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};

use pitwatch_model::{EventKind, TableEvent, Timestamp};
use pitwatch_store::{
    migrate, DeviceIdentity, Sealing, SessionId, SigningKey, Store, StoreError, TableId,
    VerifyOptions, VerifyReport,
};
use rusqlite::Connection;

/// Opens the record at `path`, signing with the installation key kept beside it (as each test's
/// installation).
fn open(path: impl AsRef<Path>) -> Result<Store, StoreError> {
    let path = path.as_ref();
    Store::open(path, &Sealing::key_file(key_file(path)))
}

fn key_file(db: &Path) -> std::path::PathBuf {
    db.with_file_name("installation.key")
}

/// Verifies a record read-only, in full, trusting the installation key beside it.
fn verify_read_only(path: &Path) -> VerifyReport {
    let key = SigningKey::load(&key_file(path)).unwrap();
    let store = Store::open_read_only(path).unwrap();
    store
        .verify_with(&VerifyOptions::full(vec![key.public()], store.journals()))
        .unwrap()
}

fn t(ms: i64) -> Timestamp {
    Timestamp::from_unix_millis(1_796_000_000_000 + ms).unwrap()
}

fn setup(store: &mut Store) -> (TableId, SessionId) {
    let table = store
        .ensure_table("BAC-1", "baccarat", "nz-baccarat", t(0))
        .unwrap();
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
    let session = store.start_session(table, device, t(0)).unwrap();
    (table, session)
}

/// Appends `n` chunks, each with one accepted frame and one event, in one batch.
fn ingest(store: &mut Store, table: TableId, session: SessionId, from: u64, n: u64) {
    let mut batch = store.batch(t(0)).unwrap();
    for i in from..from + n {
        let bytes = format!("\x05{}D\u{81}\u{b8}\x03", i % 10).into_bytes();
        let chunk = batch.append_chunk(session, t(i as i64), &bytes).unwrap();
        let frame = batch
            .append_frame(session, chunk, t(i as i64), &bytes, None)
            .unwrap();
        let event = TableEvent::new(i + 1, EventKind::card("8S".parse().unwrap())).at(t(i as i64));
        batch
            .append_event(table, Some(session), Some(frame), &event)
            .unwrap();
    }
    batch.commit().unwrap();
}

#[test]
fn a_new_database_is_migrated_and_reopening_applies_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pit.db");
    let store = open(&path).unwrap();
    assert_eq!(store.schema_version().unwrap(), migrate::LATEST);
    drop(store);
    let mut conn = Connection::open(&path).unwrap();
    assert_eq!(migrate::migrate(&mut conn).unwrap(), Vec::<u32>::new());
}

#[test]
fn a_newer_database_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pit.db");
    drop(open(&path).unwrap());
    Connection::open(&path)
        .unwrap()
        .pragma_update(None, "user_version", migrate::LATEST + 1)
        .unwrap();
    match open(&path) {
        Err(StoreError::NewerSchema { found, supported }) => {
            assert_eq!((found, supported), (migrate::LATEST + 1, migrate::LATEST));
        }
        other => panic!("expected NewerSchema, got {:?}", other.err()),
    }
}

#[test]
fn a_failing_migration_leaves_the_database_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pit.db");
    let conn = Connection::open(&path).unwrap();
    // A table the first migration creates already exists, so migration 1 fails part-way.
    conn.execute_batch("CREATE TABLE audit_log (x INTEGER);")
        .unwrap();
    drop(conn);
    let err = open(&path).err().expect("migration fails");
    assert!(
        matches!(err, StoreError::Migration { version: 1, .. }),
        "{err}"
    );
    let conn = Connection::open(&path).unwrap();
    let version: u32 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    let tables: i64 = conn
        .query_row(
            "SELECT count(*) FROM sqlite_master WHERE name = 'pit_tables'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(
        (version, tables),
        (0, 0),
        "nothing of migration 1 was applied"
    );
}

#[test]
fn schema_matches_the_snapshot() {
    let store_dir = tempfile::tempdir().unwrap();
    let path = store_dir.path().join("pit.db");
    drop(open(&path).unwrap());
    let conn = Connection::open(&path).unwrap();
    let mut statement = conn
        .prepare(
            "SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY type, name",
        )
        .unwrap();
    let rows: Vec<String> = statement
        .query_map([], |r| {
            Ok(format!(
                "-- {} {}\n{};\n",
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?
            ))
        })
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let schema = rows.join("\n");
    let snapshot = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/schema.snapshot.sql");
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(&snapshot, &schema).unwrap();
    }
    let committed = std::fs::read_to_string(&snapshot).unwrap_or_default();
    assert!(
        committed == schema,
        "the schema differs from {}: add a migration, then UPDATE_SNAPSHOTS=1 cargo test -p pitwatch-store",
        snapshot.display()
    );
}

#[test]
fn chained_tables_reject_update_and_delete() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pit.db");
    let mut store = open(&path).unwrap();
    let (table, session) = setup(&mut store);
    ingest(&mut store, table, session, 0, 3);
    let mut batch = store.batch(t(0)).unwrap();
    batch
        .append_audit("ana", "login", "session", "", t(5))
        .unwrap();
    batch.commit().unwrap();
    drop(store);
    let conn = Connection::open(&path).unwrap();
    for table in ["raw_chunks", "frames", "events", "audit_log"] {
        let update = conn.execute(&format!("UPDATE {table} SET id = id WHERE id = 1"), []);
        let delete = conn.execute(&format!("DELETE FROM {table} WHERE id = 1"), []);
        for (what, result) in [("UPDATE", update), ("DELETE", delete)] {
            let err = result.expect_err(&format!("{what} on {table} must fail"));
            assert!(err.to_string().contains("append-only"), "{table}: {err}");
        }
    }
}

#[test]
fn an_intact_record_verifies_with_counts_and_heads() {
    let mut store = Store::open_in_memory().unwrap();
    let (table, session) = setup(&mut store);
    ingest(&mut store, table, session, 0, 10);
    let report = store.verify().unwrap();
    assert!(report.intact(), "{report:?}");
    let counts: Vec<(&str, u64)> = report.chains.iter().map(|c| (c.table, c.rows)).collect();
    assert_eq!(
        counts,
        [
            ("raw_chunks", 10),
            ("frames", 10),
            ("events", 10),
            ("incidents", 0),
            ("incident_changes", 0),
            ("incident_notes", 0),
            ("audit_log", 0),
            // The record's id, the table, the device and the session.
            ("facts", 4),
            // One per write transaction.
            ("checkpoints", 4),
        ]
    );
    let latest = report.latest.as_ref().expect("a checkpoint");
    assert!(latest.signature_valid && latest.trusted, "{latest:?}");
    assert_eq!(latest.text.id, 4);
    assert!(report.predating.is_empty());
    assert_eq!(report.chains[0].head.len(), 64);
}

#[test]
fn changing_one_byte_of_one_row_is_found_and_named() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pit.db");
    let mut store = open(&path).unwrap();
    let (table, session) = setup(&mut store);
    ingest(&mut store, table, session, 0, 5);
    drop(store);
    // A tamperer who knows SQL drops the trigger and flips one byte of chunk 3.
    let conn = Connection::open(&path).unwrap();
    conn.execute_batch(
        "DROP TRIGGER raw_chunks_append_only_u;
         UPDATE raw_chunks SET bytes = X'05334481B903' WHERE id = 3;",
    )
    .unwrap();
    drop(conn);
    let report = verify_read_only(&path);
    assert!(!report.intact());
    let problem = report.first_problem.unwrap();
    assert_eq!((problem.table, problem.id), ("raw_chunks", 3));
    assert!(problem
        .to_string()
        .contains("raw_chunks row 3: its content does not match its hash"));
}

#[test]
fn a_removed_row_is_found() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pit.db");
    let mut store = open(&path).unwrap();
    let (table, session) = setup(&mut store);
    ingest(&mut store, table, session, 0, 5);
    drop(store);
    let conn = Connection::open(&path).unwrap();
    conn.execute_batch("DROP TRIGGER events_append_only_d; DELETE FROM events WHERE id = 2;")
        .unwrap();
    drop(conn);
    let problem = Store::open_read_only(&path)
        .unwrap()
        .verify()
        .unwrap()
        .first_problem
        .unwrap();
    assert_eq!((problem.table, problem.id), ("events", 3));
    assert!(problem.reason.contains("expected row 2"), "{problem}");
}

#[test]
fn chains_continue_across_restarts() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pit.db");
    let mut store = open(&path).unwrap();
    let (table, session) = setup(&mut store);
    ingest(&mut store, table, session, 0, 4);
    drop(store);
    let mut store = open(&path).unwrap();
    ingest(&mut store, table, session, 4, 4);
    let report = store.verify().unwrap();
    assert!(report.intact(), "{:?}", report.first_problem);
    assert_eq!(report.chains[2].rows, 8);
    let seqs: Vec<u64> = store.events(table).unwrap().iter().map(|e| e.seq).collect();
    assert_eq!(seqs, (1..=8).collect::<Vec<_>>());
}

#[test]
fn an_uncommitted_batch_writes_nothing() {
    let mut store = Store::open_in_memory().unwrap();
    let (_table, session) = setup(&mut store);
    {
        let mut batch = store.batch(t(0)).unwrap();
        batch.append_chunk(session, t(1), b"lost").unwrap();
    }
    let mut batch = store.batch(t(0)).unwrap();
    let id = batch.append_chunk(session, t(2), b"kept").unwrap();
    batch.commit().unwrap();
    assert_eq!(id.0, 1, "the dropped batch did not advance the chain");
    assert_eq!(
        store.chunks(session).unwrap(),
        vec![(t(2).unix_millis(), b"kept".to_vec())]
    );
    assert!(store.verify().unwrap().intact());
}

/// The child half of `a_kill_during_ingest_loses_nothing_committed`: ingests until killed,
/// printing the number of events committed after each commit.
#[test]
fn kill_child_writer() {
    let Some(path) = std::env::var_os("PITWATCH_KILL_CHILD_DB") else {
        return; // Only meaningful when started by the parent test.
    };
    let mut store = open(path).unwrap();
    let (table, session) = setup(&mut store);
    let mut next = 0;
    loop {
        ingest(&mut store, table, session, next, 50);
        next += 50;
        println!("committed {next}");
    }
}

#[test]
fn a_kill_during_ingest_loses_nothing_committed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pit.db");
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "kill_child_writer",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("PITWATCH_KILL_CHILD_DB", &path)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut committed = 0u64;
    while committed < 2000 {
        let line = lines.next().expect("the child reports commits").unwrap();
        if let Some(n) = line.strip_prefix("committed ") {
            committed = n.parse().unwrap();
        }
    }
    child.kill().unwrap(); // SIGKILL: no destructor, no flush, mid-transaction.
    child.wait().unwrap();
    let store = open(&path).unwrap();
    let report = store.verify().unwrap();
    assert!(report.intact(), "{:?}", report.first_problem);
    let events = report.chains[2].rows;
    assert!(
        events >= committed,
        "{events} events on disk, {committed} were reported committed"
    );
    assert_eq!(events % 50, 0, "batches are all-or-nothing");
}

#[test]
fn every_chain_hashes_every_column_of_its_table() {
    // A migration that adds a column to a chained table must also extend the chain's column list,
    // or the new column would be unprotected.
    let store_dir = tempfile::tempdir().unwrap();
    let path = store_dir.path().join("pit.db");
    drop(open(&path).unwrap());
    let conn = Connection::open(&path).unwrap();
    for chain in pitwatch_store::chain::CHAINS {
        let mut statement = conn
            .prepare(&format!("PRAGMA table_info({})", chain.table))
            .unwrap();
        let columns: Vec<String> = statement
            .query_map([], |r| r.get::<_, String>(1))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        let content: Vec<&str> = columns
            .iter()
            .map(String::as_str)
            .filter(|c| *c != "prev_hash" && *c != "hash")
            .collect();
        assert_eq!(content, chain.columns, "{}", chain.table);
    }
}

fn burn_incident(table: TableId) -> pitwatch_store::NewIncident {
    pitwatch_store::NewIncident {
        table,
        code: "BURN_COUNT_MISMATCH".into(),
        severity: "high".into(),
        rule: "NZ Baccarat 2004 r 7.7(b)".into(),
        shoe: Some(1),
        round: None,
        seq: 8,
        evidence: vec![4, 5, 6, 7, 8],
        message: "The first card was a 3 but 2 burn cards were drawn.".into(),
    }
}

#[test]
fn incidents_move_open_acknowledged_resolved_and_persist_with_history() {
    use pitwatch_store::{IncidentFilter, Role, Status};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pit.db");
    let mut store = open(&path).unwrap();
    let (table, _) = setup(&mut store);
    store
        .add_user("admin", "ana", Role::Supervisor, "correct horse", t(1))
        .unwrap();
    let mut batch = store.batch(t(0)).unwrap();
    let id = batch.open_incident(&burn_incident(table), t(2)).unwrap();
    batch.commit().unwrap();
    assert_eq!(store.incident(id).unwrap().status, Status::Open);

    // Out-of-order steps and unknown users are refused with a reason.
    let err = store.acknowledge(id, "mallory", t(3)).unwrap_err();
    assert!(
        err.to_string().contains("no user named \"mallory\""),
        "{err}"
    );
    store.acknowledge(id, "ana", t(3)).unwrap();
    let err = store.acknowledge(id, "ana", t(4)).unwrap_err();
    assert!(err.to_string().contains("only an open incident"), "{err}");
    store
        .add_note(id, "ana", "Dealer recounted the burn on camera.", t(5))
        .unwrap();
    assert!(store.resolve(id, "ana", "  ", t(6)).is_err());
    store
        .resolve(id, "ana", "Reshuffled; no wagers affected.", t(6))
        .unwrap();
    assert!(store.resolve(id, "ana", "again", t(7)).is_err());
    drop(store);

    // After a restart the state and the whole history are still there, and the chains verify.
    let store = open(&path).unwrap();
    let incident = store.incident(id).unwrap();
    assert_eq!(
        (incident.status, incident.evidence.clone()),
        (Status::Resolved, vec![4, 5, 6, 7, 8])
    );
    let history: Vec<(String, Option<String>)> = store
        .incident_history(id)
        .unwrap()
        .into_iter()
        .map(|s| (s.what, s.user))
        .collect();
    assert_eq!(
        history,
        [
            ("opened".into(), None),
            ("acknowledged".into(), Some("ana".into())),
            ("note".into(), Some("ana".into())),
            ("resolved".into(), Some("ana".into())),
        ]
    );
    let open = IncidentFilter {
        status: Some(Status::Open),
        ..Default::default()
    };
    assert!(store.incidents(&open).unwrap().is_empty());
    let at_bac1 = IncidentFilter {
        table: Some("BAC-1".into()),
        ..Default::default()
    };
    assert_eq!(store.incidents(&at_bac1).unwrap().len(), 1);
    let report = store.verify().unwrap();
    assert!(report.intact(), "{:?}", report.first_problem);
    let audit = report
        .chains
        .iter()
        .find(|c| c.table == "audit_log")
        .unwrap();
    assert_eq!(audit.rows, 4, "user added, acknowledged, noted, resolved");
}

#[test]
fn passwords_are_hashed_and_checked() {
    use pitwatch_store::Role;
    let mut store = Store::open_in_memory().unwrap();
    store
        .add_user("admin", "sam", Role::Surveillance, "s3cret-enough", t(0))
        .unwrap();
    assert_eq!(
        store.authenticate("sam", "s3cret-enough").unwrap(),
        Role::Surveillance
    );
    assert!(store.authenticate("sam", "wrong-password").is_err());
    assert!(store.authenticate("nobody", "s3cret-enough").is_err());
    assert!(
        store
            .add_user("admin", "sam", Role::Admin, "another-pass", t(1))
            .is_err(),
        "names are unique"
    );
    assert!(
        store
            .add_user("admin", "kim", Role::Admin, "short", t(1))
            .is_err(),
        "passwords have a minimum length"
    );
    store
        .add_user("admin", "ana", Role::Admin, "another-pass", t(2))
        .unwrap();
    let users: Vec<(String, Role)> = store
        .users()
        .unwrap()
        .into_iter()
        .map(|u| (u.name, u.role))
        .collect();
    assert_eq!(
        users,
        [
            ("ana".to_owned(), Role::Admin),
            ("sam".to_owned(), Role::Surveillance)
        ]
    );
}

#[test]
fn two_connections_append_to_one_chain_without_forking_it() {
    use pitwatch_store::Role;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pit.db");
    let mut writer = open(&path).unwrap();
    let (table, session) = setup(&mut writer);
    let mut desk = open(&path).unwrap();
    desk.add_user("admin", "ana", Role::Supervisor, "correct horse", t(1))
        .unwrap();
    for round in 0..5 {
        ingest(&mut writer, table, session, round * 3, 3);
        let mut batch = writer.batch(t(0)).unwrap();
        batch
            .append_audit(
                "monitor",
                "console.event",
                "table BAC-1",
                "",
                t(round as i64),
            )
            .unwrap();
        batch.commit().unwrap();
        let mut batch = desk.batch(t(0)).unwrap();
        batch
            .append_audit("ana", "view", "table BAC-1", "", t(round as i64))
            .unwrap();
        batch.commit().unwrap();
    }
    let report = verify_read_only(&path);
    assert!(report.intact(), "{:?}", report.first_problem);
    assert_eq!(
        report
            .chains
            .iter()
            .find(|c| c.table == "audit_log")
            .unwrap()
            .rows,
        11
    );
}

/// Two tables with 60 incidents between them: codes, severities, times and statuses vary in a
/// known pattern (incident `k`, 0-based, is opened at `t(k * 1500 + k % 2)` ms).
fn many_incidents(store: &mut Store) -> Vec<pitwatch_store::IncidentId> {
    use pitwatch_store::Role;
    let (bac1, _) = setup(store);
    let bac2 = store
        .ensure_table("BAC-2", "baccarat", "nz-baccarat", t(0))
        .unwrap();
    store
        .add_user("admin", "ana", Role::Supervisor, "correct horse", t(1))
        .unwrap();
    let mut ids = Vec::new();
    for k in 0..60u32 {
        let mut batch = store.batch(t(0)).unwrap();
        let incident = pitwatch_store::NewIncident {
            table: if k % 3 == 0 { bac2 } else { bac1 },
            code: if k % 4 == 0 {
                "NOT_SHUFFLED"
            } else {
                "OUT_OF_ORDER_CARD"
            }
            .into(),
            severity: ["critical", "high", "medium", "low"][(k % 4) as usize].into(),
            shoe: Some(k / 10 + 1),
            seq: u64::from(k) + 1,
            ..burn_incident(bac1)
        };
        ids.push(
            batch
                .open_incident(&incident, t(i64::from(k) * 1500 + i64::from(k % 2)))
                .unwrap(),
        );
        batch.commit().unwrap();
    }
    for (k, id) in ids.iter().enumerate() {
        match k % 5 {
            1 => store.acknowledge(*id, "ana", t(100_000)).unwrap(),
            2 => store.resolve(*id, "ana", "done", t(100_000)).unwrap(),
            _ => {}
        }
    }
    ids
}

#[test]
fn incident_pages_follow_a_keyset_cursor_newest_first_with_filters_and_totals() {
    use pitwatch_store::{IncidentFilter, IncidentId, Status};
    let mut store = Store::open_in_memory().unwrap();
    let ids = many_incidents(&mut store);
    let page_ids = |p: &pitwatch_store::IncidentPage| -> Vec<i64> {
        p.incidents.iter().map(|i| i.id.0).collect()
    };

    // Unfiltered: 25 + 25 + 10, newest first, no id twice, none left out.
    let all = IncidentFilter::default();
    let first = store.incident_page(&all, None, 25).unwrap();
    assert_eq!(
        (first.incidents.len(), first.more, first.total),
        (25, true, 60)
    );
    let expected: Vec<i64> = ids.iter().rev().map(|i| i.0).collect();
    assert_eq!(page_ids(&first), expected[..25]);
    let cursor = first.incidents.last().map(|i| i.id);
    let second = store.incident_page(&all, cursor, 25).unwrap();
    assert_eq!(page_ids(&second), expected[25..50]);
    let third = store
        .incident_page(&all, second.incidents.last().map(|i| i.id), 25)
        .unwrap();
    assert_eq!(page_ids(&third), expected[50..]);
    assert!(!third.more);
    assert_eq!(third.total, 60, "the total counts every page");

    // A new incident does not shift the pages already read: the cursor is an id.
    let mut batch = store.batch(t(0)).unwrap();
    batch
        .open_incident(&burn_incident(TableId(1)), t(200_000))
        .unwrap();
    batch.commit().unwrap();
    let again = store.incident_page(&all, cursor, 25).unwrap();
    assert_eq!(page_ids(&again), page_ids(&second));
    assert_eq!(again.total, 61);

    // Every filter, checked against the same filter applied by hand to the whole list.
    let everything = store.incidents(&all).unwrap();
    let by_hand = |keep: &dyn Fn(&pitwatch_store::Incident) -> bool| -> Vec<i64> {
        everything
            .iter()
            .rev()
            .filter(|i| keep(i))
            .map(|i| i.id.0)
            .collect()
    };
    let cases: Vec<(IncidentFilter, Vec<i64>)> = vec![
        (
            IncidentFilter {
                table: Some("BAC-2".into()),
                ..Default::default()
            },
            by_hand(&|i| i.table == "BAC-2"),
        ),
        (
            IncidentFilter {
                status: Some(Status::Acknowledged),
                ..Default::default()
            },
            by_hand(&|i| i.status == Status::Acknowledged),
        ),
        (
            IncidentFilter {
                unresolved: true,
                ..Default::default()
            },
            by_hand(&|i| i.status != Status::Resolved),
        ),
        (
            IncidentFilter {
                severity: Some("critical".into()),
                table: Some("BAC-1".into()),
                ..Default::default()
            },
            by_hand(&|i| i.severity == "critical" && i.table == "BAC-1"),
        ),
        (
            IncidentFilter {
                code: Some("NOT_SHUFFLED".into()),
                status: Some(Status::Open),
                ..Default::default()
            },
            by_hand(&|i| i.code == "NOT_SHUFFLED" && i.status == Status::Open),
        ),
        (
            IncidentFilter {
                table: Some("BAC-1".into()),
                unresolved: true,
                code: Some("OUT_OF_ORDER_CARD".into()),
                severity: Some("medium".into()),
                since: Some(t(20 * 1500)),
                until: Some(t(50 * 1500)),
                ..Default::default()
            },
            by_hand(&|i| {
                let at: Timestamp = i.opened_at.parse().unwrap();
                i.table == "BAC-1"
                    && i.status != Status::Resolved
                    && i.code == "OUT_OF_ORDER_CARD"
                    && i.severity == "medium"
                    && at >= t(20 * 1500)
                    && at < t(50 * 1500)
            }),
        ),
        (
            IncidentFilter {
                table: Some("BAC-9".into()),
                ..Default::default()
            },
            Vec::new(),
        ),
    ];
    for (filter, expected) in cases {
        assert!(!expected.is_empty() || filter.table.as_deref() == Some("BAC-9"));
        let mut seen = Vec::new();
        let mut cursor: Option<IncidentId> = None;
        loop {
            let page = store.incident_page(&filter, cursor, 4).unwrap();
            assert_eq!(page.total as usize, expected.len(), "{filter:?}");
            assert!(page.incidents.len() <= 4);
            seen.extend(page_ids(&page));
            cursor = page.incidents.last().map(|i| i.id);
            if !page.more {
                break;
            }
        }
        assert_eq!(seen, expected, "{filter:?}");
    }

    // A time range: since is inclusive, until exclusive, to the millisecond, across stored times
    // with and without a fraction of a second (t(k * 1500 + k % 2)).
    let in_range = IncidentFilter {
        since: Some(t(3000)),     // incident 2, exactly
        until: Some(t(9000 + 1)), // incident 6 is at t(9000): in
        ..Default::default()
    };
    let page = store.incident_page(&in_range, None, 100).unwrap();
    assert_eq!(
        page_ids(&page),
        [ids[6].0, ids[5].0, ids[4].0, ids[3].0, ids[2].0]
    );
    let to_the_ms = IncidentFilter {
        since: Some(t(4501)), // incident 3 is at t(4501): in; incident 2 at t(3000): out
        until: Some(t(9000)), // incident 6 at t(9000): out
        ..Default::default()
    };
    let page = store.incident_page(&to_the_ms, None, 100).unwrap();
    assert_eq!(page_ids(&page), [ids[5].0, ids[4].0, ids[3].0]);

    // A limit out of range is clamped, not an error.
    assert_eq!(
        store.incident_page(&all, None, 0).unwrap().incidents.len(),
        1
    );
}

#[test]
fn open_counts_count_only_unresolved_incidents_by_table_and_severity() {
    let mut store = Store::open_in_memory().unwrap();
    many_incidents(&mut store);
    let counts = store.open_counts().unwrap();
    let everything = store
        .incidents(&pitwatch_store::IncidentFilter::default())
        .unwrap();
    let mut expected: std::collections::BTreeMap<(String, String), u64> = Default::default();
    for i in everything
        .iter()
        .filter(|i| i.status != pitwatch_store::Status::Resolved)
    {
        *expected
            .entry((i.table.clone(), i.severity.clone()))
            .or_default() += 1;
    }
    let got: std::collections::BTreeMap<(String, String), u64> = counts
        .into_iter()
        .map(|c| ((c.table, c.severity), c.count))
        .collect();
    assert_eq!(got, expected);
    assert_eq!(got.values().sum::<u64>(), 48, "12 of the 60 are resolved");
}

#[test]
fn a_database_of_version_1_gets_the_current_status_of_its_incidents() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v1.db");
    {
        // A version-1 database with an incident that was acknowledged.
        let mut conn = Connection::open(&path).unwrap();
        let tx = conn.transaction().unwrap();
        tx.execute_batch(migrate::MIGRATIONS[0].2).unwrap();
        tx.pragma_update(None, "user_version", 1).unwrap();
        tx.execute_batch(
            "INSERT INTO pit_tables VALUES (1, 'BAC-1', 'baccarat', 'nz-baccarat', 'x');
             INSERT INTO incidents VALUES (1, 1, 'C', 'high', 'r', 1, 1, 5, '[]', 'm', '2026-01-01T00:00:00Z');
             INSERT INTO incidents VALUES (2, 1, 'C', 'low', 'r', 1, 1, 6, '[]', 'm', '2026-01-01T00:00:01Z');
             INSERT INTO incident_changes VALUES (1, 1, 'open', NULL, NULL, 'x', x'', x'');
             INSERT INTO incident_changes VALUES (2, 2, 'open', NULL, NULL, 'x', x'', x'');
             INSERT INTO incident_changes VALUES (3, 1, 'acknowledged', 'ana', NULL, 'x', x'', x'');",
        )
        .unwrap();
        tx.commit().unwrap();
    }
    let store = open(&path).unwrap();
    let statuses: Vec<(i64, pitwatch_store::Status)> = store
        .incidents(&Default::default())
        .unwrap()
        .iter()
        .map(|i| (i.id.0, i.status))
        .collect();
    use pitwatch_store::Status::{Acknowledged, Open};
    assert_eq!(statuses, [(1, Acknowledged), (2, Open)]);
}

#[test]
fn verifying_after_marks_reads_only_new_rows_and_still_finds_a_rewritten_past() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pit.db");
    let mut store = open(&path).unwrap();
    let (table, session) = setup(&mut store);
    ingest(&mut store, table, session, 0, 50);
    let full = store.verify().unwrap();
    assert!(full.intact());
    let marks = full.marks().expect("intact chains have marks");
    ingest(&mut store, table, session, 50, 5);
    let since = store.verify_after(&marks).unwrap();
    assert!(since.chains_intact(), "{:?}", since.first_problem);
    assert!(since.intact(), "{:?}", since.problems);
    assert!(
        since.integrity.contains("not checked"),
        "SQLite's own check was not run, and it says so"
    );
    let chunks = since
        .chains
        .iter()
        .find(|c| c.table == "raw_chunks")
        .unwrap();
    assert_eq!(
        (chunks.after, chunks.rows),
        (50, 5),
        "only the new rows were read"
    );
    assert_eq!(
        since.marks().unwrap(),
        store.verify().unwrap().marks().unwrap(),
        "the same marks as a full verification"
    );

    // An altered new row is found.
    let marks = since.marks().unwrap();
    ingest(&mut store, table, session, 55, 3);
    let conn = Connection::open(&path).unwrap();
    conn.execute_batch(
        "DROP TRIGGER frames_append_only_u; UPDATE frames SET bytes = x'00' WHERE id = 57;",
    )
    .unwrap();
    let problem = store.verify_after(&marks).unwrap().first_problem.unwrap();
    assert_eq!((problem.table, problem.id), ("frames", 57));

    // Rewriting a verified row together with every hash after it changes the marked row.
    let marks_before = full.marks().unwrap();
    conn.execute_batch(
        "DROP TRIGGER raw_chunks_append_only_u; UPDATE raw_chunks SET hash = x'01' WHERE id = 50;",
    )
    .unwrap();
    let problem = store
        .verify_after(&marks_before)
        .unwrap()
        .first_problem
        .unwrap();
    assert_eq!((problem.table, problem.id), ("raw_chunks", 50));
}

/// A record written before migration 4 (leases, grouped incidents): the same record with the
/// tables that migration adds taken away (and migration 5's index on the audit log, which the
/// migration creates again) and the schema version put back to 3.
#[test]
fn a_record_from_before_migration_4_verifies_read_only_then_migrates_and_verifies() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pit.db");
    {
        let mut store = open(&path).unwrap();
        let (table, session) = setup(&mut store);
        ingest(&mut store, table, session, 1, 20);
    }
    let conn = Connection::open(&path).unwrap();
    conn.execute_batch(
        "DROP TABLE incident_groups; DROP TABLE table_leases; DROP INDEX audit_log_by_subject; \
         PRAGMA user_version = 3;",
    )
    .unwrap();
    drop(conn);
    let report = verify_read_only(&path);
    assert!(report.intact(), "{:#?}", report.problems);
    let store = Store::open_read_only(&path).unwrap();
    assert_eq!(
        store.incident_group(pitwatch_store::IncidentId(1)).unwrap(),
        None
    );
    drop(store);
    let mut store = open(&path).unwrap();
    assert_eq!(store.schema_version().unwrap(), migrate::LATEST);
    let table = store.table_id("BAC-1").unwrap().unwrap();
    let session = store.sessions(table).unwrap()[0].id;
    ingest(&mut store, table, session, 21, 5);
    drop(store);
    let report = verify_read_only(&path);
    assert!(report.intact(), "{:#?}", report.problems);
}
