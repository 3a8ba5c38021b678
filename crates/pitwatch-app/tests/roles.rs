//! The application layer's rules, through its public use cases on a real record: every command
//! for every role (allowed, or `forbidden` and audited), the first administrator (once, atomically),
//! logins (failures audited, throttled, locked; the same work for unknown names) and account
//! changes by administrators only.

use std::sync::{Arc, Barrier};

use pitwatch_api::dto::ResolutionKind::{self, Other};
use pitwatch_api::dto::{AccessReviewRequest, LogReviewRequest};
use pitwatch_api::{ApiError, ErrorCode};
use pitwatch_app::access::{self, Command, Principal, FORBIDDEN};
use pitwatch_app::accounts::Policy;
use pitwatch_app::{accounts, handover, incidents, reports, reviews};
use pitwatch_model::Timestamp;
use pitwatch_recording::record::Installation;
use pitwatch_store::{NewIncident, Role, Store, LOGIN_FAILED};

const STRONG: &str = "plum kettle orbit 47 lantern";

fn t(seconds: i64) -> Timestamp {
    Timestamp::from_unix_millis(1_780_000_000_000 + seconds * 1000).unwrap()
}

fn who(user: &str, role: Role) -> Principal {
    Principal {
        user: user.into(),
        role,
        workstation: "pit-ws-3".into(),
    }
}

/// A record with a table, its first admin `root`, a supervisor, a surveillance officer and a
/// supervisor `target` for account changes.
fn record() -> Store {
    let mut store = Store::open_in_memory().unwrap();
    store
        .ensure_table("BAC-1", "baccarat", "nz-baccarat", t(0))
        .unwrap();
    accounts::create_first_admin(&mut store, "root", STRONG, "pit-ws-3", t(0)).unwrap();
    let root = who("root", Role::Admin);
    for (name, role) in [
        ("ana", Role::Supervisor),
        ("sam", Role::Surveillance),
        ("target", Role::Supervisor),
        ("ivy", Role::Inspector),
    ] {
        accounts::add_user(&mut store, &root, name, role, STRONG, t(1)).unwrap();
    }
    store
}

fn incident(store: &mut Store) -> i64 {
    let table = store.table_id("BAC-1").unwrap().unwrap();
    let mut batch = store.batch(t(2)).unwrap();
    let id = batch
        .open_incident(
            &NewIncident {
                table,
                code: "BURN_COUNT_MISMATCH".into(),
                severity: "high".into(),
                rule: "7.7(b)".into(),
                shoe: Some(1),
                round: None,
                seq: 4,
                evidence: vec![4],
                message: "two cards burnt, three due".into(),
            },
            t(2),
        )
        .unwrap();
    batch.commit().unwrap();
    id.0
}

/// A supervisor other than the one under test, for the steps before the one tested.
fn who_else() -> Principal {
    who("target", Role::Supervisor)
}

/// The handover of `shift` to `target`, everyone's password [`STRONG`].
fn handover(shift: &pitwatch_recording::report::Shift) -> handover::Handover<'_> {
    handover::Handover {
        shift,
        note: "quiet shift",
        password: STRONG,
        incoming: "target",
        incoming_password: STRONG,
    }
}

