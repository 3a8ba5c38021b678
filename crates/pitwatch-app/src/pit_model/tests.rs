//! The pit model's folds, tested: what each monitor event does to a tile.

use pitwatch_api::dto::LinkStatus;
use pitwatch_api::dto::TableTile;
use pitwatch_api::games::RoundOutcome;
use pitwatch_api::games::{BaccaratPlay, TablePlay};
use pitwatch_baccarat::RuleBook;
use pitwatch_games::TableEngine;
use pitwatch_model::{Card, EventKind, TableEvent, Target};
use pitwatch_recording::monitor::{LinkState, MonitorEvent};
use pitwatch_recording::pit::{DeviceRole, PitConfig};
use pitwatch_recording::recorder::Derived;
use pitwatch_transport::{Clock, SystemClock};

use crate::pit_model::PitModel;

/// A Baccarat tile's play.
fn bac(tile: &TableTile) -> &BaccaratPlay {
    match &tile.play {
        TablePlay::Baccarat(play) => play,
        _ => panic!("{} is not a Baccarat table", tile.name),
    }
}

fn card(code: &str) -> Card {
    code.parse().expect("a card")
}

/// Feeds `event` to `engine` and the model the way the monitor publishes it: the event, what
/// the engine derived, then the engine's view.
fn feed(model: &mut PitModel, engine: &mut TableEngine, event: TableEvent) {
    let now = SystemClock.now();
    let table = String::from("BAC-1");
    engine.handle_event(&event);
    model.apply(
        &MonitorEvent::Derived {
            table: table.clone(),
            derived: Derived::Event(event),
        },
        now,
    );
    while let Some(output) = engine.poll_output() {
        model.apply(
            &MonitorEvent::Derived {
                table: table.clone(),
                derived: Derived::Output {
                    output,
                    incident: None,
                },
            },
            now,
        );
    }
    let view = engine.view();
    model.apply(&MonitorEvent::View { table, view }, now);
}

fn drawn(seq: u64, code: &str, target: Target) -> TableEvent {
    TableEvent::new(
        seq,
        EventKind::CardDrawn {
            card: Some(card(code)),
            target: Some(target),
            index: None,
            face_up: None,
            retransmit: None,
        },
    )
}

fn shuffled(seq: u64) -> TableEvent {
    TableEvent::new(
        seq,
        EventKind::Shuffled {
            decks: None,
            cards: None,
            shuffler: None,
        },
    )
}

#[test]
fn a_table_tile_shows_the_engines_view_round_by_round() {
    let pit = PitConfig::demo();
    let book = RuleBook::load(&pit.tables[0].rules).expect("the demo rule book");
    let size = book.composition().total_cards();
    let mut engine = TableEngine::new(book.into());
    let mut model = PitModel::new(&pit);
    assert_eq!(model.table("BAC-1").and_then(|t| t.cards_left), None);
    let mut seq = 0;
    let mut next = || {
        seq += 1;
        seq
    };
    feed(&mut model, &mut engine, shuffled(next()));
    // The burn: a five face up, then five cards.
    feed(&mut model, &mut engine, drawn(next(), "5H", Target::First));
    let tile = model.table("BAC-1").expect("BAC-1").clone();
    assert_eq!((tile.shoe, tile.cards_dealt), (1, 1));
    assert!(
        bac(&tile).burn_due && !bac(&tile).burn_done,
        "the burn is not over"
    );
    for _ in 0..5 {
        feed(&mut model, &mut engine, drawn(next(), "2C", Target::Burn));
    }
    feed(&mut model, &mut engine, drawn(next(), "9S", Target::Player));
    feed(&mut model, &mut engine, drawn(next(), "KD", Target::Banker));
    let tile = model.table("BAC-1").expect("BAC-1").clone();
    assert!(bac(&tile).burn_done, "{tile:?}");
    assert_eq!(tile.cards_dealt, 8);
    assert_eq!(tile.cards_left, Some(size - 8));
    assert_eq!(bac(&tile).current.round, 1);
    assert_eq!(bac(&tile).current.player, [Some("9S".to_owned())]);
    assert_eq!(bac(&tile).current.banker, [Some("KD".to_owned())]);

    feed(&mut model, &mut engine, drawn(next(), "TC", Target::Player));
    feed(&mut model, &mut engine, drawn(next(), "2H", Target::Banker));
    let tile = model.table("BAC-1").expect("BAC-1").clone();
    let result = bac(&tile)
        .current
        .result
        .clone()
        .expect("the round completed");
    assert_eq!(result.outcome, Some(RoundOutcome::Player));
    assert_eq!(
        (result.player_total, result.banker_total),
        (Some(9), Some(2))
    );
    assert_eq!(bac(&tile).rounds.len(), 1);

    // The next card starts round 2 with empty hands.
    feed(&mut model, &mut engine, drawn(next(), "AS", Target::Player));
    let tile = model.table("BAC-1").expect("BAC-1").clone();
    assert_eq!(bac(&tile).current.round, 2);
    assert_eq!(bac(&tile).current.player, [Some("AS".to_owned())]);
    assert_eq!(bac(&tile).current.banker, Vec::<Option<String>>::new());

    // A new shoe, as the engine counts it, starts the tile and the roads afresh.
    feed(&mut model, &mut engine, shuffled(next()));
    let tile = model.table("BAC-1").expect("BAC-1");
    assert_eq!(tile.shoe, engine.view().shoe());
    assert_eq!(tile.cards_dealt, 0, "{tile:?}");
    assert!(bac(&tile).rounds.iter().all(|r| r.shoe == tile.shoe));
}

