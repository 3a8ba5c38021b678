//! The record tried as an attacker would, with nothing but write access to the database file
//! and SQL (no key, no other copy): every edit, forged row, cut, rollback and planted trigger
//! must be found by verification, naming what; a record from before signing must say which rows
//! predate it.

use std::path::{Path, PathBuf};

use pitwatch_model::{EventKind, TableEvent, Timestamp};
use pitwatch_store::chain::{self, Chain, GENESIS};
use pitwatch_store::{
    CheckpointText, Depth, DeviceIdentity, GroupRule, NewIncident, Role, Sealing, SigningKey,
    Store, StoreError, TableId, VerifyOptions, VerifyReport,
};
use rusqlite::types::ValueRef;
use rusqlite::Connection;

fn t(ms: i64) -> Timestamp {
    Timestamp::from_unix_millis(1_796_000_000_000 + ms).unwrap()
}

/// A pit's record, its installation key and its journal, in a folder of their own.
struct Pit {
    _dir: tempfile::TempDir,
    db: PathBuf,
    key: PathBuf,
}

impl Pit {
    fn new() -> Pit {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("pit.db");
        let key = dir.path().join("keys").join("signing.key");
        Pit { _dir: dir, db, key }
    }

    fn sealing(&self) -> Sealing {
        // Journal every checkpoint, so that tests see the witness at once.
        let mut sealing = Sealing::key_file(&self.key);
        sealing.journal_interval_ms = 0;
        sealing
    }

    fn open(&self) -> Store {
        Store::open(&self.db, &self.sealing()).unwrap()
    }

    fn trusted(&self) -> SigningKey {
        SigningKey::load(&self.key).unwrap()
    }

    fn verify(&self, depth: Depth) -> VerifyReport {
        let store = Store::open_read_only(&self.db).unwrap();
        let mut options = VerifyOptions::full(vec![self.trusted().public()], store.journals());
        options.depth = depth;
        store.verify_with(&options).unwrap()
    }

    fn sql(&self) -> Connection {
        Connection::open(&self.db).unwrap()
    }

    /// A shift of activity: a table, a device session, 30 frames and events, two incidents
    /// worked by a supervisor, a note, a shoe start, a user, in several transactions.
    fn record_a_shift(&self) -> TableId {
        let mut store = self.open();
        let table = store
            .configure_table("BAC-1", "baccarat", "nz-baccarat", Some("book = 1"), t(0))
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
        store
            .add_user(
                "admin",
                "ana",
                Role::Supervisor,
                "a long passphrase 1",
                t(1),
            )
            .unwrap();
        for round in 0..3u64 {
            let mut batch = store.batch(t(10 + round as i64)).unwrap();
            if round == 0 {
                batch.record_shoe(table, 1, 1, r#"{"shoe":0}"#).unwrap();
            }
            for i in round * 10..round * 10 + 10 {
                let bytes = format!("card {i}").into_bytes();
                let chunk = batch.append_chunk(session, t(i as i64), &bytes).unwrap();
                let frame = batch
                    .append_frame(session, chunk, t(i as i64), &bytes, None)
                    .unwrap();
                let event =
                    TableEvent::new(i + 1, EventKind::card("8S".parse().unwrap())).at(t(i as i64));
                batch
                    .append_event(table, Some(session), Some(frame), &event)
                    .unwrap();
            }
            batch
                .open_incident(
                    &NewIncident {
                        table,
                        code: "BURN_COUNT_MISMATCH".into(),
                        severity: "high".into(),
                        rule: "7.9".into(),
                        shoe: Some(1),
                        round: Some(round as u32 + 1),
                        seq: round * 10 + 3,
                        evidence: vec![round * 10 + 1, round * 10 + 3],
                        message: "Burn of 3 cards; the first card was a 5".into(),
                    },
                    t(20),
                )
                .unwrap();
            batch.commit().unwrap();
        }
        // A device error raised twice: one incident (4) that counts both.
        let rule = GroupRule {
            key: "DEVICE_ERROR:E7".into(),
            family: "DEVICE_ERROR:".into(),
            limit: 4,
            overflow: "DEVICE_ERROR:*".into(),
        };
        for seq in [31, 33] {
            let mut batch = store.batch(t(25)).unwrap();
            batch
                .open_grouped_incident(
                    &NewIncident {
                        table,
                        code: "DEVICE_ERROR".into(),
                        severity: "medium".into(),
                        rule: "device".into(),
                        shoe: Some(1),
                        round: None,
                        seq,
                        evidence: vec![seq],
                        message: "E7 card jam".into(),
                    },
                    &rule,
                    t(25),
                )
                .unwrap();
            batch.commit().unwrap();
        }
        let first = pitwatch_store::IncidentId(1);
        store.acknowledge(first, "ana", t(30)).unwrap();
        store
            .add_note(first, "ana", "Camera 14 reviewed", t(31))
            .unwrap();
        store
            .resolve(first, "ana", "Reshuffled and re-dealt", t(32))
            .unwrap();
        store.end_session(session, t(40), "closed").unwrap();
        table
    }
}

/// Drops the append-only triggers, as an attacker with the file would; returns what puts them
/// back.
fn drop_triggers(conn: &Connection) -> Vec<String> {
    conn.pragma_update(None, "foreign_keys", false).unwrap();
    let triggers: Vec<(String, String)> = conn
        .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name LIKE '%append_only%'")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    for (name, _) in &triggers {
        conn.execute_batch(&format!("DROP TRIGGER {name}")).unwrap();
    }
    triggers.into_iter().map(|(_, sql)| sql).collect()
}

