//! Blackjack and Pontoon tables live, end to end: a simulated dealer (a seeded basic-strategy
//! player per box) deals over a pseudo-terminal in the Pitwatch protocol, the monitor reads it
//! through the real driver stack and records it with the Blackjack engine, an injected game fault
//! raises its incident at the round the simulator names, and a replay from the record gives what
//! was derived live and what the capture of the same bytes gives through the engine.

use std::sync::mpsc::Receiver;
use std::sync::Arc;
use std::time::{Duration, Instant};

use pitwatch_blackjack::dealer::Fault;
use pitwatch_blackjack::Book;
use pitwatch_games::GameKind;
use pitwatch_games::{GameOutput, GameRound};
use pitwatch_model::Timestamp;
use pitwatch_protocols::{DecodeOutput, ProtocolConfig};
use pitwatch_recording::monitor::{Monitor, MonitorEvent, MonitoredTable};
use pitwatch_recording::pit::{LinkConfig, TableConfig};
use pitwatch_recording::recorder::Derived;
use pitwatch_rules::TableOutput;
use pitwatch_sim::{Endpoint, GameFault, Pace, SimConfig, SimDevice};
use pitwatch_store::{IncidentFilter, Sealing, Store};
use pitwatch_transport::{SerialConfig, SystemClock, TransportConfig};

/// Everything the monitor published until `done` says so (or a minute passes).
fn collect(events: &Receiver<MonitorEvent>, mut done: impl FnMut() -> bool) -> Vec<MonitorEvent> {
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut seen = Vec::new();
    let mut quiet_since = Instant::now();
    while Instant::now() < deadline {
        match events.recv_timeout(Duration::from_millis(100)) {
            Ok(event) => {
                seen.push(event);
                quiet_since = Instant::now();
            }
            // The device has finished and nothing arrived for a while: all of it is on record.
            Err(_) if done() && quiet_since.elapsed() > Duration::from_millis(700) => {
                return seen;
            }
            Err(_) => {}
        }
    }
    panic!(
        "the table did not go quiet in a minute; saw {} events",
        seen.len()
    );
}

