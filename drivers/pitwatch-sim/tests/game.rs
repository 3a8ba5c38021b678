//! A simulated Blackjack or Pontoon table on a TCP link: the bytes it sends, decoded as a host
//! would and run through the Blackjack engine, give every round dealt, honest play unflagged and
//! each injected fault at the round the injected-faults file names.

use std::io::Read;
use std::net::TcpStream;
use std::time::{Duration, Instant};

use pitwatch_blackjack::{replay, Book, Output};
use pitwatch_model::{TableEvent, Timestamp};
use pitwatch_protocols::{DecodeOutput, ProtocolConfig};
use pitwatch_sim::{Endpoint, GameFault, Pace, SimConfig, SimDevice};

/// Runs `shoes` shoes of `book` with `faults`; returns the decoded events, the injected-faults
/// lines and the device's summary of rounds.
fn run(
    book: &Book,
    shoes: u32,
    faults: Vec<GameFault>,
) -> (Vec<TableEvent>, Vec<serde_json::Value>, u32) {
    let dir = tempfile::tempdir().unwrap();
    let protocol = ProtocolConfig::by_name("pitwatch").unwrap();
    let config = SimConfig {
        seed: 17,
        pace: Pace::Fast,
        shoes: Some(shoes),
        endpoint: Endpoint::Tcp("127.0.0.1:0".parse().unwrap()),
        injected_log: Some(dir.path().join("injected.jsonl")),
        game_faults: faults,
        ..SimConfig::new(protocol, book.clone())
    };
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
    let summary = device.stop().unwrap();
    let mut decoder = protocol.decoder(1);
    let mut outputs = Vec::new();
    let at = Timestamp::from_unix_millis(1_796_025_600_000).unwrap();
    decoder.push(&bytes, at, &mut outputs);
    decoder.finish(at, &mut outputs);
    let mut events = Vec::new();
    for output in outputs {
        match output {
            DecodeOutput::Accepted(accepted) => events.extend(accepted.events),
            DecodeOutput::Rejected(r) => panic!("a frame was rejected: {r:?}"),
        }
    }
    let injected = std::fs::read_to_string(dir.path().join("injected.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (events, injected, summary.rounds)
}

fn irregularities(outputs: &[Output]) -> Vec<&pitwatch_rules::Irregularity> {
    outputs
        .iter()
        .filter_map(|o| match o {
            Output::Irregularity(i) => Some(i),
            _ => None,
        })
        .collect()
}

#[test]
fn an_honest_table_sent_over_the_wire_is_followed_round_by_round_unflagged() {
    for book in [Book::nz_blackjack(), Book::nz_pontoon()] {
        let (events, injected, rounds) = run(&book, 2, Vec::new());
        assert!(injected.is_empty());
        let outputs = replay(&book, &events);
        let followed = outputs
            .iter()
            .filter(|o| matches!(o, Output::Round(_)))
            .count();
        assert!(rounds > 10, "{}: {rounds} rounds", book.id);
        assert_eq!(followed as u32, rounds, "{}", book.id);
        assert!(
            irregularities(&outputs).is_empty(),
            "{}: {:#?}",
            book.id,
            irregularities(&outputs)
        );
    }
}

#[test]
fn each_injected_fault_is_logged_and_found_at_its_round() {
    let book = Book::nz_pontoon();
    let faults: Vec<GameFault> = [
        "dealer_draws_on_stand@3",
        "foreign_card@1:8",
        "out_of_order@2:4",
    ]
    .iter()
    .map(|f| f.parse().unwrap())
    .collect();
    let (events, injected, _) = run(&book, 2, faults);
    assert_eq!(injected.len(), 3, "{injected:#?}");
    let outputs = replay(&book, &events);
    let found = irregularities(&outputs);
    assert_eq!(found.len(), 3, "{found:#?}");
    for line in &injected {
        let shoe = line["shoe"].as_u64().unwrap() as u32;
        let round = line["round"].as_u64().unwrap() as u32;
        let code = line["code"].as_str().unwrap();
        assert!(
            found.iter().any(|i| i.shoe == shoe
                && i.round == Some(round)
                && (i.code.as_str() == code || i.also.iter().any(|c| c.as_str() == code))),
            "{line} not found in {found:#?}"
        );
    }
}
