//! The Pitwatch protocol's [`Screen`]: what a device sends that must never be kept is replaced,
//! before the journal, the spool or the decoder see it, by a `WITHHELD` line of the host's own.
//!
//! PROTOCOL.md §6: no device may send card order, and a shuffler sends no card identities at all.
//! The decoder already rejects such lines, but a rejection happens after the raw journal has kept
//! the bytes; the screen runs first, so the order of a shuffled deck is never stored, shown or
//! exported. Withheld, whole lines at a time:
//! - an `ORDER` line from any device, and a `WITHHELD` line from any device (that type is the
//!   host's own, so a device cannot forge one);
//! - on a shuffler's stream (configured as one, or once its `HELLO` said `role=shuffler`): a
//!   `CARD` line, a line with a `card`, `cards_order` or `order` field, any line with three or
//!   more tokens that read as cards (`AS`, `10H`, `td`, …: a deck order in some other shape, even
//!   in garbage), and any line longer than the protocol allows.
//!
//! Each withheld line becomes `PW1 <seq> WITHHELD type=<TYPE> bytes=<n> *<CRC>` with the withheld
//! line's sequence number when it had a valid one (so the device's numbering runs on), which the
//! decoder turns into a `device_error` with code [`crate::WITHHELD_CODE`]: an incident, without a
//! single byte of what was sent.

use pitwatch_codec::{LineFramer, LinePiece, Screen};

use crate::message::{encode_raw, Role, MAX_LINE};
use crate::{ProtoConfig, CARD_KEYS};

/// A screen for one connection of a Pitwatch-protocol device (a fresh one per connection, like
/// the decoder).
#[derive(Debug, Clone)]
pub struct ProtoScreen {
    configured_shuffler: bool,
    /// Shuffler rules apply: configured so, or a `HELLO` said so on this connection. Once set it
    /// stays set until the connection ends, so a line claiming otherwise cannot relax the screen.
    shuffler: bool,
    framer: LineFramer,
    overlong: Overlong,
    /// The last valid sequence number seen, for a withheld line that had none of its own.
    last_seq: u64,
    withheld: u64,
}

/// Where the screen is inside a line longer than [`MAX_LINE`].
#[derive(Debug, Clone, PartialEq, Eq)]
enum Overlong {
    /// Not in one.
    No,
    /// Passing it on piece by piece (the decoder rejects it as too long), the last bytes
    /// passed held back.
    Passing { tail: Vec<u8> },
    /// Withholding it; the marker is written when it ends.
    Withholding { seq: u64, kind: String, bytes: u64 },
}

/// What one line amounts to.
enum Verdict {
    Keep,
    Withhold { seq: u64, kind: String },
}

impl ProtoScreen {
    /// A screen for a stream with `config` (its configured role).
    pub fn new(config: ProtoConfig) -> Self {
        let configured_shuffler = config.role == Some(Role::Shuffler);
        ProtoScreen {
            configured_shuffler,
            shuffler: configured_shuffler,
            framer: LineFramer::new(MAX_LINE, b"\n"),
            overlong: Overlong::No,
            last_seq: 0,
            withheld: 0,
        }
    }

    fn marker(&mut self, seq: u64, kind: &str, bytes: u64, out: &mut Vec<u8>) {
        self.withheld += bytes;
        let seq = if seq == 0 { self.last_seq.max(1) } else { seq };
        out.extend_from_slice(&encode_raw(
            seq,
            "WITHHELD",
            &[("type", kind), ("bytes", &bytes.to_string())],
        ));
    }

