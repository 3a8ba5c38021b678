//! The messages of the Pitwatch open protocol, how each is written as a line, and how a line's
//! type and fields are read back into a message (the checks of `PROTOCOL.md`, one by one).

use std::borrow::Cow;
use std::fmt::Write as _;

use pitwatch_codec::DeviceIdentity;
use pitwatch_model::{
    Action, Card, ExposedDuring, MisdealReason, MisdealRuling, Outcome, PlayerAction, ShuffleStep,
    ShufflerKind, TableState, Target,
};

use crate::crc16;

/// The protocol's major version, written as the `PW1` prefix of every line.
pub const VERSION: u32 = 1;
/// The longest line, terminator included.
pub const MAX_LINE: usize = 256;
/// The most `key=value` fields one line may carry.
pub const MAX_FIELDS: usize = 16;

/// What kind of device a stream comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// A card shoe (reading or not).
    Shoe,
    /// A shuffler: it never sends card identities or order.
    Shuffler,
    /// A dealer or inspector console.
    Console,
}

impl Role {
    /// The role's name on the wire.
    pub const fn as_str(self) -> &'static str {
        match self {
            Role::Shoe => "shoe",
            Role::Shuffler => "shuffler",
            Role::Console => "console",
        }
    }

    fn parse(text: &str) -> Option<Role> {
        Some(match text {
            "shoe" => Role::Shoe,
            "shuffler" => Role::Shuffler,
            "console" => Role::Console,
            _ => return None,
        })
    }
}

/// A shuffler's count of the cards it shuffled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeckCheck {
    /// Decks shuffled, when said.
    pub decks: Option<u8>,
    /// Cards counted.
    pub cards: u32,
    /// Cards expected.
    pub expected: u32,
    /// Cards of the expected decks that are missing.
    pub missing: u32,
    /// Cards present more often than the decks hold (duplicates).
    pub extra: u32,
    /// Cards that belong to no expected deck (other backs, other decks).
    pub foreign: u32,
    /// Batch or continuous shuffling, when said.
    pub mode: Option<ShufflerKind>,
}

impl DeckCheck {
    /// Whether the shuffled set is exactly the expected one.
    pub fn passed(&self) -> bool {
        self.cards == self.expected && self.missing == 0 && self.extra == 0 && self.foreign == 0
    }
}

