//! Retention and the archive step at the application layer (issue 32): only an administrator
//! archives, never anything more recent than the site allows, under the jurisdiction's
//! retention; the roles that read the audit log list and check the archives; a missing or
//! changed archive is found.

use pitwatch_api::ErrorCode;
use pitwatch_app::access::{Principal, FORBIDDEN, INSPECTED};
use pitwatch_app::accounts;
use pitwatch_app::archive;
use pitwatch_model::{EventKind, TableEvent, Timestamp};
use pitwatch_recording::pit::{PitConfig, RecordConfig};
use pitwatch_store::{DeviceIdentity, Role, Sealing, Store};

const STRONG: &str = "plum kettle orbit 47 lantern";
const DAY: i64 = 86_400_000;

fn t(ms: i64) -> Timestamp {
    Timestamp::from_unix_millis(1_780_000_000_000 + ms).unwrap()
}

fn who(user: &str, role: Role) -> Principal {
    Principal {
        user: user.into(),
        role,
        workstation: "pit-ws-3".into(),
    }
}

/// A record at `dir/pit.db` with its users and `days` days of a table's play (a shoe a day,
/// a transaction a round).
fn record(dir: &std::path::Path, days: i64) -> Store {
    let db = dir.join("pit.db");
    let mut store = Store::open(&db, &Sealing::key_file(dir.join("signing.key"))).unwrap();
    accounts::create_first_admin(&mut store, "root", STRONG, "pit-ws-3", t(0)).unwrap();
    let root = who("root", Role::Admin);
    for (name, role) in [
        ("ana", Role::Supervisor),
        ("sam", Role::Surveillance),
        ("ivy", Role::Inspector),
    ] {
        accounts::add_user(&mut store, &root, name, role, STRONG, t(0)).unwrap();
    }
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
    let mut seq = 0;
    for day in 0..days {
        for round in 0..6 {
            let now = t(day * DAY + round * 60_000);
            let mut batch = store.batch(now).unwrap();
            if round == 0 {
                batch
                    .record_shoe(table, day as u32 + 1, seq + 1, r#"{"shoe":0}"#)
                    .unwrap();
            }
            for _ in 0..4 {
                seq += 1;
                let bytes = format!("card {seq}").into_bytes();
                let chunk = batch.append_chunk(session, now, &bytes).unwrap();
                let frame = batch
                    .append_frame(session, chunk, now, &bytes, None)
                    .unwrap();
                let event = TableEvent::new(seq, EventKind::card("8S".parse().unwrap())).at(now);
                batch
                    .append_event(table, Some(session), Some(frame), &event)
                    .unwrap();
            }
            batch.commit().unwrap();
        }
    }
    store
}

fn config() -> RecordConfig {
    RecordConfig::default()
}

#[test]
fn only_an_administrator_archives_and_never_what_is_more_recent_than_the_site_allows() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = record(dir.path(), 10);
    let db = dir.path().join("pit.db");
    let now = t(100 * DAY);
    for (user, role) in [
        ("ana", Role::Supervisor),
        ("sam", Role::Surveillance),
        ("ivy", Role::Inspector),
    ] {
        let refused =
            archive::archive(&mut store, &who(user, role), &config(), &db, None, now).unwrap_err();
        assert_eq!(refused.code, ErrorCode::Forbidden, "{user}");
    }
    let refusals = store.audit_entries(FORBIDDEN).unwrap();
    assert_eq!(
        refusals
            .iter()
            .filter(|e| e.subject == "archive_record")
            .count(),
        3
    );
    assert!(store.archives().unwrap().is_empty());

    // Ninety days by default: a cut-off at day 50 is too recent at day 100.
    let root = who("root", Role::Admin);
    let refused =
        archive::archive(&mut store, &root, &config(), &db, Some(t(50 * DAY)), now).unwrap_err();
    assert_eq!(refused.code, ErrorCode::InvalidInput);
    assert!(refused.message.contains("90 days"), "{}", refused.message);

    // At day 95, what is older than day 5 goes, under New Zealand's seven years.
    let entry = archive::archive(&mut store, &root, &config(), &db, None, t(95 * DAY)).unwrap();
    assert_eq!(entry.number, 1);
    assert_eq!(entry.retention.years, 7);
    assert!(
        entry.retention.cite.contains("s 177"),
        "{}",
        entry.retention.cite
    );
    assert_eq!(entry.made_by, "root");
    assert!(entry.path().starts_with(dir.path().join("archive")));
    let last = entry.last_at.as_deref().unwrap();
    assert!(last < t(5 * DAY).to_string().as_str(), "{last}");
    // Kept until seven years after its last record.
    let year: i32 = last[..4].parse().unwrap();
    assert!(entry.keep_until.starts_with(&(year + 7).to_string()));
    assert!(store.verify().unwrap().intact());

    // Nothing more to move until more of the record is old enough.
    let again = archive::archive(&mut store, &root, &config(), &db, None, t(95 * DAY)).unwrap_err();
    assert_eq!(again.code, ErrorCode::NotFound, "{}", again.message);
}