/// Runs one shoe of `book` with `fault` at shoe 1, round 4, through the monitor into a store;
/// checks the incident, the replay from the record and the capture's replay.
fn one_shoe_live(game: GameKind, rules: &str, fault: Fault) {
    let book = Book::builtin(rules).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("pit.db");
    let capture = dir.path().join("capture.bin");
    let injected = dir.path().join("injected.jsonl");
    let protocol = ProtocolConfig::by_name("pitwatch").unwrap();
    let config = SimConfig {
        seed: 29,
        pace: Pace::Times(400.0),
        shoes: Some(1),
        endpoint: Endpoint::Pty,
        capture: Some(capture.clone()),
        injected_log: Some(injected.clone()),
        game_faults: vec![GameFault {
            fault,
            shoe: 1,
            round: 4,
        }],
        ..SimConfig::new(protocol, book.clone())
    };
    let device = SimDevice::start(config).unwrap();
    let link = LinkConfig::new(TransportConfig::Serial(SerialConfig::new(
        device.path().unwrap().to_owned(),
        9600,
    )));
    let table = MonitoredTable {
        config: TableConfig::new("BJ-1", game, rules, protocol, Some(link.clone())),
        link,
        more_links: Vec::new(),
    };
    let store = Store::open(&db, &Sealing::key_file(dir.path().join("signing.key"))).unwrap();
    let (monitor, events) = Monitor::start(store, vec![table], Arc::new(SystemClock)).unwrap();
    let seen = collect(&events, || device.is_finished());
    let summary = device.stop().unwrap();
    monitor.stop().unwrap();
    assert!(
        summary.rounds >= 4,
        "the shoe dealt {} rounds",
        summary.rounds
    );

    // What was derived live.
    let live: Vec<GameOutput> = seen
        .into_iter()
        .filter_map(|e| match e {
            MonitorEvent::Derived {
                derived: Derived::Output { output, .. },
                ..
            } => Some(output),
            _ => None,
        })
        .collect();
    let live_rounds: Vec<&pitwatch_blackjack::RoundRecord> = live
        .iter()
        .filter_map(|o| match o {
            TableOutput::Round(GameRound::Blackjack(r)) => Some(&**r),
            _ => None,
        })
        .collect();
    assert!(live_rounds.len() >= 4, "{} rounds live", live_rounds.len());
    assert!(
        live_rounds.iter().all(|r| r.game == book.variant.name()),
        "every round says its game"
    );

    // The injected fault is an incident at the round the simulator names, citing the book.
    let lines = std::fs::read_to_string(&injected).unwrap();
    let injected: Vec<serde_json::Value> = lines
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(injected.len(), 1, "{lines}");
    let (code, shoe, round) = (
        injected[0]["code"].as_str().unwrap(),
        injected[0]["shoe"].as_u64().unwrap() as u32,
        injected[0]["round"].as_u64().unwrap() as u32,
    );
    let store = Store::open(&db, &Sealing::key_file(dir.path().join("signing.key"))).unwrap();
    let incidents = store.incidents(&IncidentFilter::default()).unwrap();
    assert!(
        incidents
            .iter()
            .any(|i| i.code == code && i.shoe == Some(shoe) && i.round == Some(round)),
        "{code} at shoe {shoe} round {round}: {incidents:#?}"
    );
    // Honest play is never flagged: the only incidents are the injected fault's.
    assert!(
        incidents.iter().all(|i| i.round == Some(round)),
        "{incidents:#?}"
    );
    assert!(incidents.iter().all(|i| i.rule != "no rule cited"));

    // Replay from the record: event by event, what was derived live (the stream's end, which
    // the live table has not reached, closes the last round: replay's `closing`).
    let replayed = pitwatch_recording::replay::rebuild(&store, "BJ-1").unwrap();
    assert!(
        replayed.divergences.is_empty(),
        "{:?}",
        replayed.divergences
    );
    let stepped: Vec<&GameOutput> = replayed.steps.iter().flat_map(|s| &s.outputs).collect();
    assert_eq!(stepped, live.iter().collect::<Vec<_>>());
    let replayed_rounds: Vec<&GameRound> = replayed.rounds().collect();
    assert!(replayed_rounds.len() <= live_rounds.len() + 1);
    // One shoe replayed on its own (what the desk's replay screen and `replay --db --shoe`
    // run) steps through the same rounds.
    let run = pitwatch_recording::replay::replay_shoe(&store, "BJ-1", 1).unwrap();
    let shoe_rounds: Vec<&GameRound> = run
        .steps
        .iter()
        .flat_map(|s| &s.outputs)
        .filter_map(|o| match o {
            TableOutput::Round(r) => Some(r),
            _ => None,
        })
        .collect();
    assert_eq!(shoe_rounds, replayed_rounds[..shoe_rounds.len()]);
    assert!(shoe_rounds.len() + 1 >= replayed_rounds.len());

    // The incident report: the rule's text from the game's own book, the round in its terms.
    let incident = incidents
        .iter()
        .find(|i| i.code == code)
        .expect("the injected fault's incident");
    let report =
        pitwatch_recording::report::incident_report(&store, incident.id, "pit.db").unwrap();
    let json = report.to_json();
    assert!(json.contains(&book.id), "the book is named: {json}");
    // The book's texts of the rule cited (or, where its source pages have none, the report says
    // so: Pontoon's play of the hands is not in them).
    let texts = book.rule_texts(&incident.rule);
    if texts.is_empty() {
        assert!(json.contains("holds no text for this citation"), "{json}");
    }
    for (_, text) in texts {
        let start: String = text.chars().take(40).collect();
        assert!(json.contains(&start), "the rule text is printed: {json}");
    }
    for column in ["\"Dealer\"", "\"Box\"", "\"Outcome\"", "\"Pays\""] {
        assert!(
            json.contains(column),
            "the round in Blackjack's terms: {json}"
        );
    }
    // The shift report counts the table's rounds (from the record's derived rounds).
    let shift = pitwatch_recording::report::Shift::new(
        Timestamp::from_unix_millis(0).unwrap(),
        Timestamp::from_unix_millis(4_102_444_800_000).unwrap(),
        Some("BJ-1".into()),
    )
    .unwrap();
    let shift_report = pitwatch_recording::report::shift_report(&store, &shift, "pit.db").unwrap();
    let shift_json = shift_report.to_json();
    assert!(
        shift_json.contains(code),
        "the incident is in the shift report"
    );
    for (name, document) in [("incident", &report), ("shift", &shift_report)] {
        let pdf = pitwatch_report::render_pdf(document).unwrap();
        assert!(pdf.bytes.starts_with(b"%PDF-"));
        // For looking at: `PITWATCH_REPORT_DIR=dir cargo test -p pitwatch-recording --test games`.
        if let Some(dir) = std::env::var_os("PITWATCH_REPORT_DIR") {
            let file = std::path::Path::new(&dir).join(format!("{}-{name}.pdf", book.id));
            std::fs::write(file, &pdf.bytes).unwrap();
        }
    }

    // The capture of the same bytes through the engine (`replay FILE --rules`) gives the same.
    let bytes = std::fs::read(&capture).unwrap();
    let mut decoder = protocol.decoder(1);
    let mut outputs = Vec::new();
    decoder.push(
        &bytes,
        Timestamp::from_unix_millis(1_796_025_600_000).unwrap(),
        &mut outputs,
    );
    let events: Vec<_> = outputs
        .into_iter()
        .flat_map(|o| match o {
            DecodeOutput::Accepted(a) => a.events,
            DecodeOutput::Rejected(r) => panic!("a frame was rejected: {r:?}"),
        })
        .collect();
    let from_capture = pitwatch_blackjack::replay(&book, &events);
    let capture_rounds: Vec<GameRound> = from_capture
        .iter()
        .filter_map(|o| match o {
            TableOutput::Round(r) => Some(GameRound::Blackjack(Box::new(r.clone()))),
            _ => None,
        })
        .collect();
    assert_eq!(capture_rounds.iter().collect::<Vec<_>>(), replayed_rounds);
}

