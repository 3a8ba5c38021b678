//! A poker table in the pit, end to end: its shuffler and a dealer console on two real
//! pseudo-terminals through the monitor, the recorder and the poker engine. A short deck raises
//! its incident at its deck check and misdeals the hand dealt from it by (h); a misdeal the
//! console declares is an incident citing its lettered reason; the hands are recorded with their
//! deck and place, replay of the record gives the same hands and verdicts, and the incident's
//! report quotes the rule.

use std::sync::mpsc::Receiver;
use std::sync::Arc;

use pitwatch_games::GameRound;
use pitwatch_model::{MisdealReason, MisdealRuling, PlayerAction, Target};
use pitwatch_proto::{DeckCheck, Message, MessageEncoder};
use pitwatch_recording::monitor::{Monitor, MonitorEvent, MonitoredTable};
use pitwatch_recording::pit::PitConfig;
use pitwatch_recording::recorder::Derived;
use pitwatch_rules::TableOutput;
use pitwatch_store::{IncidentFilter, Sealing, Store};

mod common;
use common::{both_links_up, wait_for};

/// Writes to a pseudo-terminal and waits until the monitor has shown the table's view after
/// `events` more events.
fn feed(
    device: &mut pitwatch_transport::pty::PtyDevice,
    bytes: &[u8],
    events: &Receiver<MonitorEvent>,
    count: usize,
    what: &str,
) -> Vec<MonitorEvent> {
    device.write(bytes).unwrap();
    let mut seen = 0;
    wait_for(events, what, |e| {
        if let MonitorEvent::Derived {
            derived: Derived::Event(_),
            ..
        } = e
        {
            seen += 1;
        }
        seen >= count && matches!(e, MonitorEvent::View { .. })
    })
}

fn check(cards: u32, missing: u32) -> DeckCheck {
    DeckCheck {
        decks: Some(1),
        cards,
        expected: 52,
        missing,
        extra: 0,
        foreign: 0,
        mode: None,
    }
}

fn act(seat: u8, action: PlayerAction) -> Message {
    Message::PlayerActed {
        target: Target::Seat(seat),
        action,
    }
}