/// Recomputes every hash of `chain` from its first row, as an attacker would after an edit: the
/// chain is then consistent again.
fn rechain(conn: &Connection, chain: &Chain) {
    let rows: Vec<(i64, Vec<rusqlite::types::Value>)> = {
        let mut statement = conn
            .prepare(&format!(
                "SELECT {} FROM {} ORDER BY id",
                chain.columns.join(", "),
                chain.table
            ))
            .unwrap();
        let rows = statement
            .query_map([], |r| {
                let values: Vec<rusqlite::types::Value> = (0..chain.columns.len())
                    .map(|i| r.get(i))
                    .collect::<Result<_, _>>()?;
                Ok((r.get(0)?, values))
            })
            .unwrap();
        rows.collect::<Result<_, _>>().unwrap()
    };
    let mut prev = GENESIS;
    for (id, values) in rows {
        let refs: Vec<ValueRef<'_>> = values.iter().map(ValueRef::from).collect();
        let hash = chain::row_hash(chain, &prev, &refs);
        conn.execute(
            &format!(
                "UPDATE {} SET prev_hash = ?2, hash = ?3 WHERE id = ?1",
                chain.table
            ),
            rusqlite::params![id, &prev[..], &hash[..]],
        )
        .unwrap();
        prev = hash;
    }
}

fn assert_found(report: &VerifyReport, words: &[&str]) {
    assert!(!report.intact(), "the attack went unseen: {report:#?}");
    let all = report.problems.join("\n");
    for word in words {
        assert!(
            all.contains(word),
            "expected the problems to say {word:?}:\n{all}"
        );
    }
}

#[test]
fn an_honest_record_verifies_in_full_and_quickly() {
    let pit = Pit::new();
    pit.record_a_shift();
    for depth in [Depth::Full, Depth::Quick] {
        let report = pit.verify(depth);
        assert!(report.intact(), "{depth:?}: {:#?}", report.problems);
        let latest = report.latest.as_ref().unwrap();
        assert!(latest.trusted && latest.signature_valid);
        assert_eq!(report.journals.len(), 1);
        assert_eq!(
            report.journals[0].latest.as_ref().map(|c| c.id),
            Some(latest.text.id),
            "the journal beside the record has its latest checkpoint"
        );
    }
}

#[test]
fn a_note_edited_with_its_chain_recomputed_is_found() {
    let pit = Pit::new();
    pit.record_a_shift();
    let conn = pit.sql();
    drop_triggers(&conn);
    conn.execute(
        "UPDATE incident_notes SET text = 'Nothing to see' WHERE id = 1",
        [],
    )
    .unwrap();
    rechain(&conn, &chain::INCIDENT_NOTES);
    for depth in [Depth::Full, Depth::Quick] {
        assert_found(&pit.verify(depth), &["not a valid signature"]);
    }
}

#[test]
fn raw_bytes_an_event_or_a_resolution_rewritten_are_found() {
    for (chain, edit) in [
        (
            &chain::RAW_CHUNKS,
            "UPDATE raw_chunks SET bytes = x'00' WHERE id = 5",
        ),
        (
            &chain::EVENTS,
            "UPDATE events SET body = replace(body, '8S', '9S') WHERE id = 7",
        ),
        (
            &chain::INCIDENT_CHANGES,
            "UPDATE incident_changes SET resolution = 'Player paid' WHERE resolution IS NOT NULL",
        ),
        (
            &chain::INCIDENTS,
            "UPDATE incidents SET severity = 'low' WHERE id = 2",
        ),
        (
            &chain::AUDIT_LOG,
            "UPDATE audit_log SET user_name = 'bob' WHERE id = 1",
        ),
    ] {
        let pit = Pit::new();
        pit.record_a_shift();
        let conn = pit.sql();
        drop_triggers(&conn);
        conn.execute_batch(edit).unwrap();
        // Without recomputing: the chain itself breaks at the row.
        let report = pit.verify(Depth::Full);
        assert_found(&report, &[chain.table, "altered"]);
        // Recomputing every hash after it: the signature no longer matches.
        rechain(&conn, chain);
        let report = pit.verify(Depth::Full);
        assert_found(&report, &["not a valid signature"]);
        assert!(
            report.chains_intact(),
            "the chain itself is consistent again"
        );
        assert_found(&pit.verify(Depth::Quick), &["not a valid signature"]);
    }
}

