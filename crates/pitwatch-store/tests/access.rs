//! The store's part of the access controls (issue 32): migration 5 (the inspector role allowed,
//! the accounts kept as they were) and the reads the reviews rest on (the newest audit entry
//! about a subject, the digest of a period's audit rows).

use std::path::Path;

use pitwatch_model::Timestamp;
use pitwatch_store::{
    migrate, Sealing, SigningKey, Store, StoreError, VerifyOptions, VerifyReport,
};
use rusqlite::Connection;

fn open(path: impl AsRef<Path>) -> Result<Store, StoreError> {
    let path = path.as_ref();
    Store::open(path, &Sealing::key_file(key_file(path)))
}

fn key_file(db: &Path) -> std::path::PathBuf {
    db.with_file_name("installation.key")
}

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

/// A record written before migration 5, whose `users` table allows three roles: migrated, its
/// accounts are kept as they were (each still matching its fact, so it verifies), and an
/// inspector can be added.
#[test]
fn a_record_from_before_migration_5_keeps_its_users_and_takes_an_inspector() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pit.db");
    {
        let mut store = open(&path).unwrap();
        store
            .add_user(
                "admin",
                "ana",
                pitwatch_store::Role::Supervisor,
                "correct horse",
                t(1),
            )
            .unwrap();
    }
    let conn = Connection::open(&path).unwrap();
    conn.execute_batch(
        "DROP INDEX audit_log_by_subject;
         CREATE TABLE users_v4 (
             id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE,
             role TEXT NOT NULL CHECK (role IN ('supervisor', 'surveillance', 'admin')),
             password_hash TEXT NOT NULL, created_at TEXT NOT NULL,
             active INTEGER NOT NULL DEFAULT 1 CHECK (active IN (0, 1)));
         INSERT INTO users_v4 SELECT * FROM users; DROP TABLE users;
         ALTER TABLE users_v4 RENAME TO users; PRAGMA user_version = 4;",
    )
    .unwrap();
    let refused = conn.execute(
        "INSERT INTO users (name, role, password_hash, created_at) VALUES ('x', 'inspector', '', '')",
        [],
    );
    assert!(refused.is_err(), "the old table refuses an inspector");
    drop(conn);
    let mut store = open(&path).unwrap();
    assert_eq!(store.schema_version().unwrap(), migrate::LATEST);
    assert_eq!(
        store.authenticate("ana", "correct horse").unwrap(),
        pitwatch_store::Role::Supervisor
    );
    store
        .add_user(
            "admin",
            "ivy",
            pitwatch_store::Role::Inspector,
            "an inspector's phrase",
            t(2),
        )
        .unwrap();
    assert_eq!(
        store.authenticate("ivy", "an inspector's phrase").unwrap(),
        pitwatch_store::Role::Inspector
    );
    drop(store);
    let report = verify_read_only(&path);
    assert!(report.intact(), "{:#?}", report.problems);
}

#[test]
fn the_audit_digest_of_a_period_covers_its_rows_and_changes_with_them() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pit.db");
    let mut store = open(&path).unwrap();
    for (n, action) in ["one", "two", "three"].iter().enumerate() {
        let at = t(1000 * n as i64);
        let mut batch = store.batch(at).unwrap();
        batch.append_audit("ana", action, "x", "", at).unwrap();
        batch.commit().unwrap();
    }
    let all = store.audit_digest(t(0), t(3000)).unwrap();
    assert_eq!(all.rows, 3);
    let two = store.audit_digest(t(1000), t(3000)).unwrap();
    assert_eq!(two.rows, 2);
    assert_eq!(two.last_id, all.last_id);
    assert_ne!(two.digest, all.digest);
    let none = store.audit_digest(t(5000), t(6000)).unwrap();
    assert_eq!((none.rows, none.first_id), (0, None));
    assert_eq!(
        store.audit_digest(t(0), t(3000)).unwrap(),
        all,
        "the same rows, the same digest"
    );
    let latest = store.latest_audit("x", &["one", "two"]).unwrap().unwrap();
    assert_eq!(latest.action, "two");
    assert_eq!(store.latest_audit("x", &[]).unwrap(), None);
}
