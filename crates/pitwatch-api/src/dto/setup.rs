//! Setting the pit up from the window: what a reload of the pit definition did, the serial
//! ports found, a table an administrator adds, and a connection test before it is saved.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use pitwatch_recording::pit::Protocol;

/// What reloading the pit definition's file did, table by table (the window's Reload; `pitwatch
/// monitor` prints the same when its file changes). Only the tables that differ are stopped or
/// started; the others keep recording.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PitReload {
    /// The file read.
    pub file: String,
    /// Tables started that were not running.
    pub added: Vec<String>,
    /// Tables stopped because the file no longer has them.
    pub removed: Vec<String>,
    /// Tables stopped because their section is now wrong (shown disabled with the problems).
    pub disabled: Vec<String>,
    /// Tables stopped and started again, each with what differs (`game`, `rules`, `devices`…).
    pub changed: Vec<ChangedTableView>,
    /// How many running tables the file defines alike (not touched).
    pub unchanged: u32,
    /// Settings of the whole pit that differ and apply only at the next start.
    pub at_restart: Vec<String>,
    /// Why a table the file asks for could not be started (it stays stopped).
    pub problems: Vec<String>,
}

/// A serial port of this workstation, as an administrator picks one for a device.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SerialPortView {
    /// The path to open (`/dev/ttyUSB0`).
    pub path: String,
    /// `usb`, `pci`, `bluetooth` or `unknown` (an on-board port, a pseudo-terminal).
    pub kind: String,
    /// A USB adapter's vendor and product ids (`0403:6001`), its maker, product and serial
    /// number, in words; empty for other ports.
    pub usb: String,
    /// The same port's name that stays when its adapter is plugged in again under another
    /// (`/dev/serial/by-id/…`), or empty: the one to choose for a table's device.
    pub stable_path: String,
}

/// A table an administrator adds from the window: written to the pit definition's file as a
/// `[[table]]` section, then applied by a reload.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct TableDraft {
    /// Its name (unique in the pit).
    pub name: String,
    /// `baccarat`, `blackjack`, `pontoon` or `poker`.
    pub game: String,
    /// Its rule book (`nz-baccarat`, or a file's path).
    pub rules: String,
    /// Decks in its shoe, for a shoe that does not report them (none: the book's default).
    #[serde(default)]
    #[ts(optional)]
    pub decks: Option<u8>,
    /// The variant dealt at a poker table (`texas_holdem`…; none: the book's default).
    #[serde(default)]
    #[ts(optional)]
    pub variant: Option<String>,
    /// What its shoe speaks.
    pub protocol: Protocol,
    /// How the shoe is reached: a serial port's path, or a device server's `host:port`.
    pub link: LinkDraft,
    /// How an automatic shuffler beside the shoe is reached, when the table has one (it speaks
    /// the Pitwatch protocol as a shuffler).
    #[serde(default)]
    #[ts(optional)]
    pub shuffler: Option<LinkDraft>,
}

/// How a new table's device is reached.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum LinkDraft {
    /// A serial port (RS-232 or USB-serial) at a baud rate and framing.
    Serial {
        /// The port's path.
        path: String,
        /// Its baud rate.
        baud: u32,
        /// Its framing and flow control (none: 8 data bits, no parity, 1 stop bit, no flow
        /// control).
        #[serde(default)]
        #[ts(optional)]
        line: Option<SerialLine>,
    },
    /// A serial-to-Ethernet device server.
    Tcp {
        /// Its `host:port`.
        address: String,
    },
}

/// A serial line's framing and flow control, as the device's manual gives them ("7E1, RTS/CTS").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SerialLine {
    /// Data bits, 5 to 8.
    pub data_bits: u8,
    /// Parity.
    pub parity: LineParity,
    /// Stop bits, 1 or 2.
    pub stop_bits: u8,
    /// Flow control.
    pub flow_control: LineFlow,
}

/// A serial line's parity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum LineParity {
    /// No parity bit.
    None,
    /// Odd parity.
    Odd,
    /// Even parity.
    Even,
}

/// A serial line's flow control.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum LineFlow {
    /// None.
    None,
    /// XON/XOFF.
    Software,
    /// RTS/CTS.
    Hardware,
}

/// A table a reload stopped and started again, and what differs in its definition.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ChangedTableView {
    /// The table's name.
    pub name: String,
    /// The fields of its section that differ.
    pub what: Vec<String>,
}

/// A connection test an administrator runs before saving a device: its protocol and link, and
/// how long to listen.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct LinkTestRequest {
    /// What the device speaks.
    pub protocol: Protocol,
    /// How it is reached.
    pub link: LinkDraft,
    /// Seconds to listen (1 to 30).
    pub seconds: u32,
}