#[test]
fn a_forged_row_appended_is_covered_by_no_signature() {
    let pit = Pit::new();
    pit.record_a_shift();
    let conn = pit.sql();
    // INSERT is never refused by a trigger: a note appended with a correct chain hash.
    let (last, head): (i64, Vec<u8>) = conn
        .query_row(
            "SELECT id, hash FROM incident_notes ORDER BY id DESC LIMIT 1",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    let prev: [u8; 32] = head.try_into().unwrap();
    let values = [
        ValueRef::Integer(last + 1),
        ValueRef::Integer(2),
        ValueRef::Text(b"ana"),
        ValueRef::Text(b"Player was paid in full"),
        ValueRef::Text(b"2026-12-01T00:00:00Z"),
    ];
    let hash = chain::row_hash(&chain::INCIDENT_NOTES, &prev, &values);
    conn.execute(
        "INSERT INTO incident_notes (id, incident_id, user_name, text, at, prev_hash, hash) \
         VALUES (?1, 2, 'ana', 'Player was paid in full', '2026-12-01T00:00:00Z', ?2, ?3)",
        rusqlite::params![last + 1, &prev[..], &hash[..]],
    )
    .unwrap();
    for depth in [Depth::Full, Depth::Quick] {
        assert_found(
            &pit.verify(depth),
            &["incident_notes row 2", "covered by no signature"],
        );
    }
}

#[test]
fn a_checkpoint_forged_with_another_key_is_not_trusted() {
    let pit = Pit::new();
    pit.record_a_shift();
    // The attacker writes with a key of their own, through the store itself: the rows and the
    // checkpoint are consistent and signed, but not by the installation. (A store with a key
    // of its own refuses to extend a record signed by another: the attacker's store is told to
    // trust the installation's key, as their own tooling would not check at all.)
    let mut honest_store = Store::open(&pit.db, &Sealing::key(SigningKey::generate())).unwrap();
    assert!(matches!(
        honest_store.add_note(pitwatch_store::IncidentId(1), "ana", "x", t(49)),
        Err(StoreError::Unverified(why)) if why.contains("not a trusted key")
    ));
    let mut forged = Store::open(&pit.db, &Sealing::key(SigningKey::generate())).unwrap();
    forged.trust(vec![pit.trusted().public()]);
    forged
        .add_user(
            "admin",
            "mallory",
            Role::Admin,
            "a long passphrase 2",
            t(50),
        )
        .unwrap();
    drop(forged);
    assert_found(&pit.verify(Depth::Full), &["not a trusted key"]);
    assert_found(&pit.verify(Depth::Quick), &["not a trusted key"]);
}

#[test]
fn a_record_cut_short_is_contradicted_by_its_journal() {
    let pit = Pit::new();
    pit.record_a_shift();
    let before: i64 = pit
        .sql()
        .query_row("SELECT MAX(id) FROM checkpoints", [], |r| r.get(0))
        .unwrap();
    // The newest rows of every chain go, with the checkpoints after the third: what is left is
    // exactly the record as it stood at checkpoint 3, signed and consistent.
    let conn = pit.sql();
    let triggers = drop_triggers(&conn);
    let counts: String = conn
        .query_row("SELECT counts FROM checkpoints WHERE id = 3", [], |r| {
            r.get(0)
        })
        .unwrap();
    let counts: Vec<i64> = counts.split(',').map(|n| n.parse().unwrap()).collect();
    for (chain, count) in chain::SIGNED.iter().zip(&counts) {
        conn.execute(
            &format!("DELETE FROM {} WHERE id > ?1", chain.table),
            [count],
        )
        .unwrap();
    }
    conn.execute("DELETE FROM checkpoints WHERE id > 3", [])
        .unwrap();
    // The derived tables are put back as they were then, too (the attacker knows the facts).
    conn.execute_batch(
        "DELETE FROM users; DELETE FROM incident_status; DELETE FROM incident_groups; DELETE FROM shoes; UPDATE device_sessions SET ended_at = NULL, end_reason = NULL;",
    )
    .unwrap();
    for sql in triggers {
        conn.execute_batch(&sql).unwrap();
    }
    assert!(before > 3);
    let report = pit.verify(Depth::Full);
    assert_found(
        &report,
        &["checkpoint", "is not in the record", "cut short"],
    );
    assert_found(&pit.verify(Depth::Quick), &["cut short"]);
    // Without the journal, the cut record is consistent: only a witness can tell.
    let store = Store::open_read_only(&pit.db).unwrap();
    let alone = store
        .verify_with(&VerifyOptions::full(
            vec![pit.trusted().public()],
            Vec::new(),
        ))
        .unwrap();
    assert!(alone.intact(), "{:#?}", alone.problems);
}

/// Verifying a record while it is being written (the desk's background verification, a replay's
/// verdict, a report) must never see the journal ahead of its own view of the record: a line is
/// written after its transaction commits, so a verification that read the record first and the
/// journal after would take the lines of transactions committed meanwhile for a record cut
/// short. The journals are read before the record's snapshot begins.
#[test]
fn a_record_verified_while_it_is_written_is_never_taken_for_one_cut_short() {
    let pit = Pit::new();
    pit.record_a_shift();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let writer = {
        let stop = std::sync::Arc::clone(&stop);
        let mut store = pit.open();
        std::thread::spawn(move || {
            let mut n = 0u64;
            // A checkpoint and a journal line per transaction (journal_interval_ms = 0).
            while !stop.load(std::sync::atomic::Ordering::Relaxed) && n < 5_000 {
                store
                    .set_meta("busy", &n.to_string(), t(100_000 + n as i64))
                    .unwrap();
                n += 1;
            }
            n
        })
    };
    let mut verified = 0;
    for _ in 0..60 {
        for depth in [Depth::Quick, Depth::Full] {
            let report = pit.verify(depth);
            assert!(report.intact(), "{depth:?}: {:#?}", report.problems);
            verified += 1;
        }
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let written = writer.join().unwrap();
    assert!(
        written > 0 && verified == 120,
        "{written} transactions, {verified} verifications"
    );
}

#[test]
fn an_older_copy_put_back_is_contradicted_by_the_journal_and_a_printed_checkpoint() {
    let pit = Pit::new();
    pit.record_a_shift();
    let copy = pit.db.with_file_name("copy.db");
    {
        // A consistent copy, as a backup tool would take it.
        let conn = pit.sql();
        conn.execute("VACUUM INTO ?1", [copy.to_str().unwrap()])
            .unwrap();
    }
    let printed = {
        let mut store = pit.open();
        store
            .add_note(pitwatch_store::IncidentId(2), "ana", "Late entry", t(100))
            .unwrap();
        store.latest_checkpoint().unwrap().unwrap()
    };
    // The old copy goes back in place of the record (its WAL files are gone with it).
    for suffix in ["-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", pit.db.display()));
    }
    std::fs::copy(&copy, &pit.db).unwrap();
    assert_found(&pit.verify(Depth::Full), &["older copy"]);
    // The checkpoint printed in a report contradicts it too, on its own.
    let store = Store::open_read_only(&pit.db).unwrap();
    let mut options = VerifyOptions::full(vec![pit.trusted().public()], Vec::new());
    options.checkpoints = vec![printed.to_string().parse::<CheckpointText>().unwrap()];
    let report = store.verify_with(&options).unwrap();
    assert_found(&report, &["the checkpoint given", "not in the record"]);
}

