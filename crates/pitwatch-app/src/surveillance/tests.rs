//! The surveillance view against a real PostgreSQL (Debian's, started in a temporary folder by
//! `scripts/pg-test-server.sh`): two workstations recording simulated shoes through the real
//! recorder, with accounts and incidents, replicated; the view lists both, filters their
//! incidents, replays from the central copy exactly as the workstation does, picks up new rows,
//! refuses a changed central copy, and lets each role read only what it may.
//!
//! Skipped, saying so, only when PostgreSQL is not installed.

use std::path::Path;

use pitwatch_api::dto::{ErrorCode, IncidentQuery, Severity};
use pitwatch_games::book_text;
use pitwatch_model::Timestamp;
use pitwatch_protocols::ProtocolConfig;
use pitwatch_recording::recorder::TableRecorder;
use pitwatch_sim::{Action, Planner};
use pitwatch_store::{NewIncident, Role, Sealing, SigningKey, Store};
use pitwatch_sync::test_server::PgServer;
use pitwatch_sync::{Central, Outbox};

use super::*;
use crate::accounts;

const STRONG: &str = "plum kettle orbit 47 lantern";

/// A workstation recording simulated Angel Eye shoes, with its accounts: `root` (admin), `ana`
/// (supervisor) and `sam` (surveillance).
struct Pit {
    store: Store,
    key: SigningKey,
    tables: Vec<(TableRecorder, Planner, Vec<Action>)>,
    now_ms: i64,
    outbox: Outbox,
}

