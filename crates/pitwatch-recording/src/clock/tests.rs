//! The clock's judgement and the kernel reading's decoding, from raw values.

use std::sync::Mutex;
use std::time::Instant;

use super::*;

fn kernel(state: i32, status: i32, esterror_us: i64) -> KernelClockState {
    KernelClockState {
        state,
        status,
        esterror_us,
        maxerror_us: 16_000_000,
        offset_us: 0,
    }
}

fn at(ms: i64) -> Timestamp {
    Timestamp::from_unix_millis(ms).expect("a time")
}

#[test]
fn the_kernel_state_decodes_its_unsync_bit_and_its_error_state() {
    // TIME_OK, STA_PLL: synchronised.
    let good = decode(&kernel(0, 0x0001, 12_000));
    assert!(good.synchronised);
    assert_eq!((good.est_error_us, good.max_error_us), (12_000, 16_000_000));
    assert_eq!(good.source, KERNEL_SOURCE);
    // STA_UNSYNC set: not synchronised, whatever the state says.
    assert!(!decode(&kernel(0, 0x0041, 12_000)).synchronised);
    // TIME_ERROR returned: not synchronised, even with the bit clear.
    assert!(!decode(&kernel(5, 0x0001, 12_000)).synchronised);
    // TIME_INS (a leap second pending) is still synchronised.
    assert!(decode(&kernel(1, 0x0011, 12_000)).synchronised);
}

#[test]
fn the_judgement_weighs_synchronisation_then_the_error_against_the_limit() {
    let limits = ClockLimits { max_error_ms: 1000 };
    let reading = |sync: bool, est_us: i64, offset_us: i64| ClockReading {
        synchronised: sync,
        est_error_us: est_us,
        max_error_us: 0,
        offset_us,
        source: "test".into(),
        unreadable: None,
    };
    assert_eq!(
        judge(&reading(true, 12_000, 0), &limits),
        ClockVerdict::Good
    );
    assert_eq!(
        judge(&reading(true, 1_000_000, 0), &limits),
        ClockVerdict::Good
    );
    assert_eq!(
        judge(&reading(true, 1_000_001, 0), &limits),
        ClockVerdict::TooUncertain {
            error_ms: 1001,
            limit_ms: 1000
        }
    );
    // A large correction counts as much as the estimate.
    assert_eq!(
        judge(&reading(true, 5_000, -2_500_000), &limits),
        ClockVerdict::TooUncertain {
            error_ms: 2500,
            limit_ms: 1000
        }
    );
    assert_eq!(
        judge(&reading(false, 12_000, 0), &limits),
        ClockVerdict::Unsynchronised
    );
    assert_eq!(
        judge(&ClockReading::unreadable("kernel", "EPERM"), &limits),
        ClockVerdict::Unreadable("EPERM".into())
    );
    assert!(ClockVerdict::Good.alert().is_none());
    assert!(ClockVerdict::Unsynchronised
        .alert()
        .is_some_and(|a| a.contains("not synchronised")));
}

#[test]
fn a_sample_round_trips_through_its_fact_and_reads_on_a_report() {
    let sample = ClockSample {
        at: at(1_764_482_045_000),
        reading: decode(&kernel(0, 1, 11_200)),
        limit_ms: 1000,
    };
    let (key, value) = sample.fact();
    assert_eq!(key, pitwatch_store::clock_sample_key(1_764_482_045_000));
    let back: ClockSample = serde_json::from_str(&value).expect("JSON");
    assert_eq!(back, sample);
    assert_eq!(
        report_line(Some((&back, "02:14:05 UTC".into()))),
        "synchronised, estimated error ±12 ms, maximum error 16000 ms (kernel (adjtimex), \
         sampled 02:14:05 UTC)"
    );
    let unsync = ClockSample {
        reading: decode(&kernel(5, 0x41, 11_200)),
        ..sample
    };
    assert!(report_line(Some((&unsync, "x".into()))).starts_with("NOT synchronised at the time"));
    assert!(report_line(None).starts_with("no sample on record"));
}

/// A clock whose state the test sets.
struct Fake(Mutex<ClockReading>);

impl ClockSource for Fake {
    fn read(&self) -> ClockReading {
        self.0.lock().expect("not poisoned").clone()
    }
}

#[test]
fn the_watch_writes_the_first_reading_a_change_at_once_and_otherwise_every_interval() {
    let fake = Arc::new(Fake(Mutex::new(decode(&kernel(0, 1, 5_000)))));
    let mut watch = ClockWatch::new(
        HostClock(fake.clone()),
        ClockLimits::default(),
        Duration::from_secs(5),
        Duration::from_secs(60),
    );
    let t0 = Instant::now();
    let s = |secs| t0 + Duration::from_secs(secs);
    let first = watch
        .due(s(0), at(0))
        .expect("the first reading is written");
    let state = watch
        .written(first, s(0))
        .expect("the first state is published");
    assert_eq!(state.alert, None);
    // Not checked again before the check interval; checked then, unchanged: not written.
    assert!(watch.due(s(1), at(1_000)).is_none());
    assert!(watch.due(s(5), at(5_000)).is_none());
    // Lost: written at the next check, and the alert is published.
    *fake.0.lock().unwrap() = decode(&kernel(5, 0x41, 5_000));
    let lost = watch
        .due(s(10), at(10_000))
        .expect("a change is written at once");
    let state = watch.written(lost, s(10)).expect("a changed state");
    assert!(state.alert.is_some());
    // Unchanged for a minute: written again, nothing published.
    assert!(watch.due(s(65), at(65_000)).is_none());
    let again = watch.due(s(70), at(70_000)).expect("a minute on");
    assert!(watch.written(again, s(70)).is_none());
    // Back: written, the alert cleared.
    *fake.0.lock().unwrap() = decode(&kernel(0, 1, 5_000));
    let back = watch.due(s(75), at(75_000)).expect("back");
    assert_eq!(watch.written(back, s(75)).expect("changed").alert, None);
}

#[test]
fn a_sample_long_before_the_time_reported_says_the_clock_was_not_watched() {
    assert_eq!(stale_note(0), None);
    assert_eq!(stale_note(5 * 60_000), None);
    assert_eq!(
        stale_note(5 * 60_000 + 1).as_deref(),
        Some("; that sample is 5 min older than this time: the clock was not being sampled then")
    );
    assert!(stale_note(3 * 3_600_000 + 7 * 60_000)
        .is_some_and(|n| n.contains("that sample is 3 h 7 min older")));
}