#[test]
fn another_record_put_in_place_of_this_one_is_found_by_the_journal() {
    let pit = Pit::new();
    pit.record_a_shift();
    // Another record signed by the same installation (an old segment, say), put in its place.
    let other = pit.db.with_file_name("other.db");
    let mut store = Store::open(&other, &pit.sealing()).unwrap();
    store
        .ensure_table("BAC-1", "baccarat", "nz-baccarat", t(0))
        .unwrap();
    drop(store);
    for suffix in ["-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", pit.db.display()));
    }
    std::fs::copy(&other, &pit.db).unwrap();
    assert_found(&pit.verify(Depth::Full), &["replaced by another record"]);
}

#[test]
fn derived_tables_edited_behind_the_chain_are_found() {
    for (table, edit, words) in [
        (
            "incident_status",
            "UPDATE incident_status SET status = 'resolved' WHERE incident_id = 3",
            vec!["incident_status row 3", "\"open\""],
        ),
        (
            "users",
            "UPDATE users SET role = 'admin' WHERE name = 'ana'",
            vec!["users row \"ana\"", "altered"],
        ),
        (
            "users",
            "UPDATE users SET password_hash = 'x' WHERE name = 'ana'",
            vec!["users row \"ana\"", "altered"],
        ),
        (
            "users",
            "UPDATE users SET active = 0 WHERE name = 'ana'",
            vec!["users row \"ana\"", "altered"],
        ),
        (
            "users",
            "INSERT INTO users (name, role, password_hash, created_at) VALUES ('mallory', 'admin', 'x', 'now')",
            vec!["users row \"mallory\"", "no chained fact"],
        ),
        (
            "pit_tables",
            "UPDATE pit_tables SET rule_book = 'macau-baccarat' WHERE name = 'BAC-1'",
            vec!["pit_tables row 1", "altered"],
        ),
        (
            "pit_tables",
            "UPDATE pit_tables SET book = 'book = 2'",
            vec!["pit_tables row 1"],
        ),
        (
            "device_sessions",
            "UPDATE device_sessions SET ended_at = NULL",
            vec!["device_sessions row 1"],
        ),
        (
            "shoes",
            "UPDATE shoes SET carry = '{\"shoe\":5}'",
            vec!["shoes row [1,1]"],
        ),
        (
            "shoes",
            "DELETE FROM shoes",
            vec!["shoes row [1,1]", "deleted"],
        ),
        (
            "incident_groups",
            "UPDATE incident_groups SET count = 1",
            vec!["incident_groups row 4", "altered"],
        ),
        (
            "incident_groups",
            "DELETE FROM incident_groups",
            vec!["incident_groups row 4", "deleted"],
        ),
        (
            "meta",
            "UPDATE meta SET value = '00000000000000000000000000000000' WHERE key = 'record_id'",
            vec!["meta row \"record_id\""],
        ),
    ] {
        let pit = Pit::new();
        pit.record_a_shift();
        pit.sql().execute_batch(edit).unwrap();
        for depth in [Depth::Full, Depth::Quick] {
            let report = pit.verify(depth);
            assert_found(&report, &words);
            assert!(report.chains_intact(), "{table}: no chain was touched");
        }
    }
}

