//! Building Angel Eye frames: the shoe's reports, responses, ACK and NAK (for the simulator and
//! tests), and the host's commands (lock, unlock, clear error, game-process confirmation).
//!
//! The simulator injects faults with the same tools: [`corrupt_bcc`] for a bad checksum, sending
//! one encoded report twice for a duplicate `Seq`, and arbitrary bytes between frames for garbage.

use pitwatch_model::{Card, Outcome};

use crate::{suit_bits, BccVariant, CardSlotKind, OutsideGameMode, ACK, ENQ, ETX, NAK, STX};

/// One active report of the shoe.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Report {
    /// `S`: start of communication.
    CommunicationStarted,
    /// `P`: stand-by.
    Standby,
    /// `C`: the cutting card was drawn.
    CuttingCardDrawn,
    /// `G`: the game result.
    Result {
        /// The winner (`Void` is a forced quit).
        outcome: Outcome,
        /// Player pair.
        player_pair: bool,
        /// Banker pair.
        banker_pair: bool,
    },
    /// `D` (or `R` when `retransmit`): a card drawn during a game.
    Card {
        /// The target bits.
        slot: CardSlotKind,
        /// The index bits (0–10; the count for [`CardSlotKind::BurnCount`]).
        index: u8,
        /// The card, or `None` for "none" suit and rank.
        card: Option<Card>,
        /// Send as `R` (retransmission) instead of `D`.
        retransmit: bool,
    },
    /// `d`: a card drawn outside a game.
    CardOutsideGame {
        /// The mode the shoe was in.
        mode: OutsideGameMode,
        /// The card, if read.
        card: Option<Card>,
    },
    /// `E`: an error was raised.
    Error {
        /// The error code (1–7 are documented; 0–63 fit).
        code: u8,
        /// The shoe is in error mode.
        in_error_mode: bool,
    },
    /// `e`: an error was cleared.
    ErrorCleared {
        /// The code cleared (0–127).
        code: u8,
    },
    /// `L`: lock status.
    Lock {
        /// Locked.
        locked: bool,
    },
    /// `M`: a preset value changed.
    PresetChanged {
        /// Two ASCII address characters.
        address: [u8; 2],
        /// Four ASCII value characters.
        value: [u8; 4],
    },
    /// Any code with any data, for fault injection (malformed payloads, unknown codes).
    Raw {
        /// `Data[0]`.
        code: u8,
        /// The rest of the data.
        data: Vec<u8>,
    },
}

impl Report {
    /// The code byte and the data bytes after it.
    fn code_and_data(&self) -> (u8, Vec<u8>) {
        match self {
            Report::CommunicationStarted => (b'S', vec![]),
            Report::Standby => (b'P', vec![]),
            Report::CuttingCardDrawn => (b'C', vec![]),
            Report::Result {
                outcome,
                player_pair,
                banker_pair,
            } => {
                let winner = match outcome {
                    Outcome::Player => 0b001,
                    Outcome::Tie => 0b010,
                    Outcome::Banker => 0b100,
                    Outcome::Void => 0b111,
                };
                let pairs = u8::from(*player_pair) | u8::from(*banker_pair) << 1;
                (b'G', vec![0x80 | winner << 4 | pairs])
            }
            Report::Card {
                slot,
                index,
                card,
                retransmit,
            } => {
                let code = if *retransmit { b'R' } else { b'D' };
                (
                    code,
                    vec![0x80 | slot.bits() << 4 | (index & 0x0F), b2(*card)],
                )
            }
            Report::CardOutsideGame { mode, card } => {
                (b'd', vec![0x80 | mode.bits() << 4, b2(*card)])
            }
            Report::Error {
                code,
                in_error_mode,
            } => (
                b'E',
                vec![0x80 | u8::from(*in_error_mode) << 6 | (code & 0x3F)],
            ),
            Report::ErrorCleared { code } => (b'e', vec![0x80 | (code & 0x7F)]),
            Report::Lock { locked } => (b'L', vec![b'0' + u8::from(*locked)]),
            Report::PresetChanged { address, value } => {
                let mut data = address.to_vec();
                data.extend_from_slice(value);
                (b'M', data)
            }
            Report::Raw { code, data } => (*code, data.clone()),
        }
    }
}

/// The B2 byte of a card (`0x80` for none).
fn b2(card: Option<Card>) -> u8 {
    match card {
        Some(card) => 0x80 | suit_bits(card.suit) << 4 | card.rank.pip(),
        None => 0x80,
    }
}

