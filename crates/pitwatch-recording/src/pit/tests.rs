//! The pit definition's tests: the demo pit, every problem listed at once, links, deck counts,
//! central replication, and the games' tables with their own books.

use super::*;
use pitwatch_games::MAX_RULE_BOOK_BYTES;

#[test]
fn demo_pit_is_valid_and_has_six_tables() {
    let pit = PitConfig::from_toml(DEMO_PIT).unwrap();
    assert!(pit.demo);
    assert!(pit.tables.len() >= 6);
    assert!(pit
        .tables
        .iter()
        .any(|t| Protocol::from(&t.device()) == Protocol::Barcode));
    // One table has a shuffler beside its shoe, which shuffles for it.
    let beside: Vec<&TableConfig> = pit
        .tables
        .iter()
        .filter(|t| {
            let has = |role| t.devices.iter().any(|d| d.role == role);
            has(DeviceRole::Shoe) && has(DeviceRole::Shuffler)
        })
        .collect();
    assert_eq!(beside.len(), 1);
    assert!(matches!(
        beside[0].devices[1].protocol,
        ProtocolConfig::Pitwatch(pitwatch_proto::ProtoConfig {
            beside_shoe: true,
            revision: pitwatch_proto::REVISION,
            ..
        })
    ));
    // A poker table: its shuffler (its main device, not beside a shoe) and a dealer console.
    let poker: Vec<&TableConfig> = pit
        .tables
        .iter()
        .filter(|t| t.game == GameKind::Poker)
        .collect();
    assert_eq!(poker.len(), 1);
    let roles: Vec<DeviceRole> = poker[0].devices.iter().map(|d| d.role).collect();
    assert_eq!(roles, [DeviceRole::Shuffler, DeviceRole::Console]);
    assert!(matches!(
        poker[0].devices[0].protocol,
        ProtocolConfig::Pitwatch(pitwatch_proto::ProtoConfig {
            beside_shoe: false,
            ..
        })
    ));
}

#[test]
fn central_replication_is_configured_without_a_url_in_plain_text() {
    let pit = |central: &str| {
        PitConfig::from_toml(&format!(
            "[site]\nname = \"S\"\n[[table]]\nname = \"T1\"\ngame = \"baccarat\"\n\
                 rules = \"nz-baccarat\"\ndevice = {{ protocol = \"angel-eye\" }}\n\
                 link = {{ kind = \"tcp\", address = \"127.0.0.1:4001\" }}\n[central]\n{central}"
        ))
    };
    let ok =
        pit("url_env = \"PITWATCH_CENTRAL_TEST_URL\"\nsite = \"sky\"\nworkstation = \"pit-3\"\n")
            .expect("valid");
    let central = ok.central.expect("central");
    assert_eq!(central.alert_after_s, 60);
    assert!(central
        .url()
        .unwrap_err()
        .contains("PITWATCH_CENTRAL_TEST_URL"));
    let err = pit("url = \"postgres://ana:secret@db/pit\"\nsite = \"\"\nworkstation = \"a/b\"\n")
        .unwrap_err()
        .to_string();
    assert!(err.contains("plain text"), "{err}");
    assert!(err.contains("central.site is empty"), "{err}");
    assert!(err.contains("central.workstation \"a/b\""), "{err}");
    let both = pit("url_env = \"X\"\nurl_file = \"/x\"\nsite = \"s\"\nworkstation = \"w\"\n")
        .unwrap_err()
        .to_string();
    assert!(both.contains("not both"), "{both}");

    let dir = tempfile::tempdir().expect("dir");
    let file = dir.path().join("central.url");
    std::fs::write(&file, "postgres://pitwatch@db/central\n").expect("write");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o640)).expect("chmod");
    let central = CentralConfig {
        url: None,
        url_env: None,
        url_file: Some(file.clone()),
        site: "s".into(),
        workstation: "w".into(),
        alert_after_s: 5,
    };
    assert!(central.url().unwrap_err().contains("chmod 600"));
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    assert_eq!(
        central.url().expect("url"),
        "postgres://pitwatch@db/central"
    );
}

