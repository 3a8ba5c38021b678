//! Clock truth: what the host clock that stamps every frame and incident was worth at the time,
//! so the record's times can be matched to CCTV time.
//!
//! A [`ClockSource`] reads the host clock's synchronisation state ([`KernelClock`]: the kernel's
//! NTP state through `adjtimex(2)`, read by `pitwatch_transport::host_clock`; tests inject a
//! fake). [`decode`] turns the kernel's raw figures into a [`ClockReading`] and [`judge`] decides,
//! against the [`ClockLimits`], whether it is fit to match times by: both pure. The monitor samples
//! the clock at start, checks it every few seconds and writes a [`ClockSample`] on record (a
//! chained fact, `pitwatch_store::clock_sample_key`) at start, every minute, and at once when
//! the judgement changes; incident reports print the latest sample at or before the incident
//! ([`report_line`]).

use std::sync::Arc;
use std::time::Duration;

use pitwatch_model::Timestamp;
use pitwatch_transport::host_clock::{KernelClockState, STA_UNSYNC, TIME_ERROR};
use serde::{Deserialize, Serialize};

/// The estimated error past which the clock is not fit to match times by, by default.
pub const DEFAULT_MAX_ERROR_MS: u64 = 1_000;

/// How often the clock is sampled on record when nothing changes.
pub const SAMPLE_EVERY: Duration = Duration::from_secs(60);

/// How often the monitor reads the clock to see whether its state changed.
pub const CHECK_EVERY: Duration = Duration::from_secs(5);

/// What the host clock said of itself once.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClockReading {
    /// Whether the clock is synchronised to a time source.
    pub synchronised: bool,
    /// The estimated error, in microseconds.
    pub est_error_us: i64,
    /// The maximum error, in microseconds.
    pub max_error_us: i64,
    /// The last offset the synchronisation daemon corrected, in microseconds.
    pub offset_us: i64,
    /// Where the figures come from (`kernel (adjtimex)`).
    pub source: String,
    /// Why the state could not be read, when it could not (the other figures are then zero).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unreadable: Option<String>,
}

impl ClockReading {
    /// A reading that failed: `why` it could not be read from `source`.
    pub fn unreadable(source: &str, why: impl Into<String>) -> ClockReading {
        ClockReading {
            synchronised: false,
            est_error_us: 0,
            max_error_us: 0,
            offset_us: 0,
            source: source.to_owned(),
            unreadable: Some(why.into()),
        }
    }
}

/// Reads the host clock's synchronisation state. Injected so tests can fake the clock.
pub trait ClockSource: Send + Sync {
    /// The state now.
    fn read(&self) -> ClockReading;
}

/// The kernel's NTP state (`adjtimex(2)`, a read only).
#[derive(Debug, Clone, Copy, Default)]
pub struct KernelClock;

/// How [`KernelClock`]'s readings name their source.
pub const KERNEL_SOURCE: &str = "kernel (adjtimex)";

impl ClockSource for KernelClock {
    fn read(&self) -> ClockReading {
        match pitwatch_transport::host_clock::kernel_clock_state() {
            Ok(state) => decode(&state),
            Err(e) => ClockReading::unreadable(KERNEL_SOURCE, e.to_string()),
        }
    }
}

/// The kernel's figures as a reading: not synchronised when `STA_UNSYNC` is set or the call
/// returned `TIME_ERROR`.
pub fn decode(state: &KernelClockState) -> ClockReading {
    ClockReading {
        synchronised: state.status & STA_UNSYNC == 0 && state.state != TIME_ERROR,
        est_error_us: state.esterror_us,
        max_error_us: state.maxerror_us,
        offset_us: state.offset_us,
        source: KERNEL_SOURCE.into(),
        unreadable: None,
    }
}

/// The clock source a monitor samples (by default the kernel's), shareable and printable.
#[derive(Clone)]
pub struct HostClock(pub Arc<dyn ClockSource>);

impl Default for HostClock {
    fn default() -> Self {
        HostClock(Arc::new(KernelClock))
    }
}