/// One message of the protocol (the part of a line after the sequence number).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Message {
    /// `HELLO`: identity and protocol version; resets the sequence.
    Hello(DeviceIdentity),
    /// `HB`: alive, nothing to report.
    Heartbeat,
    /// `CARD`: a card left the shoe (shoes only).
    Card {
        /// The card, `None` when unreadable (`card=?`).
        card: Option<Card>,
        /// Where it went, when known.
        target: Option<Target>,
        /// 1-based position in that hand, when known.
        index: Option<u8>,
        /// Dealt face up, when known.
        face_up: Option<bool>,
        /// A repeat of an earlier report the device was unsure had arrived.
        retransmit: bool,
    },
    /// `CUTCARD`: the cutting card came out.
    CuttingCardDrawn,
    /// `BURN`: the burn count.
    BurnCounted {
        /// Number of burn cards.
        count: u32,
    },
    /// `RESULT`: a declared result.
    Result {
        /// The winner.
        outcome: Outcome,
        /// Player pair, when reported.
        player_pair: Option<bool>,
        /// Banker pair, when reported.
        banker_pair: Option<bool>,
    },
    /// `ERROR`: an error was raised.
    Error {
        /// The device's code.
        code: String,
        /// What it means.
        text: String,
    },
    /// `CLEAR`: an error was cleared.
    ErrorCleared {
        /// The code cleared.
        code: String,
    },
    /// `JAM`: cards jammed.
    Jam {
        /// Where, when the device knows.
        location: Option<String>,
    },
    /// `DOOR`: a door or lid opened or closed.
    Door {
        /// Open now.
        open: bool,
    },
    /// `LOCK`: the device was locked or unlocked.
    Lock {
        /// Locked now.
        locked: bool,
    },
    /// `SHUFFLE_START`: a shuffle began.
    ShuffleStarted {
        /// Decks being shuffled, when said.
        decks: Option<u8>,
        /// The shuffler's shuffle counter for this shuffle (`cycle=`), when it keeps one.
        cycle: Option<u32>,
    },
    /// `STATUS`: a shuffler's lifetime counters (protocol revision 2).
    Status {
        /// Shuffles (cycles) done.
        cycles: u32,
        /// Card-recognition errors logged, when counted.
        recognition_errors: Option<u32>,
        /// Malfunctions logged, when counted.
        malfunctions: Option<u32>,
    },
    /// `SHUFFLE_STEP`: a step of preparing the cards by hand before loading them (Pontoon 6.4),
    /// from a console (protocol revision 2).
    ShuffleStep {
        /// Which step.
        step: ShuffleStep,
    },
    /// `SHUFFLE_DONE`: a shuffle completed, with the deck check.
    ShuffleCompleted(DeckCheck),
    /// `CUT`: the player's cut position.
    Cut {
        /// Cards in front of the cut.
        position: u32,
    },
    /// `CUTCARD_PLACED`: the cutting card was placed.
    CuttingCardPlaced {
        /// Cards behind it.
        from_back: u32,
    },
    /// `EXPOSED`: a card was exposed outside the normal deal.
    CardExposed {
        /// The card, when known.
        card: Option<Card>,
        /// When.
        during: ExposedDuring,
    },
    /// `BETS_CLOSED`: no more bets.
    BetsClosed,
    /// `TABLE`: the table opened, closed or became vacant.
    Table {
        /// The new state.
        state: TableState,
    },
    /// `REPLACED`: the cards in play were replaced.
    CardsReplaced,
    /// `DECISION`: a decision on a box's hand (Blackjack, Pontoon), from a dealer console.
    Decision {
        /// The box (`box:N`).
        target: Target,
        /// The box's hand, 1-based, when known.
        hand: Option<u8>,
        /// What was decided.
        action: Action,
    },
    /// `ACTION`: a poker player acted on their hand, from a dealer console.
    PlayerActed {
        /// The seat (`seat:N`).
        target: Target,
        /// What the player did.
        action: PlayerAction,
    },
    /// `MISDEAL`: a supervisor declared a poker misdeal (or ruled on one), from the console.
    Misdeal {
        /// The lettered paragraph of the misdeal rule.
        reason: MisdealReason,
        /// The seats affected, ascending.
        seats: Vec<u8>,
        /// The ruling.
        ruling: MisdealRuling,
    },
    /// `DEALER`: a dealer signed in at the table or out of it, from a dealer console (protocol
    /// revision 4).
    Dealer {
        /// Signed in (`state=in`) or out (`state=out`).
        signed_in: bool,
        /// The dealer's name, as the console sent it.
        name: String,
    },
    /// `WITHHELD`: written by the host's screen (never by a device) in place of a line that must
    /// not be kept, such as a shuffler's card order; see [`crate::ProtoScreen`].
    Withheld {
        /// The type of the line withheld (`ORDER`, `CARD`, …), or `?` when it had none.
        kind: String,
        /// How many bytes were withheld, terminator included.
        bytes: u64,
    },
}

/// Why a line's type and fields do not make a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum MessageError {
    /// Breaks the protocol.
    Malformed(String),
    /// A type or version this host does not know.
    Unsupported(String),
}

fn bool_text(b: bool) -> &'static str {
    if b {
        "1"
    } else {
        "0"
    }
}

