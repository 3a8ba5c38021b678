//! How a report prints times: in the site's time zone when the record's facts name one
//! (`time_zone`, from the pit definition's `site.time_zone`), each time with the zone's
//! abbreviation (`2026-11-30 19:11:00 NZDT`, so the hour repeated when summer time ends is never
//! ambiguous); otherwise in UTC, the column heads and standalone times saying "UTC". The zone
//! database is compiled in (jiff's bundled copy), so every workstation prints the same times.

use jiff::tz::TimeZone;
use pitwatch_model::Timestamp;
use pitwatch_store::{Store, StoreError};

/// The zone a report's times are printed in.
#[derive(Debug, Clone)]
pub(crate) struct Times {
    /// The site's zone and its IANA name; `None`: UTC.
    zone: Option<(TimeZone, String)>,
}

impl Times {
    /// UTC.
    pub(crate) fn utc() -> Times {
        Times { zone: None }
    }

    /// The zone named `name` (IANA), or UTC when it is empty or unknown to this program (a
    /// record written by a newer one).
    pub(crate) fn named(name: &str) -> Times {
        let zone = (!name.trim().is_empty())
            .then(|| TimeZone::get(name.trim()).ok())
            .flatten()
            .map(|tz| (tz, name.trim().to_owned()));
        Times { zone }
    }

    /// The zone the record's facts name for the site.
    pub(crate) fn of(store: &Store) -> Result<Times, StoreError> {
        Ok(store
            .meta(super::TIME_ZONE)?
            .map_or_else(Times::utc, |name| Times::named(&name)))
    }

    /// The zone as a sentence names it: `UTC`, `Pacific/Auckland`.
    pub(crate) fn name(&self) -> &str {
        self.zone.as_ref().map_or("UTC", |(_, name)| name.as_str())
    }

    /// A column head or label over times: `Opened (UTC)` in UTC; in a site's zone every time
    /// carries its abbreviation, and the head is the word alone.
    pub(crate) fn head(&self, what: &str) -> String {
        match self.zone {
            None => format!("{what} (UTC)"),
            Some(_) => what.to_owned(),
        }
    }

    fn format(&self, at: Timestamp, utc: &str, zoned: &str) -> String {
        let Some((tz, _)) = &self.zone else {
            return at.as_datetime().format(utc).to_string();
        };
        match jiff::Timestamp::from_millisecond(at.unix_millis()) {
            Ok(t) => t.to_zoned_datetime(tz.clone()).strftime(zoned).to_string(),
            Err(_) => at.as_datetime().format(utc).to_string(),
        }
    }

    /// A time under a head of [`Times::head`]: `2026-11-30 06:11:00` (UTC), or
    /// `2026-11-30 19:11:00 NZDT`.
    pub(crate) fn cell(&self, at: Timestamp) -> String {
        self.format(at, "%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M:%S %Z")
    }

    /// A time to the millisecond under a head of [`Times::head`] (the evidence timeline).
    pub(crate) fn precise(&self, at: Timestamp) -> String {
        self.format(at, "%Y-%m-%d %H:%M:%S%.3f", "%Y-%m-%d %H:%M:%S%.3f %Z")
    }

    /// A time standing alone, its zone said: `2026-11-30 06:11:00 UTC`,
    /// `2026-11-30 19:11:00 NZDT`.
    pub(crate) fn stamped(&self, at: Timestamp) -> String {
        self.format(at, "%Y-%m-%d %H:%M:%S UTC", "%Y-%m-%d %H:%M:%S %Z")
    }

    /// A recorded time (RFC 3339 text) as [`Times::cell`]; text that is no time as it is.
    pub(crate) fn cell_text(&self, text: &str) -> String {
        text.parse::<Timestamp>()
            .map_or_else(|_| text.to_owned(), |at| self.cell(at))
    }

    /// A recorded time (RFC 3339 text) as [`Times::stamped`]; text that is no time as it is.
    pub(crate) fn stamped_text(&self, text: &str) -> String {
        text.parse::<Timestamp>()
            .map_or_else(|_| text.to_owned(), |at| self.stamped(at))
    }

    /// A time in ms since the epoch as [`Times::cell`].
    pub(crate) fn cell_ms(&self, ms: i64) -> String {
        Timestamp::from_unix_millis(ms).map_or_else(|| ms.to_string(), |at| self.cell(at))
    }

    /// A time in ms since the epoch as [`Times::precise`].
    pub(crate) fn precise_ms(&self, ms: i64) -> String {
        Timestamp::from_unix_millis(ms).map_or_else(|| ms.to_string(), |at| self.precise(at))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> Timestamp {
        text.parse().expect("a time")
    }

    #[test]
    fn without_a_zone_times_are_utc_and_say_so() {
        let times = Times::utc();
        assert_eq!(times.name(), "UTC");
        assert_eq!(times.head("Opened"), "Opened (UTC)");
        let t = at("2026-11-30T06:11:00.250Z");
        assert_eq!(times.cell(t), "2026-11-30 06:11:00");
        assert_eq!(times.precise(t), "2026-11-30 06:11:00.250");
        assert_eq!(times.stamped(t), "2026-11-30 06:11:00 UTC");
        assert_eq!(times.stamped_text("not a time"), "not a time");
        // An empty or unknown zone is UTC.
        assert_eq!(Times::named("").name(), "UTC");
        assert_eq!(Times::named("Pacific/Atlantis").name(), "UTC");
    }

    #[test]
    fn in_the_site_s_zone_every_time_carries_its_abbreviation() {
        let times = Times::named("Pacific/Auckland");
        assert_eq!(times.name(), "Pacific/Auckland");
        assert_eq!(times.head("Opened"), "Opened");
        // Summer time (UTC+13) in November, standard time (UTC+12) in June.
        assert_eq!(
            times.cell(at("2026-11-30T06:11:00Z")),
            "2026-11-30 19:11:00 NZDT"
        );
        assert_eq!(
            times.stamped(at("2026-06-30T06:11:00Z")),
            "2026-06-30 18:11:00 NZST"
        );
        assert_eq!(
            times.precise(at("2026-11-30T06:11:00.007Z")),
            "2026-11-30 19:11:00.007 NZDT"
        );
        // The hour repeated when summer time ends (5 April 2026, 03:00 NZDT → 02:00 NZST)
        // reads twice, told apart by the abbreviation.
        assert_eq!(
            times.cell(at("2026-04-04T13:30:00Z")),
            "2026-04-05 02:30:00 NZDT"
        );
        assert_eq!(
            times.cell(at("2026-04-04T14:30:00Z")),
            "2026-04-05 02:30:00 NZST"
        );
    }
}
