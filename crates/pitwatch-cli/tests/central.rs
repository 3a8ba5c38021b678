//! `pitwatch central`, `pitwatch sync` and the read commands on the central copy, as a user runs
//! them, against a real PostgreSQL started by `scripts/pg-test-server.sh` (skipped, saying so,
//! only when PostgreSQL is not installed).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use pitwatch_sync::test_server::PgServer;

fn key_file() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("central-tests/signing.key")
}

fn pitwatch(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pitwatch"))
        .env("PITWATCH_KEY", key_file())
        .args(args)
        .output()
        .expect("pitwatch runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn ok(args: &[&str]) -> String {
    let out = pitwatch(args);
    assert!(
        out.status.success(),
        "pitwatch {args:?}: {}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    text(&out.stdout)
}

/// A shoe whose burn count and result are both wrong: two incidents.
const FAULTY_SHOE: &str = r#"{"event":"shuffled","decks":8,"shuffler":"batch"}
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

fn import(dir: &Path, db: &str, table: &str) {
    let shoe = dir.join("shoe.jsonl");
    std::fs::write(&shoe, FAULTY_SHOE).expect("write");
    ok(&[
        "import",
        "--db",
        db,
        "--table",
        table,
        "--format",
        "events",
        shoe.to_str().expect("utf-8"),
    ]);
}

/// The installation key's public half (hex), as `pitwatch verify` prints it at a workstation
/// (a record is made in `dir` to have it printed).
fn public_key_hex(dir: &Path) -> String {
    let probe = dir.join("key-probe.db");
    import(dir, probe.to_str().expect("utf-8"), "PROBE-1");
    let shown = ok(&["verify", "--db", probe.to_str().expect("utf-8")]);
    shown
        .split("public key ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .expect("verify prints the public key")
        .to_owned()
}

/// Enrols `workstation` with the installation key through the administrator's `url`; the URL
/// of the server as the workstation's role.
fn enrol(pg: &PgServer, dir: &Path, workstation: &str) -> String {
    let key = public_key_hex(dir);
    let said = ok(&[
        "central",
        "enrol",
        &pg.url,
        "--workstation",
        workstation,
        "--public-key",
        &key,
    ]);
    assert!(said.contains(&format!("enrolled {workstation}")), "{said}");
    let id: pitwatch_sync::Identity = workstation.parse().expect("id");
    pg.url_as(&pitwatch_sync::default_role(&id))
}

#[test]
fn two_records_sync_and_the_central_copy_is_read_verified_and_a_witness() {
    let Some(pg) = PgServer::start("cli central") else {
        return;
    };
    let dir = tempfile::tempdir().expect("dir");
    let north = dir.path().join("north.db");
    let south = dir.path().join("south.db");
    let (north_s, south_s) = (north.to_str().unwrap(), south.to_str().unwrap());
    import(dir.path(), north_s, "BAC-1");
    import(dir.path(), south_s, "MINI-1");

    let url = pg.url.as_str();
    let out = pitwatch(&[
        "sync",
        "--db",
        north_s,
        "--central",
        url,
        "--workstation",
        "sky/north",
        "--once",
    ]);
    assert_eq!(out.status.code(), Some(2), "not set up yet");
    assert!(
        text(&out.stderr).contains("pitwatch central init"),
        "{}",
        text(&out.stderr)
    );
    assert!(ok(&["central", "init", url]).contains("applied central migration 1"));
    // Nobody delivers under a name that is not enrolled, and the refusal says why.
    let out = pitwatch(&[
        "sync",
        "--db",
        north_s,
        "--central",
        url,
        "--workstation",
        "sky/north",
        "--once",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("sky/north is not enrolled in the central database"),
        "{}",
        text(&out.stderr)
    );
    let north_url = enrol(&pg, dir.path(), "sky/north");
    let south_url = enrol(&pg, dir.path(), "sky/south");
    // The URL from an owner-only file; a file others may read is refused.
    let url_file = dir.path().join("central.url");
    std::fs::write(&url_file, &north_url).expect("write");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&url_file, std::fs::Permissions::from_mode(0o644)).expect("chmod");
    let file_arg = format!("file:{}", url_file.display());
    let out = pitwatch(&["central", "status", &file_arg]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("chmod 600"),
        "{}",
        text(&out.stderr)
    );
    std::fs::set_permissions(&url_file, std::fs::Permissions::from_mode(0o600)).expect("chmod");

    let synced = ok(&[
        "sync",
        "--db",
        north_s,
        "--central",
        &file_arg,
        "--workstation",
        "sky/north",
        "--once",
    ]);
    assert!(synced.contains("0 rows behind"), "{synced}");
    // south's role may not deliver as north.
    let out = pitwatch(&[
        "sync",
        "--db",
        south_s,
        "--central",
        &south_url,
        "--workstation",
        "sky/north",
        "--once",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("may not deliver as sky/north"),
        "{}",
        text(&out.stderr)
    );
    ok(&[
        "sync",
        "--db",
        south_s,
        "--central",
        &south_url,
        "--workstation",
        "sky/south",
        "--once",
    ]);
    let again = ok(&[
        "sync",
        "--db",
        south_s,
        "--central",
        &south_url,
        "--workstation",
        "sky/south",
        "--once",
    ]);
    assert!(again.starts_with("delivered 0 rows"), "{again}");
    let status = ok(&["central", "status", url]);
    assert!(
        status.contains("sky/north: record") && status.contains("sky/south: record"),
        "{status}"
    );
    assert!(status.contains("enrolled key"), "{status}");
    assert!(!status.contains("CHECKPOINT REFUSED"), "{status}");

    // The surveillance view: incidents and replay from the central copy, as from the file.
    let out = pitwatch(&["incidents", "--central", url]);
    assert_eq!(out.status.code(), Some(2), "two workstations: which one?");
    assert!(
        text(&out.stderr).contains("--workstation"),
        "{}",
        text(&out.stderr)
    );
    let local = ok(&["incidents", "--db", north_s]);
    let central = ok(&["incidents", "--central", url, "--workstation", "sky/north"]);
    assert!(local.contains("BURN_COUNT_MISMATCH"), "{local}");
    assert_eq!(central, local);
    assert_eq!(
        ok(&[
            "incident",
            "show",
            "--central",
            url,
            "--workstation",
            "sky/north",
            "1"
        ]),
        ok(&["incident", "show", "--db", north_s, "1"])
    );
    let local = ok(&[
        "replay", "--db", south_s, "--table", "MINI-1", "--steps", "--json",
    ]);
    let central = ok(&[
        "replay",
        "--central",
        url,
        "--workstation",
        "sky/south",
        "--table",
        "MINI-1",
        "--steps",
        "--json",
    ]);
    assert!(local.contains("\"type\":\"round\""), "{local}");
    assert_eq!(central, local);
    // Checked against the key enrolled for the workstation: no --public-key needed.
    let verified = ok(&["verify", "--central", url, "--workstation", "sky/north"]);
    assert!(verified.trim_end().ends_with("intact"), "{verified}");
    assert!(verified.contains("(valid, trusted)"), "{verified}");

    // The server as the record's outside witness.
    let witnessed = ok(&["verify", "--db", north_s, "--witness", url]);
    assert!(witnessed.contains("central witness"), "{witnessed}");
    // An older copy put back (the journal beside it too): the server still knows better.
    let older = dir.path().join("older.db");
    std::fs::copy(&north, &older).expect("copy");
    import(dir.path(), north_s, "BAC-1");
    ok(&[
        "sync",
        "--db",
        north_s,
        "--central",
        &north_url,
        "--workstation",
        "sky/north",
        "--once",
    ]);
    let out = pitwatch(&["verify", "--db", older.to_str().unwrap(), "--witness", url]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    assert!(
        text(&out.stderr).contains("cut short or an older copy was put back"),
        "{}",
        text(&out.stderr)
    );
    // And it refuses what that older copy would ship.
    let out = pitwatch(&[
        "sync",
        "--db",
        older.to_str().unwrap(),
        "--central",
        &north_url,
        "--workstation",
        "sky/north",
        "--once",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("REFUSED"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(
        pitwatch(&["central", "status", url]).status.code(),
        Some(1),
        "a refusal is a finding"
    );

    // An export from the central copy: by a user of the workstation's accounts (replicated),
    // not audited (the central copy takes no writes), and the report says so.
    const ROOT_PW: &str = "root keeps the pit keys 42";
    let with_password = |password: &str, args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_pitwatch"))
            .env("PITWATCH_KEY", key_file())
            .env("PITWATCH_PASSWORD", password)
            .args(args)
            .output()
            .expect("pitwatch runs")
    };
    let added = with_password(
        ROOT_PW,
        &["user", "add", "--db", north_s, "--role", "admin", "root"],
    );
    assert!(added.status.success(), "{}", text(&added.stderr));
    ok(&[
        "sync",
        "--db",
        north_s,
        "--central",
        &north_url,
        "--workstation",
        "sky/north",
        "--once",
    ]);
    let json = dir.path().join("incident-1.json");
    let export = |password: &str| {
        with_password(
            password,
            &[
                "export",
                "incident",
                "1",
                "--central",
                url,
                "--workstation",
                "sky/north",
                "--user",
                "root",
                "--json",
                json.to_str().unwrap(),
            ],
        )
    };
    let refused = export("not the password");
    assert!(
        !refused.status.success() && text(&refused.stderr).contains("wrong name or password"),
        "{}",
        text(&refused.stderr)
    );
    assert!(!json.exists());
    let exported = export(ROOT_PW);
    assert!(exported.status.success(), "{}", text(&exported.stderr));
    assert!(
        text(&exported.stderr).contains("not audited"),
        "{}",
        text(&exported.stderr)
    );
    let report = std::fs::read_to_string(&json).expect("the report");
    assert!(report.contains("BURN_COUNT_MISMATCH"), "{report}");
    assert!(
        report.contains("the central copy of sky/north")
            && report.contains("not in the workstation's audit log")
            && report.contains("Exported by root (admin)"),
        "{report}"
    );
    assert!(!report.contains(ROOT_PW));

    // A name enrolled with another key: what arrives under it (here through the administrator,
    // as no workstation role could) is refused by every reader, and `central status` says so.
    let stranger = pitwatch_store::SigningKey::generate().public().to_hex();
    ok(&[
        "central",
        "enrol",
        url,
        "--workstation",
        "sky/forged",
        "--public-key",
        &stranger,
    ]);
    ok(&[
        "sync",
        "--db",
        south_s,
        "--central",
        url,
        "--workstation",
        "sky/forged",
        "--once",
    ]);
    let out = pitwatch(&["central", "status", url]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    assert!(
        text(&out.stdout).contains("CHECKPOINT REFUSED: sky/forged: checkpoint"),
        "{}",
        text(&out.stdout)
    );
    let out = pitwatch(&["verify", "--central", url, "--workstation", "sky/forged"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
}

/// A running `pitwatch` whose stdout and stderr lines are read by threads, so a test can wait for
/// a line with a deadline; killed when dropped.
struct Running {
    child: std::process::Child,
    lines: std::sync::mpsc::Receiver<String>,
    seen: Vec<String>,
}

impl Running {
    fn start(args: &[&str], env: &[(&str, &str)]) -> Running {
        use std::io::BufRead;
        let mut command = Command::new(env!("CARGO_BIN_EXE_pitwatch"));
        command.env("PITWATCH_KEY", key_file()).args(args);
        for (k, v) in env {
            command.env(k, v);
        }
        let mut child = command
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("spawn");
        let (tx, lines) = std::sync::mpsc::channel();
        let stdout = child.stdout.take().expect("stdout");
        let stderr = child.stderr.take().expect("stderr");
        let tx2 = tx.clone();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stdout)
                .lines()
                .map_while(Result::ok)
            {
                let _ = tx.send(line);
            }
        });
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stderr)
                .lines()
                .map_while(Result::ok)
            {
                let _ = tx2.send(line);
            }
        });
        Running {
            child,
            lines,
            seen: Vec::new(),
        }
    }

    fn wait_for(&mut self, needle: &str) {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        while let Some(left) = deadline.checked_duration_since(std::time::Instant::now()) {
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    let hit = line.contains(needle);
                    self.seen.push(line);
                    if hit {
                        return;
                    }
                }
                Err(_) => break,
            }
        }
        panic!("never printed {needle:?}; printed {:#?}", self.seen);
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn the_monitor_replicates_continuously_through_a_cut_link_and_alerts_while_behind() {
    let Some(pg) = PgServer::start("cli monitor central") else {
        return;
    };
    let dir = tempfile::tempdir().expect("dir");
    ok(&["central", "init", &pg.url]);
    let pit_url = enrol(&pg, dir.path(), "sky/pit-9");
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let config = dir.path().join("pit.toml");
    std::fs::write(
        &config,
        format!(
            "[site]\nname = \"Test pit\"\n[[table]]\nname = \"MINI-9\"\ngame = \"baccarat\"\n\
             rules = \"nz-baccarat\"\ndevice = {{ protocol = \"barcode\" }}\n\
             link = {{ kind = \"tcp\", address = \"{}\", backoff = {{ initial_ms = 50, max_ms = 200 }} }}\n\
             [central]\nurl_env = \"TEST_CENTRAL_URL\"\nsite = \"sky\"\nworkstation = \"pit-9\"\n\
             alert_after_s = 1\n",
            listener.local_addr().expect("addr")
        ),
    )
    .expect("write");
    let db = dir.path().join("pit.db");
    let mut monitor = Running::start(
        &[
            "monitor",
            "--config",
            config.to_str().unwrap(),
            "--db",
            db.to_str().unwrap(),
        ],
        &[("TEST_CENTRAL_URL", &pit_url)],
    );
    monitor.wait_for("replicating to");
    monitor.wait_for("replication: connected");
    let (mut device, _) = listener.accept().expect("the monitor connects");
    use std::io::Write;
    device.write_all(b"511\r011\r049\r").expect("send");

    pg.down();
    monitor.wait_for("replication: link down");
    // Recording goes on while the link is down.
    device.write_all(b"028\r008\r016\r").expect("send");
    monitor.wait_for("ALERT replication");
    pg.up();
    monitor.wait_for("replication: connected");
    monitor.wait_for("replication: caught up");
    drop(monitor);
    drop(device);

    // Everything recorded is on the server, and reads back the same.
    let synced = ok(&[
        "sync",
        "--db",
        db.to_str().unwrap(),
        "--central",
        &pit_url,
        "--workstation",
        "sky/pit-9",
        "--once",
    ]);
    assert!(synced.contains("0 rows behind"), "{synced}");
    let local = ok(&[
        "replay",
        "--db",
        db.to_str().unwrap(),
        "--table",
        "MINI-9",
        "--steps",
        "--json",
    ]);
    assert!(local.matches("\"type\":\"step\"").count() >= 6, "{local}");
    let status = ok(&["central", "status", &pg.url]);
    assert!(status.contains("sky/pit-9"), "{status}");
}

#[test]
fn a_password_is_never_taken_on_the_command_line_nor_shown() {
    const SECRET: &str = "s3cret-never-shown";
    let dir = tempfile::tempdir().expect("dir");
    let db = dir.path().join("pit.db");
    import(dir.path(), db.to_str().unwrap(), "BAC-1");
    // Given on the command line, in each of the forms a URL may hold it: refused, naming the
    // alternatives, the password never printed.
    for url in [
        format!("postgres://ana:{SECRET}@127.0.0.1:9/central?sslmode=disable"),
        format!("postgres://ana@127.0.0.1:9/central?sslmode=disable&password={SECRET}"),
        format!("host=127.0.0.1 port=9 user=ana password={SECRET} sslmode=disable"),
        format!("host=127.0.0.1 port=9 user=ana password = '{SECRET}' sslmode=disable"),
    ] {
        for args in [
            vec!["central", "status", url.as_str()],
            vec![
                "sync",
                "--db",
                db.to_str().unwrap(),
                "--central",
                url.as_str(),
                "--workstation",
                "sky/pit-3",
                "--once",
            ],
            vec![
                "verify",
                "--db",
                db.to_str().unwrap(),
                "--witness",
                url.as_str(),
            ],
        ] {
            let out = pitwatch(&args);
            let said = format!("{}{}", text(&out.stdout), text(&out.stderr));
            assert_eq!(out.status.code(), Some(2), "{args:?}: {said}");
            assert!(
                said.contains("env:NAME") && said.contains("file:PATH"),
                "{args:?}: {said}"
            );
            assert!(!said.contains(SECRET), "{args:?}: {said}");
        }
    }
    // Given the right way (from the environment), a URL holding a password that fails is
    // shown with the password hidden.
    for url in [
        format!("postgres://ana:{SECRET}@127.0.0.1:9/central?sslmode=disable"),
        format!("host=127.0.0.1 port=9 user=ana password={SECRET} sslmode=disable"),
        format!("postgres://ana:{SECRET}@db.invalid/central?sslmode=disable"),
        format!("postgres://ana:{SECRET}@db.invalid/central"),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_pitwatch"))
            .env("PITWATCH_KEY", key_file())
            .env("TEST_CENTRAL_URL", &url)
            .args(["central", "status", "env:TEST_CENTRAL_URL"])
            .output()
            .expect("pitwatch runs");
        let said = format!("{}{}", text(&out.stdout), text(&out.stderr));
        assert_eq!(out.status.code(), Some(2), "{said}");
        assert!(!said.contains(SECRET), "{said}");
        assert!(said.contains("***"), "{said}");
    }
}
