//! Codec for the Pitwatch open protocol (specified in `PROTOCOL.md` beside this crate): one
//! ASCII line per message, `PW1 <seq> <TYPE> key=value … *<CRC-16>\r\n`, for shufflers, shoes
//! that do not speak a protocol of their own, and dealer consoles.
//!
//! [`ProtoDecoder`] checks each line (version, checksum, sequence, fields) and turns it into
//! canonical table events; [`encode`], [`MessageEncoder`] and [`encode_raw`] write lines for
//! devices, the simulator and fault injection.
//!
//! Shufflers must never send card identities or order (regulators forbid it, and a shuffler that
//! does is a known attack). On a shuffler stream (configured as one, or introducing itself as one)
//! a line with a card is rejected as [`RejectKind::Forbidden`], and the bytes of every rejection on
//! that stream that could hold a card are withheld from the rejection report.

mod encoder;
mod message;
mod screen;

use pitwatch_codec::{
    escape_bytes, Accepted, DecodeOutput, Decoder, EventNumbering, FrameBytes, LineFramer,
    LinePiece, Notice, RejectKind, Rejection,
};
use pitwatch_model::{Card, EventKind, TableEvent, Target, Timestamp};
use serde_json::Value;

pub use encoder::ProtoEncoder;
pub use message::{
    corrupt_checksum, encode, encode_raw, DeckCheck, Message, MessageEncoder, Role, MAX_FIELDS,
    MAX_LINE, VERSION,
};
use message::{Fields, MessageError};
pub use screen::ProtoScreen;

/// The name under which this protocol is configured.
pub const PROTOCOL: &str = "pitwatch";

/// CRC-16/CCITT-FALSE (polynomial 0x1021, initial value 0xFFFF, no reflection, no final XOR):
/// the check value of `123456789` is `0x29B1`.
pub fn crc16(bytes: &[u8]) -> u16 {
    bytes.iter().fold(0xFFFF, |crc, &b| {
        (crc << 8) ^ CRC_TABLE[usize::from((crc >> 8) as u8 ^ b)]
    })
}

const CRC_TABLE: [u16; 256] = {
    let mut table = [0u16; 256];
    let mut i = 0;
    while i < 256 {
        let mut crc = (i as u16) << 8;
        let mut bit = 0;
        while bit < 8 {
            crc = if crc & 0x8000 != 0 {
                (crc << 1) ^ 0x1021
            } else {
                crc << 1
            };
            bit += 1;
        }
        table[i] = crc;
        i += 1;
    }
    table
};

/// Settings of one Pitwatch-protocol stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ProtoConfig {
    /// The role the site configured for this port. When either this or the device's `HELLO` says
    /// `shuffler`, the shuffler rules apply.
    pub role: Option<Role>,
    /// The device is a shuffler that shuffles for a card-reading shoe at the same table: each
    /// completed shuffle (`SHUFFLE_DONE`) is a deck check held for the shoe loaded from it
    /// (`deck_checked`), not the start of a shoe (`shuffled`), which the shoe reports itself.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub beside_shoe: bool,
    /// What the host makes of the lines added within version 1 (`PROTOCOL.md` section 9), so a
    /// stream recorded before them decodes exactly as it did: 1, `SHUFFLE_START` is a notice
    /// only and `STATUS` and `SHUFFLE_STEP` are unknown types; 2, they are the events
    /// `shuffle_started`, `shuffler_counters` and `shuffle_step`; 3, a target may name the hand
    /// within a box (`box:N.H`), malformed before; 4 ([`REVISION`]), `DEALER` is known (the
    /// events `dealer_signed_in` and `dealer_signed_out`), an unknown type before. Settings recorded
    /// without it are revision 1; new settings ([`ProtoConfig::default`], a pit definition) are
    /// the current one.
    #[serde(default = "first_revision")]
    pub revision: u8,
}

/// The host's current revision of version 1 ([`ProtoConfig::revision`]).
pub const REVISION: u8 = 4;