impl Pit {
    fn new(path: &Path, id: &str, names: &[&str], seed: u64) -> Pit {
        let key = SigningKey::generate();
        let mut store = Store::open(path, &Sealing::key(key.clone())).expect("open");
        let now_ms = 1_796_000_000_000;
        let now = Timestamp::from_unix_millis(now_ms).expect("time");
        store.set_meta("site", "Sky City", now).expect("site");
        let root =
            accounts::create_first_admin(&mut store, "root", STRONG, "ws", now).expect("admin");
        for (name, role) in [("ana", Role::Supervisor), ("sam", Role::Surveillance)] {
            accounts::add_user(&mut store, &root, name, role, STRONG, now).expect("user");
        }
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
            outbox: Outbox::new(id.parse().expect("id")),
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

    /// An incident at `table` (as an engine's irregularity opens one), of `severity`.
    fn incident(&mut self, table: &str, severity: &str) -> i64 {
        let now = Timestamp::from_unix_millis(self.now_ms).expect("time");
        let id = self.store.table_id(table).expect("id").expect("table");
        let mut batch = self.store.batch(now).expect("batch");
        let incident = batch
            .open_incident(
                &NewIncident {
                    table: id,
                    code: "BURN_COUNT_MISMATCH".into(),
                    severity: severity.into(),
                    rule: "7.7(b)".into(),
                    shoe: Some(1),
                    round: None,
                    seq: 4,
                    evidence: vec![4],
                    message: "two cards burnt, three due".into(),
                },
                now,
            )
            .expect("incident");
        batch.commit().expect("commit");
        incident.0
    }

    /// Enrols the workstation with its key (again: the same key and role change nothing) and
    /// ships its record, through the administrator's connection `central`.
    fn sync(&mut self, central: &mut Central) {
        let id = self.outbox.id.clone();
        central
            .enrol(
                &id,
                &self.key.public(),
                &pitwatch_sync::default_role(&id),
                None,
            )
            .expect("enrol");
        let report = central
            .sync_once(&self.store, &mut self.outbox)
            .expect("sync");
        assert!(report.refused.is_empty(), "{report:?}");
    }
}

fn query() -> IncidentQuery {
    IncidentQuery::default()
}

#[test]
fn the_surveillance_view_shows_both_workstations_and_replays_from_the_central_copy() {
    let Some(pg) = PgServer::start("the_surveillance_view_shows_both") else {
        return;
    };
    let dir = tempfile::tempdir().expect("dir");
    let mut central = Central::connect(&pg.url).expect("connect");
    central.init().expect("init");
    let mut north = Pit::new(
        &dir.path().join("north.db"),
        "sky/north",
        &["BAC-1", "BAC-2"],
        1,
    );
    let mut south = Pit::new(&dir.path().join("south.db"), "sky/south", &["MINI-1"], 7);
    north.play(150);
    south.play(100);
    let north_high = north.incident("BAC-1", "high");
    north.incident("BAC-2", "low");
    south.incident("MINI-1", "high");
    north.sync(&mut central);
    south.sync(&mut central);

    let view = Surveillance::open(&pg.url, &dir.path().join("mirrors"), "surveillance-1")
        .expect("the view opens");
    assert!(!view.describe().is_empty());
    // Nobody signed in: nothing is shown.
    let err = view.pits().expect_err("signed out");
    assert_eq!(err.code, ErrorCode::Unauthorised);
    let err = view.login("sky/north", "sam", "wrong").expect_err("wrong");
    assert_eq!(err.code, ErrorCode::Unauthorised);
    // A workstation the central database never heard of is not found (not a conflict).
    let err = view
        .login("sky/east", "sam", STRONG)
        .expect_err("no such workstation");
    assert_eq!(err.code, ErrorCode::NotFound, "{err}");
    assert!(err.message.contains("sky/east"), "{err}");
    let session = view.login("sky/north", "sam", STRONG).expect("sam");
    assert_eq!(session.role, "surveillance");

    // Both workstations, their tables as their records stand.
    let pits = view.pits().expect("pits");
    assert_eq!(
        pits.iter()
            .map(|p| p.workstation.as_str())
            .collect::<Vec<_>>(),
        ["sky/north", "sky/south"]
    );
    for pit in &pits {
        assert_eq!(pit.problem, None, "{pit:?}");
        assert_eq!(pit.site_name.as_deref(), Some("Sky City"));
        assert!(pit.checkpoint > 0);
        assert_eq!(pit.rows_behind, 0);
    }
    let names: Vec<&str> = pits[0].tables.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["BAC-1", "BAC-2"]);
    assert_eq!(pits[0].open_incidents, 2);
    assert_eq!(pits[1].open_incidents, 1);
    let bac1 = &pits[0].tables[0];
    assert!(bac1.shoe >= 1 && bac1.rounds > 0, "{bac1:?}");
    assert_eq!(bac1.open_incidents, 1);
    let last = bac1.last_result.as_ref().expect("a last result");
    assert_eq!((last.shoe, last.round), (bac1.shoe, bac1.rounds));
    assert!(bac1.last_event_at.is_some());

    // Incidents of every workstation, with the workstation's filters.
    let all = view.incidents(None, &query()).expect("incidents");
    assert_eq!(all.len(), 2);
    assert_eq!((all[0].page.total, all[1].page.total), (2, 1));
    let high = view
        .incidents(
            None,
            &IncidentQuery {
                severity: Some(Severity::High),
                ..query()
            },
        )
        .expect("high");
    assert_eq!((high[0].page.total, high[1].page.total), (1, 1));
    assert_eq!(high[0].page.incidents[0].id, north_high);
    let bac2 = view
        .incidents(
            Some("sky/north"),
            &IncidentQuery {
                table: Some("BAC-2".into()),
                ..query()
            },
        )
        .expect("one table");
    assert_eq!(bac2.len(), 1);
    assert_eq!(bac2[0].page.incidents[0].table, "BAC-2");

    // One incident: its evidence and history, and where to work it.
    let detail = view.incident("sky/north", north_high).expect("detail");
    assert_eq!(detail.detail.incident.id, north_high);
    assert_eq!(detail.detail.rule_book, "nz-baccarat");
    assert!(!detail.detail.rule_texts.is_empty());
    assert!(detail.work_it_at.contains("north"), "{}", detail.work_it_at);
    assert!(detail.work_it_at.contains("read-only"));

