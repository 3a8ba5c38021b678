//! Golden tests of the reports as a reader gets them: each report of a small, fixed record is
//! rendered to PDF, its text extracted with poppler's `pdftotext -layout`, and compared with
//! `tests/golden/*.txt`. The record has names and notes in te reo Māori and Chinese, a device
//! error, a link outage, a recording gap, two dealers (a hand-over) and a hand-over sign-off, so
//! every section of the shift report has something to show. `UPDATE_GOLDEN=1 cargo test -p pitwatch-recording --test reports`
//! rewrites the golden files (then read the diff). Needs poppler-utils
//! (`scripts/install-system-deps.sh`); a missing `pdftotext` fails the test.

use std::path::{Path, PathBuf};
use std::process::Command;

use pitwatch_baccarat::RuleBook;
use pitwatch_model::{TableEvent, Timestamp};
use pitwatch_recording::recorder::TableRecorder;
use pitwatch_recording::report::{self, Shift};
use pitwatch_store::{IncidentId, Role, Sealing, SigningKey, Store};

/// 2026-11-30T06:00:00Z, the shift's start.
const T0: i64 = 1_796_018_400_000;
const MIN: i64 = 60_000;

fn at(ms: i64) -> Timestamp {
    Timestamp::from_unix_millis(ms).expect("a time")
}

/// One shoe's start and two rounds: the burn counted wrong, the first round's result declared
/// wrong, a device error raised and cleared between the rounds.
fn script(start: i64) -> Vec<TableEvent> {
    let lines = [
        r#"{"event":"shuffled","decks":8,"shuffler":"batch"}"#,
        r#"{"event":"cut","position":180}"#,
        r#"{"event":"cutting_card_placed","from_back":24}"#,
        r#"{"event":"card_drawn","card":"3H","target":"first","face_up":true}"#,
        r#"{"event":"card_drawn","card":"KD","target":"burn"}"#,
        r#"{"event":"card_drawn","card":"7C","target":"burn"}"#,
        r#"{"event":"burn_counted","count":2}"#,
        r#"{"event":"card_drawn","card":"4S","target":"player","index":1}"#,
        r#"{"event":"card_drawn","card":"KD","target":"banker","index":1}"#,
        r#"{"event":"card_drawn","card":"2D","target":"player","index":2}"#,
        r#"{"event":"card_drawn","card":"5C","target":"banker","index":2}"#,
        r#"{"event":"card_drawn","card":"2H","target":"banker","index":3}"#,
        r#"{"event":"result_declared","outcome":"player"}"#,
        r#"{"event":"device_error","code":"E7","text":"Card jam 卡紙"}"#,
        r#"{"event":"device_error_cleared","code":"E7"}"#,
        r#"{"event":"card_drawn","card":"9S","target":"player","index":1}"#,
        r#"{"event":"card_drawn","card":"8D","target":"banker","index":1}"#,
        r#"{"event":"card_drawn","card":"TD","target":"player","index":2}"#,
        r#"{"event":"card_drawn","card":"KC","target":"banker","index":2}"#,
        r#"{"event":"result_declared","outcome":"player"}"#,
    ];
    lines
        .iter()
        .enumerate()
        .map(|(i, line)| {
            let value = serde_json::from_str(line).expect("JSON");
            let mut event = TableEvent::from_json(value, Some(i as u64 + 1)).expect("an event");
            // The device error stays up for 4 minutes; the rest comes a few seconds apart.
            let offset = if i >= 14 { 4 * MIN } else { 0 };
            event.at = Some(at(start + i as i64 * 5_000 + offset));
            event
        })
        .collect()
}

/// `name` signs in at the table at `ms` (a hand-over when someone else is signed in).
fn dealer(name: &str, ms: i64) -> TableEvent {
    let value = serde_json::json!({"event": "dealer_signed_in", "dealer": name});
    let mut event = TableEvent::from_json(value, Some(1)).expect("an event");
    event.at = Some(at(ms));
    event
}

fn feed(store: &mut Store, recorder: &mut TableRecorder, events: Vec<TableEvent>) {
    let mut derived = Vec::new();
    let now = events.first().and_then(|e| e.at).unwrap_or(at(T0));
    let mut batch = store.batch(now).expect("a batch");
    for event in events {
        let received = event.at.expect("timed");
        recorder
            .ingest_event(&mut batch, event, received, &mut derived)
            .expect("recorded");
    }
    batch.commit().expect("committed");
}