#[test]
fn the_audit_roles_list_and_check_archives_and_a_missing_or_changed_one_is_found() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = record(dir.path(), 12);
    let db = dir.path().join("pit.db");
    let root = who("root", Role::Admin);
    let first = archive::archive(
        &mut store,
        &root,
        &config(),
        &db,
        Some(t(4 * DAY)),
        t(200 * DAY),
    )
    .unwrap();
    let second = archive::archive(
        &mut store,
        &root,
        &config(),
        &db,
        Some(t(8 * DAY)),
        t(200 * DAY),
    )
    .unwrap();
    assert_eq!(second.number, 2);

    // The supervisor may not look; the inspector's look is audited.
    let refused =
        archive::list(&mut store, &who("ana", Role::Supervisor), t(201 * DAY)).unwrap_err();
    assert_eq!(refused.code, ErrorCode::Forbidden);
    let listed = archive::list(&mut store, &who("ivy", Role::Inspector), t(201 * DAY)).unwrap();
    assert_eq!(listed, vec![first.clone(), second.clone()]);
    assert!(store
        .audit_entries(INSPECTED)
        .unwrap()
        .iter()
        .any(|e| e.subject == "audit"));

    let checks = archive::check(&mut store, &who("sam", Role::Surveillance), t(201 * DAY)).unwrap();
    assert_eq!(checks.len(), 2);
    for check in &checks {
        assert_eq!(
            check.problems,
            Vec::<String>::new(),
            "archive {}",
            check.entry.number
        );
        assert!(!check.past_retention);
    }
    // Eight years on, both are past their retention: listed as such, nothing deleted.
    let late = archive::check(&mut store, &root, t(8 * 366 * DAY)).unwrap();
    assert!(late
        .iter()
        .all(|c| c.past_retention && c.problems.is_empty()));
    assert!(first.path().exists() && second.path().exists());

    // One byte added to the first, the second moved away.
    use std::io::Write;
    std::fs::OpenOptions::new()
        .append(true)
        .open(first.path())
        .unwrap()
        .write_all(b"\0")
        .unwrap();
    std::fs::rename(second.path(), dir.path().join("elsewhere.db")).unwrap();
    let checks = archive::check(&mut store, &root, t(202 * DAY)).unwrap();
    assert!(
        checks[0].problems[0].contains("has changed"),
        "{:?}",
        checks[0].problems
    );
    assert!(
        checks[1].problems[0].contains("missing"),
        "{:?}",
        checks[1].problems
    );
    // The live record itself still verifies: the archives are checked apart.
    assert!(store.verify().unwrap().intact());
}

#[test]
fn retention_is_the_jurisdictions_and_never_shorter() {
    let pit = |record: &str| {
        PitConfig::from_toml(&format!(
            "[site]\nname = \"S\"\n[record]\n{record}\n[[table]]\nname = \"T1\"\n\
             game = \"baccarat\"\nrules = \"nz-baccarat\"\ndevice = {{ protocol = \"angel-eye\" }}\n\
             link = {{ kind = \"tcp\", address = \"127.0.0.1:9\" }}\n"
        ))
    };
    let nz = pit("").unwrap().record.retention().unwrap();
    assert_eq!((nz.jurisdiction.as_str(), nz.years), ("nz", 7));
    let longer = pit("retention_years = 10")
        .unwrap()
        .record
        .retention()
        .unwrap();
    assert_eq!(longer.years, 10);
    assert!(longer.cite.contains("own 10 years"), "{}", longer.cite);
    for (text, said) in [
        ("retention_years = 5", "shorter"),
        ("jurisdiction = \"xx\"", "no retention on file"),
        ("archive_after_days = 2", "at least a week"),
    ] {
        let error = pit(text).unwrap_err().to_string();
        assert!(error.contains(said), "{text}: {error}");
    }
}
