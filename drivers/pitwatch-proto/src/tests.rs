//! Tests of the Pitwatch protocol codec, including every example of `PROTOCOL.md`.

use super::*;
use pitwatch_codec::DeviceIdentity;
use pitwatch_model::{Action, Card, ExposedDuring, Outcome, ShufflerKind, TableState, Target};
use proptest::prelude::*;

fn t(ms: i64) -> Timestamp {
    Timestamp::from_unix_millis(1_796_000_000_000 + ms).unwrap()
}

fn card(text: &str) -> Card {
    text.parse().unwrap()
}

fn decode_with(config: ProtoConfig, bytes: &[u8]) -> Vec<DecodeOutput> {
    let mut decoder = ProtoDecoder::new(config);
    pitwatch_codec::decode_all(&mut decoder, bytes, t(0))
}

fn decode(bytes: &[u8]) -> Vec<DecodeOutput> {
    decode_with(ProtoConfig::default(), bytes)
}

fn kinds(outputs: &[DecodeOutput]) -> Vec<EventKind> {
    outputs
        .iter()
        .flat_map(|o| o.events().iter().map(|e| e.kind.clone()))
        .collect()
}

fn rejections(outputs: &[DecodeOutput]) -> Vec<RejectKind> {
    outputs
        .iter()
        .filter_map(|o| o.rejection().map(|r| r.kind))
        .collect()
}

fn notices(outputs: &[DecodeOutput]) -> Vec<Notice> {
    outputs
        .iter()
        .flat_map(|o| match o {
            DecodeOutput::Accepted(a) => a.notices.clone(),
            DecodeOutput::Rejected(_) => vec![],
        })
        .collect()
}

/// The example blocks of PROTOCOL.md: (fence info, lines with `\r\n`).
fn spec_examples() -> Vec<(String, Vec<Vec<u8>>)> {
    let spec = include_str!("../PROTOCOL.md");
    let mut blocks = Vec::new();
    let mut current: Option<(String, Vec<Vec<u8>>)> = None;
    for line in spec.lines() {
        if let Some(info) = line.strip_prefix("```") {
            match current.take() {
                Some(block) => blocks.push(block),
                None if info.starts_with("pw-") => current = Some((info.to_owned(), Vec::new())),
                None => current = Some((String::new(), Vec::new())),
            }
        } else if let Some((_, lines)) = current.as_mut() {
            lines.push(format!("{line}\r\n").into_bytes());
        }
    }
    blocks.retain(|(info, _)| info.starts_with("pw-"));
    blocks
}

#[test]
fn crc_has_the_ccitt_false_check_value() {
    assert_eq!(crc16(b"123456789"), 0x29B1);
    assert_eq!(crc16(b""), 0xFFFF);
}

#[test]
fn protocol_md_examples_decode_as_documented() {
    let blocks = spec_examples();
    let streams: Vec<&(String, Vec<Vec<u8>>)> =
        blocks.iter().filter(|(i, _)| i == "pw-stream").collect();
    assert_eq!(streams.len(), 7, "seven example streams in PROTOCOL.md");
    let mut event_counts = Vec::new();
    for (_, lines) in &streams {
        let bytes: Vec<u8> = lines.concat();
        let outputs = decode(&bytes);
        assert!(rejections(&outputs).is_empty(), "{outputs:#?}");
        assert_eq!(outputs.len(), lines.len());
        event_counts.push(kinds(&outputs).len());
    }
    // Shuffler: a start, two shuffles (the failed check is the engine's to judge: no device
    // error besides), jam, clear, door open/closed, error; the counters and an interrupted
    // shuffle: two counters, two starts, a jam and its clearing, the shuffle; the Pontoon steps;
    // the poker console: three actions and two misdeals; the dealer console: two sign-ins and a
    // sign-out.
    assert_eq!(event_counts, [8, 7, 3, 8, 7, 5, 3]);

    let shuffler = streams[0].1.concat();
    let rejected = blocks.iter().find(|(i, _)| i == "pw-rejected").unwrap();
    let mut decoder = ProtoDecoder::default();
    let mut out = Vec::new();
    decoder.push(&shuffler, t(0), &mut out);
    out.clear();
    for line in &rejected.1 {
        decoder.push(line, t(1), &mut out);
    }
    assert_eq!(
        rejections(&out),
        [
            RejectKind::Forbidden,
            RejectKind::Duplicate,
            RejectKind::BadChecksum,
            RejectKind::Unsupported
        ]
    );
    // The forbidden line's content is not kept.
    assert!(out[0].bytes().is_empty());
    assert!(out[0].rejection().unwrap().reason.contains("withheld"));
}