/// What a connection test saw: whether the link opened, and each frame that arrived, accepted
/// (its events in words) or rejected (why). Nothing of it is recorded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct LinkTestView {
    /// The link, in words (`serial /dev/ttyUSB0 9600 8N1`, `tcp 10.0.0.5:4001`).
    pub link: String,
    /// Whether it opened.
    pub connected: bool,
    /// Why it did not open or dropped.
    pub problems: Vec<String>,
    /// Bytes read.
    pub bytes: u32,
    /// Frames accepted.
    pub accepted: u32,
    /// Frames (or runs of bytes) rejected.
    pub rejected: u32,
    /// The first frames, in order.
    pub frames: Vec<TestFrameView>,
    /// How long the test listened, in milliseconds.
    pub listened_ms: u32,
    /// The verdict in a sentence.
    pub verdict: String,
}

/// One frame a connection test read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct TestFrameView {
    /// When it arrived (RFC 3339, UTC).
    pub at: String,
    /// Whether the protocol accepted it.
    pub accepted: bool,
    /// Its events in words, or why it was rejected.
    pub text: String,
    /// Its bytes for people: printable ASCII as is, anything else as `<hex>`.
    pub bytes: String,
}

/// A rule book as an administrator reads it before giving it to a table: its header, and each
/// section's settings with the rules they cite (`pitwatch_games::parameters`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct BookView {
    /// The reference asked for (`nz-blackjack;decks=6`, a file).
    pub rules: String,
    /// The `[book]` header's fields (id, jurisdiction, game, title, gazette, effective…).
    pub header: Vec<BookFieldView>,
    /// Every other section, in the book's order.
    pub sections: Vec<BookSectionView>,
    /// The variants a table may deal from the book, in its order (none: one way of dealing).
    pub variants: Vec<BookVariantView>,
    /// The variant dealt when a table does not say, where the book has variants.
    pub default_variant: Option<String>,
    /// Whether a table may give the book another deck count (`decks`).
    pub decks_choosable: bool,
}

/// One variant of a book: its id as a table names it and its name for people.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct BookVariantView {
    /// Its id (`seven_card_stud`).
    pub id: String,
    /// Its name (`Seven Card Stud`).
    pub name: String,
}

/// One field of a book's header.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct BookFieldView {
    /// Its key (`gazette`).
    pub key: String,
    /// Its text.
    pub value: String,
}

/// One section of a book (`cut`, `drawing.banker_draws_when_player_drew`, `cite`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct BookSectionView {
    /// Its name as the book heads it.
    pub name: String,
    /// Its settings, in the book's order.
    pub parameters: Vec<BookParameterView>,
}

/// One setting: its value as the book writes it and the rule it cites.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct BookParameterView {
    /// Its key (`min_from_back`; in `cite`, an irregularity's code).
    pub key: String,
    /// Its value as the book writes it (`20`, `"last_coup"`).
    pub value: String,
    /// The rule it cites (`7.6`), if the book says.
    pub rule: Option<String>,
    /// The book's note beside it.
    pub note: String,
}

/// The devices' health over a period (the handover screen's shift): one row per device and
/// table, which is also the history of which device served which table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct DeviceHealthBoard {
    /// The period's start (RFC 3339).
    pub from: String,
    /// Its end.
    pub to: String,
    /// Every device that served a table in it, by table then by when it first connected.
    pub rows: Vec<DeviceHealthView>,
}

/// One device at one table over the period.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct DeviceHealthView {
    /// The table.
    pub table: String,
    /// The protocol it spoke (`angel-eye`, `barcode`, `pitwatch`…).
    pub protocol: String,
    /// What it says it is ("Pitwatch Simulated shuffler", from its own report), else what its
    /// link is (a USB adapter's maker and product); empty when nothing says.
    pub device: String,
    /// Its serial number, if known (its own, else its USB adapter's).
    pub serial: String,
    /// Its firmware, if known.
    pub firmware: String,
    /// The link it was reached through when the device named itself ("FTDI FT232R USB UART
    /// serial number A1"); empty when the link is all that is known or nothing is.
    pub via: String,
    /// The port or address it was reached on.
    pub port: String,
    /// Its connections in the period.
    pub sessions: u32,
    /// When it first connected (RFC 3339).
    pub first_at: String,
    /// When its last connection ended, or none while it is connected.
    pub last_end_at: Option<String>,
    /// How long it was connected within the period (ms).
    pub connected_ms: i64,
    /// How long, within the period, it was not (ms): from its first connection on.
    pub offline_ms: i64,
    /// Frames accepted.
    pub frames_accepted: u64,
    /// Frames rejected.
    pub frames_rejected: u64,
    /// Cards it sent again (taken when the first report was lost, or refused as already taken).
    pub retransmissions: u64,
    /// Errors it reported.
    pub errors: u64,
    /// Their codes, each once.
    pub error_codes: Vec<String>,
    /// How it compares with the other devices of its protocol, when it stands out ("rejects 5.0%
    /// of its frames; its kind's median is 0.4%").
    pub stands_out: Vec<String>,
}
