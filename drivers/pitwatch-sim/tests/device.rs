//! The simulated device on real links: a pseudo-terminal opened by the serial transport and a TCP
//! listener the TCP transport connects to, decoded and judged as a monitor would, compared with
//! the injected-faults file and the capture file.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use pitwatch_baccarat::RuleBook;
use pitwatch_games::GameRound;
use pitwatch_model::Timestamp;
use pitwatch_protocols::ProtocolConfig;
use pitwatch_sim::check::{compare, HostView};
use pitwatch_sim::{Endpoint, FaultSpec, Injected, Pace, Planner, SimConfig, SimDevice, SimFault};
use pitwatch_transport::{
    spawn_device, Backoff, DeviceConfig, SerialConfig, SystemClock, TcpConfig, TransportConfig,
    TransportEvent,
};

fn at(fault: SimFault, round: u32) -> FaultSpec {
    FaultSpec::At {
        fault,
        shoe: 1,
        round,
    }
}

fn read_injected(path: &Path) -> Vec<Injected> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Runs one simulated shoe on `endpoint` and a host on the real transport; checks the host's
/// findings against the injected-faults file and the true rounds.
fn live(protocol: &str, faults: Vec<FaultSpec>, tcp: bool) {
    let dir = tempfile::tempdir().unwrap();
    let config = ProtocolConfig::by_name(protocol).unwrap();
    let book = RuleBook::nz_baccarat();
    let sim = SimConfig {
        seed: 21,
        pace: Pace::Fast,
        faults: faults.clone(),
        shoes: Some(1),
        endpoint: if tcp {
            Endpoint::Tcp("127.0.0.1:0".parse().unwrap())
        } else {
            Endpoint::Pty
        },
        capture: Some(dir.path().join("capture.bin")),
        injected_log: Some(dir.path().join("injected.jsonl")),
        ..SimConfig::new(config, book.clone())
    };
    let device = SimDevice::start(sim).unwrap();
    let transport = match (device.path(), device.address()) {
        (Some(path), _) => TransportConfig::Serial(SerialConfig::new(path, 4800)),
        (None, Some(addr)) => TransportConfig::Tcp(TcpConfig {
            address: addr.to_string(),
        }),
        _ => panic!("the device has neither a path nor an address"),
    };
    let mut device_config = DeviceConfig::new(transport);
    device_config.backoff = Backoff {
        initial_ms: 20,
        max_ms: 100,
        factor: 2,
    };
    let (handle, events) = spawn_device(&device_config, Arc::new(SystemClock)).unwrap();
    let mut host = HostView::new(&config, book.clone());
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut quiet_since = Instant::now();
    let mut disconnects = 0;
    // Read until the device has sent everything and the link has been quiet for a moment.
    while Instant::now() < deadline {
        match events.recv_timeout(Duration::from_millis(50)) {
            Ok(TransportEvent::Chunk { received_at, bytes }) => {
                quiet_since = Instant::now();
                host.push(&bytes, received_at);
            }
            Ok(TransportEvent::Disconnected { at, .. }) => {
                disconnects += 1;
                host.finish(at, false);
            }
            Ok(_) => {}
            Err(_) => {
                if device.is_finished() && quiet_since.elapsed() > Duration::from_millis(500) {
                    break;
                }
            }
        }
    }
    assert!(device.is_finished(), "the device did not finish in time");
    let summary = device.stop().unwrap();
    handle.stop();
    host.finish(Timestamp::from_unix_millis(0).unwrap(), true);

    // The same seed planned again gives the true rounds.
    let mut planner = Planner::new(&config, book, 21, faults.clone(), !tcp);
    let truth: Vec<GameRound> = planner.next_shoe().rounds;
    let injected = read_injected(&dir.path().join("injected.jsonl"));
    assert_eq!(injected.len(), faults.len(), "{injected:#?}");
    assert_eq!(summary.faults as usize, faults.len());
    let problems = compare(&host, &injected, &truth);
    assert!(problems.is_empty(), "{protocol} tcp={tcp}: {problems:#?}");
    assert_eq!(host.rounds.len(), truth.len());
    let reconnects = injected
        .iter()
        .filter(|r| r.expected == pitwatch_sim::Expected::Reconnect)
        .count();
    if tcp {
        // The host saw each dropped connection, and came back for the rest of the shoe.
        assert!(
            reconnects > 0 && disconnects >= reconnects,
            "{disconnects} disconnects for {reconnects}"
        );
    }

    // The capture holds every byte sent, and each record's offset points into it.
    let capture = std::fs::read(dir.path().join("capture.bin")).unwrap();
    assert_eq!(capture.len() as u64, summary.bytes);
    assert!(injected.iter().all(|r| r.offset < capture.len() as u64));
}

#[test]
fn angel_eye_on_a_pty() {
    live(
        "angel-eye",
        vec![
            at(SimFault::BurnMiscount, 1),
            at(SimFault::Garbage, 3),
            at(SimFault::WrongDeclaredResult, 6),
            at(SimFault::BadChecksum, 9),
            at(SimFault::DeviceError, 12),
            at(SimFault::DuplicateFrame, 15),
            at(SimFault::Disconnect, 18),
            at(SimFault::MissingThirdCard, 22),
        ],
        false,
    );
}

