//! `pitwatch exposure` as surveillance runs it (issue 29): each round's figures of a recorded
//! shoe for surveillance and administrators, a supervisor refused with exit code 3, every read
//! and every refusal in the audit log.

use std::path::Path;
use std::process::{Command, Output};

const ROOT_PW: &str = "root keeps the pit keys 42";
const STAFF_PW: &str = "correct horse battery staple";

/// One shoe's start (a first card of 3, three burned) and an honest round.
const EVENTS: &str = r#"{"event":"shuffled","decks":8,"shuffler":"batch"}
{"event":"cut","position":180}
{"event":"cutting_card_placed","from_back":24}
{"event":"card_drawn","card":"3H","target":"first","face_up":true}
{"event":"card_drawn","card":"KD","target":"burn"}
{"event":"card_drawn","card":"7C","target":"burn"}
{"event":"card_drawn","card":"8S","target":"burn"}
{"event":"burn_counted","count":3}
{"event":"card_drawn","card":"4S","target":"player","index":1}
{"event":"card_drawn","card":"KD","target":"banker","index":1}
{"event":"card_drawn","card":"2D","target":"player","index":2}
{"event":"card_drawn","card":"5C","target":"banker","index":2}
{"event":"card_drawn","card":"9H","target":"banker","index":3}
{"event":"result_declared","outcome":"player"}
"#;

fn run(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_pitwatch"));
    command
        .env("PITWATCH_KEY", dir.join("signing.key"))
        .env("PITWATCH_WORKSTATION", "surv-ws-1")
        .args(args);
    for (k, v) in env {
        command.env(k, v);
    }
    command.output().expect("pitwatch runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A record of the shoe, with `root` (admin), `sam` (surveillance) and `ana` (supervisor).
fn record(dir: &Path) -> String {
    let db = dir.join("pit.db").to_str().unwrap().to_owned();
    let events = dir.join("shoe.jsonl");
    std::fs::write(&events, EVENTS).unwrap();
    let import = [
        "import",
        "--db",
        &db,
        "--table",
        "BAC-1",
        "--format",
        "events",
        events.to_str().unwrap(),
    ];
    let out = run(dir, &import, &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = run(
        dir,
        &["user", "add", "--db", &db, "--role", "admin", "root"],
        &[("PITWATCH_PASSWORD", ROOT_PW)],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    for (name, role) in [("sam", "surveillance"), ("ana", "supervisor")] {
        let add = [
            "user", "add", "--db", &db, "--admin", "root", "--role", role, name,
        ];
        let out = run(
            dir,
            &add,
            &[
                ("PITWATCH_ADMIN_PASSWORD", ROOT_PW),
                ("PITWATCH_PASSWORD", STAFF_PW),
            ],
        );
        assert!(out.status.success(), "{}", text(&out.stderr));
    }
    db
}

fn exposure(dir: &Path, db: &str, user: &str, json: bool) -> Output {
    let mut args = vec![
        "exposure", "--db", db, "--user", user, "--table", "BAC-1", "--shoe", "1",
    ];
    if json {
        args.push("--json");
    }
    run(dir, &args, &[("PITWATCH_PASSWORD", STAFF_PW)])
}

fn audited(db: &str, action: &str) -> Vec<(String, String)> {
    let connection = rusqlite::Connection::open(db).unwrap();
    let mut statement = connection
        .prepare("SELECT user_name, subject FROM audit_log WHERE action = ?1 ORDER BY id")
        .unwrap();
    statement
        .query_map([action], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

#[test]
fn surveillance_reads_each_rounds_exposure_and_a_supervisor_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let db = record(dir.path());
    let out = exposure(dir.path(), &db, "sam", false);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    // After the burn (a first card and the three it burned, read by this shoe), then after the
    // first round's five cards.
    assert!(
        stdout.contains("round 1 (412 cards left, after event 8)"),
        "{stdout}"
    );
    assert!(stdout.contains("round 2 (407 cards left"), "{stdout}");
    let dragon = stdout
        .lines()
        .find(|l| l.trim_start().starts_with("Dragon 7 (40 to 1)"))
        .expect("Dragon 7 watched");
    assert!(dragon.trim_end().ends_with("7.4499"), "{dragon}");
    // JSON, one object a round.
    let out = exposure(dir.path(), &db, "sam", true);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let rounds: Vec<serde_json::Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rounds.len(), 2, "{rounds:?}");
    assert_eq!(rounds[1]["round"], 2);
    // A supervisor: refused with exit code 3, nothing printed, the attempt audited.
    let out = exposure(dir.path(), &db, "ana", false);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    assert!(text(&out.stdout).is_empty());
    assert!(
        text(&out.stderr).contains("may not read the house's exposure"),
        "{}",
        text(&out.stderr)
    );
    let subject = "table BAC-1 shoe 1".to_owned();
    assert_eq!(
        audited(&db, "exposure.view"),
        [
            ("sam".to_owned(), subject.clone()),
            ("sam".to_owned(), subject)
        ]
    );
    assert_eq!(
        audited(&db, "access.forbidden"),
        [("ana".to_owned(), "view_exposure".to_owned())]
    );
}
