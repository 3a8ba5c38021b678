//! The `pitwatch` binary as a user runs it: arguments in, text and exit codes out.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The installation key every `pitwatch` these tests run signs with (never the user's own).
fn key_file() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli-tests/signing.key")
}

/// `pitwatch`, as an installation of its own.
fn command() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_pitwatch"));
    command.env("PITWATCH_KEY", key_file());
    command
}

fn pitwatch(args: &[&str]) -> Output {
    command().args(args).output().expect("pitwatch runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The JSON Lines example in docs/events.md, so the documentation cannot drift from the reader.
fn documented_example() -> String {
    let doc = std::fs::read_to_string(repo().join("docs/events.md")).expect("docs/events.md");
    let start = doc.find("```json\n").expect("a json block") + "```json\n".len();
    let end = start + doc[start..].find("```").expect("the block ends");
    doc[start..end].to_owned()
}

#[test]
fn version_and_help() {
    let out = pitwatch(&["--version"]);
    assert!(out.status.success());
    assert_eq!(
        text(&out.stdout).trim(),
        format!("pitwatch {}", env!("CARGO_PKG_VERSION"))
    );
    let out = pitwatch(&["--help"]);
    assert!(out.status.success());
    assert!(text(&out.stdout).contains("events"));
}

#[test]
fn events_check_accepts_the_documented_example() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("example.jsonl");
    std::fs::write(&file, documented_example()).unwrap();
    let out = pitwatch(&["events", "check", file.to_str().unwrap()]);
    assert!(out.status.success(), "stderr: {}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("valid, 15 events (seq 1 to 15)"),
        "{stdout}"
    );
    assert!(stdout.contains("card_drawn"), "{stdout}");
}

#[test]
fn events_check_names_the_first_bad_line_and_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bad.jsonl");
    std::fs::write(
        &file,
        "{\"event\":\"shuffled\",\"decks\":8}\n\n{\"event\":\"card_drawn\",\"card\":\"1S\"}\n{\"event\":\"nonsense\"}\n",
    )
    .unwrap();
    let out = pitwatch(&["events", "check", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("line 3: card_drawn: bad \"card\": \"1S\" is not a card"),
        "{stderr}"
    );
    assert!(
        !stderr.contains("line 4"),
        "only the first bad line: {stderr}"
    );
}

#[test]
fn events_check_on_a_missing_file_is_a_clear_error() {
    let out = pitwatch(&["events", "check", "/nonexistent/pitwatch-events.jsonl"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("cannot open /nonexistent/pitwatch-events.jsonl"));
}

fn recorded_database(dir: &Path) -> PathBuf {
    use pitwatch_model::{EventKind, TableEvent, Timestamp};
    let path = dir.join("pit.db");
    let mut store =
        pitwatch_store::Store::open(&path, &pitwatch_store::Sealing::key_file(key_file())).unwrap();
    let now = Timestamp::from_unix_millis(1_796_000_000_000).unwrap();
    let table = store
        .ensure_table("BAC-1", "baccarat", "nz-baccarat", now)
        .unwrap();
    let device = store
        .ensure_device(
            &pitwatch_store::DeviceIdentity {
                protocol: "barcode".into(),
                port: "/dev/ttyS0".into(),
                ..Default::default()
            },
            now,
        )
        .unwrap();
    let session = store.start_session(table, device, now).unwrap();
    let mut batch = store.batch(now).unwrap();
    for (i, code) in ["029\r", "001\r", "052\r"].iter().enumerate() {
        let chunk = batch.append_chunk(session, now, code.as_bytes()).unwrap();
        let frame = batch
            .append_frame(session, chunk, now, code.as_bytes(), None)
            .unwrap();
        let event = TableEvent::new(i as u64 + 1, EventKind::card("AD".parse().unwrap()));
        batch
            .append_event(table, Some(session), Some(frame), &event)
            .unwrap();
    }
    batch.commit().unwrap();
    path
}

#[test]
fn verify_reports_an_intact_record_with_counts() {
    let dir = tempfile::tempdir().unwrap();
    let db = recorded_database(dir.path());
    let out = pitwatch(&["verify", "--db", db.to_str().unwrap()]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    assert!(stdout.contains("sqlite integrity check: ok"), "{stdout}");
    assert!(stdout.contains("raw_chunks"), "{stdout}");
    assert!(
        stdout
            .lines()
            .any(|l| l.contains("events") && l.contains("3 rows") && l.contains("intact")),
        "{stdout}"
    );
    assert!(stdout.trim_end().ends_with("intact"), "{stdout}");
    assert!(
        stdout.contains("host clock: never sampled in this record"),
        "{stdout}"
    );
}

#[test]
fn verify_prints_the_host_clock_as_last_sampled() {
    let dir = tempfile::tempdir().unwrap();
    let db = recorded_database(dir.path());
    let mut store =
        pitwatch_store::Store::open(&db, &pitwatch_store::Sealing::key_file(key_file())).unwrap();
    for (at, synchronised) in [(1_796_000_060_000, true), (1_796_000_120_000, false)] {
        let sample = format!(
            "{{\"at\":\"{}\",\"synchronised\":{synchronised},\"est_error_us\":12000,\
             \"max_error_us\":40000,\"offset_us\":0,\"source\":\"kernel (adjtimex)\",\
             \"limit_ms\":1000}}",
            pitwatch_model::Timestamp::from_unix_millis(at).unwrap()
        );
        store
            .set_meta(
                &pitwatch_store::clock_sample_key(at),
                &sample,
                pitwatch_model::Timestamp::from_unix_millis(at).unwrap(),
            )
            .unwrap();
    }
    drop(store);
    let out = pitwatch(&["verify", "--db", db.to_str().unwrap()]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    assert!(
        stdout.contains(
            "host clock, last sampled: NOT synchronised at the time (kernel (adjtimex), sampled \
             2026-11-30T00:55:20Z)"
        ),
        "{stdout}"
    );
}

#[test]
fn verify_names_the_first_altered_row_and_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    let db = recorded_database(dir.path());
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute_batch("DROP TRIGGER events_append_only_u; UPDATE events SET body = replace(body, 'AD', 'AS') WHERE id = 2;")
        .unwrap();
    drop(conn);
    let out = pitwatch(&["verify", "--db", db.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("NOT INTACT: events row 2: its content does not match its hash"),
        "{stderr}"
    );
}

#[test]
fn verify_checks_the_signature_the_witness_and_a_printed_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let db = recorded_database(dir.path());
    let db_arg = db.to_str().unwrap();
    let out = pitwatch(&["verify", "--db", db_arg]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    assert!(stdout.contains("(valid, trusted)"), "{stdout}");
    let checkpoint = stdout
        .lines()
        .find_map(|l| l.trim().strip_prefix("latest checkpoint: "))
        .expect("the latest checkpoint is printed")
        .to_owned();
    let fingerprint = pitwatch_store::SigningKey::load(&key_file())
        .unwrap()
        .public()
        .fingerprint();
    assert!(stdout.contains(&fingerprint), "{stdout}");

    // The checkpoint a report printed is checked on its own, and a witness folder is read.
    let witness = dir.path().join("witness");
    std::fs::create_dir(&witness).unwrap();
    let out = pitwatch(&[
        "verify",
        "--db",
        db_arg,
        "--checkpoint",
        &checkpoint,
        "--witness",
        witness.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));

    // Another installation's key is not trusted: the record cannot be vouched for.
    let stranger = dir.path().join("stranger.key");
    let out = command()
        .env("PITWATCH_KEY", &stranger)
        .args(["verify", "--db", db_arg])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stdout));
    assert!(
        text(&out.stderr).contains("no trusted key"),
        "{}",
        text(&out.stderr)
    );
    // Given the installation's public key, it is.
    let public = pitwatch_store::SigningKey::load(&key_file())
        .unwrap()
        .public()
        .to_hex();
    let out = command()
        .env("PITWATCH_KEY", &stranger)
        .args(["verify", "--db", db_arg, "--public-key", &public])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));

    // An old copy put back: the journal beside it and the printed checkpoint both say so.
    let copy = dir.path().join("copy.db");
    rusqlite::Connection::open(&db)
        .unwrap()
        .execute("VACUUM INTO ?1", [copy.to_str().unwrap()])
        .unwrap();
    let mut store =
        pitwatch_store::Store::open(&db, &pitwatch_store::Sealing::key_file(key_file())).unwrap();
    let now = pitwatch_model::Timestamp::from_unix_millis(1_796_000_100_000).unwrap();
    store.set_meta("site", "Main pit", now).unwrap();
    let later = store.latest_checkpoint().unwrap().unwrap().to_string();
    drop(store);
    for suffix in ["-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{db_arg}{suffix}"));
    }
    std::fs::copy(&copy, &db).unwrap();
    let out = pitwatch(&["verify", "--db", db_arg, "--checkpoint", &later]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("older copy was put back"), "{stderr}");
    assert!(stderr.contains("the checkpoint given"), "{stderr}");

    // A checkpoint that is not one is a usage error.
    let out = pitwatch(&["verify", "--db", db_arg, "--checkpoint", "nonsense"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_signed_record_whose_key_is_gone_is_refused_naming_the_key_file() {
    let dir = tempfile::tempdir().unwrap();
    let db = recorded_database(dir.path());
    let elsewhere = dir.path().join("gone.key");
    let out = command()
        .env("PITWATCH_KEY", &elsewhere)
        .env("PITWATCH_PASSWORD", "a long passphrase")
        .args([
            "user",
            "add",
            "--db",
            db.to_str().unwrap(),
            "--role",
            "supervisor",
            "ana",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stdout));
    let stderr = text(&out.stderr);
    assert!(stderr.contains(elsewhere.to_str().unwrap()), "{stderr}");
    assert!(stderr.contains("restore the key"), "{stderr}");
    assert!(
        !elsewhere.exists(),
        "no new key is made for a signed record"
    );
}

#[test]
fn verify_refuses_what_is_not_a_pitwatch_database() {
    let dir = tempfile::tempdir().unwrap();
    let junk = dir.path().join("junk.db");
    std::fs::write(&junk, b"this is not sqlite").unwrap();
    let out = pitwatch(&["verify", "--db", junk.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("not a Pitwatch database")
            || text(&out.stderr).contains("not a database"),
        "{}",
        text(&out.stderr)
    );
    let out = pitwatch(&["verify", "--db", "/nonexistent/pit.db"]);
    assert_eq!(out.status.code(), Some(2));
}

const BURN_AND_RESULT_FAULTS: &str = r#"{"event":"shuffled","decks":8,"shuffler":"batch"}
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

/// The text of a PDF as poppler extracts it (poppler-utils is installed by
/// `scripts/install-system-deps.sh`; a missing tool fails the test).
fn pdftotext(pdf: &Path) -> String {
    let out = Command::new("pdftotext")
        .arg("-layout")
        .arg(pdf)
        .arg("-")
        .output()
        .expect("pdftotext runs (install poppler-utils)");
    assert!(out.status.success(), "{}", text(&out.stderr));
    text(&out.stdout)
}

fn pitwatch_as(password: &str, args: &[&str]) -> Output {
    command()
        .args(args)
        .env("PITWATCH_PASSWORD", password)
        .output()
        .expect("pitwatch runs")
}

/// The first administrator's password in these tests.
const ROOT_PW: &str = "root keeps the pit keys 42";
/// Every other user's password in these tests.
const STAFF_PW: &str = "correct horse battery staple";

/// Makes `root` the first administrator of `db` (a record with no users).
fn first_admin(db: &str) {
    let out = pitwatch_as(
        ROOT_PW,
        &["user", "add", "--db", db, "--role", "admin", "root"],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
}

/// `root` adds `name` with `role` to `db`.
fn add_staff(db: &str, role: &str, name: &str) {
    let out = command()
        .args([
            "user", "add", "--db", db, "--admin", "root", "--role", role, name,
        ])
        .env("PITWATCH_ADMIN_PASSWORD", ROOT_PW)
        .env("PITWATCH_PASSWORD", STAFF_PW)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("by root"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn import_then_work_an_incident_to_resolution() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("pit.db");
    let db = db.to_str().unwrap();
    let capture = dir.path().join("shoe.jsonl");
    std::fs::write(&capture, BURN_AND_RESULT_FAULTS).unwrap();

    let out = pitwatch(&[
        "import",
        "--db",
        db,
        "--table",
        "BAC-1",
        "--format",
        "events",
        capture.to_str().unwrap(),
    ]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    assert!(
        stdout.contains("13 events, 1 rounds, 2 incidents"),
        "{stdout}"
    );
    assert!(stdout.contains("BURN_COUNT_MISMATCH"), "{stdout}");
    assert!(stdout.contains("RESULT_MISMATCH"), "{stdout}");

    let out = pitwatch(&["incidents", "--db", db, "--status", "open", "--json"]);
    let open: Vec<serde_json::Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(open.len(), 2);
    assert_eq!(open[0]["code"], "BURN_COUNT_MISMATCH");
    assert_eq!(open[0]["evidence"], serde_json::json!([4, 7]));
    let id = open[0]["id"].to_string();

    first_admin(db);
    add_staff(db, "supervisor", "ana");
    // A wrong password is refused and changes nothing.
    let out = pitwatch_as(
        "wrong-horse",
        &["incident", "ack", "--db", db, "--user", "ana", &id],
    );
    assert_eq!(out.status.code(), Some(3));
    assert!(
        text(&out.stderr).contains("wrong user name or password"),
        "{}",
        text(&out.stderr)
    );
    // The next attempt for that name waits a second after a failure.
    std::thread::sleep(std::time::Duration::from_millis(1100));
    for step in [
        vec!["incident", "ack", "--db", db, "--user", "ana", &id],
        vec![
            "incident",
            "note",
            "--db",
            db,
            "--user",
            "ana",
            &id,
            "Burn recounted on camera",
        ],
        vec![
            "incident",
            "resolve",
            "--db",
            db,
            "--user",
            "ana",
            &id,
            "--resolution",
            "Shoe reshuffled",
        ],
    ] {
        let out = pitwatch_as(STAFF_PW, &step);
        assert!(out.status.success(), "{step:?}: {}", text(&out.stderr));
    }
    // Resolving twice is refused with a reason.
    let out = pitwatch_as(
        STAFF_PW,
        &[
            "incident",
            "resolve",
            "--db",
            db,
            "--user",
            "ana",
            &id,
            "--resolution",
            "again",
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("already resolved"));

    let out = pitwatch(&["incidents", "--db", db, "--status", "resolved", "--json"]);
    let resolved: Vec<serde_json::Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(resolved.len(), 1);
    assert_eq!(resolved[0]["id"].to_string(), id);
    let out = pitwatch(&["incident", "show", "--db", db, &id]);
    let shown = text(&out.stdout);
    for expected in [
        "acknowledged ana",
        "note         ana        Burn recounted on camera",
        "resolved     ana        Shoe reshuffled",
        "rule: 7.7(b)",
    ] {
        assert!(shown.contains(expected), "{expected:?} in {shown}");
    }
    let out = pitwatch(&["verify", "--db", db]);
    assert!(out.status.success(), "{}", text(&out.stdout));
}

#[test]
fn import_counts_and_lists_a_swapped_device_among_its_incidents() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("pit.db");
    let capture = dir.path().join("shoe.pw");
    let hello = |serial: &str| {
        pitwatch_proto::ProtoEncoder::new().hello(pitwatch_codec::DeviceIdentity {
            role: "shoe".into(),
            make: "Acme".into(),
            model: "Shoe 9".into(),
            serial: serial.into(),
            firmware: "1.0".into(),
            protocol_version: 1,
        })
    };
    std::fs::write(&capture, [hello("S1"), hello("S2")].concat()).unwrap();
    let out = pitwatch(&[
        "import",
        "--db",
        db.to_str().unwrap(),
        "--table",
        "BAC-9",
        "--format",
        "pitwatch",
        capture.to_str().unwrap(),
    ]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    assert!(stdout.contains(", 1 incidents"), "{stdout}");
    assert!(
        stdout.contains(": DEVICE_SWAPPED (high): Table BAC-9:"),
        "{stdout}"
    );
}

#[test]
fn import_of_a_barcode_capture_records_every_frame() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("pit.db");
    let capture = dir.path().join("shoe.bar");
    // Shuffle card, first card 3H and three burns, one round; then one code that is no card.
    std::fs::write(
        &capture,
        "511\r011\r049\r028\r008\r016\r049\r005\r018\r007\r777\r",
    )
    .unwrap();
    let out = pitwatch(&[
        "import",
        "--db",
        db.to_str().unwrap(),
        "--table",
        "MINI-1",
        "--format",
        "barcode",
        capture.to_str().unwrap(),
    ]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    assert!(
        stdout.contains("10 frames accepted, 1 rejected, 10 events, 1 rounds"),
        "{stdout}"
    );
    assert!(stdout.contains("rejected: malformed"), "{stdout}");
}

#[test]
fn monitor_records_a_live_table_and_stops_cleanly_on_ctrl_c() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let (config, db, listener) = one_table_pit(dir.path());
    let monitor = RunningMonitor::start(&config, &db);
    let (mut device, _) = listener.accept().unwrap();
    // A shuffle, the first card 3H with three burns, one round, then a card no deck holds twice
    // over: nine aces of spades (with other cards between them).
    let mut bytes = b"511\r011\r049\r028\r008\r016\r049\r005\r018\r007\r".to_vec();
    for _ in 0..9 {
        bytes.extend(b"004\r005\r");
    }
    device.write_all(&bytes).unwrap();
    let seen = monitor.wait_for("EXCESS_CARD");
    assert!(
        seen.iter().any(|l| l.contains("connected: tcp")),
        "{seen:#?}"
    );
    assert!(
        seen.iter()
            .any(|l| l.contains("shoe 1 round  1: P [4S 2D] 6  B [KD 5C 2H] 7  banker")),
        "{seen:#?}"
    );
    let interrupted = Command::new("kill")
        .args(["-INT", &monitor.child.id().to_string()])
        .status()
        .unwrap();
    assert!(interrupted.success());
    let rest = monitor.wait_for("stopped; everything is on record");
    assert!(
        rest.iter()
            .any(|l| l.contains("disconnected: stopped by the host")),
        "{rest:#?}"
    );
    drop(monitor);
    let out = pitwatch(&["incidents", "--db", db.to_str().unwrap(), "--json"]);
    assert!(text(&out.stdout).contains("EXCESS_CARD"));
    assert!(pitwatch(&["verify", "--db", db.to_str().unwrap()])
        .status
        .success());
}

#[test]
fn monitor_lists_every_configuration_problem() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("pit.toml");
    std::fs::write(
        &config,
        "[site]\nname = \"\"\n[[table]]\nname = \"A\"\ngame = \"baccarat\"\nrules = \"nowhere\"\ndevice = { protocol = \"barcode\" }\n",
    )
    .unwrap();
    let out = pitwatch(&[
        "monitor",
        "--config",
        config.to_str().unwrap(),
        "--db",
        dir.path().join("x.db").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("3 problem(s)"), "{stderr}");
    assert!(
        stderr.contains("site.name is empty")
            && stderr.contains("rules \"nowhere\"")
            && stderr.contains("no link"),
        "{stderr}"
    );
}

/// A pit of one barcode table, MINI-9, read from a device server on a loopback port: the pit
/// definition, the database path, and the listener that plays the device server.
fn one_table_pit(dir: &Path) -> (PathBuf, PathBuf, std::net::TcpListener) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let config = dir.join("pit.toml");
    std::fs::write(
        &config,
        format!(
            "[site]\nname = \"Test pit\"\n[[table]]\nname = \"MINI-9\"\ngame = \"baccarat\"\n\
             rules = \"nz-baccarat\"\ndevice = {{ protocol = \"barcode\" }}\n\
             link = {{ kind = \"tcp\", address = \"{}\", backoff = {{ initial_ms = 50, max_ms = 200 }} }}\n",
            listener.local_addr().unwrap()
        ),
    )
    .unwrap();
    (config, dir.join("pit.db"), listener)
}

/// A running `pitwatch monitor` whose output lines are read by a thread, so a test can wait for
/// a line with a deadline and never hangs; the process is killed when dropped.
struct RunningMonitor {
    child: std::process::Child,
    lines: std::sync::mpsc::Receiver<String>,
}

impl RunningMonitor {
    fn start(config: &Path, db: &Path) -> RunningMonitor {
        use std::io::BufRead;
        let mut child = command()
            .args([
                "monitor",
                "--config",
                config.to_str().unwrap(),
                "--db",
                db.to_str().unwrap(),
            ])
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stdout)
                .lines()
                .map_while(Result::ok)
            {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        RunningMonitor { child, lines }
    }

    fn wait_for(&self, needle: &str) -> Vec<String> {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        let mut seen = Vec::new();
        while let Some(left) = deadline.checked_duration_since(std::time::Instant::now()) {
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    let hit = line.contains(needle);
                    seen.push(line);
                    if hit {
                        return seen;
                    }
                }
                Err(_) => break,
            }
        }
        panic!("the monitor never printed {needle:?}; it printed {seen:#?}");
    }
}

impl Drop for RunningMonitor {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn a_killed_monitor_loses_nothing_committed_and_carries_on_the_same_shoe() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let (config, db, listener) = one_table_pit(dir.path());
    // Round 1: P 4S 2D = 6, B KD 5C 2H = 7. Round 2 (dealt P, B, P, B): P 9C 9H = 8, a natural,
    // B 3S 3H = 6.
    let shoe_start = "511\r011\r049\r028\r008\r";
    let round1 = "016\r049\r005\r018\r007\r";
    let round2 = "034\r012\r035\r011\r";
    // Round 3: P 8S AD = 9, B 7H KC = 7: a natural, no draws.
    let round3 = "032\r027\r001\r050\r";

    let mut monitor = RunningMonitor::start(&config, &db);
    let (mut device, _) = listener.accept().unwrap();
    device
        .write_all(format!("{shoe_start}{round1}{round2}").as_bytes())
        .unwrap();
    monitor.wait_for("shoe 1 round  2");
    monitor.child.kill().unwrap(); // SIGKILL: no clean shutdown at all.
    monitor.child.wait().unwrap();
    drop(device);

    let monitor = RunningMonitor::start(&config, &db);
    let (mut device, _) = listener.accept().unwrap();
    let seen = monitor.wait_for("connected: tcp");
    assert!(
        seen.iter().any(|l| l.contains("verified intact")),
        "the record is checked at start-up: {seen:#?}"
    );
    device.write_all(round3.as_bytes()).unwrap();
    let seen = monitor.wait_for("shoe 1 round  3");
    assert!(
        seen.iter()
            .any(|l| l.contains("P [8S AD] 9  B [7H KC] 7  player")),
        "the restarted monitor carries on the same shoe: {seen:#?}"
    );
    assert!(!seen.iter().any(|l| l.contains("INCIDENT")), "{seen:#?}");
    let interrupted = Command::new("kill")
        .args(["-INT", &monitor.child.id().to_string()])
        .status()
        .unwrap();
    assert!(interrupted.success());
    monitor.wait_for("stopped; everything is on record");
    drop(monitor);

    let out = pitwatch(&["verify", "--db", db.to_str().unwrap()]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(
        stdout
            .lines()
            .any(|l| l.trim_start().starts_with("events") && l.contains(" 18 rows")),
        "every event of both runs is on record: {stdout}"
    );
}

#[test]
fn replay_from_the_record_prints_the_shoe_and_its_steps() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("pit.db");
    let db_s = db.to_str().unwrap();
    let capture = dir.path().join("shoe.jsonl");
    std::fs::write(&capture, BURN_AND_RESULT_FAULTS).unwrap();
    assert!(pitwatch(&[
        "import",
        "--db",
        db_s,
        "--table",
        "BAC-1",
        "--format",
        "events",
        capture.to_str().unwrap()
    ])
    .status
    .success());
    let bar = dir.path().join("mini.bar");
    std::fs::write(&bar, "511\r011\r049\r028\r008\r016\r049\r005\r018\r007\r").unwrap();
    assert!(pitwatch(&[
        "import",
        "--db",
        db_s,
        "--table",
        "MINI-1",
        "--format",
        "barcode",
        bar.to_str().unwrap()
    ])
    .status
    .success());

    let out = pitwatch(&["replay", "--db", db_s, "--table", "BAC-1", "--shoe", "1"]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    assert!(
        stdout.starts_with("table BAC-1, shoe 1, rule book nz-baccarat: record verified intact"),
        "{stdout}"
    );
    assert!(
        stdout.contains("BURN_COUNT_MISMATCH") && stdout.contains("RESULT_MISMATCH"),
        "{stdout}"
    );

    let out = pitwatch(&[
        "replay", "--db", db_s, "--table", "MINI-1", "--steps", "--json",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let lines: Vec<serde_json::Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[0]["type"], "record");
    assert_eq!(lines[0]["intact"], true);
    assert_eq!(lines[0]["divergences"], serde_json::json!([]));
    let steps = lines.iter().filter(|l| l["type"] == "step").count();
    assert_eq!(
        steps, 10,
        "one step per event re-decoded from the barcode bytes"
    );
    let round = lines.iter().find(|l| l["type"] == "round").unwrap();
    assert_eq!(round["player"], serde_json::json!(["4S", "2D"]));
    assert_eq!(round["banker"], serde_json::json!(["KD", "5C", "2H"]));

    let out = pitwatch(&["replay", "--db", db_s, "--table", "MINI-1", "--shoe", "4"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("not shoe 4"),
        "{}",
        text(&out.stderr)
    );
    let out = pitwatch(&["replay", "--db", db_s, "--table", "NOPE"]);
    assert_eq!(out.status.code(), Some(2));
}

mod archive;
mod export;
mod pack;
mod refusals;