#[test]
fn shuffler_example_maps_to_events() {
    let blocks = spec_examples();
    let outputs = decode(&blocks[0].1.concat());
    let kinds = kinds(&outputs);
    assert_eq!(
        kinds[0],
        EventKind::ShuffleStarted {
            decks: Some(8),
            cycle: Some(1041)
        }
    );
    assert_eq!(
        kinds[1],
        EventKind::Shuffled {
            decks: Some(8),
            cards: Some(416),
            shuffler: Some(ShufflerKind::Batch)
        }
    );
    // The failed check rides on its `shuffled` event, for the engine to judge and cite.
    assert!(
        !kinds
            .iter()
            .any(|k| matches!(k, EventKind::DeviceError { code, .. } if code == "DECK_CHECK")),
        "{kinds:?}"
    );
    assert_eq!(
        kinds[3..],
        [
            EventKind::DeviceError {
                code: "JAM".into(),
                text: "card jam at elevator".into()
            },
            EventKind::DeviceErrorCleared { code: "JAM".into() },
            EventKind::DeviceError {
                code: "DOOR_OPEN".into(),
                text: "door open".into()
            },
            EventKind::DeviceErrorCleared {
                code: "DOOR_OPEN".into()
            },
            EventKind::DeviceError {
                code: "E42".into(),
                text: "sensor dirty".into()
            },
        ]
    );
    let events = events(&outputs);
    assert_eq!(events[2].extra["missing_cards"], 2);
    assert_eq!(events[2].extra["extra_cards"], 1);
    assert_eq!(events[2].extra["foreign_cards"], 1);
    assert_eq!(events[2].extra["expected_cards"], 416);
    let seqs: Vec<u64> = events.iter().map(|e| e.seq).collect();
    assert_eq!(seqs, (1..=8).collect::<Vec<_>>());
    assert_eq!(
        notices(&outputs),
        [
            Notice::Hello(DeviceIdentity {
                role: "shuffler".into(),
                make: "Acme".into(),
                model: "DS-8".into(),
                serial: "A1234".into(),
                firmware: "2.1.0".into(),
                protocol_version: 1
            }),
            Notice::Heartbeat,
        ]
    );
}

