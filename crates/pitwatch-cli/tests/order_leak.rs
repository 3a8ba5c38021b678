//! A shuffler that leaks the order of its shuffled deck, end to end: the simulator's `order-leak`
//! fault on a pseudo-terminal, `pitwatch monitor` recording it. The order must reach neither the
//! database (nor its WAL or the spool) nor any export, and the leak must be an incident of its own,
//! found again by replay of the record.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use pitwatch_baccarat::RuleBook;
use pitwatch_protocols::ProtocolConfig;
use pitwatch_sim::{Endpoint, Pace, ShufflerFault, ShufflerSim, SimConfig, SimDevice};
use serde_json::Value;

const ROOT_PW: &str = "root keeps the pit keys 42";

fn pitwatch(password: Option<&str>, args: &[&str]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_pitwatch"));
    command.args(args).env("PITWATCH_KEY", key_file());
    if let Some(password) = password {
        command.env("PITWATCH_PASSWORD", password);
    }
    command.output().expect("pitwatch runs")
}

/// The installation key every `pitwatch` these tests run signs with (never the user's own).
fn key_file() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("order-leak-tests/signing.key")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// The `cards=` value of the `ORDER` line the simulator sent.
fn leaked_order(capture: &Path) -> String {
    let sent = std::fs::read(capture).unwrap();
    let line = sent
        .split(|&b| b == b'\n')
        .find(|l| contains(l, b" ORDER "))
        .expect("the simulator sent an ORDER line");
    let line = text(line);
    let value = line
        .split(' ')
        .find_map(|t| t.strip_prefix("cards="))
        .unwrap()
        .to_owned();
    assert!(value.split(',').count() >= 10, "{value}");
    value
}

/// Every file under `dir` but `except`, with its bytes.
fn files(dir: &Path, except: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path == except {
            continue;
        }
        if path.is_dir() {
            out.extend(files(&path, except));
        } else {
            out.push((path.clone(), std::fs::read(&path).unwrap()));
        }
    }
    out
}

