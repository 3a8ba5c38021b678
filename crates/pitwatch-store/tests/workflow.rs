//! The incident workflow's later steps and what accountable steps read: a resolved incident
//! reopened with a reason (and counted as open again everywhere), a password confirmed for a step
//! as the outcome of its login attempt, the audit entries a batch checks before it writes, and
//! each table's last recorded state.

use std::path::Path;

use pitwatch_model::Timestamp;
use pitwatch_store::{NewIncident, Sealing, Store, StoreError, TableId};

fn open(path: impl AsRef<Path>) -> Result<Store, StoreError> {
    let path = path.as_ref();
    Store::open(
        path,
        &Sealing::key_file(path.with_file_name("installation.key")),
    )
}

fn t(ms: i64) -> Timestamp {
    Timestamp::from_unix_millis(1_796_000_000_000 + ms).unwrap()
}

fn burn_incident(table: TableId) -> NewIncident {
    NewIncident {
        table,
        code: "BURN_COUNT_MISMATCH".into(),
        severity: "high".into(),
        rule: "7.7(b)".into(),
        shoe: Some(1),
        round: None,
        seq: 8,
        evidence: vec![4, 5, 6, 7, 8],
        message: "The first card was a 3 but 2 burn cards were drawn.".into(),
    }
}

#[test]
fn a_resolved_incident_is_reopened_with_a_reason_and_counts_as_open_again() {
    use pitwatch_store::{IncidentFilter, Role, Status, INCIDENT_REOPEN};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pit.db");
    let mut store = open(&path).unwrap();
    let table = store
        .ensure_table("BAC-1", "baccarat", "nz-baccarat", t(0))
        .unwrap();
    store
        .add_user("admin", "ana", Role::Supervisor, "correct horse", t(1))
        .unwrap();
    let mut batch = store.batch(t(0)).unwrap();
    let id = batch.open_incident(&burn_incident(table), t(2)).unwrap();
    batch.commit().unwrap();

    // Only a resolved incident is reopened, by a known user, with a reason.
    let err = store
        .reopen(id, "ana", "camera shows more", t(3))
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("incident 1 is open, only a resolved incident can be reopened"),
        "{err}"
    );
    store
        .resolve(id, "ana", "False alarm — device misread", t(4))
        .unwrap();
    let err = store.reopen(id, "ana", "  ", t(5)).unwrap_err();
    assert!(err.to_string().contains("needs a reason"), "{err}");
    let err = store.reopen(id, "mallory", "why not", t(5)).unwrap_err();
    assert!(err.to_string().contains("no user named"), "{err}");
    assert_eq!(store.incident(id).unwrap().status, Status::Resolved);

    store
        .reopen(id, "ana", "Surveillance found a second misdeal", t(6))
        .unwrap();
    assert_eq!(store.incident(id).unwrap().status, Status::Open);
    let unresolved = IncidentFilter {
        unresolved: true,
        ..Default::default()
    };
    assert_eq!(store.incidents(&unresolved).unwrap().len(), 1);
    assert_eq!(store.open_counts().unwrap()[0].count, 1);
    assert_eq!(store.unresolved_at(t(7)).unwrap().len(), 1);
    // Open again: acknowledged and resolved again like any open incident.
    store.acknowledge(id, "ana", t(8)).unwrap();
    store
        .resolve(id, "ana", "Confirmed irregularity", t(9))
        .unwrap();
    drop(store);

    let store = open(&path).unwrap();
    let history: Vec<(String, Option<String>, Option<String>)> = store
        .incident_history(id)
        .unwrap()
        .into_iter()
        .map(|s| (s.what, s.user, s.text))
        .collect();
    let ana = || Some("ana".to_owned());
    assert_eq!(
        history,
        [
            ("opened".into(), None, None),
            (
                "resolved".into(),
                ana(),
                Some("False alarm — device misread".into())
            ),
            (
                "reopened".into(),
                ana(),
                Some("Surveillance found a second misdeal".into())
            ),
            ("acknowledged".into(), ana(), None),
            (
                "resolved".into(),
                ana(),
                Some("Confirmed irregularity".into())
            ),
        ]
    );
    let reopened = store.audit_entries(INCIDENT_REOPEN).unwrap();
    assert_eq!(reopened.len(), 1);
    assert_eq!(reopened[0].subject, "incident 1");
    assert!(reopened[0].detail.contains("second misdeal"));
    let report = store.verify().unwrap();
    assert!(report.intact(), "{:?}", report.first_problem);
}

#[test]
fn a_confirmed_password_is_its_attempt_s_outcome_and_a_batch_reads_the_audit_it_writes_after() {
    use pitwatch_store::{LOGIN_ATTEMPT, LOGIN_CONFIRMED, LOGIN_FAILED};
    let mut store = Store::open_in_memory().unwrap();
    let mut batch = store.batch(t(0)).unwrap();
    batch
        .append_audit("ana", LOGIN_ATTEMPT, "ana", "{}", t(0))
        .unwrap();
    batch
        .append_audit("ana", LOGIN_FAILED, "ana", "{}", t(1))
        .unwrap();
    batch
        .append_audit("ana", LOGIN_ATTEMPT, "ana", "{}", t(2))
        .unwrap();
    // Before its outcome, the attempt holds the next one back.
    assert!(batch.login_attempts("ana", t(0)).unwrap()[1].pending);
    batch
        .append_audit("ana", LOGIN_CONFIRMED, "ana", "{}", t(3))
        .unwrap();
    let seen = batch.audit_entries(LOGIN_CONFIRMED).unwrap();
    assert_eq!(
        seen.len(),
        1,
        "the batch reads what it wrote, before commit"
    );
    batch.commit().unwrap();
    let attempts = store.login_attempts("ana", t(0)).unwrap();
    assert_eq!(
        attempts
            .iter()
            .map(|a| (a.succeeded, a.pending))
            .collect::<Vec<_>>(),
        [(false, false), (true, false)],
        "a failure, then a confirmed password: a success that clears the failures"
    );
}

#[test]
fn each_table_s_last_recorded_state_is_read() {
    use pitwatch_model::{EventKind, TableEvent, TableState};
    let mut store = Store::open_in_memory().unwrap();
    let bac = store
        .ensure_table("BAC-1", "baccarat", "nz-baccarat", t(0))
        .unwrap();
    let bac2 = store
        .ensure_table("BAC-2", "baccarat", "nz-baccarat", t(0))
        .unwrap();
    store
        .ensure_table("BAC-3", "baccarat", "nz-baccarat", t(0))
        .unwrap();
    let mut batch = store.batch(t(0)).unwrap();
    for (table, seq, state) in [
        (bac, 1, TableState::Open),
        (bac, 2, TableState::Closed),
        (bac2, 1, TableState::Closed),
        (bac2, 2, TableState::Vacant),
    ] {
        let event = TableEvent::new(seq, EventKind::TableStateChanged { state }).at(t(seq as i64));
        batch.append_event(table, None, None, &event).unwrap();
    }
    let card = TableEvent::new(3, EventKind::card("8S".parse().unwrap())).at(t(3));
    batch.append_event(bac2, None, None, &card).unwrap();
    batch.commit().unwrap();
    assert_eq!(
        store.table_states().unwrap(),
        [
            ("BAC-1".to_owned(), "closed".to_owned()),
            ("BAC-2".to_owned(), "vacant".to_owned()),
        ]
    );
}
