//! Reloading the pit definition while the monitor runs, over TCP loopback: a table added, one
//! changed (another device server), one removed, and one untouched throughout whose every byte
//! is recorded once, in one session, while the others stop and start.

use std::io::Write;
use std::net::TcpListener;
use std::sync::Arc;
use std::time::Duration;

use pitwatch_games::GameKind;
use pitwatch_model::EventKind;
use pitwatch_protocols::ProtocolConfig;
use pitwatch_recording::monitor::{LinkState, Monitor, MonitorEvent, MonitoredTable, PIT_RELOAD};
use pitwatch_recording::pit::{LinkConfig, TableConfig};
use pitwatch_recording::recorder::Derived;
use pitwatch_store::{Actor, Sealing, Store};
use pitwatch_transport::{SystemClock, TcpConfig, TransportConfig};

mod common;
use common::{card, wait_for};

/// A barcode table reached at `listener`'s address.
fn table(name: &str, listener: &TcpListener) -> MonitoredTable {
    let address = listener.local_addr().unwrap().to_string();
    let mut link = LinkConfig::new(TransportConfig::Tcp(TcpConfig { address }));
    link.backoff.initial_ms = 50;
    link.backoff.max_ms = 200;
    MonitoredTable {
        config: TableConfig::new(
            name,
            GameKind::Baccarat,
            "nz-baccarat",
            ProtocolConfig::by_name("barcode").unwrap(),
            Some(link.clone()),
        ),
        link,
        more_links: Vec::new(),
    }
}

/// The `n`th card of a run (each of the 52 at most twice in 80).
fn nth_card(n: usize) -> String {
    let ranks = "A23456789TJQK".as_bytes();
    let suits = "SHDC".as_bytes();
    format!("{}{}", ranks[n % 13] as char, suits[(n / 13) % 4] as char)
}

fn is_card_at(e: &MonitorEvent, at: &str) -> bool {
    matches!(e, MonitorEvent::Derived { table, derived: Derived::Event(ev) }
        if table == at && matches!(ev.kind, EventKind::CardDrawn { .. }))
}

fn connected(e: &MonitorEvent, at: &str) -> bool {
    matches!(e, MonitorEvent::Link { table, state: LinkState::Connected, .. } if table == at)
}

