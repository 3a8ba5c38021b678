//! Dealers on the table end to end (issue 30): a dealer console's sign-ins in the record, a
//! supervisor signing a dealer in with `pitwatch dealer sign-in` (surveillance refused with exit
//! code 3, a blank name refused, every entry audited), the rounds that follow attributed to the
//! dealer signed in, a slow dealer's "pace below target" alert and an error burst, and the
//! dealers' report as text, JSON, PDF and CSV for a supervisor only, every look audited.

use std::fmt::Write as _;
use std::path::Path;
use std::process::{Command, Output};

use pitwatch_model::Timestamp;

const ROOT_PW: &str = "root keeps the pit keys 42";
const STAFF_PW: &str = "correct horse battery staple";

fn run(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_pitwatch"));
    command
        .env("PITWATCH_KEY", dir.join("signing.key"))
        .env("PITWATCH_WORKSTATION", "pit-ws-1")
        .args(args);
    for (k, v) in env {
        command.env(k, v);
    }
    command.output().expect("pitwatch runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

/// Event lines at known times: `at(ms)` stamps each.
#[derive(Default)]
struct Lines {
    text: String,
    turn: usize,
}

impl Lines {
    fn line(&mut self, ms: i64, json: &str) {
        let at = Timestamp::from_unix_millis(ms).unwrap();
        let body = json.trim_end_matches('}');
        writeln!(self.text, r#"{body},"at":"{at}"}}"#).unwrap();
    }

    /// A round of four cards a second apart from `start` (P 9, B 8, Player wins), bets closed a
    /// second before, the result `declared` two seconds after the last card (5 s a round).
    fn round(&mut self, start: i64, declared: &str) {
        self.line(start - 1_000, r#"{"event":"bets_closed"}"#);
        let suits = ["S", "H", "D", "C"];
        for (i, (rank, target, index)) in [
            ("9", "player", 1),
            ("8", "banker", 1),
            ("Q", "player", 2),
            ("K", "banker", 2),
        ]
        .into_iter()
        .enumerate()
        {
            let suit = suits[(self.turn + i) % 4];
            self.line(
                start + i as i64 * 1_000,
                &format!(
                    r#"{{"event":"card_drawn","card":"{rank}{suit}","target":"{target}","index":{index}}}"#
                ),
            );
        }
        self.turn += 1;
        self.line(
            start + 5_000,
            &format!(r#"{{"event":"result_declared","outcome":"{declared}"}}"#),
        );
    }
}

fn import(dir: &Path, db: &str, name: &str, lines: &str) {
    let file = dir.join(name);
    std::fs::write(&file, lines).unwrap();
    let args = [
        "import",
        "--db",
        db,
        "--table",
        "BAC-1",
        "--format",
        "events",
        file.to_str().unwrap(),
    ];
    let out = run(dir, &args, &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
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
fn a_dealer_signed_in_their_pace_alerted_and_their_report_for_supervisors_only() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let db = d.join("pit.db").to_str().unwrap().to_owned();
    // Three hours ago: a shoe; Mere signs in at the dealer console and deals twelve rounds, one
    // every 40 s (90 an hour); Hoani takes over and deals twelve, one every 120 s (30 an hour,
    // under the Baccarat alert line of 56), declaring three results wrongly in a row.
    let t0 = now_ms() - 3 * 3_600_000;
    let mut first = Lines::default();
    first.line(t0, r#"{"event":"shuffled","decks":8}"#);
    first.line(
        t0 + 1_000,
        r#"{"event":"dealer_signed_in","dealer":"Mere"}"#,
    );
    let mut at = t0 + 10_000;
    for _ in 0..12 {
        first.round(at, "player");
        at += 40_000;
    }
    first.line(at, r#"{"event":"dealer_signed_in","dealer":"Hoani"}"#);
    at += 30_000;
    for i in 0..12 {
        first.round(
            at,
            if (3..6).contains(&i) {
                "banker"
            } else {
                "player"
            },
        );
        at += 120_000;
    }
    import(d, &db, "first.jsonl", &first.text);
    let out = run(
        d,
        &["user", "add", "--db", &db, "--role", "admin", "root"],
        &[("PITWATCH_PASSWORD", ROOT_PW)],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    for (name, role) in [("ana", "supervisor"), ("sam", "surveillance")] {
        let add = [
            "user", "add", "--db", &db, "--admin", "root", "--role", role, name,
        ];
        let env = [
            ("PITWATCH_ADMIN_PASSWORD", ROOT_PW),
            ("PITWATCH_PASSWORD", STAFF_PW),
        ];
        let out = run(d, &add, &env);
        assert!(out.status.success(), "{}", text(&out.stderr));
    }
    let sign = |user: &str, dealer: &str| {
        run(
            d,
            &[
                "dealer", "sign-in", "--db", &db, "--user", user, "--table", "BAC-1", "--dealer",
                dealer,
            ],
            &[("PITWATCH_PASSWORD", STAFF_PW)],
        )
    };
    // Surveillance may not; a blank name is refused; the supervisor signs Aroha in (a macron).
    let out = sign("sam", "Aroha");
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    let out = sign("ana", "  ");
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("cannot be blank"),
        "{}",
        text(&out.stderr)
    );
    let out = sign("ana", "Ārohanui");
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("dealer Ārohanui signed in at table BAC-1"),
        "{}",
        text(&out.stdout)
    );
    let entries = audited(&db, "console.event");
    assert_eq!(entries, [("ana".to_owned(), "table BAC-1".to_owned())]);
    // She deals four rounds a minute from now.
    let mut second = Lines {
        turn: 24,
        ..Lines::default()
    };
    let mut at = now_ms() + 60_000;
    for _ in 0..4 {
        second.round(at, "player");
        at += 45_000;
    }
    import(d, &db, "second.jsonl", &second.text);

    let report = |user: &str, more: &[&str]| {
        let mut args = vec![
            "dealer", "report", "--db", &db, "--user", user, "--table", "BAC-1",
        ];
        args.extend_from_slice(more);
        run(d, &args, &[("PITWATCH_PASSWORD", STAFF_PW)])
    };
    let out = report("ana", &["--json"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let figures = json["figures"].as_array().unwrap();
    let by = |name: &str| {
        figures
            .iter()
            .find(|f| f["dealer"] == name)
            .unwrap_or_else(|| panic!("{name} in {figures:?}"))
    };
    assert_eq!(by("Mere")["rounds"], 12);
    assert_eq!(by("Hoani")["rounds"], 12);
    assert_eq!(by("Ārohanui")["rounds"], 4);
    // Mere: 12 rounds in 12 × 5 s + 11 gaps of 35 s; Hoani: 12 × 5 s + 11 × 115 s.
    let rate = |name: &str| by(name)["rounds_per_hour"].as_f64().unwrap();
    assert!((rate("Mere") - 12.0 * 3_600.0 / (60.0 + 11.0 * 35.0)).abs() < 1e-6);
    assert!((rate("Hoani") - 12.0 * 3_600.0 / (60.0 + 11.0 * 115.0)).abs() < 1e-6);
    // The missing burn is Mere's (the shoe's first round); Hoani's three wrong results.
    assert_eq!(by("Hoani")["irregularities"]["RESULT_MISMATCH"], 3);
    assert_eq!(by("Hoani")["errors_per_100_rounds"], 25.0);
    let alerts: Vec<(String, String)> = json["alerts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            (
                a["kind"].as_str().unwrap().to_owned(),
                a["dealer"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect();
    assert!(
        alerts.contains(&("pace_below_target".to_owned(), "Hoani".to_owned())),
        "{alerts:?}"
    );
    assert!(
        alerts.contains(&("error_burst".to_owned(), "Hoani".to_owned())),
        "{alerts:?}"
    );
    assert!(
        !alerts.iter().any(|(_, dealer)| dealer == "Mere"),
        "Mere dealt at pace: {alerts:?}"
    );
    let rota: Vec<&str> = json["rota"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["dealer"].as_str().unwrap())
        .collect();
    assert_eq!(rota, ["Mere", "Hoani", "Ārohanui"]);

    // One dealer's shift as PDF and CSV.
    let pdf = d.join("hoani.pdf");
    let csv = d.join("hoani.csv");
    let out = report(
        "ana",
        &[
            "--dealer",
            "Hoani",
            "--pdf",
            pdf.to_str().unwrap(),
            "--csv",
            csv.to_str().unwrap(),
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(std::fs::read(&pdf).unwrap().starts_with(b"%PDF-"));
    let csv = std::fs::read_to_string(&csv).unwrap();
    let rows: Vec<&str> = csv.lines().collect();
    assert_eq!(rows.len(), 2, "{csv}");
    assert!(
        rows[1].starts_with("\"BAC-1\",baccarat,\"Hoani\",12,0,"),
        "{csv}"
    );
    if let Ok(out) = Command::new("pdftotext")
        .args([pdf.to_str().unwrap(), "-"])
        .output()
    {
        let words = text(&out.stdout);
        for expected in [
            "Hoani at BAC-1",
            "The rota",
            "PACE_BELOW_TARGET",
            "ERROR_BURST",
            "Pace over the period, hour by hour",
        ] {
            assert!(words.contains(expected), "{expected} in {words}");
        }
        assert!(!words.contains("Mere"), "one dealer's report: {words}");
    }
    // Surveillance is refused; every look of the supervisor's is its own audit row.
    let out = report("sam", &[]);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    assert!(text(&out.stdout).is_empty());
    let looks = audited(&db, "dealers.view");
    assert_eq!(
        looks,
        [
            ("ana".to_owned(), "table BAC-1".to_owned()),
            ("ana".to_owned(), "table BAC-1 dealer Hoani".to_owned()),
        ]
    );
    assert_eq!(audited(&db, "dealers.export").len(), 2);
    let refused = audited(&db, "access.forbidden");
    assert_eq!(
        refused,
        [
            ("sam".to_owned(), "record_console".to_owned()),
            ("sam".to_owned(), "view_dealers".to_owned()),
        ]
    );
    // The record still verifies.
    let out = run(d, &["verify", "--db", &db], &[]);
    assert!(out.status.success(), "{}", text(&out.stdout));
}
