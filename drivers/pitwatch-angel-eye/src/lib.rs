//! Codec for the Angel Eye II-EX electronic baccarat shoe (host protocol as published; see
//! `docs/devices.md` in the shared reference material).
//!
//! [`AngelEyeDecoder`] turns the shoe's byte stream into canonical table events and rejection
//! reports; [`encode`] builds every frame the shoe sends and every command the host may send,
//! so the simulator and the tests speak exactly the protocol the decoder reads.
//!
//! Decisions where the published description leaves room (each is tested):
//! - `S` (start of communication), `P` (stand-by), `M` (preset changed), responses, `ACK` and
//!   `NAK` produce no table event; they are accepted frames with a [`Notice`], so the store still
//!   journals them.
//! - `d` (a card drawn outside a game, in lock, error or setting mode) is a `card_drawn` without
//!   a target, with the extra field `outside_game` = `"lock"`, `"error"` or `"setting"`. A card
//!   physically left the shoe, so the rules engine must see it; dropping it would hide exactly
//!   the kind of handling an auditor asks about.
//! - The burn count (target `101`) is carried in the index bits of B1 (0–10); B2 must still have
//!   bit 7 set and is otherwise ignored.
//! - An index of 0 (allowed for burn and first cards) has no place in the model's 1-based
//!   `index`, so it is left out and recorded as the extra field `device_index: 0`.
//! - Cards accepted by position (target and index) are remembered until the next result (`G`):
//!   an `R` for a remembered position is a duplicate and is rejected, an `R` for a new position is
//!   accepted with `retransmit: true`: a card whose first report was lost, which the engine counts
//!   once (the one meaning of `retransmit`, `docs/events.md`). A `D` is always accepted (a second
//!   card at the same position is for the rules engine to judge).
//! - Reports of known codes are framed by their fixed length rather than by searching for ETX,
//!   because an `e` code byte may legitimately equal a start byte or ETX.
//! - Garbage (bytes outside any frame) is reported when the next start byte arrives, in pieces of
//!   at most 128 bytes, or when the stream finishes, so the outputs do not depend on how the
//!   bytes were split into chunks.

pub mod encode;

use pitwatch_codec::{
    escape_bytes, Accepted, DecodeOutput, Decoder, EventNumbering, FrameBytes, Notice, RejectKind,
    Rejection,
};
use pitwatch_model::{Card, EventKind, Outcome, Rank, Suit, TableEvent, Target, Timestamp};
use serde_json::{Map, Value};

pub use encode::{
    encode_command, encode_report, AngelEyeEncoder, Command, CommandError, Report, ReportEncoder,
};

/// Start of a response frame (shoe → host) and of a command (host → shoe).
pub const STX: u8 = 0x02;
/// End of the data of a frame; the two BCC characters follow it.
pub const ETX: u8 = 0x03;
/// Start of an active report.
pub const ENQ: u8 = 0x05;
/// Positive acknowledgement (a frame of one byte).
pub const ACK: u8 = 0x06;
/// Negative acknowledgement, followed by one code byte.
pub const NAK: u8 = 0x15;
/// A partial frame that has no ETX within this many bytes is given up.
pub const MAX_FRAME: usize = 128;

/// The name under which this protocol is configured.
pub const PROTOCOL: &str = "angel-eye";

/// Which bytes the block check character covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BccVariant {
    /// XOR of the bytes after the start byte up to and including ETX (the documented rule, and
    /// what the shoe sends).
    #[default]
    ExcludeStart,
    /// XOR including the start byte (what the published command example needs to come out).
    IncludeStart,
}

impl BccVariant {
    /// The BCC of `frame`, which starts with its start byte and ends with ETX.
    pub fn compute(self, frame: &[u8]) -> u8 {
        let covered = match self {
            BccVariant::ExcludeStart => frame.get(1..).unwrap_or(&[]),
            BccVariant::IncludeStart => frame,
        };
        covered.iter().fold(0, |acc, b| acc ^ b)
    }
}

/// Settings of one Angel Eye stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AngelEyeConfig {
    /// BCC rule for frames received from the shoe.
    pub receive_bcc: BccVariant,
    /// BCC rule for commands the host sends (the published example needs `include_start`).
    pub command_bcc: BccVariant,
}

impl Default for AngelEyeConfig {
    fn default() -> Self {
        AngelEyeConfig {
            receive_bcc: BccVariant::ExcludeStart,
            command_bcc: BccVariant::IncludeStart,
        }
    }
}