impl Message {
    /// The message's type on the wire.
    pub fn type_name(&self) -> &'static str {
        match self {
            Message::Hello(_) => "HELLO",
            Message::Heartbeat => "HB",
            Message::Card { .. } => "CARD",
            Message::CuttingCardDrawn => "CUTCARD",
            Message::BurnCounted { .. } => "BURN",
            Message::Result { .. } => "RESULT",
            Message::Error { .. } => "ERROR",
            Message::ErrorCleared { .. } => "CLEAR",
            Message::Jam { .. } => "JAM",
            Message::Door { .. } => "DOOR",
            Message::Lock { .. } => "LOCK",
            Message::ShuffleStarted { .. } => "SHUFFLE_START",
            Message::Status { .. } => "STATUS",
            Message::ShuffleStep { .. } => "SHUFFLE_STEP",
            Message::ShuffleCompleted(_) => "SHUFFLE_DONE",
            Message::Cut { .. } => "CUT",
            Message::CuttingCardPlaced { .. } => "CUTCARD_PLACED",
            Message::CardExposed { .. } => "EXPOSED",
            Message::BetsClosed => "BETS_CLOSED",
            Message::Table { .. } => "TABLE",
            Message::CardsReplaced => "REPLACED",
            Message::Decision { .. } => "DECISION",
            Message::PlayerActed { .. } => "ACTION",
            Message::Misdeal { .. } => "MISDEAL",
            Message::Dealer { .. } => "DEALER",
            Message::Withheld { .. } => "WITHHELD",
        }
    }

    /// The message's fields, in the order they are written.
    pub fn fields(&self) -> Vec<(&'static str, String)> {
        let mut f: Vec<(&'static str, String)> = Vec::new();
        let card_text = |c: Option<Card>| c.map_or_else(|| "?".to_owned(), |c| c.to_string());
        match self {
            Message::Hello(id) => {
                f.push(("proto", id.protocol_version.to_string()));
                f.push(("role", id.role.clone()));
                f.push(("make", id.make.clone()));
                f.push(("model", id.model.clone()));
                f.push(("serial", id.serial.clone()));
                f.push(("fw", id.firmware.clone()));
            }
            Message::Heartbeat
            | Message::CuttingCardDrawn
            | Message::BetsClosed
            | Message::CardsReplaced => {}
            Message::Card {
                card,
                target,
                index,
                face_up,
                retransmit,
            } => {
                f.push(("card", card_text(*card)));
                if let Some(target) = target {
                    f.push(("target", target.to_string()));
                }
                if let Some(index) = index {
                    f.push(("index", index.to_string()));
                }
                if let Some(face_up) = face_up {
                    f.push(("face", if *face_up { "up" } else { "down" }.into()));
                }
                if *retransmit {
                    f.push(("retransmit", "1".into()));
                }
            }
            Message::BurnCounted { count } => f.push(("count", count.to_string())),
            Message::Decision {
                target,
                hand,
                action,
            } => {
                f.push(("target", target.to_string()));
                if let Some(hand) = hand {
                    f.push(("hand", hand.to_string()));
                }
                f.push(("action", action.to_string()));
            }
            Message::PlayerActed { target, action } => {
                f.push(("target", target.to_string()));
                f.push(("action", action.to_string()));
            }
            Message::Misdeal {
                reason,
                seats,
                ruling,
            } => {
                f.push(("reason", reason.to_string()));
                if !seats.is_empty() {
                    let list: Vec<String> = seats.iter().map(u8::to_string).collect();
                    f.push(("seats", list.join(",")));
                }
                f.push(("ruling", ruling.to_string()));
            }
            Message::Withheld { kind, bytes } => {
                f.push(("type", kind.clone()));
                f.push(("bytes", bytes.to_string()));
            }
            Message::Result {
                outcome,
                player_pair,
                banker_pair,
            } => {
                f.push(("outcome", outcome.to_string()));
                if let Some(p) = player_pair {
                    f.push(("ppair", bool_text(*p).into()));
                }
                if let Some(p) = banker_pair {
                    f.push(("bpair", bool_text(*p).into()));
                }
            }
            Message::Error { code, text } => {
                f.push(("code", code.clone()));
                f.push(("text", text.clone()));
            }
            Message::ErrorCleared { code } => f.push(("code", code.clone())),
            Message::Jam { location } => {
                if let Some(location) = location {
                    f.push(("where", location.clone()));
                }
            }
            Message::Door { open } => {
                f.push(("state", if *open { "open" } else { "closed" }.into()))
            }
            Message::Lock { locked } => {
                f.push(("state", if *locked { "locked" } else { "unlocked" }.into()))
            }
            Message::ShuffleStarted { decks, cycle } => {
                if let Some(decks) = decks {
                    f.push(("decks", decks.to_string()));
                }
                if let Some(cycle) = cycle {
                    f.push(("cycle", cycle.to_string()));
                }
            }
            Message::Status {
                cycles,
                recognition_errors,
                malfunctions,
            } => {
                f.push(("cycles", cycles.to_string()));
                if let Some(n) = recognition_errors {
                    f.push(("recognition_errors", n.to_string()));
                }
                if let Some(n) = malfunctions {
                    f.push(("malfunctions", n.to_string()));
                }
            }
            Message::ShuffleStep { step } => f.push(("step", step.to_string())),
            Message::ShuffleCompleted(check) => {
                if let Some(decks) = check.decks {
                    f.push(("decks", decks.to_string()));
                }
                f.push(("cards", check.cards.to_string()));
                f.push(("expected", check.expected.to_string()));
                f.push(("missing", check.missing.to_string()));
                f.push(("extra", check.extra.to_string()));
                f.push(("foreign", check.foreign.to_string()));
                if let Some(mode) = check.mode {
                    f.push(("mode", mode.to_string()));
                }
            }
            Message::Cut { position } => f.push(("position", position.to_string())),
            Message::CuttingCardPlaced { from_back } => {
                f.push(("from_back", from_back.to_string()))
            }
            Message::CardExposed { card, during } => {
                if card.is_some() {
                    f.push(("card", card_text(*card)));
                }
                f.push(("during", during.to_string()));
            }
            Message::Table { state } => f.push(("state", state.to_string())),
            Message::Dealer { signed_in, name } => {
                f.push(("state", if *signed_in { "in" } else { "out" }.to_owned()));
                f.push(("name", name.clone()));
            }
        }
        f
    }

    /// Reads a message from its type and fields.
    pub(crate) fn from_parts(kind: &str, fields: &Fields<'_>) -> Result<Message, MessageError> {
        let m = |s: String| MessageError::Malformed(s);
        Ok(match kind {
            "HELLO" => {
                let proto: u32 = fields.number("proto")?;
                if proto != VERSION {
                    return Err(MessageError::Unsupported(format!(
                        "HELLO proto={proto}: this host speaks version {VERSION}"
                    )));
                }
                let role = fields.required("role")?;
                if Role::parse(&role).is_none() {
                    return Err(m(format!(
                        "HELLO role={role:?} is not shoe, shuffler or console"
                    )));
                }
                Message::Hello(DeviceIdentity {
                    role: role.into_owned(),
                    make: fields.required("make")?.into_owned(),
                    model: fields.required("model")?.into_owned(),
                    serial: fields.required("serial")?.into_owned(),
                    firmware: fields.required("fw")?.into_owned(),
                    protocol_version: proto,
                })
            }
            "HB" => Message::Heartbeat,
            "CARD" => Message::Card {
                card: fields
                    .card("card")?
                    .ok_or_else(|| m("CARD needs card=".into()))?,
                target: fields.parsed_opt::<Target>("target")?,
                index: fields
                    .number_opt::<u8>("index")?
                    .map(|i| {
                        if i == 0 {
                            Err(m("index=0: positions count from 1".into()))
                        } else {
                            Ok(i)
                        }
                    })
                    .transpose()?,
                face_up: match fields.get("face")?.as_deref() {
                    None => None,
                    Some("up") => Some(true),
                    Some("down") => Some(false),
                    Some(other) => return Err(m(format!("face={other:?} is not up or down"))),
                },
                retransmit: fields.flag("retransmit")?.unwrap_or(false),
            },
            "CUTCARD" => Message::CuttingCardDrawn,
            "BURN" => Message::BurnCounted {
                count: fields.number("count")?,
            },
            "RESULT" => Message::Result {
                outcome: fields.parsed("outcome")?,
                player_pair: fields.flag("ppair")?,
                banker_pair: fields.flag("bpair")?,
            },
            "ERROR" => Message::Error {
                code: fields.required("code")?.into_owned(),
                text: fields.get("text")?.map(Cow::into_owned).unwrap_or_default(),
            },
            "CLEAR" => Message::ErrorCleared {
                code: fields.required("code")?.into_owned(),
            },
            "JAM" => Message::Jam {
                location: fields.get("where")?.map(Cow::into_owned),
            },
            "DOOR" => Message::Door {
                open: match fields.required("state")?.as_ref() {
                    "open" => true,
                    "closed" => false,
                    other => return Err(m(format!("DOOR state={other:?} is not open or closed"))),
                },
            },
            "LOCK" => Message::Lock {
                locked: match fields.required("state")?.as_ref() {
                    "locked" => true,
                    "unlocked" => false,
                    other => {
                        return Err(m(format!("LOCK state={other:?} is not locked or unlocked")))
                    }
                },
            },
            "SHUFFLE_START" => Message::ShuffleStarted {
                decks: fields.number_opt("decks")?,
                cycle: fields.number_opt("cycle")?,
            },
            "STATUS" => Message::Status {
                cycles: fields.number("cycles")?,
                recognition_errors: fields.number_opt("recognition_errors")?,
                malfunctions: fields.number_opt("malfunctions")?,
            },
            "SHUFFLE_STEP" => Message::ShuffleStep {
                step: fields.parsed("step")?,
            },
            "SHUFFLE_DONE" => Message::ShuffleCompleted(DeckCheck {
                decks: fields.number_opt("decks")?,
                cards: fields.number("cards")?,
                expected: fields.number("expected")?,
                missing: fields.number("missing")?,
                extra: fields.number("extra")?,
                foreign: fields.number("foreign")?,
                mode: fields.parsed_opt("mode")?,
            }),
            "CUT" => Message::Cut {
                position: fields.number("position")?,
            },
            "CUTCARD_PLACED" => Message::CuttingCardPlaced {
                from_back: fields.number("from_back")?,
            },
            "EXPOSED" => Message::CardExposed {
                card: fields.card("card")?.flatten(),
                during: fields.parsed("during")?,
            },
            "BETS_CLOSED" => Message::BetsClosed,
            "TABLE" => Message::Table {
                state: fields.parsed("state")?,
            },
            "REPLACED" => Message::CardsReplaced,
            "DECISION" => Message::Decision {
                target: fields.parsed("target")?,
                hand: fields.number_opt("hand")?,
                action: fields.parsed("action")?,
            },
            "ACTION" => Message::PlayerActed {
                target: fields.parsed("target")?,
                action: fields.parsed("action")?,
            },
            "DEALER" => Message::Dealer {
                signed_in: match fields.required("state")?.as_ref() {
                    "in" => true,
                    "out" => false,
                    other => return Err(m(format!("DEALER state={other:?} is not in or out"))),
                },
                name: {
                    let name = fields.required("name")?.into_owned();
                    pitwatch_model::check_dealer_name(&name)
                        .map_err(|e| m(format!("DEALER name: {e}")))?;
                    name
                },
            },
            "MISDEAL" => Message::Misdeal {
                reason: fields.parsed("reason")?,
                seats: fields.seats("seats")?,
                ruling: fields.parsed("ruling")?,
            },
            "WITHHELD" => Message::Withheld {
                kind: fields.required("type")?.into_owned(),
                bytes: fields.number("bytes")?,
            },
            other => {
                return Err(MessageError::Unsupported(format!(
                    "unknown message type {other}"
                )))
            }
        })
    }
}