#[test]
fn a_blackjack_table_is_recorded_live_and_replays_as_live() {
    one_shoe_live(
        GameKind::Blackjack,
        "nz-blackjack",
        Fault::DealerDrawsOnStand,
    );
}

#[test]
fn a_pontoon_table_is_recorded_live_and_replays_as_live() {
    one_shoe_live(GameKind::Pontoon, "nz-pontoon", Fault::CardToEmptyBox);
}

/// Pontoon 6.4 through the real driver stack: the dealer simulator logs the three preparation
/// steps (`SHUFFLE_STEP`) before each shoe on a pseudo-terminal and leaves one out before shoe 2;
/// the monitor records it and raises one `NOT_SHUFFLED` citing 6.4 at shoe 2's load (the steps
/// logged and the load as evidence), nothing else, and a replay from the record gives what was
/// derived live.
#[test]
fn a_pontoon_shoe_loaded_without_its_preparation_steps_is_flagged_at_that_shoe() {
    let book = Book::builtin("nz-pontoon").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("pit.db");
    let injected = dir.path().join("injected.jsonl");
    let protocol = ProtocolConfig::by_name("pitwatch").unwrap();
    let config = SimConfig {
        seed: 31,
        pace: Pace::Times(400.0),
        shoes: Some(2),
        endpoint: Endpoint::Pty,
        injected_log: Some(injected.clone()),
        game_faults: vec![GameFault {
            fault: Fault::ShuffleStepSkipped,
            shoe: 2,
            round: 1,
        }],
        ..SimConfig::new(protocol, book.clone())
    };
    let device = SimDevice::start(config).unwrap();
    let link = LinkConfig::new(TransportConfig::Serial(SerialConfig::new(
        device.path().unwrap().to_owned(),
        9600,
    )));
    let table = MonitoredTable {
        config: TableConfig::new(
            "PON-1",
            GameKind::Pontoon,
            "nz-pontoon",
            protocol,
            Some(link.clone()),
        ),
        link,
        more_links: Vec::new(),
    };
    let store = Store::open(&db, &Sealing::key_file(dir.path().join("signing.key"))).unwrap();
    let (monitor, events) = Monitor::start(store, vec![table], Arc::new(SystemClock)).unwrap();
    let seen = collect(&events, || device.is_finished());
    device.stop().unwrap();
    monitor.stop().unwrap();
    let live: Vec<GameOutput> = seen
        .into_iter()
        .filter_map(|e| match e {
            MonitorEvent::Derived {
                derived: Derived::Output { output, .. },
                ..
            } => Some(output),
            _ => None,
        })
        .collect();

    let lines = std::fs::read_to_string(&injected).unwrap();
    assert!(
        lines.contains(r#""fault":"shuffle_step_skipped","shoe":2,"round":0"#),
        "{lines}"
    );
    let store = Store::open(&db, &Sealing::key_file(dir.path().join("signing.key"))).unwrap();
    let incidents = store.incidents(&IncidentFilter::default()).unwrap();
    assert_eq!(incidents.len(), 1, "{incidents:#?}");
    let incident = &incidents[0];
    assert_eq!(
        (
            incident.code.as_str(),
            incident.shoe,
            incident.round,
            incident.rule.as_str()
        ),
        ("NOT_SHUFFLED", Some(2), None, "6.4")
    );
    assert!(
        incident
            .message
            .contains("without the preparation the rule book requires"),
        "{}",
        incident.message
    );
    // Two steps logged and the load.
    assert_eq!(incident.evidence.len(), 3, "{incident:#?}");
    assert_eq!(incident.evidence.last(), Some(&incident.seq));

    let replayed = pitwatch_recording::replay::rebuild(&store, "PON-1").unwrap();
    assert!(
        replayed.divergences.is_empty(),
        "{:?}",
        replayed.divergences
    );
    let stepped: Vec<&GameOutput> = replayed.steps.iter().flat_map(|s| &s.outputs).collect();
    assert_eq!(stepped, live.iter().collect::<Vec<_>>());
    // The report prints 6.4's words from the book.
    let report =
        pitwatch_recording::report::incident_report(&store, incident.id, "pit.db").unwrap();
    assert!(
        report.to_json().contains("chemmy shuffled"),
        "the rule text is printed"
    );
}

/// Blackjack and Pontoon shoes replay on their own from the carry into the shoe before (as
/// Baccarat's do): several shoes dealt by the Blackjack dealer go through the live recorder as
/// Pitwatch-protocol bytes, and each shoe replayed alone ([`pitwatch_recording::replay::replay_shoe`])
/// has exactly the whole replay's steps while running fewer events than the whole table; the
/// carries are stored with the shoes' starts, and a recorder restarted on the record (resuming
/// from the last one) starts.
#[test]
fn blackjack_and_pontoon_shoes_replay_alone_from_the_carry_into_the_shoe_before() {
    use pitwatch_blackjack::dealer::{deal, Config};
    use pitwatch_recording::recorder::TableRecorder;
    use pitwatch_recording::replay;

    for (rules, game) in [("nz-blackjack", "blackjack"), ("nz-pontoon", "pontoon")] {
        let book = Book::builtin(rules).unwrap();
        let dealt = deal(
            &book,
            &Config {
                seed: 7,
                shoes: 4,
                ..Config::default()
            },
        );
        let dir = tempfile::tempdir().unwrap();
        let sealing = Sealing::key_file(dir.path().join("signing.key"));
        let mut store = Store::open(dir.path().join("pit.db"), &sealing).unwrap();
        let protocol = ProtocolConfig::by_name("pitwatch").unwrap();
        let mut encoder = protocol.encoder();
        let start = Timestamp::from_unix_millis(1_796_025_600_000).unwrap();
        let mut recorder = TableRecorder::resume(
            &mut store,
            "BJ-2",
            game,
            book.clone(),
            None,
            Some(protocol),
            start,
        )
        .unwrap();
        recorder
            .connect(&mut store, "/dev/ttyUSB0", Default::default(), start)
            .unwrap();
        let mut derived = Vec::new();
        let mut batch = store.batch(start).unwrap();
        for event in &dealt.events {
            if let Some(bytes) = encoder.encode(event) {
                recorder
                    .ingest(&mut batch, start, &bytes, &mut derived)
                    .unwrap();
            }
        }
        let session = recorder
            .disconnect(&mut batch, start, &mut derived)
            .unwrap()
            .unwrap();
        batch.commit().unwrap();
        store.end_session(session, start, "end of test").unwrap();

        let whole = replay::rebuild(&store, "BJ-2").unwrap();
        assert!(whole.divergences.is_empty(), "{:?}", whole.divergences);
        let shoes = whole.shoes();
        assert!(shoes.len() >= 4, "{rules}: {} shoes", shoes.len());
        for summary in &shoes {
            let one = replay::replay_shoe(&store, "BJ-2", summary.shoe).unwrap();
            assert!(one.divergences.is_empty(), "{:?}", one.divergences);
            let expected = whole.shoe_steps(summary.shoe).unwrap();
            assert!(
                one.steps.as_slice() == expected,
                "{rules} shoe {}: the steps differ from the whole replay's",
                summary.shoe
            );
            if summary.shoe > 2 {
                assert!(
                    one.events_run < whole.steps.len(),
                    "{rules} shoe {} ran {} events, the whole table has {}",
                    summary.shoe,
                    one.events_run,
                    whole.steps.len()
                );
            }
        }
        let table = store.table_id("BJ-2").unwrap().unwrap();
        let carry = store.shoe_start(table, 2).unwrap().unwrap().carry;
        assert!(carry.starts_with("{\"shoes\":1"), "{rules}: {carry}");
        let again = TableRecorder::resume(
            &mut store,
            "BJ-2",
            game,
            book.clone(),
            None,
            Some(protocol),
            start,
        );
        assert!(again.is_ok(), "{rules}: {:?}", again.err());
    }
}

/// A Blackjack or Pontoon table restarted mid-round, from a real store: the recorder is killed
/// (no disconnect, no end of session) in the middle of a round, a few events go by while nobody
/// listens, and a recorder resumed on the record takes the rest. The round under way is followed
/// as joined: no incident is opened (honest play), the round cut off and the joined tail are
/// recorded unfinished, and a replay from the record gives the same rounds byte for byte and no
/// irregularity. Cut in the initial deal, in the boxes' play and in the dealer's draw.
#[test]
fn a_blackjack_table_restarted_mid_round_raises_nothing_and_replays_as_live() {
    use pitwatch_blackjack::dealer::{deal, Config};
    use pitwatch_model::{EventKind, Target};
    use pitwatch_recording::recorder::TableRecorder;
    use pitwatch_recording::replay;

    for (rules, game) in [("nz-blackjack", "blackjack"), ("nz-pontoon", "pontoon")] {
        let book = Book::builtin(rules).unwrap();
        let dealt = deal(
            &book,
            &Config {
                seed: 11,
                shoes: 2,
                ..Config::default()
            },
        );
        let bets: Vec<usize> = (0..dealt.events.len())
            .filter(|&i| matches!(dealt.events[i].kind, EventKind::BetsClosed))
            .collect();
        // Where to cut in round 5: the second card of its first box, a decision, the dealer's
        // second card.
        let round = bets[4]..bets[5];
        let second_card = round.clone().find(|&i| {
            matches!(
                dealt.events[i].kind,
                EventKind::CardDrawn {
                    target: Some(Target::Box(_)),
                    index: Some(2),
                    ..
                }
            )
        });
        let decision = round.clone().find(|&i| {
            matches!(dealt.events[i].kind, EventKind::Decision { action, .. } if action != pitwatch_model::Action::InPlay)
        });
        let dealer_draw = round.clone().find(|&i| {
            matches!(
                dealt.events[i].kind,
                EventKind::CardDrawn {
                    target: Some(Target::Dealer),
                    index: Some(2),
                    ..
                }
            )
        });
        for (lost, cut) in [second_card, decision, dealer_draw]
            .into_iter()
            .flatten()
            .enumerate()
        {
            let label = format!("{rules}, cut before event {cut}, {lost} lost");
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("pit.db");
            let sealing = Sealing::key_file(dir.path().join("signing.key"));
            let protocol = ProtocolConfig::by_name("pitwatch").unwrap();
            let mut encoder = protocol.encoder();
            let frames: Vec<Option<Vec<u8>>> =
                dealt.events.iter().map(|e| encoder.encode(e)).collect();
            let start = Timestamp::from_unix_millis(1_796_025_600_000).unwrap();
            let record = |store: &mut Store, frames: &[Option<Vec<u8>>], now: Timestamp| {
                let mut recorder = TableRecorder::resume(
                    store,
                    "BJ-3",
                    game,
                    book.clone(),
                    None,
                    Some(protocol),
                    now,
                )
                .unwrap();
                recorder
                    .connect(store, "/dev/ttyUSB0", Default::default(), now)
                    .unwrap();
                let mut derived = Vec::new();
                let mut batch = store.batch(now).unwrap();
                for bytes in frames.iter().flatten() {
                    recorder
                        .ingest(&mut batch, now, bytes, &mut derived)
                        .unwrap();
                }
                batch.commit().unwrap();
                // The process dies here: no disconnect, no end of session.
            };
            {
                let mut store = Store::open(&path, &sealing).unwrap();
                record(&mut store, &frames[..cut], start);
            }
            let mut store = Store::open(&path, &sealing).unwrap();
            let restart = Timestamp::from_unix_millis(1_796_025_660_000).unwrap();
            // `lost` events were dealt while nobody was listening.
            record(&mut store, &frames[cut + lost..], restart);

            let incidents = store.incidents(&IncidentFilter::default()).unwrap();
            assert!(
                incidents.is_empty(),
                "{label}: {:?}",
                incidents
                    .iter()
                    .map(|i| (&i.code, i.seq, &i.message))
                    .collect::<Vec<_>>()
            );
            let replayed = replay::rebuild(&store, "BJ-3").unwrap();
            assert!(
                replayed.divergences.is_empty(),
                "{label}: {:?}",
                replayed.divergences
            );
            assert_eq!(
                replayed.irregularities().count(),
                0,
                "{label}: {:?}",
                replayed.irregularities().collect::<Vec<_>>()
            );
            let table = store.table_id("BJ-3").unwrap().unwrap();
            let live: Vec<String> = store
                .rounds(table)
                .unwrap()
                .into_iter()
                .map(|(_, _, body)| body)
                .collect();
            // The last round is closed by the end of the replay; live it is still in progress.
            let at_end = replayed
                .closing
                .iter()
                .filter(|o| matches!(o, TableOutput::Round(_)))
                .count();
            let replayed_rounds: Vec<String> = replayed
                .rounds()
                .map(|r| serde_json::to_string(r).unwrap())
                .collect();
            let again = &replayed_rounds[..replayed_rounds.len() - at_end];
            let differ = (0..again.len().max(live.len()))
                .find(|&i| again.get(i) != live.get(i))
                .map(|i| (i, again.get(i), live.get(i)));
            assert_eq!(
                differ,
                None,
                "{label}: the same rounds, byte for byte ({} replayed, {} live)",
                again.len(),
                live.len()
            );
            // The round cut off (and the tail joined after the restart, if any of it came before
            // the next "no more bets"): unfinished.
            let unfinished = live
                .iter()
                .filter(|r| r.contains("\"complete\":false"))
                .count();
            assert!(
                (1..=2).contains(&unfinished),
                "{label}: {unfinished} rounds unfinished"
            );
            let shoes = replayed.shoes();
            assert!(shoes[0].partial && !shoes[1].partial, "{label}: {shoes:?}");
        }
    }
}