/// A stream recorded by a host of revision 1 (settings without `revision`) decodes as it did
/// then: `SHUFFLE_START` a notice with no event, `STATUS` and `SHUFFLE_STEP` unknown types, a
/// failed deck check also a `DECK_CHECK` device error.
#[test]
fn settings_recorded_before_revision_2_decode_as_they_did() {
    let legacy: ProtoConfig = serde_json::from_str(r#"{"role":"shuffler"}"#).unwrap();
    assert_eq!(legacy.revision, 1);
    assert_eq!(ProtoConfig::default().revision, REVISION);
    let current = serde_json::to_string(&ProtoConfig::default()).unwrap();
    assert!(current.contains(r#""revision":4"#), "{current}");
    let blocks = spec_examples();
    let outputs = decode_with(legacy, &blocks[0].1.concat());
    assert_eq!(kinds(&outputs).len(), 8);
    assert!(!kinds(&outputs)
        .iter()
        .any(|k| matches!(k, EventKind::ShuffleStarted { .. })));
    assert_eq!(
        kinds(&outputs)[2],
        EventKind::DeviceError {
            code: "DECK_CHECK".into(),
            text:
                "deck check failed: 415 cards counted, 416 expected, 2 missing, 1 extra, 1 foreign"
                    .into()
        }
    );
    assert!(notices(&outputs).contains(&Notice::ShuffleStarted { decks: Some(8) }));
    let outputs = decode_with(legacy, &blocks[1].1.concat());
    assert_eq!(
        rejections(&outputs),
        [RejectKind::Unsupported, RejectKind::Unsupported]
    );
    let outputs = decode_with(legacy, &blocks[2].1.concat());
    assert_eq!(rejections(&outputs), [RejectKind::Unsupported; 3]);
    // The current revision reads them as events.
    let outputs = decode(&blocks[2].1.concat());
    assert_eq!(
        kinds(&outputs),
        [
            pitwatch_model::ShuffleStep::Chemmy,
            pitwatch_model::ShuffleStep::Stacking,
            pitwatch_model::ShuffleStep::Riffle
        ]
        .map(|step| EventKind::ShuffleStep { step })
    );
}

/// `DEALER` is revision 4's: a stream recorded by a host of revision 3 rejected it as an unknown
/// type, and replays so; the current revision reads the dealer console's example as sign-ins and
/// a sign-out with the names exactly as sent (a macron included), and refuses a blank name.
#[test]
fn dealer_lines_are_revision_4_and_keep_the_name_exactly() {
    let blocks = spec_examples();
    let console = &blocks
        .iter()
        .filter(|(i, _)| i == "pw-stream")
        .nth(6)
        .expect("the dealer console's example")
        .1;
    let outputs = decode(&console.concat());
    assert_eq!(
        kinds(&outputs),
        [
            EventKind::DealerSignedIn {
                dealer: "Mere Te Whatu".into()
            },
            EventKind::DealerSignedOut {
                dealer: "Mere Te Whatu".into()
            },
            EventKind::DealerSignedIn {
                dealer: "Hoani Pāora".into()
            },
        ]
    );
    let revision_3 = ProtoConfig {
        revision: 3,
        ..ProtoConfig::default()
    };
    let outputs = decode_with(revision_3, &console.concat());
    assert_eq!(rejections(&outputs), [RejectKind::Unsupported; 3]);
    assert!(kinds(&outputs).is_empty());

    let mut encoder = MessageEncoder::new();
    for (name, reason) in [
        (" ", "a dealer's name cannot be blank"),
        (&"x".repeat(81)[..], "at most 80 characters, not 81"),
    ] {
        let line = encoder.encode(&Message::Dealer {
            signed_in: true,
            name: name.to_owned(),
        });
        let mut out = Vec::new();
        ProtoDecoder::default().push(&line, t(0), &mut out);
        let rejection = out[0].rejection().expect("refused");
        assert_eq!(rejection.kind, RejectKind::Malformed);
        assert!(rejection.reason.contains(reason), "{}", rejection.reason);
    }
    let line = encoder.encode(&Message::Dealer {
        signed_in: true,
        name: "x".repeat(20),
    });
    let mut out = Vec::new();
    ProtoDecoder::default().push(&line, t(0), &mut out);
    assert!(out[0].rejection().is_none(), "{:?}", out[0]);
}

#[test]
fn every_message_round_trips() {
    let messages = [
        Message::Hello(DeviceIdentity {
            role: "console".into(),
            make: "Make With Spaces".into(),
            model: "M=1*2%".into(),
            serial: "Ü-7".into(),
            firmware: "1".into(),
            protocol_version: 1,
        }),
        Message::Heartbeat,
        Message::Withheld {
            kind: "ORDER".into(),
            bytes: 120,
        },
        Message::Card {
            card: Some(card("QC")),
            target: Some(Target::Box(7)),
            index: Some(2),
            face_up: Some(true),
            retransmit: false,
        },
        Message::Card {
            card: None,
            target: None,
            index: None,
            face_up: None,
            retransmit: true,
        },
        Message::CuttingCardDrawn,
        Message::BurnCounted { count: 3 },
        Message::Result {
            outcome: Outcome::Tie,
            player_pair: Some(true),
            banker_pair: None,
        },
        Message::Error {
            code: "7".into(),
            text: "a b".into(),
        },
        Message::ErrorCleared { code: "7".into() },
        Message::Jam { location: None },
        Message::Door { open: true },
        Message::Lock { locked: false },
        Message::ShuffleStarted {
            decks: None,
            cycle: None,
        },
        Message::ShuffleStarted {
            decks: Some(4),
            cycle: Some(4_000_000_000),
        },
        Message::Status {
            cycles: 0,
            recognition_errors: Some(2),
            malfunctions: None,
        },
        Message::ShuffleStep {
            step: pitwatch_model::ShuffleStep::Riffle,
        },
        Message::ShuffleCompleted(DeckCheck {
            decks: None,
            cards: 52,
            expected: 52,
            missing: 0,
            extra: 0,
            foreign: 0,
            mode: Some(ShufflerKind::Continuous),
        }),
        Message::Cut { position: 0 },
        Message::CuttingCardPlaced { from_back: 14 },
        Message::CardExposed {
            card: None,
            during: ExposedDuring::Dealing,
        },
        Message::BetsClosed,
        Message::Table {
            state: TableState::Closed,
        },
        Message::CardsReplaced,
        Message::PlayerActed {
            target: Target::Seat(4),
            action: pitwatch_model::PlayerAction::AllIn,
        },
        Message::Misdeal {
            reason: pitwatch_model::MisdealReason::K,
            seats: vec![2, 9],
            ruling: pitwatch_model::MisdealRuling::Misdeal,
        },
        Message::Misdeal {
            reason: pitwatch_model::MisdealReason::A,
            seats: vec![],
            ruling: pitwatch_model::MisdealRuling::PlayedOut,
        },
        Message::Decision {
            target: Target::Box(3),
            hand: Some(2),
            action: Action::Double,
        },
        Message::Decision {
            target: Target::Box(1),
            hand: None,
            action: Action::InPlay,
        },
        Message::Dealer {
            signed_in: true,
            name: "Mere Te Whatu = 50% *".into(),
        },
        Message::Dealer {
            signed_in: false,
            name: "王 芳".into(),
        },
    ];
    let mut encoder = MessageEncoder::new();
    for message in &messages {
        let line = encoder.encode(message);
        let mut decoder = ProtoDecoder::default();
        let mut out = Vec::new();
        decoder.push(&line, t(0), &mut out);
        assert_eq!(out.len(), 1, "{}", String::from_utf8_lossy(&line));
        assert!(
            out[0].rejection().is_none(),
            "{}: {:?}",
            String::from_utf8_lossy(&line),
            out[0]
        );
        // Read it back through the same field parser the decoder uses.
        let text = std::str::from_utf8(&line).unwrap();
        let body = &text[..text.rfind(" *").unwrap()];
        let mut tokens = body.split(' ').skip(2);
        let kind = tokens.next().unwrap();
        let mut fields = message::Fields::new();
        for token in tokens {
            fields.add(token.as_bytes()).unwrap();
        }
        assert_eq!(&Message::from_parts(kind, &fields).unwrap(), message);
    }
}

#[test]
fn sequence_gaps_duplicates_and_restarts() {
    let mut bytes = encode(1, &Message::Heartbeat);
    bytes.extend(encode(2, &Message::BetsClosed));
    bytes.extend(encode(2, &Message::BetsClosed)); // duplicate
    bytes.extend(encode(5, &Message::BetsClosed)); // gap: 3 and 4 lost
    bytes.extend(encode(4, &Message::BetsClosed)); // backwards
    bytes.extend(encode(1, &Message::Heartbeat)); // device restarted
    bytes.extend(encode(2, &Message::BetsClosed));
    let outputs = decode(&bytes);
    assert_eq!(
        rejections(&outputs),
        [RejectKind::Duplicate, RejectKind::OutOfOrder]
    );
    assert_eq!(kinds(&outputs).len(), 3);
    assert!(notices(&outputs).contains(&Notice::SequenceGap {
        expected: 3,
        received: 5
    }));
}

/// One meaning of `retransmit` (`docs/events.md`): a `CARD` sent again is passed on only when the
/// host had not accepted it (its first line was lost), and is then counted once; a repeat of a
/// card accepted since the last round boundary is a duplicate.
#[test]
fn a_retransmitted_card_is_passed_on_once_and_a_repeat_of_an_accepted_one_is_a_duplicate() {
    let card_line = |seq: u64, c: &str, target: Option<Target>, index: Option<u8>, again: bool| {
        encode(
            seq,
            &Message::Card {
                card: Some(card(c)),
                target,
                index,
                face_up: None,
                retransmit: again,
            },
        )
    };
    let (p, b) = (Some(Target::Player), Some(Target::Banker));
    let mut bytes = card_line(1, "9S", p, Some(1), false);
    bytes.extend(card_line(2, "9S", p, Some(1), true)); // a repeat of an accepted card
    bytes.extend(card_line(3, "KH", b, Some(1), true)); // its first line was lost: passed on
    bytes.extend(card_line(4, "KH", b, Some(1), true)); // and now a repeat
    bytes.extend(card_line(5, "5C", None, None, false));
    bytes.extend(card_line(6, "5C", None, None, true)); // a plain repeat of the last card
    bytes.extend(card_line(7, "7D", None, None, true)); // a plain card whose first line was lost
    bytes.extend(encode(8, &Message::BetsClosed));
    bytes.extend(card_line(9, "9S", p, Some(1), true)); // a new round: not a repeat
    bytes.extend(card_line(10, "2D", p, Some(1), false)); // P1 again: a new round began
    bytes.extend(card_line(11, "9S", p, Some(1), true)); // not the card at P1 now
    let outputs = decode(&bytes);
    assert_eq!(
        rejections(&outputs),
        [
            RejectKind::Duplicate,
            RejectKind::Duplicate,
            RejectKind::Duplicate
        ]
    );
    let cards: Vec<(String, Option<bool>)> = kinds(&outputs)
        .into_iter()
        .filter_map(|k| match k {
            EventKind::CardDrawn {
                card, retransmit, ..
            } => Some((card.map_or("??".into(), |c| c.to_string()), retransmit)),
            _ => None,
        })
        .collect();
    let passed: Vec<(&str, Option<bool>)> = cards.iter().map(|(c, r)| (c.as_str(), *r)).collect();
    assert_eq!(
        passed,
        [
            ("9S", None),
            ("KH", Some(true)),
            ("5C", None),
            ("7D", Some(true)),
            ("9S", Some(true)),
            ("2D", None),
            ("9S", Some(true)),
        ]
    );
}

#[test]
fn configured_shuffler_rejects_cards_before_any_hello() {
    let config = ProtoConfig {
        role: Some(Role::Shuffler),
        ..ProtoConfig::default()
    };
    let mut bytes = encode(
        1,
        &Message::CardExposed {
            card: Some(card("AS")),
            during: ExposedDuring::Loading,
        },
    );
    bytes.extend(encode_raw(
        2,
        "SHUFFLE_DONE",
        &[
            ("cards", "52"),
            ("expected", "52"),
            ("missing", "0"),
            ("extra", "0"),
            ("foreign", "0"),
            ("cards_order", "AS,KD"),
        ],
    ));
    bytes.extend(encode_raw(3, "ORDER", &[("deck", "AS2S3S")]));
    let mut bad_crc = encode(
        4,
        &Message::Card {
            card: Some(card("AS")),
            target: None,
            index: None,
            face_up: None,
            retransmit: false,
        },
    );
    corrupt_checksum(&mut bad_crc);
    bytes.extend(bad_crc);
    let outputs = decode_with(config, &bytes);
    assert_eq!(
        rejections(&outputs),
        [
            RejectKind::Forbidden,
            RejectKind::Forbidden,
            RejectKind::Forbidden,
            RejectKind::BadChecksum
        ]
    );
    assert!(outputs.iter().all(|o| o.bytes().is_empty()), "{outputs:?}");
    // The same lines from a console are fine, except ORDER, which nobody may send.
    let outputs = decode(&bytes);
    assert_eq!(
        rejections(&outputs),
        [RejectKind::Forbidden, RejectKind::BadChecksum]
    );
}

#[test]
fn malformed_lines_are_rejected_with_reasons() {
    let cases: [(Vec<u8>, RejectKind, &str); 12] = [
        (
            b"hello there\r\n".to_vec(),
            RejectKind::Garbage,
            "not a PW message",
        ),
        (
            b"PW1 1 HB\r\n".to_vec(),
            RejectKind::Malformed,
            "no checksum",
        ),
        (
            b"PW1 1 HB *e72c\r\n".to_vec(),
            RejectKind::Malformed,
            "four upper-case hex",
        ),
        (
            encode_raw(1, "NOPE", &[]),
            RejectKind::Unsupported,
            "unknown message type NOPE",
        ),
        (
            encode_raw(1, "CARD", &[("card", "ZZ")]),
            RejectKind::Malformed,
            "not a card",
        ),
        (
            encode_raw(1, "CARD", &[("target", "player")]),
            RejectKind::Malformed,
            "needs card=",
        ),
        (
            encode_raw(1, "CARD", &[("card", "AS"), ("index", "0")]),
            RejectKind::Malformed,
            "count from 1",
        ),
        (
            encode_raw(1, "BURN", &[("count", "07")]),
            RejectKind::Malformed,
            "leading zeros",
        ),
        (
            encode_raw(1, "RESULT", &[("outcome", "draw")]),
            RejectKind::Malformed,
            "unknown outcome",
        ),
        (
            encode_raw(1, "HELLO", &[("proto", "2")]),
            RejectKind::Unsupported,
            "speaks version 1",
        ),
        (
            encode_raw(1, "cut", &[]),
            RejectKind::Malformed,
            "upper-case",
        ),
        (
            encode_raw(0, "HB", &[]),
            RejectKind::Malformed,
            "sequence number",
        ),
    ];
    for (line, kind, reason) in cases {
        let outputs = decode(&line);
        assert_eq!(outputs.len(), 1, "{outputs:?}");
        let rejection = outputs[0].rejection().expect("rejected");
        assert_eq!(rejection.kind, kind, "{}", String::from_utf8_lossy(&line));
        assert!(
            rejection.reason.contains(reason),
            "{}: {}",
            String::from_utf8_lossy(&line),
            rejection.reason
        );
    }
}

#[test]
fn noise_before_a_message_is_split_off() {
    let mut bytes = b"\x00\xffxx".to_vec();
    bytes.extend(encode(1, &Message::BetsClosed));
    let outputs = decode(&bytes);
    assert_eq!(rejections(&outputs), [RejectKind::Garbage]);
    assert_eq!(outputs[0].bytes(), b"\x00\xffxx");
    assert_eq!(kinds(&outputs), [EventKind::BetsClosed]);
}

#[test]
fn over_long_lines_are_rejected_and_bare_newlines_accepted() {
    let mut bytes = vec![b'P'; 600];
    bytes.push(b'\n');
    bytes.extend(b"\n\n");
    let mut line = encode(1, &Message::CuttingCardDrawn);
    line.remove(line.len() - 2); // "\n" only
    bytes.extend(line);
    let outputs = decode(&bytes);
    assert_eq!(
        rejections(&outputs),
        [
            RejectKind::TooLong,
            RejectKind::TooLong,
            RejectKind::TooLong
        ]
    );
    assert_eq!(kinds(&outputs), [EventKind::CuttingCardDrawn]);
}

#[test]
fn event_encoder_round_trips_every_event_kind() {
    use pitwatch_codec::Encoder;
    let mut failing_check = TableEvent::new(
        0,
        EventKind::Shuffled {
            decks: Some(1),
            cards: Some(51),
            shuffler: None,
        },
    );
    for (key, value) in [
        ("expected_cards", 52),
        ("missing_cards", 1),
        ("extra_cards", 0),
        ("foreign_cards", 0),
    ] {
        failing_check.extra.insert(key.into(), value.into());
    }
    let kinds_in = [
        EventKind::Shuffled {
            decks: Some(8),
            cards: Some(416),
            shuffler: Some(ShufflerKind::Batch),
        },
        EventKind::Cut { position: 200 },
        EventKind::CuttingCardPlaced { from_back: 16 },
        EventKind::CardDrawn {
            card: Some(card("7D")),
            target: Some(Target::First),
            index: Some(1),
            face_up: Some(true),
            retransmit: None,
        },
        EventKind::BurnCounted { count: 7 },
        EventKind::CardDrawn {
            card: None,
            target: Some(Target::Seat(3)),
            index: None,
            face_up: Some(false),
            retransmit: Some(true),
        },
        EventKind::CuttingCardDrawn,
        EventKind::ResultDeclared {
            outcome: Outcome::Void,
            player_pair: None,
            banker_pair: Some(false),
        },
        EventKind::CardExposed {
            card: Some(card("KS")),
            during: ExposedDuring::Loading,
        },
        EventKind::DeviceError {
            code: "JAM".into(),
            text: "card jam at exit".into(),
        },
        EventKind::DeviceErrorCleared { code: "JAM".into() },
        EventKind::LockChanged { locked: true },
        EventKind::TableStateChanged {
            state: TableState::Open,
        },
        EventKind::CardsReplaced,
        EventKind::BetsClosed,
        EventKind::PlayerActed {
            target: Target::Seat(6),
            action: pitwatch_model::PlayerAction::Raise,
        },
        EventKind::MisdealDeclared {
            reason: pitwatch_model::MisdealReason::F,
            seats: vec![3],
            ruling: pitwatch_model::MisdealRuling::DeadHand,
        },
        EventKind::Decision {
            target: Target::Box(7),
            hand: Some(1),
            action: Action::Split,
        },
        EventKind::Decision {
            target: Target::Box(2),
            hand: None,
            action: Action::Surrender,
        },
        // A card and a decision naming the hand within the box (`box:N.H`).
        EventKind::CardDrawn {
            card: Some(card("9C")),
            target: Some(Target::Hand { number: 3, hand: 2 }),
            index: Some(2),
            face_up: Some(true),
            retransmit: None,
        },
        EventKind::Decision {
            target: Target::Hand { number: 3, hand: 1 },
            hand: None,
            action: Action::Stand,
        },
    ];
    let mut encoder = ProtoEncoder::new();
    let mut bytes = encoder.hello(DeviceIdentity {
        role: "console".into(),
        make: "Sim".into(),
        model: "Honest dealer".into(),
        serial: "0".into(),
        firmware: "1".into(),
        protocol_version: 1,
    });
    for kind in &kinds_in {
        bytes.extend(encoder.encode(&TableEvent::new(0, kind.clone())).unwrap());
    }
    bytes.extend(encoder.encode(&failing_check).unwrap());
    let text = String::from_utf8_lossy(&bytes);
    assert!(text.contains(" target=box:3.2 "), "{text}");
    // A session recorded by a host of revision 2 read `box:N.H` as malformed: it still does, in
    // that host's words, so a replay of its bytes judges them as live did.
    let before = ProtoConfig {
        revision: 2,
        ..ProtoConfig::default()
    };
    let old = decode_with(before, &bytes);
    assert_eq!(rejections(&old), [RejectKind::Malformed; 2], "{old:#?}");
    assert!(
        format!("{old:?}").contains(r#"CARD: target: \"box:3.2\": the number must be 1 to 255"#),
        "{old:#?}"
    );
    let outputs = decode(&bytes);
    assert!(rejections(&outputs).is_empty(), "{outputs:#?}");
    let mut expected = kinds_in.to_vec();
    expected.push(failing_check.kind.clone());
    assert_eq!(kinds(&outputs), expected);
    let mut line = encoder
        .encode(&TableEvent::new(0, EventKind::BetsClosed))
        .unwrap();
    assert!(encoder.corrupt_checksum(&mut line));
    assert_eq!(rejections(&decode(&line)), [RejectKind::BadChecksum]);
}

proptest! {
    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..700)) {
        let _ = decode(&bytes);
        let _ = decode_with(ProtoConfig { role: Some(Role::Shuffler), ..ProtoConfig::default() }, &bytes);
    }

    #[test]
    fn arbitrary_text_lines_never_panic(text in "PW1 [0-9]{1,3} [A-Z_]{1,8}( [a-z]{1,6}=[ -~]{0,8}){0,4}( \\*[0-9A-F]{4})?\r?\n") {
        let _ = decode(text.as_bytes());
    }

    #[test]
    fn chunking_does_not_change_the_outputs(
        lines in proptest::collection::vec(
            prop_oneof![
                (1u64..5).prop_map(|seq| encode(seq, &Message::BetsClosed)),
                proptest::collection::vec(any::<u8>(), 0..40),
                Just(b"\r\n".to_vec()),
            ],
            0..12,
        ),
        chunk in 1usize..30,
    ) {
        let bytes = lines.concat();
        let expected = decode(&bytes);
        let mut decoder = ProtoDecoder::default();
        let mut out = Vec::new();
        for piece in bytes.chunks(chunk) {
            decoder.push(piece, t(0), &mut out);
        }
        decoder.finish(t(0), &mut out);
        prop_assert_eq!(out, expected);
    }

    #[test]
    fn decoding_resynchronises_after_garbage(
        garbage in proptest::collection::vec(any::<u8>(), 0..300),
        position in 0u32..1000,
    ) {
        let mut bytes = garbage;
        bytes.push(b'\n');
        let line = encode(1, &Message::Cut { position });
        bytes.extend(&line);
        let outputs = decode(&bytes);
        let last = outputs.last().unwrap();
        prop_assert!(last.rejection().is_none(), "{:?}", outputs);
        prop_assert_eq!(last.bytes(), &line[..]);
        prop_assert_eq!(last.events()[0].kind.clone(), EventKind::Cut { position });
    }
}