    // Replay from the central copy equals replay on the workstation, step by step.
    for (pit, ws, table) in [
        (&north, "sky/north", "BAC-1"),
        (&north, "sky/north", "BAC-2"),
        (&south, "sky/south", "MINI-1"),
    ] {
        let row = pit
            .store
            .tables()
            .expect("tables")
            .into_iter()
            .find(|t| t.name == table)
            .expect("table");
        let local = shoe_replay(
            &pit.store,
            table,
            None,
            |_| Ok((true, String::new())),
            || tile_of(&row),
        )
        .expect("local replay");
        let central = view.replay(ws, table, None).expect("central replay");
        assert!(!local.steps.is_empty());
        assert!(central.verified, "{}", central.verify_detail);
        assert!(
            central.steps == local.steps
                && central.shoe == local.shoe
                && central.divergences == local.divergences
                && central.rule_book == local.rule_book
                && central.shuffle == local.shuffle,
            "{ws} {table}: the replay from the central copy differs"
        );
    }

    // The replay picker lists the shoes as the workstation does, rounds counted from the
    // results the replicated events declare.
    let central_shoes = view.shoes("sky/north", "BAC-1", None, None).expect("shoes");
    let local_shoes =
        crate::replay::shoe_page(&north.store, "BAC-1", None, None, false).expect("local shoes");
    assert!(!central_shoes.shoes.is_empty());
    assert_eq!(central_shoes, local_shoes);

    // A refresh picks up what was replicated since.
    let before = view.pits().expect("pits")[1].clone();
    south.play(100);
    south.incident("MINI-1", "medium");
    south.sync(&mut central);
    let after = view.pits().expect("pits")[1].clone();
    assert!(after.checkpoint > before.checkpoint);
    assert_eq!(after.open_incidents, 2);
    assert!(
        (after.tables[0].shoe, after.tables[0].rounds)
            > (before.tables[0].shoe, before.tables[0].rounds)
    );

    // A row changed in the central copy (by the server's superuser, past the mirror) is refused
    // by the mirror's chain check: the pit says so, and reads of it are refused.
    north.play(40);
    north.sync(&mut central);
    let held = Store::open_read_only(mirror_path(&dir.path().join("mirrors"), &north.outbox.id))
        .expect("mirror")
        .chain_length(&pitwatch_store::chain::EVENTS)
        .expect("len");
    pg.psql(&format!(
        "ALTER TABLE chain_rows DISABLE TRIGGER chain_rows_append_only; \
         UPDATE chain_rows SET content = content || '\\x00'::bytea \
         WHERE site = 'sky' AND workstation = 'north' AND chain = 'events' \
         AND position = {}; \
         ALTER TABLE chain_rows ENABLE TRIGGER chain_rows_append_only;",
        held + 1
    ));
    let pits = view.pits().expect("pits");
    let problem = pits[0].problem.as_deref().expect("a problem");
    assert!(
        problem.contains("refused") && problem.contains("does not match its hash"),
        "{problem}"
    );
    assert_eq!(pits[0].tables.len(), 2, "the copy as last read is shown");
    assert_eq!(pits[1].problem, None, "the other workstation reads on");
    let err = view
        .incidents(Some("sky/north"), &query())
        .expect_err("refused");
    assert_eq!(err.code, ErrorCode::Conflict);
    assert!(err.message.contains("refused"), "{}", err.message);
}

