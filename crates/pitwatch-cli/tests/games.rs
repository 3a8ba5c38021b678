//! `pitwatch replay FILE --rules nz-blackjack|nz-pontoon`: simulated tables through the binary,
//! the JSON objects the issue specifies, honest play unflagged and a fault found at its round.

use std::path::Path;
use std::process::Command;

use pitwatch_blackjack::dealer::{deal, Config, Fault};
use pitwatch_blackjack::Book;
use serde_json::Value;

fn replay(file: &Path, rules: &str, json: bool) -> (String, i32) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_pitwatch"));
    command.args(["replay", file.to_str().unwrap(), "--rules", rules]);
    if json {
        command.arg("--json");
    }
    let out = command.output().expect("pitwatch runs");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        out.status.code().unwrap_or(-1),
    )
}

fn write_events(
    dir: &Path,
    name: &str,
    events: &[pitwatch_model::TableEvent],
) -> std::path::PathBuf {
    let path = dir.join(name);
    let text: String = events.iter().map(|e| e.to_json_line() + "\n").collect();
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn replay_prints_one_round_object_per_round_with_boxes_hands_and_payouts() {
    let dir = tempfile::tempdir().unwrap();
    for (id, game) in [("nz-blackjack", "blackjack"), ("nz-pontoon", "pontoon")] {
        let book = Book::builtin(id).unwrap();
        let dealt = deal(
            &book,
            &Config {
                seed: 11,
                shoes: 2,
                ..Config::default()
            },
        );
        let file = write_events(dir.path(), &format!("{id}.jsonl"), &dealt.events);
        let (stdout, code) = replay(&file, id, true);
        assert_eq!(code, 0, "{stdout}");
        let lines: Vec<Value> = stdout
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let rounds: Vec<&Value> = lines.iter().filter(|l| l["type"] == "round").collect();
        assert_eq!(rounds.len() as u32, dealt.rounds, "{id}");
        assert!(
            lines.iter().all(|l| l["type"] != "irregularity"),
            "{id}: {stdout}"
        );
        assert_eq!(lines.iter().filter(|l| l["type"] == "shoe").count(), 2);
        for r in &rounds {
            assert_eq!(r["game"], game);
            for key in ["shoe", "round", "dealer", "dealer_total", "boxes"] {
                assert!(!r[key].is_null(), "{id}: {key} missing in {r}");
            }
            for b in r["boxes"].as_array().unwrap() {
                assert!(b["box"].is_u64() && b["side_bets"].is_array());
                for h in b["hands"].as_array().unwrap() {
                    for key in ["cards", "total", "soft", "doubled", "outcome", "pays"] {
                        assert!(!h[key].is_null(), "{id}: hand {key} missing in {h}");
                    }
                    let outcome = h["outcome"].as_str().unwrap();
                    assert!(["blackjack", "win", "lose", "push", "surrender"].contains(&outcome));
                }
            }
        }
        // Every hand pays what the dealer simulator reckons.
        for e in &dealt.expected {
            let r = rounds
                .iter()
                .find(|r| r["shoe"] == e.shoe && r["round"] == e.round)
                .unwrap();
            let b = r["boxes"]
                .as_array()
                .unwrap()
                .iter()
                .find(|b| b["box"] == e.box_number)
                .unwrap();
            assert_eq!(
                b["hands"][e.hand]["pays"].as_f64(),
                Some(e.pays),
                "{id} {e:?}"
            );
        }
        let (text, code) = replay(&file, id, false);
        assert_eq!(code, 0);
        assert!(
            text.contains(&format!(
                "total: 2 shoes, {} rounds, 0 irregularities",
                dealt.rounds
            )),
            "{text}"
        );
    }
}

#[test]
fn replay_finds_an_injected_fault_at_its_round() {
    let dir = tempfile::tempdir().unwrap();
    let book = Book::nz_pontoon();
    let dealt = deal(
        &book,
        &Config {
            seed: 5,
            shoes: 1,
            faults: vec![(Fault::DealerDrawsOnStand, 6)],
            ..Config::default()
        },
    );
    let at = dealt.injected[0];
    let file = write_events(dir.path(), "fault.jsonl", &dealt.events);
    let (stdout, _) = replay(&file, "nz-pontoon", true);
    let flagged: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|l| l["type"] == "irregularity")
        .collect();
    assert_eq!(flagged.len(), 1, "{stdout}");
    assert_eq!(flagged[0]["code"], "DEALER_DRAW_WRONG");
    assert_eq!(flagged[0]["round"], at.round);
    assert_eq!(flagged[0]["rule_book"], "nz-pontoon");
}