impl AngelEyeConfig {
    /// `command` framed with this stream's command BCC rule.
    pub fn encode_command(&self, command: Command) -> Result<Vec<u8>, CommandError> {
        encode_command(command, self.command_bcc)
    }
}

/// The text of an Angel Eye error code (`E` / `e`).
pub fn error_text(code: u8) -> &'static str {
    match code {
        1 => "cannot read",
        2 => "overdraw",
        3 => "mishandling of button",
        4 => "reverse run at exit",
        5 => "reverse run midway",
        6 => "card code error",
        7 => "drawing time-out",
        _ => "unknown error code",
    }
}

/// The text of a NAK code.
pub fn nak_text(code: u8) -> &'static str {
    match code {
        0x01 => "overrun, framing or parity error",
        0x02 => "BCC error",
        0x03 => "no ETX",
        0x11 => "format or length error",
        0x12 => "address error",
        0x13 => "command error",
        0x14 => "type error",
        0x21 => "busy",
        0x22 => "write in progress",
        0xFF => "other error",
        _ => "unknown NAK code",
    }
}

/// The target bits (6–4) of a card's B1 byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CardSlotKind {
    /// `000`
    Player,
    /// `001`
    Banker,
    /// `010`
    Burn,
    /// `100`: the first card, whose value sets the burn count.
    First,
    /// `101`: the burn count (in the index bits).
    BurnCount,
}

impl CardSlotKind {
    /// The three target bits.
    pub const fn bits(self) -> u8 {
        match self {
            CardSlotKind::Player => 0b000,
            CardSlotKind::Banker => 0b001,
            CardSlotKind::Burn => 0b010,
            CardSlotKind::First => 0b100,
            CardSlotKind::BurnCount => 0b101,
        }
    }

    fn from_bits(bits: u8) -> Option<Self> {
        Some(match bits {
            0b000 => CardSlotKind::Player,
            0b001 => CardSlotKind::Banker,
            0b010 => CardSlotKind::Burn,
            0b100 => CardSlotKind::First,
            0b101 => CardSlotKind::BurnCount,
            _ => return None,
        })
    }
}

/// The suit bits (6–4) of a card's B2 byte.
pub const fn suit_bits(suit: Suit) -> u8 {
    match suit {
        Suit::Diamonds => 0b001,
        Suit::Clubs => 0b010,
        Suit::Spades => 0b011,
        Suit::Hearts => 0b100,
    }
}

/// The mode named by a `d` report's target bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutsideGameMode {
    /// `000`
    Lock,
    /// `001`
    Error,
    /// `010`
    Setting,
}

impl OutsideGameMode {
    /// The three target bits.
    pub const fn bits(self) -> u8 {
        match self {
            OutsideGameMode::Lock => 0,
            OutsideGameMode::Error => 1,
            OutsideGameMode::Setting => 2,
        }
    }

    /// The value of the `outside_game` extra field.
    pub const fn as_str(self) -> &'static str {
        match self {
            OutsideGameMode::Lock => "lock",
            OutsideGameMode::Error => "error",
            OutsideGameMode::Setting => "setting",
        }
    }
}

/// Decoder of the shoe → host byte stream.
#[derive(Debug, Clone)]
pub struct AngelEyeDecoder {
    config: AngelEyeConfig,
    /// Bytes not yet accounted for: pending garbage and/or the start of a frame.
    pending: Vec<u8>,
    numbering: EventNumbering,
    last_report_seq: Option<u8>,
    /// Positions (target bits × 16 + index) of cards accepted since the last result.
    accepted_positions: u128,
}

impl Default for AngelEyeDecoder {
    fn default() -> Self {
        Self::new(AngelEyeConfig::default())
    }
}

/// How one attempt to read a frame at a start byte ended.
enum Framing {
    /// More bytes are needed.
    Incomplete,
    /// A frame of this many bytes is complete and its BCC is right (or it has none).
    Complete(usize),
    /// No frame here; `examined` bytes were looked at.
    Failed {
        examined: usize,
        kind: RejectKind,
        reason: String,
    },
}

fn is_start(b: u8) -> bool {
    matches!(b, STX | ENQ | ACK | NAK)
}

fn hex_value(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    }
}

/// Data length of an active report with code `code`, when the code is known.
fn report_data_len(code: u8) -> Option<usize> {
    match code {
        b'S' | b'P' | b'C' => Some(0),
        b'G' | b'E' | b'e' | b'L' => Some(1),
        b'D' | b'd' | b'R' => Some(2),
        b'M' => Some(6),
        _ => None,
    }
}