/// The record: table BAC-1 plays a shoe, loses its link for 10 minutes, plays on, then Pitwatch
/// is stopped; MINI-7 is set up but never connects. Incidents are worked by Mere Tūhoe and
/// 王小明, and Mere Tūhoe signs the shift off.
fn record(dir: &Path) -> PathBuf {
    let db = dir.join("pit.db");
    let mut store = Store::open(&db, &Sealing::key(installation_key())).expect("a store");
    store
        .set_meta("site", "Te Whare Petipeti · 澳門", at(T0))
        .expect("site");
    store
        .add_user(
            "admin",
            "Mere Tūhoe",
            Role::Supervisor,
            "correct horse",
            at(T0),
        )
        .expect("a user");
    store
        .add_user(
            "admin",
            "王小明",
            Role::Surveillance,
            "correct horse",
            at(T0),
        )
        .expect("a user");
    let book = RuleBook::load("nz-baccarat").expect("the rule book");
    TableRecorder::resume(
        &mut store,
        "MINI-7",
        "baccarat",
        book.clone(),
        None,
        None,
        at(T0),
    )
    .expect("MINI-7");
    let mut recorder =
        TableRecorder::resume(&mut store, "BAC-1", "baccarat", book, None, None, at(T0))
            .expect("BAC-1");

    recorder
        .connect(&mut store, "/dev/ttyUSB0", Default::default(), at(T0 + MIN))
        .expect("connected");
    feed(
        &mut store,
        &mut recorder,
        vec![dealer("Aroha Ngāti", T0 + 9 * MIN)],
    );
    feed(&mut store, &mut recorder, script(T0 + 10 * MIN));
    let mut batch = store.batch(at(T0 + 120 * MIN)).expect("a batch");
    let session = recorder
        .disconnect(&mut batch, at(T0 + 120 * MIN), &mut Vec::new())
        .expect("disconnected")
        .expect("a session");
    batch.commit().expect("committed");
    store
        .end_session(session, at(T0 + 120 * MIN), "connection reset by peer")
        .expect("ended");

    recorder
        .connect(
            &mut store,
            "/dev/ttyUSB0",
            Default::default(),
            at(T0 + 130 * MIN),
        )
        .expect("reconnected");
    feed(
        &mut store,
        &mut recorder,
        vec![dealer("李明", T0 + 139 * MIN)],
    );
    feed(&mut store, &mut recorder, script(T0 + 140 * MIN));
    let mut batch = store.batch(at(T0 + 180 * MIN)).expect("a batch");
    let session = recorder
        .disconnect(&mut batch, at(T0 + 180 * MIN), &mut Vec::new())
        .expect("disconnected")
        .expect("a session");
    batch.commit().expect("committed");
    store
        .end_session(session, at(T0 + 180 * MIN), "stopped by the host")
        .expect("ended");

    store
        .acknowledge(IncidentId(1), "Mere Tūhoe", at(T0 + 30 * MIN))
        .expect("acknowledged");
    store
        .add_note(
            IncidentId(2),
            "Mere Tūhoe",
            "Kua tirohia te kāmera 14",
            at(T0 + 35 * MIN),
        )
        .expect("noted");
    store
        .resolve(IncidentId(2), "王小明", "監控已檢查", at(T0 + 40 * MIN))
        .expect("resolved");
    let shift = Shift::new(at(T0), at(T0 + 720 * MIN), None).expect("a shift");
    report::record_sign_off(
        &mut store,
        "Mere Tūhoe",
        &shift,
        "Kua tirohia te kāmera 14; 監控已檢查",
        at(T0 + 719 * MIN),
    )
    .expect("signed off");
    // Reopened with a reason, and the hand-over accepted by the incoming shift.
    store
        .reopen(
            IncidentId(2),
            "Mere Tūhoe",
            "Kāmera 14: he kāri tuarua",
            at(T0 + 50 * MIN),
        )
        .expect("reopened");
    let signed = store
        .audit_entries(report::SHIFT_SIGN_OFF)
        .expect("sign-offs")
        .pop()
        .expect("the sign-off");
    let acceptance = report::Acceptance {
        sign_off: signed.id,
        signed_off_by: signed.user.clone(),
        from: shift.from,
        to: shift.to,
        table: None,
        workstation: "pit-1".into(),
    };
    let mut batch = store.batch(at(T0 + 719 * MIN + 30_000)).expect("a batch");
    batch
        .append_audit(
            "王小明",
            report::SHIFT_ACCEPT,
            &format!("shift {} to {}", shift.from, shift.to),
            &serde_json::to_string(&acceptance).expect("JSON"),
            at(T0 + 719 * MIN + 30_000),
        )
        .expect("accepted");
    batch.commit().expect("committed");
    db
}

