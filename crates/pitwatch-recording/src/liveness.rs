//! Device liveness: a device that is offline, never connects, or goes silent is an alarm.
//!
//! [`Watch`] is one device's deadline state machine, pure and deterministic: link events
//! (connected, disconnected), the times bytes arrived, whether a shoe is in play, and `now` go
//! in; alarms raised and cleared come out. It reads no clock: the monitor's writer feeds it the
//! times the transport stamped and, on a timer, `now` ([`Watch::advance`]), so an alarm fires
//! without waiting for the next device event. Every input first advances the machine to its own
//! time, and an alarm is dated by its deadline (not by when a tick noticed it), so the same inputs
//! give the same alarms however the ticks fell: replay of the record reproduces what live raised.
//!
//! A device's deadline is:
//! - not connected since the monitor started (**never connected**) or since its link dropped
//!   (**offline**): that moment plus [`Thresholds::offline_ms`];
//! - connected, with a heartbeat-capable protocol: the last bytes (or the connection) plus
//!   [`Thresholds::heartbeat_ms`];
//! - connected, a card-reading shoe with a shoe in play: the later of the last bytes, the
//!   connection and the start of play, plus [`Thresholds::silent_ms`] (**silent**).
//!
//! An alarm is raised once, when `now` passes the deadline (strictly: a gap exactly equal to the
//! threshold is not one), and cleared when the device is back: connected again (any alarm) or, for
//! a silent device, bytes again. The clearing carries the alarm's duration. Thresholds are data,
//! per protocol (`liveness.toml` beside this file), and overridable per table and per device in
//! the pit definition ([`LivenessOverride`]).

use std::collections::BTreeMap;

use pitwatch_model::Timestamp;
use serde::{Deserialize, Serialize};

/// The code of the incident raised for a device that is offline or never connected.
pub const DEVICE_OFFLINE: &str = "DEVICE_OFFLINE";
/// The code of the incident raised for a device connected but silent past its threshold.
pub const DEVICE_SILENT: &str = "DEVICE_SILENT";
/// The audit action recording that a device with an alarm is back, and after how long (its
/// subject is the incident, `incident N`; its detail the duration in milliseconds, then words).
pub const DEVICE_BACK: &str = "device.back";

/// The per-protocol defaults, as data.
const DEFAULTS: &str = include_str!("liveness.toml");

/// How long a device may be quiet before it is an alarm, in milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Thresholds {
    /// Disconnected (or not yet connected) longer than this: offline.
    pub offline_ms: u64,
    /// Connected, a shoe in play, and nothing received for longer than this: silent. Only a
    /// card-reading shoe is held to it (a shuffler or console is quiet during a shoe).
    pub silent_ms: Option<u64>,
    /// Connected and nothing received, not even a heartbeat, for longer than this: silent, at
    /// any time. Only for protocols that send heartbeats.
    pub heartbeat_ms: Option<u64>,
}

/// Thresholds given in the pit definition, in seconds, for a table (`liveness = { … }` in its
/// section) or one device (in its `[[table.device]]`); what is not given is the protocol's
/// default. `0` turns the silence checks off (`silent_s = 0`, `heartbeat_s = 0`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LivenessOverride {
    /// Seconds a device may be disconnected before it is offline.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offline_s: Option<f64>,
    /// Seconds a shoe may send nothing while a shoe is in play before it is silent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub silent_s: Option<f64>,
    /// Seconds a heartbeat-capable device may send nothing before it is silent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub heartbeat_s: Option<f64>,
}

// Seconds are checked finite on load ([`LivenessOverride::problems`]).
impl Eq for LivenessOverride {}

/// The longest threshold accepted: a day.
pub const THRESHOLD_MAX_S: f64 = 86_400.0;

impl LivenessOverride {
    /// What is wrong with these values (each names the field and what is accepted).
    pub fn problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        for (name, value, zero) in [
            ("offline_s", self.offline_s, false),
            ("silent_s", self.silent_s, true),
            ("heartbeat_s", self.heartbeat_s, true),
        ] {
            let Some(v) = value else { continue };
            let low_ok = if zero { v >= 0.0 } else { v >= 0.1 };
            if !v.is_finite() || !low_ok || v > THRESHOLD_MAX_S {
                problems.push(format!(
                    "liveness.{name} = {v} is not accepted: give seconds from {} to {THRESHOLD_MAX_S}{}",
                    if zero { "0" } else { "0.1" },
                    if zero { " (0 turns the check off)" } else { "" }
                ));
            }
        }
        problems
    }

    /// `base` with these values put over it (`over` wins over `self`, which wins over `base`).
    pub fn apply(&self, over: &LivenessOverride, base: Thresholds) -> Thresholds {
        let ms = |s: f64| (s * 1000.0).round() as u64;
        let pick = |a: Option<f64>, b: Option<f64>| b.or(a);
        let off = |v: Option<f64>, d: Option<u64>| match v {
            Some(s) if s <= 0.0 => None,
            Some(s) => Some(ms(s)),
            None => d,
        };
        Thresholds {
            offline_ms: pick(self.offline_s, over.offline_s).map_or(base.offline_ms, ms),
            silent_ms: off(pick(self.silent_s, over.silent_s), base.silent_ms),
            heartbeat_ms: off(pick(self.heartbeat_s, over.heartbeat_s), base.heartbeat_ms),
        }
    }
}

