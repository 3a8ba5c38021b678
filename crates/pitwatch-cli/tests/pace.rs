//! `pitwatch pace`: a table's rounds timed from the record, as imported with their times.

use std::process::Command;

const EVENTS: &str = r#"{"event":"shuffled","decks":8,"at":"2026-12-01T10:00:00Z"}
{"event":"bets_closed","at":"2026-12-01T10:00:10Z"}
{"event":"card_drawn","card":"9H","target":"player","index":1,"at":"2026-12-01T10:00:12Z"}
{"event":"card_drawn","card":"8D","target":"banker","index":1,"at":"2026-12-01T10:00:13Z"}
{"event":"card_drawn","card":"KS","target":"player","index":2,"at":"2026-12-01T10:00:14Z"}
{"event":"card_drawn","card":"KC","target":"banker","index":2,"at":"2026-12-01T10:00:15Z"}
{"event":"result_declared","outcome":"player","at":"2026-12-01T10:00:20Z"}
{"event":"bets_closed","at":"2026-12-01T10:00:40Z"}
{"event":"card_drawn","card":"9C","target":"player","index":1,"at":"2026-12-01T10:00:43Z"}
{"event":"card_drawn","card":"8S","target":"banker","index":1,"at":"2026-12-01T10:00:44Z"}
{"event":"card_drawn","card":"QS","target":"player","index":2,"at":"2026-12-01T10:00:45Z"}
{"event":"card_drawn","card":"QC","target":"banker","index":2,"at":"2026-12-01T10:00:46Z"}
{"event":"result_declared","outcome":"player","at":"2026-12-01T10:00:53Z"}
"#;

#[test]
fn a_tables_rounds_are_timed_from_the_record() {
    let dir = tempfile::tempdir().unwrap();
    let events = dir.path().join("events.jsonl");
    std::fs::write(&events, EVENTS).unwrap();
    let db = dir.path().join("pit.db");
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_pitwatch"))
            .env("PITWATCH_KEY", dir.path().join("signing.key"))
            .args(args)
            .output()
            .expect("pitwatch runs")
    };
    let db_s = db.to_str().unwrap();
    let import = [
        "import",
        "--db",
        db_s,
        "--table",
        "BAC-1",
        "--format",
        "events",
        events.to_str().unwrap(),
    ];
    assert!(run(&import).status.success());
    let out = run(&["pace", "--db", db_s, "--table", "BAC-1", "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let pace: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rounds = pace["rounds"].as_array().unwrap();
    assert_eq!(rounds.len(), 2);
    let parts = |r: &serde_json::Value| {
        [
            "bets_closed_to_first_card_ms",
            "deal_ms",
            "reveal_ms",
            "gap_before_ms",
        ]
        .map(|k| r[k].as_i64())
    };
    assert_eq!(
        parts(&rounds[0]),
        [Some(2_000), Some(3_000), Some(5_000), None]
    );
    assert_eq!(
        parts(&rounds[1]),
        [Some(3_000), Some(3_000), Some(7_000), Some(23_000)]
    );
    // Two rounds in 8 s + 23 s + 10 s of dealing.
    let per_hour = pace["rounds_per_hour"].as_f64().unwrap();
    assert!((per_hour - 7_200.0 / 41.0).abs() < 1e-9, "{per_hour}");
    // The burn was never dealt: one irregularity in two rounds.
    assert_eq!(pace["irregularities"]["BURN_MISSING"], 1);
    assert_eq!(pace["errors_per_100_rounds"], 50.0);
    let text = run(&["pace", "--db", db_s, "--table", "BAC-1"]);
    assert!(String::from_utf8_lossy(&text.stdout).contains("175.6 rounds an hour of dealing"));
    let missing = run(&["pace", "--db", db_s, "--table", "NONE"]);
    assert!(!missing.status.success());
}
