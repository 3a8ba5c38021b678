//! The connection test over real links: a TCP device server on loopback and a pseudo-terminal.
//! Frames arriving are shown accepted with their events in words, rejected with the codec's
//! reason; a port that does not open says why at once; nothing waits for the reconnect backoff.

use std::io::Write;
use std::net::TcpListener;
use std::sync::Arc;
use std::time::{Duration, Instant};

use pitwatch_protocols::ProtocolConfig;
use pitwatch_recording::probe::{probe, ProbeReport};
use pitwatch_transport::{DeviceConfig, SerialConfig, SystemClock, TcpConfig, TransportConfig};

fn barcode() -> ProtocolConfig {
    ProtocolConfig::by_name("barcode").expect("the barcode protocol")
}

fn tcp(address: String) -> DeviceConfig {
    DeviceConfig::new(TransportConfig::Tcp(TcpConfig { address }))
}

fn texts(report: &ProbeReport) -> Vec<(bool, String)> {
    report
        .frames
        .iter()
        .map(|f| (f.accepted, f.text.clone()))
        .collect()
}

#[test]
fn a_device_server_s_frames_are_shown_accepted_and_rejected_as_they_arrive() {
    let server = TcpListener::bind("127.0.0.1:0").expect("a port");
    let address = server.local_addr().expect("its address").to_string();
    let device = std::thread::spawn(move || {
        let (mut stream, _) = server.accept().expect("the test connects");
        let mut bytes = pitwatch_barcode::encode_shuffle_card();
        bytes.extend(pitwatch_barcode::encode_card("QS".parse().expect("a card")));
        bytes.extend(b"9X9\r");
        stream.write_all(&bytes).expect("sent");
        // Held open while the test listens.
        std::thread::sleep(Duration::from_millis(1_500));
    });
    let report = probe(
        &barcode(),
        &tcp(address),
        Duration::from_millis(700),
        Arc::new(SystemClock),
    );
    device.join().expect("the device thread");
    assert!(report.connected_at.is_some(), "{report:?}");
    assert!(report.problems.is_empty(), "{report:?}");
    assert_eq!((report.accepted, report.rejected), (2, 1), "{report:?}");
    assert_eq!(report.bytes, 12);
    let texts = texts(&report);
    assert!(texts[0].0 && texts[0].1.contains("shuffle"), "{texts:?}");
    assert!(texts[1].0 && texts[1].1.contains("QS"), "{texts:?}");
    assert!(!texts[2].0, "{texts:?}");
    assert_eq!(report.frames[2].bytes, b"9X9\r");
    assert_eq!(
        report.verdict(),
        "The device is talking, with errors: 2 frames accepted, 1 rejected."
    );
}

#[test]
fn a_link_that_does_not_open_says_why_at_once() {
    // A port nobody listens on: refused at once, no wait for the backoff.
    let unused = TcpListener::bind("127.0.0.1:0").expect("a port");
    let address = unused.local_addr().expect("its address").to_string();
    drop(unused);
    let started = Instant::now();
    let report = probe(
        &barcode(),
        &tcp(address),
        Duration::from_secs(10),
        Arc::new(SystemClock),
    );
    assert!(started.elapsed() < Duration::from_secs(8), "{report:?}");
    assert_eq!(report.connected_at, None);
    assert_eq!(report.problems.len(), 1, "{report:?}");
    assert!(report.verdict().starts_with("The link did not open: "));

    let report = probe(
        &barcode(),
        &DeviceConfig::new(TransportConfig::Serial(SerialConfig::new(
            "/dev/pitwatch-no-such-port",
            9600,
        ))),
        Duration::from_secs(10),
        Arc::new(SystemClock),
    );
    assert_eq!(report.connected_at, None);
    assert!(
        report.problems[0].contains("/dev/pitwatch-no-such-port"),
        "{report:?}"
    );
}

#[test]
fn a_serial_port_that_opens_and_stays_quiet_is_said_to_be_quiet() {
    let pty = pitwatch_transport::pty::open_pair().expect("a pseudo-terminal");
    let report = probe(
        &barcode(),
        &DeviceConfig::new(TransportConfig::Serial(SerialConfig::new(pty.path(), 9600))),
        Duration::from_millis(400),
        Arc::new(SystemClock),
    );
    assert!(report.connected_at.is_some(), "{report:?}");
    assert_eq!(report.bytes, 0);
    assert!(
        report.verdict().contains("sent nothing"),
        "{}",
        report.verdict()
    );
    drop(pty);
}