    /// Judges one line (or the start of one) and learns the stream's role from a `HELLO`. Read
    /// leniently and over the whole line, because a line the decoder goes on to reject (noise in
    /// front, a broken version or type) is still journaled.
    fn verdict(&mut self, line: &[u8]) -> Verdict {
        let head = parse_head(line);
        if let Some(seq) = head.seq {
            self.last_seq = seq;
        }
        let tokens = || {
            line.split(|b| !(0x21..0x7f).contains(b))
                .filter(|t| !t.is_empty())
        };
        if tokens().any(|t| t == b"HELLO") && tokens().any(|t| t == b"role=shuffler") {
            self.shuffler = true;
        }
        let forbidden = contains(line, b"ORDER") || contains(line, b"WITHHELD");
        let card_like = || {
            contains(line, b"order")
                || tokens().any(|t| {
                    let key = t.split(|&b| b == b'=').next().unwrap_or_default();
                    t == b"CARD"
                        || (t.contains(&b'=') && CARD_KEYS.iter().any(|k| k.as_bytes() == key))
                })
                || card_tokens(line) >= 3
        };
        if forbidden || (self.shuffler && card_like()) {
            let kind = if head.kind.is_empty() {
                "?".to_owned()
            } else {
                head.kind.to_owned()
            };
            Verdict::Withhold {
                seq: head.seq.unwrap_or(0),
                kind,
            }
        } else {
            Verdict::Keep
        }
    }

    fn piece(&mut self, piece: LinePiece<'_>, out: &mut Vec<u8>) {
        let (bytes, end) = match piece {
            LinePiece::Line(line) => (line, true),
            LinePiece::TooLong(part) => (part, false),
        };
        self.overlong = match std::mem::replace(&mut self.overlong, Overlong::No) {
            Overlong::Passing { tail } => self.pass_on(tail, bytes, end, out),
            Overlong::Withholding {
                seq,
                kind,
                bytes: n,
            } => {
                let n = n + bytes.len() as u64;
                if end {
                    self.marker(seq, &kind, n, out);
                    Overlong::No
                } else {
                    Overlong::Withholding {
                        seq,
                        kind,
                        bytes: n,
                    }
                }
            }
            Overlong::No => match (self.verdict(bytes), end) {
                (Verdict::Keep, true) => {
                    out.extend_from_slice(bytes);
                    Overlong::No
                }
                (Verdict::Withhold { seq, kind }, true) => {
                    self.marker(seq, &kind, bytes.len() as u64, out);
                    Overlong::No
                }
                (Verdict::Withhold { seq, kind }, false) => Overlong::Withholding {
                    seq,
                    kind,
                    bytes: bytes.len() as u64,
                },
                // A shuffler never needs a line this long; what follows may be anything.
                (Verdict::Keep, false) if self.shuffler => Overlong::Withholding {
                    seq: parse_head(bytes).seq.unwrap_or(0),
                    kind: "?".to_owned(),
                    bytes: bytes.len() as u64,
                },
                (Verdict::Keep, false) => self.pass_on(Vec::new(), bytes, false, out),
            },
        };
    }

    /// The next piece of a long line being passed on (the decoder rejects it as too long).
    /// The last few bytes of each piece wait for the next, so a forbidden word split between
    /// two pieces is seen before any of it is passed on; if one turns up, the part already
    /// passed on is ended with a line end of the host's and the rest of the line withheld.
    fn pass_on(
        &mut self,
        mut tail: Vec<u8>,
        piece: &[u8],
        end: bool,
        out: &mut Vec<u8>,
    ) -> Overlong {
        tail.extend_from_slice(piece);
        let held = tail;
        if contains(&held, b"ORDER") || contains(&held, b"WITHHELD") {
            out.push(b'\n');
            let seq = self.last_seq;
            if end {
                self.marker(seq, "?", held.len() as u64, out);
                return Overlong::No;
            }
            return Overlong::Withholding {
                seq,
                kind: "?".to_owned(),
                bytes: held.len() as u64,
            };
        }
        if end {
            out.extend_from_slice(&held);
            return Overlong::No;
        }
        let keep = held.len().saturating_sub(HOLD_BACK);
        out.extend_from_slice(&held[..keep]);
        Overlong::Passing {
            tail: held[keep..].to_vec(),
        }
    }
}

/// Bytes of a long line held back from one piece to the next: one less than the longest
/// forbidden word (`WITHHELD`).
const HOLD_BACK: usize = 7;

impl Screen for ProtoScreen {
    fn push(&mut self, bytes: &[u8], out: &mut Vec<u8>) {
        let mut framer = std::mem::take(&mut self.framer);
        framer.push(bytes, |piece| self.piece(piece, out));
        self.framer = framer;
    }