#[test]
fn a_device_error_shows_on_the_tile_until_it_clears_and_events_carry_their_receive_time() {
    let pit = PitConfig::demo();
    let book = RuleBook::load(&pit.tables[0].rules).expect("the demo rule book");
    let mut engine = TableEngine::new(book.into());
    let mut model = PitModel::new(&pit);
    let at = SystemClock.now();
    model.apply(
        &MonitorEvent::Link {
            table: "BAC-1".into(),
            device: 0,
            state: LinkState::Connected,
            detail: "/dev/pts/9".into(),
            at,
        },
        at,
    );
    let error = TableEvent::new(
        1,
        EventKind::DeviceError {
            code: "E7".into(),
            text: "shoe jammed".into(),
        },
    )
    .at(at);
    feed(&mut model, &mut engine, error);
    let tile = model.table("BAC-1").expect("BAC-1");
    assert_eq!(tile.status, LinkStatus::Error);
    assert_eq!(tile.status_detail, "shoe jammed (device error E7)");
    assert_eq!(tile.last_event_at_ms, Some(at.unix_millis()));
    assert_eq!(tile.oldest_unsent_at_ms, Some(at.unix_millis()));
    let sent = model.take_unsent("BAC-1").expect("BAC-1");
    assert_eq!(sent.oldest_unsent_at_ms, Some(at.unix_millis()));
    assert_eq!(
        model.table("BAC-1").map(|t| t.oldest_unsent_at_ms),
        Some(None),
        "once sent, the event is no longer waiting"
    );
    let cleared = TableEvent::new(2, EventKind::DeviceErrorCleared { code: "E7".into() });
    feed(&mut model, &mut engine, cleared);
    let tile = model.table("BAC-1").expect("BAC-1");
    assert_eq!(tile.status, LinkStatus::Connected, "{tile:?}");
    assert_eq!(
        tile.last_event_at_ms,
        Some(at.unix_millis()),
        "an event without a time leaves the last one"
    );
}