impl std::fmt::Debug for HostClock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("HostClock")
    }
}

/// When the clock is fit to match times by (the pit definition's `[clock]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClockLimits {
    /// The largest estimated error (or corrected offset) accepted, in milliseconds.
    pub max_error_ms: u64,
}

impl Default for ClockLimits {
    fn default() -> Self {
        ClockLimits {
            max_error_ms: DEFAULT_MAX_ERROR_MS,
        }
    }
}

/// What a reading is worth.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClockVerdict {
    /// Synchronised, within the limit.
    Good,
    /// Not synchronised to any time source.
    Unsynchronised,
    /// Synchronised, but its error is past the limit.
    TooUncertain {
        /// The error, in milliseconds (the larger of the estimated error and the offset).
        error_ms: u64,
        /// The limit.
        limit_ms: u64,
    },
    /// The state could not be read.
    Unreadable(String),
}

impl ClockVerdict {
    /// The alert it raises, for every screen; `None` when the clock is good.
    pub fn alert(&self) -> Option<String> {
        let why = match self {
            ClockVerdict::Good => return None,
            ClockVerdict::Unsynchronised => "is not synchronised to a time source".to_owned(),
            ClockVerdict::TooUncertain { error_ms, limit_ms } => {
                format!("is uncertain by ±{error_ms} ms, past the {limit_ms} ms limit")
            }
            ClockVerdict::Unreadable(why) => format!("cannot be checked ({why})"),
        };
        Some(format!(
            "The host clock {why}: the times recorded now may not match CCTV time. Check the \
             time synchronisation service."
        ))
    }
}

/// Judges `reading` against `limits`.
pub fn judge(reading: &ClockReading, limits: &ClockLimits) -> ClockVerdict {
    if let Some(why) = &reading.unreadable {
        return ClockVerdict::Unreadable(why.clone());
    }
    if !reading.synchronised {
        return ClockVerdict::Unsynchronised;
    }
    let error_us = reading.est_error_us.max(reading.offset_us.abs()).max(0);
    let error_ms = u64::try_from(error_us).unwrap_or(0).div_ceil(1000);
    if error_ms > limits.max_error_ms {
        return ClockVerdict::TooUncertain {
            error_ms,
            limit_ms: limits.max_error_ms,
        };
    }
    ClockVerdict::Good
}

/// A reading on record: when it was taken, what it said and the limit it was judged by.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClockSample {
    /// When (the host clock's own time).
    pub at: Timestamp,
    /// What it said.
    #[serde(flatten)]
    pub reading: ClockReading,
    /// The limit it was judged by, in milliseconds.
    pub limit_ms: u64,
}

impl ClockSample {
    /// Its judgement.
    pub fn verdict(&self) -> ClockVerdict {
        judge(
            &self.reading,
            &ClockLimits {
                max_error_ms: self.limit_ms,
            },
        )
    }

    /// Its fact on record: the key and the value (JSON).
    pub fn fact(&self) -> (String, String) {
        (
            pitwatch_store::clock_sample_key(self.at.unix_millis()),
            serde_json::to_string(self).unwrap_or_default(),
        )
    }
}

/// What the host clock's state is, as the monitor publishes it when its judgement changes (and
/// at start), once the sample is on record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClockState {
    /// The sample.
    pub sample: ClockSample,
    /// The alert every screen shows while the clock is not fit to match times by.
    pub alert: Option<String>,
}

/// What an incident report says of the clock at the incident's time, `sample` the latest at or
/// before it (with its time as the report prints times).
pub fn report_line(sample: Option<(&ClockSample, String)>) -> String {
    let Some((sample, at)) = sample else {
        return "no sample on record at or before this time (recorded before the clock was \
                sampled, or not by the monitor)"
            .into();
    };
    let figures = |r: &ClockReading| {
        format!(
            "estimated error ±{} ms, maximum error {} ms",
            round_ms(r.est_error_us),
            round_ms(r.max_error_us)
        )
    };
    let said = match sample.verdict() {
        ClockVerdict::Good => format!("synchronised, {}", figures(&sample.reading)),
        ClockVerdict::Unsynchronised => "NOT synchronised at the time".into(),
        ClockVerdict::TooUncertain { limit_ms, .. } => format!(
            "synchronised but UNCERTAIN: {} (limit {limit_ms} ms)",
            figures(&sample.reading)
        ),
        ClockVerdict::Unreadable(why) => format!("NOT checked at the time: {why}"),
    };
    format!("{said} ({}, sampled {at})", sample.reading.source)
}