/// The default thresholds of protocol `name` (`angel-eye`, `barcode`, `pitwatch`), from the
/// data beside this file; a protocol not listed gets the `default` section's.
pub fn defaults(protocol: &str) -> Thresholds {
    let table: BTreeMap<String, LivenessOverride> = toml::from_str(DEFAULTS).unwrap_or_default();
    let fallback = Thresholds {
        offline_ms: 10_000,
        silent_ms: None,
        heartbeat_ms: None,
    };
    let base = table.get("default").map_or(fallback, |d| {
        d.apply(&LivenessOverride::default(), fallback)
    });
    table
        .get(protocol)
        .map_or(base, |p| p.apply(&LivenessOverride::default(), base))
}

/// What kind of alarm.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AlarmKind {
    /// Not connected since the monitor started.
    NeverConnected,
    /// Its link dropped and it is not back.
    Offline,
    /// Connected, but nothing received.
    Silent,
}

impl AlarmKind {
    /// The incident code it is recorded under.
    pub const fn code(self) -> &'static str {
        match self {
            AlarmKind::NeverConnected | AlarmKind::Offline => DEVICE_OFFLINE,
            AlarmKind::Silent => DEVICE_SILENT,
        }
    }
}

/// An alarm raised.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Alarm {
    /// What kind.
    pub kind: AlarmKind,
    /// Since when the device is gone: the start (never connected), the disconnection, or the
    /// last bytes received (silent).
    pub since: Timestamp,
    /// When it became an alarm: `since` plus the threshold (the deadline passed).
    pub raised: Timestamp,
    /// The threshold passed, in milliseconds.
    pub threshold_ms: u64,
}

/// What an input changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    /// An alarm was raised.
    Raised(Alarm),
    /// The device is back: the alarm clears, `at`, after `duration_ms` since it was gone.
    Cleared {
        /// The alarm that clears.
        alarm: Alarm,
        /// When the device was back.
        at: Timestamp,
        /// How long it was gone (from `alarm.since` to `at`), in milliseconds.
        duration_ms: u64,
    },
}

/// Where the device's link stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Link {
    NeverConnected { since: i64 },
    Connected { last: i64 },
    Disconnected { since: i64 },
}

/// One device's liveness (see the module's description).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Watch {
    thresholds: Thresholds,
    /// Whether silence during a shoe counts (a card-reading shoe).
    shoe: bool,
    link: Link,
    /// Since when a shoe is in play, if one is.
    in_play: Option<i64>,
    alarm: Option<Alarm>,
    /// The latest time seen: inputs never move the machine back.
    now: i64,
}

fn ts(ms: i64) -> Timestamp {
    Timestamp::from_unix_millis(ms).unwrap_or_else(|| {
        Timestamp::from_unix_millis(0).unwrap_or_else(|| unreachable!("the epoch is representable"))
    })
}

impl Watch {
    /// A device watched from `started` (the monitor's start), not yet connected; `shoe` when
    /// it is the table's card-reading shoe (held to [`Thresholds::silent_ms`]).
    pub fn new(thresholds: Thresholds, shoe: bool, started: Timestamp) -> Watch {
        let at = started.unix_millis();
        Watch {
            thresholds,
            shoe,
            link: Link::NeverConnected { since: at },
            in_play: None,
            alarm: None,
            now: at,
        }
    }

    /// The thresholds the device is held to.
    pub fn thresholds(&self) -> Thresholds {
        self.thresholds
    }

    /// The alarm standing, if any.
    pub fn alarm(&self) -> Option<Alarm> {
        self.alarm
    }

    /// When the next alarm falls due (none while one stands or no check applies).
    pub fn deadline(&self) -> Option<Timestamp> {
        self.due().map(|(_, _, at, _)| ts(at))
    }

