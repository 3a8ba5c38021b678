//! The device health board's figures from a real record (`Store::device_health`, issue 31): the
//! connections that overlap a period, the time connected within it only, the frames and errors
//! received in it, one row per device (identity and port) and table.

use pitwatch_codec::DeviceIdentity;
use pitwatch_model::Timestamp;
use pitwatch_protocols::ProtocolConfig;
use pitwatch_recording::recorder::{Derived, TableRecorder};
use pitwatch_store::{Sealing, Store};

fn at(s: i64) -> Timestamp {
    Timestamp::from_unix_millis(1_796_025_600_000 + s * 1000).unwrap()
}

fn shoe(serial: &str) -> DeviceIdentity {
    DeviceIdentity {
        role: "shoe".into(),
        make: "Acme".into(),
        model: "Shoe 9".into(),
        serial: serial.into(),
        firmware: "1.0".into(),
        protocol_version: 1,
    }
}

fn hello() -> Vec<u8> {
    pitwatch_proto::ProtoEncoder::new().hello(shoe("S1"))
}

/// A card the shoe reports, or reports again (`retransmit=1`).
fn card(card: &str, again: bool) -> pitwatch_model::TableEvent {
    let line =
        serde_json::json!({"event": "card_drawn", "seq": 1, "card": card, "retransmit": again});
    pitwatch_model::TableEvent::from_json(line, None).unwrap()
}

fn adapter(serial: &str) -> pitwatch_store::DeviceIdentity {
    pitwatch_store::DeviceIdentity {
        make: "FTDI".into(),
        model: "FT232R USB UART".into(),
        serial: serial.into(),
        ..Default::default()
    }
}

/// A connection on `port` from `start` to `end` (seconds), saying `bytes` at its start.
fn connection(
    store: &mut Store,
    recorder: &mut TableRecorder,
    port: &str,
    usb: &str,
    bytes: &[u8],
    (start, end): (i64, i64),
) {
    let mut derived: Vec<Derived> = Vec::new();
    recorder
        .connect(store, port, adapter(usb), at(start))
        .unwrap();
    let mut batch = store.batch(at(start)).unwrap();
    recorder
        .ingest(&mut batch, at(start), bytes, &mut derived)
        .unwrap();
    batch.commit().unwrap();
    let mut batch = store.batch(at(end)).unwrap();
    let ended = recorder
        .disconnect(&mut batch, at(end), &mut derived)
        .unwrap();
    batch.commit().unwrap();
    store
        .end_session(ended.unwrap(), at(end), "unplugged")
        .unwrap();
}

/// A record in `dir` with one Blackjack table, BJ-1, read over the Pitwatch protocol.
fn blackjack_table(dir: &std::path::Path, sealing: &Sealing) -> (Store, TableRecorder) {
    let mut store = Store::open(dir.join("pit.db"), sealing).unwrap();
    let book = pitwatch_blackjack::Book::builtin("nz-blackjack").unwrap();
    let rec = TableRecorder::resume(
        &mut store,
        "BJ-1",
        "blackjack",
        book,
        None,
        Some(ProtocolConfig::by_name("pitwatch").unwrap()),
        at(0),
    )
    .unwrap();
    (store, rec)
}

