//! The record's boundaries tried as the attackers of docs/integrity.md would, through the
//! `pitwatch` binary on real database files (issue 25): a forgery the next honest write would
//! sign, a login in someone else's name, parallel password guesses, files others can read.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use pitwatch_store::chain::{self, Chain, GENESIS};
use rusqlite::types::ValueRef;
use rusqlite::Connection;

fn key_file() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("boundary-tests/signing.key")
}

fn command() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_pitwatch"));
    command.env("PITWATCH_KEY", key_file());
    command
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn pitwatch_as(password: &str, args: &[&str]) -> Output {
    command()
        .args(args)
        .env("PITWATCH_PASSWORD", password)
        .output()
        .expect("pitwatch runs")
}

const ROOT_PW: &str = "root keeps the pit keys 42";
const STAFF_PW: &str = "correct horse battery staple";
const MALLORY_PW: &str = "mallory's own long passphrase";

/// A shoe whose burn is miscounted (3 cards burned for a 3's 3, counted 2): one incident.
const SHOE: &str = r#"{"event":"shuffled","decks":8,"shuffler":"batch"}
{"event":"cut","position":180}
{"event":"cutting_card_placed","from_back":24}
{"event":"card_drawn","card":"3H","target":"first","face_up":true}
{"event":"card_drawn","card":"KD","target":"burn"}
{"event":"card_drawn","card":"7C","target":"burn"}
{"event":"burn_counted","count":2}
{"event":"card_drawn","card":"4S","target":"player","index":1}
{"event":"card_drawn","card":"KD","target":"banker","index":1}
{"event":"card_drawn","card":"2D","target":"player","index":2}
{"event":"card_drawn","card":"5C","target":"banker","index":2}
{"event":"card_drawn","card":"2H","target":"banker","index":3}
{"event":"result_declared","outcome":"player"}
"#;

/// A record with a table's shoe (one incident: the burn), an administrator, a supervisor `ana`
/// and a supervisor `mallory`, and a note of ana's on incident 1.
fn staffed(dir: &Path) -> PathBuf {
    let db = dir.join("pit.db");
    let capture = dir.join("shoe.jsonl");
    std::fs::write(&capture, SHOE).unwrap();
    let db_s = db.to_str().unwrap();
    let out = command()
        .args([
            "import", "--db", db_s, "--table", "BAC-1", "--format", "events",
        ])
        .arg(&capture)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = pitwatch_as(
        ROOT_PW,
        &["user", "add", "--db", db_s, "--role", "admin", "root"],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    for (name, password) in [("ana", STAFF_PW), ("mallory", MALLORY_PW)] {
        let out = command()
            .args([
                "user",
                "add",
                "--db",
                db_s,
                "--admin",
                "root",
                "--role",
                "supervisor",
                name,
            ])
            .env("PITWATCH_ADMIN_PASSWORD", ROOT_PW)
            .env("PITWATCH_PASSWORD", password)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out.stderr));
    }
    let out = pitwatch_as(
        STAFF_PW,
        &[
            "incident",
            "note",
            "--db",
            db_s,
            "--user",
            "ana",
            "1",
            "Camera 14 reviewed: nothing",
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    db
}

/// What an attacker with the file does first: the append-only triggers dropped; returns them.
fn drop_triggers(conn: &Connection) -> Vec<String> {
    let triggers: Vec<(String, String)> = conn
        .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'trigger'")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    for (name, _) in &triggers {
        conn.execute_batch(&format!("DROP TRIGGER {name}")).unwrap();
    }
    triggers.into_iter().map(|(_, sql)| sql).collect()
}

fn restore(conn: &Connection, triggers: &[String]) {
    for sql in triggers {
        conn.execute_batch(sql).unwrap();
    }
}

/// Every hash of `chain` recomputed from its first row, as a careful forger does.
fn rechain(conn: &Connection, chain: &Chain) {
    let rows: Vec<(i64, Vec<rusqlite::types::Value>)> = {
        let sql = format!(
            "SELECT {} FROM {} ORDER BY id",
            chain.columns.join(", "),
            chain.table
        );
        let mut statement = conn.prepare(&sql).unwrap();
        let rows = statement
            .query_map([], |r| {
                let values = (0..chain.columns.len())
                    .map(|i| r.get(i))
                    .collect::<Result<Vec<_>, _>>()?;
                Ok((r.get(0)?, values))
            })
            .unwrap();
        rows.collect::<Result<_, _>>().unwrap()
    };
    let mut prev = GENESIS;
    for (id, values) in rows {
        let refs: Vec<ValueRef<'_>> = values.iter().map(ValueRef::from).collect();
        let hash = chain::row_hash(chain, &prev, &refs);
        conn.execute(
            &format!(
                "UPDATE {} SET prev_hash = ?2, hash = ?3 WHERE id = ?1",
                chain.table
            ),
            rusqlite::params![id, &prev[..], &hash[..]],
        )
        .unwrap();
        prev = hash;
    }
}

fn verify(db: &Path) -> Output {
    command().args(["verify", "--db"]).arg(db).output().unwrap()
}

