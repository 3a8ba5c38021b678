//! The accountable steps (issue 34) through the use cases the front ends call, on a real record:
//! a resolution chosen from the list after an acknowledgement, an audited reopen, and a shift's
//! sign-off with the user's password, its summary, the refusal of a period already signed off,
//! and the incoming supervisor's acceptance.

use pitwatch_api::dto::{
    DisabledView, ErrorCode, LinkStatus, ResolutionKind, SeverityCounts, TableTile,
};
use pitwatch_app::access::Principal;
use pitwatch_app::accounts::{self, Policy};
use pitwatch_app::handover::{self, Handover, SHIFT_ACCEPT};
use pitwatch_app::incidents;
use pitwatch_model::{EventKind, TableEvent, TableState, Timestamp};
use pitwatch_recording::pit::PitConfig;
use pitwatch_recording::report::{Shift, SHIFT_SIGN_OFF};
use pitwatch_store::{
    IncidentId, NewIncident, Role, Status, Store, INCIDENT_REOPEN, LOGIN_ATTEMPT, LOGIN_CONFIRMED,
    LOGIN_FAILED,
};

const STRONG: &str = "plum kettle orbit 47 lantern";
const NIGHT: &str = "night owls count every card";

fn t(seconds: i64) -> Timestamp {
    Timestamp::from_unix_millis(1_780_000_000_000 + seconds * 1000).unwrap()
}

fn at(user: &str, role: Role, workstation: &str) -> Principal {
    Principal {
        user: user.into(),
        role,
        workstation: workstation.into(),
    }
}

fn ana() -> Principal {
    at("ana", Role::Supervisor, "pit-ws-3")
}

/// A record with tables BAC-1 and BAC-2, its first admin `root`, supervisors `ana` and `ben`
/// (ben's password [`NIGHT`]) and a surveillance officer `sam`.
fn record() -> Store {
    let mut store = Store::open_in_memory().unwrap();
    for table in ["BAC-1", "BAC-2"] {
        store
            .ensure_table(table, "baccarat", "nz-baccarat", t(0))
            .unwrap();
    }
    accounts::create_first_admin(&mut store, "root", STRONG, "pit-ws-3", t(0)).unwrap();
    let root = at("root", Role::Admin, "pit-ws-3");
    for (name, role, password) in [
        ("ana", Role::Supervisor, STRONG),
        ("ben", Role::Supervisor, NIGHT),
        ("sam", Role::Surveillance, STRONG),
    ] {
        accounts::add_user(&mut store, &root, name, role, password, t(1)).unwrap();
    }
    store
}

