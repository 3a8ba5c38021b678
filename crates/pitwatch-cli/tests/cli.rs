//! The `pitwatch` binary as a user runs it: arguments in, text and exit codes out.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn pitwatch(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pitwatch"))
        .args(args)
        .output()
        .expect("pitwatch runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The JSON Lines example in docs/events.md, so the documentation cannot drift from the reader.
fn documented_example() -> String {
    let doc = std::fs::read_to_string(repo().join("docs/events.md")).expect("docs/events.md");
    let start = doc.find("```json\n").expect("a json block") + "```json\n".len();
    let end = start + doc[start..].find("```").expect("the block ends");
    doc[start..end].to_owned()
}

#[test]
fn version_and_help() {
    let out = pitwatch(&["--version"]);
    assert!(out.status.success());
    assert_eq!(
        text(&out.stdout).trim(),
        format!("pitwatch {}", env!("CARGO_PKG_VERSION"))
    );
    let out = pitwatch(&["--help"]);
    assert!(out.status.success());
    assert!(text(&out.stdout).contains("events"));
}

#[test]
fn events_check_accepts_the_documented_example() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("example.jsonl");
    std::fs::write(&file, documented_example()).unwrap();
    let out = pitwatch(&["events", "check", file.to_str().unwrap()]);
    assert!(out.status.success(), "stderr: {}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("valid, 15 events (seq 1 to 15)"),
        "{stdout}"
    );
    assert!(stdout.contains("card_drawn"), "{stdout}");
}

#[test]
fn events_check_names_the_first_bad_line_and_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bad.jsonl");
    std::fs::write(
        &file,
        "{\"event\":\"shuffled\",\"decks\":8}\n\n{\"event\":\"card_drawn\",\"card\":\"1S\"}\n{\"event\":\"nonsense\"}\n",
    )
    .unwrap();
    let out = pitwatch(&["events", "check", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("line 3: card_drawn: bad \"card\": \"1S\" is not a card"),
        "{stderr}"
    );
    assert!(
        !stderr.contains("line 4"),
        "only the first bad line: {stderr}"
    );
}

#[test]
fn events_check_on_a_missing_file_is_a_clear_error() {
    let out = pitwatch(&["events", "check", "/nonexistent/pitwatch-events.jsonl"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("cannot open /nonexistent/pitwatch-events.jsonl"));
}

fn recorded_database(dir: &Path) -> PathBuf {
    use pitwatch_model::{EventKind, TableEvent, Timestamp};
    let path = dir.join("pit.db");
    let mut store = pitwatch_store::Store::open(&path).unwrap();
    let now = Timestamp::from_unix_millis(1_796_000_000_000).unwrap();
    let table = store
        .ensure_table("BAC-1", "baccarat", "nz-baccarat", now)
        .unwrap();
    let device = store
        .ensure_device(
            &pitwatch_store::DeviceIdentity {
                protocol: "barcode".into(),
                port: "/dev/ttyS0".into(),
                ..Default::default()
            },
            now,
        )
        .unwrap();
    let session = store.start_session(table, device, now).unwrap();
    let mut batch = store.batch().unwrap();
    for (i, code) in ["029\r", "001\r", "052\r"].iter().enumerate() {
        let chunk = batch.append_chunk(session, now, code.as_bytes()).unwrap();
        let frame = batch
            .append_frame(session, chunk, now, code.as_bytes(), None)
            .unwrap();
        let event = TableEvent::new(i as u64 + 1, EventKind::card("AD".parse().unwrap()));
        batch
            .append_event(table, Some(session), Some(frame), &event)
            .unwrap();
    }
    batch.commit().unwrap();
    path
}

#[test]
fn verify_reports_an_intact_record_with_counts() {
    let dir = tempfile::tempdir().unwrap();
    let db = recorded_database(dir.path());
    let out = pitwatch(&["verify", "--db", db.to_str().unwrap()]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    assert!(stdout.contains("sqlite integrity check: ok"), "{stdout}");
    assert!(stdout.contains("raw_chunks"), "{stdout}");
    assert!(
        stdout
            .lines()
            .any(|l| l.contains("events") && l.contains("3 rows") && l.contains("intact")),
        "{stdout}"
    );
    assert!(stdout.trim_end().ends_with("intact"), "{stdout}");
}

#[test]
fn verify_names_the_first_altered_row_and_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    let db = recorded_database(dir.path());
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute_batch("DROP TRIGGER events_append_only_u; UPDATE events SET body = replace(body, 'AD', 'AS') WHERE id = 2;")
        .unwrap();
    drop(conn);
    let out = pitwatch(&["verify", "--db", db.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("NOT INTACT: events row 2: its content does not match its hash"),
        "{stderr}"
    );
}

#[test]
fn verify_refuses_what_is_not_a_pitwatch_database() {
    let dir = tempfile::tempdir().unwrap();
    let junk = dir.path().join("junk.db");
    std::fs::write(&junk, b"this is not sqlite").unwrap();
    let out = pitwatch(&["verify", "--db", junk.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("not a Pitwatch database")
            || text(&out.stderr).contains("not a database"),
        "{}",
        text(&out.stderr)
    );
    let out = pitwatch(&["verify", "--db", "/nonexistent/pit.db"]);
    assert_eq!(out.status.code(), Some(2));
}