impl AngelEyeDecoder {
    /// A decoder whose first event gets `seq` 1.
    pub fn new(config: AngelEyeConfig) -> Self {
        Self::starting_at(config, 1)
    }

    /// A decoder whose first event gets `seq` `first_seq` (a monitor resuming a stream).
    pub fn starting_at(config: AngelEyeConfig, first_seq: u64) -> Self {
        AngelEyeDecoder {
            config,
            pending: Vec::new(),
            numbering: EventNumbering::starting_at(first_seq),
            last_report_seq: None,
            accepted_positions: 0,
        }
    }

    /// The stream's settings.
    pub fn config(&self) -> &AngelEyeConfig {
        &self.config
    }

    /// Frames and decodes `data`, returning how many bytes were accounted for. With `at_end`,
    /// everything is accounted for.
    fn process(
        &mut self,
        data: &[u8],
        now: Timestamp,
        out: &mut Vec<DecodeOutput>,
        at_end: bool,
    ) -> usize {
        let mut i = 0;
        while i < data.len() {
            let rest = &data[i..];
            let garbage = rest.iter().position(|&b| is_start(b)).unwrap_or(rest.len());
            // Garbage goes out in pieces of MAX_FRAME so chunking does not change the outputs.
            let mut g = 0;
            while garbage - g >= MAX_FRAME || (g < garbage && (garbage < rest.len() || at_end)) {
                let n = (garbage - g).min(MAX_FRAME);
                reject(
                    out,
                    now,
                    RejectKind::Garbage,
                    format!("{n} byte(s) outside any frame skipped"),
                    &rest[g..g + n],
                );
                g += n;
            }
            i += g;
            if g < garbage {
                // Garbage still pending and no start byte yet: wait for more.
                return i;
            }
            if i >= data.len() {
                break;
            }
            let rest = &data[i..];
            match self.frame(rest) {
                Framing::Incomplete => {
                    if at_end {
                        reject(
                            out,
                            now,
                            RejectKind::Truncated,
                            "the stream ended inside a frame".into(),
                            rest,
                        );
                        return data.len();
                    }
                    return i;
                }
                Framing::Complete(n) => {
                    self.decode_frame(&rest[..n], now, out);
                    i += n;
                }
                Framing::Failed {
                    examined,
                    kind,
                    reason,
                } => {
                    let examined = examined.clamp(1, rest.len());
                    // Hunt again from the next start byte inside what was looked at, so a
                    // real frame that began inside a broken one is not lost.
                    let skip = rest[1..examined]
                        .iter()
                        .position(|&b| is_start(b))
                        .map_or(examined, |p| p + 1);
                    reject(out, now, kind, reason, &rest[..skip]);
                    i += skip;
                }
            }
        }
        i
    }

    /// Finds the frame that starts at `d[0]` (a start byte) and checks its BCC.
    fn frame(&self, d: &[u8]) -> Framing {
        match d[0] {
            ACK => Framing::Complete(1),
            NAK => {
                if d.len() < 2 {
                    Framing::Incomplete
                } else {
                    Framing::Complete(2)
                }
            }
            ENQ => {
                if d.len() < 3 {
                    return Framing::Incomplete;
                }
                if d[2] == ETX {
                    // A report without Data[0]: framed here, rejected once its BCC is known.
                    return self.check_bcc(d, 2);
                }
                match report_data_len(d[2]) {
                    Some(n) => {
                        let etx = 3 + n;
                        if d.len() <= etx {
                            return Framing::Incomplete;
                        }
                        if d[etx] != ETX {
                            return Framing::Failed {
                                examined: etx + 1,
                                kind: RejectKind::Malformed,
                                reason: format!(
                                    "report '{}' must have ETX after {n} data byte(s), found 0x{:02X}",
                                    d[2] as char, d[etx]
                                ),
                            };
                        }
                        self.check_bcc(d, etx)
                    }
                    // Scanning starts after the code byte: the data may be empty.
                    None => self.scan_for_etx(d, 3),
                }
            }
            _ => self.scan_for_etx(d, 1),
        }
    }