#[test]
fn each_device_of_a_table_shows_its_link_and_a_shuffler_its_last_deck_check() {
    let pit = PitConfig::demo();
    let mut model = PitModel::new(&pit);
    let at = SystemClock.now();
    let name = "BAC-3";
    let roles: Vec<DeviceRole> = model
        .table(name)
        .expect("BAC-3")
        .devices
        .iter()
        .map(|d| d.role)
        .collect();
    assert_eq!(roles, [DeviceRole::Shoe, DeviceRole::Shuffler]);
    let link = |device, state| MonitorEvent::Link {
        table: name.into(),
        device,
        state,
        detail: format!("/dev/pts/{device}"),
        at,
    };
    model.apply(&link(0, LinkState::Connected), at);
    model.apply(&link(1, LinkState::Disconnected), at);
    let tile = model.table(name).expect("BAC-3");
    assert_eq!(
        tile.status,
        LinkStatus::Connected,
        "the table's state is its shoe's"
    );
    assert_eq!(tile.devices[0].status, LinkStatus::Connected);
    assert_eq!(tile.devices[1].status, LinkStatus::Reconnecting);
    assert_eq!(tile.devices[1].status_detail, "/dev/pts/1");
    // A shuffle started shows the shuffler shuffling until its check; its counters show.
    for (seq, kind) in [
        (
            2,
            EventKind::ShuffleStarted {
                decks: Some(8),
                cycle: Some(7),
            },
        ),
        (
            3,
            EventKind::ShufflerCounters {
                cycles: 7,
                recognition_errors: None,
                malfunctions: Some(1),
            },
        ),
    ] {
        model.apply(
            &MonitorEvent::Derived {
                table: name.into(),
                derived: Derived::Event(TableEvent::new(seq, kind).at(at)),
            },
            at,
        );
    }
    let shuffler = &model.table(name).expect("BAC-3").devices[1];
    assert!(shuffler.shuffling);
    assert_eq!(
        shuffler.counters.map(|c| (c.cycles, c.malfunctions)),
        Some((7, Some(1)))
    );
    let check = TableEvent::new(
        4,
        EventKind::DeckChecked {
            decks: Some(8),
            cards: 415,
            expected: 416,
            missing: 1,
            extra: 0,
            foreign: 0,
            shuffler: None,
        },
    )
    .at(at);
    model.apply(
        &MonitorEvent::Derived {
            table: name.into(),
            derived: Derived::Event(check),
        },
        at,
    );
    let shown = model.table(name).expect("BAC-3").devices[1]
        .last_check
        .expect("shown");
    assert!(!model.table(name).expect("BAC-3").devices[1].shuffling);
    assert!(!shown.passed);
    assert_eq!((shown.cards, shown.missing, shown.seq), (415, 1, 4));
    assert_eq!(
        model.table(name).expect("BAC-3").devices[0].last_check,
        None
    );
}

#[test]
fn a_tile_stays_in_error_until_every_device_error_is_cleared_even_across_a_reconnect() {
    let pit = PitConfig::demo();
    let book = RuleBook::load(&pit.tables[0].rules).expect("the demo rule book");
    let mut engine = TableEngine::new(book.into());
    let mut model = PitModel::new(&pit);
    let at = SystemClock.now();
    let link = |state| MonitorEvent::Link {
        table: "BAC-1".into(),
        device: 0,
        state,
        detail: "serial /dev/pts/9 9600 8N1".into(),
        at,
    };
    model.apply(&link(LinkState::Connected), at);
    let raise = |seq, code: &str, text: &str| {
        TableEvent::new(
            seq,
            EventKind::DeviceError {
                code: code.into(),
                text: text.into(),
            },
        )
    };
    let clear =
        |seq, code: &str| TableEvent::new(seq, EventKind::DeviceErrorCleared { code: code.into() });
    let tile = |model: &PitModel| model.table("BAC-1").expect("BAC-1").clone();

    feed(&mut model, &mut engine, raise(1, "JAM", "card jam"));
    feed(&mut model, &mut engine, raise(2, "DOOR_OPEN", "door open"));
    let t = tile(&model);
    assert_eq!(t.status, LinkStatus::Error);
    assert_eq!(
        t.status_detail,
        "door open (device error DOOR_OPEN); card jam (device error JAM)"
    );

    // The jam is cleared; the door is still open.
    feed(&mut model, &mut engine, clear(3, "JAM"));
    let t = tile(&model);
    assert_eq!(t.status, LinkStatus::Error, "{t:?}");
    assert_eq!(t.status_detail, "door open (device error DOOR_OPEN)");

    // The link drops and comes back: the lost link shows, then the error still open.
    model.apply(&link(LinkState::Disconnected), at);
    assert_eq!(tile(&model).status, LinkStatus::Reconnecting);
    model.apply(&link(LinkState::Connected), at);
    let t = tile(&model);
    assert_eq!(t.status, LinkStatus::Error, "{t:?}");
    assert_eq!(t.status_detail, "door open (device error DOOR_OPEN)");

    feed(&mut model, &mut engine, clear(4, "DOOR_OPEN"));
    let t = tile(&model);
    assert_eq!(t.status, LinkStatus::Connected, "{t:?}");
    assert_eq!(t.status_detail, "device error DOOR_OPEN cleared");
}