#[test]
fn a_real_pit_reads_serial_and_tcp_links() {
    let text = r#"
            [site]
            name = "Sky City · Pit 3"
            [[table]]
            name = "BAC-1"
            game = "baccarat"
            rules = "nz-baccarat"
            device = { protocol = "angel-eye" }
            link = { kind = "serial", path = "/dev/ttyUSB0", baud = 9600 }
            [[table]]
            name = "MINI-7"
            game = "baccarat"
            rules = "nz-baccarat"
            device = { protocol = "barcode", repeat_window_ms = 250 }
            link = { kind = "tcp", address = "10.20.0.17:4001", backoff = { initial_ms = 500, max_ms = 8000 } }
        "#;
    let pit = PitConfig::from_toml(text).unwrap();
    assert_eq!(
        pit.tables[0].describe_link(),
        "serial /dev/ttyUSB0 9600 8N1"
    );
    assert_eq!(pit.tables[1].describe_link(), "tcp 10.20.0.17:4001");
}

#[test]
fn a_tables_deck_count_gives_its_rule_book_for_shoes_that_do_not_report_one() {
    let text = r#"
            [site]
            name = "Pit 1"
            [[table]]
            name = "MINI-6"
            game = "baccarat"
            rules = "nz-baccarat"
            decks = 6
            device = { protocol = "barcode" }
            link = { kind = "tcp", address = "10.20.0.17:4001" }
            [[table]]
            name = "BAC-8"
            game = "baccarat"
            rules = "nz-baccarat"
            device = { protocol = "angel-eye" }
            link = { kind = "tcp", address = "10.20.0.18:4001" }
        "#;
    let pit = PitConfig::from_toml(text).unwrap();
    assert_eq!(pit.tables[0].rules_reference(), "nz-baccarat;decks=6");
    let six = pit.tables[0].rule_book().unwrap();
    assert_eq!(six.baccarat().unwrap().composition().total_cards(), 312);
    assert_eq!(six.reference(), "nz-baccarat;decks=6");
    assert_eq!(
        pit.tables[1].rule_book().unwrap().reference(),
        "nz-baccarat"
    );
    let PitConfigError::Invalid(problems) =
        PitConfig::from_toml(&text.replace("decks = 6", "decks = 12")).unwrap_err()
    else {
        panic!("expected a list of problems");
    };
    assert_eq!(problems.len(), 1, "{problems:#?}");
    assert!(
        problems[0].starts_with("table 1 (\"MINI-6\"): rules \"nz-baccarat;decks=12\"")
            && problems[0].contains("outside what rule book nz-baccarat allows (4 to 8)"),
        "{problems:#?}"
    );
}

#[test]
fn every_problem_is_listed_at_once() {
    let text = r#"
            [site]
            name = ""
            [[table]]
            name = "BAC-1"
            game = "baccarat"
            rules = "nz-baccarat"
            device = { protocol = "angel-eye" }
            link = { kind = "tcp", address = "10.1.1.5" }
            [[table]]
            name = "BAC-1"
            game = "blackjack"
            rules = "atlantis-baccarat"
            device = { protocol = "barcode" }
            simulated = true
            link = { kind = "serial", path = "/dev/ttyS0", baud = 4800, stop_bits = 3 }
        "#;
    let PitConfigError::Invalid(problems) = PitConfig::from_toml(text).unwrap_err() else {
        panic!("expected a list of problems");
    };
    let expected_starts = [
        "site.name is empty",
        "table 1 (\"BAC-1\"): link address \"10.1.1.5\" is not host:port",
        "table 2 (\"BAC-1\"): another table has the same name",
        "table 2 (\"BAC-1\"): rules \"atlantis-baccarat\":",
        "table 2 (\"BAC-1\"): a table has either a link or simulated = true, not both",
        "table 2 (\"BAC-1\"): link stop_bits must be 1 or 2",
        "table 2 (\"BAC-1\"): a simulated blackjack table deals over the pitwatch protocol",
        "table 2 (\"BAC-1\"): simulated devices are only allowed in a demo pit",
    ];
    assert_eq!(problems.len(), expected_starts.len(), "{problems:#?}");
    for (problem, start) in problems.iter().zip(expected_starts) {
        assert!(
            problem.starts_with(start),
            "{problem:?} should start with {start:?}"
        );
    }
}