/// Writes `value` with the protocol's escaping: `%XX` for `%`, `=`, `*`, and every byte outside
/// printable ASCII (space included).
fn push_escaped(line: &mut String, value: &str) {
    for b in value.bytes() {
        if (0x21..0x7f).contains(&b) && !matches!(b, b'%' | b'=' | b'*') {
            line.push(b as char);
        } else {
            let _ = write!(line, "%{b:02X}");
        }
    }
}

/// A line with sequence number `seq`, type `kind` and `fields`, checksum and `\r\n` included.
/// Any type and fields may be written, so fault injection can send what a device must not.
pub fn encode_raw(seq: u64, kind: &str, fields: &[(&str, &str)]) -> Vec<u8> {
    let mut line = format!("PW{VERSION} {seq} {kind}");
    for (key, value) in fields {
        line.push(' ');
        line.push_str(key);
        line.push('=');
        push_escaped(&mut line, value);
    }
    let crc = crc16(line.as_bytes());
    let _ = write!(line, " *{crc:04X}\r\n");
    line.into_bytes()
}

/// `message` as a line with sequence number `seq`.
pub fn encode(seq: u64, message: &Message) -> Vec<u8> {
    let fields = message.fields();
    let borrowed: Vec<(&str, &str)> = fields.iter().map(|(k, v)| (*k, v.as_str())).collect();
    encode_raw(seq, message.type_name(), &borrowed)
}