fn incident(store: &mut Store, table: &str, severity: &str) -> i64 {
    let table = store.table_id(table).unwrap().unwrap();
    let mut batch = store.batch(t(2)).unwrap();
    let id = batch
        .open_incident(
            &NewIncident {
                table,
                code: "BURN_COUNT_MISMATCH".into(),
                severity: severity.into(),
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

fn history(store: &Store, id: i64) -> Vec<(String, Option<String>)> {
    store
        .incident_history(IncidentId(id))
        .unwrap()
        .into_iter()
        .map(|s| (s.what, s.text))
        .collect()
}

#[test]
fn a_resolution_is_chosen_after_the_acknowledgement_and_kept_in_history_and_audit() {
    let mut store = record();
    let id = incident(&mut store, "BAC-1", "high");
    // Acknowledgement first: a resolve of an open incident is refused, and changes nothing.
    let early = incidents::resolve(&mut store, &ana(), id, ResolutionKind::FalseAlarm, "", t(3))
        .unwrap_err();
    assert_eq!(early.code, ErrorCode::Conflict);
    assert_eq!(
        early.message,
        format!("incident {id} has not been acknowledged: acknowledge it first, then resolve it")
    );
    assert_eq!(store.incident(IncidentId(id)).unwrap().status, Status::Open);
    incidents::acknowledge(&mut store, &ana(), id, t(4)).unwrap();
    // "Other" needs written text.
    let bare =
        incidents::resolve(&mut store, &ana(), id, ResolutionKind::Other, " ", t(5)).unwrap_err();
    assert_eq!(bare.code, ErrorCode::InvalidInput);
    assert!(
        bare.message.contains("\"Other\" needs written text"),
        "{bare}"
    );
    incidents::resolve(
        &mut store,
        &ana(),
        id,
        ResolutionKind::Confirmed,
        "dealer retrained",
        t(6),
    )
    .unwrap();
    let recorded = "Confirmed irregularity — handled per procedure: dealer retrained";
    assert_eq!(
        history(&store, id).last().unwrap(),
        &("resolved".to_owned(), Some(recorded.to_owned()))
    );
    let audit = store.audit_entries("incident.resolve").unwrap();
    assert!(audit[0].detail.contains(recorded), "{:?}", audit[0]);
    // Resolving twice is a conflict.
    let twice = incidents::resolve(&mut store, &ana(), id, ResolutionKind::Duplicate, "", t(7))
        .unwrap_err();
    assert_eq!(twice.code, ErrorCode::Conflict);
}

#[test]
fn a_resolved_incident_is_reopened_with_a_reason_by_a_supervisor_only() {
    let mut store = record();
    let id = incident(&mut store, "BAC-1", "critical");
    // Only a resolved incident is reopened.
    let open = incidents::reopen(&mut store, &ana(), id, "more on camera", t(3)).unwrap_err();
    assert_eq!(open.code, ErrorCode::Conflict);
    assert!(
        open.message
            .contains("only a resolved incident can be reopened"),
        "{open}"
    );
    incidents::acknowledge(&mut store, &ana(), id, t(4)).unwrap();
    incidents::resolve(&mut store, &ana(), id, ResolutionKind::FalseAlarm, "", t(5)).unwrap();
    // A reason is needed; surveillance may not reopen (refused and audited).
    let silent = incidents::reopen(&mut store, &ana(), id, "   ", t(6)).unwrap_err();
    assert_eq!(silent.code, ErrorCode::InvalidInput);
    let sam = at("sam", Role::Surveillance, "pit-ws-3");
    let refused = incidents::reopen(&mut store, &sam, id, "I think", t(6)).unwrap_err();
    assert_eq!(refused.code, ErrorCode::Forbidden);
    assert!(
        refused.message.contains("may not reopen incidents"),
        "{refused}"
    );

    incidents::reopen(&mut store, &ana(), id, "camera 4 shows a second card", t(7)).unwrap();
    assert_eq!(store.incident(IncidentId(id)).unwrap().status, Status::Open);
    assert_eq!(store.open_counts().unwrap()[0].count, 1, "counted as open");
    let audit = store.audit_entries(INCIDENT_REOPEN).unwrap();
    assert_eq!(audit.len(), 1);
    assert_eq!(audit[0].user, "ana");
    assert!(audit[0].detail.contains("camera 4 shows a second card"));
    assert!(audit[0].detail.contains("pit-ws-3"));
    // Worked again like any open incident, acknowledgement first.
    let early = incidents::resolve(&mut store, &ana(), id, ResolutionKind::Duplicate, "", t(8));
    assert_eq!(early.unwrap_err().code, ErrorCode::Conflict);
    incidents::acknowledge(&mut store, &ana(), id, t(9)).unwrap();
    incidents::resolve(&mut store, &ana(), id, ResolutionKind::Duplicate, "", t(10)).unwrap();
    let whats: Vec<String> = history(&store, id).into_iter().map(|(w, _)| w).collect();
    assert_eq!(
        whats,
        [
            "opened",
            "acknowledged",
            "resolved",
            "reopened",
            "acknowledged",
            "resolved"
        ]
    );
    assert!(store.verify().unwrap().intact());
}

fn shift(from: i64, to: i64, table: Option<&str>) -> Shift {
    Shift::new(t(from), t(to), table.map(str::to_owned)).unwrap()
}

fn handover<'a>(shift: &'a Shift, password: &'a str, incoming: &'a str) -> Handover<'a> {
    Handover {
        shift,
        note: "camera 14 checked",
        password,
        incoming,
        incoming_password: NIGHT,
    }
}

fn audit_count(store: &Store, action: &str) -> usize {
    store.audit_entries(action).unwrap().len()
}

#[test]
fn a_sign_off_needs_the_user_s_password_and_another_supervisor_s_acceptance() {
    let mut store = record();
    let day = shift(0, 3600, None);
    let policy = Policy::STANDARD;
    let sign = |store: &mut Store, h: &Handover<'_>, now: i64| {
        handover::sign_off(&policy, store, &ana(), h, t(now))
    };
    // A wrong password is refused as a login's is: audited as a failed login, nothing signed.
    let wrong = sign(&mut store, &handover(&day, "not ana's password", "ben"), 10).unwrap_err();
    assert_eq!(wrong.code, ErrorCode::Unauthorised);
    assert_eq!(
        wrong.message,
        "the password of \"ana\" was not accepted: wrong user name or password"
    );
    assert_eq!(audit_count(&store, LOGIN_FAILED), 1);
    // And throttled as a login is: the next try at once waits.
    let early = sign(&mut store, &handover(&day, STRONG, "ben"), 10).unwrap_err();
    assert!(early.message.contains("try again in"), "{early}");
    // The incoming supervisor: someone else, a role that may sign off, their own password.
    let alone = sign(&mut store, &handover(&day, STRONG, "ana"), 20).unwrap_err();
    assert_eq!(alone.code, ErrorCode::InvalidInput);
    assert!(alone.message.contains("someone other than ana"), "{alone}");
    let nobody = sign(&mut store, &handover(&day, STRONG, " "), 20).unwrap_err();
    assert_eq!(nobody.code, ErrorCode::InvalidInput);
    let sam = sign(&mut store, &handover(&day, STRONG, "sam"), 20).unwrap_err();
    assert_eq!(
        sam.code,
        ErrorCode::Unauthorised,
        "sam's password is not NIGHT"
    );
    let mut with_sam = handover(&day, STRONG, "sam");
    with_sam.incoming_password = STRONG;
    let surveillance = sign(&mut store, &with_sam, 40).unwrap_err();
    assert_eq!(surveillance.code, ErrorCode::Forbidden);
    assert!(
        surveillance.message.contains("sam (surveillance)"),
        "{surveillance}"
    );
    assert_eq!(audit_count(&store, SHIFT_SIGN_OFF), 0, "nothing signed yet");

    let signed = sign(&mut store, &handover(&day, STRONG, "ben"), 60).unwrap();
    assert_eq!(
        (signed.user.as_str(), signed.accepted_by.as_str()),
        ("ana", "ben")
    );
    let sign_offs = store.audit_entries(SHIFT_SIGN_OFF).unwrap();
    let accepted = store.audit_entries(SHIFT_ACCEPT).unwrap();
    assert_eq!((sign_offs.len(), accepted.len()), (1, 1));
    assert_eq!(accepted[0].user, "ben");
    assert!(accepted[0]
        .detail
        .contains(&format!("\"sign_off\":{}", sign_offs[0].id)));
    // The passwords' checks are on record as confirmations, not logins.
    let confirmed = store.audit_entries(LOGIN_CONFIRMED).unwrap();
    let purposes: Vec<(&str, bool)> = confirmed
        .iter()
        .map(|e| (e.user.as_str(), e.detail.contains(SHIFT_ACCEPT)))
        .collect();
    assert!(purposes.contains(&("ana", false)) && purposes.contains(&("ben", true)));
    let logins = store.audit_entries("session.login").unwrap();
    assert!(
        logins.iter().all(|e| e.user == "root"),
        "nobody logged in: {logins:?}"
    );
    // Shown beside the sign-off.
    let rows = handover::signed_off(&store, &day, "pit-ws-3").unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].accepted_by.as_deref(), Some("ben"));
    assert_eq!(rows[0].note, "camera 14 checked");
    assert!(store.verify().unwrap().intact());
}