#[test]
fn a_reload_stops_and_starts_only_the_tables_it_changes() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("pit.db");
    let sealing = Sealing::key_file(db.with_file_name("signing.key"));
    let keep_l = TcpListener::bind("127.0.0.1:0").unwrap();
    let change_l = TcpListener::bind("127.0.0.1:0").unwrap();
    let gone_l = TcpListener::bind("127.0.0.1:0").unwrap();
    let (mut monitor, events) = Monitor::start(
        Store::open(&db, &sealing).unwrap(),
        vec![
            table("KEEP", &keep_l),
            table("CHANGE", &change_l),
            table("GONE", &gone_l),
        ],
        Arc::new(SystemClock),
    )
    .unwrap();
    let (mut keep, _) = keep_l.accept().unwrap();
    let (_change, _) = change_l.accept().unwrap();
    let (_gone, _) = gone_l.accept().unwrap();
    let mut up = 0;
    wait_for(&events, "three links", |e| {
        up += usize::from(matches!(
            e,
            MonitorEvent::Link {
                state: LinkState::Connected,
                ..
            }
        ));
        up == 3
    });

    // The untouched table deals before, during and after the reload.
    let mut sent = pitwatch_barcode::encode_shuffle_card();
    for n in 0..20 {
        sent.extend(card(&nth_card(n)));
    }
    keep.write_all(&sent).unwrap();
    let mut cards = 0;
    wait_for(&events, "KEEP's first 20 cards", |e| {
        cards += usize::from(is_card_at(e, "KEEP"));
        cards == 20
    });
    let dealer = std::thread::spawn(move || {
        let mut more = Vec::new();
        for n in 20..80 {
            let bytes = card(&nth_card(n));
            keep.write_all(&bytes).unwrap();
            more.extend(bytes);
            std::thread::sleep(Duration::from_millis(5));
        }
        (keep, more)
    });

    let change_l2 = TcpListener::bind("127.0.0.1:0").unwrap();
    let added_l = TcpListener::bind("127.0.0.1:0").unwrap();
    monitor
        .reload(
            Actor::at("ana", "pit-ws-3"),
            &[("added", "ADDED".to_owned())],
            &["CHANGE".to_owned(), "GONE".to_owned()],
            vec![table("CHANGE", &change_l2), table("ADDED", &added_l)],
        )
        .unwrap();
    let (_change2, _) = change_l2.accept().unwrap();
    let (mut added, _) = added_l.accept().unwrap();
    // KEEP's cards keep coming while the others stop and start: each counted as it is seen.
    let mut keep_cards = cards;
    let mut added_up = false;
    wait_for(&events, "ADDED's link", |e| {
        keep_cards += usize::from(is_card_at(e, "KEEP"));
        added_up |= connected(e, "ADDED");
        added_up
    });
    let mut shoe = pitwatch_barcode::encode_shuffle_card();
    shoe.extend(card("9H"));
    added.write_all(&shoe).unwrap();
    let (keep, more) = dealer.join().unwrap();
    sent.extend(more);
    let mut added_cards = 0;
    wait_for(&events, "every card of KEEP and ADDED's", |e| {
        keep_cards += usize::from(is_card_at(e, "KEEP"));
        added_cards += usize::from(is_card_at(e, "ADDED"));
        keep_cards >= 80 && added_cards >= 1
    });
    assert_eq!(keep_cards, 80, "each of KEEP's cards shown once");

    // While it runs: the leases are those of the tables running.
    {
        let store = Store::open(&db, &sealing).unwrap();
        let mut leased: Vec<String> = store
            .leases()
            .unwrap()
            .into_iter()
            .map(|l| l.table)
            .collect();
        leased.sort();
        assert_eq!(leased, ["ADDED", "CHANGE", "KEEP"]);
    }
    // Reloading a table that runs already is refused, changing nothing.
    assert!(monitor
        .reload("ana", &[], &[], vec![table("KEEP", &keep_l)])
        .unwrap_err()
        .contains("running already"));
    drop(keep);
    monitor.stop().unwrap();

    let store = Store::open(&db, &sealing).unwrap();
    let report = store.verify().unwrap();
    assert!(report.intact(), "{:?}", report.first_problem);
    let id = |name: &str| store.table_id(name).unwrap().unwrap();
    // KEEP: one session, every byte in it exactly once and in order, 80 cards.
    let sessions = store.sessions(id("KEEP")).unwrap();
    assert_eq!(sessions.len(), 1, "{sessions:#?}");
    let recorded: Vec<u8> = store
        .chunks(sessions[0].id)
        .unwrap()
        .into_iter()
        .flat_map(|(_, b)| b)
        .collect();
    assert_eq!(recorded, sent);
    let drawn = store
        .events(id("KEEP"))
        .unwrap()
        .iter()
        .filter(|e| matches!(e.kind, EventKind::CardDrawn { .. }))
        .count();
    assert_eq!(drawn, 80);
    // CHANGE: its first session ended at the reload, its second at the stop.
    let change = store.sessions(id("CHANGE")).unwrap();
    assert_eq!(change.len(), 2, "{change:#?}");
    assert!(change.iter().all(|s| s.ended_at.is_some()));
    // GONE: ended once, at the reload.
    let gone = store.sessions(id("GONE")).unwrap();
    assert_eq!(gone.len(), 1);
    assert!(gone[0].ended_at.is_some());
    // Each reload audited with who, where, what it changed and its result.
    let audits = store.audit_entries(PIT_RELOAD).unwrap();
    assert_eq!(audits.len(), 2, "{audits:#?}");
    assert_eq!(audits[0].user, "ana");
    assert!(
        audits[0].detail.contains("pit-ws-3"),
        "{:?}",
        audits[0].detail
    );
    assert!(
        audits[0].detail.contains("\"added\":\"ADDED\""),
        "{:?}",
        audits[0].detail
    );
    assert!(
        audits[0].detail.contains("applied"),
        "{:?}",
        audits[0].detail
    );
    assert!(
        audits[1].detail.contains("running already"),
        "{:?}",
        audits[1].detail
    );
    // ADDED: its shoe's card on record.
    assert!(store
        .events(id("ADDED"))
        .unwrap()
        .iter()
        .any(|e| matches!(e.kind, EventKind::CardDrawn { .. })));
}