#[test]
fn a_site_time_zone_is_an_iana_name() {
    let pit = |zone: &str| {
        format!(
            "[site]\nname = \"Main Pit\"\ntime_zone = \"{zone}\"\n[[table]]\nname = \"BAC-1\"\n\
             game = \"baccarat\"\nrules = \"nz-baccarat\"\ndevice = {{ protocol = \"angel-eye\" }}\n\
             link = {{ kind = \"tcp\", address = \"10.1.1.5:4001\" }}\n"
        )
    };
    let good = PitConfig::from_toml(&pit("Pacific/Auckland")).expect("a known zone");
    assert_eq!(good.site.time_zone.as_deref(), Some("Pacific/Auckland"));
    let PitConfigError::Invalid(problems) =
        PitConfig::from_toml(&pit("Pacific/Atlantis")).unwrap_err()
    else {
        panic!("expected a list of problems");
    };
    assert_eq!(
        problems,
        [
            "site.time_zone \"Pacific/Atlantis\" is not a time zone (give an IANA name such as \
          \"Pacific/Auckland\")"
        ]
    );
}

#[test]
fn a_demo_pit_with_a_real_link_is_refused() {
    let text = r#"
            demo = true
            [site]
            name = "Main Pit"
            [[table]]
            name = "BAC-1"
            game = "baccarat"
            rules = "nz-baccarat"
            device = { protocol = "angel-eye" }
            simulated = true
            [[table]]
            name = "BAC-2"
            game = "baccarat"
            rules = "nz-baccarat"
            device = { protocol = "angel-eye" }
            link = { kind = "serial", path = "/dev/ttyUSB0", baud = 9600 }
        "#;
    let PitConfigError::Invalid(problems) = PitConfig::from_toml(text).unwrap_err() else {
        panic!("expected a list of problems");
    };
    assert_eq!(
            problems,
            ["table 2 (\"BAC-2\"): a demo pit (demo = true) cannot have a real link; remove demo = true to watch real devices"]
        );
    // The same pit without `demo = true` and without the simulated table is a real pit.
    let real = text.replace("demo = true", "").replace(
        "simulated = true",
        "link = { kind = \"tcp\", address = \"10.0.0.5:4001\" }",
    );
    PitConfig::from_toml(&real).expect("a real pit");
}