    fn finish(&mut self, out: &mut Vec<u8>) {
        let rest = self.framer.finish().unwrap_or_default();
        match std::mem::replace(&mut self.overlong, Overlong::No) {
            Overlong::Passing { tail } => {
                self.pass_on(tail, &rest, true, out);
            }
            Overlong::Withholding { seq, kind, bytes } => {
                self.marker(seq, &kind, bytes + rest.len() as u64, out)
            }
            Overlong::No if rest.is_empty() => {}
            Overlong::No => match self.verdict(&rest) {
                Verdict::Keep => out.extend_from_slice(&rest),
                Verdict::Withhold { seq, kind } => self.marker(seq, &kind, rest.len() as u64, out),
            },
        }
        self.shuffler = self.configured_shuffler;
        self.last_seq = 0;
    }

    fn withheld(&self) -> u64 {
        self.withheld
    }
}

/// The sequence number and type at the start of a line, when they read as such.
struct Head<'a> {
    seq: Option<u64>,
    kind: &'a str,
}

fn parse_head(line: &[u8]) -> Head<'_> {
    let mut head = Head {
        seq: None,
        kind: "",
    };
    let Some(start) = line.windows(2).position(|w| w == b"PW") else {
        return head;
    };
    let mut tokens = line[start..]
        .split(|b| matches!(b, b' ' | b'\r' | b'\n'))
        .filter(|t| !t.is_empty());
    tokens.next(); // the version
    head.seq = tokens
        .next()
        .and_then(|t| std::str::from_utf8(t).ok())
        .filter(|t| !t.starts_with('0'))
        .and_then(|t| t.parse::<u32>().ok())
        .map(u64::from);
    head.kind = tokens
        .next()
        .and_then(|t| std::str::from_utf8(t).ok())
        .filter(|t| !t.is_empty() && t.bytes().all(|b| b.is_ascii_uppercase() || b == b'_'))
        .unwrap_or("");
    head
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// How many tokens of `line` read as a card (a rank and a suit, either case: `AS`, `10h`, `TD`),
/// tokens being runs of letters and digits.
fn card_tokens(line: &[u8]) -> usize {
    line.split(|b| !b.is_ascii_alphanumeric())
        .filter(|t| is_card(t))
        .count()
}