#[test]
fn a_trigger_planted_in_the_schema_is_found() {
    let pit = Pit::new();
    pit.record_a_shift();
    pit.sql()
        .execute_batch(
            "CREATE TRIGGER hide AFTER INSERT ON incident_changes BEGIN \
             UPDATE incident_status SET status = 'resolved' WHERE incident_id = NEW.incident_id; END;",
        )
        .unwrap();
    for depth in [Depth::Full, Depth::Quick] {
        assert_found(
            &pit.verify(depth),
            &["trigger \"hide\"", "no migration creates"],
        );
    }
    // A trigger of the record's own, dropped, is found too.
    pit.sql()
        .execute_batch("DROP TRIGGER hide; DROP TRIGGER incident_notes_append_only_d;")
        .unwrap();
    assert_found(
        &pit.verify(Depth::Quick),
        &["lacks the trigger \"incident_notes_append_only_d\""],
    );
}

#[test]
fn a_signed_record_whose_key_is_gone_is_refused_naming_the_file() {
    let pit = Pit::new();
    pit.record_a_shift();
    std::fs::remove_file(&pit.key).unwrap();
    let err = Store::open(&pit.db, &pit.sealing()).err().expect("refused");
    let text = err.to_string();
    assert!(matches!(err, StoreError::Key(_)), "{err:?}");
    assert!(text.contains(&pit.key.display().to_string()), "{text}");
    assert!(text.contains("restore the key"), "{text}");
    assert!(!pit.key.exists(), "no new key was made");
}

/// A record written as the previous Pitwatch (schema version 2) wrote it: the migrations of that
/// version, and rows chained by the same hash, with the tables it had then.
fn legacy_record(path: &Path) {
    let conn = Connection::open(path).unwrap();
    for (version, _, sql) in &pitwatch_store::migrate::MIGRATIONS[..2] {
        conn.execute_batch(sql).unwrap();
        conn.pragma_update(None, "user_version", version).unwrap();
    }
    conn.execute_batch(
        "INSERT INTO pit_tables (name, game, rule_book, created_at) VALUES ('BAC-1', 'baccarat', 'nz-baccarat', 't0');
         INSERT INTO devices (protocol, port, first_seen_at) VALUES ('barcode', '/dev/ttyS0', 't0');
         INSERT INTO device_sessions (table_id, device_id, started_at) VALUES (1, 1, 't0');
         INSERT INTO users (name, role, password_hash, created_at) VALUES ('ana', 'supervisor', 'h', 't0');
         INSERT INTO incidents (table_id, code, severity, rule, seq, evidence, message, opened_at)
           VALUES (1, 'BURN_MISSING', 'high', '7.9', 4, '[4]', 'No burn', 't1');
         INSERT INTO incidents (table_id, code, severity, rule, seq, evidence, message, opened_at)
           VALUES (1, 'EXCESS_CARD', 'medium', '11.5', 9, '[9]', 'One card too many', 't2');",
    )
    .unwrap();
    let append = |chain: &Chain, values: Vec<rusqlite::types::Value>| {
        let prev: Vec<u8> = conn
            .query_row(
                &format!("SELECT hash FROM {} ORDER BY id DESC LIMIT 1", chain.table),
                [],
                |r| r.get(0),
            )
            .unwrap_or(GENESIS.to_vec());
        let prev: [u8; 32] = prev.try_into().unwrap();
        let refs: Vec<ValueRef<'_>> = values.iter().map(ValueRef::from).collect();
        let hash = chain::row_hash(chain, &prev, &refs);
        let marks: Vec<String> = (1..=values.len() + 2).map(|i| format!("?{i}")).collect();
        let mut all = values.clone();
        all.push(prev.to_vec().into());
        all.push(hash.to_vec().into());
        conn.execute(
            &format!(
                "INSERT INTO {} ({}, prev_hash, hash) VALUES ({})",
                chain.table,
                chain.columns.join(", "),
                marks.join(", ")
            ),
            rusqlite::params_from_iter(all.iter()),
        )
        .unwrap();
    };
    use rusqlite::types::Value::{Blob, Integer, Null, Text};
    for id in 1..=3 {
        append(
            &chain::RAW_CHUNKS,
            vec![Integer(id), Integer(1), Integer(id), Blob(vec![id as u8])],
        );
    }
    append(
        &chain::INCIDENT_CHANGES,
        vec![
            Integer(1),
            Integer(1),
            Text("open".into()),
            Null,
            Null,
            Text("t1".into()),
        ],
    );
    append(
        &chain::INCIDENT_CHANGES,
        vec![
            Integer(2),
            Integer(2),
            Text("open".into()),
            Null,
            Null,
            Text("t2".into()),
        ],
    );
    append(
        &chain::AUDIT_LOG,
        vec![
            Integer(1),
            Text("ana".into()),
            Text("user.add".into()),
            Text("ana".into()),
            Text("supervisor".into()),
            Text("t0".into()),
        ],
    );
}

