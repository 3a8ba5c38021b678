//! `pitwatch monitor` applies a change of its pit definition's file while it runs: a table
//! added is started, the one running keeps going; a file that does not read changes nothing and
//! says why; SIGHUP reads the file again at once, whatever its modification time says.

use std::io::BufRead;
use std::net::TcpListener;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

fn section(name: &str, listener: &TcpListener) -> String {
    format!(
        "[[table]]\nname = \"{name}\"\ngame = \"baccarat\"\nrules = \"nz-baccarat\"\n\
         device = {{ protocol = \"barcode\" }}\n\
         link = {{ kind = \"tcp\", address = \"{}\", backoff = {{ initial_ms = 50, max_ms = 200 }} }}\n",
        listener.local_addr().unwrap()
    )
}

/// Every line the monitor prints, stdout and stderr alike, until `needle` (with a deadline).
fn wait_for(lines: &Receiver<String>, needle: &str) -> Vec<String> {
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut seen = Vec::new();
    while let Some(left) = deadline.checked_duration_since(Instant::now()) {
        match lines.recv_timeout(left) {
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

fn write(config: &Path, text: &str) {
    // A modification time the monitor sees as new, on file systems that keep seconds only.
    std::thread::sleep(Duration::from_millis(1100));
    std::fs::write(config, text).unwrap();
}

/// `pitwatch monitor` on `config`, recording into `db`, and every line it prints.
fn monitor(config: &Path, db: &Path, dir: &Path) -> (std::process::Child, Receiver<String>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_pitwatch"))
        .args(["monitor", "--config"])
        .arg(config)
        .arg("--db")
        .arg(db)
        .env("PITWATCH_KEY", dir.join("signing.key"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (tx, lines) = channel();
    let err_tx = tx.clone();
    let stdout = child.stdout.take().unwrap();
    let stderr = child.stderr.take().unwrap();
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
            let _ = err_tx.send(line);
        }
    });
    (child, lines)
}

/// Sends `signal` (`-INT`, `-HUP`) to `child`.
fn kill(child: &std::process::Child, signal: &str) {
    let sent = Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
}

#[test]
fn a_changed_file_starts_the_new_table_and_a_broken_one_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("pit.toml");
    let db = dir.path().join("pit.db");
    let one = TcpListener::bind("127.0.0.1:0").unwrap();
    let two = TcpListener::bind("127.0.0.1:0").unwrap();
    let head = "[site]\nname = \"Reload pit\"\n";
    std::fs::write(&config, format!("{head}{}", section("MINI-1", &one))).unwrap();
    let (mut child, lines) = monitor(&config, &db, dir.path());
    let (_first, _) = one.accept().unwrap();
    wait_for(&lines, "connected: tcp");

    write(
        &config,
        &format!(
            "{head}{}\n{}",
            section("MINI-1", &one),
            section("MINI-2", &two)
        ),
    );
    let seen = wait_for(&lines, "unchanged: MINI-1");
    assert!(
        seen.iter().any(|l| l.contains("added: MINI-2")),
        "{seen:#?}"
    );
    let (_second, _) = two.accept().unwrap();
    let seen = wait_for(&lines, "connected: tcp");
    assert!(seen.iter().any(|l| l.contains("MINI-2")), "{seen:#?}");

    write(&config, &format!("{head}[[table]\nname = \"MINI-1\"\n"));
    let seen = wait_for(&lines, "NOT reloaded");
    assert!(
        seen.iter()
            .any(|l| l.contains("the running pit keeps going")),
        "{seen:#?}"
    );
    kill(&child, "-INT");
    wait_for(&lines, "stopped; everything is on record");
    let status = child.wait().unwrap();
    assert!(status.success(), "{status:?}");
}

#[test]
fn sighup_reads_the_file_again_even_when_its_modification_time_is_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("pit.toml");
    let db = dir.path().join("pit.db");
    let one = TcpListener::bind("127.0.0.1:0").unwrap();
    let two = TcpListener::bind("127.0.0.1:0").unwrap();
    let head = "[site]\nname = \"Hangup pit\"\n";
    std::fs::write(&config, format!("{head}{}", section("MINI-1", &one))).unwrap();
    let (mut child, lines) = monitor(&config, &db, dir.path());
    let (_first, _) = one.accept().unwrap();
    wait_for(&lines, "connected: tcp");
    // MINI-2 added, the file's modification time put back: only SIGHUP can tell.
    let before = std::fs::metadata(&config).unwrap().modified().unwrap();
    std::fs::write(
        &config,
        format!(
            "{head}{}\n{}",
            section("MINI-1", &one),
            section("MINI-2", &two)
        ),
    )
    .unwrap();
    std::fs::File::options()
        .write(true)
        .open(&config)
        .unwrap()
        .set_modified(before)
        .unwrap();
    // Longer than the watcher's poll: it sees nothing new.
    std::thread::sleep(Duration::from_millis(2500));
    kill(&child, "-HUP");
    let seen = wait_for(&lines, "unchanged: MINI-1");
    assert!(
        seen.iter()
            .any(|l| l.contains("SIGHUP: reading the pit definition")),
        "{seen:#?}"
    );
    assert!(
        !seen[..seen.len() - 1]
            .iter()
            .take_while(|l| !l.contains("SIGHUP"))
            .any(|l| l.contains("reloaded")),
        "nothing was reloaded before SIGHUP: {seen:#?}"
    );
    assert!(
        seen.iter().any(|l| l.contains("added: MINI-2")),
        "{seen:#?}"
    );
    let (_second, _) = two.accept().unwrap();
    let seen = wait_for(&lines, "connected: tcp");
    assert!(seen.iter().any(|l| l.contains("MINI-2")), "{seen:#?}");
    kill(&child, "-INT");
    let seen = wait_for(&lines, "stopped; everything is on record");
    // One reload only: the watcher took the file SIGHUP read as seen.
    assert!(
        !seen.iter().any(|l| l.contains("reloaded from")),
        "reloaded a second time: {seen:#?}"
    );
    let status = child.wait().unwrap();
    assert!(status.success(), "{status:?}");
}
