//! Faults from the environment, with the `pitwatch` binary as an operator runs it: the disk
//! failing writes (an I/O error from the operating system, made with a file-size limit lowered
//! on the running monitor and raised again), an import into a table the monitor records, stdout
//! closed under a running monitor, a control character in a table name, and too few threads for
//! the pit. None of them may end in a panic; each ends in recording going on or a clear error.

use std::io::{BufRead, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

use pitwatch_baccarat::RuleBook;
use pitwatch_protocols::ProtocolConfig;
use pitwatch_sim::{Endpoint, Pace, SimConfig, SimDevice};
use pitwatch_store::Store;

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_pitwatch")
}

/// The installation key every `pitwatch` these tests run signs with (never the user's own).
fn key_file() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("fault-tests/signing.key")
}

/// `pitwatch`, as an installation of its own.
fn pitwatch() -> Command {
    let mut command = Command::new(bin());
    command.env("PITWATCH_KEY", key_file());
    command
}

/// A pit of one table whose device is reached over TCP at `address`.
fn pit_toml(dir: &Path, protocol: &str, address: &str) -> PathBuf {
    let config = dir.join("pit.toml");
    std::fs::write(
        &config,
        format!(
            "[site]\nname = \"Faults\"\n[[table]]\nname = \"T1\"\ngame = \"baccarat\"\n\
             rules = \"nz-baccarat\"\ndevice = {{ protocol = \"{protocol}\" }}\n\
             link = {{ kind = \"tcp\", address = \"{address}\", backoff = {{ initial_ms = 50, max_ms = 200 }} }}\n"
        ),
    )
    .unwrap();
    config
}