fn count(db: &Path, sql: &str) -> i64 {
    Connection::open(db)
        .unwrap()
        .query_row(sql, [], |r| r.get(0))
        .unwrap()
}

#[test]
fn a_forgery_is_never_signed_by_the_next_honest_note_or_export() {
    let dir = tempfile::tempdir().unwrap();
    let db = staffed(dir.path());
    let db_s = db.to_str().unwrap();
    assert!(verify(&db).status.success());
    // The note rewritten and every hash recomputed, by someone with the file but no key.
    let conn = Connection::open(&db).unwrap();
    let triggers = drop_triggers(&conn);
    conn.execute(
        "UPDATE incident_notes SET text = 'Player was paid in full'",
        [],
    )
    .unwrap();
    rechain(&conn, &chain::INCIDENT_NOTES);
    restore(&conn, &triggers);
    drop(conn);
    assert_eq!(verify(&db).status.code(), Some(1));
    let checkpoints = count(&db, "SELECT COUNT(*) FROM checkpoints");
    // The supervisor's next ordinary note, and an export: both refused, saying why and what to do.
    let out = pitwatch_as(
        STAFF_PW,
        &[
            "incident",
            "note",
            "--db",
            db_s,
            "--user",
            "ana",
            "1",
            "Shift change",
        ],
    );
    assert!(!out.status.success());
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("the record failed verification"),
        "{stderr}"
    );
    assert!(stderr.contains("not a valid signature"), "{stderr}");
    assert!(stderr.contains("pitwatch verify"), "{stderr}");
    let pdf = dir.path().join("incident-1.pdf");
    let out = pitwatch_as(
        STAFF_PW,
        &[
            "export",
            "incident",
            "1",
            "--db",
            db_s,
            "--user",
            "ana",
            "--pdf",
            pdf.to_str().unwrap(),
        ],
    );
    assert!(!out.status.success(), "{}", text(&out.stdout));
    assert!(text(&out.stderr).contains("the record failed verification"));
    assert!(!pdf.exists(), "no report vouches for the forged record");
    // Nothing was appended, nothing signed: the forgery is still found.
    assert_eq!(count(&db, "SELECT COUNT(*) FROM checkpoints"), checkpoints);
    let out = verify(&db);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stdout).contains("NOT a valid signature"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn an_export_of_a_record_whose_rows_fail_in_full_adds_no_audit_row() {
    let dir = tempfile::tempdir().unwrap();
    let db = staffed(dir.path());
    let db_s = db.to_str().unwrap();
    // A row altered without recomputing anything: only hashing every row finds it, which the
    // report does; its export must not then be audited into (and signed onto) that record.
    let conn = Connection::open(&db).unwrap();
    let triggers = drop_triggers(&conn);
    conn.execute(
        "UPDATE incident_notes SET text = 'Player was paid in full'",
        [],
    )
    .unwrap();
    restore(&conn, &triggers);
    drop(conn);
    let exports = count(
        &db,
        "SELECT COUNT(*) FROM audit_log WHERE action = 'incident.export'",
    );
    let pdf = dir.path().join("incident-1.pdf");
    let out = pitwatch_as(
        STAFF_PW,
        &[
            "export",
            "incident",
            "1",
            "--db",
            db_s,
            "--user",
            "ana",
            "--pdf",
            pdf.to_str().unwrap(),
        ],
    );
    assert!(!out.status.success(), "{}", text(&out.stdout));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("the record failed verification"),
        "{stderr}"
    );
    assert!(stderr.contains("does not match its hash"), "{stderr}");
    assert!(!pdf.exists());
    assert_eq!(
        count(
            &db,
            "SELECT COUNT(*) FROM audit_log WHERE action = 'incident.export'"
        ),
        exports
    );
}

#[test]
fn a_password_hash_swapped_in_the_users_table_logs_nobody_in() {
    let dir = tempfile::tempdir().unwrap();
    let db = staffed(dir.path());
    let db_s = db.to_str().unwrap();
    let conn = Connection::open(&db).unwrap();
    let triggers = drop_triggers(&conn);
    let ana: String = conn
        .query_row(
            "SELECT password_hash FROM users WHERE name = 'ana'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    conn.execute(
        "UPDATE users SET password_hash = (SELECT password_hash FROM users WHERE name = 'mallory') \
         WHERE name = 'ana'",
        [],
    )
    .unwrap();
    restore(&conn, &triggers);
    let notes = count(&db, "SELECT COUNT(*) FROM incident_notes");
    let out = pitwatch_as(
        MALLORY_PW,
        &[
            "incident",
            "note",
            "--db",
            db_s,
            "--user",
            "ana",
            "1",
            "Paid in full, as ana",
        ],
    );
    assert!(
        !out.status.success(),
        "logged in as ana: {}",
        text(&out.stdout)
    );
    let stderr = text(&out.stderr);
    assert!(stderr.contains("users row \"ana\""), "{stderr}");
    assert!(stderr.contains("chained facts"), "{stderr}");
    // The hash put back: nothing in ana's name was written meanwhile, and the record verifies.
    let triggers = drop_triggers(&conn);
    conn.execute(
        "UPDATE users SET password_hash = ?1 WHERE name = 'ana'",
        [&ana],
    )
    .unwrap();
    restore(&conn, &triggers);
    assert_eq!(count(&db, "SELECT COUNT(*) FROM incident_notes"), notes);
    assert!(
        verify(&db).status.success(),
        "{}",
        text(&verify(&db).stdout)
    );
}

