//! The central record against a real PostgreSQL (Debian's, started in a temporary folder on a
//! free port by `scripts/pg-test-server.sh` and removed afterwards): workstations recording
//! simulated tables through the real recorder, replicating through outages, a server restored
//! from an older dump, rows altered after replication, and the central copy read back.
//!
//! Skipped, saying so, only when PostgreSQL is not installed.

use std::path::Path;
use std::process::Command;

use pitwatch_api::record::book_text;
use pitwatch_api::recorder::TableRecorder;
use pitwatch_model::Timestamp;
use pitwatch_protocols::ProtocolConfig;
use pitwatch_sim::{Action, Planner};
use pitwatch_store::chain::{CHAINS, EVENTS};
use pitwatch_store::{Sealing, SigningKey, Store};
use pitwatch_sync::test_server::PgServer;
use pitwatch_sync::{Central, Identity, Outbox, SyncError};

/// A workstation recording simulated Angel Eye shoes at its tables, with its own clock.
struct Pit {
    store: Store,
    key: SigningKey,
    tables: Vec<(TableRecorder, Planner, Vec<Action>)>,
    now_ms: i64,
}

impl Pit {
    fn new(path: &Path, names: &[&str], seed: u64) -> Pit {
        let key = SigningKey::generate();
        let mut store = Store::open(path, &Sealing::key(key.clone())).expect("open");
        let now_ms = 1_796_000_000_000;
        let now = Timestamp::from_unix_millis(now_ms).expect("time");
        store.set_meta("site", "Sky City", now).expect("site");
        let protocol = ProtocolConfig::by_name("angel-eye").expect("angel-eye");
        let book = pitwatch_api::pit::load_rule_book("nz-baccarat").expect("book");
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
    fn play(&mut self, steps: usize) {
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

    fn lengths(&self) -> Vec<i64> {
        CHAINS
            .iter()
            .map(|c| self.store.chain_length(c).expect("length"))
            .collect()
    }
}

fn init(url: &str) -> Central {
    let mut central = Central::connect(url).expect("connect");
    assert_eq!(central.init().expect("init"), vec![1, 2]);
    assert!(central.init().expect("again").is_empty(), "idempotent");
    central
}

/// Enrols workstation `id` with `key` through the administrator's connection `admin`, and
/// connects as the workstation's own role.
fn enrol(admin: &mut Central, pg: &PgServer, id: &Identity, key: &SigningKey) -> Central {
    let role = pitwatch_sync::default_role(id);
    admin.enrol(id, &key.public(), &role, None).expect("enrol");
    Central::connect(&pg.url_as(&role)).expect("connect as the workstation")
}

/// Every row the server holds of `id`, chain by chain, equals the record's, in order.
fn assert_same_rows(central: &mut Central, id: &Identity, store: &Store) {
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

#[test]
fn two_workstations_replicate_into_one_server_and_read_back_the_same() {
    let Some(pg) = PgServer::start("two_workstations_replicate") else {
        return;
    };
    let dir = tempfile::tempdir().expect("dir");
    let mut central = init(&pg.url);
    let mut north = Pit::new(&dir.path().join("north.db"), &["BAC-1", "BAC-2"], 1);
    let mut south = Pit::new(&dir.path().join("south.db"), &["MINI-1"], 7);
    let mut north_out = Outbox::new("sky/north".parse().expect("id"));
    let mut south_out = Outbox::new("sky/south".parse().expect("id"));
    let mut north_link = enrol(&mut central, &pg, &north_out.id, &north.key);
    let mut south_link = enrol(&mut central, &pg, &south_out.id, &south.key);

    for round in 0..3 {
        north.play(120);
        south.play(80);
        let report = north_link
            .sync_once(&north.store, &mut north_out)
            .expect("sync");
        assert!(report.refused.is_empty(), "{report:?}");
        assert_eq!(report.rows_behind, 0, "round {round}: {report:?}");
        assert_eq!(report.ms_behind, 0);
        assert!(report.delivered > 0);
        south_link
            .sync_once(&south.store, &mut south_out)
            .expect("sync");
    }
    // Delivered again: stored once.
    let again = north_link
        .sync_once(&north.store, &mut north_out)
        .expect("sync");
    assert_eq!(again.delivered, 0);
    let mut fresh = Outbox::new(north_out.id.clone());
    assert_eq!(
        north_link
            .sync_once(&north.store, &mut fresh)
            .expect("sync")
            .delivered,
        0
    );

    assert_same_rows(&mut central, &north_out.id, &north.store);
    assert_same_rows(&mut central, &south_out.id, &south.store);
    let listed = central.workstations().expect("list");
    assert_eq!(listed.len(), 2);
    assert_eq!(listed[0].id.to_string(), "sky/north");
    assert_eq!(
        listed[0].checkpoint.as_deref(),
        Some(
            north
                .store
                .latest_checkpoint()
                .expect("cp")
                .expect("cp")
                .to_string()
                .as_str()
        )
    );
    assert_eq!(
        listed[0].checkpoint_problem, None,
        "signed by the enrolled key"
    );
    assert_eq!(listed[0].rows, north.lengths().iter().sum::<i64>());
    assert_eq!((listed[1].rows_behind, listed[1].refused), (0, 0));

    // The central copy, rebuilt, verifies with the workstation's key and replays the same.
    for (pit, id, tables) in [
        (&north, &north_out.id, vec!["BAC-1", "BAC-2"]),
        (&south, &south_out.id, vec!["MINI-1"]),
    ] {
        let copy_path = dir.path().join(format!("{}.copy.db", id.workstation));
        let at = central.rebuild(id, &copy_path).expect("rebuild");
        assert_eq!(
            at,
            pit.store
                .chain_length(&pitwatch_store::chain::CHECKPOINTS)
                .unwrap()
        );
        let mut copy = Store::open_read_only(&copy_path).expect("open copy");
        copy.trust(vec![pit.key.public()]);
        let report = copy.verify().expect("verify");
        assert!(report.intact(), "{:?}", report.problems);
        for table in tables {
            let local = pitwatch_api::replay::rebuild(&pit.store, table).expect("local replay");
            let remote = pitwatch_api::replay::rebuild(&copy, table).expect("central replay");
            assert!(!local.steps.is_empty());
            assert!(
                local == remote,
                "{table}: replay from the central copy differs"
            );
        }
        // The server is a witness of the record: intact, nothing to say.
        assert_eq!(
            central
                .witness(&pit.store.record_id().unwrap().unwrap())
                .expect("witness"),
            pit.store.latest_checkpoint().unwrap()
        );
        assert!(central.witness_problems(&pit.store).expect("w").is_empty());
    }

    // Another record under a workstation's name is refused.
    let other = Pit::new(&dir.path().join("other.db"), &["X"], 3);
    let err = north_link
        .sync_once(&other.store, &mut Outbox::new(north_out.id.clone()))
        .expect_err("another record");
    assert!(
        err.to_string()
            .contains("a workstation replicates one record"),
        "{err}"
    );
}

#[test]
fn a_cut_link_loses_nothing_and_catches_up_in_order() {
    let Some(pg) = PgServer::start("a_cut_link") else {
        return;
    };
    let dir = tempfile::tempdir().expect("dir");
    let mut admin = init(&pg.url);
    let mut pit = Pit::new(&dir.path().join("pit.db"), &["BAC-1", "BAC-2"], 11);
    let mut outbox = Outbox::new("sky/pit".parse().expect("id"));
    let mut central = enrol(&mut admin, &pg, &outbox.id, &pit.key);
    drop(admin);
    pit.play(60);
    central.sync_once(&pit.store, &mut outbox).expect("sync");

    pg.down();
    // Recording never waits for the link.
    pit.play(200);
    let err = central
        .sync_once(&pit.store, &mut outbox)
        .expect_err("link down");
    assert!(
        matches!(err, SyncError::Postgres(_) | SyncError::Timeout(_)),
        "{err}"
    );
    assert!(Central::connect(&pg.url).is_err(), "the server is down");
    pit.play(100);

    pg.up();
    let mut central = Central::connect(&pg.url_as("pw_sky_pit")).expect("reconnect");
    let report = central
        .sync_once(&pit.store, &mut outbox)
        .expect("catch up");
    assert!(
        report.refused.is_empty() && report.behind.is_empty(),
        "{report:?}"
    );
    assert_eq!(report.rows_behind, 0);
    assert_same_rows(&mut central, &outbox.id, &pit.store);
}

#[test]
fn a_server_restored_from_an_older_dump_is_detected_and_refilled() {
    let Some(pg) = PgServer::start("a_server_restored") else {
        return;
    };
    pg.psql("CREATE DATABASE central");
    let url = pg.database("central");
    let dir = tempfile::tempdir().expect("dir");
    let dump = dir.path().join("central.dump");
    let mut central = init(&url);
    let mut pit = Pit::new(&dir.path().join("pit.db"), &["BAC-1"], 5);
    let mut outbox = Outbox::new("sky/pit".parse().expect("id"));
    central
        .enrol(&outbox.id, &pit.key.public(), "pw_sky_pit", None)
        .expect("enrol");
    pit.play(80);
    central.sync_once(&pit.store, &mut outbox).expect("sync");
    let status = Command::new("pg_dump")
        .args(["-Fc", "-f", dump.to_str().expect("utf-8"), &url])
        .status()
        .expect("pg_dump");
    assert!(status.success());
    pit.play(80);
    central.sync_once(&pit.store, &mut outbox).expect("sync");
    drop(central);

    // The server is restored from the older dump.
    pg.psql("DROP DATABASE central WITH (FORCE)");
    pg.psql("CREATE DATABASE central");
    let status = Command::new("pg_restore")
        .args(["-d", &url, dump.to_str().expect("utf-8")])
        .status()
        .expect("pg_restore");
    assert!(status.success());

    let mut central = Central::connect(&url).expect("reconnect");
    let report = central.sync_once(&pit.store, &mut outbox).expect("refill");
    assert!(!report.behind.is_empty(), "{report:?}");
    assert!(
        report.behind[0].contains("restored from an older backup"),
        "{report:?}"
    );
    assert!(report.refused.is_empty(), "{report:?}");
    assert_same_rows(&mut central, &outbox.id, &pit.store);
    let reports = central.reports().expect("reports");
    assert!(reports.iter().any(|r| r.kind == "behind"), "{reports:?}");
    // A fresh process (no memory of what it delivered) finds nothing missing either.
    let mut fresh = Outbox::new(outbox.id.clone());
    assert_eq!(
        central
            .sync_once(&pit.store, &mut fresh)
            .expect("sync")
            .delivered,
        0
    );
}

/// Rewrites `events` row `id`'s body on the workstation behind the store's back, recomputing
/// the hashes of that row and every row after it if `rehash` (what someone who knows the chain
/// code would do).
fn alter_event(path: &Path, id: i64, rehash: bool) {
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

#[test]
fn rows_altered_on_the_workstation_are_refused_by_the_central_check() {
    let Some(pg) = PgServer::start("rows_altered") else {
        return;
    };
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("pit.db");
    let mut admin = init(&pg.url);
    let mut pit = Pit::new(&path, &["BAC-1"], 9);
    let mut outbox = Outbox::new("sky/pit".parse().expect("id"));
    let mut central = enrol(&mut admin, &pg, &outbox.id, &pit.key);
    pit.play(60);
    central.sync_once(&pit.store, &mut outbox).expect("sync");
    let held = central
        .fetch_rows(&outbox.id, &EVENTS, 0, i64::MAX)
        .expect("rows")
        .len() as i64;
    assert!(held > 10);

    // Altered after replication, the chain recomputed so it holds together locally: the row the
    // server holds last no longer matches, and nothing more of the chain is accepted. (The rows
    // after it are written first: the workstation's own store refuses to extend an altered
    // record.)
    pit.play(30);
    alter_event(&path, 5, true);
    let report = central.sync_once(&pit.store, &mut outbox).expect("sync");
    assert_eq!(report.refused.len(), 1, "{report:?}");
    assert!(
        report.refused[0].contains("changed after replication"),
        "{report:?}"
    );
    let events = report
        .chains
        .iter()
        .find(|c| c.table == "events")
        .expect("events");
    assert_eq!(events.central, held, "nothing after the refusal");
    assert!(events.local > held);
    assert!(report.rows_behind > 0);
    let problems = central.witness_problems(&pit.store).expect("witness");
    assert!(
        problems.iter().any(|p| p.contains("events row")),
        "{problems:?}"
    );
    // Reported once, however many rounds meet it.
    central.sync_once(&pit.store, &mut outbox).expect("sync");
    let reports = central.reports().expect("reports");
    assert_eq!(
        reports.iter().filter(|r| r.kind == "refused").count(),
        1,
        "{reports:?}"
    );
    assert_eq!(admin.workstations().expect("list")[0].refused, 1);
}

#[test]
fn a_row_that_does_not_match_its_hash_is_refused_before_it_is_sent() {
    let Some(pg) = PgServer::start("a_row_that_does_not_match") else {
        return;
    };
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("pit.db");
    let mut admin = init(&pg.url);
    let mut pit = Pit::new(&path, &["BAC-1"], 9);
    let mut outbox = Outbox::new("sky/pit".parse().expect("id"));
    let mut central = enrol(&mut admin, &pg, &outbox.id, &pit.key);
    pit.play(40);
    let before = pit.store.chain_length(&EVENTS).expect("len");
    central.sync_once(&pit.store, &mut outbox).expect("sync");
    pit.play(40);
    // Altered before it was replicated, hashes untouched.
    alter_event(&path, before + 3, false);
    let report = central.sync_once(&pit.store, &mut outbox).expect("sync");
    assert_eq!(report.refused.len(), 1, "{report:?}");
    assert!(
        report.refused[0].contains(&format!(
            "events row {}: its content does not match its hash",
            before + 3
        )),
        "{report:?}"
    );
    let events = report
        .chains
        .iter()
        .find(|c| c.table == "events")
        .expect("events");
    assert_eq!(
        events.central,
        before + 2,
        "the rows before it, and not one after"
    );
}

/// psql on `url`: whether `sql` succeeded, and its messages.
fn psql_try(url: &str, sql: &str) -> (bool, String) {
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
fn insert_event(workstation: &str, position: i64, prev: &str, bad_hash: bool) -> String {
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

#[test]
fn the_server_itself_keeps_every_chain_contiguous_and_append_only() {
    let Some(pg) = PgServer::start("the_server_itself") else {
        return;
    };
    let dir = tempfile::tempdir().expect("dir");
    let mut admin = init(&pg.url);
    let mut pit = Pit::new(&dir.path().join("pit.db"), &["BAC-1"], 2);
    let mut outbox = Outbox::new("sky/pit".parse().expect("id"));
    let mut central = enrol(&mut admin, &pg, &outbox.id, &pit.key);
    pit.play(20);
    central.sync_once(&pit.store, &mut outbox).expect("sync");
    let held = pit.store.chain_length(&EVENTS).expect("len");
    let head = hex_of(&pit.store.chain_row_hash(&EVENTS, held).unwrap().unwrap());
    // As the workstation's own role would, and as the superuser: the server checks either.
    let as_pit = pg.url_as("pw_sky_pit");
    for url in [&as_pit, &pg.url] {
        // A gap.
        let (ok, said) = psql_try(url, &insert_event("pit", held + 2, &"11".repeat(32), false));
        assert!(!ok && said.contains("does not follow"), "{said}");
        // The next position, but not linked to the row held last.
        let (ok, said) = psql_try(url, &insert_event("pit", held + 1, &"22".repeat(32), false));
        assert!(!ok && said.contains("does not follow"), "{said}");
        // Linked, but its hash is not over its content.
        let (ok, said) = psql_try(url, &insert_event("pit", held + 1, &head, true));
        assert!(
            !ok && said.contains("its hash does not match its content"),
            "{said}"
        );
        // A position held already.
        let (ok, said) = psql_try(url, &insert_event("pit", held, &"22".repeat(32), false));
        assert!(!ok && said.contains("duplicate key"), "{said}");
    }
    // Rows are never changed or removed: the superuser meets the append-only trigger, the
    // workstation is not even allowed to try.
    let (ok, said) = psql_try(
        &pg.url,
        "UPDATE chain_rows SET content = '\\x01' WHERE position = 1",
    );
    assert!(!ok && said.contains("append-only"), "{said}");
    let (ok, said) = psql_try(&pg.url, "DELETE FROM chain_rows");
    assert!(!ok && said.contains("append-only"), "{said}");
    for sql in [
        "UPDATE chain_rows SET content = '\\x01' WHERE position = 1",
        "DELETE FROM chain_rows",
    ] {
        let (ok, said) = psql_try(&as_pit, sql);
        assert!(!ok && said.contains("permission denied"), "{sql}: {said}");
    }
    // The linked next row is taken, and the head moves.
    let (ok, said) = psql_try(&as_pit, &insert_event("pit", held + 1, &head, false));
    assert!(ok, "{said}");
    let (_, said) = psql_try(
        &pg.url,
        "SELECT position FROM chain_heads WHERE chain = 'events'",
    );
    assert_eq!(said.trim(), (held + 1).to_string());
}

fn hex_of(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn a_mirror_refreshes_incrementally_replays_the_same_and_refuses_a_changed_central_copy() {
    let Some(pg) = PgServer::start("a_mirror_refreshes") else {
        return;
    };
    let dir = tempfile::tempdir().expect("dir");
    let mut central = init(&pg.url);
    let mut north = Pit::new(&dir.path().join("north.db"), &["BAC-1"], 4);
    let mut south = Pit::new(&dir.path().join("south.db"), &["MINI-1"], 5);
    let (north_id, south_id): (Identity, Identity) = (
        "sky/north".parse().expect("id"),
        "sky/south".parse().expect("id"),
    );
    let mut north_out = Outbox::new(north_id.clone());
    let mut south_out = Outbox::new(south_id.clone());
    central
        .enrol(&north_id, &north.key.public(), "pw_north", None)
        .expect("enrol");
    central
        .enrol(&south_id, &south.key.public(), "pw_south", None)
        .expect("enrol");
    north.play(120);
    south.play(60);
    central
        .sync_once(&north.store, &mut north_out)
        .expect("sync");
    central
        .sync_once(&south.store, &mut south_out)
        .expect("sync");

    // The surveillance room reads on a read-only session: the server refuses any write on it.
    let mut reader = Central::connect_read_only(&pg.url).expect("read-only");
    assert!(
        reader.init().is_err(),
        "a read-only session cannot create the schema"
    );
    let cache = dir.path().join("mirrors");
    std::fs::create_dir(&cache).expect("cache");
    let north_mirror = pitwatch_sync::mirror_path(&cache, &north_id);
    let south_mirror = pitwatch_sync::mirror_path(&cache, &south_id);
    let first = reader
        .refresh_mirror(&north_id, &north_mirror)
        .expect("first refresh");
    assert!(first.started && first.appended > 0, "{first:?}");
    let cp = |pit: &Pit| {
        pit.store
            .chain_length(&pitwatch_store::chain::CHECKPOINTS)
            .expect("len")
    };
    assert_eq!(first.checkpoint, cp(&north));
    reader
        .refresh_mirror(&south_id, &south_mirror)
        .expect("south");
    let again = reader
        .refresh_mirror(&north_id, &north_mirror)
        .expect("nothing new");
    assert_eq!((again.appended, again.started), (0, false), "{again:?}");

    // New rows: only they are pulled, and the mirror replays as the workstation's record.
    north.play(80);
    central
        .sync_once(&north.store, &mut north_out)
        .expect("sync");
    let more = reader
        .refresh_mirror(&north_id, &north_mirror)
        .expect("refresh");
    assert!(
        more.appended > 0 && more.appended < first.appended + 2000,
        "{more:?}"
    );
    assert_eq!(more.checkpoint, cp(&north));
    for (pit, path, table) in [
        (&north, &north_mirror, "BAC-1"),
        (&south, &south_mirror, "MINI-1"),
    ] {
        let mut copy = Store::open_read_only(path).expect("mirror");
        copy.trust(vec![pit.key.public()]);
        let report = copy.verify().expect("verify");
        assert!(report.intact(), "{:?}", report.problems);
        let local = pitwatch_api::replay::rebuild(&pit.store, table).expect("local");
        let mirrored = pitwatch_api::replay::rebuild(&copy, table).expect("mirror");
        assert!(!local.steps.is_empty());
        assert!(local == mirrored, "{table}: the mirror's replay differs");
    }

    // A row altered in the central copy past what the mirror holds (by someone with the
    // server's superuser, who can lift its append-only trigger) is refused by the mirror's chain
    // check, and the mirror stays at the checkpoint it stood at.
    north.play(40);
    central
        .sync_once(&north.store, &mut north_out)
        .expect("sync");
    let held = Store::open_read_only(&north_mirror)
        .expect("mirror")
        .chain_length(&EVENTS)
        .expect("len");
    let alter = |position: i64| {
        pg.psql(&format!(
            "ALTER TABLE chain_rows DISABLE TRIGGER chain_rows_append_only; \
             UPDATE chain_rows SET content = content || '\\x00'::bytea \
             WHERE site = 'sky' AND workstation = 'north' AND chain = 'events' \
             AND position = {position}; \
             ALTER TABLE chain_rows ENABLE TRIGGER chain_rows_append_only;"
        ))
    };
    alter(held + 1);
    let err = reader
        .refresh_mirror(&north_id, &north_mirror)
        .expect_err("refused");
    assert!(
        err.to_string()
            .contains(&format!("events row {}", held + 1))
            && err.to_string().contains("does not match its hash"),
        "{err}"
    );
    let copy = Store::open_read_only(&north_mirror).expect("mirror");
    assert_eq!(copy.chain_length(&EVENTS).expect("len"), held);
    assert_eq!(
        copy.chain_length(&pitwatch_store::chain::CHECKPOINTS)
            .expect("len"),
        more.checkpoint,
        "the mirror stands where it stood"
    );
    drop(copy);
    // And a row the mirror holds already, changed in the central copy, is found too.
    alter(held);
    let err = reader
        .refresh_mirror(&north_id, &north_mirror)
        .expect_err("refused");
    assert!(
        err.to_string()
            .contains(&format!("events row {held} differs from the copy")),
        "{err}"
    );
}

/// A copy of the record at `from` as it stands now, in `to` (what someone keeps to put back
/// later).
fn copy_record(from: &Path, to: &Path) {
    let conn = rusqlite::Connection::open(from).expect("sqlite");
    conn.execute("VACUUM INTO ?1", [to.to_str().expect("utf-8")])
        .expect("copy");
}

#[test]
fn one_workstation_cannot_write_into_another_nor_register_a_name() {
    let Some(pg) = PgServer::start("one_workstation_cannot_write_into_another") else {
        return;
    };
    let dir = tempfile::tempdir().expect("dir");
    let mut admin = init(&pg.url);
    let mut pit3 = Pit::new(&dir.path().join("pit3.db"), &["BAC-1"], 31);
    let mut pit4 = Pit::new(&dir.path().join("pit4.db"), &["BAC-2"], 41);
    let (id3, id4): (Identity, Identity) = (
        "sky/pit-3".parse().expect("id"),
        "sky/pit-4".parse().expect("id"),
    );
    let mut as3 = enrol(&mut admin, &pg, &id3, &pit3.key);
    let mut as4 = enrol(&mut admin, &pg, &id4, &pit4.key);
    pit3.play(40);
    pit4.play(40);
    as3.sync_once(&pit3.store, &mut Outbox::new(id3.clone()))
        .expect("pit-3 delivers");
    as4.sync_once(&pit4.store, &mut Outbox::new(id4.clone()))
        .expect("pit-4 delivers");
    let held3 = admin.fetch_rows(&id3, &EVENTS, 0, i64::MAX).expect("rows");

    // pit-4's credentials, delivering its record (signed with its key) as pit-3: refused by the
    // server, saying why.
    let err = as4
        .sync_once(&pit4.store, &mut Outbox::new(id3.clone()))
        .expect_err("refused");
    assert!(matches!(err, SyncError::Refused(_)), "{err:?}");
    assert!(
        err.to_string()
            .contains("may not deliver as sky/pit-3 (it is enrolled as sky/pit-4)"),
        "{err}"
    );
    // And straight in SQL: a row that would follow pit-3's head, well hashed.
    let head = hex_of(&held3.last().expect("rows").hash);
    let url4 = pg.url_as(&pitwatch_sync::default_role(&id4));
    let (ok, said) = psql_try(
        &url4,
        &insert_event("pit-3", held3.len() as i64 + 1, &head, false),
    );
    assert!(!ok && said.contains("row-level security"), "{said}");
    // pit-4 does not see pit-3's rows, and cannot touch what the witness reads of it.
    let (_, said) = psql_try(
        &url4,
        "SELECT count(*) FROM chain_rows WHERE workstation = 'pit-3'",
    );
    assert_eq!(said.trim(), "0");
    for sql in [
        "UPDATE chain_heads SET position = 1 WHERE workstation = 'pit-3'",
        "DELETE FROM chain_heads WHERE workstation = 'pit-3'",
        "UPDATE workstations SET record_id = NULL WHERE workstation = 'pit-3'",
        "UPDATE workstations SET public_key = repeat('ab', 32) WHERE workstation = 'pit-3'",
        "DELETE FROM central_reports",
    ] {
        let (ok, said) = psql_try(&url4, sql);
        assert!(!ok && said.contains("permission denied"), "{sql}: {said}");
    }
    let (ok, said) = psql_try(
        &url4,
        "SELECT pitwatch_report('sky', 'pit-3', 'refused', 'events', 1, 'forged')",
    );
    assert!(
        !ok && said.contains("may not deliver as sky/pit-3"),
        "{said}"
    );
    let (ok, said) = psql_try(&url4, "SELECT pitwatch_report_lag('sky', 'pit-3', 0, 0)");
    assert!(
        !ok && said.contains("may not deliver as sky/pit-3"),
        "{said}"
    );
    // Nobody registers a name by themselves: not in SQL, not by delivering under it.
    let (ok, said) = psql_try(
        &url4,
        "INSERT INTO workstations (site, workstation, record_id) VALUES ('sky', 'pit-9', NULL)",
    );
    assert!(!ok && said.contains("permission denied"), "{said}");
    let err = as4
        .sync_once(
            &pit4.store,
            &mut Outbox::new("sky/pit-9".parse().expect("id")),
        )
        .expect_err("not enrolled");
    assert!(
        err.to_string()
            .contains("sky/pit-9 is not enrolled in the central database"),
        "{err}"
    );
    let (ok, said) = psql_try(&url4, "CREATE ROLE intruder LOGIN");
    assert!(!ok && said.contains("permission denied"), "{said}");
    // Nor can it shadow what the server's own functions read with tables of its own (and they
    // look in pg_temp last anyway).
    let (_, said) = psql_try(
        &pg.url,
        "SELECT proconfig FROM pg_proc WHERE proname = 'pitwatch_chain_rows_follow'",
    );
    assert!(said.contains("pg_catalog, pg_temp"), "{said}");
    for sql in [
        "CREATE TEMP TABLE workstations (site TEXT, workstation TEXT, role_name TEXT)",
        "CREATE TABLE public.chain_heads_shadow (x INT)",
    ] {
        let (ok, said) = psql_try(&url4, sql);
        assert!(!ok && said.contains("permission denied"), "{sql}: {said}");
    }
    // Enrolment is the administrator's: a workstation's role cannot enrol anything.
    let err = as4
        .enrol(
            &"sky/pit-9".parse().expect("id"),
            &pit4.key.public(),
            "pw_x",
            None,
        )
        .expect_err("not the administrator");
    assert!(err.to_string().contains("permission denied"), "{err}");

    // Nothing of pit-4's reached pit-3's chains; pit-3 goes on as before.
    assert_eq!(
        admin.fetch_rows(&id3, &EVENTS, 0, i64::MAX).expect("rows"),
        held3
    );
    pit3.play(20);
    let report = as3
        .sync_once(&pit3.store, &mut Outbox::new(id3.clone()))
        .expect("pit-3 delivers");
    assert!(
        report.refused.is_empty() && report.delivered > 0,
        "{report:?}"
    );
    assert_same_rows(&mut admin, &id3, &pit3.store);
    // The same role, key or name cannot be enrolled twice for different workstations.
    let err = admin
        .enrol(&id3, &pit4.key.public(), "pw_sky_pit_3", None)
        .expect_err("another key");
    assert!(err.to_string().contains("enrolled already"), "{err}");
    let err = admin
        .enrol(
            &"sky/pit-5".parse().expect("id"),
            &pit4.key.public(),
            "pw_sky_pit_4",
            None,
        )
        .expect_err("another's role");
    assert!(
        err.to_string().contains("enrolled already as sky/pit-4"),
        "{err}"
    );
}

#[test]
fn a_key_holder_cannot_roll_back_what_the_witness_reads() {
    let Some(pg) = PgServer::start("a_key_holder_cannot_roll_back") else {
        return;
    };
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("pit.db");
    let older = dir.path().join("older.db");
    let mut admin = init(&pg.url);
    let mut pit = Pit::new(&path, &["BAC-1"], 8);
    let id: Identity = "sky/pit-3".parse().expect("id");
    let mut central = enrol(&mut admin, &pg, &id, &pit.key);
    let mut outbox = Outbox::new(id.clone());
    pit.play(40);
    central.sync_once(&pit.store, &mut outbox).expect("sync");
    copy_record(&path, &older);
    pit.play(60);
    central.sync_once(&pit.store, &mut outbox).expect("sync");
    let record = pit.store.record_id().unwrap().unwrap();
    let latest = pit
        .store
        .latest_checkpoint()
        .unwrap()
        .expect("a checkpoint");

    // The key holder puts the older copy back, and tries to bring the server's witness rows
    // back to it with the workstation's own credentials: every way is refused.
    let old = Store::open_read_only(&older).expect("older");
    let old_heads: Vec<(String, i64)> = CHAINS
        .iter()
        .map(|c| (c.table.to_owned(), old.chain_length(c).expect("len")))
        .collect();
    let url = pg.url_as("pw_sky_pit_3");
    for (table, length) in &old_heads {
        let sql = format!(
            "UPDATE chain_heads SET position = {length} WHERE site = 'sky' \
             AND workstation = 'pit-3' AND chain = '{table}'"
        );
        let (ok, said) = psql_try(&url, &sql);
        assert!(!ok && said.contains("permission denied"), "{said}");
    }
    for sql in [
        "DELETE FROM chain_heads",
        "INSERT INTO chain_heads VALUES ('sky', 'pit-3', 'events', 1, '\\x00')",
        "DELETE FROM chain_rows WHERE position > 1",
        "UPDATE workstations SET record_id = NULL",
        "TRUNCATE chain_rows",
    ] {
        let (ok, said) = psql_try(&url, sql);
        assert!(!ok && said.contains("permission denied"), "{sql}: {said}");
    }
    let (ok, said) = psql_try(
        &url,
        &format!(
            "SELECT pitwatch_claim_record('sky', 'pit-3', '{}')",
            "0".repeat(32)
        ),
    );
    assert!(
        !ok && said.contains("a workstation replicates one record"),
        "{said}"
    );
    // Even the superuser's UPDATE only moves a head forward.
    let (ok, said) = psql_try(&pg.url, "UPDATE chain_heads SET position = 1");
    assert!(!ok && said.contains("only move forward"), "{said}");

    // So `verify --witness postgres://…` of the older copy fails: the server is still the witness.
    assert_eq!(central.witness(&record).expect("witness"), Some(latest));
    let problems = central.witness_problems(&old).expect("witness");
    assert!(
        problems
            .iter()
            .any(|p| p.contains("the record has fewer: it was cut short or an older copy")),
        "{problems:?}"
    );
    assert!(central.witness_problems(&pit.store).expect("w").is_empty());
}

#[test]
fn checkpoints_not_signed_by_the_enrolled_key_are_refused_and_reported() {
    let Some(pg) = PgServer::start("checkpoints_not_signed_by_the_enrolled_key") else {
        return;
    };
    let dir = tempfile::tempdir().expect("dir");
    let mut admin = init(&pg.url);
    // pit-3 is enrolled with its key; what arrives under its name is signed with another (as
    // pit-4's rows and checkpoint, or a record re-signed with a stolen key, would be).
    let mut pit = Pit::new(&dir.path().join("pit.db"), &["BAC-1"], 12);
    let id: Identity = "sky/pit-3".parse().expect("id");
    let enrolled = SigningKey::generate();
    let mut central = enrol(&mut admin, &pg, &id, &enrolled);
    pit.play(40);
    let report = central
        .sync_once(&pit.store, &mut Outbox::new(id.clone()))
        .expect("delivered: PostgreSQL cannot check Ed25519");
    assert!(report.refused.is_empty(), "{report:?}");

    // Every reader checks the signature against the enrolled key, and refuses.
    let listed = admin.workstations().expect("list");
    let problem = listed[0].checkpoint_problem.as_deref().expect("refused");
    assert!(
        problem.contains("not by the key enrolled for its workstation"),
        "{problem}"
    );
    let problems = central.witness_problems(&pit.store).expect("witness");
    assert!(
        problems
            .iter()
            .any(|p| p.contains("latest checkpoint of sky/pit-3 is refused")),
        "{problems:?}"
    );
    let mut reader = Central::connect_read_only(&pg.url).expect("reader");
    let mirror = dir.path().join("pit-3.mirror.db");
    let err = reader.refresh_mirror(&id, &mirror).expect_err("refused");
    assert!(
        err.to_string()
            .contains("not by the key enrolled for its workstation"),
        "{err}"
    );
    assert_eq!(
        admin.enrolled_key(&id).expect("key"),
        Some(enrolled.public())
    );

    // A workstation enrolled with the key that signs its record is taken by every reader.
    let six: Identity = "sky/pit-6".parse().expect("id");
    let mut fresh = Pit::new(&dir.path().join("pit6.db"), &["BAC-1"], 14);
    let mut as6 = enrol(&mut admin, &pg, &six, &fresh.key);
    fresh.play(30);
    as6.sync_once(&fresh.store, &mut Outbox::new(six.clone()))
        .expect("sync");
    let latest = admin
        .latest_checkpoint(&six)
        .expect("latest")
        .expect("a checkpoint");
    assert_eq!(latest.problem, None, "signed by the enrolled key");
    reader
        .refresh_mirror(&six, &dir.path().join("six.db"))
        .expect("a well-signed copy is taken");
}

#[test]
fn a_server_asking_for_a_cleartext_or_md5_password_never_receives_it() {
    use std::io::{Read, Write};
    for (code, extra) in [(3u32, &[][..]), (5u32, &[1u8, 2, 3, 4][..])] {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let impostor = std::thread::spawn(move || {
            let (mut socket, _) = listener.accept().expect("accept");
            socket
                .set_read_timeout(Some(std::time::Duration::from_secs(2)))
                .expect("timeout");
            let mut len = [0u8; 4];
            socket.read_exact(&mut len).expect("startup length");
            let mut startup = vec![0u8; u32::from_be_bytes(len) as usize - 4];
            socket.read_exact(&mut startup).expect("startup");
            let mut request = vec![b'R'];
            request.extend_from_slice(&(8 + extra.len() as u32).to_be_bytes());
            request.extend_from_slice(&code.to_be_bytes());
            request.extend_from_slice(extra);
            socket.write_all(&request).expect("ask for a password");
            // Whatever comes back before the client hangs up.
            let mut answer = Vec::new();
            let _ = socket.read_to_end(&mut answer);
            answer
        });
        let url =
            format!("postgres://pitwatch:hunter2-secret@127.0.0.1:{port}/central?sslmode=disable");
        let err = match Central::connect(&url) {
            Ok(_) => panic!("connected to an impostor"),
            Err(e) => e.to_string(),
        };
        let answer = impostor.join().expect("impostor");
        let what = if code == 3 {
            "a cleartext password"
        } else {
            "an MD5 password"
        };
        assert!(err.contains(&format!("asked for {what}: refused")), "{err}");
        assert!(!err.contains("hunter2"), "{err}");
        assert!(
            !answer.contains(&b'p') && !answer.windows(7).any(|w| w == b"hunter2"),
            "the impostor received {answer:?}"
        );
    }
}

#[test]
fn tls_with_the_right_ca_works_and_a_wrong_ca_or_host_or_a_weak_password_request_is_refused() {
    let Some(pg) = PgServer::start_tls("tls") else {
        return;
    };
    let password = pg.password.clone().expect("a password");
    let with_password = |url: &str| url.replacen("pitwatch@", &format!("pitwatch:{password}@"), 1);
    // The right CA, the certificate's host name: connected over TLS, SCRAM.
    let url = with_password(&pg.url);
    let mut central = Central::connect(&url).expect("TLS with the right CA");
    assert_eq!(central.init().expect("init"), vec![1, 2]);
    let dir = tempfile::tempdir().expect("dir");
    let mut pit = Pit::new(&dir.path().join("pit.db"), &["BAC-1"], 21);
    let id: Identity = "sky/pit-3".parse().expect("id");
    central
        .enrol(&id, &pit.key.public(), "pw_sky_pit_3", Some("pit-3-secret"))
        .expect("enrol");
    pit.play(30);
    let as3 = pg
        .url
        .replacen("pitwatch@", "pw_sky_pit_3:pit-3-secret@", 1);
    let mut link = Central::connect(&as3).expect("the workstation over TLS");
    let report = link
        .sync_once(&pit.store, &mut Outbox::new(id.clone()))
        .expect("sync over TLS");
    assert!(
        report.delivered > 0 && report.refused.is_empty(),
        "{report:?}"
    );
    let (_, said) = psql_try(
        &pg.socket_url(),
        "SELECT count(*) FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid) \
         WHERE s.ssl AND a.usename = 'pw_sky_pit_3'",
    );
    assert_eq!(said.trim(), "1", "the workstation's session is TLS");

    // A CA that did not sign the server's certificate.
    let other_ca = format!("{}/other-ca.crt", pg.dir);
    let wrong_ca = url.replace(&format!("{}/ca.crt", pg.dir), &other_ca);
    let refused = |url: &str| match Central::connect(url) {
        Ok(_) => panic!("connected through {}", pitwatch_sync::redact(url)),
        Err(e) => e.to_string(),
    };
    let wrong_ca_said = refused(&wrong_ca);
    assert!(wrong_ca_said.contains("UnknownIssuer"), "{wrong_ca_said}");
    // The right CA, but a host the certificate does not name.
    let wrong_host = url.replacen("@localhost:", "@127.0.0.1:", 1);
    let wrong_host_said = refused(&wrong_host);
    assert!(
        wrong_host_said.contains("certificate not valid for name \"127.0.0.1\""),
        "{wrong_host_said}"
    );
    // No CA at all: refused before connecting.
    let no_ca = url.replace(&format!("&sslrootcert={}/ca.crt", pg.dir), "");
    let no_ca_said = refused(&no_ca);
    assert!(no_ca_said.contains("sslrootcert=PATH"), "{no_ca_said}");
    // Plaintext to a server that takes TLS only.
    let plain = pg.url.replacen("sslmode=verify-full", "sslmode=disable", 1);
    let plain = with_password(&plain.replacen("@localhost:", "@127.0.0.1:", 1));
    let plain_said = refused(&plain);
    for said in [&wrong_ca_said, &wrong_host_said, &no_ca_said, &plain_said] {
        assert!(!said.contains(&password), "{said}");
    }

    // A server set to ask this role for a cleartext (`password`) or MD5 password over TLS: the
    // client refuses before answering.
    pg.psql(
        "CREATE ROLE weak LOGIN PASSWORD 'weak-secret'; \
         SET password_encryption = 'md5'; CREATE ROLE weakmd5 LOGIN PASSWORD 'weak-secret'",
    );
    let hba = format!("{}/data/pg_hba.conf", pg.dir);
    let rules = std::fs::read_to_string(&hba).expect("hba");
    std::fs::write(
        &hba,
        format!(
            "hostssl all weak 127.0.0.1/32 password\nhostssl all weakmd5 127.0.0.1/32 md5\n{rules}"
        ),
    )
    .expect("hba");
    pg.psql("SELECT pg_reload_conf()");
    std::thread::sleep(std::time::Duration::from_millis(300));
    for (role, what) in [
        ("weak", "a cleartext password"),
        ("weakmd5", "an MD5 password"),
    ] {
        let weak = pg
            .url
            .replacen("pitwatch@", &format!("{role}:weak-secret@"), 1);
        let err = Central::connect(&weak).err().expect("refused").to_string();
        assert!(
            err.contains(&format!("asked for {what}: refused")),
            "{role}: {err}"
        );
        assert!(!err.contains("weak-secret"), "{err}");
    }
}

#[test]
fn a_refused_workstation_is_told_why_at_once_by_the_replicator() {
    let Some(pg) = PgServer::start("a_refused_workstation_is_told_why") else {
        return;
    };
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("pit.db");
    let mut admin = init(&pg.url);
    let mut pit = Pit::new(&path, &["BAC-1"], 15);
    pit.play(20);
    // pit-4's role is enrolled; it ships as pit-3, which is not.
    let four: Identity = "sky/pit-4".parse().expect("id");
    drop(enrol(&mut admin, &pg, &four, &pit.key));
    let (tx, rx) = std::sync::mpsc::channel();
    let replicator = pitwatch_sync::Replicator::spawn(
        pg.url_as(&pitwatch_sync::default_role(&four)),
        path.clone(),
        Outbox::new("sky/pit-3".parse().expect("id")),
        std::time::Duration::from_millis(50),
        move |status| {
            let _ = tx.send(status.clone());
        },
    )
    .expect("spawn");
    let status = rx
        .recv_timeout(std::time::Duration::from_secs(20))
        .expect("a status");
    replicator.stop();
    let refused = &status.report.as_ref().expect("a report").refused;
    assert!(status.connected, "{status:?}");
    assert!(
        refused.len() == 1 && refused[0].contains("sky/pit-3 is not enrolled"),
        "{status:?}"
    );
}

#[test]
fn a_central_database_of_the_first_schema_is_upgraded_by_init() {
    let Some(pg) = PgServer::start("a_central_database_of_the_first_schema") else {
        return;
    };
    let dir = tempfile::tempdir().expect("dir");
    let mut pit = Pit::new(&dir.path().join("pit.db"), &["BAC-1"], 16);
    pit.play(20);
    let record = pit.store.record_id().unwrap().unwrap();
    // The schema as the first Pitwatch left it, with a workstation it registered.
    pg.psql(&format!(
        "CREATE TABLE central_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, \
         applied_at TIMESTAMPTZ NOT NULL DEFAULT now()); {} \
         INSERT INTO central_migrations (version, name) VALUES (1, 'central'); \
         INSERT INTO workstations (site, workstation, record_id) VALUES ('sky', 'pit', '{record}');",
        pitwatch_sync::MIGRATIONS[0].2
    ));
    let mut admin = Central::connect(&pg.url).expect("connect");
    assert_eq!(admin.init().expect("upgrade"), vec![2]);
    // Registered but not enrolled: refused until the administrator enrols it; its record id is
    // kept, so it goes on with the same record.
    let id: Identity = "sky/pit".parse().expect("id");
    let err = admin
        .sync_once(&pit.store, &mut Outbox::new(id.clone()))
        .expect_err("not enrolled");
    assert!(err.to_string().contains("is not enrolled"), "{err}");
    let mut central = enrol(&mut admin, &pg, &id, &pit.key);
    let report = central
        .sync_once(&pit.store, &mut Outbox::new(id.clone()))
        .expect("sync");
    assert!(
        report.delivered > 0 && report.refused.is_empty(),
        "{report:?}"
    );
    assert_eq!(admin.record_of(&id).expect("record"), Some(record));
    assert_eq!(
        admin
            .latest_checkpoint(&id)
            .expect("latest")
            .expect("one")
            .problem,
        None
    );
}