    /// (kind, since, deadline, threshold) of the alarm the device is heading for.
    fn due(&self) -> Option<(AlarmKind, i64, i64, u64)> {
        if self.alarm.is_some() {
            return None;
        }
        let add = |t: i64, ms: u64| t.saturating_add(i64::try_from(ms).unwrap_or(i64::MAX));
        let th = self.thresholds;
        match self.link {
            Link::NeverConnected { since } => Some((
                AlarmKind::NeverConnected,
                since,
                add(since, th.offline_ms),
                th.offline_ms,
            )),
            Link::Disconnected { since } => Some((
                AlarmKind::Offline,
                since,
                add(since, th.offline_ms),
                th.offline_ms,
            )),
            Link::Connected { last } => {
                let beat = th.heartbeat_ms.map(|ms| (last, add(last, ms), ms));
                let play = match (self.shoe, self.in_play, th.silent_ms) {
                    (true, Some(from), Some(ms)) => {
                        let since = last.max(from);
                        Some((since, add(since, ms), ms))
                    }
                    _ => None,
                };
                let (since, at, ms) = match (beat, play) {
                    (Some(b), Some(p)) => {
                        if p.1 < b.1 {
                            p
                        } else {
                            b
                        }
                    }
                    (b, p) => b.or(p)?,
                };
                Some((AlarmKind::Silent, since, at, ms))
            }
        }
    }

    /// Moves to `now`: an alarm whose deadline `now` has passed is raised (dated by its
    /// deadline).
    pub fn advance(&mut self, now: Timestamp) -> Option<Change> {
        let now = now.unix_millis().max(self.now);
        self.now = now;
        let (kind, since, at, threshold_ms) = self.due()?;
        if now <= at {
            return None;
        }
        let alarm = Alarm {
            kind,
            since: ts(since),
            raised: ts(at),
            threshold_ms,
        };
        self.alarm = Some(alarm);
        Some(Change::Raised(alarm))
    }

    fn clear(&mut self, at: i64) -> Option<Change> {
        let alarm = self.alarm.take()?;
        let since = alarm.since.unix_millis();
        Some(Change::Cleared {
            alarm,
            at: ts(at),
            duration_ms: u64::try_from(at.saturating_sub(since)).unwrap_or(0),
        })
    }

    /// The device connected at `at`: any alarm clears.
    pub fn connected(&mut self, at: Timestamp, changes: &mut Vec<Change>) {
        changes.extend(self.advance(at));
        self.link = Link::Connected { last: self.now };
        changes.extend(self.clear(self.now));
    }

    /// The device's link dropped at `at`. A silent alarm standing stays until it is back.
    pub fn disconnected(&mut self, at: Timestamp, changes: &mut Vec<Change>) {
        changes.extend(self.advance(at));
        self.link = Link::Disconnected { since: self.now };
    }

    /// Bytes arrived at `at`: a silent alarm clears. Bytes with no connection (recovered from a
    /// spool) count as a connection.
    pub fn received(&mut self, at: Timestamp, changes: &mut Vec<Change>) {
        changes.extend(self.advance(at));
        match self.link {
            Link::Connected { .. } => {
                self.link = Link::Connected { last: self.now };
                if self.alarm.is_some_and(|a| a.kind == AlarmKind::Silent) {
                    changes.extend(self.clear(self.now));
                }
            }
            _ => self.connected(at, changes),
        }
    }

    /// Whether a shoe is in play from `at` on (as the table's engine sees it).
    pub fn in_play(&mut self, at: Timestamp, playing: bool, changes: &mut Vec<Change>) {
        changes.extend(self.advance(at));
        match (playing, self.in_play) {
            (true, None) => self.in_play = Some(self.now),
            (false, Some(_)) => self.in_play = None,
            _ => {}
        }
    }
}

/// Whether a table's engine, in phase `phase` (its view's `phase`), has a shoe in play: anything
/// but no shoe, a finished stream, cards awaiting a shuffle, or a shoe ended.
pub fn phase_in_play(phase: &str) -> bool {
    !matches!(
        phase,
        "no_shoe" | "finished" | "awaiting_shuffle" | "shoe_ended"
    )
}

/// `ms` milliseconds for people: `45 s`, `3 min 20 s`, `1 h 02 min`.
pub fn duration_words(ms: u64) -> String {
    let s = ms / 1000;
    match s {
        0..=59 if ms < 10_000 => format!("{:.1} s", ms as f64 / 1000.0),
        0..=59 => format!("{s} s"),
        60..=3599 => format!("{} min {:02} s", s / 60, s % 60),
        _ => format!("{} h {:02} min", s / 3600, (s % 3600) / 60),
    }
}

#[cfg(test)]
mod tests;