    /// Frames a variable-length frame by searching for ETX from `from`.
    fn scan_for_etx(&self, d: &[u8], from: usize) -> Framing {
        let limit = d.len().min(MAX_FRAME);
        for (k, &b) in d.iter().enumerate().take(limit).skip(from) {
            if b == ETX {
                return self.check_bcc(d, k);
            }
            if is_start(b) {
                return Framing::Failed {
                    examined: k,
                    kind: RejectKind::Truncated,
                    reason: format!("a new frame started at byte {k} before this frame's ETX"),
                };
            }
        }
        if d.len() >= MAX_FRAME {
            Framing::Failed {
                examined: MAX_FRAME,
                kind: RejectKind::TooLong,
                reason: format!("no ETX within {MAX_FRAME} bytes"),
            }
        } else {
            Framing::Incomplete
        }
    }

    fn check_bcc(&self, d: &[u8], etx: usize) -> Framing {
        if d.len() < etx + 3 {
            return Framing::Incomplete;
        }
        let total = etx + 3;
        let (Some(hi), Some(lo)) = (hex_value(d[etx + 1]), hex_value(d[etx + 2])) else {
            return Framing::Failed {
                examined: total,
                kind: RejectKind::Malformed,
                reason: format!(
                    "BCC {:?} is not two upper-case hex characters",
                    escape_bytes(&d[etx + 1..total])
                ),
            };
        };
        let sent = hi << 4 | lo;
        let computed = self.config.receive_bcc.compute(&d[..=etx]);
        if sent != computed {
            return Framing::Failed {
                examined: total,
                kind: RejectKind::BadChecksum,
                reason: format!("BCC {sent:02X} does not match the computed {computed:02X}"),
            };
        }
        Framing::Complete(total)
    }

    /// Decodes one complete frame whose framing and BCC are right.
    fn decode_frame(&mut self, frame: &[u8], now: Timestamp, out: &mut Vec<DecodeOutput>) {
        match frame[0] {
            ACK => accept(out, now, frame, None, Vec::new(), Some(Notice::Ack)),
            NAK => {
                let code = frame[1];
                let notice = Notice::Nak {
                    code,
                    text: nak_text(code),
                };
                accept(out, now, frame, None, Vec::new(), Some(notice));
            }
            STX => {
                let data = escape_bytes(&frame[1..frame.len() - 3]);
                accept(
                    out,
                    now,
                    frame,
                    None,
                    Vec::new(),
                    Some(Notice::Response { data }),
                );
            }
            _ => self.decode_report(frame, now, out),
        }
    }

    fn decode_report(&mut self, frame: &[u8], now: Timestamp, out: &mut Vec<DecodeOutput>) {
        let seq = frame[1];
        if self.last_report_seq == Some(seq) {
            reject(
                out,
                now,
                RejectKind::Duplicate,
                format!(
                    "report Seq {} repeats the previous report's Seq (a retransmission)",
                    escape_bytes(&[seq])
                ),
                frame,
            );
            return;
        }
        self.last_report_seq = Some(seq);
        if frame.len() < 6 {
            return reject(
                out,
                now,
                RejectKind::Malformed,
                "report without Data[0] (no report code)".into(),
                frame,
            );
        }
        let code = frame[2];
        let data = &frame[3..frame.len() - 3];
        let device_seq = Some(u64::from(seq));
        let malformed = |out: &mut Vec<DecodeOutput>, reason: String| {
            reject(out, now, RejectKind::Malformed, reason, frame);
        };
        let kind = match code {
            b'S' => {
                let notice = Some(Notice::CommunicationStarted);
                return accept(out, now, frame, device_seq, Vec::new(), notice);
            }
            b'P' => {
                return accept(
                    out,
                    now,
                    frame,
                    device_seq,
                    Vec::new(),
                    Some(Notice::Standby),
                )
            }
            b'C' => EventKind::CuttingCardDrawn,
            b'G' => match decode_result(data[0]) {
                Ok(kind) => kind,
                Err(reason) => return malformed(out, reason),
            },
            b'D' | b'R' => {
                let retransmit = code == b'R';
                let card = match CardBytes::decode(data[0], data[1]) {
                    Ok(card) => card,
                    Err(reason) => return malformed(out, reason),
                };
                let position = 1u128 << (card.slot.bits() * 16 + card.index);
                if retransmit && self.accepted_positions & position != 0 {
                    return reject(
                        out,
                        now,
                        RejectKind::Duplicate,
                        format!(
                            "retransmitted card for {} {} was already accepted; it is not overwritten",
                            slot_name(card.slot),
                            card.index
                        ),
                        frame,
                    );
                }
                self.accepted_positions |= position;
                let event = card.event(retransmit, &mut self.numbering, now);
                return accept(out, now, frame, device_seq, vec![event], None);
            }
            b'd' => match decode_outside_game(data[0], data[1]) {
                Ok((mode, card)) => {
                    let mut event = self.numbering.event(
                        EventKind::CardDrawn {
                            card,
                            target: None,
                            index: None,
                            face_up: None,
                            retransmit: None,
                        },
                        now,
                    );
                    event
                        .extra
                        .insert("outside_game".into(), Value::from(mode.as_str()));
                    return accept(out, now, frame, device_seq, vec![event], None);
                }
                Err(reason) => return malformed(out, reason),
            },
            b'E' => {
                let b = data[0];
                if b & 0x80 == 0 {
                    return malformed(out, format!("error byte 0x{b:02X} must have bit 7 set"));
                }
                let number = b & 0x3F;
                let mut event = self.numbering.event(
                    EventKind::DeviceError {
                        code: number.to_string(),
                        text: error_text(number).into(),
                    },
                    now,
                );
                event
                    .extra
                    .insert("error_mode".into(), Value::from(b & 0x40 != 0));
                return accept(out, now, frame, device_seq, vec![event], None);
            }
            b'e' => EventKind::DeviceErrorCleared {
                code: (data[0] & 0x7F).to_string(),
            },
            b'L' => EventKind::LockChanged {
                locked: data[0] & 1 == 1,
            },
            b'M' => {
                if !data.iter().all(|b| b.is_ascii_graphic()) {
                    return malformed(
                        out,
                        format!(
                            "preset report {:?} must be 2 address and 4 value ASCII characters",
                            escape_bytes(data)
                        ),
                    );
                }
                let notice = Notice::PresetChanged {
                    address: escape_bytes(&data[..2]),
                    value: escape_bytes(&data[2..]),
                };
                return accept(out, now, frame, device_seq, Vec::new(), Some(notice));
            }
            other => {
                return malformed(
                    out,
                    format!("unknown report code {}", escape_bytes(&[other])),
                )
            }
        };
        if code == b'G' {
            // A result ends the round: its positions may be dealt again.
            self.accepted_positions = 0;
        }
        let event = self.numbering.event(kind, now);
        accept(out, now, frame, device_seq, vec![event], None);
    }
}