#[test]
fn a_record_from_before_signing_says_which_rows_predate_it_and_is_signed_from_then_on() {
    let pit = Pit::new();
    legacy_record(&pit.db);
    // Read-only, nothing is upgraded: every row predates signing, and verification says so.
    let store = Store::open_read_only(&pit.db).unwrap();
    let report = store
        .verify_with(&VerifyOptions::full(Vec::new(), store.journals()))
        .unwrap();
    assert!(report.intact(), "{:#?}", report.problems);
    let predating: Vec<String> = report.predating.iter().map(ToString::to_string).collect();
    assert_eq!(
        predating,
        [
            "raw_chunks rows 1–3",
            "incident_changes rows 1–2",
            "audit_log row 1"
        ]
    );
    assert_eq!(store.schema_version().unwrap(), 2, "nothing was upgraded");
    drop(store);

    // Opened for writing, it is upgraded: its incidents chained, its derived rows recorded as
    // facts, all of it marked as predating signing; what is written next is signed.
    let mut store = pit.open();
    store
        .add_note(pitwatch_store::IncidentId(1), "ana", "Checked", t(5))
        .unwrap();
    drop(store);
    let report = pit.verify(Depth::Full);
    assert!(report.intact(), "{:#?}", report.problems);
    let predating: Vec<String> = report.predating.iter().map(ToString::to_string).collect();
    assert_eq!(
        predating,
        [
            "raw_chunks rows 1–3",
            "incidents rows 1–2",
            "incident_changes rows 1–2",
            "audit_log row 1",
            // Table, device, session, user, the record's id and the mark itself.
            "facts rows 1–6"
        ]
    );
    assert_eq!(report.checkpoints, 1);
    // An incident of the old record, altered, is now found (it was chained at the upgrade).
    let conn = pit.sql();
    drop_triggers(&conn);
    conn.execute("UPDATE incidents SET code = 'NONE' WHERE id = 2", [])
        .unwrap();
    assert_found(&pit.verify(Depth::Full), &["incidents row 2", "altered"]);
}

// ---- Laundering: nothing extends a record it has not checked (issue 25) ----------------------

/// What every honest writer does next: a supervisor's note (what `pitwatch incident note` and an
/// export's audit row go through), on a fresh process's store.
fn honest_note(pit: &Pit) -> Result<(), StoreError> {
    let mut store = pit.open();
    store.add_note(
        pitwatch_store::IncidentId(1),
        "ana",
        "Camera 14 reviewed",
        t(100),
    )
}

fn assert_refused(result: Result<(), StoreError>, words: &[&str]) {
    match result {
        Err(StoreError::Unverified(why)) => {
            for word in words {
                assert!(why.contains(word), "expected {word:?} in: {why}");
            }
        }
        other => panic!("the record was extended: {other:?}"),
    }
}