/// Lines of a child's stream, read by a thread so a test never hangs on it.
fn lines(stream: impl Read + Send + 'static) -> Receiver<String> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stream)
            .lines()
            .map_while(Result::ok)
        {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

fn wait_line(lines: &Receiver<String>, needle: &str, seen: &mut Vec<String>) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while let Some(left) = deadline.checked_duration_since(Instant::now()) {
        match lines.recv_timeout(left) {
            Ok(line) => {
                let hit = line.contains(needle);
                seen.push(line);
                if hit {
                    return;
                }
            }
            Err(_) => break,
        }
    }
    panic!("never saw {needle:?}; saw {seen:#?}");
}

fn wait_exit(child: &mut Child, within: Duration) -> std::process::ExitStatus {
    let deadline = Instant::now() + within;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            panic!("the process did not end within {within:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn interrupt(child: &Child) {
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

/// A simulated Angel Eye shoe on TCP, dealing fast, writing what it sends to `capture`.
fn sim(capture: &Path) -> SimDevice {
    let mut config = SimConfig::new(
        ProtocolConfig::by_name("angel-eye").unwrap(),
        RuleBook::nz_baccarat(),
    );
    config.seed = 77;
    config.pace = Pace::Times(40.0);
    config.shoes = None;
    config.endpoint = Endpoint::Tcp("127.0.0.1:0".parse().unwrap());
    config.capture = Some(capture.to_owned());
    SimDevice::start(config).unwrap()
}

/// Every raw byte on record for table T1, in order.
fn recorded_bytes(db: &Path) -> Vec<u8> {
    let store = Store::open_read_only(db).unwrap();
    let table = store.table_id("T1").unwrap().unwrap();
    let mut bytes = Vec::new();
    for session in store.sessions(table).unwrap() {
        for (_, chunk) in store.chunks(session.id).unwrap() {
            bytes.extend(chunk);
        }
    }
    bytes
}

fn prlimit(pid: u32, fsize: &str) {
    let status = Command::new("prlimit")
        .args(["--pid", &pid.to_string(), &format!("--fsize={fsize}:")])
        .status()
        .expect("prlimit (util-linux) is installed");
    assert!(status.success(), "prlimit --fsize={fsize}");
}

#[test]
fn an_io_error_from_the_disk_degrades_recording_and_it_resumes_when_writes_succeed_again() {
    let dir = tempfile::tempdir().unwrap();
    let capture = dir.path().join("sent.bin");
    let device = sim(&capture);
    let config = pit_toml(
        dir.path(),
        "angel-eye",
        &device.address().unwrap().to_string(),
    );
    let db = dir.path().join("pit.db");
    // The monitor ignores SIGXFSZ (as a service manager would set it up), so a write past the
    // file-size limit fails with EFBIG, which SQLite reports as an I/O error.
    let mut child = Command::new("sh")
        .env("PITWATCH_KEY", key_file())
        .arg("-c")
        .arg(format!(
            "trap '' XFSZ; exec {} monitor --config {} --db {}",
            bin(),
            config.display(),
            db.display()
        ))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let errors = lines(child.stderr.take().unwrap());
    std::thread::sleep(Duration::from_millis(1500));
    // No file of the database may grow any more.
    let size = |p: &Path| std::fs::metadata(p).map_or(0, |m| m.len());
    let mut wal = db.as_os_str().to_owned();
    wal.push("-wal");
    let limit = size(&db).max(size(Path::new(&wal))).max(4096);
    prlimit(child.id(), &limit.to_string());
    let mut seen = Vec::new();
    wait_line(&errors, "RECORDING DEGRADED", &mut seen);
    assert!(seen.iter().any(|l| l.contains("I/O error")), "{seen:#?}");
    std::thread::sleep(Duration::from_millis(1000));
    prlimit(child.id(), "unlimited");
    wait_line(&errors, "recording recovered", &mut seen);
    // The device stops; what it sent is read, then the monitor stops in order.
    let summary = device.stop().unwrap();
    assert!(summary.bytes > 0);
    std::thread::sleep(Duration::from_millis(1500));
    interrupt(&child);
    let status = wait_exit(&mut child, Duration::from_secs(30));
    seen.extend(errors.try_iter());
    assert!(status.success(), "{status}: {seen:#?}");
    assert!(!seen.iter().any(|l| l.contains("panicked")), "{seen:#?}");
    let sent = std::fs::read(&capture).unwrap();
    assert_eq!(recorded_bytes(&db).len(), sent.len());
    assert!(recorded_bytes(&db) == sent, "every byte once, in order");
    let verify = pitwatch()
        .args(["verify", "--db", db.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(verify.status.success());
}

#[test]
fn import_into_a_table_the_monitor_records_is_refused_naming_the_monitor() {
    let dir = tempfile::tempdir().unwrap();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let config = pit_toml(
        dir.path(),
        "barcode",
        &listener.local_addr().unwrap().to_string(),
    );
    let db = dir.path().join("pit.db");
    let mut monitor = pitwatch()
        .args(["monitor", "--config"])
        .arg(&config)
        .arg("--db")
        .arg(&db)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let out = lines(monitor.stdout.take().unwrap());
    wait_line(&out, "monitoring 1 table", &mut Vec::new());
    let capture = dir.path().join("capture.txt");
    std::fs::write(&capture, "511\r011\r049\r").unwrap();
    let import = |table: &str| {
        pitwatch()
            .args(["import", "--db"])
            .arg(&db)
            .args(["--table", table, "--format", "barcode"])
            .arg(&capture)
            .output()
            .unwrap()
    };
    let refused = import("T1");
    let message = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{message}");
    assert!(
        message.contains("table T1 is being recorded by pitwatch monitor (pid ")
            && message.contains(&monitor.id().to_string()),
        "{message}"
    );
    // Another table may be imported meanwhile.
    assert!(import("T2").status.success());
    interrupt(&monitor);
    assert!(wait_exit(&mut monitor, Duration::from_secs(20)).success());
    // Once the monitor has stopped, the table is free.
    let imported = import("T1");
    assert!(
        imported.status.success(),
        "{}",
        String::from_utf8_lossy(&imported.stderr)
    );
}

#[test]
fn a_monitor_whose_stdout_closes_stops_quietly_and_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let config = pit_toml(
        dir.path(),
        "barcode",
        &listener.local_addr().unwrap().to_string(),
    );
    let db = dir.path().join("pit.db");
    let mut monitor = pitwatch()
        .args(["monitor", "--config"])
        .arg(&config)
        .arg("--db")
        .arg(&db)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let errors = lines(monitor.stderr.take().unwrap());
    let mut stdout = monitor.stdout.take().unwrap();
    let mut first = [0u8; 16];
    stdout.read_exact(&mut first).unwrap();
    // `| head -c 16`: the reader goes away. The monitor's next line (the link connecting: the
    // listener's backlog takes the connection) finds stdout closed.
    drop(stdout);
    let status = wait_exit(&mut monitor, Duration::from_secs(20));
    let said: Vec<String> = errors.try_iter().collect();
    assert!(status.success(), "{status}: {said:#?}");
    assert!(!said.iter().any(|l| l.contains("panicked")), "{said:#?}");
    // It stopped in order: the session's end is on record.
    let store = Store::open_read_only(&db).unwrap();
    let table = store.table_id("T1").unwrap().unwrap();
    assert!(store
        .sessions(table)
        .unwrap()
        .iter()
        .all(|s| s.ended_at.is_some()));
}

#[test]
fn a_control_character_in_a_table_name_is_a_clear_error_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("pit.toml");
    std::fs::write(
        &config,
        "[site]\nname = \"Pit\"\n[[table]]\nname = \"BAC\\u0000-1\"\ngame = \"baccarat\"\n\
         rules = \"nz-baccarat\"\ndevice = { protocol = \"angel-eye\" }\n\
         link = { kind = \"tcp\", address = \"127.0.0.1:9\", backoff = { initial_ms = 0 } }\n",
    )
    .unwrap();
    let out = pitwatch()
        .args(["monitor", "--config"])
        .arg(&config)
        .arg("--db")
        .arg(dir.path().join("pit.db"))
        .output()
        .unwrap();
    let message = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{message}");
    assert!(
        message.contains("name holds the control character"),
        "{message}"
    );
    assert!(
        message.contains("backoff.initial_ms must be at least"),
        "{message}"
    );
    assert!(!message.contains("panicked"), "{message}");
}

#[test]
fn a_pit_with_more_tables_than_threads_allowed_is_a_clear_error_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    // The process runs as an unprivileged user (a limit on processes does not bind root), in
    // a directory it may write.
    let mut permissions = std::fs::metadata(dir.path()).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o777);
    std::fs::set_permissions(dir.path(), permissions).unwrap();
    let mut toml = String::from("[site]\nname = \"Big\"\n");
    for i in 0..300 {
        toml.push_str(&format!(
            "[[table]]\nname = \"T{i:03}\"\ngame = \"baccarat\"\nrules = \"nz-baccarat\"\n\
             device = {{ protocol = \"angel-eye\" }}\nlink = {{ kind = \"tcp\", address = \"127.0.0.1:9\" }}\n"
        ));
    }
    let config = dir.path().join("big.toml");
    std::fs::write(&config, toml).unwrap();
    let db = dir.path().join("big.db");
    let root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0");
    let mut command = if root {
        let mut c = Command::new("setpriv");
        c.args([
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            "prlimit",
        ]);
        c
    } else {
        Command::new("prlimit")
    };
    // 60 processes or threads: far fewer than 300 device readers.
    let out = command
        // A key the unprivileged user creates and may read.
        .env("PITWATCH_KEY", dir.path().join("signing.key"))
        .args(["--nproc=60:60", "--", bin(), "monitor", "--config"])
        .arg(&config)
        .arg("--db")
        .arg(&db)
        .output()
        .unwrap();
    let message = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{message}");
    assert!(
        message.contains("cannot start a device reader thread")
            && message.contains("device readers started"),
        "{message}"
    );
    assert!(!message.contains("panicked"), "{message}");
    // Nothing was left half-started: the leases are free for the next try.
    let store = Store::open_read_only(&db).unwrap();
    assert!(store.leases().unwrap().is_empty());
}

#[test]
fn a_storm_of_device_errors_is_a_few_incidents_and_show_gives_the_count() {
    use pitwatch_model::{EventKind, TableEvent};
    let dir = tempfile::tempdir().unwrap();
    let mut encoder = ProtocolConfig::by_name("pitwatch").unwrap().encoder();
    let mut bytes = Vec::new();
    let mut seq = 0;
    let mut push = |kind: EventKind, bytes: &mut Vec<u8>| {
        seq += 1;
        bytes.extend(encoder.encode(&TableEvent::new(seq, kind)).unwrap());
    };
    for _ in 0..50 {
        push(
            EventKind::DeviceError {
                code: "E7".into(),
                text: "card jam".into(),
            },
            &mut bytes,
        );
        push(
            EventKind::DeviceErrorCleared { code: "E7".into() },
            &mut bytes,
        );
    }
    for n in 0..500 {
        push(
            EventKind::DeviceError {
                code: format!("X{n}"),
                text: "unknown".into(),
            },
            &mut bytes,
        );
    }
    let capture = dir.path().join("storm.bin");
    std::fs::write(&capture, bytes).unwrap();
    let db = dir.path().join("pit.db");
    let out = pitwatch()
        .args(["import", "--db"])
        .arg(&db)
        .args(["--table", "T1", "--format", "pitwatch"])
        .arg(&capture)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{said}");
    assert!(said.contains("5 incidents"), "{said}");
    let show = pitwatch()
        .args(["incident", "show", "--db"])
        .arg(&db)
        .arg("1")
        .output()
        .unwrap();
    let shown = String::from_utf8_lossy(&show.stdout);
    assert!(
        shown.contains("stands for 50 like irregularities (DEVICE_ERROR:E7)"),
        "{shown}"
    );
}
