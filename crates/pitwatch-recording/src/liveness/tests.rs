//! The liveness state machine: alarms exactly when a gap exceeds its threshold, once, cleared
//! with the right duration; the same inputs give the same alarms however the ticks fall.

use super::*;
use proptest::prelude::*;

fn t(ms: i64) -> Timestamp {
    Timestamp::from_unix_millis(1_700_000_000_000 + ms).unwrap()
}

const TH: Thresholds = Thresholds {
    offline_ms: 1_000,
    silent_ms: Some(5_000),
    heartbeat_ms: None,
};

#[test]
fn never_connected_is_an_alarm_once_the_threshold_is_passed_and_clears_on_connect() {
    let mut w = Watch::new(TH, true, t(0));
    assert_eq!(
        w.advance(t(1_000)),
        None,
        "exactly the threshold is not past it"
    );
    let raised = w.advance(t(1_001)).expect("raised");
    assert_eq!(
        raised,
        Change::Raised(Alarm {
            kind: AlarmKind::NeverConnected,
            since: t(0),
            raised: t(1_000),
            threshold_ms: 1_000
        })
    );
    assert_eq!(w.advance(t(60_000)), None, "raised once");
    let mut changes = Vec::new();
    w.connected(t(61_000), &mut changes);
    assert!(matches!(
        changes.as_slice(),
        [Change::Cleared {
            duration_ms: 61_000,
            ..
        }]
    ));
    assert_eq!(w.alarm(), None);
}

#[test]
fn a_disconnection_back_within_the_threshold_is_no_alarm() {
    let mut w = Watch::new(TH, true, t(0));
    let mut changes = Vec::new();
    w.connected(t(10), &mut changes);
    w.disconnected(t(100), &mut changes);
    w.connected(t(1_100), &mut changes);
    assert!(changes.is_empty(), "{changes:?}");
    assert_eq!(w.advance(t(2_000)), None);
}

#[test]
fn offline_raised_dated_by_its_deadline_and_cleared_with_its_duration() {
    let mut w = Watch::new(TH, true, t(0));
    let mut changes = Vec::new();
    w.connected(t(10), &mut changes);
    w.disconnected(t(500), &mut changes);
    // No tick: the reconnection itself first advances the machine past the deadline.
    w.connected(t(4_500), &mut changes);
    assert_eq!(changes.len(), 2, "{changes:?}");
    let Change::Raised(alarm) = changes[0] else {
        panic!("{changes:?}")
    };
    assert_eq!(alarm.kind, AlarmKind::Offline);
    assert_eq!(alarm.since, t(500));
    assert_eq!(alarm.raised, t(1_500));
    assert_eq!(
        changes[1],
        Change::Cleared {
            alarm,
            at: t(4_500),
            duration_ms: 4_000
        }
    );
}

#[test]
fn a_shoe_is_silent_only_while_a_shoe_is_in_play() {
    let mut w = Watch::new(TH, true, t(0));
    let mut changes = Vec::new();
    w.connected(t(0), &mut changes);
    assert_eq!(
        w.advance(t(100_000)),
        None,
        "no shoe in play: quiet is fine"
    );
    w.in_play(t(100_000), true, &mut changes);
    assert_eq!(w.deadline(), Some(t(105_000)));
    w.received(t(104_000), &mut changes);
    assert_eq!(w.advance(t(109_000)), None);
    let Some(Change::Raised(alarm)) = w.advance(t(109_001)) else {
        panic!()
    };
    assert_eq!((alarm.kind, alarm.since), (AlarmKind::Silent, t(104_000)));
    assert_eq!(alarm.kind.code(), DEVICE_SILENT);
    w.received(t(110_000), &mut changes);
    assert_eq!(
        changes,
        vec![Change::Cleared {
            alarm,
            at: t(110_000),
            duration_ms: 6_000
        }]
    );
    // A shuffler is never held to the shoe's pace.
    let mut s = Watch::new(TH, false, t(0));
    s.connected(t(0), &mut changes);
    s.in_play(t(0), true, &mut changes);
    assert_eq!(s.deadline(), None);
}

#[test]
fn a_heartbeat_protocol_is_silent_at_any_time() {
    let th = Thresholds {
        heartbeat_ms: Some(2_000),
        ..TH
    };
    let mut w = Watch::new(th, false, t(0));
    let mut changes = Vec::new();
    w.connected(t(0), &mut changes);
    w.received(t(1_000), &mut changes);
    assert_eq!(w.deadline(), Some(t(3_000)));
    assert!(matches!(
        w.advance(t(3_001)),
        Some(Change::Raised(Alarm {
            kind: AlarmKind::Silent,
            ..
        }))
    ));
}