/// Runs `command` as `who` through the use case the front ends call.
fn run(store: &mut Store, who: &Principal, command: Command) -> Result<(), ApiError> {
    let now = t(10);
    match command {
        Command::Acknowledge => {
            let id = incident(store);
            incidents::acknowledge(store, who, id, now)
        }
        Command::AddNote => {
            let id = incident(store);
            incidents::add_note(store, who, id, "seen on camera", now)
        }
        Command::Resolve => {
            let id = incident(store);
            incidents::acknowledge(store, &who_else(), id, now)?;
            incidents::resolve(store, who, id, ResolutionKind::Other, "reshuffled", now)
        }
        Command::Reopen => {
            let id = incident(store);
            incidents::acknowledge(store, &who_else(), id, now)?;
            incidents::resolve(store, &who_else(), id, ResolutionKind::Duplicate, "", now)?;
            incidents::reopen(store, who, id, "camera 4 shows more", now)
        }
        // The desk sends an allowed entry to its monitor (tested with a running desk); the
        // check is this one.
        Command::RecordConsole => access::require(store, who, command, "table BAC-1", now),
        // Likewise a reload, tested with a desk on a pit definition's file.
        Command::ConfigurePit => access::require(store, who, command, "pit", now),
        Command::ExportIncident | Command::ExportShoe | Command::ExportShift => {
            reports::may_export(store, who, command, "incident 1", now)?;
            reports::exported(store, who, command, "incident 1", "/tmp/x.pdf", now)
        }
        Command::SignOffShift => {
            let shift = pitwatch_recording::report::Shift::new(t(0), t(3600), None).unwrap();
            handover::sign_off(&Policy::STANDARD, store, who, &handover(&shift), now).map(|_| ())
        }
        Command::AddUser => accounts::add_user(
            store,
            who,
            &format!("new-{}", who.user),
            Role::Supervisor,
            STRONG,
            now,
        )
        .map(|_| ()),
        Command::ChangeRole => accounts::change_role(store, who, "target", Role::Surveillance, now),
        Command::ResetPassword => {
            accounts::reset_password(store, who, "target", "orbit lantern plum 52 kettle", now)
        }
        Command::SetActive => accounts::set_active(store, who, "target", true, now),
        Command::ListUsers => accounts::users(store, who, now).map(|_| ()),
        Command::ViewAudit => accounts::audit_log(store, who, &[], 10, now).map(|_| ()),
        Command::MuteAlarm => pitwatch_app::alarm::record(store, who, true, "user", now),
        // The read itself, on a recorded shoe, is tested in tests/exposure.rs; the check is this
        // one.
        Command::ViewExposure => access::require(store, who, command, "table BAC-1 shoe 1", now),
        // The read itself, on a recorded table, is tested in the CLI's tests/dealers.rs; the
        // check is this one.
        Command::ViewDealers => access::require(store, who, command, "table BAC-1", now),
        Command::AccessListing => {
            reviews::access_listing(store, who, &Policy::STANDARD, now).map(|_| ())
        }
        Command::ReviewAccess => {
            // The listing as an administrator read it; the reviewer signs its digest.
            let root = Principal {
                user: "root".into(),
                role: Role::Admin,
                workstation: "pit-ws-3".into(),
            };
            let read = reviews::access_listing(store, &root, &Policy::STANDARD, now)?;
            let request = AccessReviewRequest {
                digest: read.digest,
                comment: "roles as expected".into(),
            };
            reviews::sign_access_review(store, who, &Policy::STANDARD, &request, now).map(|_| ())
        }
        // This record has nothing old enough to archive: an allowed step finds nothing to move
        // (the step itself is tested in tests/archive.rs); a refusal is refused before that.
        Command::ArchiveRecord => {
            let folder = std::env::temp_dir().join("pitwatch-roles-archive");
            let config = pitwatch_recording::pit::RecordConfig {
                archive: Some(folder),
                ..Default::default()
            };
            let db = std::path::Path::new("pit.db");
            match pitwatch_app::archive::archive(store, who, &config, db, None, t(9)) {
                Err(e) if e.code == pitwatch_api::ErrorCode::NotFound => Ok(()),
                other => other.map(|_| ()),
            }
        }
        Command::ReviewLog => {
            let request = LogReviewRequest {
                from: t(0).to_string(),
                to: t(5).to_string(),
                comment: "nothing untoward".into(),
            };
            reviews::sign_log_review(store, who, &request, now).map(|_| ())
        }
    }
}

fn forbidden_rows(store: &Store) -> Vec<pitwatch_store::AuditEntry> {
    store.recent_audit(&[FORBIDDEN], 1000).unwrap()
}