fn pdftotext(pdf: &Path) -> String {
    let output = Command::new("pdftotext")
        .args(["-layout"])
        .arg(pdf)
        .arg("-")
        .output()
        .unwrap_or_else(|e| {
            panic!("pdftotext cannot run ({e}): install poppler-utils (scripts/install-system-deps.sh)")
        });
    assert!(output.status.success(), "pdftotext failed");
    String::from_utf8(output.stdout).expect("UTF-8")
}

/// The installation key the record is signed with: fixed, so its fingerprint is the same in
/// every run.
fn installation_key() -> SigningKey {
    SigningKey::from_secret([42; 32])
}

/// The record, read-only, trusting the installation key.
fn read_only(db: &Path) -> Store {
    let mut store = Store::open_read_only(db).expect("the record");
    store.trust(vec![installation_key().public()]);
    store
}

/// What differs from one run to the next in a report: the record's random id and everything
/// signed with it (the checkpoint, the facts' and checkpoints' chain heads), and the commit the
/// program was built from (the build is checked to be this program's first).
fn stable(mut document: pitwatch_report::Document) -> pitwatch_report::Document {
    use pitwatch_report::Block;
    assert_eq!(document.build, pitwatch_report::build::label());
    assert!(
        document
            .build
            .starts_with(&format!("Pitwatch {} (build ", env!("CARGO_PKG_VERSION"))),
        "{}",
        document.build
    );
    document.build = format!(
        "Pitwatch {} (build: differs in every commit)",
        env!("CARGO_PKG_VERSION")
    );
    for block in &mut document.blocks {
        match block {
            Block::Fields { fields } => {
                for (label, value) in fields {
                    if [
                        "Record id",
                        "Latest checkpoint",
                        "facts head",
                        "checkpoints head",
                    ]
                    .contains(&label.as_str())
                    {
                        *value = format!("({label}: differs in every run)");
                    }
                }
            }
            Block::Paragraph { text } => *text = without_checkpoint(text),
            _ => {}
        }
    }
    document
}

/// `text` with any checkpoint in it replaced by a placeholder.
fn without_checkpoint(text: &str) -> String {
    match text.find("pitwatch-checkpoint:1:") {
        Some(start) => {
            let end = text[start..].find('\'').map_or(text.len(), |e| start + e);
            format!("{}(checkpoint){}", &text[..start], &text[end..])
        }
        None => text.to_owned(),
    }
}

/// Renders `document`, extracts its text and compares it with `tests/golden/{name}.txt`.
fn check(name: &str, document: pitwatch_report::Document) -> String {
    let document = stable(document).stamped("Mere Tūhoe", at(T0 + 720 * MIN).as_datetime());
    let pdf = pitwatch_report::render_pdf(&document).expect("a PDF");
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("reports");
    std::fs::create_dir_all(&out).expect("a directory");
    let file = out.join(format!("{name}.pdf"));
    std::fs::write(&file, &pdf.bytes).expect("written");
    let text = pdftotext(&file);
    let golden = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(format!("{name}.txt"));
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::create_dir_all(golden.parent().expect("a parent")).expect("a directory");
        std::fs::write(&golden, &text).expect("written");
    }
    let expected = std::fs::read_to_string(&golden).unwrap_or_default();
    assert!(
        text == expected,
        "{name}: the PDF's text differs from {} (UPDATE_GOLDEN=1 rewrites it; {} has the PDF):\n{text}",
        golden.display(),
        file.display()
    );
    text
}