#[test]
fn control_characters_a_special_file_and_a_zero_backoff_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("big.toml");
    std::fs::write(&big, vec![b'#'; MAX_RULE_BOOK_BYTES as usize + 1]).unwrap();
    let text = format!(
        r#"
            [site]
            name = "Pit\u0007"
            [[table]]
            name = "BAC\u0000-1"
            game = "baccarat"
            rules = "nz-baccarat"
            device = {{ protocol = "angel-eye" }}
            link = {{ kind = "serial", path = "/dev/ttyS0", baud = 4800, backoff = {{ initial_ms = 0 }} }}
            [[table]]
            name = "BAC-2\n"
            game = "baccarat"
            rules = "/dev/zero"
            device = {{ protocol = "angel-eye" }}
            link = {{ kind = "tcp", address = "10.1.1.5:4001" }}
            [[table]]
            name = "BAC-3"
            game = "baccarat"
            rules = "{}"
            device = {{ protocol = "angel-eye" }}
            link = {{ kind = "tcp", address = "10.1.1.6:4001" }}
            [[table]]
            name = "BAC-4"
            game = "baccarat"
            rules = "{}"
            device = {{ protocol = "angel-eye" }}
            link = {{ kind = "tcp", address = "10.1.1.7:4001" }}
        "#,
        dir.path().display(),
        big.display()
    );
    let PitConfigError::Invalid(problems) = PitConfig::from_toml(&text).unwrap_err() else {
        panic!("expected a list of problems");
    };
    let all = problems.join("\n");
    assert!(
        all.contains("site.name holds the control character '\\u{7}'"),
        "{all}"
    );
    assert!(
        all.contains("table 1 (\"BAC\\0-1\"): name holds the control character"),
        "{all}"
    );
    assert!(
        all.contains("backoff.initial_ms must be at least 50"),
        "{all}"
    );
    assert!(all.contains("table 2 (\"BAC-2\\n\"): name holds"), "{all}");
    assert!(all.contains("/dev/zero is not a regular file"), "{all}");
    assert!(all.contains("is not a regular file"), "{all}");
    assert!(
        all.contains("a rule book is at most 1048576 bytes"),
        "{all}"
    );
    assert_eq!(problems.len(), 7, "{problems:#?}");
}

#[test]
fn blackjack_and_pontoon_tables_are_accepted_with_their_own_books_only() {
    let table = |name: &str, game: &str, rules: &str, protocol: &str| {
        format!(
            "[[table]]\nname = \"{name}\"\ngame = \"{game}\"\nrules = \"{rules}\"\n\
                 device = {{ protocol = \"{protocol}\" }}\nsimulated = true\n"
        )
    };
    let pit = |tables: &[String]| {
        PitConfig::from_toml(&format!(
            "demo = true\n[site]\nname = \"S\"\n{}",
            tables.concat()
        ))
    };
    let ok = pit(&[
        table("BJ-1", "blackjack", "nz-blackjack", "pitwatch"),
        table("PON-1", "pontoon", "nz-pontoon", "pitwatch"),
        table("BAC-1", "baccarat", "nz-baccarat", "angel-eye"),
    ])
    .unwrap();
    let games: Vec<_> = ok
        .tables
        .iter()
        .map(|t| t.rule_book().unwrap().game())
        .collect();
    assert_eq!(games, ["blackjack", "pontoon", "baccarat"]);

    let PitConfigError::Invalid(problems) = pit(&[
        table("BJ-1", "blackjack", "nz-baccarat", "pitwatch"),
        table("PON-1", "pontoon", "nz-blackjack", "pitwatch"),
        table("BAC-1", "baccarat", "nz-pontoon", "angel-eye"),
        table("BJ-2", "blackjack", "nz-blackjack", "angel-eye"),
    ])
    .unwrap_err() else {
        panic!("expected a list of problems");
    };
    assert_eq!(
        problems,
        [
            "table 1 (\"BJ-1\"): game \"blackjack\" but rule book nz-baccarat is for \
                 \"baccarat\" (use a blackjack book, or game = \"baccarat\")",
            "table 2 (\"PON-1\"): game \"pontoon\" but rule book nz-blackjack is for \
                 \"blackjack\" (use a pontoon book, or game = \"blackjack\")",
            "table 3 (\"BAC-1\"): game \"baccarat\" but rule book nz-pontoon is for \
                 \"pontoon\" (use a baccarat book, or game = \"pontoon\")",
            "table 4 (\"BJ-2\"): a simulated blackjack table deals over the pitwatch \
                 protocol (the only one with box targets and decisions), not angel-eye",
        ]
    );
}

