//! Transport tests on real links without hardware: serial over socat-made pseudo-terminals (the
//! device going away and coming back), TCP on loopback (a device server that drops the client and
//! accepts again), and a fake connector for the reader loop's ordering and command path.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::Receiver;
use std::sync::Arc;
use std::time::{Duration, Instant};

use pitwatch_transport::{
    spawn_device, spawn_reader, Backoff, Connection, Connector, DeviceConfig, ReaderOptions,
    SerialConfig, SteppingClock, SystemClock, TcpConfig, TcpConnection, TransportConfig,
    TransportError, TransportEvent,
};

const WAIT: Duration = Duration::from_secs(5);

/// As fast as the floor allows ([`pitwatch_transport::BACKOFF_FLOOR_MS`]).
fn fast_backoff() -> Backoff {
    Backoff {
        initial_ms: 50,
        max_ms: 400,
        factor: 2,
    }
}

/// The next event that is not a `ConnectFailed` (those depend on timing).
fn next_event(events: &Receiver<TransportEvent>) -> TransportEvent {
    let deadline = Instant::now() + WAIT;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match events.recv_timeout(left) {
            Ok(TransportEvent::ConnectFailed { .. }) => continue,
            Ok(event) => return event,
            Err(e) => panic!("no transport event within {WAIT:?}: {e}"),
        }
    }
}

/// Collects chunk bytes until `expected` has arrived (chunks may be split any way).
fn read_bytes(events: &Receiver<TransportEvent>, expected: &[u8]) -> Vec<u8> {
    let mut got = Vec::new();
    while got.len() < expected.len() {
        match next_event(events) {
            TransportEvent::Chunk { bytes, .. } => got.extend(bytes),
            other => panic!("expected data {expected:?}, got {other:?} after {got:?}"),
        }
    }
    assert_eq!(got, expected);
    got
}

/// A socat process making a linked pty pair; killed (and reaped) when dropped.
struct PtyPair {
    child: Option<Child>,
    device_end: PathBuf,
    host_end: PathBuf,
}

impl PtyPair {
    fn start(dir: &Path) -> PtyPair {
        let host_end = dir.join("host");
        let device_end = dir.join("device");
        let _ = std::fs::remove_file(&host_end);
        let _ = std::fs::remove_file(&device_end);
        let child = Command::new("socat")
            .arg(format!("pty,raw,echo=0,link={}", host_end.display()))
            .arg(format!("pty,raw,echo=0,link={}", device_end.display()))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("socat is installed");
        let pair = PtyPair {
            child: Some(child),
            device_end,
            host_end,
        };
        let deadline = Instant::now() + WAIT;
        while !(pair.host_end.exists() && pair.device_end.exists()) {
            assert!(Instant::now() < deadline, "socat did not create its links");
            std::thread::sleep(Duration::from_millis(10));
        }
        pair
    }

    /// The device's side, opened for writing and reading.
    fn device(&self) -> std::fs::File {
        std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(&self.device_end)
            .expect("device end opens")
    }

    fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            // SIGTERM lets socat remove its links; kill() (SIGKILL) is the fallback.
            let _ = Command::new("kill")
                .arg("-TERM")
                .arg(child.id().to_string())
                .status();
            let deadline = Instant::now() + Duration::from_secs(2);
            loop {
                match child.try_wait() {
                    Ok(Some(_)) => break,
                    _ if Instant::now() > deadline => {
                        let _ = child.kill();
                        let _ = child.wait();
                        break;
                    }
                    _ => std::thread::sleep(Duration::from_millis(10)),
                }
            }
        }
    }
}

impl Drop for PtyPair {
    fn drop(&mut self) {
        self.stop();
    }
}

fn serial_config(path: &Path) -> DeviceConfig {
    let mut config = DeviceConfig::new(TransportConfig::Serial(SerialConfig::new(
        path.to_string_lossy(),
        4800,
    )));
    config.read_timeout_ms = 20;
    config.backoff = fast_backoff();
    config
}

#[test]
fn serial_device_going_away_and_coming_back() {
    let dir = tempfile::tempdir().unwrap();
    let mut pair = PtyPair::start(dir.path());
    let config = serial_config(&pair.host_end);
    let (handle, events) = spawn_device(&config, Arc::new(SystemClock)).unwrap();
    assert!(matches!(
        next_event(&events),
        TransportEvent::Connected { description, usb: None, .. } if description.contains("4800 8N1")
    ));

    // Bytes that matter to serial framing and flow control pass unchanged.
    let mut device = pair.device();
    let first = b"\x05\x30D\x81\xB8\x03\x00\x11\x13\xFF";
    device.write_all(first).unwrap();
    read_bytes(&events, first);

    // The device goes away.
    drop(device);
    pair.stop();
    assert!(matches!(
        next_event(&events),
        TransportEvent::Disconnected { .. }
    ));

    // And comes back under the same name: the reader reconnects by itself.
    let pair = PtyPair::start(dir.path());
    assert!(matches!(
        next_event(&events),
        TransportEvent::Connected { .. }
    ));
    let mut device = pair.device();
    device.write_all(b"after reconnect").unwrap();
    read_bytes(&events, b"after reconnect");

    // A host command reaches the device only when sent explicitly.
    handle
        .send(b"\x02OPLK02\x031B", Duration::from_secs(2))
        .unwrap();
    let mut got = [0u8; 10];
    device.read_exact(&mut got).unwrap();
    assert_eq!(&got, b"\x02OPLK02\x031B");

    handle.stop();
    assert!(matches!(
        next_event(&events),
        TransportEvent::Disconnected { reason, .. } if reason.contains("stopped")
    ));
}

