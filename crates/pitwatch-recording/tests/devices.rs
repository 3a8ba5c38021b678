//! A table with two devices, end to end over two real TCP links on loopback: a barcode shoe and
//! a Pitwatch-protocol dealer console. Each device's bytes are journaled in sessions of its own;
//! the engine sees one stream, in the order the host received it; replay of the record gives the
//! same events and verdicts; a pit definition reads the list form.

use std::io::Write;
use std::net::{TcpListener, TcpStream};
use std::sync::mpsc::Receiver;
use std::sync::Arc;

use pitwatch_model::{EventKind, ExposedDuring};
use pitwatch_proto::{Message, MessageEncoder};
use pitwatch_recording::monitor::{LinkState, Monitor, MonitorEvent, MonitoredTable};
use pitwatch_recording::pit::{DeviceRole, PitConfig};
use pitwatch_recording::recorder::Derived;
use pitwatch_store::{IncidentFilter, Sealing, Store};

mod common;
use common::{both_links_up, card, wait_for};

#[test]
fn a_shoe_and_a_console_at_one_table_make_one_stream_recorded_apart_and_replayed_alike() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("pit.db");
    let shoe = TcpListener::bind("127.0.0.1:0").unwrap();
    let console = TcpListener::bind("127.0.0.1:0").unwrap();
    let pit = PitConfig::from_toml(&format!(
        r#"
        [site]
        name = "Two devices"
        [[table]]
        name = "MINI-2"
        game = "baccarat"
        rules = "nz-baccarat"
        [[table.device]]
        role = "shoe"
        protocol = "barcode"
        link = {{ kind = "tcp", address = "{}", backoff = {{ initial_ms = 50, max_ms = 200 }} }}
        [[table.device]]
        role = "console"
        protocol = "pitwatch"
        link = {{ kind = "tcp", address = "{}", backoff = {{ initial_ms = 50, max_ms = 200 }} }}
        "#,
        shoe.local_addr().unwrap(),
        console.local_addr().unwrap()
    ))
    .unwrap();
    let table = pit.tables[0].clone();
    assert_eq!(
        table
            .devices
            .iter()
            .map(|d| (d.role, d.protocol.name()))
            .collect::<Vec<_>>(),
        [
            (DeviceRole::Shoe, "barcode"),
            (DeviceRole::Console, "pitwatch")
        ]
    );
    let (monitor, events) = Monitor::start(
        Store::open(&db, &Sealing::key_file(db.with_file_name("signing.key"))).unwrap(),
        vec![MonitoredTable::from_config(table).unwrap()],
        Arc::new(pitwatch_transport::SystemClock),
    )
    .unwrap();
    let (mut shoe, _) = shoe.accept().unwrap();
    let (mut console, _) = console.accept().unwrap();
    both_links_up(&events);

    // Sends `bytes` and waits until what they derived is shown; returns what was shown.
    let send = |to: &mut TcpStream, bytes: &[u8], events: &Receiver<MonitorEvent>, what: &str| {
        to.write_all(bytes).unwrap();
        shown_after(events, what)
    };
    // The shoe: a new shoe, the first card (a 3) and three burn cards, then a round's cards.
    let mut bytes = pitwatch_barcode::encode_shuffle_card();
    for c in ["3H", "KD", "7S", "2C", "4D", "5C", "8H"] {
        bytes.extend(card(c));
    }
    shoe.write_all(&bytes).unwrap();
    wait_for(&events, "the shoe's cards", |e| {
        matches!(e, MonitorEvent::Derived { derived: Derived::Event(ev), .. }
            if matches!(ev.kind, EventKind::CardDrawn { card: Some(c), .. } if c.to_string() == "8H"))
    });
    // The console reports a card exposed; then the shoe deals on.
    let mut console_lines = MessageEncoder::new();
    let exposed = console_lines.encode(&Message::CardExposed {
        card: None,
        during: ExposedDuring::Dealing,
    });
    let error = console_lines.encode(&Message::Error {
        code: "E42".into(),
        text: "sensor dirty".into(),
    });
    send(&mut console, &exposed, &events, "the console's line");
    send(&mut shoe, &card("9S"), &events, "the next card");
    send(&mut console, &error, &events, "the console's error");
    // The console drops; the shoe's link stays up.
    drop(console);
    wait_for(&events, "the console's disconnection", |e| {
        matches!(
            e,
            MonitorEvent::Link {
                device: 1,
                state: LinkState::Disconnected,
                ..
            }
        )
    });
    send(
        &mut shoe,
        &card("TD"),
        &events,
        "a card after the console left",
    );
    monitor.stop().unwrap();

    let store = Store::open(&db, &Sealing::key_file(db.with_file_name("signing.key"))).unwrap();
    let report = store.verify().unwrap();
    assert!(report.intact(), "{:?}", report.first_problem);
    let id = store.table_id("MINI-2").unwrap().unwrap();
    let sessions = store.sessions(id).unwrap();
    let shoe_sessions: Vec<i64> = sessions
        .iter()
        .filter(|s| s.device.protocol == "barcode")
        .map(|s| s.id.0)
        .collect();
    let console_sessions: Vec<i64> = sessions
        .iter()
        .filter(|s| s.device.protocol == "pitwatch")
        .map(|s| s.id.0)
        .collect();
    assert_eq!(shoe_sessions.len(), 1, "the shoe's one connection");
    assert!(
        !console_sessions.is_empty()
            && shoe_sessions.len() + console_sessions.len() == sessions.len(),
        "the console's sessions apart from the shoe's: {sessions:?}"
    );
    let rows = store.event_rows(id).unwrap();
    let seqs: Vec<u64> = rows.iter().map(|r| r.event.seq).collect();
    assert_eq!(
        seqs,
        (1..=rows.len() as u64).collect::<Vec<_>>(),
        "one gapless stream"
    );
    let from: Vec<Option<i64>> = rows.iter().map(|r| r.session.map(|s| s.0)).collect();
    let exposed_at = rows
        .iter()
        .position(|r| matches!(r.event.kind, EventKind::CardExposed { .. }))
        .unwrap();
    let from_console: Vec<usize> = (0..rows.len())
        .filter(|&i| from[i].is_some_and(|s| console_sessions.contains(&s)))
        .collect();
    assert_eq!(
        from_console,
        [exposed_at, exposed_at + 2],
        "the console's two lines"
    );
    assert!(
        from.iter().all(|s| s.is_some()),
        "every event from a session"
    );
    // In the order received: the console's line between the shoe's 8H and 9S.
    assert!(
        matches!(rows[exposed_at - 1].event.kind, EventKind::CardDrawn { card: Some(c), .. } if c.to_string() == "8H")
    );
    assert!(
        matches!(rows[exposed_at + 1].event.kind, EventKind::CardDrawn { card: Some(c), .. } if c.to_string() == "9S")
    );

    // Replay decodes each device's sessions on their own and finds the same stream and verdicts.
    let replay = pitwatch_recording::replay::rebuild(&store, "MINI-2").unwrap();
    assert!(replay.divergences.is_empty(), "{:?}", replay.divergences);
    assert_eq!(replay.steps.len(), rows.len());
    let replayed: Vec<String> = replay
        .irregularities()
        .map(|i| format!("{} {}", i.code, i.seq))
        .collect();
    let recorded: Vec<String> = store
        .incidents(&IncidentFilter::default())
        .unwrap()
        .iter()
        .map(|i| format!("{} {}", i.code, i.seq))
        .collect();
    assert!(
        replayed
            .iter()
            .any(|r| r.starts_with("DEVICE_ERROR") || r.starts_with("CARD_EXPOSED")),
        "{replayed:?}"
    );
    let mut a = replayed.clone();
    let mut b = recorded.clone();
    a.sort();
    b.sort();
    assert_eq!(a, b, "replay raises what was raised live");
}