#[test]
fn a_forgery_with_its_chain_recomputed_is_never_signed_by_the_next_honest_write() {
    let pit = Pit::new();
    pit.record_a_shift();
    let conn = pit.sql();
    drop_triggers(&conn);
    conn.execute(
        "UPDATE incident_notes SET text = 'Nothing to see' WHERE id = 1",
        [],
    )
    .unwrap();
    rechain(&conn, &chain::INCIDENT_NOTES);
    // Who resolved an incident, too: its status change rewritten and rechained.
    conn.execute(
        "UPDATE incident_changes SET user_name = 'admin' WHERE status = 'resolved'",
        [],
    )
    .unwrap();
    rechain(&conn, &chain::INCIDENT_CHANGES);
    let before: i64 = conn
        .query_row("SELECT COUNT(*) FROM checkpoints", [], |r| r.get(0))
        .unwrap();
    assert_refused(honest_note(&pit), &["not a valid signature"]);
    // Nothing was written, and the forgery is still found, in full and quickly.
    let after: i64 = conn
        .query_row("SELECT COUNT(*) FROM checkpoints", [], |r| r.get(0))
        .unwrap();
    assert_eq!(before, after, "no checkpoint was added");
    for depth in [Depth::Full, Depth::Quick] {
        assert_found(&pit.verify(depth), &["not a valid signature"]);
    }
    // A second attempt on the same store is refused without looking again.
    let mut store = pit.open();
    assert!(store
        .add_note(pitwatch_store::IncidentId(1), "ana", "x", t(101))
        .is_err());
    assert!(store.refusal().is_some());
}