fn first_revision() -> u8 {
    1
}

impl Default for ProtoConfig {
    fn default() -> Self {
        ProtoConfig {
            role: None,
            beside_shoe: false,
            revision: REVISION,
        }
    }
}

/// Decoder of a Pitwatch-protocol byte stream.
#[derive(Debug, Clone)]
pub struct ProtoDecoder {
    config: ProtoConfig,
    framer: LineFramer,
    overlong: bool,
    numbering: EventNumbering,
    last_seq: Option<u64>,
    hello_role: Option<Role>,
    /// Cards accepted since the last round boundary (result, "no more bets", shuffle, replaced
    /// cards) as (target, index, card), so a retransmitted `CARD` of one is a duplicate; for a card
    /// without a target, only the last one can be told from the next card.
    cards_accepted: Vec<(Option<Target>, Option<u8>, Option<Card>)>,
}

impl Default for ProtoDecoder {
    fn default() -> Self {
        Self::new(ProtoConfig::default())
    }
}

/// The `device_error` code of a line the host's screen withheld ([`ProtoScreen`]).
pub const WITHHELD_CODE: &str = pitwatch_model::WITHHELD_ERROR_CODE;

/// Field names and types that would carry card identities or order.
pub(crate) const CARD_KEYS: [&str; 3] = ["card", "cards_order", "order"];

impl ProtoDecoder {
    /// A decoder whose first event gets `seq` 1.
    pub fn new(config: ProtoConfig) -> Self {
        Self::starting_at(config, 1)
    }

    /// A decoder whose first event gets `seq` `first_seq`.
    pub fn starting_at(config: ProtoConfig, first_seq: u64) -> Self {
        ProtoDecoder {
            config,
            framer: LineFramer::new(MAX_LINE, b"\n"),
            overlong: false,
            numbering: EventNumbering::starting_at(first_seq),
            last_seq: None,
            hello_role: None,
            cards_accepted: Vec::new(),
        }
    }

    /// Whether the shuffler rules apply to this stream.
    pub fn is_shuffler(&self) -> bool {
        self.config.role == Some(Role::Shuffler) || self.hello_role == Some(Role::Shuffler)
    }

    /// One meaning of `retransmit` (`docs/events.md`): a `CARD` sent again with `retransmit=1` is
    /// passed on only if the host did not accept that report before, so that it is counted once.
    /// A retransmission of a card accepted since the last round boundary (the same target, index
    /// and card; for a card without a target, the same card as the last one accepted) is a
    /// duplicate. Remembers each card accepted, and forgets them at a round boundary.
    fn check_retransmission(&mut self, message: &Message) -> Result<(), (RejectKind, String)> {
        match message {
            Message::Card {
                card,
                target,
                index,
                retransmit,
                ..
            } => {
                let key = (*target, *index, *card);
                let repeat = if target.is_some() {
                    self.cards_accepted.contains(&key)
                } else {
                    self.cards_accepted.last() == Some(&key)
                };
                if *retransmit && repeat {
                    let what = match (target, index) {
                        (Some(t), Some(i)) => format!("{t} {i}"),
                        (Some(t), None) => t.to_string(),
                        _ => "the last card".to_owned(),
                    };
                    return Err((
                        RejectKind::Duplicate,
                        format!(
                            "retransmitted card for {what} was already accepted; it is not counted twice"
                        ),
                    ));
                }
                if target.is_some()
                    && !*retransmit
                    && self
                        .cards_accepted
                        .iter()
                        .any(|(t, i, _)| (*t, *i) == (*target, *index))
                {
                    // A card for a position already filled: a new round began.
                    self.cards_accepted.clear();
                }
                if self.cards_accepted.len() >= 16 {
                    self.cards_accepted.remove(0);
                }
                self.cards_accepted.push(key);
            }
            Message::Result { .. }
            | Message::BetsClosed
            | Message::ShuffleCompleted(_)
            | Message::CardsReplaced => self.cards_accepted.clear(),
            _ => {}
        }
        Ok(())
    }