#[test]
fn a_device_error_open_before_a_restart_keeps_the_tile_in_error_until_cleared() {
    let pit = PitConfig::demo();
    let book = RuleBook::load(&pit.tables[0].rules).expect("the demo rule book");
    let mut engine = TableEngine::new(book.into());
    // Before the restart: the shoe jammed (the engine, rebuilt from the record, knows).
    engine.handle_event(&TableEvent::new(
        1,
        EventKind::DeviceError {
            code: "JAM".into(),
            text: "card jam".into(),
        },
    ));
    while engine.poll_output().is_some() {}
    // After it: a new model, the link up, the engine's view published at start.
    let mut model = PitModel::new(&pit);
    let at = SystemClock.now();
    model.apply(
        &MonitorEvent::Link {
            table: "BAC-1".into(),
            device: 0,
            state: LinkState::Connected,
            detail: "serial /dev/pts/9 9600 8N1".into(),
            at,
        },
        at,
    );
    model.apply(
        &MonitorEvent::View {
            table: "BAC-1".into(),
            view: engine.view(),
        },
        at,
    );
    let t = model.table("BAC-1").expect("BAC-1").clone();
    assert_eq!(t.status, LinkStatus::Error, "{t:?}");
    assert_eq!(
        t.status_detail,
        "a device error raised before the restart is not cleared yet"
    );
    // A new error adds to it; clearing the old one leaves the new one.
    let raise = TableEvent::new(
        2,
        EventKind::DeviceError {
            code: "DOOR_OPEN".into(),
            text: "door open".into(),
        },
    );
    feed(&mut model, &mut engine, raise);
    let t = model.table("BAC-1").expect("BAC-1").clone();
    assert_eq!(
        t.status_detail,
        "door open (device error DOOR_OPEN); a device error raised before the restart is not \
         cleared yet"
    );
    let clear =
        |seq, code: &str| TableEvent::new(seq, EventKind::DeviceErrorCleared { code: code.into() });
    feed(&mut model, &mut engine, clear(3, "JAM"));
    let t = model.table("BAC-1").expect("BAC-1").clone();
    assert_eq!(t.status, LinkStatus::Error, "{t:?}");
    assert_eq!(t.status_detail, "door open (device error DOOR_OPEN)");
    feed(&mut model, &mut engine, clear(4, "DOOR_OPEN"));
    let t = model.table("BAC-1").expect("BAC-1").clone();
    assert_eq!(t.status, LinkStatus::Connected, "{t:?}");
}

#[test]
fn link_changes_and_frames_show_on_the_tile() {
    let mut model = PitModel::new(&PitConfig::demo());
    let now = SystemClock.now();
    let (changed, raised) = model.apply(
        &MonitorEvent::Link {
            table: "MINI-1".into(),
            device: 0,
            state: LinkState::Retrying,
            detail: "no such port".into(),
            at: now,
        },
        now,
    );
    assert_eq!(changed.as_deref(), Some("MINI-1"));
    assert!(raised.is_none());
    let tile = model.table("MINI-1").expect("MINI-1");
    assert_eq!(tile.status, LinkStatus::Reconnecting);
    assert_eq!(tile.status_detail, "no such port");
    model.apply(
        &MonitorEvent::Derived {
            table: "MINI-1".into(),
            derived: Derived::Frame {
                accepted: false,
                reason: Some("bad checksum".into()),
            },
        },
        now,
    );
    let tile = model.table("MINI-1").expect("MINI-1");
    assert_eq!((tile.frames_accepted, tile.frames_rejected), (0, 1));
    assert_eq!(tile.last_frame_ms, Some(now.unix_millis()));
    let (changed, _) = model.apply(
        &MonitorEvent::Link {
            table: "NOPE".into(),
            device: 0,
            state: LinkState::Connected,
            detail: String::new(),
            at: now,
        },
        now,
    );
    assert!(changed.is_none(), "unknown tables are ignored");
}

#[test]
fn a_table_whose_section_is_wrong_is_a_disabled_tile_beside_the_others() {
    let pit = PitConfig::load(
        "[site]\nname = \"P\"\n[[table]]\nname = \"A\"\ngame = \"baccarat\"\nrules = \"nz-baccarat\"\ndevice = { protocol = \"barcode\" }\nlink = { kind = \"tcp\", address = \"127.0.0.1:1\" }\n[[table]]\nname = \"B\"\ngame = \"blackjack\"\nrulez = \"nz-blackjack\"\n",
    )
    .unwrap();
    let model = PitModel::new(&pit);
    let tables = model.tables();
    let names: Vec<_> = tables.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["A", "B"]);
    assert_eq!(model.table("A").unwrap().disabled, None);
    let b = model.table("B").unwrap();
    let disabled = b.disabled.as_ref().expect("B is disabled");
    assert_eq!(disabled.line, 9);
    assert!(
        disabled.problems[0].contains("unknown field `rulez`"),
        "{disabled:?}"
    );
    assert_eq!(b.game, pitwatch_games::GameKind::Blackjack);
    assert_eq!(b.status, LinkStatus::NotMonitored);
}

