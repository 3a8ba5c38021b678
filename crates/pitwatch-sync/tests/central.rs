//! The central record against a real PostgreSQL (Debian's, started in a temporary folder on a
//! free port by `scripts/pg-test-server.sh` and removed afterwards): workstations recording
//! simulated tables through the real recorder, replicating through outages, a server restored
//! from an older dump, rows altered after replication, and the central copy read back.
//!
//! Skipped, saying so, only when PostgreSQL is not installed.

mod common;

use common::*;
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
            let local =
                pitwatch_recording::replay::rebuild(&pit.store, table).expect("local replay");
            let remote = pitwatch_recording::replay::rebuild(&copy, table).expect("central replay");
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
        let local = pitwatch_recording::replay::rebuild(&pit.store, table).expect("local");
        let mirrored = pitwatch_recording::replay::rebuild(&copy, table).expect("mirror");
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
