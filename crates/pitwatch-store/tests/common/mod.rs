//! What the record's attack tests share: a pit's record with its key and journal in a folder of
//! their own, a shift of activity recorded into it, and the attacker's tools (triggers dropped, a
//! chain recomputed) with the check that an attack was found.
// Each test binary uses some of these (and of what they bring in), not all.
#![allow(dead_code, unused_imports)]

pub use std::path::{Path, PathBuf};

pub use pitwatch_model::{EventKind, TableEvent, Timestamp};
pub use pitwatch_store::chain::{self, Chain, GENESIS};
pub use pitwatch_store::{
    CheckpointText, Depth, DeviceIdentity, GroupRule, NewIncident, Role, Sealing, SigningKey,
    Store, StoreError, TableId, VerifyOptions, VerifyReport,
};
pub use rusqlite::types::ValueRef;
pub use rusqlite::Connection;

pub fn t(ms: i64) -> Timestamp {
    Timestamp::from_unix_millis(1_796_000_000_000 + ms).unwrap()
}

/// A pit's record, its installation key and its journal, in a folder of their own.
pub struct Pit {
    pub _dir: tempfile::TempDir,
    pub db: PathBuf,
    pub key: PathBuf,
}

impl Pit {
    pub fn new() -> Pit {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("pit.db");
        let key = dir.path().join("keys").join("signing.key");
        Pit { _dir: dir, db, key }
    }

    pub fn sealing(&self) -> Sealing {
        // Journal every checkpoint, so that tests see the witness at once.
        let mut sealing = Sealing::key_file(&self.key);
        sealing.journal_interval_ms = 0;
        sealing
    }

    pub fn open(&self) -> Store {
        Store::open(&self.db, &self.sealing()).unwrap()
    }

    pub fn trusted(&self) -> SigningKey {
        SigningKey::load(&self.key).unwrap()
    }

    pub fn verify(&self, depth: Depth) -> VerifyReport {
        let store = Store::open_read_only(&self.db).unwrap();
        let mut options = VerifyOptions::full(vec![self.trusted().public()], store.journals());
        options.depth = depth;
        store.verify_with(&options).unwrap()
    }

    pub fn sql(&self) -> Connection {
        Connection::open(&self.db).unwrap()
    }

    /// A shift of activity: a table, a device session, 30 frames and events, two incidents
    /// worked by a supervisor, a note, a shoe start, a user, in several transactions.
    pub fn record_a_shift(&self) -> TableId {
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
pub fn drop_triggers(conn: &Connection) -> Vec<String> {
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
pub fn rechain(conn: &Connection, chain: &Chain) {
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

pub fn assert_found(report: &VerifyReport, words: &[&str]) {
    assert!(!report.intact(), "the attack went unseen: {report:#?}");
    let all = report.problems.join("\n");
    for word in words {
        assert!(
            all.contains(word),
            "expected the problems to say {word:?}:\n{all}"
        );
    }
}