#[test]
fn a_poker_table_deals_its_variant_from_a_shuffler() {
    let text = |variant: &str, game: &str, rules: &str| {
        format!(
            "demo = true\n[site]\nname = \"S\"\n[[table]]\nname = \"POK-1\"\n\
                 game = \"{game}\"\nrules = \"{rules}\"\n{variant}simulated = true\n\
                 [[table.device]]\nrole = \"shuffler\"\nprotocol = \"pitwatch\"\n"
        )
    };
    let pit = PitConfig::from_toml(&text(
        "variant = \"seven_card_stud\"\n",
        "poker",
        "nz-poker",
    ))
    .unwrap();
    let table = &pit.tables[0];
    assert_eq!(table.rules_reference(), "nz-poker;variant=seven_card_stud");
    let book = table.rule_book().unwrap();
    assert_eq!(book.game(), "poker");
    assert_eq!(book.poker().unwrap().variant.id, "seven_card_stud");
    // The reference the recorder keeps loads back as the same book and variant.
    assert_eq!(
        GameBook::load(&book.reference()).unwrap().reference(),
        "nz-poker;variant=seven_card_stud"
    );
    // The book's default variant needs no suffix.
    let default = PitConfig::from_toml(&text("", "poker", "nz-poker")).unwrap();
    assert_eq!(
        default.tables[0].rule_book().unwrap().reference(),
        "nz-poker"
    );
    // A shuffler alone is not beside a shoe: its shuffles are the hands' decks.
    match &default.tables[0].devices[0].protocol {
        ProtocolConfig::Pitwatch(config) => assert!(!config.beside_shoe),
        other => panic!("{other:?}"),
    }

    let problems = |text: String| match PitConfig::from_toml(&text).unwrap_err() {
        PitConfigError::Invalid(p) => p.join("\n"),
        e => panic!("{e}"),
    };
    let unknown = problems(text("variant = \"omaha\"\n", "poker", "nz-poker"));
    assert!(unknown.contains("omaha"), "{unknown}");
    assert!(unknown.contains("texas_holdem"), "{unknown}");
    let not_poker = problems(text("variant = \"draw\"\n", "blackjack", "nz-blackjack"));
    assert!(
        not_poker.contains("a variant is for a poker rule book"),
        "{not_poker}"
    );
    let wrong_game = problems(text("", "baccarat", "nz-poker"));
    assert!(
        wrong_game.contains("rule book nz-poker is for \"poker\""),
        "{wrong_game}"
    );
}

#[test]
fn syntax_errors_say_where() {
    let err = PitConfig::from_toml("[site]\nname = \"x\"\n[[table]]\ngame = \"craps\"\n")
        .unwrap_err()
        .to_string();
    assert!(err.contains("craps") || err.contains("line 4"), "{err}");
}

#[test]
fn line_settings_and_liveness_thresholds_are_checked_against_what_is_accepted() {
    let text = r#"
            [site]
            name = "Lines"
            [[table]]
            name = "BAC-1"
            game = "baccarat"
            rules = "nz-baccarat"
            device = { protocol = "angel-eye" }
            link = { kind = "serial", path = "/dev/ttyUSB7", baud = 96000 }
            liveness = { offline_s = 0, silent_s = 90000 }
            [[table]]
            name = "BAC-2"
            game = "baccarat"
            rules = "nz-baccarat"
            liveness = { offline_s = 30 }
            [[table.device]]
            protocol = "angel-eye"
            link = { kind = "serial", path = "/dev/ttyUSB8", baud = 4800 }
            liveness = { heartbeat_s = 0, offline_s = 5 }
        "#;
    let PitConfigError::Invalid(problems) = PitConfig::from_toml(text).unwrap_err() else {
        panic!("expected a list of problems");
    };
    assert_eq!(
        problems,
        [
            "table 1 (\"BAC-1\"): liveness.offline_s = 0 is not accepted: give seconds from 0.1 to 86400",
            "table 1 (\"BAC-1\"): liveness.silent_s = 90000 is not accepted: give seconds from 0 to 86400 (0 turns the check off)",
            "table 1 (\"BAC-1\"): link baud 96000 is not a rate serial ports accept: give one of 50, 75, 110, 134, 150, 200, 300, 600, 1200, 1800, 2400, 4800, 9600, 19200, 38400, 57600, 115200, 230400, 460800, 500000, 576000, 921600, 1000000, 1152000, 1500000, 2000000, 2500000, 3000000, 3500000, 4000000",
        ]
    );
    // The table's own thresholds, and a device's over them, over the protocol's defaults.
    let ok = text
        .replace("baud = 96000", "baud = 9600")
        .replace("liveness = { offline_s = 0, silent_s = 90000 }", "");
    let pit = PitConfig::from_toml(&ok).unwrap();
    let two = &pit.tables[1];
    let th = two.liveness(0);
    assert_eq!(th.offline_ms, 5_000);
    assert_eq!(th.silent_ms, Some(300_000));
    assert_eq!(th.heartbeat_ms, None);
    assert_eq!(
        pit.tables[0].liveness(0),
        crate::liveness::defaults("angel-eye")
    );
    // Written back out, the thresholds survive.
    let again: PitConfig = toml::from_str(&toml::to_string(&pit).unwrap()).unwrap();
    assert_eq!(again, pit);
}