#[test]
fn every_command_for_every_role_is_allowed_or_forbidden_and_audited() {
    let people = [
        who("ana", Role::Supervisor),
        who("sam", Role::Surveillance),
        who("root", Role::Admin),
        who("ivy", Role::Inspector),
    ];
    let mut refused = 0;
    for command in Command::ALL {
        for person in &people {
            let mut store = record();
            let before = forbidden_rows(&store).len();
            let outcome = run(&mut store, person, command);
            let after = forbidden_rows(&store);
            if command.allowed(person.role) {
                assert!(
                    outcome.is_ok(),
                    "{} as {:?}: {outcome:?}",
                    command.name(),
                    person.role
                );
                assert_eq!(after.len(), before, "nothing refused");
            } else {
                refused += 1;
                let error = outcome.expect_err(command.name());
                assert_eq!(error.code, ErrorCode::Forbidden, "{}", command.name());
                assert_eq!(after.len(), before + 1, "the refusal is audited");
                let row = &after[0];
                assert_eq!(row.user, person.user);
                assert_eq!(row.subject, command.name());
                assert!(
                    row.detail.contains("\"workstation\":\"pit-ws-3\""),
                    "{row:?}"
                );
                assert!(row.detail.contains(person.role.as_str()), "{row:?}");
            }
        }
    }
    // Surveillance: acknowledge, resolve, reopen, console, sign-off, the five commands on users,
    // reloading the pit definition, the access listing and its review, the archive step, the
    // dealers' figures; supervisors: those six admin commands, the audit log, the house's
    // exposure, the listing, both reviews and the archive step; administrators: the log review
    // (independent of them); inspectors: every command that changes the record (the incident
    // workflow, console, sign-off, the four account changes, the pit's set-up, the alarm's mute
    // and the archive step) and the dealers' figures.
    assert_eq!(refused, 15 + 12 + 1 + 14);
}

#[test]
fn surveillance_cannot_resolve_and_the_incident_stays_open() {
    let mut store = record();
    let id = incident(&mut store);
    let error = incidents::resolve(
        &mut store,
        &who("sam", Role::Surveillance),
        id,
        Other,
        "x",
        t(5),
    )
    .unwrap_err();
    assert_eq!(error.code, ErrorCode::Forbidden);
    assert!(
        error.message.contains("may not resolve"),
        "{}",
        error.message
    );
    let incident = store.incident(pitwatch_store::IncidentId(id)).unwrap();
    assert_eq!(incident.status, pitwatch_store::Status::Open);
}

#[test]
fn the_first_admin_needs_an_empty_record_and_two_at_once_make_one() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("pit.db");
    let installation = Installation::with_key(dir.path().join("signing.key"));
    drop(installation.open(&db).unwrap());
    let barrier = Arc::new(Barrier::new(2));
    let outcomes: Vec<Result<Principal, ApiError>> = ["kiri", "wiremu"]
        .into_iter()
        .map(|name| {
            let barrier = Arc::clone(&barrier);
            let installation = installation.clone();
            let db = db.clone();
            std::thread::spawn(move || {
                let mut store = installation.open(&db).unwrap();
                barrier.wait();
                accounts::create_first_admin(&mut store, name, STRONG, "ws", t(0))
            })
        })
        .collect::<Vec<_>>()
        .into_iter()
        .map(|h| h.join().unwrap())
        .collect();
    let won: Vec<_> = outcomes.iter().filter(|o| o.is_ok()).collect();
    assert_eq!(won.len(), 1, "{outcomes:?}");
    let lost = outcomes.iter().find_map(|o| o.as_ref().err()).unwrap();
    assert_eq!(lost.code, ErrorCode::Forbidden, "{lost:?}");
    let store = installation.open(&db).unwrap();
    let users = store.users().unwrap();
    assert_eq!(users.len(), 1);
    assert_eq!(users[0].role, Role::Admin);
    // The loser's attempt is on record.
    assert_eq!(forbidden_rows(&store).len(), 1);
    assert!(store.verify().unwrap().intact());
}