impl Decoder for AngelEyeDecoder {
    fn protocol(&self) -> &'static str {
        PROTOCOL
    }

    fn push(&mut self, bytes: &[u8], now: Timestamp, out: &mut Vec<DecodeOutput>) {
        if self.pending.is_empty() {
            // The common case: decode straight from the caller's bytes, keep only the tail.
            let used = self.process(bytes, now, out, false);
            self.pending.extend_from_slice(&bytes[used..]);
        } else {
            let mut pending = std::mem::take(&mut self.pending);
            pending.extend_from_slice(bytes);
            let used = self.process(&pending, now, out, false);
            pending.drain(..used);
            self.pending = pending;
        }
    }

    fn finish(&mut self, now: Timestamp, out: &mut Vec<DecodeOutput>) {
        let pending = std::mem::take(&mut self.pending);
        self.process(&pending, now, out, true);
    }

    fn next_event_seq(&self) -> u64 {
        self.numbering.peek()
    }
}

fn reject(
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

fn accept(
    out: &mut Vec<DecodeOutput>,
    at: Timestamp,
    frame: &[u8],
    device_seq: Option<u64>,
    events: Vec<TableEvent>,
    notice: Option<Notice>,
) {
    // At most one notice per Angel Eye frame; the Vec allocates only when there is one.
    out.push(DecodeOutput::Accepted(Accepted {
        at,
        frame: FrameBytes::new(frame),
        device_seq,
        events,
        notices: notice.into_iter().collect(),
    }));
}

fn decode_result(b: u8) -> Result<EventKind, String> {
    if b & 0x80 == 0 {
        return Err(format!("result byte 0x{b:02X} must have bit 7 set"));
    }
    let outcome = match (b >> 4) & 0b111 {
        0b001 => Outcome::Player,
        0b010 => Outcome::Tie,
        0b100 => Outcome::Banker,
        0b111 => Outcome::Void,
        other => {
            return Err(format!(
                "result byte 0x{b:02X}: winner bits {other:03b} name no result"
            ))
        }
    };
    Ok(EventKind::ResultDeclared {
        outcome,
        player_pair: Some(b & 0b01 != 0),
        banker_pair: Some(b & 0b10 != 0),
    })
}

fn slot_name(slot: CardSlotKind) -> &'static str {
    match slot {
        CardSlotKind::Player => "player",
        CardSlotKind::Banker => "banker",
        CardSlotKind::Burn => "burn",
        CardSlotKind::First => "first",
        CardSlotKind::BurnCount => "burn count",
    }
}