#[test]
fn overrides_and_defaults() {
    let pw = defaults("pitwatch");
    assert_eq!(pw.offline_ms, 10_000);
    assert_eq!(pw.heartbeat_ms, Some(60_000));
    assert_eq!(defaults("angel-eye").heartbeat_ms, None);
    assert_eq!(defaults("angel-eye").silent_ms, Some(300_000));
    let table = LivenessOverride {
        offline_s: Some(2.5),
        silent_s: Some(0.0),
        heartbeat_s: None,
    };
    let device = LivenessOverride {
        offline_s: Some(4.0),
        ..LivenessOverride::default()
    };
    let th = table.apply(&device, pw);
    assert_eq!(th.offline_ms, 4_000, "the device's own value wins");
    assert_eq!(th.silent_ms, None, "0 turns the check off");
    assert_eq!(th.heartbeat_ms, Some(60_000));
    let bad = LivenessOverride {
        offline_s: Some(0.0),
        silent_s: Some(-1.0),
        heartbeat_s: Some(f64::NAN),
    };
    let problems = bad.problems();
    assert_eq!(problems.len(), 3, "{problems:?}");
    assert!(
        problems[0]
            .contains("liveness.offline_s = 0 is not accepted: give seconds from 0.1 to 86400"),
        "{problems:?}"
    );
}

#[test]
fn durations_in_words() {
    assert_eq!(duration_words(4_200), "4.2 s");
    assert_eq!(duration_words(45_000), "45 s");
    assert_eq!(duration_words(200_000), "3 min 20 s");
    assert_eq!(duration_words(3_720_000), "1 h 02 min");
}

/// An input of a generated history.
#[derive(Debug, Clone)]
enum In {
    Connect,
    Drop,
    Bytes,
    Play(bool),
}

fn history() -> impl Strategy<Value = Vec<(u16, In)>> {
    prop::collection::vec(
        (
            0u16..3_000,
            prop_oneof![
                Just(In::Connect),
                Just(In::Drop),
                Just(In::Bytes),
                any::<bool>().prop_map(In::Play)
            ],
        ),
        0..40,
    )
}

/// Feeds a history, ticking at the given gaps between inputs (none: no ticks).
fn run(th: Thresholds, inputs: &[(u16, In)], ticks: &[u16]) -> Vec<Change> {
    let mut w = Watch::new(th, true, t(0));
    let mut changes = Vec::new();
    let mut now = 0i64;
    for (i, (gap, input)) in inputs.iter().enumerate() {
        let next = now + i64::from(*gap);
        if let Some(&tick) = ticks.get(i) {
            let at = now + i64::from(tick).min(i64::from(*gap));
            changes.extend(w.advance(t(at)));
        }
        now = next;
        match input {
            In::Connect => w.connected(t(now), &mut changes),
            In::Drop => w.disconnected(t(now), &mut changes),
            In::Bytes => w.received(t(now), &mut changes),
            In::Play(p) => w.in_play(t(now), *p, &mut changes),
        }
    }
    changes.extend(w.advance(t(now + 100_000)));
    changes
}

proptest! {
    /// Ticks between inputs change nothing: the alarms come from the inputs alone.
    #[test]
    fn ticks_do_not_change_the_alarms(inputs in history(), ticks in prop::collection::vec(0u16..3_000, 0..40)) {
        let th = Thresholds { offline_ms: 700, silent_ms: Some(1_500), heartbeat_ms: Some(2_500) };
        prop_assert_eq!(run(th, &inputs, &[]), run(th, &inputs, &ticks));
    }

    /// An offline alarm is raised exactly when a disconnection lasts longer than the
    /// threshold, once per disconnection, and cleared on reconnecting with the gap's length.
    #[test]
    fn offline_exactly_when_the_gap_exceeds_the_threshold(gaps in prop::collection::vec((1u16..3_000, 1u16..3_000), 1..20), offline in 1u64..2_000) {
        let th = Thresholds { offline_ms: offline, silent_ms: None, heartbeat_ms: None };
        let mut w = Watch::new(th, true, t(0));
        let mut changes = Vec::new();
        w.connected(t(0), &mut changes);
        prop_assert!(changes.is_empty());
        let mut now = 0i64;
        for (up, down) in gaps {
            now += i64::from(up);
            w.disconnected(t(now), &mut changes);
            let dropped = now;
            now += i64::from(down);
            // Ticks every 100 ms while it is down.
            let mut tick = dropped;
            while tick + 100 < now {
                tick += 100;
                let raised = w.advance(t(tick));
                prop_assert_eq!(raised.is_some(), tick - dropped > offline as i64 && tick - 100 - dropped <= offline as i64);
                changes.extend(raised);
            }
            w.connected(t(now), &mut changes);
            if u64::from(down) > offline {
                prop_assert_eq!(changes.len(), 2, "{:?}", changes);
                let Change::Raised(alarm) = changes[0] else { panic!() };
                prop_assert_eq!(alarm.since, t(dropped));
                prop_assert_eq!(alarm.raised, t(dropped + offline as i64));
                prop_assert_eq!(changes[1], Change::Cleared { alarm, at: t(now), duration_ms: u64::from(down) });
            } else {
                prop_assert!(changes.is_empty(), "{:?}", changes);
            }
            changes.clear();
        }
    }
}