fn open_incidents(db: &str) -> Vec<Value> {
    let out = pitwatch(None, &["incidents", "--db", db, "--json"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    text(&out.stdout)
        .lines()
        .filter(|l| !l.trim().is_empty())
        .flat_map(|l| match serde_json::from_str::<Value>(l).unwrap() {
            Value::Array(items) => items,
            one => vec![one],
        })
        .collect()
}

#[test]
fn a_shufflers_leaked_order_is_never_recorded_shown_or_exported_and_is_an_incident() {
    let dir = tempfile::tempdir().unwrap();
    let capture = dir.path().join("sent.bin");
    let db = dir.path().join("pit.db");
    let db_s = db.to_str().unwrap();

    let mut config = SimConfig::new(
        ProtocolConfig::by_name("pitwatch").unwrap(),
        RuleBook::nz_baccarat(),
    );
    config.seed = 11;
    config.pace = Pace::Times(50.0);
    config.shoes = Some(3);
    config.endpoint = Endpoint::Pty;
    config.capture = Some(capture.clone());
    config.shuffler = Some(ShufflerSim {
        decks: 8,
        cards_per_deck: 52,
        faults: vec!["order-leak@2".parse::<ShufflerFault>().unwrap()],
        interval_ms: pitwatch_sim::SHUFFLE_INTERVAL_MS,
    });
    let sim = SimDevice::start(config).unwrap();
    let pit = dir.path().join("pit.toml");
    std::fs::write(
        &pit,
        format!(
            "[site]\nname = \"Leak\"\n[[table]]\nname = \"SH-1\"\ngame = \"baccarat\"\n\
             rules = \"nz-baccarat\"\ndevice = {{ protocol = \"pitwatch\", role = \"shuffler\" }}\n\
             link = {{ kind = \"serial\", path = \"{}\", baud = 9600, backoff = {{ initial_ms = 50, max_ms = 200 }} }}\n",
            sim.path().unwrap()
        ),
    )
    .unwrap();
    let mut monitor = Command::new(env!("CARGO_BIN_EXE_pitwatch"))
        .args(["monitor", "--config"])
        .arg(&pit)
        .arg("--db")
        .arg(&db)
        .env("PITWATCH_KEY", key_file())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    assert!(
        sim.wait_finished(Duration::from_secs(60)),
        "the simulator finished its shuffles"
    );
    // The leak is an incident of its own, raised while the monitor runs.
    let deadline = Instant::now() + Duration::from_secs(20);
    let incident = loop {
        let found = open_incidents(db_s).into_iter().find(|i| {
            i["code"] == "ORDER_DISCLOSED"
                && i["severity"] == "critical"
                && i["message"].as_str().unwrap_or("").contains("WITHHELD")
        });
        if let Some(found) = found {
            break found;
        }
        assert!(
            Instant::now() < deadline,
            "no incident for the withheld order"
        );
        std::thread::sleep(Duration::from_millis(200));
    };
    let _ = Command::new("kill")
        .args(["-INT", &monitor.id().to_string()])
        .status();
    let deadline = Instant::now() + Duration::from_secs(20);
    while monitor.try_wait().unwrap().is_none() {
        assert!(Instant::now() < deadline, "the monitor did not stop");
        std::thread::sleep(Duration::from_millis(100));
    }
    sim.stop().unwrap();
    let message = incident["message"].as_str().unwrap();
    assert!(message.contains("a line of type ORDER"), "{message}");
    let order = leaked_order(&capture);
    assert!(!message.contains(&order[..8]), "{message}");

    // Exports of the incident and of the shoe it is in.
    let out = pitwatch(
        Some(ROOT_PW),
        &["user", "add", "--db", db_s, "--role", "admin", "root"],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let id = incident["id"].as_i64().unwrap().to_string();
    let shoe = incident["shoe"].as_i64().unwrap().to_string();
    let exports = dir.path().join("exports");
    std::fs::create_dir(&exports).unwrap();
    let path = |name: &str| exports.join(name).to_str().unwrap().to_owned();
    let (json, csv, pdf) = (
        path("incident.json"),
        path("incident.csv"),
        path("incident.pdf"),
    );
    let out = pitwatch(
        Some(ROOT_PW),
        &[
            "export", "incident", "--user", "root", &id, "--db", db_s, "--json", &json, "--csv",
            &csv, "--pdf", &pdf,
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let pdf_text = Command::new("pdftotext")
        .args([&path("incident.pdf"), "-"])
        .output()
        .expect("pdftotext runs (install poppler-utils)");
    let pdf_text = text(&pdf_text.stdout);
    assert!(pdf_text.contains("WITHHELD"), "{pdf_text}");

    // Nowhere on disk but in the simulator's own capture: not the database, its WAL, the spool,
    // the exports (PDF text included).
    let cards: Vec<&str> = order.split(',').collect();
    let needles = [order.clone(), cards[..4].join(","), cards[..4].join(" ")];
    let mut searched = files(dir.path(), &capture);
    searched.push(("incident.pdf as text".into(), pdf_text.into_bytes()));
    assert!(searched.iter().any(|(p, _)| p.ends_with("pit.db")));
    for (path, bytes) in &searched {
        for needle in &needles {
            assert!(
                !contains(bytes, needle.as_bytes()),
                "{} holds the leaked order {needle}",
                path.display()
            );
        }
    }

    // The record verifies, and its replay raises the same incident at the same event.
    let out = pitwatch(None, &["verify", "--db", db_s]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = pitwatch(
        None,
        &[
            "replay", "--db", db_s, "--table", "SH-1", "--shoe", &shoe, "--json",
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let replayed: Vec<Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(
        replayed.iter().any(|v| v["code"] == "ORDER_DISCLOSED"
            && v["seq"] == incident["seq"]
            && v["message"].as_str().unwrap_or("").contains("WITHHELD")),
        "{replayed:#?}"
    );
}

/// The findings of a list of irregularities (live incidents or replay lines): code, shoe, round,
/// event and message, in order.
fn findings(items: &[Value]) -> Vec<(String, i64, Option<i64>, i64, String)> {
    items
        .iter()
        .filter(|v| v["code"].is_string())
        .map(|v| {
            (
                v["code"].as_str().unwrap().to_owned(),
                v["shoe"].as_i64().unwrap(),
                v["round"].as_i64(),
                v["seq"].as_i64().unwrap(),
                v["message"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// Issue 28: the bytes a shuffler sent, replayed from its capture (`replay --format pitwatch`),
/// are judged as the monitor judged them live: the order line withheld and raised as
/// ORDER_DISCLOSED, and every other finding the same, at the same event; `import` of the capture
/// keeps none of the order and records the same.
#[test]
fn a_shufflers_capture_replayed_or_imported_gives_what_live_recording_gave() {
    let dir = tempfile::tempdir().unwrap();
    let capture = dir.path().join("sent.bin");
    let db = dir.path().join("pit.db");
    let db_s = db.to_str().unwrap();
    let mut config = SimConfig::new(
        ProtocolConfig::by_name("pitwatch").unwrap(),
        RuleBook::nz_baccarat(),
    );
    config.seed = 5;
    config.pace = Pace::Times(50.0);
    config.shoes = Some(3);
    config.endpoint = Endpoint::Tcp("127.0.0.1:0".parse().unwrap());
    config.capture = Some(capture.clone());
    config.shuffler = Some(ShufflerSim {
        decks: 8,
        cards_per_deck: 52,
        faults: vec!["order-leak@2".parse::<ShufflerFault>().unwrap()],
        interval_ms: pitwatch_sim::SHUFFLE_INTERVAL_MS,
    });
    let sim = SimDevice::start(config).unwrap();
    let pit = dir.path().join("pit.toml");
    std::fs::write(
        &pit,
        format!(
            "[site]\nname = \"Leak\"\n[[table]]\nname = \"SH-1\"\ngame = \"baccarat\"\n\
             rules = \"nz-baccarat\"\ndevice = {{ protocol = \"pitwatch\", role = \"shuffler\" }}\n\
             link = {{ kind = \"tcp\", address = \"{}\", backoff = {{ initial_ms = 50, max_ms = 200 }} }}\n",
            sim.address().unwrap()
        ),
    )
    .unwrap();
    let mut monitor = Command::new(env!("CARGO_BIN_EXE_pitwatch"))
        .args(["monitor", "--config"])
        .arg(&pit)
        .arg("--db")
        .arg(&db)
        .env("PITWATCH_KEY", key_file())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    assert!(
        sim.wait_finished(Duration::from_secs(60)),
        "the simulator finished its shuffles"
    );
    let deadline = Instant::now() + Duration::from_secs(20);
    while !open_incidents(db_s)
        .iter()
        .any(|i| i["code"] == "ORDER_DISCLOSED")
    {
        assert!(Instant::now() < deadline, "no incident for the order line");
        std::thread::sleep(Duration::from_millis(200));
    }
    let _ = Command::new("kill")
        .args(["-INT", &monitor.id().to_string()])
        .status();
    let deadline = Instant::now() + Duration::from_secs(20);
    while monitor.try_wait().unwrap().is_none() {
        assert!(Instant::now() < deadline, "the monitor did not stop");
        std::thread::sleep(Duration::from_millis(100));
    }
    sim.stop().unwrap();
    let mut live = open_incidents(db_s);
    live.sort_by_key(|i| i["seq"].as_i64());
    let live = findings(&live);
    assert!(live.iter().any(|f| f.0 == "ORDER_DISCLOSED"), "{live:#?}");

    // The capture replayed: the same findings, at the same events.
    let capture_s = capture.to_str().unwrap();
    let out = pitwatch(
        None,
        &[
            "replay",
            "--format",
            "pitwatch",
            capture_s,
            "--rules",
            "nz-baccarat",
            "--json",
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let replayed: Vec<Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(findings(&replayed), live);
    // The order is in no line of it.
    let order = leaked_order(&capture);
    assert!(
        !text(&out.stdout).contains(&order[..11]),
        "{}",
        text(&out.stdout)
    );

    // The capture imported: the same findings, and none of the order in the record.
    let imported = dir.path().join("imported.db");
    let imported_s = imported.to_str().unwrap();
    let out = pitwatch(
        None,
        &[
            "import", "--db", imported_s, "--table", "SH-1", "--format", "pitwatch", capture_s,
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let mut from_import = open_incidents(imported_s);
    from_import.sort_by_key(|i| i["seq"].as_i64());
    assert_eq!(findings(&from_import), live);
    for path in [imported.clone(), imported.with_extension("db-wal")] {
        if let Ok(bytes) = std::fs::read(&path) {
            assert!(
                !contains(&bytes, order.as_bytes()),
                "{} holds the order",
                path.display()
            );
        }
    }
}