#[test]
fn a_devices_identity_shows_in_its_panel_as_it_last_said_it() {
    use pitwatch_recording::recorder::{Hello, Usb};
    let pit = PitConfig::demo();
    let mut model = PitModel::new(&pit);
    let at = SystemClock.now();
    let name = "BAC-3";
    let identified = |device, hello: Option<Hello>, usb: Option<Usb>| MonitorEvent::Derived {
        table: name.into(),
        derived: Derived::DeviceIdentified { device, hello, usb },
    };
    assert_eq!(model.table(name).expect("BAC-3").devices[1].identity, None);
    let hello = Hello {
        make: "Pitwatch".into(),
        model: "Shuffler".into(),
        serial: "S-77".into(),
        firmware: "3.2".into(),
        at: "2026-12-03T10:00:00Z".into(),
    };
    let usb = Usb {
        serial: "A10K".into(),
        model: "FT232R USB UART".into(),
        port: "/dev/ttyUSB1".into(),
    };
    model.apply(&identified(1, Some(hello.clone()), Some(usb)), at);
    let shown = model.table(name).expect("BAC-3").devices[1]
        .identity
        .clone()
        .expect("shown");
    assert_eq!(
        (
            shown.serial.as_str(),
            shown.firmware.as_str(),
            shown.usb.as_str()
        ),
        (
            "S-77",
            "3.2",
            "FT232R USB UART serial number A10K on /dev/ttyUSB1"
        )
    );
    assert_eq!(shown.said_at.as_deref(), Some("2026-12-03T10:00:00Z"));
    assert_eq!(
        model.table(name).expect("BAC-3").devices[0].identity,
        None,
        "the shoe said nothing"
    );
    // A TCP link has no adapter; a device that never said HELLO shows nothing.
    let tcp = Usb {
        serial: String::new(),
        model: String::new(),
        port: "10.0.4.21:4001".into(),
    };
    model.apply(&identified(0, None, Some(tcp)), at);
    assert_eq!(model.table(name).expect("BAC-3").devices[0].identity, None);
    // A device out of range changes nothing (and does not panic).
    model.apply(&identified(9, Some(hello), None), at);
}

#[test]
fn a_fresh_model_shows_the_tiles_the_boundary_makes_of_the_pit_definition() {
    // The model keeps tiles of its own; what it shows before any event is what the boundary
    // makes of the pit definition, table by table, the disabled ones too.
    let text = format!(
        "{}\n[[table]]\nname = \"WIRED\"\ngame = \"baccarat\"\nrules = \"nz-baccarat\"\n\
         device = {{ protocol = \"barcode\" }}\n\
         link = {{ kind = \"tcp\", address = \"127.0.0.1:1\" }}\n\
         [[table]]\nname = \"BROKEN\"\nrulez = 1\n",
        include_str!("../../../pitwatch-recording/src/demo-pit.toml")
    );
    // WIRED is disabled with its section read (a demo pit takes no real link), BROKEN without.
    let wired = PitConfig::load(&text).expect("the pit reads");
    assert_eq!(wired.disabled.len(), 2, "{:?}", wired.disabled);
    // The same tables on real links (a table whose devices are listed one by one then lacks
    // their links, and is disabled with its section read).
    let real = text.replace("demo = true", "").replace(
        "simulated = true",
        "link = { kind = \"tcp\", address = \"127.0.0.1:2\" }",
    );
    let real = PitConfig::load(&real).expect("the pit reads");
    assert!(real.tables.len() > 5, "{:?}", real.disabled);
    for pit in [PitConfig::demo(), wired, real] {
        let boundary: Vec<TableTile> = pit
            .tables
            .iter()
            .map(TableTile::from)
            .chain(pit.disabled.iter().map(TableTile::from))
            .collect();
        assert!(!boundary.is_empty());
        assert_eq!(PitModel::new(&pit).tables(), boundary);
    }
}
