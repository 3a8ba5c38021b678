//! Clock truth end to end with a faked clock: a monitor whose host clock is synchronised, then
//! loses synchronisation, then has it back. Each state is sampled on record as a chained fact
//! (the record verifies), the alert is published when it is lost and cleared when it is back,
//! and the report of an incident raised while it was lost says the clock was not synchronised.

use std::io::Write;
use std::net::TcpListener;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use pitwatch_games::GameKind;
use pitwatch_model::Timestamp;
use pitwatch_protocols::ProtocolConfig;
use pitwatch_recording::clock::{ClockReading, ClockSample, ClockSource, HostClock};
use pitwatch_recording::monitor::MonitoredTable;
use pitwatch_recording::monitor::{LinkState, Monitor, MonitorEvent, MonitorOptions};
use pitwatch_recording::pit::{LinkConfig, TableConfig};
use pitwatch_recording::recorder::Derived;
use pitwatch_report::Block;
use pitwatch_rules::TableOutput as Output;
use pitwatch_store::{Sealing, Store};
use pitwatch_transport::{Clock, TcpConfig, TransportConfig};

mod common;
use common::{card, wait_for};

/// The host clock's time, set by the test.
struct Manual(AtomicI64);

impl Clock for Manual {
    fn now(&self) -> Timestamp {
        Timestamp::from_unix_millis(self.0.load(Ordering::SeqCst)).unwrap()
    }
}

/// The host clock's synchronisation state, set by the test.
struct Fake(Mutex<ClockReading>);

impl ClockSource for Fake {
    fn read(&self) -> ClockReading {
        self.0.lock().unwrap().clone()
    }
}

fn reading(synchronised: bool) -> ClockReading {
    ClockReading {
        synchronised,
        est_error_us: 12_000,
        max_error_us: 40_000,
        offset_us: -300,
        source: "fake".into(),
        unreadable: None,
    }
}

/// 2026-11-30 02:14:05 UTC.
const T0: i64 = 1_796_004_845_000;

fn clock_state(e: &MonitorEvent) -> Option<&pitwatch_recording::clock::ClockState> {
    match e {
        MonitorEvent::Clock(state) => Some(state),
        _ => None,
    }
}

#[test]
fn a_lost_synchronisation_is_on_record_alerted_cleared_and_on_the_incident_report() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("pit.db");
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap().to_string();
    let mut link = LinkConfig::new(TransportConfig::Tcp(TcpConfig { address }));
    link.backoff.initial_ms = 50;
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
    let time = Arc::new(Manual(AtomicI64::new(T0)));
    let fake = Arc::new(Fake(Mutex::new(reading(true))));
    let options = MonitorOptions {
        host_clock: HostClock(fake.clone()),
        clock_check_every: Duration::ZERO,
        ..MonitorOptions::default()
    };
    let sealing = Sealing::key_file(db.with_file_name("signing.key"));
    let (monitor, events) = Monitor::start_with(
        Store::open(&db, &sealing).unwrap(),
        vec![table],
        time.clone(),
        options,
    )
    .unwrap();

    // At start: sampled, synchronised, no alert (before or after the link comes up).
    let (mut device, _) = listener.accept().unwrap();
    let (mut start, mut linked) = (None, false);
    wait_for(&events, "the clock at start and the link", |e| {
        start = start.take().or_else(|| clock_state(e).cloned());
        linked |= matches!(
            e,
            MonitorEvent::Link {
                state: LinkState::Connected,
                ..
            }
        );
        start.is_some() && linked
    });
    let start = start.unwrap();
    assert_eq!(start.alert, None);
    assert!(start.sample.reading.synchronised);
    assert_eq!(start.sample.at.unix_millis(), T0);

    // Synchronisation lost: sampled at once, and the alert raised.
    time.0.store(T0 + 30_000, Ordering::SeqCst);
    *fake.0.lock().unwrap() = reading(false);
    let seen = wait_for(&events, "the clock lost", |e| clock_state(e).is_some());
    let lost = clock_state(seen.last().unwrap()).unwrap();
    assert!(lost
        .alert
        .as_deref()
        .is_some_and(|a| a.contains("not synchronised")));
    assert_eq!(lost.sample.at.unix_millis(), T0 + 30_000);

    // An incident while it is lost: nine aces of spades in an eight-deck shoe.
    time.0.store(T0 + 35_000, Ordering::SeqCst);
    let mut bytes = pitwatch_barcode::encode_shuffle_card();
    for c in ["3H", "KD", "7S", "2C"] {
        bytes.extend(card(c));
    }
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
    let Some(MonitorEvent::Derived {
        derived: Derived::Output {
            incident: Some(incident),
            ..
        },
        ..
    }) = seen.last()
    else {
        unreachable!("waited for it")
    };
    let incident = *incident;

    // Back: sampled at once, the alert cleared.
    time.0.store(T0 + 60_000, Ordering::SeqCst);
    *fake.0.lock().unwrap() = reading(true);
    let seen = wait_for(&events, "the clock back", |e| clock_state(e).is_some());
    let back = clock_state(seen.last().unwrap()).unwrap();
    assert_eq!(back.alert, None);
    drop(device);
    monitor.stop().unwrap();

    // On record, as chained facts the record verifies.
    let store = Store::open(&db, &sealing).unwrap();
    let report = store.verify().unwrap();
    assert!(report.intact(), "{:?}", report.first_problem);
    let sample_at = |ms: i64| -> ClockSample {
        let (_, json) = store.clock_sample_at(ms).unwrap().expect("a sample");
        serde_json::from_str(&json).unwrap()
    };
    assert!(store.clock_sample_at(T0 - 1).unwrap().is_none());
    assert!(sample_at(T0).reading.synchronised);
    assert!(sample_at(T0 + 29_999).reading.synchronised);
    assert!(!sample_at(T0 + 30_000).reading.synchronised);
    assert!(!sample_at(T0 + 59_999).reading.synchronised);
    assert!(sample_at(T0 + 60_000).reading.synchronised);
    assert_eq!(sample_at(T0).limit_ms, 1_000);

    // The incident's report says what the clock was worth when it was opened.
    let opened: Timestamp = store.incident(incident).unwrap().opened_at.parse().unwrap();
    assert_eq!(opened.unix_millis(), T0 + 35_000);
    let document = pitwatch_recording::report::incident_report(&store, incident, "pit.db").unwrap();
    let clock_line = document
        .blocks
        .iter()
        .find_map(|b| match b {
            Block::Fields { fields } => fields
                .iter()
                .find(|(label, _)| label == "Host clock")
                .map(|(_, value)| value.clone()),
            _ => None,
        })
        .expect("the report has the host clock's line");
    assert_eq!(
        clock_line,
        "NOT synchronised at the time (fake, sampled 2026-11-30 02:14:35 UTC)"
    );
}
