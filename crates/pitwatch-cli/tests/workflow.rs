//! `pitwatch incident resolve` and `pitwatch incident reopen` as a supervisor runs them: a
//! resolution from the list (`--outcome`) with text beside it (`--resolution`), acknowledgement
//! first, and a resolved incident reopened with a reason, each refusal with its reason and exit
//! code.

use std::path::Path;
use std::process::{Command, Output};

const ROOT_PW: &str = "root keeps the pit keys 42";
const STAFF_PW: &str = "correct horse battery staple";

/// Two irregularities at BAC-1: a burn miscount and a wrong result (docs/events.md's example).
const EVENTS: &str = r#"{"event":"shuffled","decks":8,"shuffler":"batch"}
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

fn run(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_pitwatch"));
    command
        .env("PITWATCH_KEY", dir.join("signing.key"))
        .args(args);
    for (k, v) in env {
        command.env(k, v);
    }
    command.output().expect("pitwatch runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A record with the two incidents, `root` and the supervisor `ana`; the incidents' ids.
fn record(dir: &Path) -> (String, Vec<String>) {
    let db = dir.join("pit.db");
    let db_s = db.to_str().unwrap().to_owned();
    let events = dir.join("faults.jsonl");
    std::fs::write(&events, EVENTS).unwrap();
    let import = [
        "import",
        "--db",
        &db_s,
        "--table",
        "BAC-1",
        "--format",
        "events",
        events.to_str().unwrap(),
    ];
    let out = run(dir, &import, &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let add_root = ["user", "add", "--db", &db_s, "--role", "admin", "root"];
    let out = run(dir, &add_root, &[("PITWATCH_PASSWORD", ROOT_PW)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let add_ana = [
        "user",
        "add",
        "--db",
        &db_s,
        "--admin",
        "root",
        "--role",
        "supervisor",
        "ana",
    ];
    let env = [
        ("PITWATCH_ADMIN_PASSWORD", ROOT_PW),
        ("PITWATCH_PASSWORD", STAFF_PW),
    ];
    let out = run(dir, &add_ana, &env);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = run(dir, &["incidents", "--db", &db_s, "--json"], &[]);
    let ids = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["id"].to_string())
        .collect();
    (db_s, ids)
}

/// `pitwatch incident STEP --db DB --user ana ID MORE…` with ana's password.
fn step(dir: &Path, db: &str, what: &str, id: &str, more: &[&str]) -> Output {
    let mut args = vec!["incident", what, "--db", db, "--user", "ana", id];
    args.extend_from_slice(more);
    run(dir, &args, &[("PITWATCH_PASSWORD", STAFF_PW)])
}

#[test]
fn resolve_takes_a_resolution_from_the_list_after_the_acknowledgement_and_reopen_a_reason() {
    let dir = tempfile::tempdir().unwrap();
    let (db, ids) = record(dir.path());
    assert_eq!(ids.len(), 2, "{ids:?}");
    let (burn, result) = (ids[0].as_str(), ids[1].as_str());

    // Acknowledgement first.
    let out = step(
        dir.path(),
        &db,
        "resolve",
        burn,
        &["--outcome", "false-alarm"],
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains(&format!(
            "incident {burn} has not been acknowledged: acknowledge it first, then resolve it"
        )),
        "{}",
        text(&out.stderr)
    );
    for id in [burn, result] {
        let out = step(dir.path(), &db, "ack", id, &[]);
        assert!(out.status.success(), "{}", text(&out.stderr));
    }
    // "other" (the default) needs written text; an unknown resolution is a usage error.
    let out = step(dir.path(), &db, "resolve", result, &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("a resolution of \"Other\" needs written text"),
        "{}",
        text(&out.stderr)
    );
    let out = step(dir.path(), &db, "resolve", result, &["--outcome", "fixed"]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("false-alarm"),
        "{}",
        text(&out.stderr)
    );

    let out = step(
        dir.path(),
        &db,
        "resolve",
        burn,
        &["--outcome", "false-alarm"],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let confirmed = [
        "--outcome",
        "confirmed",
        "--resolution",
        "result corrected, Player paid",
    ];
    let out = step(dir.path(), &db, "resolve", result, &confirmed);
    assert!(out.status.success(), "{}", text(&out.stderr));

    // Reopen: a reason is required; only a resolved incident; then it is open again.
    let out = step(dir.path(), &db, "reopen", burn, &[]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("--reason"),
        "{}",
        text(&out.stderr)
    );
    let out = step(dir.path(), &db, "reopen", burn, &["--reason", "  "]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("needs a reason"),
        "{}",
        text(&out.stderr)
    );
    let camera = ["--reason", "camera 4 shows a third burn card"];
    let out = step(dir.path(), &db, "reopen", burn, &camera);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout).trim(),
        format!("incident {burn} reopened by ana")
    );
    let out = step(dir.path(), &db, "reopen", burn, &camera);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("only a resolved incident can be reopened"),
        "{}",
        text(&out.stderr)
    );

    let out = run(
        dir.path(),
        &["incidents", "--db", &db, "--status", "open", "--json"],
        &[],
    );
    let open: Vec<serde_json::Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(open.len(), 1);
    assert_eq!(open[0]["id"].to_string(), burn);
    let out = run(dir.path(), &["incident", "show", "--db", &db, burn], &[]);
    let shown = text(&out.stdout);
    for expected in [
        "resolved     ana        False alarm — device misread",
        "reopened     ana        camera 4 shows a third burn card",
    ] {
        assert!(shown.contains(expected), "{expected:?} in {shown}");
    }
    let out = run(dir.path(), &["incident", "show", "--db", &db, result], &[]);
    assert!(
        text(&out.stdout).contains(
            "resolved     ana        Confirmed irregularity — handled per procedure: result corrected, Player paid"
        ),
        "{}",
        text(&out.stdout)
    );
    let out = run(dir.path(), &["verify", "--db", &db], &[]);
    assert!(out.status.success(), "{}", text(&out.stdout));
}

/// The audit rows of `action` in `db`: (user, subject, detail), oldest first.
fn audited(db: &str, action: &str) -> Vec<(String, String, String)> {
    let connection = rusqlite::Connection::open(db).unwrap();
    let mut statement = connection
        .prepare("SELECT user_name, subject, detail FROM audit_log WHERE action = ?1 ORDER BY id")
        .unwrap();
    statement
        .query_map([action], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

#[test]
fn a_look_at_an_incident_or_a_replay_at_the_command_line_is_on_record_with_who_looked() {
    let dir = tempfile::tempdir().unwrap();
    let (db, ids) = record(dir.path());
    // Nobody logged in, then ana: each look its own row, named.
    let out = run(dir.path(), &["incident", "show", "--db", &db, &ids[0]], &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = run(
        dir.path(),
        &["incident", "show", "--db", &db, "--user", "ana", &ids[0]],
        &[("PITWATCH_PASSWORD", STAFF_PW)],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let looks = audited(&db, "incident.view");
    let who: Vec<(&str, &str)> = looks
        .iter()
        .map(|(u, s, _)| (u.as_str(), s.as_str()))
        .collect();
    assert_eq!(
        who,
        [
            ("(nobody logged in)", ids[0].as_str()),
            ("ana", ids[0].as_str())
        ]
    );
    assert!(looks[1].2.contains("command line"), "{:?}", looks[1]);
    assert!(looks[1].2.contains("supervisor"), "{:?}", looks[1]);
    // A replay from the record: its shoe, by ana.
    let out = run(
        dir.path(),
        &["replay", "--db", &db, "--table", "BAC-1", "--user", "ana"],
        &[("PITWATCH_PASSWORD", STAFF_PW)],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let replays = audited(&db, "replay.view");
    assert_eq!(replays.len(), 1, "{replays:?}");
    assert_eq!(
        (replays[0].0.as_str(), replays[0].1.as_str()),
        ("ana", "BAC-1 shoe 1")
    );
    // A wrong password shows nothing and leaves no look (the failed login is audited apart).
    let out = run(
        dir.path(),
        &["incident", "show", "--db", &db, "--user", "ana", &ids[0]],
        &[("PITWATCH_PASSWORD", "not her password at all")],
    );
    assert!(!out.status.success());
    assert!(text(&out.stdout).is_empty(), "{}", text(&out.stdout));
    assert_eq!(audited(&db, "incident.view").len(), 2);
    let out = run(dir.path(), &["verify", "--db", &db], &[]);
    assert!(out.status.success(), "{}", text(&out.stdout));
}