/// Ana's logins as the audit log holds them (action, time in ms), oldest first.
fn logins(db: &Path) -> Vec<(String, i64)> {
    let conn = Connection::open(db).unwrap();
    let mut statement = conn
        .prepare(
            "SELECT action, at FROM audit_log WHERE subject = 'ana' AND action IN \
             ('login.attempt', 'login.failed', 'session.login', 'login.throttled') ORDER BY id",
        )
        .unwrap();
    let rows = statement
        .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))
        .unwrap();
    rows.map(|r| {
        let (action, at) = r.unwrap();
        let at = at
            .parse::<pitwatch_model::Timestamp>()
            .unwrap()
            .unix_millis();
        (action, at)
    })
    .collect()
}

/// The throttle as the audit log shows it held: every password check is an attempt recorded
/// before it and resolved before the next one starts (never two at once, in any process), and
/// each comes no earlier than the delay its failures set (1, 2, 4, 8 s; locked after 5).
/// Returns how many passwords were checked.
fn assert_throttled(log: &[(String, i64)]) -> usize {
    let mut open_attempt = false;
    let mut failures: Vec<i64> = Vec::new();
    let mut checks = 0;
    for (action, at) in log {
        match action.as_str() {
            "login.attempt" => {
                assert!(!open_attempt, "two password checks at once: {log:?}");
                if let Some(&last) = failures.last() {
                    let delay = if failures.len() >= 5 {
                        15 * 60 * 1000
                    } else {
                        1000 << (failures.len() - 1).min(3)
                    };
                    assert!(
                        *at >= last + delay,
                        "an attempt {} ms after a failure: {log:?}",
                        at - last
                    );
                }
                open_attempt = true;
                checks += 1;
            }
            "login.failed" => {
                assert!(open_attempt, "a check without its attempt: {log:?}");
                open_attempt = false;
                failures.push(*at);
            }
            "session.login" => {
                assert!(open_attempt, "a check without its attempt: {log:?}");
                open_attempt = false;
                failures.clear();
            }
            _ => {}
        }
    }
    checks
}

#[test]
fn parallel_guesses_in_other_processes_are_checked_one_at_a_time_and_throttled() {
    let dir = tempfile::tempdir().unwrap();
    let db = staffed(dir.path());
    let db_s = db.to_str().unwrap().to_owned();
    let burst = |passwords: Vec<String>| {
        let children: Vec<_> = passwords
            .into_iter()
            .map(|password| {
                command()
                    .args([
                        "incident", "note", "--db", &db_s, "--user", "ana", "1", "guess",
                    ])
                    .env("PITWATCH_PASSWORD", password)
                    .stdout(std::process::Stdio::null())
                    .stderr(std::process::Stdio::null())
                    .spawn()
                    .unwrap()
            })
            .collect();
        children
            .into_iter()
            .map(|mut c| c.wait().unwrap().success())
            .collect::<Vec<bool>>()
    };
    // 16 wrong passwords at once, each in its own process.
    let before = logins(&db).len();
    let outcomes = burst((0..16).map(|i| format!("wrong guess number {i}")).collect());
    assert!(outcomes.iter().all(|ok| !ok));
    let log = logins(&db);
    let checks = assert_throttled(&log);
    let throttled = log[before..]
        .iter()
        .filter(|(a, _)| a == "login.throttled")
        .count();
    assert!(checks <= 1 + 3, "{checks} checks in one burst: {log:?}");
    assert!(
        throttled >= 12,
        "only {throttled} of 16 were refused unchecked: {log:?}"
    );
    // The real password inside a burst of 15 wrong ones, later: the same discipline.
    std::thread::sleep(std::time::Duration::from_millis(2_100));
    let mut passwords: Vec<String> = (0..16).map(|i| format!("wrong {i}")).collect();
    passwords[7] = STAFF_PW.to_owned();
    burst(passwords);
    assert_throttled(&logins(&db));
    assert!(verify(&db).status.success());
}

#[cfg(unix)]
#[test]
fn the_record_its_wal_and_its_journal_are_owner_only_whatever_the_umask() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("open.db");
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "umask 000; exec \"$0\" user add --db '{}' --role admin root",
            db.display()
        ))
        .arg(env!("CARGO_BIN_EXE_pitwatch"))
        .env("PITWATCH_KEY", key_file())
        .env("PITWATCH_PASSWORD", ROOT_PW)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let mut seen = 0;
    for entry in std::fs::read_dir(dir.path()).unwrap() {
        let path = entry.unwrap().path();
        if path
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("open.db")
        {
            let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o600, "{} is {mode:o}", path.display());
            seen += 1;
        }
    }
    assert!(seen >= 2, "the database and its journal at least");
}
