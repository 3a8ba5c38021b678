//! What the central-record tests share: a workstation recording simulated tables through the
//! real recorder into its own record, the central database set up and a workstation enrolled, and
//! the attacker's tools (a row altered behind the store, psql as a given role, a record copied).
// Each test binary uses some of these (and of what they bring in), not all.
#![allow(dead_code, unused_imports)]

pub use std::path::Path;
pub use std::process::Command;

pub use pitwatch_games::book_text;
pub use pitwatch_model::Timestamp;
pub use pitwatch_protocols::ProtocolConfig;
pub use pitwatch_recording::recorder::TableRecorder;
pub use pitwatch_sim::{Action, Planner};
pub use pitwatch_store::chain::{CHAINS, EVENTS};
pub use pitwatch_store::{Sealing, SigningKey, Store};
pub use pitwatch_sync::test_server::PgServer;
pub use pitwatch_sync::{Central, Identity, Outbox, SyncError};

/// A workstation recording simulated Angel Eye shoes at its tables, with its own clock.
pub struct Pit {
    pub store: Store,
    pub key: SigningKey,
    pub tables: Vec<(TableRecorder, Planner, Vec<Action>)>,
    pub now_ms: i64,
}

impl Pit {
    pub fn new(path: &Path, names: &[&str], seed: u64) -> Pit {
        let key = SigningKey::generate();
        let mut store = Store::open(path, &Sealing::key(key.clone())).expect("open");
        let now_ms = 1_796_000_000_000;
        let now = Timestamp::from_unix_millis(now_ms).expect("time");
        store.set_meta("site", "Sky City", now).expect("site");
        let protocol = ProtocolConfig::by_name("angel-eye").expect("angel-eye");
        let book = pitwatch_games::load_rule_book("nz-baccarat").expect("book");
        let tables = names
            .iter()
            .enumerate()
            .map(|(i, name)| {
                let mut recorder = TableRecorder::resume(
                    &mut store,
                    name,
                    "baccarat",
                    book.clone(),
                    book_text("nz-baccarat").as_deref(),
                    Some(protocol),
                    now,
                )
                .expect("recorder");
                recorder
                    .connect(&mut store, &format!("sim:{name}"), Default::default(), now)
                    .expect("connect");
                let planner = Planner::new(&protocol, book.clone(), seed + i as u64, vec![], true);
                (recorder, planner, Vec::new())
            })
            .collect();
        Pit {
            store,
            key,
            tables,
            now_ms,
        }
    }

    /// Every table sends its next `steps` chunks, a write transaction every 10.
    pub fn play(&mut self, steps: usize) {
        for _ in 0..steps.div_ceil(10) {
            let now = Timestamp::from_unix_millis(self.now_ms).expect("time");
            let mut batch = self.store.batch(now).expect("batch");
            let mut derived = Vec::new();
            for (recorder, planner, pending) in &mut self.tables {
                for _ in 0..10 {
                    if pending.is_empty() {
                        let mut shoe = planner.next_shoe();
                        shoe.steps.reverse();
                        pending.extend(shoe.steps.into_iter().map(|s| s.action));
                    }
                    if let Some(Action::Send(bytes)) = pending.pop() {
                        self.now_ms += 700;
                        let at = Timestamp::from_unix_millis(self.now_ms).expect("time");
                        recorder
                            .ingest(&mut batch, at, &bytes, &mut derived)
                            .expect("ingest");
                    }
                }
            }
            batch.commit().expect("commit");
        }
    }

    pub fn lengths(&self) -> Vec<i64> {
        CHAINS
            .iter()
            .map(|c| self.store.chain_length(c).expect("length"))
            .collect()
    }
}

pub fn init(url: &str) -> Central {
    let mut central = Central::connect(url).expect("connect");
    assert_eq!(central.init().expect("init"), vec![1, 2]);
    assert!(central.init().expect("again").is_empty(), "idempotent");
    central
}