#[test]
fn a_poker_table_with_a_shuffler_and_a_console_flags_a_short_deck_and_a_declared_misdeal() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("pit.db");
    let key = || Sealing::key_file(db.with_file_name("signing.key"));
    let mut shuffler = pitwatch_transport::pty::open_pair().unwrap();
    let mut console = pitwatch_transport::pty::open_pair().unwrap();
    let pit = PitConfig::from_toml(&format!(
        r#"
        [site]
        name = "Poker room"
        [[table]]
        name = "POK-7"
        game = "poker"
        rules = "nz-poker"
        [[table.device]]
        role = "shuffler"
        protocol = "pitwatch"
        link = {{ kind = "serial", path = "{}", baud = 9600 }}
        [[table.device]]
        role = "console"
        protocol = "pitwatch"
        link = {{ kind = "serial", path = "{}", baud = 9600 }}
        "#,
        shuffler.path(),
        console.path()
    ))
    .unwrap();
    let (monitor, events) = Monitor::start(
        Store::open(&db, &key()).unwrap(),
        vec![MonitoredTable::from_config(pit.tables[0].clone()).unwrap()],
        Arc::new(pitwatch_transport::SystemClock),
    )
    .unwrap();
    both_links_up(&events);
    let mut to_shuffler = MessageEncoder::new();
    let mut to_console = MessageEncoder::new();
    let mut shown = Vec::new();
    let mut hand = |shown: &mut Vec<MonitorEvent>, deck: DeckCheck, what: &str| {
        shown.extend(feed(
            &mut shuffler,
            &to_shuffler.encode(&Message::ShuffleCompleted(deck)),
            &events,
            1,
            what,
        ));
        let mut lines = Vec::new();
        for message in [
            act(1, PlayerAction::Blind),
            act(2, PlayerAction::Blind),
            act(3, PlayerAction::Call),
            act(1, PlayerAction::Call),
        ] {
            lines.extend(to_console.encode(&message));
        }
        shown.extend(feed(&mut console, &lines, &events, 4, what));
    };
    // Hand 1 from a good deck, hand 2 from a deck the shuffler found a card short of.
    hand(&mut shown, check(52, 0), "hand 1");
    hand(&mut shown, check(51, 1), "hand 2");
    // Hand 3: the supervisor sees a card dealt to an empty seat and declares misdeal (d).
    shown.extend(feed(
        &mut shuffler,
        &to_shuffler.encode(&Message::ShuffleCompleted(check(52, 0))),
        &events,
        1,
        "shuffle 3",
    ));
    shown.extend(feed(
        &mut console,
        &to_console.encode(&Message::Misdeal {
            reason: MisdealReason::D,
            seats: vec![4],
            ruling: MisdealRuling::Misdeal,
        }),
        &events,
        1,
        "misdeal declared",
    ));
    // The next shuffle closes hand 3.
    shown.extend(feed(
        &mut shuffler,
        &to_shuffler.encode(&Message::ShuffleCompleted(check(52, 0))),
        &events,
        1,
        "shuffle 4",
    ));
    monitor.stop().unwrap();

    let live: Vec<(String, u64, String)> = shown
        .iter()
        .filter_map(|e| match e {
            MonitorEvent::Derived {
                derived:
                    Derived::Output {
                        output: TableOutput::Irregularity(i),
                        incident: Some(_),
                    },
                ..
            } => Some((i.code.to_string(), i.seq, i.rule.clone())),
            _ => None,
        })
        .collect();
    let hands: Vec<pitwatch_poker::HandRecord> = shown
        .iter()
        .filter_map(|e| match e {
            MonitorEvent::Derived {
                derived:
                    Derived::Output {
                        output: TableOutput::Round(GameRound::Poker(h)),
                        ..
                    },
                ..
            } => Some((**h).clone()),
            _ => None,
        })
        .collect();

    let store = Store::open(&db, &key()).unwrap();
    assert!(store.verify().unwrap().intact());
    let id = store.table_id("POK-7").unwrap().unwrap();
    let rows = store.event_rows(id).unwrap();
    let shuffles: Vec<u64> = rows
        .iter()
        .filter(|r| matches!(r.event.kind, pitwatch_model::EventKind::Shuffled { .. }))
        .map(|r| r.event.seq)
        .collect();
    assert_eq!(
        shuffles.len(),
        4,
        "every deck check of a shuffler alone is a deck"
    );
    let declared = rows
        .iter()
        .find(|r| {
            matches!(
                r.event.kind,
                pitwatch_model::EventKind::MisdealDeclared { .. }
            )
        })
        .map(|r| r.event.seq)
        .unwrap();

    // The short deck at its check, and the declared misdeal, each once, citing their letters.
    assert_eq!(
        live,
        [
            (
                "SHUFFLE_COUNT_MISMATCH".to_owned(),
                shuffles[1],
                "Misdeal (h)".to_owned()
            ),
            (
                "MISDEAL_DECLARED".to_owned(),
                declared,
                "Misdeal (d)".to_owned()
            ),
        ],
    );
    // Three hands closed live, each the only hand of its deck; the second misdealt by (h), the
    // third by the declaration.
    let summary: Vec<(u32, u32, u32, Option<&str>)> = hands
        .iter()
        .map(|h| (h.hand, h.shoe, h.round, h.misdeal.map(|m| m.as_str())))
        .collect();
    assert_eq!(
        summary,
        [(1, 1, 1, None), (2, 2, 1, Some("h")), (3, 3, 1, Some("d"))]
    );
    assert_eq!(hands[0].seats.len(), 3);
    assert!(hands[0].substantial_action_seq.is_some());

    // The record keeps the hands by deck and place, in the poker engine's own JSON.
    for h in &hands {
        let body = store
            .round(id, h.shoe, h.round)
            .unwrap()
            .expect("the hand is recorded");
        let stored: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert_eq!(
            stored,
            serde_json::to_value(GameRound::Poker(Box::new(h.clone()))).unwrap()
        );
        assert_eq!(stored["game"], "poker");
    }

    // Replay of the record: the same hands and verdicts.
    let replay = pitwatch_recording::replay::rebuild(&store, "POK-7").unwrap();
    assert!(replay.divergences.is_empty(), "{:?}", replay.divergences);
    let replayed: Vec<&GameRound> = replay.rounds().collect();
    assert_eq!(replayed.len(), 3);
    for (r, h) in replayed.iter().zip(&hands) {
        assert_eq!(**r, GameRound::Poker(Box::new(h.clone())));
    }
    let mut recorded: Vec<(String, u64)> = store
        .incidents(&IncidentFilter::default())
        .unwrap()
        .iter()
        .map(|i| (i.code.clone(), i.seq))
        .collect();
    let mut again: Vec<(String, u64)> = replay
        .irregularities()
        .map(|i| (i.code.to_string(), i.seq))
        .collect();
    recorded.sort();
    again.sort();
    assert_eq!(recorded, again);

    // The declared misdeal's report quotes (d) from the book.
    let incident = store
        .incidents(&IncidentFilter::default())
        .unwrap()
        .into_iter()
        .find(|i| i.code == "MISDEAL_DECLARED")
        .unwrap();
    let report =
        pitwatch_recording::report::incident_report(&store, incident.id, "pit.db").unwrap();
    let text = format!("{report:?}");
    assert!(text.contains("Misdeal (d)"), "{text}");
    assert!(
        text.contains("deals a player out or deals an extra hand in"),
        "the report quotes rule (d): {text}"
    );
    // …and shows the hand it was declared in (closed by the next deck's shuffle), with the
    // declaration.
    assert!(text.contains("(d) misdeal, seats 4"), "{text}");
    assert!(text.contains("misdeal (d)"), "{text}");
}