#[test]
fn a_forged_row_appended_unsigned_is_never_signed_by_the_next_honest_write() {
    let pit = Pit::new();
    pit.record_a_shift();
    let conn = pit.sql();
    let (last, head): (i64, Vec<u8>) = conn
        .query_row(
            "SELECT id, hash FROM audit_log ORDER BY id DESC LIMIT 1",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    let prev: [u8; 32] = head.try_into().unwrap();
    let values = [
        ValueRef::Integer(last + 1),
        ValueRef::Text(b"ana"),
        ValueRef::Text(b"shift.sign_off"),
        ValueRef::Text(b"shift"),
        ValueRef::Text(b"{}"),
        ValueRef::Text(b"2026-12-01T00:00:00Z"),
    ];
    let hash = chain::row_hash(&chain::AUDIT_LOG, &prev, &values);
    conn.execute(
        "INSERT INTO audit_log (id, user_name, action, subject, detail, at, prev_hash, hash) \
         VALUES (?1, 'ana', 'shift.sign_off', 'shift', '{}', '2026-12-01T00:00:00Z', ?2, ?3)",
        rusqlite::params![last + 1, &prev[..], &hash[..]],
    )
    .unwrap();
    assert_refused(honest_note(&pit), &["covered by no signature"]);
    assert_found(&pit.verify(Depth::Full), &["covered by no signature"]);
}

#[test]
fn a_record_cut_short_is_not_extended_past_its_journal() {
    let pit = Pit::new();
    pit.record_a_shift();
    let conn = pit.sql();
    drop_triggers(&conn);
    // The newest checkpoint and the note it signed removed: what is left is an older, validly
    // signed state; only the journal beside the record says it was longer.
    let latest: i64 = conn
        .query_row("SELECT MAX(id) FROM checkpoints", [], |r| r.get(0))
        .unwrap();
    conn.execute("DELETE FROM checkpoints WHERE id = ?1", [latest])
        .unwrap();
    let counts: String = conn
        .query_row(
            "SELECT counts FROM checkpoints WHERE id = ?1",
            [latest - 1],
            |r| r.get(0),
        )
        .unwrap();
    for (chain, count) in chain::SIGNED
        .iter()
        .zip(pitwatch_store::seal::parse_counts(&counts).unwrap())
    {
        conn.execute(
            &format!("DELETE FROM {} WHERE id > ?1", chain.table),
            [count],
        )
        .unwrap();
    }
    assert_refused(honest_note(&pit), &["not in the record"]);
}

#[test]
fn an_account_swapped_in_the_users_table_cannot_log_in() {
    let pit = Pit::new();
    pit.record_a_shift();
    let mut store = pit.open();
    store
        .add_user(
            "admin",
            "mallory",
            Role::Supervisor,
            "mallory's own long pass",
            t(50),
        )
        .unwrap();
    drop(store);
    let conn = pit.sql();
    // The attacker drops the append-only triggers to edit, and puts them back after.
    let triggers = drop_triggers(&conn);
    let restore = || {
        for sql in &triggers {
            let _ = conn.execute_batch(sql);
        }
    };
    let ana: String = conn
        .query_row(
            "SELECT password_hash FROM users WHERE name = 'ana'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    let mallory: String = conn
        .query_row(
            "SELECT password_hash FROM users WHERE name = 'mallory'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    conn.execute(
        "UPDATE users SET password_hash = ?1 WHERE name = 'ana'",
        [&mallory],
    )
    .unwrap();
    restore();
    let store = pit.open();
    match store.authenticate("ana", "mallory's own long pass") {
        Err(StoreError::Unverified(why)) => {
            assert!(why.contains("users row \"ana\""), "{why}");
            assert!(why.contains("chained facts"), "{why}");
        }
        other => panic!("logged in as ana with mallory's password: {other:?}"),
    }
    // The failure is a record failure: the store appends nothing more.
    let mut store = store;
    assert!(matches!(
        store.add_note(pitwatch_store::IncidentId(1), "ana", "as ana", t(60)),
        Err(StoreError::Unverified(_))
    ));
    // The fact swapped as well (its hash left as it was): found by hashing the fact again.
    let subject = "\"ana\"";
    drop_triggers(&conn);
    let body: String = conn
        .query_row(
            "SELECT body FROM facts WHERE kind = 'users' AND subject = ?1 ORDER BY id DESC LIMIT 1",
            [subject],
            |r| r.get(0),
        )
        .unwrap();
    conn.execute(
        "UPDATE facts SET body = ?1 WHERE kind = 'users' AND subject = ?2",
        rusqlite::params![body.replace(&ana, &mallory), subject],
    )
    .unwrap();
    restore();
    let store = pit.open();
    match store.authenticate("ana", "mallory's own long pass") {
        Err(StoreError::Unverified(why)) => assert!(why.contains("facts row"), "{why}"),
        other => panic!("logged in as ana with a swapped fact: {other:?}"),
    }
    // And with the facts chain recomputed from there on: the signed heads no longer match.
    drop_triggers(&conn);
    rechain(&conn, &chain::FACTS);
    restore();
    let store = pit.open();
    match store.authenticate("ana", "mallory's own long pass") {
        Err(StoreError::Unverified(why)) => assert!(why.contains("not a valid signature"), "{why}"),
        other => panic!("logged in as ana with a rechained fact: {other:?}"),
    }
    // Put back as it was, the record is intact again, and ana's own password works.
    drop_triggers(&conn);
    conn.execute(
        "UPDATE facts SET body = ?1 WHERE kind = 'users' AND subject = ?2",
        rusqlite::params![body, subject],
    )
    .unwrap();
    rechain(&conn, &chain::FACTS);
    conn.execute(
        "UPDATE users SET password_hash = ?1 WHERE name = 'ana'",
        [&ana],
    )
    .unwrap();
    restore();
    assert!(pit.verify(Depth::Full).intact());
    let store = pit.open();
    assert_eq!(
        store.authenticate("ana", "a long passphrase 1").unwrap(),
        Role::Supervisor
    );
}

#[test]
fn writers_on_two_connections_check_what_the_other_appended() {
    let pit = Pit::new();
    pit.record_a_shift();
    let mut first = pit.open();
    let mut second = pit.open();
    first
        .add_note(pitwatch_store::IncidentId(1), "ana", "one", t(100))
        .unwrap();
    second
        .add_note(pitwatch_store::IncidentId(1), "ana", "two", t(101))
        .unwrap();
    first
        .add_note(pitwatch_store::IncidentId(1), "ana", "three", t(102))
        .unwrap();
    assert!(pit.verify(Depth::Full).intact());
    // A row the other connection appended is altered (its hash kept): the first writer hashes
    // what was appended since it last wrote, and refuses.
    second
        .add_note(pitwatch_store::IncidentId(1), "ana", "four", t(103))
        .unwrap();
    let conn = pit.sql();
    drop_triggers(&conn);
    conn.execute(
        "UPDATE incident_notes SET text = 'changed' WHERE text = 'four'",
        [],
    )
    .unwrap();
    assert_refused(
        first.add_note(pitwatch_store::IncidentId(1), "ana", "five", t(104)),
        &["incident_notes", "does not match its hash"],
    );
}

#[test]
fn accounts_deleted_behind_the_store_do_not_make_room_for_a_new_first_administrator() {
    let pit = Pit::new();
    pit.record_a_shift();
    let conn = pit.sql();
    let triggers = drop_triggers(&conn);
    conn.execute("DELETE FROM users", []).unwrap();
    for sql in &triggers {
        conn.execute_batch(sql).unwrap();
    }
    let mut store = pit.open();
    assert!(store
        .add_first_admin("mallory", "mallory's own long pass", t(60))
        .is_err());
    // The accounts' facts deleted as well (the chain left broken, or recomputed): refused too.
    drop_triggers(&conn);
    conn.execute("DELETE FROM facts WHERE kind = 'users'", [])
        .unwrap();
    for sql in &triggers {
        conn.execute_batch(sql).unwrap();
    }
    let mut store = pit.open();
    assert!(matches!(
        store.add_first_admin("mallory", "mallory's own long pass", t(61)),
        Err(StoreError::Unverified(why)) if why.contains("a row is missing")
    ));
    drop_triggers(&conn);
    rechain(&conn, &chain::FACTS);
    for sql in &triggers {
        conn.execute_batch(sql).unwrap();
    }
    let mut store = pit.open();
    assert!(matches!(
        store.add_first_admin("mallory", "mallory's own long pass", t(62)),
        Err(StoreError::Unverified(_))
    ));
    let admins: i64 = conn
        .query_row(
            "SELECT COUNT(*) FROM users WHERE name = 'mallory'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(admins, 0);
}
