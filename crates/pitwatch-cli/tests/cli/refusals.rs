//! Who may do what at the command line: adding an administrator, each refusal with its exit
//! code, message and audit row, and device text printed with its control characters escaped.

use super::*;

/// A record with one table, two incidents (from [`BURN_AND_RESULT_FAULTS`]), its first admin
/// `root`, supervisor `ana` and surveillance officer `sam`.
fn staffed_record(dir: &Path) -> PathBuf {
    let db = dir.join("pit.db");
    let capture = dir.join("shoe.jsonl");
    std::fs::write(&capture, BURN_AND_RESULT_FAULTS).unwrap();
    let db_s = db.to_str().unwrap();
    let out = pitwatch(&[
        "import",
        "--db",
        db_s,
        "--table",
        "BAC-1",
        "--format",
        "events",
        capture.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    first_admin(db_s);
    add_staff(db_s, "supervisor", "ana");
    add_staff(db_s, "surveillance", "sam");
    db
}

fn audit_count(db: &Path, action: &str) -> i64 {
    let conn = rusqlite::Connection::open(db).unwrap();
    conn.query_row(
        "SELECT COUNT(*) FROM audit_log WHERE action = ?1",
        [action],
        |r| r.get(0),
    )
    .unwrap()
}

#[test]
fn an_admin_cannot_be_added_without_an_administrators_credentials() {
    let dir = tempfile::tempdir().unwrap();
    let db = staffed_record(dir.path());
    let db_s = db.to_str().unwrap();
    // The issue's own example: no credentials at all on a record with users.
    let out = pitwatch_as(
        "mallory has a long password",
        &["user", "add", "--db", db_s, "--role", "admin", "mallory"],
    );
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stdout));
    assert!(
        text(&out.stderr).contains("this record has users: an administrator adds more"),
        "{}",
        text(&out.stderr)
    );
    // A supervisor's credentials are not an administrator's.
    let out = command()
        .args([
            "user", "add", "--db", db_s, "--admin", "ana", "--role", "admin", "mallory",
        ])
        .env("PITWATCH_ADMIN_PASSWORD", STAFF_PW)
        .env("PITWATCH_PASSWORD", "mallory has a long password")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    assert!(
        text(&out.stderr).contains("ana (supervisor) may not add users; the attempt is recorded"),
        "{}",
        text(&out.stderr)
    );
    // Nor is a wrong password an administrator's.
    let out = command()
        .args([
            "user", "add", "--db", db_s, "--admin", "root", "--role", "admin", "mallory",
        ])
        .env("PITWATCH_ADMIN_PASSWORD", "not the root password")
        .env("PITWATCH_PASSWORD", "mallory has a long password")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    assert!(text(&out.stderr).contains("wrong user name or password"));
    let out = pitwatch_as(ROOT_PW, &["user", "list", "--db", db_s, "--admin", "root"]);
    let _ = out;
    let conn = rusqlite::Connection::open(&db).unwrap();
    let mallory: i64 = conn
        .query_row(
            "SELECT COUNT(*) FROM users WHERE name = 'mallory'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(mallory, 0, "nobody was added");
    assert_eq!(audit_count(&db, "access.forbidden"), 1);
    assert_eq!(audit_count(&db, "login.failed"), 1);
    // The first user of an empty record must be its administrator.
    let empty = dir.path().join("empty.db");
    let out = pitwatch_as(
        STAFF_PW,
        &[
            "user",
            "add",
            "--db",
            empty.to_str().unwrap(),
            "--role",
            "supervisor",
            "ana",
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("the first user of a record is its administrator"));
}

#[test]
fn each_refusal_has_its_exit_code_and_message_and_is_audited() {
    let dir = tempfile::tempdir().unwrap();
    let db = staffed_record(dir.path());
    let db_s = db.to_str().unwrap();
    let refused = |args: &[&str], password: &str, says: &str| {
        let out = pitwatch_as(password, args);
        assert_eq!(
            out.status.code(),
            Some(3),
            "{args:?}: {}",
            text(&out.stderr)
        );
        assert!(
            text(&out.stderr).contains(says),
            "{args:?}: {}",
            text(&out.stderr)
        );
    };
    refused(
        &[
            "incident",
            "resolve",
            "--db",
            db_s,
            "--user",
            "sam",
            "1",
            "--resolution",
            "x",
        ],
        STAFF_PW,
        "sam (surveillance) may not resolve incidents",
    );
    refused(
        &["incident", "ack", "--db", db_s, "--user", "sam", "1"],
        STAFF_PW,
        "sam (surveillance) may not acknowledge incidents",
    );
    let out = command()
        .args(["user", "list", "--db", db_s, "--admin", "sam"])
        .env("PITWATCH_ADMIN_PASSWORD", STAFF_PW)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    assert!(text(&out.stderr).contains("sam (surveillance) may not list users"));
    assert_eq!(audit_count(&db, "access.forbidden"), 3);
    // What surveillance may do, it does: a note, an export.
    let out = pitwatch_as(
        STAFF_PW,
        &[
            "incident", "note", "--db", db_s, "--user", "sam", "1", "seen",
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let json = dir.path().join("i.json");
    let out = pitwatch_as(
        STAFF_PW,
        &[
            "export",
            "incident",
            "1",
            "--db",
            db_s,
            "--user",
            "sam",
            "--json",
            json.to_str().unwrap(),
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(audit_count(&db, "incident.export"), 1);
    // A weak password is refused with the reason (bad input, not a refusal).
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
            "kim",
        ])
        .env("PITWATCH_ADMIN_PASSWORD", ROOT_PW)
        .env("PITWATCH_PASSWORD", "password1234")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("too easy to guess"),
        "{}",
        text(&out.stderr)
    );
    // An administrator deactivates sam, who can no longer log in.
    let out = command()
        .args(["user", "deactivate", "--db", db_s, "--admin", "root", "sam"])
        .env("PITWATCH_ADMIN_PASSWORD", ROOT_PW)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    refused(
        &[
            "incident", "note", "--db", db_s, "--user", "sam", "1", "again",
        ],
        STAFF_PW,
        "wrong user name or password",
    );
    let out = pitwatch(&["verify", "--db", db_s]);
    assert!(out.status.success(), "{}", text(&out.stdout));
}

#[test]
fn device_text_is_printed_with_its_control_characters_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("pit.db");
    let capture = dir.path().join("errors.jsonl");
    std::fs::write(
        &capture,
        "{\"event\":\"device_error\",\"code\":\"E7\",\"text\":\"jam\\u001b]0;owned\\u0007\\u001b[2J\\rall clear\"}\n",
    )
    .unwrap();
    let db_s = db.to_str().unwrap();
    let out = pitwatch(&[
        "import",
        "--db",
        db_s,
        "--table",
        "BAC-1",
        "--format",
        "events",
        capture.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    for args in [
        vec!["incident", "show", "--db", db_s, "1"],
        vec!["incidents", "--db", db_s],
    ] {
        let out = pitwatch(&args);
        assert!(out.status.success(), "{}", text(&out.stderr));
        let shown = text(&out.stdout);
        assert!(
            !shown.contains('\u{1b}') && !shown.contains('\r') && !shown.contains('\u{7}'),
            "{args:?}: {shown:?}"
        );
    }
    let shown = text(&pitwatch(&["incident", "show", "--db", db_s, "1"]).stdout);
    assert!(
        shown.contains("jam\\x1b]0;owned\\x07\\x1b[2J\\rall clear"),
        "{shown}"
    );
}