#[test]
fn serial_port_that_does_not_exist_is_retried_with_growing_delays() {
    let dir = tempfile::tempdir().unwrap();
    let config = serial_config(&dir.path().join("missing"));
    let (handle, events) = spawn_device(&config, Arc::new(SystemClock)).unwrap();
    let mut delays = Vec::new();
    while delays.len() < 5 {
        match events.recv_timeout(WAIT).unwrap() {
            TransportEvent::ConnectFailed {
                retry_in, reason, ..
            } => {
                assert!(reason.contains("missing"), "{reason}");
                delays.push(retry_in.as_millis());
            }
            other => panic!("unexpected {other:?}"),
        }
    }
    assert_eq!(delays, [50, 100, 200, 400, 400]);
    // Commands while disconnected fail instead of queueing.
    assert_eq!(
        handle.send(b"x", Duration::from_secs(2)),
        Err(TransportError::NotConnected)
    );
    handle.stop();
}

#[test]
fn a_reader_waiting_to_reconnect_sleeps_until_asked_and_a_stop_wakes_it() {
    // An hour's reconnect delay: the reader sleeps it out (it does not wake every few
    // milliseconds to look, which a thousand readers of devices that are away would pay for),
    // answers a command at once, and a stop ends the wait.
    let dir = tempfile::tempdir().unwrap();
    let mut config = serial_config(&dir.path().join("missing"));
    config.backoff = Backoff {
        initial_ms: 3_600_000,
        max_ms: 3_600_000,
        factor: 2,
    };
    let (handle, events) = spawn_device(&config, Arc::new(SystemClock)).unwrap();
    match events.recv_timeout(WAIT).unwrap() {
        TransportEvent::ConnectFailed { retry_in, .. } => {
            assert_eq!(retry_in, Duration::from_secs(3600));
        }
        other => panic!("unexpected {other:?}"),
    }
    assert_eq!(
        handle.send(b"x", Duration::from_secs(2)),
        Err(TransportError::NotConnected)
    );
    handle.request_stop();
    let (stopped_tx, stopped) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        handle.stop();
        let _ = stopped_tx.send(());
    });
    // Far less than the hour: the stop woke it.
    stopped
        .recv_timeout(Duration::from_secs(60))
        .expect("the stop ended the reconnect wait");
}

#[test]
fn bad_serial_settings_are_reported() {
    let mut config = serial_config(Path::new("/dev/null"));
    if let TransportConfig::Serial(serial) = &mut config.transport {
        serial.data_bits = 9;
    }
    let (handle, events) = spawn_device(&config, Arc::new(SystemClock)).unwrap();
    match events.recv_timeout(WAIT).unwrap() {
        TransportEvent::ConnectFailed { reason, .. } => {
            assert!(reason.contains("data_bits 9"), "{reason}")
        }
        other => panic!("unexpected {other:?}"),
    }
    handle.stop();
}

#[test]
fn a_refused_tcp_connection_names_the_address_once() {
    // A port that was free a moment ago: nothing listens there now.
    let address = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .to_string();
    let error = TcpConnection::open(
        &TcpConfig {
            address: address.clone(),
        },
        Duration::from_millis(100),
        Duration::from_secs(2),
    )
    .err()
    .expect("nothing listens");
    let message = error.to_string();
    assert!(
        message.starts_with(&format!("cannot open {address}: ")),
        "{message}"
    );
    assert_eq!(message.matches(&address).count(), 1, "{message}");
    // In words for the pit, not the system's error number.
    assert_eq!(
        message,
        format!("cannot open {address}: connection refused (nothing is listening there)")
    );
}