#[test]
fn the_list_of_devices_is_checked_like_one_device() {
    let pit = |devices: &str| {
        PitConfig::from_toml(&format!(
            "[site]\nname = \"S\"\n[[table]]\nname = \"T1\"\ngame = \"baccarat\"\n\
             rules = \"nz-baccarat\"\n{devices}"
        ))
    };
    let two = "[[table.device]]\nprotocol = \"angel-eye\"\nlink = { kind = \"tcp\", address = \"10.0.0.1:4001\" }\n\
               [[table.device]]\nrole = \"shuffler\"\nprotocol = \"pitwatch\"\nlink = { kind = \"tcp\", address = \"10.0.0.2:4001\" }\n";
    let ok = pit(two).expect("a shoe and a shuffler");
    let table = &ok.tables[0];
    assert_eq!(table.devices[0].role, DeviceRole::Shoe);
    assert_eq!(table.devices[1].role, DeviceRole::Shuffler);
    assert_eq!(
        table.describe_link(),
        "shoe: tcp 10.0.0.1:4001; shuffler: tcp 10.0.0.2:4001"
    );
    // Beside a shoe, the shuffler's shuffles are deck checks held for the shoe loaded next; the
    // settings recorded with its sessions say the protocol revision they are decoded by.
    let encoded = serde_json::to_string(&table.devices[1].protocol).unwrap();
    assert_eq!(
        encoded,
        r#"{"protocol":"pitwatch","role":"shuffler","beside_shoe":true,"revision":4}"#
    );
    let alone = pit(&two.replace(
        "protocol = \"angel-eye\"",
        "role = \"console\"\nprotocol = \"pitwatch\"",
    ))
    .expect("a console and a shuffler");
    let encoded = serde_json::to_string(&alone.tables[0].devices[1].protocol).unwrap();
    assert_eq!(
        encoded, r#"{"protocol":"pitwatch","role":"shuffler","revision":4}"#,
        "no shoe: its shuffles are the shoes"
    );
    // Written back and read again, the same table.
    let text = toml::to_string(&ok).unwrap();
    assert_eq!(PitConfig::from_toml(&text).unwrap(), ok, "{text}");

    let err = pit("[[table.device]]\nprotocol = \"angel-eye\"\n\
                   [[table.device]]\nprotocol = \"barcode\"\nlink = { kind = \"tcp\", address = \"10.0.0.2\" }\n\
                   [[table.device]]\nrole = \"shuffler\"\nprotocol = \"barcode\"\nlink = { kind = \"tcp\", address = \"10.0.0.3:1\" }\n")
        .unwrap_err()
        .to_string();
    for expected in [
        "2 devices are shoes; a table has at most one",
        "device 1 (shoe): no link",
        "device 2 (shoe): link address \"10.0.0.2\" is not host:port",
        "device 3 (shuffler): a shuffler speaks the Pitwatch protocol",
    ] {
        assert!(err.contains(expected), "{expected} in {err}");
    }
    let err = pit("[[table.device]]\nrole = \"dealer\"\nprotocol = \"pitwatch\"\n")
        .unwrap_err()
        .to_string();
    assert!(err.contains("role must be"), "{err}");
    let err = pit("device = []\n").unwrap_err().to_string();
    assert!(err.contains("the list of devices is empty"), "{err}");
    let err = pit("").unwrap_err().to_string();
    assert!(err.contains("no device"), "{err}");
    let err = pit("link = { kind = \"tcp\", address = \"10.0.0.2:1\" }\n[[table.device]]\nprotocol = \"barcode\"\n")
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("each [[table.device]] has its own link"),
        "{err}"
    );
}

