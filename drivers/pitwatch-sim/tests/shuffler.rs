//! A simulated counting shuffler on a TCP link: its bytes, decoded as a host would and run through
//! the poker engine, raise each deck-check fault at the shuffle the injected-faults file names,
//! and the order-leak line is rejected as forbidden with none of its bytes handed on.

use std::io::Read;
use std::net::TcpStream;
use std::time::{Duration, Instant};

use pitwatch_model::{EventKind, TableEvent, Timestamp};
use pitwatch_protocols::{DecodeOutput, ProtocolConfig, RejectKind};
use pitwatch_sim::{Endpoint, Pace, ShufflerSim, SimConfig, SimDevice};

#[test]
fn a_shuffler_over_tcp_reports_each_fault_at_its_shuffle() {
    let dir = tempfile::tempdir().unwrap();
    let protocol = ProtocolConfig::by_name("pitwatch").unwrap();
    let config = SimConfig {
        seed: 5,
        pace: Pace::Fast,
        shoes: Some(5),
        endpoint: Endpoint::Tcp("127.0.0.1:0".parse().unwrap()),
        injected_log: Some(dir.path().join("injected.jsonl")),
        shuffler: Some(ShufflerSim {
            decks: 1,
            cards_per_deck: 52,
            faults: [
                "deck-short@2",
                "deck-extra@3",
                "order-leak@4",
                "shuffler-error@5",
            ]
            .iter()
            .map(|f| f.parse().unwrap())
            .collect(),
            interval_ms: pitwatch_sim::SHUFFLE_INTERVAL_MS,
        }),
        ..SimConfig::new(protocol, pitwatch_baccarat::RuleBook::nz_baccarat())
    };
    config.check().unwrap();
    let device = SimDevice::start(config).unwrap();
    let mut stream = TcpStream::connect(device.address().unwrap()).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_millis(200)))
        .unwrap();
    let mut bytes = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut buffer = [0u8; 65536];
    loop {
        match stream.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => bytes.extend_from_slice(&buffer[..n]),
            Err(_) if device.is_finished() => break,
            Err(_) => {}
        }
        assert!(Instant::now() < deadline, "the device did not finish");
    }
    device.stop().unwrap();
    let mut decoder = protocol.decoder(1);
    let mut outputs = Vec::new();
    let at = Timestamp::from_unix_millis(1_796_025_600_000).unwrap();
    decoder.push(&bytes, at, &mut outputs);
    decoder.finish(at, &mut outputs);
    let mut events: Vec<TableEvent> = Vec::new();
    let mut rejected = Vec::new();
    for output in &outputs {
        match output {
            DecodeOutput::Accepted(accepted) => events.extend(accepted.events.iter().cloned()),
            DecodeOutput::Rejected(r) => rejected.push((r.kind, r.bytes.len())),
        }
    }
    // The leaked order was sent, rejected, and none of it handed on.
    assert!(bytes.windows(12).any(|w| w == b"ORDER cards="));
    assert_eq!(rejected, [(RejectKind::Forbidden, 0)]);
    let handed_on: Vec<u8> = outputs.iter().flat_map(|o| o.bytes().to_vec()).collect();
    assert!(!handed_on.windows(5).any(|w| w == b"ORDER"));

    let counts: Vec<u32> = events
        .iter()
        .filter_map(|e| match e.kind {
            EventKind::Shuffled { cards, .. } => cards,
            _ => None,
        })
        .collect();
    assert_eq!(counts, [52, 51, 53, 52, 52]);

    // Through the poker engine: the count mismatches at shuffles 2 and 3, the jam at 5.
    let events: Vec<TableEvent> = events
        .into_iter()
        .enumerate()
        .map(|(i, e)| TableEvent {
            seq: i as u64 + 1,
            ..e
        })
        .collect();
    let flagged: Vec<(String, u32)> =
        pitwatch_poker::replay(&pitwatch_poker::Book::nz_poker(), &events)
            .into_iter()
            .filter_map(|o| match o {
                pitwatch_poker::Output::Irregularity(i) => Some((i.code.to_string(), i.shoe)),
                _ => None,
            })
            .collect();
    let injected: Vec<serde_json::Value> =
        std::fs::read_to_string(dir.path().join("injected.jsonl"))
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
    let mut expected: Vec<(String, u32)> = Vec::new();
    for i in &injected {
        let shuffle = i["shuffle"].as_u64().unwrap() as u32;
        match i["expected"].as_str().unwrap() {
            "forbidden" => {}
            // A failed deck check is one incident, the engine's (no device error besides).
            code => expected.push((code.into(), shuffle)),
        }
    }
    assert_eq!(injected.len(), 4);
    // The jam comes before its shuffle's SHUFFLE_DONE, so it belongs to the deck before.
    let expected: Vec<(String, u32)> = expected
        .into_iter()
        .map(|(c, s)| {
            if c == "DEVICE_ERROR" && s == 5 {
                (c, 4)
            } else {
                (c, s)
            }
        })
        .collect();
    assert_eq!(flagged, expected);
}
