//! A record written by an earlier build opens with this one: it verifies, every shoe replays and
//! every incident lists exactly as the earlier build printed them, and the monitor goes on
//! recording into it (what this build adds, such as a connection's own HELLO as a fact, chained
//! onto the old rows) with the whole still intact.
//!
//! `records/before-session-hello/` was written on 2026-12-04 by the release `pitwatch` of the
//! Debian package built from branch s16-package (main 2de6b72 and the packaging, before 9295288
//! added the `session_hello` fact): `pitwatch monitor` for about a minute over TCP on three
//! simulated tables (`pitwatch sim`, pace 40x): BAC-1 (Angel Eye, seed 7, a missing third card in
//! round 5), BJ-1 (Pitwatch protocol, seed 8, the dealer standing short in round 3) and PK-1 (a
//! counting shuffler alone, seed 9, a deck short at the third shuffle), stopped with Ctrl-C after
//! the devices had gone. Its signing key and witness are beside it, and `expect/` holds what that
//! build's `pitwatch replay --db … --table T --shoe N [--json]` and `pitwatch incidents --db …
//! [--json]` printed.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const RECORD: &str = "before-session-hello";

/// The shoes the earlier build replayed into `expect/`.
const SHOES: &[(&str, u32)] = &[
    ("BAC-1", 1),
    ("BJ-1", 1),
    ("PK-1", 1),
    ("PK-1", 2),
    ("PK-1", 3),
    ("PK-1", 4),
    ("PK-1", 5),
    ("PK-1", 6),
];

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/records")
        .join(RECORD)
}

/// The record and its key and witness, copied where this test may write.
fn copy() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for name in ["pit.db", "pit.db.checkpoints", "signing.key", "pit.toml"] {
        let to = dir.path().join(name);
        std::fs::copy(fixture().join(name), &to).unwrap();
        // As the installation keeps them (a checkout makes files readable by all, and Pitwatch
        // refuses a signing key others may read).
        std::fs::set_permissions(&to, std::os::unix::fs::PermissionsExt::from_mode(0o600)).unwrap();
    }
    dir
}

fn pitwatch(dir: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_pitwatch"));
    command.env("PITWATCH_KEY", dir.join("signing.key"));
    command
}