/// How old the latest sample may be at a time before a report says the clock was not being
/// watched then: a running monitor writes one at least every [`SAMPLE_EVERY`], so a sample much
/// older than that comes from before a stop (an incident entered later, or recorded by an import).
pub const STALE_AFTER: Duration = Duration::from_secs(5 * 60);

/// What a report adds when the sample it prints is `age_ms` older than the time it is printed
/// for: nothing while it is recent ([`STALE_AFTER`]), else how much older, in minutes.
pub fn stale_note(age_ms: i64) -> Option<String> {
    let stale = i64::try_from(STALE_AFTER.as_millis()).unwrap_or(i64::MAX);
    (age_ms > stale).then(|| {
        let minutes = age_ms / 60_000;
        let age = if minutes >= 120 {
            format!("{} h {} min", minutes / 60, minutes % 60)
        } else {
            format!("{minutes} min")
        };
        format!("; that sample is {age} older than this time: the clock was not being sampled then")
    })
}

/// Microseconds as whole milliseconds, rounded up (an error is never made to look smaller).
fn round_ms(us: i64) -> u64 {
    u64::try_from(us.max(0)).unwrap_or(0).div_ceil(1000)
}

/// The monitor's watch over the clock: it reads the source when a check is due and says which
/// readings go on record (the first, one when the judgement changed, one every
/// [`ClockWatch::sample_every`]) and when the alert changes.
#[derive(Debug, Clone)]
pub struct ClockWatch {
    /// The source.
    pub source: HostClock,
    /// The limits judged by.
    pub limits: ClockLimits,
    /// How often the source is read.
    pub check_every: Duration,
    /// How often a reading goes on record when nothing changes.
    pub sample_every: Duration,
    last_check: Option<std::time::Instant>,
    /// The last sample on record, with when it was written (monotonic).
    written: Option<(ClockSample, std::time::Instant)>,
}

impl ClockWatch {
    /// A watch over `source`.
    pub fn new(
        source: HostClock,
        limits: ClockLimits,
        check_every: Duration,
        sample_every: Duration,
    ) -> ClockWatch {
        ClockWatch {
            source,
            limits,
            check_every,
            sample_every,
            last_check: None,
            written: None,
        }
    }

    /// The sample to write now, if any: a check is due (`now` monotonic, `at` the host clock) and
    /// the reading is the first, or judged differently from the last written, or the last is
    /// [`ClockWatch::sample_every`] old.
    pub fn due(&mut self, now: std::time::Instant, at: Timestamp) -> Option<ClockSample> {
        if self
            .last_check
            .is_some_and(|t| now.duration_since(t) < self.check_every)
        {
            return None;
        }
        self.last_check = Some(now);
        let sample = ClockSample {
            at,
            reading: self.source.0.read(),
            limit_ms: self.limits.max_error_ms,
        };
        match &self.written {
            Some((last, when))
                if last.verdict() == sample.verdict()
                    && now.duration_since(*when) < self.sample_every =>
            {
                None
            }
            _ => Some(sample),
        }
    }

    /// `sample` is on record: the state to publish when its judgement differs from the last
    /// one written (or it is the first).
    pub fn written(&mut self, sample: ClockSample, now: std::time::Instant) -> Option<ClockState> {
        let changed = self
            .written
            .as_ref()
            .is_none_or(|(last, _)| last.verdict() != sample.verdict());
        let state = changed.then(|| ClockState {
            alert: sample.verdict().alert(),
            sample: sample.clone(),
        });
        self.written = Some((sample, now));
        state
    }
}

#[cfg(test)]
mod tests;
