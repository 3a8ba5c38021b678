//! Unit and property tests of the Angel Eye codec, built from the layouts in `docs/devices.md`.

use super::*;
use crate::encode::{corrupt_bcc, encode_ack, encode_nak, encode_response, parse_command};
use proptest::prelude::*;

fn t(ms: i64) -> Timestamp {
    Timestamp::from_unix_millis(1_796_000_000_000 + ms).unwrap()
}

fn card(text: &str) -> Card {
    text.parse().unwrap()
}

fn decode(bytes: &[u8]) -> Vec<DecodeOutput> {
    let mut decoder = AngelEyeDecoder::default();
    pitwatch_codec::decode_all(&mut decoder, bytes, t(0))
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

fn drawn(card_: Option<Card>, target: Target, index: Option<u8>) -> EventKind {
    EventKind::CardDrawn {
        card: card_,
        target: Some(target),
        index,
        face_up: None,
        retransmit: None,
    }
}

/// A report frame with hand-computed BCC, from the layout table.
fn report(seq: u8, data: &[u8]) -> Vec<u8> {
    let mut frame = vec![ENQ, seq];
    frame.extend_from_slice(data);
    frame.push(ETX);
    let bcc = frame[1..].iter().fold(0u8, |a, b| a ^ b);
    frame.extend_from_slice(format!("{bcc:02X}").as_bytes());
    frame
}

#[test]
fn documented_card_example_is_player_one_eight_of_spades() {
    let frame = report(b'1', &[b'D', 0x81, 0xB8]);
    let outputs = decode(&frame);
    assert_eq!(
        kinds(&outputs),
        [drawn(Some(card("8S")), Target::Player, Some(1))]
    );
    let DecodeOutput::Accepted(accepted) = &outputs[0] else {
        panic!("not accepted: {outputs:?}")
    };
    assert_eq!(&accepted.frame[..], &frame[..]);
    assert_eq!(accepted.device_seq, Some(u64::from(b'1')));
    assert_eq!(accepted.events[0].seq, 1);
    assert_eq!(accepted.events[0].at, Some(t(0)));
}

#[test]
fn published_command_example_needs_stx_in_the_bcc() {
    let lock = [0x02, 0x4F, 0x50, 0x4C, 0x4B, 0x30, 0x32, 0x03];
    assert_eq!(BccVariant::IncludeStart.compute(&lock), 0x1B);
    assert_eq!(BccVariant::ExcludeStart.compute(&lock), 0x19);
    let mut expected = lock.to_vec();
    expected.extend_from_slice(b"1B");
    assert_eq!(
        encode_command(Command::Lock, BccVariant::IncludeStart).unwrap(),
        expected
    );
    assert_eq!(
        AngelEyeConfig::default()
            .encode_command(Command::Lock)
            .unwrap(),
        expected
    );
    let exclude = encode_command(Command::Lock, BccVariant::ExcludeStart).unwrap();
    assert_eq!(&exclude[8..], b"19");
}

#[test]
fn commands_round_trip_and_check_their_bcc() {
    for variant in [BccVariant::ExcludeStart, BccVariant::IncludeStart] {
        for command in [
            Command::Lock,
            Command::Unlock,
            Command::ClearError(7),
            Command::ClearError(42),
            Command::ConfirmGameProcess,
        ] {
            let frame = encode_command(command, variant).unwrap();
            assert_eq!(parse_command(&frame, variant), Ok(command));
        }
    }
    let unlock = encode_command(Command::Unlock, BccVariant::ExcludeStart).unwrap();
    assert_eq!(&unlock[1..7], b"OPLK01");
    assert_eq!(
        &encode_command(Command::ClearError(3), BccVariant::ExcludeStart).unwrap()[1..7],
        b"OPEC03"
    );
    assert_eq!(
        &encode_command(Command::ConfirmGameProcess, BccVariant::ExcludeStart).unwrap()[1..7],
        b"OPGP00"
    );
    assert!(matches!(
        parse_command(&unlock, BccVariant::IncludeStart),
        Err(CommandError::BadBcc { .. })
    ));
    assert_eq!(
        encode_command(Command::ClearError(100), BccVariant::ExcludeStart),
        Err(CommandError::ErrorNumberTooLarge(100))
    );
}

#[test]
fn every_report_code_decodes() {
    let mut bytes = Vec::new();
    for (seq, data) in [
        (b'0', &b"S"[..]),
        (b'1', b"P"),
        (b'2', &[b'D', 0x90, 0x9D]), // banker 0, ... malformed? no: index 0 -> rejected below
        (b'3', &[b'D', 0xC0, 0xA1]), // first card, index 0, ace of clubs
        (b'4', &[b'D', 0xD5, 0x80]), // burn count 5
        (b'5', &[b'D', 0xA1, 0x80]), // burn card 1, unread
        (b'6', &[b'D', 0x92, 0xCD]), // banker 2, king of hearts
        (b'7', b"C"),
        (b'8', &[b'G', 0x93]), // player win, both pairs
        (b'9', &[b'E', 0xC2]), // error 2, in error mode
        (b'0', &[b'e', 0x82]),
        (b'1', b"L1"),
        (b'2', b"L0"),
        (b'3', b"M0A1234"),
        (b'4', &[b'd', 0x90, 0x91]), // card outside a game, error mode, ace of diamonds
    ] {
        bytes.extend(report(seq, data));
    }
    bytes.extend(encode_ack());
    bytes.extend(encode_nak(0x02));
    bytes.extend(encode_response(b"OPLK02", BccVariant::ExcludeStart));
    let outputs = decode(&bytes);
    assert_eq!(
        rejections(&outputs),
        [RejectKind::Malformed],
        "{outputs:#?}"
    );
    assert_eq!(
        kinds(&outputs),
        [
            drawn(Some(card("AC")), Target::First, None),
            EventKind::BurnCounted { count: 5 },
            drawn(None, Target::Burn, Some(1)),
            drawn(Some(card("KH")), Target::Banker, Some(2)),
            EventKind::CuttingCardDrawn,
            EventKind::ResultDeclared {
                outcome: Outcome::Player,
                player_pair: Some(true),
                banker_pair: Some(true)
            },
            EventKind::DeviceError {
                code: "2".into(),
                text: "overdraw".into()
            },
            EventKind::DeviceErrorCleared { code: "2".into() },
            EventKind::LockChanged { locked: true },
            EventKind::LockChanged { locked: false },
            EventKind::CardDrawn {
                card: Some(card("AD")),
                target: None,
                index: None,
                face_up: None,
                retransmit: None
            },
        ]
    );
    let events: Vec<&TableEvent> = outputs.iter().flat_map(|o| o.events()).collect();
    let seqs: Vec<u64> = events.iter().map(|e| e.seq).collect();
    assert_eq!(seqs, (1..=11).collect::<Vec<_>>());
    assert_eq!(events[0].extra["device_index"], 0);
    assert_eq!(events[6].extra["error_mode"], true);
    assert_eq!(events[10].extra["outside_game"], "error");
    let notices: Vec<&Notice> = outputs
        .iter()
        .flat_map(|o| match o {
            DecodeOutput::Accepted(a) => a.notices.iter(),
            DecodeOutput::Rejected(_) => [].iter(),
        })
        .collect();
    assert_eq!(
        notices,
        [
            &Notice::CommunicationStarted,
            &Notice::Standby,
            &Notice::PresetChanged {
                address: "0A".into(),
                value: "1234".into()
            },
            &Notice::Ack,
            &Notice::Nak {
                code: 2,
                text: "BCC error"
            },
            &Notice::Response {
                data: "OPLK02".into()
            },
        ]
    );
}

#[test]
fn results_map_every_winner_and_pair() {
    let cases = [
        (0x90, Outcome::Player, false, false),
        (0xA1, Outcome::Tie, true, false),
        (0xC2, Outcome::Banker, false, true),
        (0xF3, Outcome::Void, true, true),
    ];
    for (i, (byte, outcome, pp, bp)) in cases.into_iter().enumerate() {
        let outputs = decode(&report(b'0' + i as u8, &[b'G', byte]));
        assert_eq!(
            kinds(&outputs),
            [EventKind::ResultDeclared {
                outcome,
                player_pair: Some(pp),
                banker_pair: Some(bp)
            }]
        );
    }
    for bad in [0x10, 0x80, 0xB0, 0xD0, 0xE0] {
        assert_eq!(
            rejections(&decode(&report(b'0', &[b'G', bad]))),
            [RejectKind::Malformed]
        );
    }
}

#[test]
fn error_codes_have_their_documented_texts() {
    let texts = [
        "cannot read",
        "overdraw",
        "mishandling of button",
        "reverse run at exit",
        "reverse run midway",
        "card code error",
        "drawing time-out",
    ];
    for (code, text) in (1u8..=7).zip(texts) {
        let outputs = decode(&report(b'0', &[b'E', 0x80 | code]));
        assert_eq!(
            kinds(&outputs),
            [EventKind::DeviceError {
                code: code.to_string(),
                text: text.into()
            }]
        );
        assert_eq!(outputs[0].events()[0].extra["error_mode"], false);
    }
    assert_eq!(
        rejections(&decode(&report(b'0', &[b'E', 0x02]))),
        [RejectKind::Malformed]
    );
}

#[test]
fn error_clear_code_may_look_like_a_start_byte() {
    // `e` carries the code in the low 7 bits; with bit 7 clear, codes 5 and 6 are ENQ and ACK.
    let outputs = decode(&report(b'0', &[b'e', 0x05]));
    assert_eq!(
        kinds(&outputs),
        [EventKind::DeviceErrorCleared { code: "5".into() }]
    );
    let outputs = decode(&report(b'1', &[b'e', 0x03]));
    assert_eq!(
        kinds(&outputs),
        [EventKind::DeviceErrorCleared { code: "3".into() }]
    );
}

#[test]
fn malformed_cards_are_rejected_with_reasons() {
    let cases: [(&[u8], &str); 9] = [
        (&[b'D', 0x80, 0xB8], "player card index 0 is not 1 to 3"),
        (&[b'D', 0x84, 0xB8], "player card index 4 is not 1 to 3"),
        (&[b'D', 0x91, 0x88], "no suit or no rank"),
        (&[b'D', 0x91, 0xB0], "no suit or no rank"),
        (&[b'D', 0x81, 0xBE], "rank 14 is not 1 to 13"),
        (&[b'D', 0x81, 0xD8], "suit bits 101"),
        (&[b'D', 0xB1, 0xB8], "target bits 011"),
        (&[b'D', 0x01, 0xB8], "B1 0x01 must have bit 7 set"),
        (&[b'D', 0xAB, 0xB8], "index 11 is not 0 to 10"),
    ];
    for (data, reason) in cases {
        let outputs = decode(&report(b'0', data));
        let rejection = outputs[0].rejection().expect("rejected");
        assert_eq!(rejection.kind, RejectKind::Malformed);
        assert!(
            rejection.reason.contains(reason),
            "{:?}: {}",
            data,
            rejection.reason
        );
        assert_eq!(outputs.len(), 1);
    }
}

#[test]
fn duplicate_seq_is_dropped_once() {
    let frame = report(b'4', &[b'D', 0x81, 0xB8]);
    let mut bytes = frame.clone();
    bytes.extend(&frame);
    bytes.extend(report(b'5', &[b'D', 0x91, 0xB8]));
    bytes.extend(&frame); // Seq 4 again, but not the previous report's Seq: processed.
    let outputs = decode(&bytes);
    assert_eq!(
        rejections(&outputs),
        [RejectKind::Duplicate],
        "{outputs:#?}"
    );
    assert_eq!(kinds(&outputs).len(), 3);
    assert!(outputs[1].rejection().unwrap().reason.contains("Seq 4"));
}

#[test]
fn retransmission_never_overwrites_an_accepted_card() {
    let mut bytes = report(b'0', &[b'D', 0x81, 0xB8]); // player 1: 8S
    bytes.extend(report(b'1', &[b'R', 0x81, 0xC1])); // R player 1: AH, must not replace
    bytes.extend(report(b'2', &[b'R', 0x91, 0xC1])); // R banker 1 not seen yet: accepted
    bytes.extend(report(b'3', &[b'R', 0x91, 0xC1])); // and now it is a duplicate
    bytes.extend(report(b'4', &[b'G', 0x90])); // result ends the round
    bytes.extend(report(b'5', &[b'R', 0x81, 0xC1])); // new round: accepted
    let outputs = decode(&bytes);
    assert_eq!(
        rejections(&outputs),
        [RejectKind::Duplicate, RejectKind::Duplicate]
    );
    let retransmitted = EventKind::CardDrawn {
        card: Some(card("AH")),
        target: Some(Target::Banker),
        index: Some(1),
        face_up: None,
        retransmit: Some(true),
    };
    let kinds = kinds(&outputs);
    assert_eq!(kinds[0], drawn(Some(card("8S")), Target::Player, Some(1)));
    assert_eq!(kinds[1], retransmitted);
    assert_eq!(kinds.len(), 4);
    assert!(outputs[1]
        .rejection()
        .unwrap()
        .reason
        .contains("already accepted"));
}

#[test]
fn bad_bcc_is_rejected_and_the_next_frame_still_decodes() {
    let mut bad = report(b'0', &[b'D', 0x81, 0xB8]);
    corrupt_bcc(&mut bad);
    let mut bytes = bad.clone();
    bytes.extend(report(b'1', b"C"));
    let outputs = decode(&bytes);
    assert_eq!(rejections(&outputs), [RejectKind::BadChecksum]);
    assert_eq!(outputs[0].bytes(), &bad[..]);
    assert_eq!(kinds(&outputs), [EventKind::CuttingCardDrawn]);
    // Lower-case hex is not what the shoe sends.
    let mut lower = report(b'0', b"C");
    lower[5] = b'a';
    assert_eq!(rejections(&decode(&lower)), [RejectKind::Malformed]);
}

#[test]
fn garbage_is_skipped_and_reported() {
    let mut bytes = b"noise\xff\x00".to_vec();
    bytes.extend(report(b'0', b"C"));
    bytes.extend(b"\x7f\x7f");
    bytes.extend(report(b'1', b"C"));
    let outputs = decode(&bytes);
    assert_eq!(
        rejections(&outputs),
        [RejectKind::Garbage, RejectKind::Garbage]
    );
    assert_eq!(outputs[0].bytes(), b"noise\xff\x00");
    assert_eq!(kinds(&outputs).len(), 2);
}

#[test]
fn a_partial_frame_past_128_bytes_is_given_up() {
    let mut bytes = vec![STX];
    bytes.extend(std::iter::repeat_n(b'A', 200));
    bytes.extend(report(b'0', b"C"));
    let outputs = decode(&bytes);
    assert_eq!(
        rejections(&outputs),
        [RejectKind::TooLong, RejectKind::Garbage]
    );
    assert_eq!(outputs[0].bytes().len(), MAX_FRAME);
    assert_eq!(outputs[1].bytes().len(), 201 - MAX_FRAME);
    assert_eq!(kinds(&outputs), [EventKind::CuttingCardDrawn]);
    // A response of exactly the limit (ETX at byte 127) is still a frame.
    let data = vec![b'A'; MAX_FRAME - 2];
    let outputs = decode(&encode_response(&data, BccVariant::ExcludeStart));
    assert!(rejections(&outputs).is_empty(), "{outputs:?}");
}

#[test]
fn a_frame_cut_short_by_the_next_one_is_truncated() {
    let mut bytes = vec![ENQ, b'0', b'D', 0x81];
    bytes.extend(report(b'1', &[b'D', 0x81, 0xB8]));
    let outputs = decode(&bytes);
    assert_eq!(rejections(&outputs), [RejectKind::Malformed]);
    assert_eq!(outputs[0].bytes(), &[ENQ, b'0', b'D', 0x81]);
    assert_eq!(kinds(&outputs).len(), 1);
    // The stream ending inside a frame.
    let outputs = decode(&[ENQ, b'0', b'D']);
    assert_eq!(rejections(&outputs), [RejectKind::Truncated]);
}

#[test]
fn receive_bcc_variant_is_configurable() {
    let response = encode_response(b"OK", BccVariant::IncludeStart);
    assert_eq!(rejections(&decode(&response)), [RejectKind::BadChecksum]);
    let mut decoder = AngelEyeDecoder::new(AngelEyeConfig {
        receive_bcc: BccVariant::IncludeStart,
        ..AngelEyeConfig::default()
    });
    let outputs = pitwatch_codec::decode_all(&mut decoder, &response, t(0));
    assert!(rejections(&outputs).is_empty());
}

#[test]
fn encoder_round_trips_every_report() {
    let reports = [
        Report::CommunicationStarted,
        Report::Standby,
        Report::Card {
            slot: CardSlotKind::First,
            index: 1,
            card: Some(card("TD")),
            retransmit: false,
        },
        Report::Card {
            slot: CardSlotKind::BurnCount,
            index: 10,
            card: None,
            retransmit: false,
        },
        Report::Card {
            slot: CardSlotKind::Player,
            index: 3,
            card: Some(card("QS")),
            retransmit: false,
        },
        Report::Card {
            slot: CardSlotKind::Banker,
            index: 3,
            card: Some(card("2C")),
            retransmit: true,
        },
        Report::CuttingCardDrawn,
        Report::Result {
            outcome: Outcome::Banker,
            player_pair: false,
            banker_pair: true,
        },
        Report::CardOutsideGame {
            mode: OutsideGameMode::Setting,
            card: Some(card("5H")),
        },
        Report::Error {
            code: 7,
            in_error_mode: true,
        },
        Report::ErrorCleared { code: 7 },
        Report::Lock { locked: true },
        Report::PresetChanged {
            address: *b"01",
            value: *b"0480",
        },
    ];
    let mut encoder = ReportEncoder::new();
    let mut bytes = Vec::new();
    for r in &reports {
        bytes.extend(encoder.encode(r));
    }
    let outputs = decode(&bytes);
    assert_eq!(outputs.len(), reports.len());
    assert!(rejections(&outputs).is_empty(), "{outputs:#?}");
    assert_eq!(
        kinds(&outputs),
        [
            drawn(Some(card("TD")), Target::First, Some(1)),
            EventKind::BurnCounted { count: 10 },
            drawn(Some(card("QS")), Target::Player, Some(3)),
            EventKind::CardDrawn {
                card: Some(card("2C")),
                target: Some(Target::Banker),
                index: Some(3),
                face_up: None,
                retransmit: Some(true)
            },
            EventKind::CuttingCardDrawn,
            EventKind::ResultDeclared {
                outcome: Outcome::Banker,
                player_pair: Some(false),
                banker_pair: Some(true)
            },
            EventKind::CardDrawn {
                card: Some(card("5H")),
                target: None,
                index: None,
                face_up: None,
                retransmit: None
            },
            EventKind::DeviceError {
                code: "7".into(),
                text: "drawing time-out".into()
            },
            EventKind::DeviceErrorCleared { code: "7".into() },
            EventKind::LockChanged { locked: true },
        ]
    );
}

#[test]
fn every_card_round_trips_in_both_hands() {
    let mut encoder = ReportEncoder::new();
    for i in 0..Card::DISTINCT {
        let c = Card::from_index(i).unwrap();
        for slot in [CardSlotKind::Player, CardSlotKind::Banker] {
            let frame = encoder.encode(&Report::Card {
                slot,
                index: 2,
                card: Some(c),
                retransmit: false,
            });
            let target = if slot == CardSlotKind::Player {
                Target::Player
            } else {
                Target::Banker
            };
            assert_eq!(kinds(&decode(&frame)), [drawn(Some(c), target, Some(2))]);
        }
    }
}

#[test]
fn unknown_report_codes_are_rejected_not_dropped() {
    let outputs = decode(&report(b'0', b"Zxyz"));
    assert_eq!(rejections(&outputs), [RejectKind::Malformed]);
    assert!(outputs[0]
        .rejection()
        .unwrap()
        .reason
        .contains("unknown report code Z"));
    let outputs = decode(&report(b'0', b""));
    assert_eq!(rejections(&outputs), [RejectKind::Malformed]);
}

/// Outputs without their times, for comparing runs that split the bytes differently.
fn timeless(outputs: Vec<DecodeOutput>) -> Vec<DecodeOutput> {
    let zero = t(0);
    outputs
        .into_iter()
        .map(|o| match o {
            DecodeOutput::Accepted(mut a) => {
                a.at = zero;
                for e in &mut a.events {
                    e.at = Some(zero);
                }
                DecodeOutput::Accepted(a)
            }
            DecodeOutput::Rejected(mut r) => {
                r.at = zero;
                DecodeOutput::Rejected(r)
            }
        })
        .collect()
}

fn valid_frame() -> impl Strategy<Value = Vec<u8>> {
    (0usize..52, 1u8..=3, any::<bool>(), 0u8..10).prop_map(|(c, index, banker, seq)| {
        let slot = if banker {
            CardSlotKind::Banker
        } else {
            CardSlotKind::Player
        };
        encode_report(
            b'0' + seq,
            &Report::Card {
                slot,
                index,
                card: Card::from_index(c),
                retransmit: false,
            },
        )
    })
}

proptest! {
    #[test]
    fn arbitrary_bytes_never_panic_and_every_byte_is_accounted_for(
        bytes in proptest::collection::vec(any::<u8>(), 0..600),
        split in 0usize..600,
    ) {
        let mut decoder = AngelEyeDecoder::default();
        let mut out = Vec::new();
        let split = split.min(bytes.len());
        decoder.push(&bytes[..split], t(1), &mut out);
        decoder.push(&bytes[split..], t(2), &mut out);
        decoder.finish(t(3), &mut out);
        let replayed: Vec<u8> = out.iter().flat_map(|o| o.bytes().to_vec()).collect();
        prop_assert_eq!(replayed, bytes);
    }

    #[test]
    fn chunking_does_not_change_the_outputs(
        bytes in proptest::collection::vec(
            prop_oneof![any::<u8>(), Just(ENQ), Just(ETX), Just(STX), Just(b'D')], 0..400),
        chunk in 1usize..20,
    ) {
        let whole = timeless(decode(&bytes));
        let mut decoder = AngelEyeDecoder::default();
        let mut out = Vec::new();
        for piece in bytes.chunks(chunk) {
            decoder.push(piece, t(5), &mut out);
        }
        decoder.finish(t(6), &mut out);
        prop_assert_eq!(timeless(out), whole);
    }

    #[test]
    fn decoding_resynchronises_after_garbage(
        garbage in proptest::collection::vec(any::<u8>(), 0..300),
        frames in proptest::collection::vec(valid_frame(), 3),
    ) {
        let mut bytes = garbage;
        let mut last = frames[2].clone();
        last[1] = b'z'; // a Seq the garbage cannot have made "previous"
        let bcc = BccVariant::ExcludeStart.compute(&last[..last.len() - 2]);
        let n = last.len();
        last[n - 2..].copy_from_slice(format!("{bcc:02X}").as_bytes());
        bytes.extend(&frames[0]);
        bytes.extend(&frames[1]);
        bytes.extend(&last);
        let outputs = decode(&bytes);
        let final_output = outputs.last().unwrap();
        prop_assert!(matches!(final_output, DecodeOutput::Accepted(_)), "{:?}", outputs);
        prop_assert_eq!(final_output.bytes(), &last[..]);
    }
}

#[test]
fn event_encoder_round_trips_what_the_shoe_can_say() {
    use pitwatch_codec::Encoder;
    let mut outside = TableEvent::new(0, EventKind::card(card("4C")));
    outside
        .extra
        .insert("outside_game".into(), Value::from("lock"));
    let mut kinds_in = vec![
        drawn(None, Target::First, Some(1)),
        EventKind::BurnCounted { count: 4 },
        drawn(None, Target::Burn, Some(1)),
        drawn(Some(card("2S")), Target::Player, Some(1)),
        drawn(Some(card("3H")), Target::Banker, Some(1)),
        EventKind::CardDrawn {
            card: Some(card("3H")),
            target: Some(Target::Banker),
            index: Some(2),
            face_up: None,
            retransmit: Some(true),
        },
        EventKind::CuttingCardDrawn,
        EventKind::ResultDeclared {
            outcome: Outcome::Tie,
            player_pair: Some(false),
            banker_pair: Some(true),
        },
        EventKind::DeviceError {
            code: "4".into(),
            text: "reverse run at exit".into(),
        },
        EventKind::DeviceErrorCleared { code: "4".into() },
        EventKind::LockChanged { locked: false },
    ];
    let mut encoder = AngelEyeEncoder::new();
    let mut bytes = Vec::new();
    for kind in &kinds_in {
        bytes.extend(encoder.encode(&TableEvent::new(0, kind.clone())).unwrap());
    }
    bytes.extend(encoder.encode(&outside).unwrap());
    kinds_in.push(outside.kind.clone());
    let outputs = decode(&bytes);
    assert!(rejections(&outputs).is_empty(), "{outputs:#?}");
    assert_eq!(kinds(&outputs), kinds_in);
    assert_eq!(
        outputs.last().unwrap().events()[0].extra["outside_game"],
        "lock"
    );

    // What the shoe cannot say is refused, not approximated.
    for kind in [
        EventKind::Cut { position: 3 },
        EventKind::BetsClosed,
        EventKind::card(card("AS")),
        drawn(None, Target::Player, Some(1)),
        drawn(Some(card("AS")), Target::Player, Some(4)),
        drawn(Some(card("AS")), Target::Box(1), Some(1)),
        EventKind::DeviceError {
            code: "JAM".into(),
            text: String::new(),
        },
        EventKind::BurnCounted { count: 11 },
    ] {
        assert_eq!(
            encoder.encode(&TableEvent::new(0, kind.clone())),
            None,
            "{kind:?}"
        );
    }

    // Fault injection: a corrupted checksum is rejected.
    let mut frame = encoder
        .encode(&TableEvent::new(0, EventKind::CuttingCardDrawn))
        .unwrap();
    assert!(encoder.corrupt_checksum(&mut frame));
    assert_eq!(rejections(&decode(&frame)), [RejectKind::BadChecksum]);
}