#[test]
fn a_table_s_pace_target_is_read_written_back_and_never_zero() {
    let text = |target: u32| {
        format!(
            "[site]\nname = \"S\"\n[[table]]\nname = \"BAC-1\"\ngame = \"baccarat\"\n\
             rules = \"nz-baccarat\"\ndevice = {{ protocol = \"angel-eye\" }}\n\
             link = {{ kind = \"tcp\", address = \"127.0.0.1:4001\" }}\npace_target = {target}\n"
        )
    };
    let pit = PitConfig::from_toml(&text(55)).unwrap();
    assert_eq!(pit.tables[0].pace_target, Some(55));
    let again: PitConfig = toml::from_str(&toml::to_string(&pit).unwrap()).unwrap();
    assert_eq!(again, pit);
    let PitConfigError::Invalid(problems) = PitConfig::from_toml(&text(0)).unwrap_err() else {
        panic!("expected a list of problems");
    };
    assert_eq!(
        problems,
        ["table 1 (\"BAC-1\"): pace_target must be 1 or more rounds an hour"]
    );
}

// ---- read table by table (load.rs) ----

const PIT: &str = r#"[site]
name = "Three tables"

[[table]]
name = "BAC-1"
game = "baccarat"
rules = "nz-baccarat"
device = { protocol = "angel-eye" }
link = { kind = "serial", path = "/dev/ttyUSB0", baud = 4800 }

[[table]]
name = "BAC-2"
game = "baccarat"
rulez = "nz-baccarat"
device = { protocol = "angel-eye" }
link = { kind = "serial", path = "/dev/ttyUSB1", baud = 4800 }

[[table]]
name = "BAC-3"
game = "baccarat"
rules = "nz-baccarat"
device = { protocol = "angel-eye" }
link = { kind = "serial", path = "/dev/ttyUSB2", baud = 96000, stop_bits = 3 }
"#;

#[test]
fn a_wrong_section_disables_its_table_only_with_every_problem_and_its_line() {
    let pit = PitConfig::load(PIT).unwrap();
    assert_eq!(
        pit.tables
            .iter()
            .map(|t| t.name.as_str())
            .collect::<Vec<_>>(),
        ["BAC-1"]
    );
    assert_eq!(pit.disabled.len(), 2, "{:#?}", pit.disabled);
    let two = &pit.disabled[0];
    assert_eq!((two.index, two.name.as_str(), two.line), (2, "BAC-2", 11));
    assert_eq!(two.problems.len(), 1);
    assert!(
        two.problems[0]
            .starts_with("table 2 (\"BAC-2\") at line 11: unknown field `rulez`, expected one of"),
        "{:?}",
        two.problems
    );
    assert!(two.config.is_none());
    let three = &pit.disabled[1];
    assert_eq!((three.index, three.line), (3, 18));
    assert_eq!(three.problems.len(), 2, "{:?}", three.problems);
    assert!(three.problems[0].contains("link baud 96000 is not a rate serial ports accept"));
    assert!(three.problems[1].contains("link stop_bits must be 1 or 2"));
    assert_eq!(
        three.config.as_ref().map(|t| t.name.as_str()),
        Some("BAC-3")
    );
    // The strict reading still refuses the whole file.
    assert!(PitConfig::from_toml(PIT).is_err());
}

