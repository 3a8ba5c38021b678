//! A false shuffle end to end, through the real driver stack: `pitwatch sim --shuffle slug:20`
//! deals shoes as Angel Eye bytes over TCP (each shoe made from the one before, a block of 20
//! dealt cards kept in order); a host reads them; `pitwatch import` records the capture through
//! the live recorder; `SHUFFLE_SUSPECT` is on record (`pitwatch incidents`), in the replay from
//! the record (`pitwatch replay --db`), and in the replay of the capture itself, whose shoe
//! summaries carry each shoe's shuffle statistics (`--json`: a `shuffle` object).

use std::io::{BufRead, BufReader, Read};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

fn key_file() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("shuffle-tests/signing.key")
}

fn pitwatch(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pitwatch"))
        .env("PITWATCH_KEY", key_file())
        .args(args)
        .output()
        .expect("pitwatch runs")
}

fn json_lines(out: &Output) -> Vec<Value> {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// Runs the simulator with `shuffle` for `shoes` shoes and reads everything it sends; returns the
/// capture's path.
fn simulate(shuffle: &str, shoes: &str, dir: &Path) -> PathBuf {
    let capture = dir.join(format!("{}.bin", shuffle.replace(':', "-")));
    let mut sim = Command::new(env!("CARGO_BIN_EXE_pitwatch"))
        .args([
            "sim",
            "--protocol",
            "angel-eye",
            "--pace",
            "fast",
            "--seed",
            "5",
            "--shoes",
            shoes,
            "--shuffle",
            shuffle,
            "--tcp",
            "127.0.0.1:0",
            "--linger-ms",
            "200",
            "--capture",
            capture.to_str().unwrap(),
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("pitwatch sim starts");
    let mut first = String::new();
    BufReader::new(sim.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    let address = first
        .trim()
        .strip_prefix("tcp: ")
        .unwrap_or_else(|| panic!("first line {first:?}"))
        .to_owned();
    let mut host = TcpStream::connect(&address).unwrap();
    let mut received = Vec::new();
    host.read_to_end(&mut received).unwrap();
    let status = sim.wait().unwrap();
    assert!(status.success(), "pitwatch sim: {status:?}");
    assert_eq!(
        std::fs::read(&capture).unwrap(),
        received,
        "the capture is what was sent"
    );
    capture
}

#[test]
fn a_slug_kept_by_a_false_shuffle_is_on_record_in_replay_and_in_the_capture_replay() {
    let dir = tempfile::tempdir().unwrap();
    let capture = simulate("slug:20", "4", dir.path());
    let db = dir.path().join("pit.db");
    let db = db.to_str().unwrap();

    let out = pitwatch(&[
        "import",
        "--db",
        db,
        "--table",
        "BAC-7",
        "--format",
        "angel-eye",
        capture.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );

    // On record: shoes 2 and 3 keep a slug of shoe 1 and 2 (judged when 3 and 4 start).
    let incidents: Vec<Value> = json_lines(&pitwatch(&["incidents", "--db", db, "--json"]))
        .into_iter()
        .filter(|i| i["code"] == "SHUFFLE_SUSPECT")
        .collect();
    assert!(!incidents.is_empty(), "no SHUFFLE_SUSPECT on record");
    for incident in &incidents {
        assert_eq!(incident["severity"], "high");
        assert_eq!(incident["rule"], "misdeal (b)");
        let message = incident["message"].as_str().unwrap();
        assert!(message.contains("keeps a block of"), "{message}");
    }

    // Replay from the record of shoe 2: its shuffle analysis, suspect, with the block.
    let replay = json_lines(&pitwatch(&[
        "replay", "--db", db, "--table", "BAC-7", "--shoe", "2", "--json",
    ]));
    let shuffle = replay
        .iter()
        .find(|l| l["type"] == "shuffle")
        .expect("a shuffle line");
    assert_eq!(shuffle["shoe"], 2);
    assert_eq!(shuffle["verdict"], "suspect");
    assert!(shuffle["longest_preserved_run"].as_u64().unwrap() >= 10);
    assert!(shuffle["label"]
        .as_str()
        .unwrap()
        .starts_with("suspect: a block of"));
    // Its incident is raised where the next shoe starts, as live: in shoe 3's replay.
    let next = json_lines(&pitwatch(&[
        "replay", "--db", db, "--table", "BAC-7", "--shoe", "3", "--json",
    ]));
    let raised: Vec<&Value> = next
        .iter()
        .filter(|l| l["code"] == "SHUFFLE_SUSPECT" && l["shoe"] == 2)
        .collect();
    assert_eq!(raised.len(), 1, "{next:#?}");
    let on_record = incidents.iter().find(|i| i["shoe"] == 2).unwrap();
    assert_eq!(raised[0]["seq"], on_record["seq"]);
    assert_eq!(raised[0]["evidence"], on_record["evidence"]);

    // The capture replayed: every shoe summary carries its shuffle object; the same incidents,
    // and the last shoe judged too (the stream is over).
    let replay = json_lines(&pitwatch(&[
        "replay",
        capture.to_str().unwrap(),
        "--format",
        "angel-eye",
        "--rules",
        "nz-baccarat",
        "--json",
    ]));
    let summaries: Vec<&Value> = replay.iter().filter(|l| l["type"] == "shoe").collect();
    assert_eq!(summaries.len(), 4);
    assert_eq!(summaries[0]["shuffle"]["verdict"], "not_compared");
    for summary in &summaries[1..] {
        let shuffle = &summary["shuffle"];
        for key in [
            "longest_preserved_run",
            "preserved_pairs",
            "p_value",
            "verdict",
        ] {
            assert!(!shuffle[key].is_null(), "{key} in {shuffle}");
        }
    }
    let suspect = replay
        .iter()
        .filter(|l| l["code"] == "SHUFFLE_SUSPECT")
        .count();
    assert!(suspect >= incidents.len());

    // In text: the shoe summary's shuffle line.
    let text = pitwatch(&[
        "replay",
        capture.to_str().unwrap(),
        "--format",
        "angel-eye",
        "--rules",
        "nz-baccarat",
    ]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("   shuffle: suspect: a block of"), "{text}");
    assert!(text.contains("SHUFFLE_SUSPECT"), "{text}");
}

#[test]
fn an_honest_shuffle_is_well_mixed_and_raises_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let capture = simulate("random", "3", dir.path());
    let replay = json_lines(&pitwatch(&[
        "replay",
        capture.to_str().unwrap(),
        "--format",
        "angel-eye",
        "--rules",
        "nz-baccarat",
        "--json",
    ]));
    let verdicts: Vec<&Value> = replay
        .iter()
        .filter(|l| l["type"] == "shoe")
        .map(|l| &l["shuffle"]["verdict"])
        .collect();
    assert_eq!(verdicts, ["not_compared", "well_mixed", "well_mixed"]);
    assert!(!replay.iter().any(|l| l["code"] == "SHUFFLE_SUSPECT"));
    let bad = pitwatch(&["sim", "--protocol", "angel-eye", "--shuffle", "slug:0"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("slug"));
}