fn push_bcc(frame: &mut Vec<u8>, variant: BccVariant) {
    let bcc = variant.compute(frame);
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    frame.push(HEX[usize::from(bcc >> 4)]);
    frame.push(HEX[usize::from(bcc & 0x0F)]);
}

/// The active report `report` with sequence byte `seq`, as the shoe sends it.
pub fn encode_report(seq: u8, report: &Report) -> Vec<u8> {
    let (code, data) = report.code_and_data();
    let mut frame = Vec::with_capacity(data.len() + 6);
    frame.push(ENQ);
    frame.push(seq);
    frame.push(code);
    frame.extend_from_slice(&data);
    frame.push(ETX);
    push_bcc(&mut frame, BccVariant::ExcludeStart);
    frame
}

/// A response frame carrying `data`, with the shoe's BCC rule `variant`.
pub fn encode_response(data: &[u8], variant: BccVariant) -> Vec<u8> {
    let mut frame = Vec::with_capacity(data.len() + 4);
    frame.push(STX);
    frame.extend_from_slice(data);
    frame.push(ETX);
    push_bcc(&mut frame, variant);
    frame
}

/// The one-byte ACK.
pub fn encode_ack() -> Vec<u8> {
    vec![ACK]
}

/// A NAK with `code`.
pub fn encode_nak(code: u8) -> Vec<u8> {
    vec![NAK, code]
}

/// Changes the last BCC character so the frame's checksum no longer matches (fault injection).
pub fn corrupt_bcc(frame: &mut [u8]) {
    if let Some(last) = frame.last_mut() {
        *last = if *last == b'0' { b'1' } else { b'0' };
    }
}

/// Numbers reports the way a shoe does: `Seq` cycles through the ASCII digits `0`–`9`.
#[derive(Debug, Clone, Default)]
pub struct ReportEncoder {
    next: u8,
}

impl ReportEncoder {
    /// An encoder whose first report has `Seq` `0`.
    pub fn new() -> Self {
        Self::default()
    }

    /// `report` with the next `Seq`.
    pub fn encode(&mut self, report: &Report) -> Vec<u8> {
        let seq = b'0' + self.next;
        self.next = (self.next + 1) % 10;
        encode_report(seq, report)
    }
}

/// A host → shoe command. The host sends one only on an explicit, audited supervisor action.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    /// `LK 02`: lock the shoe.
    Lock,
    /// `LK 01`: unlock the shoe.
    Unlock,
    /// `EC nn`: clear error `nn` (0–99).
    ClearError(u8),
    /// `GP 00`: confirm the game process.
    ConfirmGameProcess,
}

/// Why a command cannot be built or read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CommandError {
    /// The error number does not fit the two digits of the command.
    #[error("error number {0} does not fit two digits (0-99)")]
    ErrorNumberTooLarge(u8),
    /// The bytes are not `STX 'O' 'P' type data ETX BCC`.
    #[error("not a command frame: {0}")]
    NotACommand(String),
    /// The BCC does not match under the chosen variant.
    #[error("command BCC {sent:02X} does not match the computed {computed:02X}")]
    BadBcc {
        /// BCC in the frame.
        sent: u8,
        /// BCC computed.
        computed: u8,
    },
    /// The type and data name no known command.
    #[error("unknown command {0:?}")]
    Unknown(String),
}

impl Command {
    fn type_and_data(self) -> Result<([u8; 2], [u8; 2]), CommandError> {
        Ok(match self {
            Command::Lock => (*b"LK", *b"02"),
            Command::Unlock => (*b"LK", *b"01"),
            Command::ClearError(n) => {
                if n > 99 {
                    return Err(CommandError::ErrorNumberTooLarge(n));
                }
                (*b"EC", [b'0' + n / 10, b'0' + n % 10])
            }
            Command::ConfirmGameProcess => (*b"GP", *b"00"),
        })
    }
}

/// `command` as the bytes the host sends, with BCC rule `variant`.
pub fn encode_command(command: Command, variant: BccVariant) -> Result<Vec<u8>, CommandError> {
    let (kind, data) = command.type_and_data()?;
    let mut frame = Vec::with_capacity(10);
    frame.extend_from_slice(&[STX, b'O', b'P']);
    frame.extend_from_slice(&kind);
    frame.extend_from_slice(&data);
    frame.push(ETX);
    push_bcc(&mut frame, variant);
    Ok(frame)
}

