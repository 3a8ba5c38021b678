//! Codec for barcode card-reader shoes: the scanner sends one three-digit ASCII code per card,
//! terminated by `\r` (a `\n` is tolerated as well).
//!
//! Codes `001`–`052` are cards, `code = 4 × (rank − 1) + s` with rank A = 1 … K = 13 and
//! s = ♦ 1, ♣ 2, ♥ 3, ♠ 4; code `511` is the shuffle (new shoe) card and becomes `shuffled`.
//! The shoe knows no hands, so cards carry no target: the rules engine assigns them.
//!
//! Scanners repeat a code when a card is rescanned. The same code arriving again within the
//! repeat window (300 ms by default, measured by host receive time from the last time the code was
//! seen) is the same card: it is reported as a [`RejectKind::Duplicate`] and produces no event.
//! Measuring from the last sighting rather than the first keeps a card resting on the scanner
//! from turning into a second card after the window; two identical cards in a row from a
//! multi-deck shoe are still two cards, because no dealer draws twice within 300 ms.
//!
//! Anything else on a line (letters, a wrong number of digits, codes outside the table) rejects
//! that line with the reason; framing restarts at the next line end, so garbage never costs more
//! than its own line. A line longer than [`MAX_LINE`] bytes (terminator included) is reported in pieces as it grows.

use pitwatch_codec::{
    escape_bytes, Accepted, DecodeOutput, Decoder, EventNumbering, FrameBytes, LineFramer,
    LinePiece, RejectKind, Rejection,
};
use pitwatch_model::{Card, EventKind, Rank, Suit, Timestamp};

/// The name under which this protocol is configured.
pub const PROTOCOL: &str = "barcode";
/// The code of the shuffle (new shoe) card.
pub const SHUFFLE_CODE: u16 = 511;
/// The longest line, terminator included; a longer one is rejected in pieces this long.
pub const MAX_LINE: usize = 16;

/// Settings of one barcode stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BarcodeConfig {
    /// A repeat of the same code within this many milliseconds is the same card (0: off).
    pub repeat_window_ms: u64,
}

impl Default for BarcodeConfig {
    fn default() -> Self {
        BarcodeConfig {
            repeat_window_ms: 300,
        }
    }
}

/// The code of `card`.
pub fn card_code(card: Card) -> u16 {
    let s = match card.suit {
        Suit::Diamonds => 1,
        Suit::Clubs => 2,
        Suit::Hearts => 3,
        Suit::Spades => 4,
    };
    4 * (u16::from(card.rank.pip()) - 1) + s
}

/// The card with code `code` (1–52), or `None`.
pub fn card_from_code(code: u16) -> Option<Card> {
    if !(1..=52).contains(&code) {
        return None;
    }
    let zero_based = code - 1;
    let rank = Rank::from_pip((zero_based / 4 + 1) as u8)?;
    let suit = match zero_based % 4 {
        0 => Suit::Diamonds,
        1 => Suit::Clubs,
        2 => Suit::Hearts,
        _ => Suit::Spades,
    };
    Some(Card::new(rank, suit))
}

/// The line a scanner sends for `card`.
pub fn encode_card(card: Card) -> Vec<u8> {
    encode_code(card_code(card))
}

/// The line a scanner sends for the shuffle card.
pub fn encode_shuffle_card() -> Vec<u8> {
    encode_code(SHUFFLE_CODE)
}

/// The line for any three-digit `code` (fault injection can send codes outside the table).
pub fn encode_code(code: u16) -> Vec<u8> {
    format!("{:03}\r", code % 1000).into_bytes()
}

/// Canonical events to scanner lines, for the simulator: a card drawn with a known card becomes
/// its code (a scanner knows no targets, so they are dropped), `shuffled` becomes the shuffle card.
/// Everything else, and an unreadable card, has no line.
#[derive(Debug, Clone, Copy, Default)]
pub struct BarcodeEncoder;

impl pitwatch_codec::Encoder for BarcodeEncoder {
    fn protocol(&self) -> &'static str {
        PROTOCOL
    }

    fn encode(&mut self, event: &pitwatch_model::TableEvent) -> Option<Vec<u8>> {
        match event.kind {
            EventKind::CardDrawn {
                card: Some(card), ..
            } => Some(encode_card(card)),
            EventKind::Shuffled { .. } => Some(encode_shuffle_card()),
            _ => None,
        }
    }

    fn corrupt_checksum(&self, _frame: &mut [u8]) -> bool {
        // Scanner lines carry no checksum.
        false
    }
}