fn run(dir: &Path, args: &[&str]) -> Output {
    let out = pitwatch(dir)
        .args(args)
        .arg("--db")
        .arg(dir.join("pit.db"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "pitwatch {args:?}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn expected(name: &str) -> String {
    std::fs::read_to_string(fixture().join("expect").join(name)).unwrap()
}

fn verdict(dir: &Path) -> String {
    let out = run(dir, &["verify"]);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.lines().last().unwrap_or("").to_owned()
}

/// JSON Lines, a value per line.
fn json_lines(text: &str) -> Vec<serde_json::Value> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// One table's shoes replayed, text and JSON, each a list of lines (the header line first).
fn replayed(dir: &Path, table: &str) -> Vec<(u32, Vec<String>, Vec<serde_json::Value>)> {
    SHOES
        .iter()
        .filter(|(t, _)| *t == table)
        .map(|&(_, shoe)| {
            let shoe_arg = shoe.to_string();
            let args = ["replay", "--table", table, "--shoe", &shoe_arg];
            let text = String::from_utf8(run(dir, &args).stdout).unwrap();
            let json = run(dir, &[&args[..], &["--json"]].concat()).stdout;
            let json = json_lines(&String::from_utf8(json).unwrap());
            (shoe, text.lines().map(str::to_owned).collect(), json)
        })
        .collect()
}

/// What the earlier build printed for one table's shoes, the same way.
fn printed_before(table: &str) -> Vec<(u32, Vec<String>, Vec<serde_json::Value>)> {
    SHOES
        .iter()
        .filter(|(t, _)| *t == table)
        .map(|&(_, shoe)| {
            let text = expected(&format!("replay-{table}-{shoe}.txt"));
            let json = json_lines(&expected(&format!("replay-{table}-{shoe}.json")));
            (shoe, text.lines().map(str::to_owned).collect(), json)
        })
        .collect()
}

/// Every line of every shoe, sorted: the outputs whatever shoe's replay shows them.
fn every_line(shoes: &[(u32, Vec<String>, Vec<serde_json::Value>)]) -> (Vec<String>, Vec<String>) {
    let mut text: Vec<String> = shoes.iter().flat_map(|(_, t, _)| t.clone()).collect();
    let mut json: Vec<String> = shoes
        .iter()
        .flat_map(|(_, _, j)| j.iter().map(|v| v.to_string()))
        .collect();
    text.sort();
    json.sort();
    (text, json)
}

/// Every table's shoes give the outputs the earlier build gave, messages included. Where they
/// are shown differs in one way, on purpose: the earlier build showed a shoe's last round and
/// summary (said when the next shoe's shuffle closed it) at the top of the next shoe's replay;
/// this one shows them with their own shoe.
fn assert_replays_as_before(dir: &Path) {
    for table in ["BAC-1", "BJ-1", "PK-1"] {
        let now = replayed(dir, table);
        let before = printed_before(table);
        assert_eq!(every_line(&now), every_line(&before), "{table}");
        for (shoe, text, json) in &now {
            let own = format!(
                "== {} {shoe}:",
                if table == "PK-1" { "deck" } else { "shoe" }
            );
            let summaries: Vec<&String> = text.iter().filter(|l| l.starts_with("== ")).collect();
            assert!(
                summaries.iter().all(|l| l.starts_with(&own)),
                "{table} shoe {shoe} shows another shoe's summary: {summaries:?}"
            );
            assert!(
                json.iter()
                    .all(|v| v["shoe"].as_u64().is_none_or(|s| s == u64::from(*shoe))
                        || v["type"] == "irregularity"),
                "{table} shoe {shoe}: another shoe's output in {json:?}"
            );
        }
    }
}

#[test]
fn a_record_written_by_an_earlier_build_verifies_and_replays_as_it_did() {
    let dir = copy();
    assert_eq!(verdict(dir.path()), "intact");
    assert_replays_as_before(dir.path());
    let listed = String::from_utf8(run(dir.path(), &["incidents"]).stdout).unwrap();
    assert_eq!(listed, expected("incidents.txt"));
    let listed =
        json_lines(&String::from_utf8(run(dir.path(), &["incidents", "--json"]).stdout).unwrap());
    let before = json_lines(&expected("incidents.json"));
    assert_eq!(listed, before);
    let codes: Vec<&str> = before.iter().filter_map(|i| i["code"].as_str()).collect();
    assert!(
        codes.contains(&"MISSING_THIRD_CARD") && codes.contains(&"SHUFFLE_COUNT_MISMATCH"),
        "the fixture holds the faults it was dealt: {codes:?}"
    );
}

#[test]
fn the_monitor_goes_on_recording_into_a_record_written_by_an_earlier_build() {
    let dir = copy();
    // BJ-1's shoe again, on a port of this test's: a Pitwatch-protocol device, which says HELLO.
    let port = {
        let probe = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        probe.local_addr().unwrap().port()
    };
    let address = format!("127.0.0.1:{port}");
    let config = dir.path().join("bj.toml");
    std::fs::write(
        &config,
        format!(
            "[site]\nname = \"Compatibility Pit\"\n\n[[table]]\nname = \"BJ-1\"\ngame = \"blackjack\"\n\
             rules = \"nz-blackjack\"\ndevice = {{ protocol = \"pitwatch\" }}\n\
             link = {{ kind = \"tcp\", address = \"{address}\" }}\n"
        ),
    )
    .unwrap();
    let mut device = pitwatch(dir.path())
        .args(["sim", "--protocol", "pitwatch", "--rules", "nz-blackjack"])
        .args([
            "--pace", "fast", "--shoes", "1", "--seed", "11", "--tcp", &address,
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let mut monitor = pitwatch(dir.path())
        .args(["monitor", "--config"])
        .arg(&config)
        .arg("--db")
        .arg(dir.path().join("pit.db"))
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(dir.path().join("monitor.err")).unwrap())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while device.try_wait().unwrap().is_none() {
        if let Some(status) = monitor.try_wait().unwrap() {
            let _ = device.kill();
            panic!(
                "the monitor stopped ({status}): {}",
                std::fs::read_to_string(dir.path().join("monitor.err")).unwrap_or_default()
            );
        }
        assert!(
            Instant::now() < deadline,
            "the device did not finish its shoe"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    std::thread::sleep(Duration::from_millis(500));
    let stopped = Command::new("kill")
        .args(["-INT", &monitor.id().to_string()])
        .status()
        .unwrap();
    assert!(stopped.success());
    let deadline = Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(status) = monitor.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "the monitor did not stop");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success(), "an orderly stop: {status}");

    // The whole, old rows and new, verifies; what was recorded before replays as it did, the
    // one difference said: BJ-1's first shoe, cut off when its device went away, is known to
    // have been cut off (`partial`) once a later connection follows it on record.
    assert_eq!(verdict(dir.path()), "intact");
    let (text, _) = every_line(&replayed(dir.path(), "BJ-1")[..1]);
    let (before, _) = every_line(&printed_before("BJ-1"));
    let text: Vec<String> = text
        .into_iter()
        .map(|l| l.replace(" (partial)", ""))
        .collect();
    assert_eq!(text, before);
    for table in ["BAC-1", "PK-1"] {
        assert_eq!(
            every_line(&replayed(dir.path(), table)),
            every_line(&printed_before(table))
        );
    }
    // The new shoe is BJ-1's second, with its rounds.
    let second =
        String::from_utf8(run(dir.path(), &["replay", "--table", "BJ-1", "--shoe", "2"]).stdout)
            .unwrap();
    assert!(second.contains("shoe 2"), "{second}");
    assert!(second.contains("2.1 "), "rounds of the new shoe: {second}");
    // The connection's HELLO is on record as this build records it, beside the old sessions.
    let before = meta_count(&fixture().join("pit.db"), "session_hello:");
    let after = meta_count(&dir.path().join("pit.db"), "session_hello:");
    assert_eq!(before, 0, "the earlier build wrote no session_hello fact");
    assert!(
        after > 0,
        "no session_hello fact was chained onto the old record"
    );
}

/// How many `meta` facts of a record have keys beginning with `prefix`, read with the sqlite3
/// program, read-only.
fn meta_count(db: &Path, prefix: &str) -> usize {
    let out = Command::new("sqlite3")
        .arg("-readonly")
        .arg(db)
        .arg(format!(
            "SELECT count(*) FROM meta WHERE key LIKE '{prefix}%';"
        ))
        .output()
        .expect("sqlite3 (scripts/install-system-deps.sh installs it)");
    let text = String::from_utf8_lossy(&out.stdout);
    text.trim()
        .parse()
        .unwrap_or_else(|_| panic!("sqlite3: {text}{}", String::from_utf8_lossy(&out.stderr)))
}
