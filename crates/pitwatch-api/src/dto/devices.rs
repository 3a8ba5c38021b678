//! A table's devices as the window shows them: each device's link, a shuffler's deck check and
//! counters, and a device's liveness alarm (offline, never connected, silent; since when).

use serde::Serialize;
use ts_rs::TS;

use super::LinkStatus;
use pitwatch_recording::pit::{DeviceRole, Protocol, TableDevice};

/// One device of a table as its tile shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct DeviceTile {
    /// What the device is at the table.
    pub role: DeviceRole,
    /// The protocol it speaks.
    pub protocol: Protocol,
    /// How it is reached, for people.
    pub link: String,
    /// Its link's state.
    pub status: LinkStatus,
    /// What its link last said.
    pub status_detail: String,
    /// A shuffler's last completed shuffle, with its deck check, if one arrived since start-up.
    pub last_check: Option<DeckCheckView>,
    /// A shuffler is shuffling: it started a shuffle (`shuffle_started`) not completed yet.
    pub shuffling: bool,
    /// A shuffler's counters as it last reported them (`shuffler_counters`), since start-up.
    pub counters: Option<ShufflerCountersView>,
    /// The device's liveness alarm standing (offline, never connected, silent), if any.
    pub alarm: Option<DeviceAlarmView>,
    /// What the device says it is and the USB adapter it is reached through, as last known.
    pub identity: Option<DeviceIdentityView>,
}

/// A device as it identifies itself (the Pitwatch protocol's `HELLO`) and its USB adapter's
/// descriptors; an empty field is one the device or adapter does not give.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct DeviceIdentityView {
    /// Maker.
    pub make: String,
    /// Model.
    pub model: String,
    /// Serial number.
    pub serial: String,
    /// Firmware version.
    pub firmware: String,
    /// When it last said so (RFC 3339), if it has.
    pub said_at: Option<String>,
    /// Its USB adapter: product (or `vid:pid`), serial number and port, for people; empty when
    /// it is not reached through one.
    pub usb: String,
}

/// A device's liveness alarm as the window shows it: what its tile and panel say (`offline
/// since 14:02:11`, `never connected`, `silent since …`), and what it greys as stale.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct DeviceAlarmView {
    /// What kind.
    pub kind: DeviceAlarmKind,
    /// Since when the device is gone (Unix milliseconds): the monitor's start, the
    /// disconnection, or the last bytes received.
    pub since_ms: i64,
    /// Which of the table's devices (0: its main device).
    pub device: u32,
    /// The incident recorded for it, once on record.
    pub incident: Option<i64>,
}

/// What kind of liveness alarm a device has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum DeviceAlarmKind {
    /// Not connected since monitoring started.
    NeverConnected,
    /// Its link dropped and it is not back.
    Offline,
    /// Connected, but it has sent nothing for longer than its threshold.
    Silent,
}

/// A shuffler's lifetime counters as the window shows them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ShufflerCountersView {
    /// Shuffles (cycles) done.
    pub cycles: u32,
    /// Card-recognition errors logged, when counted.
    pub recognition_errors: Option<u32>,
    /// Malfunctions logged, when counted.
    pub malfunctions: Option<u32>,
}

/// A shuffler's deck check as the window shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct DeckCheckView {
    /// Decks shuffled, when said.
    pub decks: Option<u8>,
    /// Cards counted.
    pub cards: u32,
    /// Cards expected.
    pub expected: u32,
    /// Cards missing.
    pub missing: u32,
    /// Cards found more often than the decks hold.
    pub extra: u32,
    /// Cards of no deck loaded.
    pub foreign: u32,
    /// Whether the check passed (the count right and nothing missing, extra or foreign).
    pub passed: bool,
    /// When the host received it (Unix milliseconds).
    pub at_ms: Option<i64>,
    /// Its `seq` in the table's stream.
    pub seq: u64,
}

impl DeckCheckView {
    /// The check a `deck_checked` event reports, or a `shuffled` event from a counting shuffler
    /// (its check in the event's `expected_cards`, `missing_cards`, … fields); `None` for any
    /// other event.
    pub fn of(event: &pitwatch_model::TableEvent) -> Option<DeckCheckView> {
        use pitwatch_model::EventKind;
        let (decks, cards, expected, missing, extra, foreign) = match event.kind {
            EventKind::DeckChecked {
                decks,
                cards,
                expected,
                missing,
                extra,
                foreign,
                ..
            } => (decks, cards, expected, missing, extra, foreign),
            EventKind::Shuffled {
                decks,
                cards: Some(cards),
                ..
            } => {
                let n = |key: &str| {
                    event
                        .extra
                        .get(key)
                        .and_then(serde_json::Value::as_u64)
                        .and_then(|n| u32::try_from(n).ok())
                };
                (
                    decks,
                    cards,
                    n("expected_cards")?,
                    n("missing_cards").unwrap_or(0),
                    n("extra_cards").unwrap_or(0),
                    n("foreign_cards").unwrap_or(0),
                )
            }
            _ => return None,
        };
        Some(DeckCheckView {
            decks,
            cards,
            expected,
            missing,
            extra,
            foreign,
            passed: cards == expected && missing + extra + foreign == 0,
            at_ms: event.at.map(|t| t.unix_millis()),
            seq: event.seq,
        })
    }
}

impl From<&TableDevice> for DeviceTile {
    fn from(device: &TableDevice) -> Self {
        DeviceTile {
            role: device.role,
            protocol: Protocol::from(&device.protocol),
            link: device
                .link
                .as_ref()
                .map_or_else(|| "simulated".to_owned(), |l| l.transport.describe()),
            status: LinkStatus::NotMonitored,
            status_detail: String::new(),
            last_check: None,
            shuffling: false,
            counters: None,
            alarm: None,
            identity: None,
        }
    }
}
