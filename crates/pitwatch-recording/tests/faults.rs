//! The faults a pit meets, survived: a database locked by another process for seconds, a full
//! disk (on a small tmpfs, when this machine lets the test mount one), a spool too small for what
//! waits (the loss counted exactly and recorded as an incident), a monitor stopped while the
//! database cannot be written (what waits is written at the next start), a device flooding the
//! line with garbage, a storm of device errors, and a second writer for a table. Each test reads
//! a real device link (TCP on loopback) through the real monitor into a real database file, and
//! checks the record afterwards: every byte sent is on record exactly once, or its loss is.

use std::io::Write;
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::mpsc::Receiver;
use std::sync::Arc;
use std::time::Duration;

use pitwatch_games::GameKind;
use pitwatch_model::{EventKind, TableEvent, Timestamp};
use pitwatch_protocols::ProtocolConfig;
use pitwatch_recording::monitor::{
    Monitor, MonitorEvent, MonitorOptions, MonitoredTable, RecordingState, SpoolLimits,
};
use pitwatch_recording::pit::{LinkConfig, TableConfig};
use pitwatch_recording::recorder::{Derived, DEVICE_ERROR_CODES_OPEN, RECORDING_GAP};
use pitwatch_store::{IncidentFilter, Sealing, Store, StoreError};
use pitwatch_transport::{SystemClock, TcpConfig, TransportConfig};

mod common;
use common::card;

/// A shuffle card, then `n` cards (a varied, honest-looking sequence).
fn cards(n: usize) -> Vec<u8> {
    const FACES: [&str; 13] = [
        "AS", "2H", "3D", "4C", "5S", "6H", "7D", "8C", "9S", "TH", "JD", "QC", "KS",
    ];
    let mut bytes = Vec::new();
    for i in 0..n {
        bytes.extend(card(FACES[(i * 5) % 13]));
    }
    bytes
}

/// The record at `db`, signed with the key kept beside it (never the user's own).
fn open(db: &Path) -> Store {
    Store::open(db, &Sealing::key_file(db.with_file_name("signing.key"))).unwrap()
}

struct Pit {
    dir: tempfile::TempDir,
    db: PathBuf,
    listener: TcpListener,
    table: MonitoredTable,
}

impl Pit {
    fn new(protocol: &str) -> Pit {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("pit.db");
        Pit::at(dir, db, protocol)
    }

    fn at(dir: tempfile::TempDir, db: PathBuf, protocol: &str) -> Pit {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap().to_string();
        let mut link = LinkConfig::new(TransportConfig::Tcp(TcpConfig { address }));
        link.backoff.initial_ms = 50;
        link.backoff.max_ms = 200;
        let table = MonitoredTable {
            config: TableConfig::new(
                "T1",
                GameKind::Baccarat,
                "nz-baccarat",
                ProtocolConfig::by_name(protocol).unwrap(),
                Some(link.clone()),
            ),
            link,
            more_links: Vec::new(),
        };
        Pit {
            dir,
            db,
            listener,
            table,
        }
    }

    fn start(&self, options: MonitorOptions) -> (Monitor, Receiver<MonitorEvent>, TcpStream) {
        let store = open(&self.db);
        let (monitor, events) = Monitor::start_with(
            store,
            vec![self.table.clone()],
            Arc::new(SystemClock),
            options,
        )
        .unwrap();
        let (device, _) = self.listener.accept().unwrap();
        wait_for(
            &events,
            "the link",
            |e| matches!(e, MonitorEvent::Link { state, .. } if *state == pitwatch_recording::monitor::LinkState::Connected),
        );
        (monitor, events, device)
    }
}

/// Options that make a test quick: short waits on the lock, quick retries, frequent reports.
fn quick() -> MonitorOptions {
    MonitorOptions {
        busy_wait: Duration::from_millis(50),
        retry_first: Duration::from_millis(50),
        retry_max: Duration::from_millis(300),
        report_every: Duration::from_millis(100),
        stop_grace: Duration::from_millis(500),
        ..MonitorOptions::default()
    }
}

