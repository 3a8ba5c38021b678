//! The live watch against the whole record: on simulated shifts (dealers at set paces, slow
//! stretches, results declared wrongly, a jammed device), every alert the watch raises step by
//! step is the whole record's, at the same round, and the conditions it says hold are those of
//! the last round.

use proptest::prelude::*;

use super::*;
use crate::dealers::tests::{steps_of, Stream};
use crate::targets::alerts;

fn target() -> PaceTarget {
    PaceTarget {
        target_rounds_per_hour: 120.0,
        below_target_percent: 75.0,
        window_rounds: 4,
        burst_errors: 2,
        burst_rounds: 3,
    }
}

/// A shift: each round `(gap before it in seconds, declared wrongly, the device jams in it)`,
/// with a hand-over every `hand_over` rounds.
fn shift(rounds: &[(u8, bool, bool)], hand_over: usize) -> Vec<(TableEvent, Vec<GameOutput>)> {
    let mut s = Stream::default();
    s.sign_in(0.0, "Mere");
    s.shuffle(1.0);
    let mut at = 10.0;
    for (i, &(gap, wrong, jam)) in rounds.iter().enumerate() {
        if i > 0 && i % hand_over.max(1) == 0 {
            s.sign_in(
                at - 2.0,
                ["Mere", "Hoani", "王芳"][i / hand_over.max(1) % 3],
            );
        }
        if jam {
            s.push(
                at - 0.5,
                r#"{"event":"device_error","code":"JAM","text":"jammed"}"#,
            );
        }
        s.round(at, if wrong { "banker" } else { "player" });
        at += 6.0 + f64::from(gap);
    }
    steps_of("nz-baccarat", &s.0)
}

fn watched(
    steps: &[(TableEvent, Vec<GameOutput>)],
    target: PaceTarget,
) -> (Vec<PaceAlert>, TargetWatch) {
    let mut watch = TargetWatch::new(target);
    let mut raised = Vec::new();
    for (event, outputs) in steps {
        raised.extend(watch.step(event, outputs));
    }
    raised.extend(watch.finish());
    (raised, watch)
}

fn whole(steps: &[(TableEvent, Vec<GameOutput>)], target: &PaceTarget) -> Vec<PaceAlert> {
    let pace = Pace::of(steps.iter().map(|(e, o)| (e, o.as_slice())));
    let attribution = Attribution::of(steps.iter().map(|(e, o)| (e, o.as_slice())));
    alerts(&pace, &attribution, target)
}

/// Known timings: brisk rounds (a round every 16 s is 225 an hour), then a slow stretch (every
/// 76 s, under the line of 90), then brisk again: one pace alert, raised by the watch when the
/// round after it closes, gone from the conditions holding once the pace recovered; two results
/// declared wrongly in three rounds are an error burst. Hoani takes over at round 11.
#[test]
fn a_slow_stretch_and_a_burst_are_raised_live_as_the_record_raises_them() {
    let mut rounds = vec![(10, false, false); 8];
    rounds.extend([(70, false, false); 6]);
    rounds.extend([(10, false, false); 6]);
    rounds[16].1 = true;
    rounds[17].1 = true;
    let steps = shift(&rounds, 10);
    let record = whole(&steps, &target());
    let kinds: Vec<(AlertKind, u32, Option<&str>)> = record
        .iter()
        .map(|a| (a.kind, a.round, a.dealer.as_deref()))
        .collect();
    assert_eq!(
        kinds,
        [
            (AlertKind::PaceBelowTarget, 11, Some("Hoani")),
            (AlertKind::ErrorBurst, 18, Some("Hoani")),
        ]
    );
    let mut watch = TargetWatch::new(target());
    let mut when = Vec::new();
    for (event, outputs) in &steps {
        for alert in watch.step(event, outputs) {
            let closed = outputs.iter().find_map(|o| match o {
                TableOutput::Round(done) => Some(done.round()),
                _ => None,
            });
            when.push((alert.round, closed));
            if alert.kind == AlertKind::PaceBelowTarget {
                assert_eq!(watch.active().len(), 1, "slow now");
            }
        }
    }
    watch.finish();
    assert_eq!(when, [(11, Some(12)), (18, Some(19))], "one round later");
    // By the end the pace has recovered, and the last three rounds hold one error, not two.
    assert!(watch.active().is_empty(), "{:#?}", watch.active());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Any shift: the watch raises exactly the whole record's alerts, and holds only a few
    /// rounds' steps.
    #[test]
    fn the_watch_raises_exactly_the_whole_record_s_alerts(
        rounds in prop::collection::vec((prop::sample::select(vec![5u8, 10, 40, 70, 200]), prop::bool::weighted(0.2), prop::bool::weighted(0.05)), 1..60),
        hand_over in 1usize..12,
    ) {
        let steps = shift(&rounds, hand_over);
        let (raised, watch) = watched(&steps, target());
        prop_assert_eq!(&raised, &whole(&steps, &target()));
        let held_rounds = watch
            .steps
            .iter()
            .filter(|(_, o)| o.iter().any(|o| matches!(o, TableOutput::Round(_))))
            .count();
        // The window (4) or burst (3), the round before, the round not settled, and any jammed.
        let jammed = rounds.iter().filter(|r| r.2).count();
        prop_assert!(held_rounds <= 6 + jammed, "{} rounds held", held_rounds);
    }
}