/// The card (or none) in a B2 byte.
fn decode_b2(b2: u8) -> Result<Option<Card>, String> {
    if b2 & 0x80 == 0 {
        return Err(format!("card byte B2 0x{b2:02X} must have bit 7 set"));
    }
    let suit = match (b2 >> 4) & 0b111 {
        0b000 => None,
        0b001 => Some(Suit::Diamonds),
        0b010 => Some(Suit::Clubs),
        0b011 => Some(Suit::Spades),
        0b100 => Some(Suit::Hearts),
        other => {
            return Err(format!(
                "card byte B2 0x{b2:02X}: suit bits {other:03b} name no suit"
            ))
        }
    };
    let rank_bits = b2 & 0x0F;
    let rank = match rank_bits {
        0 => None,
        pip => Some(
            Rank::from_pip(pip)
                .ok_or_else(|| format!("card byte B2 0x{b2:02X}: rank {pip} is not 1 to 13"))?,
        ),
    };
    Ok(match (rank, suit) {
        (Some(rank), Some(suit)) => Some(Card::new(rank, suit)),
        _ => None,
    })
}

/// A checked `D`/`R` card.
struct CardBytes {
    slot: CardSlotKind,
    index: u8,
    card: Option<Card>,
}

impl CardBytes {
    fn decode(b1: u8, b2: u8) -> Result<CardBytes, String> {
        if b1 & 0x80 == 0 {
            return Err(format!("card byte B1 0x{b1:02X} must have bit 7 set"));
        }
        let target_bits = (b1 >> 4) & 0b111;
        let slot = CardSlotKind::from_bits(target_bits).ok_or_else(|| {
            format!("card byte B1 0x{b1:02X}: target bits {target_bits:03b} name no target")
        })?;
        let index = b1 & 0x0F;
        if index > 10 {
            return Err(format!(
                "card byte B1 0x{b1:02X}: index {index} is not 0 to 10"
            ));
        }
        let card = decode_b2(b2)?;
        if matches!(slot, CardSlotKind::Player | CardSlotKind::Banker) {
            if !(1..=3).contains(&index) {
                return Err(format!(
                    "{} card index {index} is not 1 to 3",
                    slot_name(slot)
                ));
            }
            if card.is_none() {
                return Err(format!(
                    "{} card {index} has no suit or no rank (B2 0x{b2:02X})",
                    slot_name(slot)
                ));
            }
        }
        Ok(CardBytes { slot, index, card })
    }

    fn event(&self, retransmit: bool, numbering: &mut EventNumbering, at: Timestamp) -> TableEvent {
        let target = match self.slot {
            CardSlotKind::Player => Target::Player,
            CardSlotKind::Banker => Target::Banker,
            CardSlotKind::Burn => Target::Burn,
            CardSlotKind::First => Target::First,
            CardSlotKind::BurnCount => {
                let mut event = numbering.event(
                    EventKind::BurnCounted {
                        count: u32::from(self.index),
                    },
                    at,
                );
                if retransmit {
                    event.extra.insert("retransmit".into(), Value::from(true));
                }
                return event;
            }
        };
        let mut event = numbering.event(
            EventKind::CardDrawn {
                card: self.card,
                target: Some(target),
                index: (self.index >= 1).then_some(self.index),
                face_up: None,
                retransmit: retransmit.then_some(true),
            },
            at,
        );
        if self.index == 0 {
            let mut extra = Map::new();
            extra.insert("device_index".into(), Value::from(0));
            event.extra = extra;
        }
        event
    }
}

fn decode_outside_game(b1: u8, b2: u8) -> Result<(OutsideGameMode, Option<Card>), String> {
    if b1 & 0x80 == 0 {
        return Err(format!("card byte B1 0x{b1:02X} must have bit 7 set"));
    }
    let mode = match (b1 >> 4) & 0b111 {
        0b000 => OutsideGameMode::Lock,
        0b001 => OutsideGameMode::Error,
        0b010 => OutsideGameMode::Setting,
        other => {
            return Err(format!(
                "card outside a game: B1 0x{b1:02X} mode bits {other:03b} name no mode"
            ))
        }
    };
    Ok((mode, decode_b2(b2)?))
}

#[cfg(test)]
mod tests;
