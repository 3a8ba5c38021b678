//! The host clock's truth on record: each sample of its synchronisation state is an installation
//! fact of its own ([`clock_sample_key`]: the sample's time in milliseconds, zero-padded so the
//! keys sort as the times do), chained like every fact and checked by verification, so a report
//! can say what the clock was worth when an incident happened ([`Store::clock_sample_at`]). What
//! a sample holds (JSON) is the recording machinery's (`pitwatch_recording::clock`).

use rusqlite::OptionalExtension;

use crate::{Store, StoreError};

/// What every clock sample's fact key starts with.
pub const CLOCK_SAMPLE_PREFIX: &str = "clock_sample:";

/// The fact key of the clock sample taken at `at_ms` (milliseconds since the Unix epoch; a time
/// before the epoch is kept at the epoch).
pub fn clock_sample_key(at_ms: i64) -> String {
    format!("{CLOCK_SAMPLE_PREFIX}{:015}", at_ms.max(0))
}

/// The time a clock sample's key names, if it is one.
fn sample_time(key: &str) -> Option<i64> {
    key.strip_prefix(CLOCK_SAMPLE_PREFIX)?.parse().ok()
}

impl Store {
    /// The latest clock sample taken at or before `at_ms`: its time (ms since the Unix epoch)
    /// and what it holds (JSON); `None` when no sample is that old.
    pub fn clock_sample_at(&self, at_ms: i64) -> Result<Option<(i64, String)>, StoreError> {
        let row: Option<(String, String)> = self
            .conn
            .query_row(
                "SELECT key, value FROM meta WHERE key >= ?1 AND key <= ?2 \
                 ORDER BY key DESC LIMIT 1",
                [CLOCK_SAMPLE_PREFIX.to_owned(), clock_sample_key(at_ms)],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?;
        Ok(row.and_then(|(key, value)| sample_time(&key).map(|at| (at, value))))
    }

    /// The latest clock sample on record, as [`Store::clock_sample_at`] gives it.
    pub fn latest_clock_sample(&self) -> Result<Option<(i64, String)>, StoreError> {
        self.clock_sample_at(i64::MAX / 10)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_sort_as_the_times_do() {
        assert!(clock_sample_key(999) < clock_sample_key(1_000));
        assert!(clock_sample_key(1_700_000_000_000) < clock_sample_key(17_000_000_000_000));
        assert_eq!(sample_time(&clock_sample_key(1_234)), Some(1_234));
        assert_eq!(sample_time("session_hello:3"), None);
        assert_eq!(clock_sample_key(-5), clock_sample_key(0));
    }

    #[test]
    fn the_sample_at_a_time_is_the_latest_not_after_it_and_verified() {
        let mut store = Store::open_in_memory().expect("a store");
        let t = |ms| pitwatch_model::Timestamp::from_unix_millis(ms).expect("a time");
        store.set_meta("site", "Pit", t(500)).expect("written");
        for (at, value) in [(1_000, "a"), (61_000, "b"), (121_000, "c")] {
            store
                .set_meta(&clock_sample_key(at), value, t(at))
                .expect("written");
        }
        let at = |ms| store.clock_sample_at(ms).expect("read");
        assert_eq!(at(999), None);
        assert_eq!(at(1_000), Some((1_000, "a".into())));
        assert_eq!(at(60_999), Some((1_000, "a".into())));
        assert_eq!(at(61_000), Some((61_000, "b".into())));
        assert_eq!(at(10_000_000), Some((121_000, "c".into())));
        assert_eq!(
            store.latest_clock_sample().expect("read"),
            Some((121_000, "c".into()))
        );
        assert!(store.verify().expect("verified").intact());
    }
}