/// Enrols workstation `id` with `key` through the administrator's connection `admin`, and
/// connects as the workstation's own role.
pub fn enrol(admin: &mut Central, pg: &PgServer, id: &Identity, key: &SigningKey) -> Central {
    let role = pitwatch_sync::default_role(id);
    admin.enrol(id, &key.public(), &role, None).expect("enrol");
    Central::connect(&pg.url_as(&role)).expect("connect as the workstation")
}

/// Every row the server holds of `id`, chain by chain, equals the record's, in order.
pub fn assert_same_rows(central: &mut Central, id: &Identity, store: &Store) {
    for chain in CHAINS {
        let local = store.chain_rows(chain, 0, usize::MAX).expect("local");
        let held = central.fetch_rows(id, chain, 0, i64::MAX).expect("central");
        assert_eq!(
            held.len(),
            local.len(),
            "{}: nothing lost or duplicated",
            chain.table
        );
        assert!(
            held == local,
            "{}: the same rows in the same order",
            chain.table
        );
    }
}

/// Rewrites `events` row `id`'s body on the workstation behind the store's back, recomputing
/// the hashes of that row and every row after it if `rehash` (what someone who knows the chain
/// code would do).
pub fn alter_event(path: &Path, id: i64, rehash: bool) {
    let conn = rusqlite::Connection::open(path).expect("sqlite");
    conn.execute_batch("DROP TRIGGER events_append_only_u")
        .expect("drop trigger");
    conn.execute(
        "UPDATE events SET body = replace(body, '\"', '\"') || ' ' WHERE id = ?1",
        [id],
    )
    .expect("alter");
    if rehash {
        let rows = pitwatch_store::Store::open_read_only(path)
            .expect("ro")
            .chain_rows(&EVENTS, id - 1, usize::MAX)
            .expect("rows");
        let mut prev = if id == 1 {
            pitwatch_store::chain::GENESIS
        } else {
            rows[0].prev_hash
        };
        for row in rows {
            let hash = pitwatch_store::chain::row_hash_encoded(&EVENTS, &prev, &row.content);
            conn.execute(
                "UPDATE events SET prev_hash = ?1, hash = ?2 WHERE id = ?3",
                rusqlite::params![prev.to_vec(), hash.to_vec(), row.position],
            )
            .expect("rehash");
            prev = hash;
        }
    }
}

/// psql on `url`: whether `sql` succeeded, and its messages.
pub fn psql_try(url: &str, sql: &str) -> (bool, String) {
    let out = Command::new("psql")
        .args([url, "-v", "ON_ERROR_STOP=1", "-qAtc", sql])
        .output()
        .expect("psql");
    (
        out.status.success(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

/// An INSERT of one events row of sky/`workstation` at `position` after `prev` (hex), content
/// one zero byte, its hash computed as the store's chain code does (or, `bad_hash`, not).
pub fn insert_event(workstation: &str, position: i64, prev: &str, bad_hash: bool) -> String {
    let prev_bytes: [u8; 32] = hex::decode(prev).expect("hex").try_into().expect("32");
    let mut hash = pitwatch_store::chain::row_hash_encoded(&EVENTS, &prev_bytes, &[0]);
    if bad_hash {
        hash[0] ^= 1;
    }
    format!(
        "INSERT INTO chain_rows (site, workstation, chain, position, content, prev_hash, hash) \
         VALUES ('sky', '{workstation}', 'events', {position}, '\\x00', '\\x{prev}', '\\x{}')",
        hex_of(&hash)
    )
}

pub fn hex_of(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A copy of the record at `from` as it stands now, in `to` (what someone keeps to put back
/// later).
pub fn copy_record(from: &Path, to: &Path) {
    let conn = rusqlite::Connection::open(from).expect("sqlite");
    conn.execute("VACUUM INTO ?1", [to.to_str().expect("utf-8")])
        .expect("copy");
}
