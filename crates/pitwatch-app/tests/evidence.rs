//! An incident's evidence pack through the use cases the front ends call (issue 32): exported
//! from one record, it verifies from a fresh folder with nothing but the public key; the export
//! is audited as `incident.export_pack` and the pack holds that row among the incident's audit
//! rows; every role that may export an incident report may export its pack.

use pitwatch_api::dto::ErrorCode;
use pitwatch_app::access::{Command, Principal};
use pitwatch_app::{accounts, evidence, incidents, reports};
use pitwatch_model::{EventKind, TableEvent, Timestamp};
use pitwatch_store::pack::{check_pack, Trust};
use pitwatch_store::{DeviceIdentity, NewIncident, Role, Sealing, SigningKey, Store};

const STRONG: &str = "plum kettle orbit 47 lantern";

fn t(seconds: i64) -> Timestamp {
    Timestamp::from_unix_millis(1_780_000_000_000 + seconds * 1000).unwrap()
}

fn at(user: &str, role: Role) -> Principal {
    Principal {
        user: user.into(),
        role,
        workstation: "pit-ws-3".into(),
    }
}

/// A record in `dir` with a shoe of ten cards at BAC-1, an incident in it (returned), worked
/// by supervisor `ana`, and its users.
fn record(dir: &std::path::Path) -> (Store, i64) {
    let mut store = Store::open(
        dir.join("pit.db"),
        &Sealing::key_file(dir.join("signing.key")),
    )
    .unwrap();
    let table = store
        .ensure_table("BAC-1", "baccarat", "nz-baccarat", t(0))
        .unwrap();
    accounts::create_first_admin(&mut store, "root", STRONG, "pit-ws-3", t(0)).unwrap();
    let root = at("root", Role::Admin);
    for (name, role) in [("ana", Role::Supervisor), ("sam", Role::Surveillance)] {
        accounts::add_user(&mut store, &root, name, role, STRONG, t(1)).unwrap();
    }
    let device = store
        .ensure_device(
            &DeviceIdentity {
                protocol: "angel-eye".into(),
                port: "/dev/ttyUSB0".into(),
                ..Default::default()
            },
            t(1),
        )
        .unwrap();
    let session = store.start_session(table, device, t(1)).unwrap();
    let mut batch = store.batch(t(2)).unwrap();
    batch.record_shoe(table, 1, 1, r#"{"shoe":0}"#).unwrap();
    for i in 0..10u64 {
        let bytes = format!("card {i}").into_bytes();
        let chunk = batch.append_chunk(session, t(2), &bytes).unwrap();
        let frame = batch
            .append_frame(session, chunk, t(2), &bytes, None)
            .unwrap();
        let event = TableEvent::new(i + 1, EventKind::card("8S".parse().unwrap())).at(t(2));
        batch
            .append_event(table, Some(session), Some(frame), &event)
            .unwrap();
    }
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
    incidents::acknowledge(&mut store, &at("ana", Role::Supervisor), id.0, t(3)).unwrap();
    incidents::add_note(
        &mut store,
        &at("ana", Role::Supervisor),
        id.0,
        "Camera 14",
        t(4),
    )
    .unwrap();
    (store, id.0)
}

/// What the front ends run: the role rule, the report, the vouching, the pack.
fn export(
    dir: &std::path::Path,
    store: &mut Store,
    who: &Principal,
    id: i64,
    out: &std::path::Path,
) -> Result<pitwatch_api::dto::EvidencePackFile, pitwatch_api::ApiError> {
    reports::may_export(
        store,
        who,
        Command::ExportIncident,
        &format!("incident {id}"),
        t(5),
    )?;
    let mut reader = Store::open_read_only(dir.join("pit.db"))?;
    reader.trust(store.trusted_keys());
    let pdf = evidence::pack_report(&reader, who, id, "pit.db", t(5))?;
    reports::vouch(&reader, store)?;
    evidence::write_pack(store, who, id, &pdf, out, t(5))
}

#[test]
fn a_pack_exported_here_verifies_elsewhere_with_only_the_public_key() {
    let dir = tempfile::tempdir().unwrap();
    let (mut store, id) = record(dir.path());
    let out = dir.path().join("packs").join("incident.pwpack");
    let sam = at("sam", Role::Surveillance);
    let written = export(dir.path(), &mut store, &sam, id, &out).unwrap();
    assert_eq!(written.path, out.display().to_string());
    let public = SigningKey::load(&dir.path().join("signing.key"))
        .unwrap()
        .public();
    assert_eq!(written.fingerprint, public.fingerprint());
    // Audited before the pack was built, so the pack holds its own export.
    let exports = store.audit_entries(evidence::EXPORT_PACK).unwrap();
    assert_eq!(exports.len(), 1);
    assert_eq!(exports[0].user, "sam");
    assert_eq!(exports[0].subject, format!("incident {id}"));
    let export_row: i64 = exports[0].id;

    // A fresh folder on another machine: the pack and the public key's hex, nothing else.
    let elsewhere = tempfile::tempdir().unwrap();
    let copy = elsewhere.path().join("incident.pwpack");
    std::fs::copy(&out, &copy).unwrap();
    let key_hex = public.to_hex();
    drop(store);
    drop(dir);
    let report = check_pack(
        &std::fs::read(&copy).unwrap(),
        &Trust::parse(&key_hex).unwrap(),
    );
    assert!(report.verifies(), "{:#?}", report.problems);
    let manifest = report.manifest.as_ref().unwrap();
    assert_eq!(
        (manifest.incident, manifest.created_by.as_str()),
        (id, "sam")
    );
    assert!(
        report.evidence["audit_log"].contains(&export_row),
        "{report:#?}"
    );
    assert_eq!(report.evidence["events"].len(), 10);
    assert_eq!(report.evidence["incident_notes"].len(), 1);
    // The report inside is the incident's PDF.
    let members = pitwatch_store::pack::tar::read(&std::fs::read(&copy).unwrap()).unwrap();
    let pdf = members.iter().find(|m| m.name == "report.pdf").unwrap();
    assert!(pdf.bytes.starts_with(b"%PDF-"));
}

#[test]
fn the_pack_follows_the_incident_report_s_role_rule_and_refuses_a_folder() {
    let dir = tempfile::tempdir().unwrap();
    let (mut store, id) = record(dir.path());
    // Every role that may export an incident report may export its pack, and only those.
    for role in [Role::Admin, Role::Supervisor, Role::Surveillance] {
        let who = at(&format!("{role:?}").to_lowercase(), role);
        let out = dir.path().join(format!("{role:?}.pwpack"));
        let result = export(dir.path(), &mut store, &who, id, &out);
        assert_eq!(
            result.is_ok(),
            Command::ExportIncident.allowed(role),
            "{role:?}: {result:?}"
        );
        assert_eq!(out.exists(), result.is_ok());
    }
    // A folder is no file name: refused before anything is audited.
    let before = store.audit_entries(evidence::EXPORT_PACK).unwrap().len();
    let folder = export(
        dir.path(),
        &mut store,
        &at("ana", Role::Supervisor),
        id,
        dir.path(),
    )
    .unwrap_err();
    assert_eq!(folder.code, ErrorCode::InvalidInput);
    assert_eq!(
        store.audit_entries(evidence::EXPORT_PACK).unwrap().len(),
        before
    );
    // An incident not on record: no pack.
    let missing = export(
        dir.path(),
        &mut store,
        &at("ana", Role::Supervisor),
        99,
        &dir.path().join("99.pwpack"),
    )
    .unwrap_err();
    assert_eq!(missing.code, ErrorCode::NotFound, "{missing}");
}

#[test]
fn the_surveillance_log_is_a_chained_note_listed_in_the_pack_and_checked_against_it() {
    use pitwatch_api::dto::SurveillanceLog;
    let dir = tempfile::tempdir().unwrap();
    let (mut store, id) = record(dir.path());
    let sam = at("sam", Role::Surveillance);
    // Every field missing or unfit is named at once; nothing is written.
    let bad = SurveillanceLog {
        camera: " ".into(),
        time_code: "21:14\n05".into(),
        disposition: String::new(),
        employees: vec![],
    };
    let refused = incidents::add_surveillance_log(&mut store, &sam, id, &bad, t(5)).unwrap_err();
    assert_eq!(refused.code, ErrorCode::InvalidInput);
    for named in [
        "camera or recording reference is missing",
        "time code holds a line break",
        "disposition is missing",
    ] {
        assert!(refused.message.contains(named), "{named}: {refused}");
    }
    let log = SurveillanceLog {
        camera: "CAM-14 / REC-2026-12-07-A".into(),
        time_code: "21:14:05".into(),
        disposition: "Dealer burnt two cards; re-trained".into(),
        employees: vec!["D. Smith (4411)".into(), " ".into(), "A. Jones".into()],
    };
    incidents::add_surveillance_log(&mut store, &sam, id, &log, t(5)).unwrap();
    let history = store
        .incident_history(pitwatch_store::IncidentId(id))
        .unwrap();
    let entered = history.last().unwrap();
    assert_eq!(entered.what, "note");
    assert_eq!(
        entered.text.as_deref(),
        Some(
            "Surveillance log\nCamera or recording: CAM-14 / REC-2026-12-07-A\nTime code: 21:14:05\n\
             Disposition: Dealer burnt two cards; re-trained\nEmployees involved: D. Smith (4411); A. Jones"
        )
    );
    // A plain note cannot pass itself off as one.
    let posing = incidents::add_note(
        &mut store,
        &sam,
        id,
        "Surveillance log\nCamera or recording: none",
        t(6),
    )
    .unwrap_err();
    assert_eq!(posing.code, ErrorCode::InvalidInput);

    let out = dir.path().join("incident.pwpack");
    export(dir.path(), &mut store, &sam, id, &out).unwrap();
    let public = SigningKey::load(&dir.path().join("signing.key"))
        .unwrap()
        .public();
    let bytes = std::fs::read(&out).unwrap();
    let report = check_pack(&bytes, &Trust::Key(public));
    assert!(report.verifies(), "{:#?}", report.problems);
    let listed = &report.manifest.as_ref().unwrap().surveillance;
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].user, "sam");
    assert!(listed[0].text.contains("Time code: 21:14:05"));
    assert_eq!(
        report.evidence["incident_notes"].len(),
        2,
        "the plain note and the log"
    );
}