#[test]
fn every_surveillance_read_for_every_role() {
    let Some(pg) = PgServer::start("every_surveillance_read_for_every_role") else {
        return;
    };
    let dir = tempfile::tempdir().expect("dir");
    let mut central = Central::connect(&pg.url).expect("connect");
    central.init().expect("init");
    let mut north = Pit::new(&dir.path().join("north.db"), "sky/north", &["BAC-1"], 3);
    let mut south = Pit::new(&dir.path().join("south.db"), "sky/south", &["MINI-1"], 4);
    north.play(60);
    south.play(60);
    let ids = [
        north.incident("BAC-1", "high"),
        south.incident("MINI-1", "high"),
    ];
    north.sync(&mut central);
    south.sync(&mut central);
    let view = Surveillance::open(&pg.url, &dir.path().join("mirrors"), "surveillance-1")
        .expect("the view opens");
    let targets = [
        ("sky/north", "BAC-1", ids[0]),
        ("sky/south", "MINI-1", ids[1]),
    ];
    // Runs `read` on workstation `target`; for the lists, whether `target` is in them.
    let run = |read: Watch, (ws, table, id): (&str, &str, i64)| -> Result<(), ErrorCode> {
        let listed = |names: Vec<String>| {
            if names.iter().any(|n| n == ws) {
                Ok(())
            } else {
                Err(ErrorCode::Forbidden)
            }
        };
        match read {
            Watch::Pits => view
                .pits()
                .map_err(|e| e.code)
                .and_then(|p| listed(p.into_iter().map(|p| p.workstation).collect())),
            Watch::Incidents => {
                let every = view
                    .incidents(None, &query())
                    .map_err(|e| e.code)
                    .and_then(|p| listed(p.into_iter().map(|p| p.workstation).collect()));
                let one = view
                    .incidents(Some(ws), &query())
                    .map(|_| ())
                    .map_err(|e| e.code);
                assert_eq!(every, one, "{ws}: the list and the one workstation agree");
                one
            }
            Watch::Incident => view.incident(ws, id).map(|_| ()).map_err(|e| e.code),
            Watch::Replay => view.replay(ws, table, None).map(|_| ()).map_err(|e| e.code),
        }
    };
    // Nobody signed in: every read is refused as unauthorised.
    for read in Watch::ALL {
        for target in targets {
            assert_eq!(
                run(read, target),
                Err(ErrorCode::Unauthorised),
                "{read:?} signed out"
            );
        }
    }
    // Each role, signed in with its account at the north workstation.
    for (user, role) in [
        ("root", Role::Admin),
        ("ana", Role::Supervisor),
        ("sam", Role::Surveillance),
    ] {
        let session = view.login("sky/north", user, STRONG).expect("login");
        assert_eq!(session.role, role.as_str());
        let home: Identity = "sky/north".parse().expect("id");
        for read in Watch::ALL {
            for target in targets {
                let may = read.allowed(role, &home, &target.0.parse().expect("id"));
                let got = run(read, target);
                if may {
                    assert_eq!(got, Ok(()), "{user} {read:?} {}", target.0);
                } else {
                    assert_eq!(
                        got,
                        Err(ErrorCode::Forbidden),
                        "{user} {read:?} {}",
                        target.0
                    );
                }
            }
        }
        // The table of the issue: a supervisor their own workstation only.
        assert_eq!(
            Watch::ALL
                .iter()
                .all(|r| r.allowed(role, &home, &"sky/south".parse().expect("id"))),
            role != Role::Supervisor
        );
        view.logout();
        assert_eq!(view.viewer(), None);
    }

    // Failed sign-ins lock the name after MAX_FAILURES, even with the right password then.
    for _ in 0..MAX_FAILURES {
        assert_eq!(
            view.login("sky/south", "sam", "wrong")
                .expect_err("wrong")
                .code,
            ErrorCode::Unauthorised
        );
    }
    let err = view.login("sky/south", "sam", STRONG).expect_err("locked");
    assert!(
        err.message
            .starts_with("too many failed sign-ins for \"sam\": locked for ")
            && (err.message.ends_with(": locked for 5 minutes more")
                || err.message.contains(": locked for 4 minutes "))
            && err.message.ends_with(" more"),
        "{}",
        err.message
    );
    // Another workstation's account of the same name is its own.
    view.login("sky/north", "sam", STRONG).expect("north's sam");
    assert!(view
        .login("nowhere", "sam", STRONG)
        .is_err_and(|e| e.code == ErrorCode::InvalidInput));
}

