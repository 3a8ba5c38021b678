//! A table with two devices, end to end over two real TCP links on loopback: a barcode shoe and
//! a Pitwatch-protocol dealer console. Each device's bytes are journaled in sessions of its own;
//! the engine sees one stream, in the order the host received it; replay of the record gives the
//! same events and verdicts; a pit definition reads the list form.

use std::io::Write;
use std::net::{TcpListener, TcpStream};
use std::sync::mpsc::Receiver;
use std::sync::Arc;
use std::time::{Duration, Instant};

use pitwatch_api::monitor::{LinkState, Monitor, MonitorEvent, MonitoredTable};
use pitwatch_api::pit::{DeviceRole, PitConfig};
use pitwatch_api::recorder::Derived;
use pitwatch_model::{EventKind, ExposedDuring};
use pitwatch_proto::{Message, MessageEncoder};
use pitwatch_store::{IncidentFilter, Sealing, Store};

fn card(text: &str) -> Vec<u8> {
    pitwatch_barcode::encode_card(text.parse().unwrap())
}

fn wait_for(
    events: &Receiver<MonitorEvent>,
    what: &str,
    mut matches: impl FnMut(&MonitorEvent) -> bool,
) -> Vec<MonitorEvent> {
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut seen = Vec::new();
    while Instant::now() < deadline {
        if let Ok(event) = events.recv_timeout(Duration::from_millis(100)) {
            let hit = matches(&event);
            seen.push(event);
            if hit {
                return seen;
            }
        }
    }
    panic!("timed out waiting for {what}; saw {seen:#?}");
}

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
    // Each device's link is its own (they come up in either order).
    let mut up = [false, false];
    wait_for(&events, "both links", |e| {
        if let MonitorEvent::Link {
            device,
            state: LinkState::Connected,
            ..
        } = e
        {
            up[*device] = true;
        }
        up == [true, true]
    });

    // Sends `bytes` and waits until an event derived from them is shown; returns what was shown.
    let send = |to: &mut TcpStream, bytes: &[u8], events: &Receiver<MonitorEvent>, what: &str| {
        to.write_all(bytes).unwrap();
        // The table's view is published after everything the input derived.
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
    let replay = pitwatch_api::replay::rebuild(&store, "MINI-2").unwrap();
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
    let err = pit(two).unwrap_err().to_string();
    assert!(
        err.contains("a shuffler beside a card-reading shoe is not followed yet"),
        "{err}"
    );
    let ok = pit(&two.replace(
        "protocol = \"angel-eye\"",
        "role = \"console\"\nprotocol = \"pitwatch\"",
    ))
    .expect("a console and a shuffler");
    let table = &ok.tables[0];
    assert_eq!(table.devices[0].role, DeviceRole::Console);
    assert_eq!(table.devices[1].role, DeviceRole::Shuffler);
    assert_eq!(
        table.describe_link(),
        "console: tcp 10.0.0.1:4001; shuffler: tcp 10.0.0.2:4001"
    );
    // The shuffler's role reaches its codec (and its screen): a shuffler's cards are forbidden.
    let encoded = serde_json::to_string(&table.devices[1].protocol).unwrap();
    assert_eq!(encoded, r#"{"protocol":"pitwatch","role":"shuffler"}"#);
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
        "a shuffler beside a card-reading shoe",
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
