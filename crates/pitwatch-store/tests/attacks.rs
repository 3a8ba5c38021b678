//! The record tried as an attacker would, with nothing but write access to the database file
//! and SQL (no key, no other copy): every edit, forged row, cut, rollback and planted trigger
//! must be found by verification, naming what; a record from before signing must say which rows
//! predate it.

mod common;

use common::*;

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
