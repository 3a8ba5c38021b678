//! Codec for barcode card-reader shoes: the scanner sends one three-digit ASCII code per card,
//! terminated by `\r` (a `\n` is tolerated as well).
//!
//! Codes `001`–`052` are cards, `code = 4 × (rank − 1) + s` with rank A = 1 … K = 13 and
//! s = ♦ 1, ♣ 2, ♥ 3, ♠ 4; code `511` is the shuffle (new shoe) card and becomes `shuffled`.
//! The shoe knows no hands, so cards carry no target: the rules engine assigns them.
//!
//! Scanners repeat a code when a card is rescanned. The same code again within the repeat window
//! (300 ms by default) of its last sighting is the same card: it is reported as a
//! [`RejectKind::Duplicate`] and produces no event. Measuring from the last sighting rather than
//! the first keeps a card resting on the scanner from turning into a second card after the window;
//! two identical cards in a row from a multi-deck shoe are still two cards, because no dealer
//! draws twice within 300 ms.
//!
//! The scanner sends no time, so the window can only be judged by when the host *read* the codes,
//! and a read time is only an upper bound of when a code arrived: a code that waited in a buffer
//! (a reader that connected late, a host that stalled, a serial server releasing a backlog) was
//! read later than it came. So a repeat is judged a rescan only when the **longest** the two
//! sightings can have been apart is within the window: from the earliest the first can have
//! arrived to the time the second was read. The earliest a code can have arrived is
//!
//! - the time its chunk was read, when that chunk completed that one line and was not the first of
//!   the stream: a host that is watching the port reads a code as it comes, one line at a time at
//!   a dealer's pace (the one assumption: see below);
//! - otherwise the time the *previous* chunk was read (the earlier read took everything waiting,
//!   so this chunk's bytes came after it): several lines in one chunk waited in a buffer, each for
//!   an unknown time within that span;
//! - unknown for the first chunk of a stream (it may hold whatever the device sent before the host
//!   connected): a repeat of such a code is never a rescan.
//!
//! When the longest possible gap exceeds the window, or is unknown, the repeat is a second card:
//! a backlog can never merge two real cards. A rescan that arrives in a backlog is then taken for
//! a second card too, which the rules engine sees as an extra card; nothing is dropped unseen.
//!
//! What remains rests on the host reading a lone code promptly: a host stalled for longer than
//! the time between two identical cards minus the window, during which just that one code arrived,
//! reads it late, and the next (read at once) looks like its rescan. The read times on record
//! cannot show such a stall; only a device time, or the record keeping when the reader began
//! waiting for each chunk, could.
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
    /// The last code seen, for judging repeats.
    last: Option<Sighting>,
    /// When the previous chunk was read (Unix milliseconds); `None` before the stream's first.
    previous_read_ms: Option<i64>,
    /// The chunk being decoded: its number in the stream, the earliest its bytes can have
    /// arrived, and the non-empty lines it has completed so far.
    chunk: ChunkTiming,
}

/// One sighting of a code: the earliest it can have arrived (Unix milliseconds; `None`: unknown,
/// it may have waited since before the stream began) and the chunk that completed it.
#[derive(Debug, Clone, Copy)]
struct Sighting {
    code: u16,
    earliest_ms: Option<i64>,
    chunk: u64,
}

/// What the decoder knows about the chunk it is decoding.
#[derive(Debug, Clone, Copy, Default)]
struct ChunkTiming {
    /// The chunk's number in the stream, from 1.
    number: u64,
    /// When the previous chunk was read: the chunk's bytes all came after it.
    after_ms: Option<i64>,
    /// Non-empty lines (codes or not) completed in this chunk so far.
    lines: u32,
}