#[test]
fn a_period_counts_only_what_overlaps_it() {
    let dir = tempfile::tempdir().unwrap();
    let sealing = Sealing::key_file(dir.path().join("signing.key"));
    let (mut store, mut rec) = blackjack_table(dir.path(), &sealing);
    let garbage = b"not a frame at all\n".to_vec();
    connection(
        &mut store,
        &mut rec,
        "/dev/ttyUSB0",
        "A1",
        &hello(),
        (0, 10),
    );
    connection(
        &mut store,
        &mut rec,
        "/dev/ttyUSB0",
        "A1",
        &[hello(), garbage].concat(),
        (20, 30),
    );
    connection(
        &mut store,
        &mut rec,
        "/dev/ttyUSB3",
        "B7",
        &hello(),
        (40, 50),
    );

    // 5 s to 25 s: both connections of the first adapter, 5 s of each; the frames of the
    // second only (the first's came at 0 s).
    let rows = store.device_health(at(5), at(25)).unwrap();
    assert_eq!(rows.len(), 1, "{rows:?}");
    let row = &rows[0];
    assert_eq!(
        (row.table.as_str(), row.port.as_str()),
        ("BJ-1", "/dev/ttyUSB0")
    );
    assert_eq!((row.sessions, row.connected_ms), (2, 10_000));
    assert_eq!(row.serial, "A1");
    assert_eq!(
        (row.frames_accepted, row.frames_rejected),
        (1, 1),
        "{row:?}"
    );
    assert_eq!(row.last_end_ms, Some(at(30).unix_millis()));

    // The whole time: the other adapter on another port is a row of its own.
    let rows = store.device_health(at(0), at(60)).unwrap();
    let ports: Vec<(&str, u32, i64)> = rows
        .iter()
        .map(|r| (r.port.as_str(), r.sessions, r.connected_ms))
        .collect();
    assert_eq!(
        ports,
        [("/dev/ttyUSB0", 2, 20_000), ("/dev/ttyUSB3", 1, 10_000)]
    );
    // Before and after: nothing.
    assert!(store.device_health(at(-60), at(-1)).unwrap().is_empty());
    assert!(store.device_health(at(51), at(90)).unwrap().is_empty());
}

#[test]
fn a_device_is_named_by_its_own_hello_and_its_cards_sent_again_are_counted() {
    use pitwatch_codec::Encoder;
    let dir = tempfile::tempdir().unwrap();
    let sealing = Sealing::key_file(dir.path().join("signing.key"));
    let (mut store, mut rec) = blackjack_table(dir.path(), &sealing);
    // Shoe S1: a card, the same card sent again (refused: it was taken), a card sent again
    // whose first report was lost (taken), then a second HELLO in the same connection.
    let mut lines = pitwatch_proto::ProtoEncoder::new();
    let mut bytes = lines.hello(shoe("S1"));
    for (c, again) in [("8H", false), ("8H", true), ("9S", true), ("2C", false)] {
        bytes.extend(lines.encode(&card(c, again)).unwrap());
    }
    bytes.extend(lines.hello(shoe("S1")));
    connection(&mut store, &mut rec, "/dev/ttyUSB0", "A1", &bytes, (0, 10));
    // Another shoe behind the same USB adapter, on the same port; then a device saying nothing.
    let s2 = pitwatch_proto::ProtoEncoder::new().hello(shoe("S2"));
    connection(&mut store, &mut rec, "/dev/ttyUSB0", "A1", &s2, (20, 30));
    connection(&mut store, &mut rec, "/dev/ttyUSB0", "A1", b"", (40, 50));

    let rows = store.device_health(at(0), at(60)).unwrap();
    let said: Vec<(Option<&str>, &str, u32, u64, u64)> = rows
        .iter()
        .map(|r| {
            (
                r.reported.as_ref().map(|h| h.serial.as_str()),
                r.serial.as_str(),
                r.sessions,
                r.retransmissions,
                r.frames_rejected,
            )
        })
        .collect();
    assert_eq!(
        said,
        [
            (Some("S1"), "A1", 1, 2, 1),
            (Some("S2"), "A1", 1, 0, 0),
            (None, "A1", 1, 0, 0)
        ],
        "{rows:?}"
    );
    let first = rows[0].reported.clone().unwrap();
    assert_eq!(
        (
            first.make.as_str(),
            first.model.as_str(),
            first.firmware.as_str()
        ),
        ("Acme", "Shoe 9", "1.0")
    );
    assert_eq!(rows[0].frames_accepted, 5, "{:?}", rows[0]);
    // A period holding only the second connection counts nothing of the first.
    let rows = store.device_health(at(15), at(35)).unwrap();
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0].reported.as_ref().unwrap().serial, "S2");
    // The record still verifies with the session's fact in it.
    drop(store);
    let store = Store::open(dir.path().join("pit.db"), &sealing).unwrap();
    assert!(store.verify().unwrap().intact(), "the record verifies");
}