fn is_card(token: &[u8]) -> bool {
    let (rank, suit) = match token {
        [r, s] => (std::slice::from_ref(r), *s),
        [b'1', b'0', s] => (&token[..2], *s),
        _ => return false,
    };
    let rank_ok = match rank {
        [r] => b"A23456789TJQK".contains(&r.to_ascii_uppercase()),
        _ => true, // "10"
    };
    rank_ok && b"SHDC".contains(&suit.to_ascii_uppercase())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::{encode, Message};
    use crate::{DeckCheck, ProtoDecoder};
    use pitwatch_codec::DecodeOutput;
    use pitwatch_model::{EventKind, Timestamp};
    use proptest::prelude::*;

    fn shuffler() -> ProtoConfig {
        ProtoConfig {
            role: Some(Role::Shuffler),
            ..ProtoConfig::default()
        }
    }

    fn screen_all(config: ProtoConfig, chunks: &[&[u8]]) -> Vec<u8> {
        let mut screen = ProtoScreen::new(config);
        let mut out = Vec::new();
        for chunk in chunks {
            screen.push(chunk, &mut out);
        }
        screen.finish(&mut out);
        out
    }

    fn done(seq: u64) -> Vec<u8> {
        encode(
            seq,
            &Message::ShuffleCompleted(DeckCheck {
                decks: Some(8),
                cards: 416,
                expected: 416,
                missing: 0,
                extra: 0,
                foreign: 0,
                mode: None,
            }),
        )
    }

    const ORDER: &str = "AS,KD,7H,2C,TD,QS";

    fn leak(seq: u64) -> Vec<u8> {
        encode_raw(seq, "ORDER", &[("cards", ORDER)])
    }

    #[test]
    fn an_honest_shuffler_stream_passes_byte_for_byte() {
        let mut stream = encode(
            1,
            &Message::Hello(pitwatch_codec::DeviceIdentity {
                protocol_version: 1,
                role: "shuffler".into(),
                make: "Acme".into(),
                model: "DS-8".into(),
                serial: "A1234".into(),
                firmware: "2.1.0".into(),
            }),
        );
        stream.extend(encode(
            2,
            &Message::ShuffleStarted {
                decks: Some(8),
                cycle: None,
            },
        ));
        stream.extend(done(3));
        stream.extend(encode(4, &Message::Heartbeat));
        stream.extend(encode(5, &Message::Jam { location: None }));
        assert_eq!(screen_all(ProtoConfig::default(), &[&stream]), stream);
        assert_eq!(screen_all(shuffler(), &[&stream]), stream);
    }

    #[test]
    fn an_order_line_is_replaced_by_a_marker_and_decodes_as_a_device_error() {
        let mut stream = done(1);
        stream.extend(leak(2));
        stream.extend(done(3));
        let mut screen = ProtoScreen::new(shuffler());
        let mut out = Vec::new();
        screen.push(&stream, &mut out);
        screen.finish(&mut out);
        assert!(!contains(&out, b"KD"), "{}", String::from_utf8_lossy(&out));
        assert_eq!(screen.withheld(), leak(2).len() as u64);
        let mut expected = done(1);
        expected.extend(encode_raw(
            2,
            "WITHHELD",
            &[("type", "ORDER"), ("bytes", &leak(2).len().to_string())],
        ));
        expected.extend(done(3));
        assert_eq!(out, expected);

        // The decoder accepts all three lines, in sequence, the middle one as an open device error.
        let mut decoder = ProtoDecoder::new(shuffler());
        let outputs =
            pitwatch_codec::decode_all(&mut decoder, &out, Timestamp::from_unix_millis(0).unwrap());
        assert!(
            outputs
                .iter()
                .all(|o| matches!(o, DecodeOutput::Accepted(a) if a.notices.is_empty())),
            "{outputs:?}"
        );
        let kinds: Vec<&EventKind> = outputs
            .iter()
            .flat_map(|o| o.events())
            .map(|e| &e.kind)
            .collect();
        assert!(
            matches!(kinds[1], EventKind::DeviceError { code, .. } if code == crate::WITHHELD_CODE),
            "{kinds:?}"
        );
    }

    #[test]
    fn a_shoe_may_send_cards_but_nobody_may_send_order_or_forge_a_marker() {
        let card = encode_raw(
            1,
            "CARD",
            &[("card", "AS"), ("target", "player"), ("index", "1")],
        );
        assert_eq!(screen_all(ProtoConfig::default(), &[&card]), card);
        let out = screen_all(ProtoConfig::default(), &[&leak(2)]);
        assert!(contains(&out, b"WITHHELD type=ORDER") && !contains(&out, b"AS,"));
        let forged = encode_raw(3, "WITHHELD", &[("type", "HB"), ("bytes", "1")]);
        let out = screen_all(ProtoConfig::default(), &[&forged]);
        assert!(
            contains(&out, b"WITHHELD type=WITHHELD"),
            "{}",
            String::from_utf8_lossy(&out)
        );
        // On a shuffler's stream the card is withheld too.
        let out = screen_all(shuffler(), &[&card]);
        assert!(contains(&out, b"WITHHELD type=CARD") && !contains(&out, b"AS"));
    }

    #[test]
    fn a_hello_as_shuffler_makes_the_screen_strict_until_the_connection_ends() {
        let hello = encode_raw(
            1,
            "HELLO",
            &[
                ("proto", "1"),
                ("role", "shuffler"),
                ("make", "A"),
                ("model", "B"),
                ("serial", "1"),
                ("fw", "1"),
            ],
        );
        let card = encode_raw(2, "CARD", &[("card", "QH")]);
        let garbage = b"deck: 10H QS 3C 4D\r\n".to_vec();
        let mut screen = ProtoScreen::new(ProtoConfig::default());
        let mut out = Vec::new();
        screen.push(&card, &mut out);
        assert_eq!(out, card, "a shoe's card passes");
        out.clear();
        screen.push(&[hello.clone(), card.clone(), garbage].concat(), &mut out);
        assert!(out.starts_with(&hello));
        assert!(
            !contains(&out, b"QH") && !contains(&out, b"10H"),
            "{}",
            String::from_utf8_lossy(&out)
        );
        assert!(contains(&out, b"PW1 2 WITHHELD type=CARD"));
        assert!(
            contains(&out, b"PW1 2 WITHHELD type=?"),
            "garbage takes the last number"
        );
        out.clear();
        screen.finish(&mut out);
        screen.push(&card, &mut out);
        assert_eq!(
            out, card,
            "a new connection starts from the configured role"
        );
    }

    #[test]
    fn a_part_of_an_order_line_never_passes_ahead_of_its_end() {
        let line = leak(7);
        let mut screen = ProtoScreen::new(ProtoConfig::default());
        let mut out = Vec::new();
        for b in &line[..line.len() - 1] {
            screen.push(std::slice::from_ref(b), &mut out);
            assert!(out.is_empty(), "held until the line ends");
        }
        screen.finish(&mut out);
        assert!(contains(&out, b"PW1 7 WITHHELD type=ORDER") && !contains(&out, b"KD"));
    }

    #[test]
    fn an_overlong_line_from_a_shuffler_is_withheld_whole() {
        let mut long = b"PW1 4 SHUFFLE_DONE note=".to_vec();
        long.extend(std::iter::repeat_n(b'x', MAX_LINE * 2));
        long.extend(b" *0000\r\n");
        let out = screen_all(shuffler(), &[&long]);
        assert_eq!(
            out,
            encode_raw(
                4,
                "WITHHELD",
                &[("type", "?"), ("bytes", &long.len().to_string())]
            )
        );
        // Not a shuffler: passed on for the decoder to reject as too long.
        assert_eq!(screen_all(ProtoConfig::default(), &[&long]), long);
    }

    #[test]
    fn order_far_into_a_long_line_is_withheld_even_split_between_pieces() {
        // Found by the proto_screen fuzz target: a long line whose start is clean and whose
        // `ORDER` comes later, split across the framer's pieces.
        for at in [MAX_LINE - 3, MAX_LINE + 10, 3 * MAX_LINE - 2] {
            let mut long = vec![b'x'; at];
            long.extend(b"ORDER cards=AS,KD,7H");
            long.extend(vec![b'y'; MAX_LINE]);
            long.extend(b"\r\n");
            let out = screen_all(ProtoConfig::default(), &[&long]);
            assert!(!contains(&out, b"ORD") && !contains(&out, b"KD"), "{at}");
            // What was passed on ends where the screen took over, then the marker line.
            let text = String::from_utf8_lossy(&out);
            let marker = text.lines().last().unwrap();
            assert!(marker.contains(" WITHHELD type=? bytes="), "{marker}");
            let kept = out.iter().filter(|&&b| b == b'x').count();
            assert!(
                kept <= at && kept + HOLD_BACK + MAX_LINE >= at,
                "{at}: {kept}"
            );
        }
    }

    fn stream_strategy() -> impl Strategy<Value = Vec<u8>> {
        prop::collection::vec(
            prop_oneof![
                (1u64..50).prop_map(done),
                (1u64..50).prop_map(leak),
                (1u64..50).prop_map(|s| encode(s, &Message::Heartbeat)),
                prop::collection::vec(any::<u8>(), 0..40),
            ],
            0..12,
        )
        .prop_map(|parts| parts.concat())
    }

    proptest! {
        /// Any chunking gives the same bytes out, and no order ever gets through.
        #[test]
        fn chunking_changes_nothing_and_no_order_passes(
            stream in stream_strategy(),
            cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..8),
            shuffler_role in any::<bool>(),
        ) {
            let config = if shuffler_role { shuffler() } else { ProtoConfig::default() };
            let whole = screen_all(config, &[&stream]);
            let mut points: Vec<usize> = cuts.iter().map(|i| i.index(stream.len() + 1)).collect();
            points.sort_unstable();
            let mut chunks: Vec<&[u8]> = Vec::new();
            let mut last = 0;
            for p in points {
                chunks.push(&stream[last..p]);
                last = p;
            }
            chunks.push(&stream[last..]);
            prop_assert_eq!(&screen_all(config, &chunks), &whole);
            prop_assert!(!contains(&whole, ORDER.as_bytes()));
            prop_assert!(!contains(&whole, b"ORDER cards"));
        }
    }
}
