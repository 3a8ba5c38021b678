//! The crash harness: `pitwatch monitor` killed with SIGKILL at random instants under heavy
//! ingest, restarted each time, and the record checked after every kill and at the end:
//!
//! - SQLite's integrity check and every hash chain (`pitwatch verify` at the end);
//! - every frame the simulated devices sent is on record once or not at all, never twice (the
//!   frames on record, in order, matched against the frames in each device's capture);
//! - the table as a restarted monitor resumes it equals a replay of the record from its raw
//!   bytes (the engine's view, the rounds recorded live, the incidents), with no divergence.
//!
//! CI runs a short form. The long form, by hand (release build, it replays every table after
//! every kill):
//!
//! ```sh
//! PITWATCH_CRASH_KILLS=50 cargo test --release -p pitwatch-cli --test crash -- --nocapture
//! ```
//!
//! `PITWATCH_CRASH_SEED` repeats a run's kill instants; the seed is printed.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use pitwatch_baccarat::RuleBook;
use pitwatch_model::Timestamp;
use pitwatch_protocols::{DecodeOutput, ProtocolConfig};
use pitwatch_recording::recorder::TableRecorder;
use pitwatch_recording::replay;
use pitwatch_sim::{Endpoint, Pace, SimConfig, SimDevice};
use pitwatch_store::{IncidentFilter, Sealing, Store};
use rand::{Rng, SeedableRng};

const TABLES: usize = 6;

/// The installation key every `pitwatch` these tests run signs with (never the user's own).
fn key_file() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("crash-tests/signing.key")
}