    fn reject(
        &self,
        out: &mut Vec<DecodeOutput>,
        at: Timestamp,
        kind: RejectKind,
        reason: String,
        bytes: &[u8],
    ) {
        let confidential = self.is_shuffler()
            && (kind == RejectKind::Forbidden
                || contains(bytes, b"card")
                || contains(bytes, b"CARD")
                || contains(bytes, b"order")
                || contains(bytes, b"ORDER"));
        let (reason, bytes) = if confidential {
            (
                format!(
                    "{reason} ({} byte(s) withheld: a shuffler's line may carry card order)",
                    bytes.len()
                ),
                Vec::new(),
            )
        } else {
            (reason, bytes.to_vec())
        };
        out.push(DecodeOutput::Rejected(Rejection {
            at,
            kind,
            reason,
            bytes,
        }));
    }

    /// One complete line, terminator included.
    fn line_done(&mut self, frame: &[u8], now: Timestamp, out: &mut Vec<DecodeOutput>) {
        if self.overlong {
            self.overlong = false;
            return self.reject(
                out,
                now,
                RejectKind::TooLong,
                format!("end of a line longer than {MAX_LINE} bytes"),
                frame,
            );
        }
        let mut text = &frame[..frame.len() - 1];
        if let [rest @ .., b'\r'] = text {
            text = rest;
        }
        if text.is_empty() {
            // Blank lines carry nothing; they are allowed between messages.
            return;
        }
        // Resynchronise inside a line: noise before "PW" is garbage, the rest may be a message.
        let start = text.windows(2).position(|w| w == b"PW");
        let frame = match start {
            None => {
                return self.reject(
                    out,
                    now,
                    RejectKind::Garbage,
                    "a line that is not a PW message".into(),
                    frame,
                )
            }
            Some(0) => frame,
            Some(k) => {
                self.reject(
                    out,
                    now,
                    RejectKind::Garbage,
                    format!("{k} byte(s) before the start of a message"),
                    &frame[..k],
                );
                text = &text[k..];
                &frame[k..]
            }
        };
        match self.decode_line(text) {
            Ok((seq, events, notices)) => out.push(DecodeOutput::Accepted(Accepted {
                at: now,
                frame: FrameBytes::new(frame),
                device_seq: Some(seq),
                events: events
                    .into_iter()
                    .map(|(kind, extra)| {
                        let mut event = self.numbering.event(kind, now);
                        if let Some(extra) = extra {
                            event.extra = extra;
                        }
                        event
                    })
                    .collect(),
                notices,
            })),
            Err((kind, reason)) => self.reject(out, now, kind, reason, frame),
        }
    }

