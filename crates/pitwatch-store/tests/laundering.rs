//! Laundering (issue 25): nothing extends a record it has not checked. Each attack of
//! attacks.rs followed by what an honest process does next (a note, a login, a first
//! administrator, a second writer), which must be refused and leave the attack found.

mod common;

use common::*;

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