/// Waits until an input's events and then the table's view (published after everything the input
/// derived) are shown; returns what was shown.
fn shown_after(events: &Receiver<MonitorEvent>, what: &str) -> Vec<MonitorEvent> {
    let mut derived = false;
    wait_for(events, what, |e| {
        derived |= matches!(
            e,
            MonitorEvent::Derived {
                derived: Derived::Event(_),
                ..
            }
        );
        derived && matches!(e, MonitorEvent::View { .. })
    })
}

/// Writes to a pseudo-terminal and waits until the monitor has shown what it derived.
fn feed(
    device: &mut pitwatch_transport::pty::PtyDevice,
    bytes: &[u8],
    events: &Receiver<MonitorEvent>,
    what: &str,
) -> Vec<MonitorEvent> {
    device.write(bytes).unwrap();
    shown_after(events, what)
}

fn flagged(shown: &[MonitorEvent]) -> Vec<(String, u64)> {
    shown
        .iter()
        .filter_map(|e| match e {
            MonitorEvent::Derived {
                derived:
                    Derived::Output {
                        output: pitwatch_rules::TableOutput::Irregularity(i),
                        incident: Some(_),
                    },
                ..
            } => Some((i.code.to_string(), i.seq)),
            _ => None,
        })
        .collect()
}