    /// Checks one line (without terminator) and returns its sequence number, events and notices.
    #[allow(
        clippy::type_complexity,
        reason = "a private helper's result; naming it would add a type used once"
    )]
    fn decode_line(
        &mut self,
        text: &[u8],
    ) -> Result<
        (
            u64,
            Vec<(EventKind, Option<serde_json::Map<String, Value>>)>,
            Vec<Notice>,
        ),
        (RejectKind, String),
    > {
        let malformed = |s: String| (RejectKind::Malformed, s);
        if let Some(bad) = text.iter().find(|&&b| !(0x20..0x7f).contains(&b)) {
            return Err(malformed(format!(
                "byte 0x{bad:02X} is not printable ASCII"
            )));
        }
        let version_end = text.iter().position(|&b| b == b' ').unwrap_or(text.len());
        let version = &text[..version_end];
        if version != b"PW1" {
            let digits = &version[2..];
            if !digits.is_empty() && digits.iter().all(u8::is_ascii_digit) {
                return Err((
                    RejectKind::Unsupported,
                    format!(
                        "protocol version {} is not supported (this host speaks PW{VERSION})",
                        escape_bytes(version)
                    ),
                ));
            }
            return Err(malformed(format!(
                "{:?} is not a version prefix like PW1",
                escape_bytes(version)
            )));
        }
        let Some(star) = text.windows(2).rposition(|w| w == b" *") else {
            return Err(malformed("no checksum (\" *XXXX\" at the end)".into()));
        };
        let (body, check) = (&text[..star], &text[star + 2..]);
        let sent = (check.len() == 4
            && check
                .iter()
                .all(|b| b.is_ascii_digit() || (b'A'..=b'F').contains(b)))
        .then(|| std::str::from_utf8(check).ok())
        .flatten()
        .and_then(|h| u16::from_str_radix(h, 16).ok())
        .ok_or_else(|| {
            malformed(format!(
                "checksum {:?} is not four upper-case hex digits",
                escape_bytes(check)
            ))
        })?;
        let computed = crc16(body);
        if sent != computed {
            return Err((
                RejectKind::BadChecksum,
                format!("checksum {sent:04X} does not match the computed {computed:04X}"),
            ));
        }
        let mut tokens = body.split(|&b| b == b' ');
        tokens.next(); // the version, checked above
        let seq_text = tokens.next().unwrap_or_default();
        let seq = std::str::from_utf8(seq_text)
            .ok()
            .filter(|s| {
                !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) && !s.starts_with('0')
            })
            .and_then(|s| s.parse::<u32>().ok())
            .map(u64::from)
            .ok_or_else(|| {
                malformed(format!(
                    "sequence number {:?} is not 1 to 4294967295",
                    escape_bytes(seq_text)
                ))
            })?;
        let kind = tokens.next().unwrap_or_default();
        if kind.is_empty() || !kind.iter().all(|b| b.is_ascii_uppercase() || *b == b'_') {
            return Err(malformed(format!(
                "message type {:?} is not upper-case letters and _",
                escape_bytes(kind)
            )));
        }
        let kind = std::str::from_utf8(kind).unwrap_or_default();
        let mut fields = Fields::new();
        for token in tokens {
            fields.add(token).map_err(malformed)?;
        }

        let mut notices = Vec::new();
        if kind == "WITHHELD" {
            // The host's screen wrote this in place of a line that must not be kept, with that
            // line's number (or the last good one): it takes the place of the line in the
            // sequence and is never a duplicate or out of order itself.
            if self.last_seq.is_none_or(|last| seq > last) {
                self.last_seq = Some(seq);
            }
            let message = Message::from_parts(kind, &fields).map_err(|e| match e {
                MessageError::Malformed(reason) => {
                    (RejectKind::Malformed, format!("{kind}: {reason}"))
                }
                MessageError::Unsupported(reason) => (RejectKind::Unsupported, reason),
            })?;
            let events = events_of(message, self.config, &mut notices);
            return Ok((seq, events, notices));
        }
        // Sequence: HELLO and 1 start afresh; a repeat is a duplicate, going back is out of order.
        let restart = kind == "HELLO" || seq == 1;
        match self.last_seq {
            Some(last) if !restart && seq == last => {
                return Err((
                    RejectKind::Duplicate,
                    format!("sequence number {seq} repeats the previous line's"),
                ))
            }
            Some(last) if !restart && seq < last => {
                return Err((
                    RejectKind::OutOfOrder,
                    format!(
                        "sequence number {seq} goes back from {last} (a restarted device must send HELLO)"
                    ),
                ))
            }
            Some(last) if !restart && seq > last + 1 => notices.push(Notice::SequenceGap {
                expected: last + 1,
                received: seq,
            }),
            _ => {}
        }
        self.last_seq = Some(seq);

        let carries_cards = kind == "CARD" || CARD_KEYS.iter().any(|k| fields.has(k));
        if kind == "ORDER" || (self.is_shuffler() && carries_cards) {
            return Err((
                RejectKind::Forbidden,
                format!("{kind}: a shuffler must never send card identities or order"),
            ));
        }
        if self.config.revision < 2 && matches!(kind, "STATUS" | "SHUFFLE_STEP") {
            // Unknown to the host this stream was recorded by: rejected as it was then.
            return Err((
                RejectKind::Unsupported,
                format!("unknown message type {kind}"),
            ));
        }
        if self.config.revision < 4 && kind == "DEALER" {
            // Unknown to the host this stream was recorded by: rejected as it was then.
            return Err((
                RejectKind::Unsupported,
                format!("unknown message type {kind}"),
            ));
        }
        let message = Message::from_parts(kind, &fields).map_err(|e| match e {
            MessageError::Malformed(reason) => (RejectKind::Malformed, format!("{kind}: {reason}")),
            MessageError::Unsupported(reason) => (RejectKind::Unsupported, reason),
        })?;
        if self.config.revision < 3 {
            if let Some(named) = named_hand(&message) {
                // Malformed to the host this stream was recorded by: rejected as it was then.
                return Err((
                    RejectKind::Malformed,
                    format!(
                        "{kind}: target: {:?}: the number must be 1 to 255",
                        named.to_string()
                    ),
                ));
            }
        }
        self.check_retransmission(&message)?;
        if let Message::Hello(identity) = &message {
            let role = match identity.role.as_str() {
                "shuffler" => Role::Shuffler,
                "console" => Role::Console,
                _ => Role::Shoe,
            };
            self.hello_role = Some(role);
        }
        let events = events_of(message, self.config, &mut notices);
        Ok((seq, events, notices))
    }
}