#[test]
fn later_users_are_added_by_an_admin_who_is_named_as_the_actor() {
    let mut store = record();
    let error =
        accounts::create_first_admin(&mut store, "mallory", STRONG, "ws", t(5)).unwrap_err();
    assert_eq!(error.code, ErrorCode::Forbidden);
    assert!(!store.user_exists("mallory").unwrap());
    let adds = store.audit_entries("user.add").unwrap();
    let ana = adds.iter().find(|e| e.subject == "ana").unwrap();
    assert_eq!(ana.user, "root", "the admin is the actor, not the new user");
    let weak = accounts::add_user(
        &mut store,
        &who("root", Role::Admin),
        "kim",
        Role::Supervisor,
        "password1234",
        t(6),
    )
    .unwrap_err();
    assert_eq!(weak.code, ErrorCode::InvalidInput);
}

#[test]
fn role_changes_resets_and_deactivation_are_audited_and_keep_an_admin() {
    let mut store = record();
    let root = who("root", Role::Admin);
    accounts::change_role(&mut store, &root, "target", Role::Surveillance, t(5)).unwrap();
    assert_eq!(
        accounts::login(&mut store, "target", STRONG, "ws", t(6))
            .unwrap()
            .role,
        Role::Surveillance
    );
    accounts::reset_password(
        &mut store,
        &root,
        "target",
        "orbit lantern plum 52 kettle",
        t(7),
    )
    .unwrap();
    assert!(accounts::login(&mut store, "target", STRONG, "ws", t(8)).is_err());
    accounts::login(
        &mut store,
        "target",
        "orbit lantern plum 52 kettle",
        "ws",
        t(20),
    )
    .unwrap();
    accounts::set_active(&mut store, &root, "target", false, t(21)).unwrap();
    let error = accounts::login(
        &mut store,
        "target",
        "orbit lantern plum 52 kettle",
        "ws",
        t(22),
    )
    .unwrap_err();
    assert_eq!(error.code, ErrorCode::Unauthorised);
    // The last active administrator cannot demote or deactivate themselves.
    let last = accounts::set_active(&mut store, &root, "root", false, t(30)).unwrap_err();
    assert_eq!(last.code, ErrorCode::Conflict);
    let last =
        accounts::change_role(&mut store, &root, "root", Role::Supervisor, t(30)).unwrap_err();
    assert_eq!(last.code, ErrorCode::Conflict);
    for action in ["user.role", "user.password", "user.active"] {
        let rows = store.audit_entries(action).unwrap();
        assert_eq!(rows.len(), 1, "{action}");
        assert_eq!(rows[0].user, "root");
        assert_eq!(rows[0].subject, "target");
    }
    assert!(store.verify().unwrap().intact());
}

/// The workstation an audit row names in its JSON detail, if any.
fn workstation_of(entry: &pitwatch_store::AuditEntry) -> Option<String> {
    let detail: serde_json::Value = serde_json::from_str(&entry.detail).ok()?;
    detail.get("workstation")?.as_str().map(str::to_owned)
}