impl ChunkTiming {
    /// The earliest a line completed in this chunk can have arrived, once `self.lines` lines
    /// have been completed in it and the chunk was read at `now_ms`.
    fn earliest_ms(&self, now_ms: i64) -> Option<i64> {
        if self.lines <= 1 && self.after_ms.is_some() {
            // A watching host reads a lone code as it arrives.
            Some(now_ms)
        } else {
            // Waited in a buffer for some time since the previous read (or since before the
            // stream began).
            self.after_ms
        }
    }
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
            previous_read_ms: None,
            chunk: ChunkTiming::default(),
        }
    }

    /// Counts a non-empty line completed in the current chunk. A second one shows the chunk
    /// held a backlog, so a code seen earlier in it may have arrived any time since the previous
    /// read.
    fn line_in_chunk(&mut self) {
        self.chunk.lines = self.chunk.lines.saturating_add(1);
        if self.chunk.lines == 2 {
            if let Some(last) = self.last.as_mut().filter(|l| l.chunk == self.chunk.number) {
                last.earliest_ms = self.chunk.after_ms;
            }
        }
    }

    /// A sighting of `code` completed in the current chunk, read at `now_ms`.
    fn sighting(&self, code: u16, now_ms: i64) -> Sighting {
        Sighting {
            code,
            earliest_ms: self.chunk.earliest_ms(now_ms),
            chunk: self.chunk.number,
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
        if !text.is_empty() {
            self.line_in_chunk();
        }
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
        if let Some(last) = self.last.filter(|last| last.code == code) {
            let window = self.config.repeat_window_ms;
            // The longest the two sightings can have been apart; a clock that stepped back
            // makes it unknowable too.
            let longest = last
                .earliest_ms
                .map(|earliest| now_ms.saturating_sub(earliest))
                .filter(|longest| *longest >= 0);
            if let Some(longest) = longest.filter(|l| window > 0 && l.unsigned_abs() <= window) {
                self.last = Some(self.sighting(code, now_ms));
                return self.reject(
                    out,
                    now,
                    RejectKind::Duplicate,
                    format!(
                        "code {code:03} repeated at most {longest} ms after it was last seen, within the {window} ms repeat window: one card"
                    ),
                    frame,
                );
            }
        }
        self.last = Some(self.sighting(code, now_ms));
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
        self.chunk = ChunkTiming {
            number: self.chunk.number.wrapping_add(1),
            after_ms: self.previous_read_ms,
            lines: 0,
        };
        // The framer is taken out while its pieces go to this decoder's own methods.
        let mut framer = std::mem::take(&mut self.framer);
        framer.push(bytes, |piece| match piece {
            LinePiece::Line(line) => self.line_done(line, now, now_ms, out),
            LinePiece::TooLong(line) => {
                self.line_in_chunk();
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
        // This read took everything that had arrived: the next chunk's bytes come after it.
        self.previous_read_ms = Some(now_ms);
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
        // Whatever arrives after a break may have waited (a device server's buffer).
        self.previous_read_ms = None;
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
        // A card before, so the codes below are not the stream's first chunk.
        let mut out = run(&mut decoder, b"010\r", -2_000);
        out.extend(run(&mut decoder, b"023\r", 0));
        out.extend(run(&mut decoder, b"023\r", 250));
        out.extend(run(&mut decoder, b"023\r", 500)); // 250 ms after the last sighting
        out.extend(run(&mut decoder, b"023\r", 900)); // 400 ms later: a second card
        out.extend(run(&mut decoder, b"024\r", 950)); // a different card at once is fine
        assert_eq!(
            rejections(&out),
            [RejectKind::Duplicate, RejectKind::Duplicate]
        );
        assert_eq!(kinds(&out).len(), 4);
        assert_eq!(
            out[2].rejection().unwrap().reason,
            "code 023 repeated at most 250 ms after it was last seen, within the 300 ms repeat window: one card"
        );
        let mut off = BarcodeDecoder::new(BarcodeConfig {
            repeat_window_ms: 0,
        });
        let mut out = run(&mut off, b"010\r", -2_000);
        out.extend(run(&mut off, b"023\r", 0));
        out.extend(run(&mut off, b"023\r", 1));
        assert_eq!(kinds(&out).len(), 3);
    }

    #[test]
    fn repeats_that_waited_in_a_backlog_are_two_cards() {
        // The bench's thousand tables: the reader connected after the shoe had dealt, and the
        // waiting codes came in one chunk with one read time.
        let mut decoder = BarcodeDecoder::default();
        let out = run(&mut decoder, b"511\r018\r018\r031\r031\r", 0);
        assert!(rejections(&out).is_empty(), "{out:?}");
        assert_eq!(kinds(&out).len(), 5);
        // The last code of that backlog, and the same code read 100 ms later: the first may
        // have waited since before the reader connected, so they may be far apart.
        let out = run(&mut decoder, b"031\r", 100);
        assert!(rejections(&out).is_empty(), "{out:?}");
        // A stall mid-stream: a code read alone, then two more in one chunk 2 s later; the first
        // of those repeats the lone code but can have arrived any time in those 2 s.
        let mut out = run(&mut decoder, b"044\r", 5_000);
        out.extend(run(&mut decoder, b"044\r044\r", 7_000));
        // The next read 100 ms later repeats the backlog's last code, which may have come
        // right after the read at 5,000 ms.
        out.extend(run(&mut decoder, b"044\r", 7_100));
        assert!(rejections(&out).is_empty(), "{out:?}");
        assert_eq!(kinds(&out).len(), 4);
    }

    #[test]
    fn a_backlog_read_within_the_window_of_the_read_before_is_judged_by_that_span() {
        // Two codes in one chunk that came within 200 ms of the previous read: however they
        // were spread over those 200 ms, they were within the window of each other.
        let mut decoder = BarcodeDecoder::default();
        let mut out = run(&mut decoder, b"010\r", 0);
        out.extend(run(&mut decoder, b"023\r023\r", 200));
        assert_eq!(rejections(&out), [RejectKind::Duplicate]);
        assert!(out[2]
            .rejection()
            .unwrap()
            .reason
            .contains("at most 200 ms"));
        // Read 150 ms after that chunk, a repeat can be 350 ms after the backlog's codes: a
        // second card.
        let out = run(&mut decoder, b"023\r", 350);
        assert!(rejections(&out).is_empty(), "{out:?}");
    }

    #[test]
    fn the_first_chunk_of_a_stream_and_after_a_break_may_hold_old_codes() {
        let mut decoder = BarcodeDecoder::default();
        let mut out = run(&mut decoder, b"023\r", 0);
        out.extend(run(&mut decoder, b"023\r", 10));
        assert!(rejections(&out).is_empty(), "{out:?}");
        // After the stream broke, the first chunk again.
        decoder.finish(t(20), &mut out);
        let mut out = run(&mut decoder, b"023\r", 30);
        out.extend(run(&mut decoder, b"023\r", 40));
        assert_eq!(rejections(&out), [RejectKind::Duplicate]);
        // Across a break, a repeat read within the window of a code read alone is still one.
        let mut out = Vec::new();
        decoder.finish(t(50), &mut out);
        out.extend(run(&mut decoder, b"023\r", 60));
        assert_eq!(rejections(&out), [RejectKind::Duplicate]);
        let mut out = Vec::new();
        decoder.finish(t(70), &mut out);
        out.extend(run(&mut decoder, b"045\r", 80));
        out.extend(run(&mut decoder, b"045\r", 90));
        assert!(rejections(&out).is_empty(), "{out:?}");
    }

    #[test]
    fn garbage_in_the_same_chunk_shows_a_backlog_too() {
        // Any second line, even one rejected, shows the chunk held more than one arrival.
        let mut decoder = BarcodeDecoder::default();
        let mut out = run(&mut decoder, b"010\r", 0);
        out.extend(run(&mut decoder, b"023\rxx\r", 2_000));
        out.extend(run(&mut decoder, b"023\r", 2_100));
        assert_eq!(rejections(&out), [RejectKind::Malformed]);
        assert_eq!(kinds(&out).len(), 3);
    }

    #[test]
    fn a_lone_code_read_late_by_a_stalled_host_is_still_taken_for_a_rescan() {
        // The limit of judging by read times (see the module's doc): two real cards 1 s apart,
        // the first read 800 ms late while nothing else arrived, the second at once. Nothing
        // the decoder is given tells this from a rescan 200 ms apart.
        let mut decoder = BarcodeDecoder::default();
        let mut out = run(&mut decoder, b"010\r", -5_000);
        out.extend(run(&mut decoder, b"023\r", 800));
        out.extend(run(&mut decoder, b"023\r", 1_000));
        assert_eq!(rejections(&out), [RejectKind::Duplicate]);
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
        fn chunking_does_not_change_the_framing(
            bytes in proptest::collection::vec(
                prop_oneof![any::<u8>(), Just(b'\r'), Just(b'\n'), Just(b'0'), Just(b'1')], 0..300),
            chunk in 1usize..20,
        ) {
            // With no repeat window the outputs are the same whatever the chunking; with one,
            // only the verdict on a repeated code may differ (the chunking says how long codes
            // may have waited), never what the bytes were cut into or why garbage was refused.
            let shape = |outputs: &[DecodeOutput]| -> Vec<(Vec<u8>, Option<RejectKind>)> {
                outputs
                    .iter()
                    .map(|o| {
                        let kind = o.rejection().map(|r| r.kind).filter(|k| *k != RejectKind::Duplicate);
                        (o.bytes().to_vec(), kind)
                    })
                    .collect()
            };
            for window in [0, 300] {
                let config = BarcodeConfig { repeat_window_ms: window };
                let mut whole = BarcodeDecoder::new(config);
                let expected = pitwatch_codec::decode_all(&mut whole, &bytes, t(0));
                let mut decoder = BarcodeDecoder::new(config);
                let mut out = Vec::new();
                for piece in bytes.chunks(chunk) {
                    decoder.push(piece, t(0), &mut out);
                }
                decoder.finish(t(0), &mut out);
                if window == 0 {
                    prop_assert_eq!(&out, &expected);
                }
                prop_assert_eq!(shape(&out), shape(&expected));
            }
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