/// Decoder of a barcode shoe's byte stream.
#[derive(Debug, Clone)]
pub struct BarcodeDecoder {
    config: BarcodeConfig,
    framer: LineFramer,
    /// The current line already overflowed (its first pieces were rejected).
    overlong: bool,
    numbering: EventNumbering,
    /// The last code seen and when (Unix milliseconds), for repeat suppression.
    last: Option<(u16, i64)>,
}

impl Default for BarcodeDecoder {
    fn default() -> Self {
        Self::new(BarcodeConfig::default())
    }
}

impl BarcodeDecoder {
    /// A decoder whose first event gets `seq` 1.
    pub fn new(config: BarcodeConfig) -> Self {
        Self::starting_at(config, 1)
    }

    /// A decoder whose first event gets `seq` `first_seq`.
    pub fn starting_at(config: BarcodeConfig, first_seq: u64) -> Self {
        BarcodeDecoder {
            config,
            framer: LineFramer::new(MAX_LINE, b"\r\n"),
            overlong: false,
            numbering: EventNumbering::starting_at(first_seq),
            last: None,
        }
    }

    fn reject(
        &self,
        out: &mut Vec<DecodeOutput>,
        at: Timestamp,
        kind: RejectKind,
        reason: String,
        bytes: &[u8],
    ) {
        out.push(DecodeOutput::Rejected(Rejection {
            at,
            kind,
            reason,
            bytes: bytes.to_vec(),
        }));
    }

    /// Decodes one complete line; `frame` includes its terminator.
    /// `now_ms` is `now` in Unix milliseconds, computed once per chunk because converting a
    /// timestamp costs more than decoding a short line.
    fn line_done(
        &mut self,
        frame: &[u8],
        now: Timestamp,
        now_ms: i64,
        out: &mut Vec<DecodeOutput>,
    ) {
        let text = &frame[..frame.len() - 1];
        if self.overlong {
            self.overlong = false;
            self.reject(
                out,
                now,
                RejectKind::TooLong,
                format!("end of a line longer than {MAX_LINE} bytes"),
                frame,
            );
            return;
        }
        if text.is_empty() {
            // A bare line end (the `\n` of `\r\n`, or a blank line) carries nothing.
            return;
        }
        let code = match text {
            [a, b, c] if text.iter().all(u8::is_ascii_digit) => {
                u16::from(a - b'0') * 100 + u16::from(b - b'0') * 10 + u16::from(c - b'0')
            }
            _ => {
                return self.reject(
                    out,
                    now,
                    RejectKind::Malformed,
                    format!(
                        "{:?} is not a code (three digits: 001-052 a card, 511 the shuffle card)",
                        escape_bytes(text)
                    ),
                    frame,
                );
            }
        };
        let kind = if code == SHUFFLE_CODE {
            EventKind::Shuffled {
                decks: None,
                cards: None,
                shuffler: None,
            }
        } else if let Some(card) = card_from_code(code) {
            EventKind::card(card)
        } else {
            return self.reject(
                out,
                now,
                RejectKind::Malformed,
                format!("code {code:03} is neither a card (001-052) nor the shuffle card (511)"),
                frame,
            );
        };
        if let Some((last_code, seen)) = self.last {
            let elapsed = now_ms.saturating_sub(seen);
            if last_code == code
                && self.config.repeat_window_ms > 0
                && elapsed >= 0
                && elapsed.unsigned_abs() <= self.config.repeat_window_ms
            {
                self.last = Some((code, now_ms));
                return self.reject(
                    out,
                    now,
                    RejectKind::Duplicate,
                    format!(
                        "code {code:03} repeated after {elapsed} ms, within the {} ms repeat window: one card",
                        self.config.repeat_window_ms
                    ),
                    frame,
                );
            }
        }
        self.last = Some((code, now_ms));
        let event = self.numbering.event(kind, now);
        out.push(DecodeOutput::Accepted(Accepted {
            at: now,
            frame: FrameBytes::new(frame),
            device_seq: None,
            events: vec![event],
            notices: Vec::new(),
        }));
    }
}

