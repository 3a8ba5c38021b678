//! A table's device as it identifies itself (issue 31): a `HELLO` from another device is
//! `DEVICE_SWAPPED`, from the same device with other firmware `DEVICE_FIRMWARE_CHANGED`, the same
//! USB adapter on another port `DEVICE_REENUMERATED`, another adapter `DEVICE_SWAPPED`; the same
//! device again raises nothing, and what a device said last survives a restart of the recorder.

use pitwatch_codec::DeviceIdentity;
use pitwatch_model::Timestamp;
use pitwatch_protocols::ProtocolConfig;
use pitwatch_recording::recorder::{
    Derived, TableRecorder, DEVICE_FIRMWARE_CHANGED, DEVICE_REENUMERATED, DEVICE_SWAPPED,
};
use pitwatch_store::{IncidentFilter, Sealing, Store};

fn at(s: i64) -> Timestamp {
    Timestamp::from_unix_millis(1_796_025_600_000 + s * 1000).unwrap()
}

fn hello(serial: &str, firmware: &str) -> Vec<u8> {
    let identity = DeviceIdentity {
        role: "shoe".into(),
        make: "Acme".into(),
        model: "Shoe 9".into(),
        serial: serial.into(),
        firmware: firmware.into(),
        protocol_version: 1,
    };
    pitwatch_proto::ProtoEncoder::new().hello(identity)
}

/// A USB adapter's identity as the transport reports it on connect.
fn adapter(serial: &str) -> pitwatch_store::DeviceIdentity {
    pitwatch_store::DeviceIdentity {
        make: "FTDI".into(),
        model: "FT232R USB UART".into(),
        serial: serial.into(),
        ..Default::default()
    }
}

fn recorder(store: &mut Store, now: Timestamp) -> TableRecorder {
    let book = pitwatch_blackjack::Book::builtin("nz-blackjack").unwrap();
    TableRecorder::resume(
        store,
        "BJ-1",
        "blackjack",
        book,
        None,
        Some(ProtocolConfig::by_name("pitwatch").unwrap()),
        now,
    )
    .unwrap()
}

/// One connection of the device: on `port` through `usb`, saying `bytes`; what it derived.
fn session(
    store: &mut Store,
    recorder: &mut TableRecorder,
    port: &str,
    usb: pitwatch_store::DeviceIdentity,
    bytes: &[u8],
    now: Timestamp,
) -> Vec<Derived> {
    recorder.connect(store, port, usb, now).unwrap();
    let mut derived = Vec::new();
    let mut batch = store.batch(now).unwrap();
    recorder
        .ingest(&mut batch, now, bytes, &mut derived)
        .unwrap();
    let ended = recorder.disconnect(&mut batch, now, &mut derived).unwrap();
    batch.commit().unwrap();
    store.end_session(ended.unwrap(), now, "unplugged").unwrap();
    derived
}

fn changes(derived: &[Derived]) -> Vec<(&'static str, String)> {
    derived
        .iter()
        .filter_map(|d| match d {
            Derived::DeviceChanged {
                code,
                message,
                incident,
                ..
            } => {
                assert!(incident.is_some(), "{code} has its incident");
                Some((*code, message.clone()))
            }
            _ => None,
        })
        .collect()
}

/// The incidents opened since `seen` of them were: (code, message), oldest first.
fn opened(store: &Store, seen: &mut usize) -> Vec<(String, String)> {
    let mut all = store.incidents(&IncidentFilter::default()).unwrap();
    all.sort_by_key(|i| i.id);
    let new = all[*seen..]
        .iter()
        .map(|i| (i.code.clone(), i.message.clone()))
        .collect();
    *seen = all.len();
    new
}

