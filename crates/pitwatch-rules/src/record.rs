//! What the shared shoe tracker reports besides a game's rounds and irregularities, for every
//! game: the end of a shoe ([`ShoeSummary`]) and a cleared device error ([`DeviceErrorCleared`]),
//! serialisable as the JSON objects `pitwatch replay --json` prints.

use serde::Serialize;

/// The end of a shoe: how much of it the engine followed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ShoeSummary {
    /// The shoe, 1-based within the stream.
    pub shoe: u32,
    /// Rounds recorded in the shoe.
    pub rounds: u32,
    /// Cards drawn from the shoe, burn cards and unreadable cards included.
    pub cards: u32,
    /// Whether the engine joined the shoe part-way (no shuffle or burn seen), or the stream was
    /// cut off in it ([`crate::Table::interrupt`]).
    pub partial: bool,
    /// Whether the shoe was dealt from a continuous shuffler.
    pub continuous: bool,
    /// Device errors still open at the end of the shoe.
    pub open_device_errors: u32,
    /// `seq` of the shoe's first event.
    pub first_seq: u64,
    /// `seq` of the shoe's last event.
    pub last_seq: u64,
}

/// A device error the device has cleared.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DeviceErrorCleared {
    /// The shoe at the time of clearing.
    pub shoe: u32,
    /// The device's error code.
    pub code: String,
    /// `seq` of the event that raised it.
    pub raised_seq: u64,
    /// `seq` of the event that cleared it.
    pub seq: u64,
}