#[test]
fn a_shoe_and_its_shuffler_on_two_ptys_a_short_deck_is_flagged_at_its_check_and_its_shoe() {
    use pitwatch_proto::DeckCheck;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("pit.db");
    let mut shoe = pitwatch_transport::pty::open_pair().unwrap();
    let mut shuffler = pitwatch_transport::pty::open_pair().unwrap();
    let pit = PitConfig::from_toml(&format!(
        r#"
        [site]
        name = "Shoe and shuffler"
        [[table]]
        name = "BAC-5"
        game = "baccarat"
        rules = "nz-baccarat"
        [[table.device]]
        protocol = "barcode"
        link = {{ kind = "serial", path = "{}", baud = 9600 }}
        [[table.device]]
        role = "shuffler"
        protocol = "pitwatch"
        link = {{ kind = "serial", path = "{}", baud = 9600 }}
        "#,
        shoe.path(),
        shuffler.path()
    ))
    .unwrap();
    let (monitor, events) = Monitor::start(
        Store::open(&db, &Sealing::key_file(db.with_file_name("signing.key"))).unwrap(),
        vec![MonitoredTable::from_config(pit.tables[0].clone()).unwrap()],
        Arc::new(pitwatch_transport::SystemClock),
    )
    .unwrap();
    both_links_up(&events);
    let mut lines = MessageEncoder::new();
    let check = |cards: u32, missing: u32| DeckCheck {
        decks: Some(8),
        cards,
        expected: 416,
        missing,
        extra: 0,
        foreign: 0,
        mode: None,
    };
    let shoe_bytes = |first: &str| {
        let mut bytes = pitwatch_barcode::encode_shuffle_card();
        // The first card (a 3), three burn cards, then a round's four cards.
        for c in [first, "KD", "7S", "2C", "4D", "5C", "8H", "9S"] {
            bytes.extend(card(c));
        }
        bytes
    };
    let mut shown = Vec::new();
    // Shoe 1 is loaded from a good shuffle; while it is dealt, the shuffler shuffles the next
    // set and finds a card missing; shoe 2 is loaded from it; shoe 3 while the shuffler's next
    // shuffle, started twice (the first start interrupted), never completed.
    shown.extend(feed(
        &mut shuffler,
        &lines.encode(&Message::ShuffleCompleted(check(416, 0))),
        &events,
        "shuffle 1",
    ));
    shown.extend(feed(&mut shoe, &shoe_bytes("3H"), &events, "shoe 1"));
    let clean = flagged(&shown);
    shown.extend(feed(
        &mut shuffler,
        &lines.encode(&Message::ShuffleCompleted(check(415, 1))),
        &events,
        "shuffle 2",
    ));
    shown.extend(feed(&mut shoe, &shoe_bytes("3D"), &events, "shoe 2"));
    let start = |cycle| Message::ShuffleStarted {
        decks: Some(8),
        cycle: Some(cycle),
    };
    let status = Message::Status {
        cycles: 3,
        recognition_errors: Some(0),
        malfunctions: Some(1),
    };
    let restarted = [
        lines.encode(&start(3)),
        lines.encode(&status),
        lines.encode(&start(4)),
    ]
    .concat();
    shown.extend(feed(
        &mut shuffler,
        &restarted,
        &events,
        "a shuffle restarted",
    ));
    shown.extend(feed(&mut shoe, &shoe_bytes("3C"), &events, "shoe 3"));
    monitor.stop().unwrap();
    assert!(clean.is_empty(), "a good shuffle and its shoe: {clean:?}");

    let store = Store::open(&db, &Sealing::key_file(db.with_file_name("signing.key"))).unwrap();
    assert!(store.verify().unwrap().intact());
    let id = store.table_id("BAC-5").unwrap().unwrap();
    let rows = store.event_rows(id).unwrap();
    let seq_of = |pred: &dyn Fn(&EventKind) -> bool, nth: usize| {
        rows.iter()
            .filter(|r| pred(&r.event.kind))
            .nth(nth)
            .map(|r| r.event.seq)
            .unwrap()
    };
    let check_2 = seq_of(&|k| matches!(k, EventKind::DeckChecked { .. }), 1);
    let shoe_2 = seq_of(&|k| matches!(k, EventKind::Shuffled { .. }), 1);
    let shoe_3 = seq_of(&|k| matches!(k, EventKind::Shuffled { .. }), 2);
    let start_2 = seq_of(&|k| matches!(k, EventKind::ShuffleStarted { .. }), 1);
    assert!(rows.iter().any(|r| matches!(
        r.event.kind,
        EventKind::ShufflerCounters {
            cycles: 3,
            malfunctions: Some(1),
            ..
        }
    )));
    let live = flagged(&shown);
    for expected in [
        ("SHUFFLE_COUNT_MISMATCH".to_owned(), check_2),
        ("SHUFFLE_COUNT_MISMATCH".to_owned(), shoe_2),
        ("DEVICE_ERROR".to_owned(), start_2),
        ("NOT_SHUFFLED".to_owned(), shoe_3),
    ] {
        assert!(live.contains(&expected), "{expected:?} in {live:?}");
    }
    // One NOT_SHUFFLED for shoe 3, saying the shuffle it was loaded from was abandoned (the
    // round of shoe 2 its shuffle cut off is flagged at the same event, as before).
    let at_shoe_3: Vec<_> = store
        .incidents(&IncidentFilter::default())
        .unwrap()
        .into_iter()
        .filter(|i| i.seq == shoe_3 && i.code == "NOT_SHUFFLED")
        .collect();
    assert_eq!(at_shoe_3.len(), 1, "{at_shoe_3:#?}");
    assert!(
        at_shoe_3[0].message.contains("never completed"),
        "{}",
        at_shoe_3[0].message
    );
    assert_eq!(at_shoe_3[0].evidence, [start_2, shoe_3]);
    // Three shoes, not five: the shuffler's shuffles start none.
    assert_eq!(
        rows.iter()
            .filter(|r| matches!(r.event.kind, EventKind::Shuffled { .. }))
            .count(),
        3
    );
    // Replay of the record: the same verdicts at the same events.
    let replay = pitwatch_recording::replay::rebuild(&store, "BAC-5").unwrap();
    assert!(replay.divergences.is_empty(), "{:?}", replay.divergences);
    let mut replayed: Vec<(String, u64)> = replay
        .irregularities()
        .map(|i| (i.code.to_string(), i.seq))
        .collect();
    let mut recorded: Vec<(String, u64)> = store
        .incidents(&IncidentFilter::default())
        .unwrap()
        .iter()
        .map(|i| (i.code.clone(), i.seq))
        .collect();
    replayed.sort();
    recorded.sort();
    assert_eq!(replayed, recorded);
    assert!(
        recorded.contains(&("NOT_SHUFFLED".to_owned(), shoe_3)),
        "{recorded:?}"
    );
}