#[test]
fn a_device_that_is_not_what_it_was_is_an_incident_and_the_same_one_again_is_not() {
    let dir = tempfile::tempdir().unwrap();
    let sealing = Sealing::key_file(dir.path().join("signing.key"));
    let mut store = Store::open(dir.path().join("pit.db"), &sealing).unwrap();
    let mut rec = recorder(&mut store, at(0));
    let mut seen = 0;
    let usb0 = "/dev/ttyUSB0";

    // The first device seen: nothing to compare with.
    session(
        &mut store,
        &mut rec,
        usb0,
        adapter("A1"),
        &hello("S1", "1.0"),
        at(1),
    );
    assert_eq!(opened(&store, &mut seen), []);
    // The same device, the same adapter, the same port: nothing.
    session(
        &mut store,
        &mut rec,
        usb0,
        adapter("A1"),
        &hello("S1", "1.0"),
        at(2),
    );
    assert_eq!(opened(&store, &mut seen), []);
    // Updated firmware: an incident, and the live pit is told of it with its id.
    let updated = session(
        &mut store,
        &mut rec,
        usb0,
        adapter("A1"),
        &hello("S1", "1.1"),
        at(3),
    );
    let found = opened(&store, &mut seen);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].0, DEVICE_FIRMWARE_CHANGED);
    assert!(
        found[0].1.contains("firmware 1.1") && found[0].1.contains("ran 1.0"),
        "{}",
        found[0].1
    );
    assert_eq!(
        changes(&updated),
        [(DEVICE_FIRMWARE_CHANGED, found[0].1.clone())]
    );
    // The adapter came back as another tty.
    session(
        &mut store,
        &mut rec,
        "/dev/ttyUSB1",
        adapter("A1"),
        &hello("S1", "1.1"),
        at(4),
    );
    let found = opened(&store, &mut seen);
    assert_eq!(
        found.iter().map(|c| c.0.as_str()).collect::<Vec<_>>(),
        [DEVICE_REENUMERATED]
    );
    assert!(
        found[0].1.contains("/dev/ttyUSB1") && found[0].1.contains("/dev/ttyUSB0"),
        "{}",
        found[0].1
    );
    // Another shoe on the same adapter.
    session(
        &mut store,
        &mut rec,
        "/dev/ttyUSB1",
        adapter("A1"),
        &hello("S2", "1.1"),
        at(5),
    );
    let found = opened(&store, &mut seen);
    assert_eq!(
        found.iter().map(|c| c.0.as_str()).collect::<Vec<_>>(),
        [DEVICE_SWAPPED]
    );
    assert!(
        found[0].1.starts_with("Table BJ-1: the device"),
        "{}",
        found[0].1
    );
    assert!(
        found[0].1.contains("serial S2") && found[0].1.contains("serial S1"),
        "{}",
        found[0].1
    );

    // Restarted: the record says what the device and its adapter were.
    drop(rec);
    let mut rec = recorder(&mut store, at(10));
    session(
        &mut store,
        &mut rec,
        "/dev/ttyUSB1",
        adapter("A1"),
        &hello("S2", "1.1"),
        at(11),
    );
    assert_eq!(
        opened(&store, &mut seen),
        [],
        "the same device after a restart"
    );
    session(
        &mut store,
        &mut rec,
        "/dev/ttyUSB1",
        adapter("B7"),
        &hello("S3", "1.1"),
        at(12),
    );
    let found = opened(&store, &mut seen);
    // Another adapter (on connect) and another shoe (its HELLO): both are said.
    assert_eq!(
        found.iter().map(|c| c.0.as_str()).collect::<Vec<_>>(),
        [DEVICE_SWAPPED, DEVICE_SWAPPED]
    );
    assert!(
        found[0]
            .1
            .contains("USB adapter is now FT232R USB UART serial B7"),
        "{}",
        found[0].1
    );
    assert!(found[1].1.contains("serial S3"), "{}", found[1].1);
}

#[test]
fn a_device_that_says_nothing_of_itself_is_never_flagged() {
    let dir = tempfile::tempdir().unwrap();
    let sealing = Sealing::key_file(dir.path().join("signing.key"));
    let mut store = Store::open(dir.path().join("pit.db"), &sealing).unwrap();
    let mut rec = recorder(&mut store, at(0));
    // No USB serial number (a pseudo-terminal, an on-board port) and no HELLO: nothing to compare.
    for (n, port) in ["/dev/pts/3", "/dev/pts/7", "/dev/pts/3"]
        .into_iter()
        .enumerate()
    {
        let derived = session(
            &mut store,
            &mut rec,
            port,
            Default::default(),
            b"",
            at(n as i64),
        );
        assert_eq!(changes(&derived), []);
    }
    assert_eq!(opened(&store, &mut 0), []);
}