/// The hand within a box a message's target names (`box:N.H`, revision 3), if it names one.
fn named_hand(message: &Message) -> Option<Target> {
    let target = match message {
        Message::Card { target, .. } => (*target)?,
        Message::Decision { target, .. } | Message::PlayerActed { target, .. } => *target,
        _ => return None,
    };
    matches!(target, Target::Hand { .. }).then_some(target)
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// The table events (with extra fields) and notices a message stands for.
fn events_of(
    message: Message,
    config: ProtoConfig,
    notices: &mut Vec<Notice>,
) -> Vec<(EventKind, Option<serde_json::Map<String, Value>>)> {
    let beside_shoe = config.beside_shoe;
    let one = |kind| vec![(kind, None)];
    match message {
        Message::Hello(identity) => {
            notices.push(Notice::Hello(identity));
            vec![]
        }
        Message::Heartbeat => {
            notices.push(Notice::Heartbeat);
            vec![]
        }
        Message::ShuffleStarted { decks, .. } if config.revision < 2 => {
            notices.push(Notice::ShuffleStarted { decks });
            vec![]
        }
        Message::ShuffleStarted { decks, cycle } => one(EventKind::ShuffleStarted { decks, cycle }),
        Message::Status {
            cycles,
            recognition_errors,
            malfunctions,
        } => one(EventKind::ShufflerCounters {
            cycles,
            recognition_errors,
            malfunctions,
        }),
        Message::ShuffleStep { step } => one(EventKind::ShuffleStep { step }),
        Message::Dealer { signed_in, name } => one(if signed_in {
            EventKind::DealerSignedIn { dealer: name }
        } else {
            EventKind::DealerSignedOut { dealer: name }
        }),
        Message::Card {
            card,
            target,
            index,
            face_up,
            retransmit,
        } => one(EventKind::CardDrawn {
            card,
            target,
            index,
            face_up,
            retransmit: retransmit.then_some(true),
        }),
        Message::CuttingCardDrawn => one(EventKind::CuttingCardDrawn),
        Message::BurnCounted { count } => one(EventKind::BurnCounted { count }),
        Message::Result {
            outcome,
            player_pair,
            banker_pair,
        } => one(EventKind::ResultDeclared {
            outcome,
            player_pair,
            banker_pair,
        }),
        Message::Error { code, text } => one(EventKind::DeviceError { code, text }),
        Message::ErrorCleared { code } => one(EventKind::DeviceErrorCleared { code }),
        Message::Jam { location } => one(EventKind::DeviceError {
            code: "JAM".into(),
            text: match location {
                Some(at) => format!("card jam at {at}"),
                None => "card jam".into(),
            },
        }),
        Message::Door { open: true } => one(EventKind::DeviceError {
            code: "DOOR_OPEN".into(),
            text: "door open".into(),
        }),
        Message::Door { open: false } => one(EventKind::DeviceErrorCleared {
            code: "DOOR_OPEN".into(),
        }),
        Message::Lock { locked } => one(EventKind::LockChanged { locked }),
        // The rules engine judges a deck check beside a shoe itself (the count and every card
        // missing, extra or foreign), citing the rule: no device error besides (one fault, one
        // incident).
        Message::ShuffleCompleted(check) if beside_shoe => {
            vec![(
                EventKind::DeckChecked {
                    decks: check.decks,
                    cards: check.cards,
                    expected: check.expected,
                    missing: check.missing,
                    extra: check.extra,
                    foreign: check.foreign,
                    shuffler: check.mode,
                },
                None,
            )]
        }
        Message::ShuffleCompleted(check) => {
            let mut extra = serde_json::Map::new();
            extra.insert("expected_cards".into(), check.expected.into());
            extra.insert("missing_cards".into(), check.missing.into());
            extra.insert("extra_cards".into(), check.extra.into());
            extra.insert("foreign_cards".into(), check.foreign.into());
            // The rules engine judges the check (count, and cards missing, extra or foreign)
            // from these fields, citing the game's rule: from revision 2 no device error besides
            // (one fault, one incident); a stream recorded by revision 1 decodes as it did.
            let mut events = vec![(
                EventKind::Shuffled {
                    decks: check.decks,
                    cards: Some(check.cards),
                    shuffler: check.mode,
                },
                Some(extra),
            )];
            if config.revision < 2 && !check.passed() {
                events.push((
                    EventKind::DeviceError {
                        code: "DECK_CHECK".into(),
                        text: format!(
                            "deck check failed: {} cards counted, {} expected, {} missing, {} extra, {} foreign",
                            check.cards, check.expected, check.missing, check.extra, check.foreign
                        ),
                    },
                    None,
                ));
            }
            events
        }
        Message::Cut { position } => one(EventKind::Cut { position }),
        Message::CuttingCardPlaced { from_back } => one(EventKind::CuttingCardPlaced { from_back }),
        Message::CardExposed { card, during } => one(EventKind::CardExposed { card, during }),
        Message::BetsClosed => one(EventKind::BetsClosed),
        Message::Table { state } => one(EventKind::TableStateChanged { state }),
        Message::CardsReplaced => one(EventKind::CardsReplaced),
        Message::Decision {
            target,
            hand,
            action,
        } => one(EventKind::Decision {
            target,
            hand,
            action,
        }),
        Message::PlayerActed { target, action } => one(EventKind::PlayerActed { target, action }),
        Message::Misdeal {
            reason,
            seats,
            ruling,
        } => one(EventKind::MisdealDeclared {
            reason,
            seats,
            ruling,
        }),
        Message::Withheld { kind, bytes } => one(EventKind::DeviceError {
            code: WITHHELD_CODE.into(),
            text: format!(
                "the device sent a line of type {kind} ({bytes} bytes) that may carry card identities or \
                 the order of shuffled cards; it was withheld before anything was recorded. Treat \
                 the cards it may describe as compromised: take them out of play and reshuffle"
            ),
        }),
    }
}

impl Decoder for ProtoDecoder {
    fn protocol(&self) -> &'static str {
        PROTOCOL
    }

    fn push(&mut self, bytes: &[u8], now: Timestamp, out: &mut Vec<DecodeOutput>) {
        // The framer is taken out while its pieces go to this decoder's own methods.
        let mut framer = std::mem::take(&mut self.framer);
        framer.push(bytes, |piece| match piece {
            LinePiece::Line(line) => self.line_done(line, now, out),
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

/// The events of `outputs`, for tests and tools.
pub fn events(outputs: &[DecodeOutput]) -> Vec<&TableEvent> {
    outputs.iter().flat_map(|o| o.events()).collect()
}

#[cfg(test)]
mod tests;