#[test]
fn pitwatch_protocol_on_a_pty() {
    live(
        "pitwatch",
        vec![
            at(SimFault::CuttingCardTooCloseToBack, 1),
            at(SimFault::CardExposed, 4),
            at(SimFault::Disconnect, 8),
            at(SimFault::UnreadableCard, 11),
            at(SimFault::BadChecksum, 14),
            at(SimFault::OutOfOrderCard, 18),
        ],
        false,
    );
}

#[test]
fn barcode_on_a_pty() {
    live(
        "barcode",
        vec![
            at(SimFault::Garbage, 3),
            at(SimFault::DuplicateFrame, 7),
            at(SimFault::ForeignCard, 20),
        ],
        false,
    );
}

#[test]
fn pitwatch_protocol_over_tcp_with_a_real_disconnect() {
    live(
        "pitwatch",
        vec![
            at(SimFault::Garbage, 2),
            at(SimFault::Disconnect, 5),
            at(SimFault::UnauthorisedThirdCard, 9),
        ],
        true,
    );
}

#[test]
fn a_fault_the_protocol_cannot_carry_is_refused_before_anything_opens() {
    let config = SimConfig {
        faults: vec![at(SimFault::BadChecksum, 2)],
        ..SimConfig::new(
            ProtocolConfig::by_name("barcode").unwrap(),
            RuleBook::nz_baccarat(),
        )
    };
    let error = SimDevice::start(config).unwrap_err();
    assert!(
        error
            .to_string()
            .contains("barcode cannot carry the fault bad_checksum"),
        "{error}"
    );
}

#[test]
fn stopping_a_real_paced_device_is_prompt() {
    let config = SimConfig {
        shoes: None,
        ..SimConfig::new(
            ProtocolConfig::by_name("angel-eye").unwrap(),
            RuleBook::nz_baccarat(),
        )
    };
    let device = SimDevice::start(config).unwrap();
    assert!(device.path().unwrap().starts_with("/dev/"));
    std::thread::sleep(Duration::from_millis(100));
    let started = Instant::now();
    let summary = device.stop().unwrap();
    assert!(started.elapsed() < Duration::from_secs(1));
    assert_eq!(summary.shoes, 0);
}

#[test]
fn forever_mode_keeps_dealing_new_shoes() {
    let config = SimConfig {
        shoes: None,
        pace: Pace::Fast,
        endpoint: Endpoint::Tcp("127.0.0.1:0".parse().unwrap()),
        ..SimConfig::new(
            ProtocolConfig::by_name("pitwatch").unwrap(),
            RuleBook::nz_baccarat(),
        )
    };
    let device = SimDevice::start(config).unwrap();
    let address = device.address().unwrap();
    // A host that reads and discards everything.
    let reader = std::thread::spawn(move || {
        let mut stream = std::net::TcpStream::connect(address).unwrap();
        let _ = std::io::copy(&mut stream, &mut std::io::sink());
    });
    let deadline = Instant::now() + Duration::from_secs(30);
    while device.shoes_done() < 3 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(!device.is_finished());
    let summary = device.stop().unwrap();
    assert!(summary.shoes >= 3, "{summary:?}");
    assert!(summary.rounds >= 3 * 60, "{summary:?}");
    reader.join().unwrap();
}

#[test]
fn a_device_asked_to_deal_no_more_keeps_its_link_open_until_the_host_has_read_everything() {
    // Closing a pseudo-terminal hangs it up and throws away what the host has not read: a
    // harness stops the dealing first, lets the host read the rest, then closes.
    let dir = tempfile::tempdir().unwrap();
    let capture = dir.path().join("capture.bin");
    let config = SimConfig {
        shoes: None,
        pace: Pace::Times(50.0),
        capture: Some(capture.clone()),
        ..SimConfig::new(
            ProtocolConfig::by_name("barcode").unwrap(),
            RuleBook::nz_baccarat(),
        )
    };
    let device = SimDevice::start(config).unwrap();
    let path = device.path().unwrap().to_owned();
    let mut got = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(30);
    // A host that has not opened the port yet: what is dealt meanwhile waits in the terminal.
    while std::fs::metadata(&capture).map_or(0, |m| m.len()) < 40 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    device.stop_dealing();
    assert!(device.wait_finished(Duration::from_secs(10)));
    let sent = std::fs::read(&capture).unwrap();
    assert!(sent.len() >= 40, "{} bytes", sent.len());
    let (handle, events) = spawn_device(
        &DeviceConfig::new(TransportConfig::Serial(SerialConfig::new(&path, 9600))),
        Arc::new(SystemClock),
    )
    .unwrap();
    while got.len() < sent.len() && Instant::now() < deadline {
        if let Ok(TransportEvent::Chunk { bytes, .. }) =
            events.recv_timeout(Duration::from_millis(50))
        {
            got.extend(bytes);
        }
    }
    assert_eq!(got, sent, "everything dealt is read, nothing more comes");
    // Nothing more is dealt while the link stays open.
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(std::fs::read(&capture).unwrap(), sent);
    let summary = device.stop().unwrap();
    assert_eq!(summary.bytes, sent.len() as u64);
    handle.stop();
}