#[test]
fn every_audited_step_names_the_user_and_the_workstation() {
    let mut store = record();
    let root = who("root", Role::Admin);
    let ana = who("ana", Role::Supervisor);
    let sam = who("sam", Role::Surveillance);
    let id = incident(&mut store);
    incidents::acknowledge(&mut store, &ana, id, t(10)).unwrap();
    incidents::add_note(&mut store, &sam, id, "seen on camera 4", t(11)).unwrap();
    incidents::resolve(&mut store, &ana, id, Other, "reshuffled", t(12)).unwrap();
    let shift = pitwatch_recording::report::Shift::new(t(0), t(3600), None).unwrap();
    handover::sign_off(
        &Policy::STANDARD,
        &mut store,
        &ana,
        &handover(&shift),
        t(13),
    )
    .unwrap();
    reports::exported(
        &mut store,
        &sam,
        Command::ExportShift,
        "shift",
        "/tmp/s.pdf",
        t(14),
    )
    .unwrap();
    accounts::change_role(&mut store, &root, "target", Role::Surveillance, t(15)).unwrap();
    accounts::reset_password(
        &mut store,
        &root,
        "target",
        "orbit lantern plum 52 kettle",
        t(16),
    )
    .unwrap();
    accounts::set_active(&mut store, &root, "target", false, t(17)).unwrap();
    let _ = accounts::login(
        &mut store,
        "nobody",
        "wrong password here",
        "pit-ws-9",
        t(18),
    );
    let rows = store.recent_audit(&[], 1000).unwrap();
    for (action, user) in [
        ("user.first_admin", "root"),
        ("user.add", "root"),
        ("incident.acknowledge", "ana"),
        ("incident.note", "sam"),
        ("incident.resolve", "ana"),
        (pitwatch_recording::report::SHIFT_SIGN_OFF, "ana"),
        (handover::SHIFT_ACCEPT, "target"),
        ("shift.export", "sam"),
        ("user.role", "root"),
        ("user.password", "root"),
        ("user.active", "root"),
        ("session.login", "root"),
    ] {
        let row = rows
            .iter()
            .find(|r| r.action == action)
            .unwrap_or_else(|| panic!("no {action} row"));
        assert_eq!(row.user, user, "{action}");
        assert_eq!(
            workstation_of(row).as_deref(),
            Some("pit-ws-3"),
            "{action}: {}",
            row.detail
        );
    }
    let failed = rows.iter().find(|r| r.action == LOGIN_FAILED).unwrap();
    assert_eq!(failed.user, "nobody");
    assert_eq!(workstation_of(failed).as_deref(), Some("pit-ws-9"));
    // What was said is kept beside the workstation.
    let note = rows.iter().find(|r| r.action == "incident.note").unwrap();
    let detail: serde_json::Value = serde_json::from_str(&note.detail).unwrap();
    assert_eq!(detail["note"], "seen on camera 4");
    let resolved = rows
        .iter()
        .find(|r| r.action == "incident.resolve")
        .unwrap();
    let detail: serde_json::Value = serde_json::from_str(&resolved.detail).unwrap();
    assert_eq!(detail["resolution"], "reshuffled");
    assert!(store.verify().unwrap().intact());
}

#[test]
fn unknown_names_and_wrong_passwords_cost_the_same_verification() {
    let mut store = record();
    let checks = |store: &Store| store.password_checks();
    let before = checks(&store);
    accounts::login(&mut store, "nobody", STRONG, "ws", t(100)).unwrap_err();
    assert_eq!(
        checks(&store),
        before + 1,
        "an unknown name runs one argon2 check"
    );
    accounts::login(&mut store, "ana", "wrong horse staple", "ws", t(200)).unwrap_err();
    assert_eq!(
        checks(&store),
        before + 2,
        "a wrong password runs one argon2 check"
    );
    accounts::login(&mut store, "ana", STRONG, "ws", t(300)).unwrap();
    assert_eq!(checks(&store), before + 3);
    // Both failures say the same thing.
    let a = accounts::login(&mut store, "nobody2", STRONG, "ws", t(400)).unwrap_err();
    let b = accounts::login(&mut store, "sam", "wrong horse staple", "ws", t(400)).unwrap_err();
    assert_eq!(a, b);
}

/// `at` and `millis` more.
fn plus(at: Timestamp, millis: i64) -> Timestamp {
    Timestamp::from_unix_millis(at.unix_millis() + millis).unwrap()
}