#[test]
fn the_incident_report_reads_as_recorded_in_every_script() {
    let dir = tempfile::tempdir().expect("a directory");
    let db = record(dir.path());
    let store = read_only(&db);
    let document = report::incident_report(&store, IncidentId(2), "pit.db").expect("a report");
    let text = check("incident-2", document);
    for expected in [
        "Mere Tūhoe",
        "Kua tirohia te kāmera 14",
        "監控已檢查",
        "王小明",
    ] {
        assert!(text.contains(expected), "{expected}");
    }
}

#[test]
fn the_shoe_report_reads_as_recorded() {
    let dir = tempfile::tempdir().expect("a directory");
    let db = record(dir.path());
    let store = read_only(&db);
    let document = report::shoe_report(&store, "BAC-1", 1).expect("a report");
    let text = check("shoe-1", document);
    assert!(text.contains("Te Whare Petipeti · 澳門"), "{text}");
    // Where the shoe came from, as its record says.
    for expected in [
        "Provenance",
        "Shuffled",
        "Shuffler's deck check",
        "First card",
        "Cards drawn",
    ] {
        assert!(text.contains(expected), "{expected} in {text}");
    }
}

#[test]
fn the_shift_report_hands_over_everything_that_happened() {
    let dir = tempfile::tempdir().expect("a directory");
    let db = record(dir.path());
    let store = read_only(&db);
    let shift = Shift::new(at(T0), at(T0 + 720 * MIN), None).expect("a shift");
    let document = report::shift_report(&store, &shift, "pit.db").expect("a report");
    let text = check("shift", document);
    for expected in [
        "Mere Tūhoe",
        "Kua tirohia te kāmera 14; 監控已檢查",
        "監控已檢查",
        "王小明",
        "Card jam 卡紙",
        "connection reset by peer",
        "Pitwatch stopped: not recording",
        "Reopened",
        // The reason, as far as its cell's first line.
        "Kāmera 14: he kāri",
        "accepted by 王小明",
    ] {
        assert!(text.contains(expected), "{expected}");
    }
    // The record's signing key is printed for the next shift to compare, and the checkpoint
    // (masked above, since it differs in every run) with the command that checks it.
    assert!(
        text.contains(&installation_key().public().fingerprint()),
        "the key's fingerprint"
    );
    assert!(text.contains("--checkpoint"), "how to check the record");
    let document = report::shift_report(&store, &shift, "pit.db").expect("again");
    let printed = document
        .blocks
        .iter()
        .find_map(|b| match b {
            pitwatch_report::Block::Fields { fields } => fields
                .iter()
                .find(|(label, _)| label == "Latest checkpoint")
                .map(|(_, v)| v.clone()),
            _ => None,
        })
        .expect("the latest checkpoint");
    assert_eq!(
        Some(printed),
        store
            .latest_checkpoint()
            .expect("read")
            .map(|c| c.to_string())
    );
}

#[test]
fn a_shift_report_of_one_table_and_an_earlier_period_shows_only_those() {
    let dir = tempfile::tempdir().expect("a directory");
    let db = record(dir.path());
    let store = read_only(&db);
    // The first hour of BAC-1 only: the shoe's first rounds, not the link outage at 08:00.
    let shift = Shift::new(at(T0), at(T0 + 60 * MIN), Some("BAC-1".into())).expect("a shift");
    let document = report::shift_report(&store, &shift, "pit.db").expect("a report");
    let json = document.to_json();
    assert!(!json.contains("MINI-7"), "{json}");
    assert!(!json.contains("connection reset by peer"), "{json}");
    assert!(json.contains("Card jam 卡紙"), "{json}");
    // Signed off for the whole day, which includes this hour.
    assert!(json.contains("Mere Tūhoe at 2026-11-30 17:59:00"), "{json}");
    assert!(matches!(
        Shift::new(at(T0), at(T0), None),
        Err(pitwatch_store::StoreError::Invalid(_))
    ));
    assert!(matches!(
        report::shift_report(
            &store,
            &Shift::new(at(T0), at(T0 + MIN), Some("BAC-9".into())).expect("a shift"),
            "pit.db"
        ),
        Err(pitwatch_store::StoreError::NotFound(_))
    ));
}