impl Decoder for BarcodeDecoder {
    fn protocol(&self) -> &'static str {
        PROTOCOL
    }

    fn push(&mut self, bytes: &[u8], now: Timestamp, out: &mut Vec<DecodeOutput>) {
        let now_ms = now.unix_millis();
        // The framer is taken out while its pieces go to this decoder's own methods.
        let mut framer = std::mem::take(&mut self.framer);
        framer.push(bytes, |piece| match piece {
            LinePiece::Line(line) => self.line_done(line, now, now_ms, out),
            LinePiece::TooLong(line) => {
                self.overlong = true;
                self.reject(
                    out,
                    now,
                    RejectKind::TooLong,
                    format!("no line end within {MAX_LINE} bytes"),
                    line,
                );
            }
        });
        self.framer = framer;
    }

    fn finish(&mut self, now: Timestamp, out: &mut Vec<DecodeOutput>) {
        if let Some(line) = self.framer.finish() {
            self.reject(
                out,
                now,
                RejectKind::Truncated,
                "the stream ended inside a line".into(),
                &line,
            );
        }
        self.overlong = false;
    }

    fn next_event_seq(&self) -> u64 {
        self.numbering.peek()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn t(ms: i64) -> Timestamp {
        Timestamp::from_unix_millis(1_796_000_000_000 + ms).unwrap()
    }

    fn card(text: &str) -> Card {
        text.parse().unwrap()
    }

    fn run(decoder: &mut BarcodeDecoder, bytes: &[u8], ms: i64) -> Vec<DecodeOutput> {
        let mut out = Vec::new();
        decoder.push(bytes, t(ms), &mut out);
        out
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

    #[test]
    fn documented_code_table() {
        assert_eq!(card_from_code(1), Some(card("AD")));
        assert_eq!(card_from_code(2), Some(card("AC")));
        assert_eq!(card_from_code(3), Some(card("AH")));
        assert_eq!(card_from_code(4), Some(card("AS")));
        assert_eq!(card_from_code(5), Some(card("2D")));
        assert_eq!(card_from_code(40), Some(card("TS")));
        assert_eq!(card_from_code(52), Some(card("KS")));
        assert_eq!(card_from_code(0), None);
        assert_eq!(card_from_code(53), None);
        for i in 0..Card::DISTINCT {
            let c = Card::from_index(i).unwrap();
            assert_eq!(card_from_code(card_code(c)), Some(c));
        }
    }

    #[test]
    fn cards_and_the_shuffle_card_decode() {
        let mut decoder = BarcodeDecoder::default();
        let out = run(&mut decoder, b"511\r001\r\n052\n", 0);
        assert!(rejections(&out).is_empty(), "{out:?}");
        assert_eq!(
            kinds(&out),
            [
                EventKind::Shuffled {
                    decks: None,
                    cards: None,
                    shuffler: None
                },
                EventKind::card(card("AD")),
                EventKind::card(card("KS")),
            ]
        );
        let seqs: Vec<u64> = out.iter().flat_map(|o| o.events()).map(|e| e.seq).collect();
        assert_eq!(seqs, [1, 2, 3]);
        assert_eq!(out[1].bytes(), b"001\r");
    }

    #[test]
    fn a_repeat_within_the_window_is_one_card() {
        let mut decoder = BarcodeDecoder::default();
        let mut out = run(&mut decoder, b"023\r", 0);
        out.extend(run(&mut decoder, b"023\r", 250));
        out.extend(run(&mut decoder, b"023\r", 500)); // 250 ms after the last sighting
        out.extend(run(&mut decoder, b"023\r", 900)); // 400 ms later: a second card
        out.extend(run(&mut decoder, b"024\r", 950)); // a different card at once is fine
        assert_eq!(
            rejections(&out),
            [RejectKind::Duplicate, RejectKind::Duplicate]
        );
        assert_eq!(kinds(&out).len(), 3);
        assert!(out[1]
            .rejection()
            .unwrap()
            .reason
            .contains("within the 300 ms"));
        let mut off = BarcodeDecoder::new(BarcodeConfig {
            repeat_window_ms: 0,
        });
        let out = run(&mut off, b"023\r023\r", 0);
        assert_eq!(kinds(&out).len(), 2);
    }

    #[test]
    fn bad_codes_are_rejected_with_reasons() {
        let mut decoder = BarcodeDecoder::default();
        let out = run(&mut decoder, b"000\r053\r510\r512\r1\r0012\rA12\r 01\r", 0);
        assert_eq!(out.len(), 8);
        assert!(out
            .iter()
            .all(|o| o.rejection().map(|r| r.kind) == Some(RejectKind::Malformed)));
        assert!(out[1]
            .rejection()
            .unwrap()
            .reason
            .contains("code 053 is neither"));
        assert!(out[6]
            .rejection()
            .unwrap()
            .reason
            .contains("\"A12\" is not a code"));
    }

    #[test]
    fn long_garbage_is_rejected_and_the_next_line_decodes() {
        let mut decoder = BarcodeDecoder::default();
        let mut bytes = vec![b'x'; 40];
        bytes.extend(b"\r007\r");
        let out = run(&mut decoder, &bytes, 0);
        assert_eq!(
            rejections(&out),
            [
                RejectKind::TooLong,
                RejectKind::TooLong,
                RejectKind::TooLong
            ]
        );
        assert_eq!(kinds(&out), [EventKind::card(card("2H"))]);
        let mut out = Vec::new();
        decoder.push(b"01", t(1), &mut out);
        decoder.finish(t(2), &mut out);
        assert_eq!(rejections(&out), [RejectKind::Truncated]);
    }

    #[test]
    fn encoder_round_trips() {
        let mut decoder = BarcodeDecoder::default();
        let mut bytes = encode_shuffle_card();
        for i in 0..Card::DISTINCT {
            bytes.extend(encode_card(Card::from_index(i).unwrap()));
        }
        let out = run(&mut decoder, &bytes, 0);
        assert_eq!(out.len(), 53);
        assert!(rejections(&out).is_empty());
    }

    #[test]
    fn event_encoder_round_trips_cards_and_the_shuffle_card() {
        use pitwatch_codec::Encoder;
        use pitwatch_model::{TableEvent, Target};
        let mut encoder = BarcodeEncoder;
        let shuffled = EventKind::Shuffled {
            decks: Some(8),
            cards: None,
            shuffler: None,
        };
        let with_target = EventKind::CardDrawn {
            card: Some(card("QH")),
            target: Some(Target::Player),
            index: Some(1),
            face_up: None,
            retransmit: None,
        };
        let mut bytes = encoder.encode(&TableEvent::new(1, shuffled)).unwrap();
        bytes.extend(encoder.encode(&TableEvent::new(2, with_target)).unwrap());
        assert_eq!(bytes, b"511\r047\r");
        let mut decoder = BarcodeDecoder::default();
        assert_eq!(
            kinds(&run(&mut decoder, &bytes, 0)),
            [
                EventKind::Shuffled {
                    decks: None,
                    cards: None,
                    shuffler: None
                },
                EventKind::card(card("QH"))
            ]
        );
        assert_eq!(
            encoder.encode(&TableEvent::new(3, EventKind::BetsClosed)),
            None
        );
        assert!(!encoder.corrupt_checksum(&mut bytes));
    }

    proptest! {
        #[test]
        fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
            let mut decoder = BarcodeDecoder::default();
            let out = pitwatch_codec::decode_all(&mut decoder, &bytes, t(0));
            let accounted: usize = out.iter().map(|o| o.bytes().len()).sum();
            prop_assert!(accounted <= bytes.len());
        }

        #[test]
        fn chunking_does_not_change_the_outputs(
            bytes in proptest::collection::vec(
                prop_oneof![any::<u8>(), Just(b'\r'), Just(b'\n'), Just(b'0'), Just(b'1')], 0..300),
            chunk in 1usize..20,
        ) {
            let mut whole = BarcodeDecoder::default();
            let expected = pitwatch_codec::decode_all(&mut whole, &bytes, t(0));
            let mut decoder = BarcodeDecoder::default();
            let mut out = Vec::new();
            for piece in bytes.chunks(chunk) {
                decoder.push(piece, t(0), &mut out);
            }
            decoder.finish(t(0), &mut out);
            prop_assert_eq!(out, expected);
        }

        #[test]
        fn decoding_resynchronises_after_garbage(
            garbage in proptest::collection::vec(any::<u8>(), 0..100),
            code in 1u16..=52,
        ) {
            let mut decoder = BarcodeDecoder::default();
            let mut bytes = garbage;
            bytes.push(b'\r');
            bytes.extend(encode_code(code));
            let out = pitwatch_codec::decode_all(&mut decoder, &bytes, t(0));
            let last = out.last().unwrap();
            prop_assert_eq!(last.bytes(), &encode_code(code)[..]);
            prop_assert!(last.rejection().is_none() || last.rejection().unwrap().kind == RejectKind::Duplicate);
        }
    }
}