fn wait_for(
    events: &Receiver<MonitorEvent>,
    what: &str,
    matches: impl FnMut(&MonitorEvent) -> bool,
) -> Vec<MonitorEvent> {
    // Faults take longer to show than a plain link.
    common::wait_for_within(events, what, Duration::from_secs(30), matches)
}

fn cards_seen(events: &[MonitorEvent]) -> usize {
    events
        .iter()
        .filter(|e| {
            matches!(
                e,
                MonitorEvent::Derived {
                    derived: Derived::Event(TableEvent {
                        kind: EventKind::CardDrawn { .. },
                        ..
                    }),
                    ..
                }
            )
        })
        .count()
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

fn assert_intact(db: &Path) {
    // Checked as the installation checks it: against its own key.
    let report = open(db).verify().unwrap();
    assert!(report.intact(), "{:?}", report.problems);
}

fn degraded(e: &MonitorEvent) -> Option<&RecordingState> {
    match e {
        MonitorEvent::Recording(state) if state.degraded => Some(state),
        _ => None,
    }
}

fn recovered(e: &MonitorEvent) -> bool {
    matches!(e, MonitorEvent::Recording(state) if !state.degraded)
}

#[test]
fn a_database_locked_for_seconds_degrades_recording_and_loses_nothing() {
    let pit = Pit::new("barcode");
    let (monitor, events, mut device) = pit.start(quick());
    let mut sent = pitwatch_barcode::encode_shuffle_card();
    sent.extend(cards(4));
    device.write_all(&sent).unwrap();
    let mut shown = 0;
    wait_for(&events, "the first cards", |e| {
        shown += cards_seen(std::slice::from_ref(e));
        shown == 4
    });

    // Another process (here: another connection) takes the write lock and holds it.
    let mut other = open(&pit.db);
    let lock = other
        .batch(Timestamp::from_unix_millis(1_000).unwrap())
        .unwrap();
    let more = cards(30);
    for chunk in more.chunks(8) {
        device.write_all(chunk).unwrap();
        std::thread::sleep(Duration::from_millis(40));
    }
    sent.extend(&more);
    let seen = wait_for(&events, "recording degraded with a backlog", |e| {
        degraded(e).is_some_and(|s| s.backlog_inputs > 0 && s.attempts > 0)
    });
    let state = seen.iter().rev().find_map(degraded).unwrap();
    assert!(
        state.reason.contains("locked by another process"),
        "{state:?}"
    );
    assert!(
        state.backlog_bytes > 0 && state.dropped_bytes == 0,
        "{state:?}"
    );
    // Nothing of what waits is shown before it is on record.
    assert_eq!(cards_seen(&seen), 0, "{seen:#?}");
    // Console entries are refused while degraded, not left hanging.
    let refused = monitor.console("T1", EventKind::BetsClosed, "ana");
    assert!(refused.unwrap_err().contains("degraded"));
    std::thread::sleep(Duration::from_secs(2));
    drop(lock);
    drop(other);
    let seen = wait_for(&events, "recording recovered", recovered);
    assert_eq!(cards_seen(&seen), 30, "every card held back is shown once");
    assert!(
        seen.iter()
            .any(|e| degraded(e).is_some_and(|s| s.attempts >= 2)),
        "retried"
    );
    // And recording goes on.
    let last = card("9H");
    device.write_all(&last).unwrap();
    sent.extend(&last);
    wait_for(&events, "a card after recovery", |e| {
        cards_seen(std::slice::from_ref(e)) == 1
    });
    monitor.stop().unwrap();
    assert_eq!(recorded_bytes(&pit.db), sent, "every byte once, in order");
    assert_intact(&pit.db);
}

#[test]
fn a_spool_too_small_counts_what_it_drops_and_records_it_as_an_incident() {
    let pit = Pit::new("barcode");
    let options = MonitorOptions {
        spool: SpoolLimits {
            memory: 2_000,
            file: 0,
        },
        ..quick()
    };
    let (monitor, events, mut device) = pit.start(options);
    let mut sent = pitwatch_barcode::encode_shuffle_card();
    device.write_all(&sent).unwrap();
    wait_for(&events, "the shuffle", |e| {
        matches!(
            e,
            MonitorEvent::Derived {
                derived: Derived::Event(_),
                ..
            }
        )
    });
    let mut other = open(&pit.db);
    let lock = other
        .batch(Timestamp::from_unix_millis(1_000).unwrap())
        .unwrap();
    // 400 cards, each its own read: far more than 2,000 bytes of spool.
    let mut total = 0u64;
    for i in 0..400 {
        let c = card(["AS", "2D", "7C", "KH"][i % 4]);
        device.write_all(&c).unwrap();
        total += c.len() as u64;
        sent.extend(&c);
        std::thread::sleep(Duration::from_millis(2));
    }
    let seen = wait_for(&events, "bytes dropped", |e| {
        degraded(e).is_some_and(|s| s.dropped_bytes > 0)
    });
    drop(seen);
    std::thread::sleep(Duration::from_millis(300));
    drop(lock);
    drop(other);
    let seen = wait_for(&events, "recovered", recovered);
    let gap = seen.iter().find_map(|e| match e {
        MonitorEvent::Derived {
            derived: Derived::Gap { bytes, incident },
            ..
        } => Some((*bytes, *incident)),
        _ => None,
    });
    let (dropped, incident) = gap.expect("the loss is shown as an incident");
    assert!(dropped > 0 && incident.is_some());
    monitor.stop().unwrap();
    let recorded = recorded_bytes(&pit.db);
    // Exactly what was not recorded was counted: nothing lost silently, nothing twice.
    assert_eq!(
        recorded.len() as u64 + dropped,
        sent.len() as u64,
        "{total}"
    );
    let store = Store::open_read_only(&pit.db).unwrap();
    let incidents = store.incidents(&IncidentFilter::default()).unwrap();
    let gap = incidents
        .iter()
        .find(|i| i.code == RECORDING_GAP)
        .expect("a RECORDING_GAP incident");
    assert_eq!(gap.severity, "critical");
    assert!(
        gap.message.starts_with(&format!("{dropped} bytes")),
        "{}",
        gap.message
    );
    assert_intact(&pit.db);
}

#[test]
fn a_monitor_stopped_while_degraded_leaves_its_backlog_for_the_next_start() {
    let pit = Pit::new("barcode");
    let (monitor, events, mut device) = pit.start(quick());
    let mut sent = pitwatch_barcode::encode_shuffle_card();
    device.write_all(&sent).unwrap();
    wait_for(&events, "the shuffle", |e| {
        matches!(
            e,
            MonitorEvent::Derived {
                derived: Derived::Event(_),
                ..
            }
        )
    });
    let mut other = open(&pit.db);
    let lock = other
        .batch(Timestamp::from_unix_millis(1_000).unwrap())
        .unwrap();
    let more = cards(20);
    device.write_all(&more).unwrap();
    sent.extend(&more);
    wait_for(&events, "degraded", |e| {
        degraded(e).is_some_and(|s| s.backlog_inputs > 0)
    });
    drop(device);
    wait_for(&events, "the disconnection in the backlog", |e| {
        degraded(e).is_some_and(|s| s.backlog_inputs >= 2)
    });
    let error = monitor.stop().unwrap_err();
    assert!(error.to_string().contains("kept in"), "{error}");
    drop(lock);
    drop(other);
    assert_eq!(
        recorded_bytes(&pit.db),
        pitwatch_barcode::encode_shuffle_card()
    );
    // The next start writes what the last one left, before anything new.
    let (monitor, events, _device) = pit.start(quick());
    let _ = &events;
    monitor.stop().unwrap();
    assert_eq!(recorded_bytes(&pit.db), sent, "every byte once, in order");
    assert_intact(&pit.db);
}

#[test]
fn a_full_disk_degrades_recording_until_space_returns() {
    let Some(mount) = Tmpfs::mount(6 << 20) else {
        eprintln!(
            "skipped: this test mounts a small tmpfs to fill it, which needs root (CI runs as root)"
        );
        return;
    };
    let dir = tempfile::tempdir_in(&mount.path).unwrap();
    let db = dir.path().join("pit.db");
    let pit = Pit::at(dir, db, "barcode");
    let (monitor, events, mut device) = pit.start(quick());
    let mut sent = pitwatch_barcode::encode_shuffle_card();
    device.write_all(&sent).unwrap();
    wait_for(&events, "the shuffle", |e| {
        matches!(
            e,
            MonitorEvent::Derived {
                derived: Derived::Event(_),
                ..
            }
        )
    });
    // Fill the disk.
    let filler = mount.path.join("filler");
    let mut file = std::fs::File::create(&filler).unwrap();
    let block = vec![0u8; 64 * 1024];
    while file
        .write_all(&block)
        .and_then(|()| file.sync_all())
        .is_ok()
    {}
    let more = cards(200);
    for chunk in more.chunks(40) {
        device.write_all(chunk).unwrap();
        std::thread::sleep(Duration::from_millis(20));
    }
    sent.extend(&more);
    let seen = wait_for(&events, "recording degraded: disk full", |e| {
        degraded(e).is_some_and(|s| s.backlog_inputs > 0)
    });
    let state = seen.iter().rev().find_map(degraded).unwrap();
    assert!(
        state.reason.contains("full") || state.reason.contains("I/O"),
        "{state:?}"
    );
    // Space returns.
    drop(file);
    std::fs::remove_file(&filler).unwrap();
    wait_for(&events, "recovered", recovered);
    monitor.stop().unwrap();
    assert_eq!(recorded_bytes(&pit.db), sent, "every byte once, in order");
    assert_intact(&pit.db);
    drop(pit);
}

/// A small tmpfs for the full-disk test, unmounted when dropped.
struct Tmpfs {
    path: PathBuf,
    _dir: tempfile::TempDir,
}

impl Tmpfs {
    fn mount(bytes: u64) -> Option<Tmpfs> {
        let dir = tempfile::tempdir().ok()?;
        let status = std::process::Command::new("mount")
            .args([
                "-t",
                "tmpfs",
                "-o",
                &format!("size={bytes}"),
                "pitwatch-test",
            ])
            .arg(dir.path())
            .stderr(std::process::Stdio::null())
            .status()
            .ok()?;
        status.success().then(|| Tmpfs {
            path: dir.path().to_owned(),
            _dir: dir,
        })
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount")
            .arg("-l")
            .arg(&self.path)
            .status();
    }
}

#[test]
fn a_device_flooding_garbage_is_journalled_compactly_and_recording_goes_on() {
    let pit = Pit::new("barcode");
    let (monitor, events, mut device) = pit.start(MonitorOptions::default());
    // 4 MiB with no line end, as fast as the link takes it, then a shuffle and a card.
    let flood = vec![b'x'; 4 << 20];
    let mut sent: Vec<u8> = Vec::new();
    for chunk in flood.chunks(16 * 1024) {
        device.write_all(chunk).unwrap();
    }
    sent.extend(&flood);
    let tail = [
        b"\r".to_vec(),
        pitwatch_barcode::encode_shuffle_card(),
        card("9H"),
    ]
    .concat();
    device.write_all(&tail).unwrap();
    sent.extend(&tail);
    wait_for(&events, "the card after the flood", |e| {
        cards_seen(std::slice::from_ref(e)) == 1
    });
    monitor.stop().unwrap();
    assert_eq!(recorded_bytes(&pit.db), sent);
    let store = Store::open_read_only(&pit.db).unwrap();
    let table = store.table_id("T1").unwrap().unwrap();
    let session = store.sessions(table).unwrap()[0].id;
    let frames = store.frames_between(session, i64::MIN, i64::MAX).unwrap();
    let rejected: Vec<_> = frames.iter().filter(|f| !f.accepted).collect();
    let garbage: usize = rejected.iter().map(|f| f.bytes.len()).sum();
    assert_eq!(
        garbage,
        flood.len() + 1,
        "every rejected byte accounted for"
    );
    // 262,145 rejected pieces of 16 bytes each, as a few rows of up to 64 KiB.
    assert!(
        rejected.len() <= flood.len() / (16 * 1024) + 70,
        "{} rows",
        rejected.len()
    );
    assert!(rejected[0]
        .reason
        .as_deref()
        .unwrap()
        .contains("more rejected pieces"));
    assert_intact(&pit.db);
}

#[test]
fn a_storm_of_device_errors_opens_a_few_incidents_with_counts() {
    let pit = Pit::new("pitwatch");
    let (monitor, events, mut device) = pit.start(MonitorOptions::default());
    let mut encoder = ProtocolConfig::by_name("pitwatch").unwrap().encoder();
    let mut bytes = Vec::new();
    let mut seq = 1;
    let mut push = |kind: EventKind, bytes: &mut Vec<u8>| {
        let event = TableEvent::new(seq, kind);
        seq += 1;
        bytes.extend(encoder.encode(&event).unwrap());
    };
    // The same error raised and cleared 50 times, then 500 new codes.
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
    device.write_all(&bytes).unwrap();
    let mut errors = 0;
    let mut raised = 0;
    wait_for(&events, "the last error", |e| {
        match e {
            MonitorEvent::Derived {
                derived: Derived::Repeated { .. },
                ..
            } => errors += 1,
            MonitorEvent::Derived {
                derived:
                    Derived::Output {
                        incident: Some(_), ..
                    },
                ..
            } => {
                errors += 1;
                raised += 1;
            }
            _ => {}
        }
        errors == 550
    });
    monitor.stop().unwrap();
    let store = Store::open_read_only(&pit.db).unwrap();
    let incidents = store.incidents(&IncidentFilter::default()).unwrap();
    assert_eq!(incidents.len() as u64, 1 + DEVICE_ERROR_CODES_OPEN);
    assert_eq!(raised as u64, 1 + DEVICE_ERROR_CODES_OPEN, "one alert each");
    let counts: Vec<u64> = incidents
        .iter()
        .map(|i| store.incident_group(i.id).unwrap().unwrap().count)
        .collect();
    assert_eq!(counts.iter().sum::<u64>(), 550, "{counts:?}");
    assert!(counts.contains(&50), "E7 raised 50 times: {counts:?}");
}

#[test]
fn a_table_has_one_writer_and_a_second_is_refused_naming_the_first() {
    let pit = Pit::new("barcode");
    let (monitor, _events, _device) = pit.start(MonitorOptions::default());
    let second = Monitor::start_with(
        open(&pit.db),
        vec![pit.table.clone()],
        Arc::new(SystemClock),
        MonitorOptions {
            holder: "second monitor".into(),
            ..MonitorOptions::default()
        },
    );
    match second {
        Err(StoreError::Leased { table, holder }) => {
            assert_eq!(table, "T1");
            assert!(
                holder.starts_with("pitwatch monitor (pid ")
                    && holder.contains(&std::process::id().to_string()),
                "{holder}"
            );
        }
        Err(other) => panic!("expected the lease to be refused, got {other}"),
        Ok(_) => panic!("a second writer was let in"),
    }
    monitor.stop().unwrap();
    // Given up on stop: the next monitor gets the table.
    let (monitor, _events, _device) = pit.start(MonitorOptions::default());
    monitor.stop().unwrap();
    drop(pit.dir);
}