#[test]
fn tcp_server_dropping_and_accepting_again() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap().to_string();
    let mut config = DeviceConfig::new(TransportConfig::Tcp(TcpConfig {
        address: address.clone(),
    }));
    config.read_timeout_ms = 20;
    config.backoff = fast_backoff();
    let (handle, events) = spawn_device(&config, Arc::new(SystemClock)).unwrap();

    let (mut server, _) = listener.accept().unwrap();
    assert!(matches!(
        next_event(&events),
        TransportEvent::Connected { description, .. } if description == format!("tcp {address}")
    ));
    server.write_all(b"first").unwrap();
    read_bytes(&events, b"first");
    drop(server);
    match next_event(&events) {
        TransportEvent::Disconnected { reason, .. } => {
            assert!(reason.contains("closed"), "{reason}")
        }
        other => panic!("unexpected {other:?}"),
    }

    let (mut server, _) = listener.accept().unwrap();
    assert!(matches!(
        next_event(&events),
        TransportEvent::Connected { .. }
    ));
    server.write_all(b"second").unwrap();
    read_bytes(&events, b"second");
    handle.send(b"cmd", Duration::from_secs(2)).unwrap();
    let mut got = [0u8; 3];
    server.read_exact(&mut got).unwrap();
    assert_eq!(&got, b"cmd");
    // Nothing else was written: the host is read-only unless told.
    server
        .set_read_timeout(Some(Duration::from_millis(100)))
        .unwrap();
    let mut more = [0u8; 1];
    assert!(server.read(&mut more).is_err());
    handle.stop();
}

#[test]
fn tcp_idle_connection_is_reopened_when_configured() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let mut config = DeviceConfig::new(TransportConfig::Tcp(TcpConfig {
        address: listener.local_addr().unwrap().to_string(),
    }));
    config.read_timeout_ms = 10;
    config.idle_reconnect_ms = Some(100);
    config.backoff = fast_backoff();
    let (handle, events) = spawn_device(&config, Arc::new(SystemClock)).unwrap();
    let (_first, _) = listener.accept().unwrap();
    assert!(matches!(
        next_event(&events),
        TransportEvent::Connected { .. }
    ));
    match next_event(&events) {
        TransportEvent::Disconnected { reason, .. } => {
            assert!(reason.contains("no data"), "{reason}")
        }
        other => panic!("unexpected {other:?}"),
    }
    let (_second, _) = listener.accept().unwrap();
    assert!(matches!(
        next_event(&events),
        TransportEvent::Connected { .. }
    ));
    handle.stop();
}

/// A fake device: each connection plays a script of reads, then fails.
struct ScriptedConnector {
    scripts: Vec<Vec<&'static [u8]>>,
}

struct Scripted {
    reads: std::vec::IntoIter<&'static [u8]>,
}

impl Connection for Scripted {
    fn read(&mut self, buf: &mut [u8]) -> Result<usize, TransportError> {
        match self.reads.next() {
            Some(bytes) => {
                buf[..bytes.len()].copy_from_slice(bytes);
                Ok(bytes.len())
            }
            None => Err(TransportError::Closed("script over".into())),
        }
    }

    fn write_all(&mut self, _bytes: &[u8]) -> Result<(), TransportError> {
        Ok(())
    }
}

impl Connector for ScriptedConnector {
    fn connect(&mut self) -> Result<Box<dyn Connection>, TransportError> {
        if self.scripts.is_empty() {
            return Err(TransportError::Open {
                target: "fake".into(),
                reason: "no more scripts".into(),
            });
        }
        let reads = self.scripts.remove(0);
        Ok(Box::new(Scripted {
            reads: reads.into_iter(),
        }))
    }

    fn describe(&self) -> String {
        "fake".into()
    }
}

#[test]
fn events_come_in_order_with_times_taken_on_arrival() {
    let connector = ScriptedConnector {
        scripts: vec![vec![b"ab", b"c"], vec![b"d"]],
    };
    let options = ReaderOptions {
        backoff: fast_backoff(),
        idle_reconnect: None,
    };
    let clock = Arc::new(SteppingClock::new(1_000, 1));
    let (handle, events) = spawn_reader(Box::new(connector), options, clock).unwrap();
    let mut seen = Vec::new();
    loop {
        let event = events.recv_timeout(WAIT).unwrap();
        let done = matches!(event, TransportEvent::ConnectFailed { .. });
        seen.push(event);
        if done {
            break;
        }
    }
    handle.stop();
    let ms = |ms: i64| pitwatch_model::Timestamp::from_unix_millis(ms).unwrap();
    assert_eq!(
        seen,
        [
            TransportEvent::Connected {
                at: ms(1000),
                description: "fake".into(),
                usb: None
            },
            TransportEvent::Chunk {
                received_at: ms(1001),
                bytes: b"ab".to_vec()
            },
            TransportEvent::Chunk {
                received_at: ms(1002),
                bytes: b"c".to_vec()
            },
            TransportEvent::Disconnected {
                at: ms(1003),
                reason: "connection closed: script over".into()
            },
            TransportEvent::Connected {
                at: ms(1004),
                description: "fake".into(),
                usb: None
            },
            TransportEvent::Chunk {
                received_at: ms(1005),
                bytes: b"d".to_vec()
            },
            TransportEvent::Disconnected {
                at: ms(1006),
                reason: "connection closed: script over".into()
            },
            TransportEvent::ConnectFailed {
                at: ms(1007),
                reason: "cannot open fake: no more scripts".into(),
                retry_in: Duration::from_millis(50)
            },
        ]
    );
}