#[test]
fn a_throttled_or_locked_login_says_how_long_is_left() {
    let mut store = record();
    let wrong = "not the password at all";
    let mut at = t(1000);
    let prefix = "too many failed logins for \"ana\": ";
    for n in 0..4 {
        accounts::login(&mut store, "ana", wrong, "pit-ws-9", at).unwrap_err();
        // A tenth of a second later, the delay after this failure (1, 2, 4, 8 s, counted from
        // when its password check ended) is nearly whole: said in seconds, rounded up.
        let early = accounts::login(&mut store, "ana", STRONG, "pit-ws-9", plus(at, 100));
        let delay = 1 << n;
        let words = if delay == 1 {
            "1 second".to_owned()
        } else {
            format!("{delay} seconds")
        };
        let message = early.unwrap_err().message;
        assert!(message.starts_with(prefix), "{message}");
        let left = &message[prefix.len()..];
        // Up to a second more when argon2 was slow on a loaded machine.
        let slow = format!("try again in {} seconds", delay + 1);
        assert!(
            left == format!("try again in {words}") || left == slow,
            "attempt {n}: {message}"
        );
        at = plus(at, 30_000);
    }
    // The failure that locks the name says so, and for how long.
    let locking = accounts::login(&mut store, "ana", wrong, "pit-ws-9", at).unwrap_err();
    assert_eq!(
        locking.message,
        format!("wrong user name or password; {prefix}locked for 15 minutes")
    );
    // Each attempt while locked says how long is left, in minutes and seconds, then seconds.
    let during = accounts::login(&mut store, "ana", STRONG, "pit-ws-9", plus(at, 30_000));
    let message = during.unwrap_err().message;
    assert!(
        message.starts_with(&format!("{prefix}locked for 14 minutes 3")),
        "{message}"
    );
    assert!(message.ends_with(" seconds more"), "{message}");
    let end = plus(at, 15 * 60_000 - 20_000);
    let last = accounts::login(&mut store, "ana", STRONG, "pit-ws-9", end).unwrap_err();
    assert!(
        last.message.starts_with(&format!("{prefix}locked for 2"))
            && last.message.ends_with(" seconds more"),
        "{}",
        last.message
    );
    assert_eq!(
        store
            .audit_entries(accounts::LOGIN_THROTTLED)
            .unwrap()
            .len(),
        6
    );
}

#[test]
fn failed_logins_are_audited_slowed_down_then_locked() {
    let mut store = record();
    let wrong = "not the password at all";
    let mut at = t(1000);
    for n in 0..5 {
        let error = accounts::login(&mut store, "ana", wrong, "pit-ws-9", at).unwrap_err();
        if n < 4 {
            assert_eq!(error.message, "wrong user name or password", "attempt {n}");
        } else {
            // The failure that locks the name says so, and for how long.
            assert_eq!(
                error.message,
                "wrong user name or password; too many failed logins for \"ana\": locked for 15 minutes"
            );
        }
        // Too early: refused without looking at the password, and audited.
        let checks = store.password_checks();
        let early = accounts::login(&mut store, "ana", STRONG, "pit-ws-9", at).unwrap_err();
        assert_eq!(early.code, ErrorCode::Unauthorised);
        assert!(
            early.message.contains("too many failed logins"),
            "{early:?}"
        );
        assert_eq!(store.password_checks(), checks);
        // Past the longest delay (8 s), counted from when the check ended: a margin for argon2.
        at = Timestamp::from_unix_millis(at.unix_millis() + 30_000).unwrap();
    }
    let failed = store.recent_audit(&[LOGIN_FAILED], 100).unwrap();
    assert_eq!(failed.len(), 5);
    assert!(failed
        .iter()
        .all(|r| r.user == "ana" && r.subject == "ana" && r.detail.contains("pit-ws-9")));
    assert_eq!(
        store.audit_entries(accounts::LOGIN_LOCKED).unwrap().len(),
        1
    );
    // Locked: even the right password is refused for a while.
    let locked = accounts::login(&mut store, "ana", STRONG, "pit-ws-9", at).unwrap_err();
    assert!(locked.message.contains("locked"), "{locked:?}");
    let later = Timestamp::from_unix_millis(at.unix_millis() + 16 * 60 * 1000).unwrap();
    accounts::login(&mut store, "ana", STRONG, "pit-ws-9", later).unwrap();
    // Unknown names are throttled alike (the lock says nothing about which names exist).
    accounts::login(&mut store, "ghost", wrong, "pit-ws-9", t(5000)).unwrap_err();
    let early = accounts::login(&mut store, "ghost", wrong, "pit-ws-9", t(5000)).unwrap_err();
    assert!(early.message.contains("too many failed logins"));
    assert!(store.verify().unwrap().intact());
}