/// Numbers messages the way a device must: from 1, one up per line, back to 1 after `HELLO`.
#[derive(Debug, Clone)]
pub struct MessageEncoder {
    next: u64,
}

impl Default for MessageEncoder {
    fn default() -> Self {
        MessageEncoder { next: 1 }
    }
}

impl MessageEncoder {
    /// An encoder whose first line has sequence number 1.
    pub fn new() -> Self {
        Self::default()
    }

    /// `message` with the next sequence number.
    pub fn encode(&mut self, message: &Message) -> Vec<u8> {
        if matches!(message, Message::Hello(_)) {
            self.next = 1;
        }
        let seq = self.next;
        self.next = if self.next >= u64::from(u32::MAX) {
            1
        } else {
            self.next + 1
        };
        encode(seq, message)
    }

    /// The sequence number the next line will carry.
    pub fn next_seq(&self) -> u64 {
        self.next
    }
}

/// Changes a line's checksum so it no longer matches (fault injection).
pub fn corrupt_checksum(line: &mut [u8]) {
    if let Some(star) = line.iter().rposition(|&b| b == b'*') {
        if let Some(digit) = line.get_mut(star + 1) {
            *digit = if *digit == b'0' { b'1' } else { b'0' };
        }
    }
}

/// The `key=value` fields of one line, borrowed from it.
pub(crate) struct Fields<'a> {
    pairs: [(&'a [u8], &'a [u8]); MAX_FIELDS],
    len: usize,
}