#[test]
fn a_locked_sign_in_says_how_long_is_left_as_the_main_login_does() {
    let at = |millis: u64| locked_out("sam", Duration::from_millis(millis)).message;
    assert_eq!(
        at(300_000),
        "too many failed sign-ins for \"sam\": locked for 5 minutes more"
    );
    assert_eq!(
        at(298_500),
        "too many failed sign-ins for \"sam\": locked for 4 minutes 59 seconds more"
    );
    assert_eq!(
        at(1),
        "too many failed sign-ins for \"sam\": locked for 1 second more"
    );
    assert_eq!(
        locked_out("sam", Duration::ZERO).code,
        ErrorCode::Unauthorised
    );
}

#[test]
fn the_central_url_comes_from_a_variable_or_an_owner_only_file_never_as_given() {
    let err = central_url("postgres://ana:secret@db/central").expect_err("a plain URL");
    assert_eq!(err.code, ErrorCode::InvalidInput);
    assert!(!err.message.contains("secret"), "{}", err.message);
    let err = central_url("env:PITWATCH_TEST_NO_SUCH_VARIABLE").expect_err("unset");
    assert!(err.message.contains("is not set"), "{}", err.message);
    let dir = tempfile::tempdir().expect("dir");
    let file = dir.path().join("central.url");
    std::fs::write(&file, "postgres://ana:secret@db/central\n").expect("write");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).expect("chmod");
    let spec = format!("file:{}", file.display());
    let err = central_url(&spec).expect_err("readable by others");
    assert!(err.message.contains("chmod 600"), "{}", err.message);
    assert!(!err.message.contains("secret"));
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    assert_eq!(
        central_url(&spec).expect("owner-only"),
        "postgres://ana:secret@db/central"
    );
}

#[test]
fn a_checkpoint_not_signed_by_the_enrolled_key_is_refused_on_the_surveillance_view() {
    let Some(pg) = PgServer::start("a_checkpoint_not_signed_by_the_enrolled_key") else {
        return;
    };
    let dir = tempfile::tempdir().expect("dir");
    let mut central = Central::connect(&pg.url).expect("connect");
    central.init().expect("init");
    let mut north = Pit::new(&dir.path().join("north.db"), "sky/north", &["BAC-1"], 5);
    let mut rogue = Pit::new(&dir.path().join("rogue.db"), "sky/rogue", &["BAC-2"], 6);
    north.play(40);
    rogue.play(40);
    north.sync(&mut central);
    // sky/rogue is enrolled with one key, and what arrives under its name is signed with
    // another (delivered through the administrator's connection: no workstation role could).
    let id = rogue.outbox.id.clone();
    central
        .enrol(
            &id,
            &SigningKey::generate().public(),
            &pitwatch_sync::default_role(&id),
            None,
        )
        .expect("enrol");
    central
        .sync_once(&rogue.store, &mut rogue.outbox)
        .expect("stored: PostgreSQL cannot check Ed25519");

    let view = Surveillance::open(&pg.url, &dir.path().join("mirrors"), "surveillance-1")
        .expect("the view opens");
    view.login("sky/north", "sam", STRONG).expect("sam");
    let pits = view.pits().expect("pits");
    assert_eq!(pits[0].problem, None, "{:?}", pits[0]);
    let problem = pits[1].problem.as_deref().expect("refused");
    assert!(
        problem.contains("latest checkpoint REFUSED")
            && problem.contains("not by the key enrolled for its workstation"),
        "{problem}"
    );
    assert_eq!(
        pits[1].checkpoint, 0,
        "nothing of it is taken: {:?}",
        pits[1]
    );
    let err = view
        .replay("sky/rogue", "BAC-2", None)
        .expect_err("refused");
    assert!(err.message.contains("not by the key enrolled"), "{err}");
}