#[test]
fn a_period_already_signed_off_at_the_workstation_is_refused_before_any_password() {
    let mut store = record();
    let policy = Policy::STANDARD;
    let day = shift(0, 3600, None);
    handover::sign_off(
        &policy,
        &mut store,
        &ana(),
        &handover(&day, STRONG, "ben"),
        t(60),
    )
    .unwrap();
    let attempts = audit_count(&store, LOGIN_ATTEMPT);
    for (overlapping, table) in [
        (shift(0, 3600, None), None),
        (shift(1800, 7200, None), None),
        (shift(600, 1200, Some("BAC-2")), Some("BAC-2")),
    ] {
        let again = handover::sign_off(
            &policy,
            &mut store,
            &ana(),
            &handover(&overlapping, "no password at all", "ben"),
            t(120),
        )
        .unwrap_err();
        assert_eq!(again.code, ErrorCode::Conflict, "{table:?}");
        assert!(
            again
                .message
                .starts_with("this period is already signed off: ana signed off"),
            "{again}"
        );
        assert!(again.message.contains("every table"), "{again}");
        assert!(again.message.contains("at pit-ws-3"), "{again}");
    }
    assert_eq!(
        audit_count(&store, LOGIN_ATTEMPT),
        attempts,
        "no password tried"
    );
    assert_eq!(audit_count(&store, SHIFT_SIGN_OFF), 1);
    // The next period, one table's sign-off on a period signed for another, and another
    // workstation's sign-off are not the same period.
    let next = shift(3600, 7200, Some("BAC-1"));
    handover::sign_off(
        &policy,
        &mut store,
        &ana(),
        &handover(&next, STRONG, "ben"),
        t(200),
    )
    .unwrap();
    let other_table = shift(3600, 7200, Some("BAC-2"));
    let ben = at("ben", Role::Supervisor, "pit-ws-3");
    let mut to_ana = handover(&other_table, NIGHT, "ana");
    to_ana.incoming_password = STRONG;
    handover::sign_off(&policy, &mut store, &ben, &to_ana, t(300)).unwrap();
    let elsewhere = at("ana", Role::Supervisor, "pit-ws-7");
    handover::sign_off(
        &policy,
        &mut store,
        &elsewhere,
        &handover(&day, STRONG, "ben"),
        t(400),
    )
    .unwrap();
    assert_eq!(audit_count(&store, SHIFT_SIGN_OFF), 4);
    assert_eq!(audit_count(&store, SHIFT_ACCEPT), 4);
}

