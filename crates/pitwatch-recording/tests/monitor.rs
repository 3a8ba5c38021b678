//! Live monitoring end to end over a real TCP link on loopback (a serial-to-Ethernet device
//! server's stand-in): bytes recorded before anything is shown, irregularities opened as
//! incidents, reconnects recorded as sessions, and everything intact after an orderly stop.

use std::io::Write;
use std::net::TcpListener;
use std::sync::Arc;

use pitwatch_games::GameKind;
use pitwatch_model::{EventKind, ExposedDuring};
use pitwatch_protocols::ProtocolConfig;
use pitwatch_recording::monitor::{LinkState, Monitor, MonitorEvent, MonitoredTable};
use pitwatch_recording::pit::{LinkConfig, TableConfig};
use pitwatch_recording::recorder::Derived;
use pitwatch_rules::TableOutput as Output;
use pitwatch_store::{IncidentFilter, Sealing, Store};
use pitwatch_transport::{SystemClock, TcpConfig, TransportConfig};

mod common;
use common::{card, wait_for};

#[test]
fn a_table_is_recorded_live_across_a_reconnect() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("pit.db");
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap().to_string();
    let mut link = LinkConfig::new(TransportConfig::Tcp(TcpConfig { address }));
    link.backoff.initial_ms = 50;
    link.backoff.max_ms = 200;
    let table = MonitoredTable {
        config: TableConfig::new(
            "MINI-1",
            GameKind::Baccarat,
            "nz-baccarat",
            ProtocolConfig::by_name("barcode").unwrap(),
            Some(link.clone()),
        ),
        link,
        more_links: Vec::new(),
    };
    let (monitor, events) = Monitor::start(
        Store::open(&db, &Sealing::key_file(db.with_file_name("signing.key"))).unwrap(),
        vec![table],
        Arc::new(SystemClock),
    )
    .unwrap();

    let (mut device, _) = listener.accept().unwrap();
    wait_for(&events, "the link", |e| {
        matches!(
            e,
            MonitorEvent::Link {
                state: LinkState::Connected,
                ..
            }
        )
    });
    // A new shoe: the shuffle card, the first card (a 3) and three burn cards.
    let mut bytes = pitwatch_barcode::encode_shuffle_card();
    for c in ["3H", "KD", "7S", "2C"] {
        bytes.extend(card(c));
    }
    // Nine aces of spades between other cards: an eight-deck shoe holds only eight.
    for _ in 0..9 {
        bytes.extend(card("AS"));
        bytes.extend(card("2D"));
    }
    device.write_all(&bytes).unwrap();
    let seen = wait_for(
        &events,
        "EXCESS_CARD",
        |e| matches!(e, MonitorEvent::Derived { derived: Derived::Output { output: Output::Irregularity(i), incident: Some(_) }, .. } if i.code.to_string() == "EXCESS_CARD"),
    );
    let rounds = seen
        .iter()
        .filter(|e| {
            matches!(
                e,
                MonitorEvent::Derived {
                    derived: Derived::Output {
                        output: Output::Round(_),
                        ..
                    },
                    ..
                }
            )
        })
        .count();
    assert!(
        rounds >= 2,
        "rounds were recorded and shown before the excess card: {rounds}"
    );

    // The device server drops the connection; the monitor reconnects and carries on.
    drop(device);
    wait_for(&events, "the disconnection", |e| {
        matches!(
            e,
            MonitorEvent::Link {
                state: LinkState::Disconnected,
                ..
            }
        )
    });
    let (mut device, _) = listener.accept().unwrap();
    wait_for(&events, "the reconnection", |e| {
        matches!(
            e,
            MonitorEvent::Link {
                state: LinkState::Connected,
                ..
            }
        )
    });
    device.write_all(&card("9H")).unwrap();
    wait_for(
        &events,
        "the card after reconnecting",
        |e| matches!(e, MonitorEvent::Derived { derived: Derived::Event(ev), .. } if matches!(ev.kind, EventKind::CardDrawn { card: Some(c), .. } if c.to_string() == "9H")),
    );

    // A supervisor records what no device sees.
    let seq = monitor
        .console(
            "MINI-1",
            EventKind::CardExposed {
                card: None,
                during: ExposedDuring::Dealing,
            },
            pitwatch_store::Actor::at("ana", "pit-ws-3"),
        )
        .unwrap();
    assert!(monitor
        .console("NOPE", EventKind::BetsClosed, "ana")
        .is_err());
    monitor.stop().unwrap();

    let store = Store::open(&db, &Sealing::key_file(db.with_file_name("signing.key"))).unwrap();
    let report = store.verify().unwrap();
    assert!(report.intact(), "{:?}", report.first_problem);
    let table = store.table_id("MINI-1").unwrap().unwrap();
    let sessions = store.sessions(table).unwrap();
    assert_eq!(sessions.len(), 2, "one session per connection");
    assert!(
        sessions.iter().all(|s| s.ended_at.is_some()),
        "both sessions ended on record"
    );
    let events = store.event_rows(table).unwrap();
    assert_eq!(events.len(), 1 + 4 + 18 + 1 + 1);
    let seqs: Vec<u64> = events.iter().map(|e| e.event.seq).collect();
    assert_eq!(
        seqs,
        (1..=25).collect::<Vec<_>>(),
        "one gapless stream across sessions and the console"
    );
    assert_eq!(events.last().unwrap().event.seq, seq);
    assert!(
        events.last().unwrap().frame.is_none(),
        "console events have no frame"
    );
    // Who entered it, and where, is on the event and in the audit log.
    let entered = &events.last().unwrap().event.extra;
    assert_eq!(entered["entered_by"], "ana");
    assert_eq!(entered["workstation"], "pit-ws-3");
    let audit = store.audit_entries("console.event").unwrap();
    assert_eq!(audit.len(), 1);
    assert_eq!(audit[0].user, "ana");
    let detail: serde_json::Value = serde_json::from_str(&audit[0].detail).unwrap();
    assert_eq!(detail["workstation"], "pit-ws-3");
    let incidents = store.incidents(&IncidentFilter::default()).unwrap();
    assert!(
        incidents.iter().any(|i| i.code == "EXCESS_CARD"),
        "{incidents:?}"
    );
}