#[test]
fn in_the_site_s_time_zone_every_time_is_local_and_says_its_zone() {
    use pitwatch_recording::pit::SiteConfig;
    let dir = tempfile::tempdir().expect("a directory");
    let db = record(dir.path());
    let site = |zone: Option<&str>| SiteConfig {
        name: "Te Whare Petipeti · 澳門".into(),
        time_zone: zone.map(str::to_owned),
    };
    let mut store = Store::open(&db, &Sealing::key(installation_key())).expect("the record");
    report::record_site(
        &mut store,
        &site(Some("Pacific/Auckland")),
        at(T0 + 721 * MIN),
    )
    .expect("the site's zone");
    drop(store);
    let store = read_only(&db);
    let incident = report::incident_report(&store, IncidentId(2), "pit.db").expect("a report");
    let json = incident.to_json();
    // Opened at 06:11 UTC: 19:11 in Auckland's summer time (UTC+13).
    for expected in [
        "opened 2026-11-30 19:11:00 NZDT",
        "2026-11-30 19:10:35.000 NZDT",
        "the host's receive times (Pacific/Auckland)",
        "1 from 2026-11-30 19:01:00 NZDT to 2026-11-30 21:00:00 NZDT",
    ] {
        assert!(json.contains(expected), "{expected}: {json}");
    }
    assert!(!json.contains("(UTC)"), "{json}");
    let shift = Shift::new(at(T0), at(T0 + 720 * MIN), None).expect("a shift");
    let document = report::shift_report(&store, &shift, "pit.db").expect("a report");
    let json = document.to_json();
    for expected in [
        "Shift report 2026-11-30 19:00:00 NZDT to 2026-12-01 07:00:00 NZDT",
        "times in Pacific/Auckland",
        "Mere Tūhoe at 2026-12-01 06:59:00 NZDT",
    ] {
        assert!(json.contains(expected), "{expected}: {json}");
    }
    assert!(!json.contains("UTC"), "{json}");
    // The PDF, to look at: `target/tmp/reports/shift-auckland.pdf`.
    let stamped = document.stamped("Mere Tūhoe", at(T0 + 720 * MIN).as_datetime());
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("reports");
    std::fs::create_dir_all(&out).expect("a directory");
    let pdf = pitwatch_report::render_pdf(&stamped).expect("a PDF");
    std::fs::write(out.join("shift-auckland.pdf"), &pdf.bytes).expect("written");
    let text = pdftotext(&out.join("shift-auckland.pdf"));
    assert!(text.contains("times in Pacific/Auckland"), "{text}");
    assert!(text.contains("2026-11-30 19:11:00"), "{text}");
    drop(store);

    // Taken out of the pit definition, the reports are in UTC again.
    let mut store = Store::open(&db, &Sealing::key(installation_key())).expect("the record");
    report::record_site(&mut store, &site(None), at(T0 + 722 * MIN)).expect("no zone");
    drop(store);
    let json = report::shift_report(&read_only(&db), &shift, "pit.db")
        .expect("a report")
        .to_json();
    assert!(json.contains("times in UTC"), "{json}");
    assert!(json.contains("Opened (UTC)"), "{json}");
}

/// The dealers' section is the supervisors' and administrators': a copy for anyone else leaves
/// it out and says so; a table's own target (the pit definition's) replaces its game's.
#[test]
fn a_shift_report_s_dealers_are_left_out_of_a_copy_for_others_and_held_to_the_table_s_target() {
    let dir = tempfile::tempdir().expect("a directory");
    let db = record(dir.path());
    let store = read_only(&db);
    let shift = Shift::new(at(T0), at(T0 + 720 * MIN), None).expect("a shift");
    let withheld = report::shift_report_with(&store, &shift, "pit.db", None)
        .expect("a report")
        .to_json();
    assert!(withheld.contains("Not in this copy"), "{withheld}");
    assert!(!withheld.contains("Aroha"), "{withheld}");
    let own = [("BAC-1".to_owned(), 24)].into();
    let held = report::shift_report_with(&store, &shift, "pit.db", Some(&own))
        .expect("a report")
        .to_json();
    assert!(held.contains("100% of 24"), "{held}");
    assert!(
        held.contains("Aroha Ngāti") && held.contains("李明"),
        "{held}"
    );
}