#[test]
fn the_summary_says_what_is_handed_over() {
    let mut store = record();
    let pit = PitConfig::from_toml(
        "[site]\nname = \"Real\"\n\
         [[table]]\nname = \"BAC-1\"\ngame = \"baccarat\"\nrules = \"nz-baccarat\"\n\
         device = { protocol = \"angel-eye\" }\nlink = { kind = \"tcp\", address = \"127.0.0.1:9\" }\n\
         [[table]]\nname = \"BAC-2\"\ngame = \"baccarat\"\nrules = \"nz-baccarat\"\n\
         device = { protocol = \"angel-eye\" }\nlink = { kind = \"tcp\", address = \"127.0.0.1:9\" }\n",
    )
    .unwrap();
    let mut tiles: Vec<TableTile> = pit.tables.iter().map(TableTile::from).collect();
    // BAC-1's shoe is not connected; BAC-2's is, and its section is wrong (disabled).
    tiles[0].devices[0].status = LinkStatus::Reconnecting;
    tiles[0].devices[0].status_detail = "connection refused".into();
    tiles[1].devices[0].status = LinkStatus::Connected;
    tiles[1].disabled = Some(DisabledView {
        line: 7,
        problems: vec!["no such rule book".into()],
    });
    let high = incident(&mut store, "BAC-1", "high");
    incident(&mut store, "BAC-1", "critical");
    incident(&mut store, "BAC-2", "low");
    let resolved = incident(&mut store, "BAC-1", "medium");
    incidents::acknowledge(&mut store, &ana(), high, t(3)).unwrap();
    incidents::acknowledge(&mut store, &ana(), resolved, t(3)).unwrap();
    incidents::resolve(
        &mut store,
        &ana(),
        resolved,
        ResolutionKind::Duplicate,
        "",
        t(4),
    )
    .unwrap();
    let table = store.table_id("BAC-1").unwrap().unwrap();
    let mut batch = store.batch(t(5)).unwrap();
    let closed = TableEvent::new(
        1,
        EventKind::TableStateChanged {
            state: TableState::Closed,
        },
    )
    .at(t(5));
    batch.append_event(table, None, None, &closed).unwrap();
    batch.commit().unwrap();

    let day = shift(0, 3600, None);
    let summary = handover::summary(&store, &tiles, &day, "pit-ws-3").unwrap();
    assert_eq!(
        summary.open_incidents,
        SeverityCounts {
            critical: 1,
            high: 1,
            medium: 0,
            low: 1
        }
    );
    assert_eq!(summary.unacknowledged, 2);
    assert_eq!(summary.devices_down.len(), 1);
    assert_eq!(summary.devices_down[0].table, "BAC-1");
    assert_eq!(summary.devices_down[0].device, "shoe");
    assert_eq!(summary.devices_down[0].status, LinkStatus::Reconnecting);
    let down: Vec<(&str, &str)> = summary
        .tables_down
        .iter()
        .map(|t| (t.table.as_str(), t.state.as_str()))
        .collect();
    assert_eq!(down, [("BAC-2", "disabled"), ("BAC-1", "closed")]);
    assert!(summary.tables_down[0].why.contains("no such rule book"));
    assert!(summary.signed.is_empty());
    // One table's summary counts that table only; a sign-off on record is listed.
    let bac1 = shift(0, 3600, Some("BAC-1"));
    handover::sign_off(
        &Policy::STANDARD,
        &mut store,
        &ana(),
        &handover(&bac1, STRONG, "ben"),
        t(60),
    )
    .unwrap();
    let summary = handover::summary(&store, &tiles, &bac1, "pit-ws-3").unwrap();
    assert_eq!(summary.open_incidents.low, 0);
    assert_eq!(summary.unacknowledged, 1);
    assert_eq!(summary.tables_down.len(), 1);
    assert_eq!(summary.signed.len(), 1);
    assert_eq!(summary.signed[0].accepted_by.as_deref(), Some("ben"));
}
