//! Setting the pit up from the window: what a reload of the pit definition did, the serial
//! ports found, and a table an administrator adds.

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
    /// What its shoe speaks.
    pub protocol: Protocol,
    /// How the shoe is reached: a serial port's path, or a device server's `host:port`.
    pub link: LinkDraft,
}

/// How a new table's shoe is reached.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum LinkDraft {
    /// A serial port (RS-232 or USB-serial) at a baud rate.
    Serial {
        /// The port's path.
        path: String,
        /// Its baud rate.
        baud: u32,
    },
    /// A serial-to-Ethernet device server.
    Tcp {
        /// Its `host:port`.
        address: String,
    },
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