#[test]
fn sim_deals_a_pontoon_table_whose_capture_replays_with_each_fault_at_its_round() {
    use std::io::{BufRead, BufReader, Read};
    let dir = tempfile::tempdir().unwrap();
    let capture = dir.path().join("pontoon.cap");
    let injected = dir.path().join("injected.jsonl");
    let mut child = Command::new(env!("CARGO_BIN_EXE_pitwatch"))
        .args([
            "sim",
            "--protocol",
            "pitwatch",
            "--rules",
            "nz-pontoon",
            "--pace",
            "fast",
            "--shoes",
            "1",
            "--tcp",
            "127.0.0.1:0",
            "--linger-ms",
            "300",
            "--game-fault",
            "dealer-draws-on-stand@3",
            "--game-fault",
            "card-to-empty-box@7",
        ])
        .arg("--capture")
        .arg(&capture)
        .arg("--injected")
        .arg(&injected)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    let address = first
        .trim()
        .strip_prefix("tcp: ")
        .expect("the listen address")
        .to_owned();
    let mut stream = std::net::TcpStream::connect(address).unwrap();
    let mut received = Vec::new();
    let _ = stream.read_to_end(&mut received);
    let status = child.wait().unwrap();
    assert!(status.success());
    let lines: Vec<Value> = std::fs::read_to_string(&injected)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2, "{lines:?}");
    let out = Command::new(env!("CARGO_BIN_EXE_pitwatch"))
        .args([
            "replay",
            "--format",
            "pitwatch",
            capture.to_str().unwrap(),
            "--rules",
            "nz-pontoon",
            "--json",
        ])
        .output()
        .unwrap();
    let flagged: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|l| l["type"] == "irregularity")
        .collect();
    assert_eq!(flagged.len(), 2, "{flagged:#?}");
    for (line, found) in lines.iter().zip(&flagged) {
        assert_eq!(found["round"], line["round"]);
        assert_eq!(found["code"], line["code"]);
    }
}

#[test]
fn a_blackjack_table_on_record_replays_as_its_file_does() {
    let dir = tempfile::tempdir().unwrap();
    let book = Book::nz_blackjack();
    let dealt = deal(
        &book,
        &Config {
            seed: 23,
            shoes: 1,
            faults: vec![(Fault::DealerStandsShort, 5)],
            ..Config::default()
        },
    );
    let file = write_events(dir.path(), "bj.jsonl", &dealt.events);
    let db = dir.path().join("pit.db");
    let pitwatch = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_pitwatch"))
            .args(args)
            .env("PITWATCH_KEY", dir.path().join("signing.key"))
            .output()
            .expect("pitwatch runs")
    };
    let imported = pitwatch(&[
        "import",
        "--db",
        db.to_str().unwrap(),
        "--table",
        "BJ-1",
        "--format",
        "events",
        "--rules",
        "nz-blackjack",
        file.to_str().unwrap(),
    ]);
    assert!(
        imported.status.success(),
        "{}",
        String::from_utf8_lossy(&imported.stderr)
    );
    // The rounds, irregularities and shoe summary of shoe 1 from the record…
    let out = pitwatch(&[
        "replay",
        "--db",
        db.to_str().unwrap(),
        "--table",
        "BJ-1",
        "--shoe",
        "1",
        "--json",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let from_record: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .collect();
    assert_eq!(from_record[0]["type"], "record");
    assert_eq!(from_record[0]["intact"], true, "{stdout}");
    assert_eq!(from_record[0]["rule_book"], "nz-blackjack");
    // The shoe's shuffle analysis from the record (every game's shoes are analysed; the file's
    // replay of a Blackjack table does not run the watch).
    assert_eq!(
        from_record.last().map(|l| l["type"].clone()),
        Some(Value::from("shuffle")),
        "{stdout}"
    );
    let from_record: Vec<Value> = from_record
        .into_iter()
        .filter(|l| l["type"] != "shuffle")
        .collect();
    // …are the lines of the file's replay under the same book.
    let (from_file, code) = replay(&file, "nz-blackjack", true);
    assert_eq!(code, 0);
    let from_file: Vec<Value> = from_file
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .collect();
    assert_eq!(from_record[1..], from_file[..], "{stdout}");
    assert!(from_file
        .iter()
        .any(|l| l["type"] == "irregularity" && l["code"] == "DEALER_DRAW_WRONG"));
    assert_eq!(
        from_file.iter().filter(|l| l["type"] == "round").count() as u32,
        dealt.rounds
    );
    // The text form names the game's rounds too.
    let out = pitwatch(&["replay", "--db", db.to_str().unwrap(), "--table", "BJ-1"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("dealer ") && text.contains("| box "),
        "{text}"
    );
}