#[test]
fn a_syntax_error_is_one_error_with_its_line_and_column_and_a_pit_problem_refuses_all() {
    let broken = PIT.replace("game = \"baccarat\"\nrulez", "game = baccarat\nrulez");
    let PitConfigError::Syntax(e) = PitConfig::load(&broken).unwrap_err() else {
        panic!("a syntax error");
    };
    assert!(e.contains("line 13, column 8"), "{e}");
    let nameless = PIT.replace("name = \"Three tables\"", "name = \"\"");
    let PitConfigError::Invalid(all) = PitConfig::load(&nameless).unwrap_err() else {
        panic!("refused");
    };
    assert_eq!(all.len(), 4, "{all:#?}");
    assert_eq!(all[0], "site.name is empty");
    assert!(all[1].contains("unknown field `rulez`"), "{all:#?}");
}

#[test]
fn every_protocol_the_window_offers_is_one_this_build_speaks() {
    for protocol in [Protocol::AngelEye, Protocol::Barcode, Protocol::Pitwatch] {
        let config = protocol.config().expect("a protocol this build speaks");
        assert_eq!(config.name(), protocol.name());
        assert_eq!(Protocol::from(&config), protocol);
    }
}

#[test]
fn a_link_is_checked_as_the_pit_definition_checks_it() {
    let serial = |baud| {
        LinkConfig::new(pitwatch_transport::TransportConfig::Serial(
            pitwatch_transport::SerialConfig::new("/dev/ttyUSB0", baud),
        ))
    };
    assert!(check_link(&serial(9600)).is_empty());
    let wrong = check_link(&serial(96_000));
    assert_eq!(wrong.len(), 1, "{wrong:?}");
    assert!(
        wrong[0].starts_with("the link: link baud 96000 is not a rate"),
        "{wrong:?}"
    );
}

#[test]
fn the_clock_s_limit_defaults_is_overridden_and_is_checked() {
    let pit = |clock: &str| {
        PitConfig::from_toml(&format!(
            "[site]\nname = \"S\"\n[[table]]\nname = \"T1\"\ngame = \"baccarat\"\n\
             rules = \"nz-baccarat\"\ndevice = {{ protocol = \"angel-eye\" }}\n\
             link = {{ kind = \"tcp\", address = \"127.0.0.1:4001\" }}\n{clock}"
        ))
    };
    assert_eq!(pit("").unwrap().clock.limits().max_error_ms, 1_000);
    let set = pit("[clock]\nmax_error_ms = 250").unwrap();
    assert_eq!(set.clock.limits().max_error_ms, 250);
    let Err(PitConfigError::Invalid(problems)) = pit("[clock]\nmax_error_ms = 0") else {
        panic!("a zero limit is refused");
    };
    assert!(problems[0].contains("clock.max_error_ms"), "{problems:?}");
    assert!(matches!(
        pit("[clock]\nmax_error_s = 1"),
        Err(PitConfigError::Syntax(_))
    ));
    // Read table by table, the section is read alike.
    let text = "[site]\nname = \"S\"\n[clock]\nmax_error_ms = 40\n[[table]]\nname = \"T1\"\n\
                game = \"baccarat\"\nrules = \"nz-baccarat\"\ndevice = { protocol = \"angel-eye\" }\n\
                link = { kind = \"tcp\", address = \"127.0.0.1:4001\" }\n";
    assert_eq!(PitConfig::load(text).unwrap().clock.max_error_ms, 40);
}
