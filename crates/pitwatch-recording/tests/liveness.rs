//! Device liveness end to end over real TCP links on loopback: a shoe that goes silent with a
//! shoe in play, is killed and restarted, and a device that never connects. Each is an alarm
//! raised by the writer's timer (no device event needed), an incident in the record, and, when
//! the device is back, an audit row with how long it was gone; replay of the record gives the
//! same alarms as live.

use std::io::Write;
use std::net::TcpListener;
use std::sync::Arc;
use std::time::Duration;

use pitwatch_recording::liveness::{AlarmKind, Change, DEVICE_BACK, DEVICE_OFFLINE, DEVICE_SILENT};
use pitwatch_recording::monitor::{LinkState, Monitor, MonitorEvent, MonitoredTable};
use pitwatch_recording::pit::PitConfig;
use pitwatch_recording::recorder::Derived;
use pitwatch_store::{IncidentFilter, Sealing, Store};

mod common;
use common::{card, wait_for};

fn liveness_of(event: &MonitorEvent, name: &str) -> Option<Change> {
    match event {
        MonitorEvent::Derived {
            table,
            derived: Derived::Liveness { change, .. },
        } if table == name => Some(*change),
        _ => None,
    }
}

#[test]
fn a_silent_a_killed_and_a_never_connected_device_are_alarms_cleared_with_their_durations() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("pit.db");
    let sealing = Sealing::key_file(db.with_file_name("signing.key"));
    let shoe = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = shoe.local_addr().unwrap();
    // A port nobody listens on.
    let dead = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let pit = PitConfig::from_toml(&format!(
        r#"
        [site]
        name = "Liveness"
        [[table]]
        name = "LIVE-1"
        game = "baccarat"
        rules = "nz-baccarat"
        device = {{ protocol = "barcode" }}
        link = {{ kind = "tcp", address = "{address}", backoff = {{ initial_ms = 50, max_ms = 100 }} }}
        liveness = {{ offline_s = 0.4, silent_s = 1.0 }}
        [[table]]
        name = "DEAD-1"
        game = "baccarat"
        rules = "nz-baccarat"
        [[table.device]]
        protocol = "barcode"
        link = {{ kind = "tcp", address = "{dead}", backoff = {{ initial_ms = 50, max_ms = 100 }} }}
        liveness = {{ offline_s = 0.3 }}
        "#
    ))
    .unwrap();
    let live = pit.tables[0].clone();
    let started = pitwatch_transport::Clock::now(&pitwatch_transport::SystemClock);
    let (monitor, events) = Monitor::start(
        Store::open(&db, &sealing).unwrap(),
        pit.tables
            .iter()
            .cloned()
            .map(|t| MonitoredTable::from_config(t).unwrap())
            .collect(),
        Arc::new(pitwatch_transport::SystemClock),
    )
    .unwrap();
    let mut seen = Vec::new();
    let (mut device, _) = shoe.accept().unwrap();
    seen.extend(wait_for(&events, "the shoe connected", |e| {
        matches!(e, MonitorEvent::Link { table, state: LinkState::Connected, .. } if table == "LIVE-1")
    }));
    // The device that never connects: raised by the timer alone.
    seen.extend(wait_for(&events, "DEAD-1 never connected", |e| {
        matches!(
            liveness_of(e, "DEAD-1"),
            Some(Change::Raised(a)) if a.kind == AlarmKind::NeverConnected
        )
    }));

    // A shoe in play (shuffled, the first card out), then nothing for longer than silent_s.
    let mut bytes = pitwatch_barcode::encode_shuffle_card();
    bytes.extend(card("3H"));
    device.write_all(&bytes).unwrap();
    seen.extend(wait_for(&events, "silent", |e| {
        matches!(liveness_of(e, "LIVE-1"), Some(Change::Raised(a)) if a.kind == AlarmKind::Silent)
    }));
    device.write_all(&card("KD")).unwrap();
    seen.extend(wait_for(&events, "silent cleared", |e| {
        matches!(liveness_of(e, "LIVE-1"), Some(Change::Cleared { alarm, .. }) if alarm.kind == AlarmKind::Silent)
    }));

    // The device is killed (its server gone too, so reconnecting fails) and comes back.
    drop(device);
    drop(shoe);
    seen.extend(wait_for(&events, "offline", |e| {
        matches!(liveness_of(e, "LIVE-1"), Some(Change::Raised(a)) if a.kind == AlarmKind::Offline)
    }));
    std::thread::sleep(Duration::from_millis(300));
    let shoe = TcpListener::bind(address).unwrap();
    let (mut device, _) = shoe.accept().unwrap();
    seen.extend(wait_for(&events, "offline cleared", |e| {
        matches!(liveness_of(e, "LIVE-1"), Some(Change::Cleared { alarm, .. }) if alarm.kind == AlarmKind::Offline)
    }));
    device.write_all(&card("7S")).unwrap();
    seen.extend(wait_for(&events, "the card after the restart", |e| {
        matches!(e, MonitorEvent::Derived { table, derived: Derived::Event(_) } if table == "LIVE-1")
    }));
    let until = pitwatch_transport::Clock::now(&pitwatch_transport::SystemClock);
    monitor.stop().unwrap();
    seen.extend(events.try_iter());

    let changes: Vec<Change> = seen
        .iter()
        .filter_map(|e| liveness_of(e, "LIVE-1"))
        .collect();
    assert_eq!(changes.len(), 4, "{changes:#?}");
    let Change::Cleared {
        alarm,
        at,
        duration_ms,
    } = changes[3]
    else {
        panic!("{changes:#?}")
    };
    assert_eq!(alarm.kind, AlarmKind::Offline);
    assert_eq!(alarm.threshold_ms, 400);
    assert_eq!(alarm.raised.unix_millis() - alarm.since.unix_millis(), 400);
    assert_eq!(
        duration_ms as i64,
        at.unix_millis() - alarm.since.unix_millis()
    );
    assert!(
        duration_ms >= 700,
        "down at least 400 ms + 300 ms: {duration_ms}"
    );

    let store = Store::open(&db, &sealing).unwrap();
    assert!(store.verify().unwrap().intact());
    let incidents = |table: &str, code: &str| {
        store
            .incidents(&IncidentFilter {
                table: Some(table.into()),
                code: Some(code.into()),
                ..IncidentFilter::default()
            })
            .unwrap()
    };
    let offline = incidents("LIVE-1", DEVICE_OFFLINE);
    assert_eq!(offline.len(), 1, "{offline:#?}");
    assert!(
        offline[0].message.contains("has been offline since")
            && offline[0]
                .message
                .contains("(disconnected and not back within 0.4 s)"),
        "{}",
        offline[0].message
    );
    assert_eq!(offline[0].severity, "high");
    let silent = incidents("LIVE-1", DEVICE_SILENT);
    assert_eq!(silent.len(), 1, "{silent:#?}");
    assert!(
        silent[0].message.contains("with a shoe in play"),
        "{}",
        silent[0].message
    );
    let never = incidents("DEAD-1", DEVICE_OFFLINE);
    assert_eq!(never.len(), 1);
    assert!(never[0]
        .message
        .contains("has never connected since the monitor started"));
    // The duration is on record, on the incident.
    let back = store
        .audit_details(DEVICE_BACK, &format!("incident {}", offline[0].id.0))
        .unwrap();
    assert_eq!(back.len(), 1, "{back:?}");
    assert!(
        back[0].starts_with(&format!(
            "{duration_ms} ms, back at {at}: the device (barcode on"
        )),
        "{back:?}"
    );
    let (ms, when, words) = pitwatch_recording::recorder::parse_back(&back[0]).unwrap();
    assert_eq!((ms, when), (duration_ms, at));
    assert!(
        words.contains("is back after") && words.contains("(offline since"),
        "{words}"
    );

    // Replay of the record raises and clears the same alarms, dated the same.
    let replayed: Vec<Change> =
        pitwatch_recording::replay::liveness::liveness(&store, &live, started, until)
            .unwrap()
            .into_iter()
            .map(|(_, c)| c)
            .collect();
    assert_eq!(replayed, changes);
}