fn unescape(value: &[u8]) -> Result<Cow<'_, str>, String> {
    if !value.contains(&b'%') {
        // Checked to be printable ASCII when the line was split.
        return Ok(Cow::Borrowed(
            std::str::from_utf8(value).unwrap_or_default(),
        ));
    }
    let mut bytes = Vec::with_capacity(value.len());
    let mut i = 0;
    while i < value.len() {
        if value[i] == b'%' {
            let hex = value
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .ok_or_else(|| "a % must be followed by two hex digits".to_owned())?;
            bytes.push(hex);
            i += 3;
        } else {
            bytes.push(value[i]);
            i += 1;
        }
    }
    String::from_utf8(bytes)
        .map(Cow::Owned)
        .map_err(|_| "an escaped value is not UTF-8".to_owned())
}

impl<'a> Fields<'a> {
    pub(crate) fn new() -> Self {
        Fields {
            pairs: [(&[], &[]); MAX_FIELDS],
            len: 0,
        }
    }

    /// Adds one `key=value` token; fails on a bad key, a repeated key or too many fields.
    pub(crate) fn add(&mut self, token: &'a [u8]) -> Result<(), String> {
        let Some(eq) = token.iter().position(|&b| b == b'=') else {
            return Err(format!(
                "field {:?} is not key=value",
                String::from_utf8_lossy(token)
            ));
        };
        let (key, value) = (&token[..eq], &token[eq + 1..]);
        if key.is_empty()
            || !key
                .iter()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'_')
        {
            return Err(format!(
                "field name {:?} is not lower-case letters, digits and _",
                String::from_utf8_lossy(key)
            ));
        }
        if self.pairs[..self.len].iter().any(|(k, _)| *k == key) {
            return Err(format!(
                "field {} appears twice",
                String::from_utf8_lossy(key)
            ));
        }
        if self.len == MAX_FIELDS {
            return Err(format!("more than {MAX_FIELDS} fields"));
        }
        self.pairs[self.len] = (key, value);
        self.len += 1;
        Ok(())
    }

    /// Whether a field named `key` is present.
    pub(crate) fn has(&self, key: &str) -> bool {
        self.pairs[..self.len]
            .iter()
            .any(|(k, _)| *k == key.as_bytes())
    }

    fn get(&self, key: &str) -> Result<Option<Cow<'a, str>>, MessageError> {
        match self.pairs[..self.len]
            .iter()
            .find(|(k, _)| *k == key.as_bytes())
        {
            None => Ok(None),
            Some((_, v)) => unescape(v)
                .map(Some)
                .map_err(|e| MessageError::Malformed(format!("{key}: {e}"))),
        }
    }

    fn required(&self, key: &str) -> Result<Cow<'a, str>, MessageError> {
        self.get(key)?
            .ok_or_else(|| MessageError::Malformed(format!("missing field {key}=")))
    }

    fn number_opt<T: std::str::FromStr>(&self, key: &str) -> Result<Option<T>, MessageError> {
        match self.get(key)? {
            None => Ok(None),
            Some(text) => {
                let digits_ok = !text.is_empty()
                    && text.bytes().all(|b| b.is_ascii_digit())
                    && (text.len() == 1 || !text.starts_with('0'));
                match text.parse::<T>() {
                    Ok(n) if digits_ok => Ok(Some(n)),
                    _ => Err(MessageError::Malformed(format!(
                        "{key}={text:?} is not a whole number in range (decimal, no leading zeros)"
                    ))),
                }
            }
        }
    }

    fn number<T: std::str::FromStr>(&self, key: &str) -> Result<T, MessageError> {
        self.number_opt(key)?
            .ok_or_else(|| MessageError::Malformed(format!("missing field {key}=")))
    }

    /// A comma-separated list of seat numbers (1 to 255), each once; empty when absent.
    fn seats(&self, key: &str) -> Result<Vec<u8>, MessageError> {
        let Some(text) = self.get(key)? else {
            return Ok(Vec::new());
        };
        let mut seats = Vec::new();
        for part in text.split(',') {
            let digits_ok = !part.is_empty()
                && part.bytes().all(|b| b.is_ascii_digit())
                && !part.starts_with('0');
            match part.parse::<u8>() {
                Ok(n) if digits_ok => seats.push(n),
                _ => {
                    return Err(MessageError::Malformed(format!(
                        "{key}={text:?} is not a list of seat numbers 1 to 255 (2,5)"
                    )))
                }
            }
        }
        seats.sort_unstable();
        seats.dedup();
        Ok(seats)
    }

    fn flag(&self, key: &str) -> Result<Option<bool>, MessageError> {
        match self.get(key)?.as_deref() {
            None => Ok(None),
            Some("1") => Ok(Some(true)),
            Some("0") => Ok(Some(false)),
            Some(other) => Err(MessageError::Malformed(format!(
                "{key}={other:?} is not 0 or 1"
            ))),
        }
    }

    fn parsed_opt<T>(&self, key: &str) -> Result<Option<T>, MessageError>
    where
        T: std::str::FromStr<Err = String>,
    {
        match self.get(key)? {
            None => Ok(None),
            Some(text) => text
                .parse::<T>()
                .map(Some)
                .map_err(|e| MessageError::Malformed(format!("{key}: {e}"))),
        }
    }

    fn parsed<T>(&self, key: &str) -> Result<T, MessageError>
    where
        T: std::str::FromStr<Err = String>,
    {
        self.parsed_opt(key)?
            .ok_or_else(|| MessageError::Malformed(format!("missing field {key}=")))
    }

    /// `None` when absent, `Some(None)` for `?` (unreadable), `Some(Some(card))` otherwise.
    fn card(&self, key: &str) -> Result<Option<Option<Card>>, MessageError> {
        match self.get(key)? {
            None => Ok(None),
            Some(text) if text == "?" => Ok(Some(None)),
            Some(text) => text
                .parse::<Card>()
                .map(|c| Some(Some(c)))
                .map_err(|e| MessageError::Malformed(format!("{key}: {e}"))),
        }
    }
}