/// Reads a command frame (what the simulated shoe does with the host's bytes).
pub fn parse_command(frame: &[u8], variant: BccVariant) -> Result<Command, CommandError> {
    let shape_ok = frame.len() == 10
        && frame[0] == STX
        && &frame[1..3] == b"OP"
        && frame[7] == ETX
        && frame[5..7].iter().all(u8::is_ascii_digit);
    if !shape_ok {
        return Err(CommandError::NotACommand(crate::escape_bytes(frame)));
    }
    let hex = |c: u8| crate::hex_value(c);
    let (Some(hi), Some(lo)) = (hex(frame[8]), hex(frame[9])) else {
        return Err(CommandError::NotACommand(crate::escape_bytes(frame)));
    };
    let sent = hi << 4 | lo;
    let computed = variant.compute(&frame[..8]);
    if sent != computed {
        return Err(CommandError::BadBcc { sent, computed });
    }
    let number = (frame[5] - b'0') * 10 + (frame[6] - b'0');
    match (&frame[3..5], number) {
        (b"LK", 2) => Ok(Command::Lock),
        (b"LK", 1) => Ok(Command::Unlock),
        (b"EC", n) => Ok(Command::ClearError(n)),
        (b"GP", 0) => Ok(Command::ConfirmGameProcess),
        _ => Err(CommandError::Unknown(crate::escape_bytes(&frame[3..7]))),
    }
}

/// Canonical events to Angel Eye reports, for the simulator: cards with a Player, Banker, first
/// or burn target (`D`, or `R` when marked as a retransmission), cards outside a game (`d`, from
/// the `outside_game` extra field), the burn count, the cutting card, results, errors (numeric
/// codes), error clears and lock changes. Everything else has no Angel Eye report.
#[derive(Debug, Clone, Default)]
pub struct AngelEyeEncoder {
    reports: ReportEncoder,
}

impl AngelEyeEncoder {
    /// An encoder whose first report has `Seq` `0`.
    pub fn new() -> Self {
        Self::default()
    }

    /// The report for `event`, if there is one.
    pub fn report_for(event: &pitwatch_model::TableEvent) -> Option<Report> {
        use pitwatch_model::{EventKind, Target};
        Some(match &event.kind {
            EventKind::CardDrawn {
                card,
                target,
                index,
                retransmit,
                ..
            } => {
                let index = index.unwrap_or(0);
                let slot = match target {
                    Some(Target::Player) => CardSlotKind::Player,
                    Some(Target::Banker) => CardSlotKind::Banker,
                    Some(Target::First) => CardSlotKind::First,
                    Some(Target::Burn) => CardSlotKind::Burn,
                    None => {
                        let mode = match event.extra.get("outside_game")?.as_str()? {
                            "lock" => OutsideGameMode::Lock,
                            "error" => OutsideGameMode::Error,
                            "setting" => OutsideGameMode::Setting,
                            _ => return None,
                        };
                        return Some(Report::CardOutsideGame { mode, card: *card });
                    }
                    Some(_) => return None,
                };
                let hand = matches!(slot, CardSlotKind::Player | CardSlotKind::Banker);
                if index > 10 || (hand && (card.is_none() || !(1..=3).contains(&index))) {
                    return None;
                }
                Report::Card {
                    slot,
                    index,
                    card: *card,
                    retransmit: *retransmit == Some(true),
                }
            }
            EventKind::BurnCounted { count } if *count <= 10 => Report::Card {
                slot: CardSlotKind::BurnCount,
                index: *count as u8,
                card: None,
                retransmit: false,
            },
            EventKind::CuttingCardDrawn => Report::CuttingCardDrawn,
            EventKind::ResultDeclared {
                outcome,
                player_pair,
                banker_pair,
            } => Report::Result {
                outcome: *outcome,
                player_pair: player_pair.unwrap_or(false),
                banker_pair: banker_pair.unwrap_or(false),
            },
            EventKind::DeviceError { code, .. } => Report::Error {
                code: code.parse().ok().filter(|c: &u8| *c <= 0x3F)?,
                in_error_mode: event
                    .extra
                    .get("error_mode")
                    .and_then(serde_json::Value::as_bool)
                    .unwrap_or(true),
            },
            EventKind::DeviceErrorCleared { code } => Report::ErrorCleared {
                code: code.parse().ok().filter(|c: &u8| *c <= 0x7F)?,
            },
            EventKind::LockChanged { locked } => Report::Lock { locked: *locked },
            _ => return None,
        })
    }
}

impl pitwatch_codec::Encoder for AngelEyeEncoder {
    fn protocol(&self) -> &'static str {
        crate::PROTOCOL
    }

    fn encode(&mut self, event: &pitwatch_model::TableEvent) -> Option<Vec<u8>> {
        Self::report_for(event).map(|report| self.reports.encode(&report))
    }

    fn corrupt_checksum(&self, frame: &mut [u8]) -> bool {
        corrupt_bcc(frame);
        !frame.is_empty()
    }
}