/// `pitwatch`, as an installation of its own.
fn pitwatch() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_pitwatch"));
    command.env("PITWATCH_KEY", key_file());
    command
}

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Angel Eye and Pitwatch-protocol shoes (both checksummed: a frame cut by a kill is rejected,
/// never mistaken for another).
fn protocol_of(i: usize) -> ProtocolConfig {
    ProtocolConfig::by_name(if i % 2 == 0 { "angel-eye" } else { "pitwatch" }).unwrap()
}

fn name_of(i: usize) -> String {
    format!("T{}", i + 1)
}

struct Rig {
    dir: tempfile::TempDir,
    db: PathBuf,
    config: PathBuf,
    captures: Vec<PathBuf>,
    sims: Vec<SimDevice>,
}

impl Rig {
    fn new() -> Rig {
        let dir = tempfile::tempdir().unwrap();
        let mut toml = String::from("[site]\nname = \"Crash\"\n");
        let mut sims = Vec::new();
        let mut captures = Vec::new();
        for i in 0..TABLES {
            let capture = dir.path().join(format!("sent-{i}.bin"));
            let mut config = SimConfig::new(protocol_of(i), RuleBook::nz_baccarat());
            config.seed = 500 + i as u64;
            // Heavy ingest: two hundred times a dealer's pace.
            config.pace = Pace::Times(200.0);
            config.shoes = None;
            config.endpoint = Endpoint::Pty;
            config.capture = Some(capture.clone());
            let sim = SimDevice::start(config).unwrap();
            toml.push_str(&format!(
                "[[table]]\nname = \"{}\"\ngame = \"baccarat\"\nrules = \"nz-baccarat\"\n\
                 device = {{ protocol = \"{}\" }}\n\
                 link = {{ kind = \"serial\", path = \"{}\", baud = 9600, backoff = {{ initial_ms = 50, max_ms = 200 }} }}\n",
                name_of(i),
                protocol_of(i).name(),
                sim.path().unwrap()
            ));
            sims.push(sim);
            captures.push(capture);
        }
        let config = dir.path().join("pit.toml");
        std::fs::write(&config, toml).unwrap();
        let db = dir.path().join("pit.db");
        Rig {
            dir,
            db,
            config,
            captures,
            sims,
        }
    }

    fn monitor(&self) -> Child {
        self.monitor_with(&[])
    }

    fn monitor_with(&self, extra: &[&str]) -> Child {
        pitwatch()
            .args(["monitor", "--config"])
            .arg(&self.config)
            .arg("--db")
            .arg(&self.db)
            .args(extra)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap()
    }
}

/// The accepted frames a codec finds in what a simulator sent (lines a second apart, as in
/// `pitwatch bench pit`).
fn sent_frames(bytes: &[u8], protocol: ProtocolConfig) -> Vec<Vec<u8>> {
    let mut decoder = protocol.decoder(1);
    let mut out = Vec::new();
    let pieces: Vec<&[u8]> = match protocol {
        ProtocolConfig::AngelEye(_) => bytes.chunks(4096).collect(),
        _ => bytes.split_inclusive(|b| *b == b'\n').collect(),
    };
    for (i, piece) in pieces.into_iter().enumerate() {
        decoder.push(
            piece,
            Timestamp::from_unix_millis(i as i64 * 1000).unwrap(),
            &mut out,
        );
    }
    out.into_iter()
        .filter_map(|o| match o {
            DecodeOutput::Accepted(a) => Some(a.frame.to_vec()),
            DecodeOutput::Rejected(_) => None,
        })
        .collect()
}

/// How many recorded frames are not, in order, a frame sent after the one matched before: a
/// frame recorded twice (or never sent) counts here.
fn duplicated(sent: &[Vec<u8>], recorded: &[Vec<u8>]) -> usize {
    let mut i = 0;
    let mut extra = 0;
    for frame in recorded {
        match sent[i..].iter().position(|s| s == frame) {
            Some(k) => i += k + 1,
            None => extra += 1,
        }
    }
    extra
}

/// Copies the database files as a crash leaves them (the main file and its write-ahead log).
fn copy_db(db: &Path, to: &Path) -> PathBuf {
    let target = to.join("copy.db");
    std::fs::copy(db, &target).unwrap();
    for suffix in ["-wal", "-shm"] {
        let mut from = db.as_os_str().to_owned();
        from.push(suffix);
        let mut into = target.as_os_str().to_owned();
        into.push(suffix);
        if Path::new(&from).exists() {
            std::fs::copy(&from, &into).unwrap();
        }
    }
    target
}

/// Every check of the module's description, on the record as it stands.
fn check(rig: &Rig, round: usize) -> (usize, usize) {
    let scratch = tempfile::tempdir().unwrap();
    let copy = copy_db(&rig.db, scratch.path());
    let mut store = Store::open(&copy, &Sealing::key_file(key_file())).unwrap();
    let report = store.verify().unwrap();
    assert!(
        report.intact(),
        "after kill {round}: integrity {:?}, {:?}",
        report.integrity,
        report.first_problem
    );
    let mut frames = 0;
    for i in 0..TABLES {
        let name = name_of(i);
        let Some(table) = store.table_id(&name).unwrap() else {
            continue;
        };
        // Frames: once or not at all.
        let sent = sent_frames(&std::fs::read(&rig.captures[i]).unwrap(), protocol_of(i));
        let mut recorded = Vec::new();
        for session in store.sessions(table).unwrap() {
            for frame in store
                .frames_between(session.id, i64::MIN, i64::MAX)
                .unwrap()
            {
                if frame.accepted {
                    recorded.push(frame.bytes);
                }
            }
        }
        assert_eq!(
            duplicated(&sent, &recorded),
            0,
            "after kill {round}: {name} has frames on record twice or never sent"
        );
        frames += recorded.len();
        // The table as a restarted monitor resumes it equals a replay of the record.
        let now = Timestamp::from_unix_millis(1_900_000_000_000).unwrap();
        let recorder = TableRecorder::resume(
            &mut store,
            &name,
            "baccarat",
            RuleBook::nz_baccarat(),
            None,
            Some(protocol_of(i)),
            now,
        )
        .unwrap();
        let replayed = replay::rebuild(&store, &name).unwrap();
        assert_eq!(
            replayed.divergences,
            Vec::<String>::new(),
            "after kill {round}: {name}'s bytes decode to its events"
        );
        assert_eq!(
            recorder.view(),
            replayed.end_view,
            "after kill {round}: {name} resumes as the record replays"
        );
        let live: Vec<String> = store
            .rounds(table)
            .unwrap()
            .into_iter()
            .map(|(_, _, body)| body)
            .collect();
        let again: Vec<String> = replayed
            .rounds()
            .map(|r| serde_json::to_string(r).unwrap())
            .collect();
        assert_eq!(live, again, "after kill {round}: {name}'s rounds");
        let incidents: Vec<(String, u64)> = store
            .incidents(&IncidentFilter {
                table: Some(name.clone()),
                ..IncidentFilter::default()
            })
            .unwrap()
            .into_iter()
            .map(|i| (i.code, i.seq))
            .collect();
        let mut findings: Vec<(String, u64)> = replayed
            .irregularities()
            .map(|i| (i.code.to_string(), i.seq))
            .collect();
        let mut incidents_sorted = incidents.clone();
        incidents_sorted.sort();
        findings.sort();
        assert_eq!(
            incidents_sorted, findings,
            "after kill {round}: {name}'s incidents"
        );
    }
    let sessions = (0..TABLES)
        .filter_map(|i| store.table_id(&name_of(i)).unwrap())
        .map(|t| store.sessions(t).unwrap().len())
        .sum();
    (frames, sessions)
}

#[test]
fn killed_at_random_instants_under_heavy_ingest_the_record_stays_whole() {
    let kills: usize = env_or("PITWATCH_CRASH_KILLS", 4);
    let seed: u64 = env_or("PITWATCH_CRASH_SEED", 20_261_130);
    eprintln!("crash harness: {kills} kills, seed {seed}, {TABLES} tables at 200x");
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let rig = Rig::new();
    let started = Instant::now();
    for k in 1..=kills {
        let mut monitor = rig.monitor();
        let alive = Duration::from_millis(rng.gen_range(150..1500));
        std::thread::sleep(alive);
        monitor.kill().unwrap(); // SIGKILL
        monitor.wait().unwrap();
        let (frames, sessions) = check(&rig, k);
        eprintln!(
            "  kill {k:>3} after {:>4} ms: {frames} frames on record, {sessions} sessions, all checks pass",
            alive.as_millis()
        );
    }
    // Two last runs, stopped in order while the devices still deal: by SIGTERM (`kill`, a
    // service manager's default, a shutdown) and by Ctrl-C (SIGINT).
    let mut frames = 0;
    for (run, signal) in ["-TERM", "-INT"].into_iter().enumerate() {
        let mut monitor = rig.monitor();
        std::thread::sleep(Duration::from_millis(1000));
        let status = Command::new("kill")
            .args([signal, &monitor.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
        let deadline = Instant::now() + Duration::from_secs(30);
        let status = loop {
            if let Some(status) = monitor.try_wait().unwrap() {
                break status;
            }
            assert!(
                Instant::now() < deadline,
                "the monitor did not stop on {signal}"
            );
            std::thread::sleep(Duration::from_millis(20));
        };
        assert!(status.success(), "an orderly stop on {signal}: {status}");
        frames = check(&rig, kills + 1 + run).0;
    }
    let verify = pitwatch()
        .args(["verify", "--db"])
        .arg(&rig.db)
        .output()
        .unwrap();
    assert!(
        verify.status.success(),
        "{}",
        String::from_utf8_lossy(&verify.stdout)
    );
    eprintln!(
        "crash harness: {kills} kills in {:.0} s, {frames} frames on record, none twice, every check passed",
        started.elapsed().as_secs_f64()
    );
    assert!(
        rig.sims.iter().all(|s| !s.is_finished()),
        "the devices dealt throughout"
    );
    assert!(rig.dir.path().exists());
}

fn spool_file(rig: &Rig) -> PathBuf {
    let mut path = rig.db.as_os_str().to_owned();
    path.push(".spool-1");
    PathBuf::from(path)
}

fn stop_in_order(mut monitor: Child) {
    let status = Command::new("kill")
        .args(["-INT", &monitor.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let deadline = Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(status) = monitor.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "the monitor did not stop");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success(), "an orderly stop: {status}");
}

#[test]
fn killed_while_the_database_is_locked_what_the_spool_file_held_is_written_once_at_the_next_start()
{
    let rig = Rig::new();
    // Everything that waits goes to the spool file at once (no memory spool).
    let file_only = ["--spool-memory-mb", "0"];
    let mut monitor = rig.monitor_with(&file_only);
    std::thread::sleep(Duration::from_millis(1000));
    // Another process takes the write lock and keeps it.
    let lock = rusqlite::Connection::open(&rig.db).unwrap();
    lock.execute_batch("BEGIN IMMEDIATE").unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while std::fs::metadata(spool_file(&rig)).map_or(0, |m| m.len()) < 20_000 {
        assert!(Instant::now() < deadline, "nothing was spooled to the file");
        std::thread::sleep(Duration::from_millis(50));
    }
    monitor.kill().unwrap();
    monitor.wait().unwrap();
    let spooled = std::fs::metadata(spool_file(&rig)).unwrap().len();
    drop(lock);
    let (before, _) = check(&rig, 1);
    // The next start writes what the file held; it is killed in the middle of that once.
    let mut monitor = rig.monitor_with(&file_only);
    std::thread::sleep(Duration::from_millis(150));
    monitor.kill().unwrap();
    monitor.wait().unwrap();
    check(&rig, 2);
    let monitor = rig.monitor_with(&file_only);
    std::thread::sleep(Duration::from_millis(1500));
    stop_in_order(monitor);
    let (after, _) = check(&rig, 3);
    eprintln!(
        "spool file: {spooled} bytes when killed; frames on record {before} before the next start, {after} after"
    );
    assert!(after > before, "what the file held was written");
    assert_eq!(
        std::fs::metadata(spool_file(&rig)).map_or(0, |m| m.len()),
        0,
        "written, the spool file is emptied"
    );
}
