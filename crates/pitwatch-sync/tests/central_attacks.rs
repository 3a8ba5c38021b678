//! The central server as a witness of its own (issue 25), against a real PostgreSQL started by
//! `scripts/pg-test-server.sh`: another workstation's credentials, a key holder rolling back the
//! witness, checkpoints not signed by the enrolled key, a server asking for a cleartext password,
//! TLS against a throwaway CA, a refused workstation told why, and an old schema upgraded.
//!
//! Skipped, saying so, only when PostgreSQL is not installed.

mod common;

use common::*;

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
