//! Pace targets and alerts on rounds with known timings: the built-in targets read, bad targets
//! refused with every reason, a slow stretch raising one alert (and another only after the pace
//! recovered), an error burst, a round a device fault interrupted counting in neither.

use super::*;
use crate::dealers::{DealtIrregularity, DealtRound};
use crate::pace::RoundPace;

const T0: i64 = 1_796_000_000_000;

/// Rounds of 10 s, each `gaps[i]` seconds after the one before closed, all in shoe 1, dealt by
/// "Mere".
fn rounds(gaps: &[i64]) -> (Pace, Attribution) {
    let mut pace = Pace::default();
    let mut attribution = Attribution::default();
    let mut at = T0;
    for (i, gap) in gaps.iter().enumerate() {
        let round = i as u32 + 1;
        let first = at + gap * 1000;
        pace.rounds.push(RoundPace {
            shoe: 1,
            round,
            first_card_at: Timestamp::from_unix_millis(first),
            closed_at: Timestamp::from_unix_millis(first + 10_000),
            bets_closed_to_first_card_ms: None,
            deal_ms: None,
            reveal_ms: None,
            gap_before_ms: (i > 0).then_some(gap * 1000),
        });
        attribution.rounds.push(DealtRound {
            shoe: 1,
            round,
            first_seq: u64::from(round) * 10,
            close_seq: u64::from(round) * 10 + 5,
            dealer: Some("Mere".into()),
            device_fault: false,
        });
        at = first + 10_000;
    }
    (pace, attribution)
}

fn error(round: u32, code: &str) -> DealtIrregularity {
    DealtIrregularity {
        code: code.into(),
        rule: "8.4".into(),
        shoe: 1,
        round: Some(round),
        seq: u64::from(round) * 10 + 3,
        at: None,
        dealer: Some("Mere".into()),
        counted: code != "DEVICE_ERROR",
    }
}

fn target() -> PaceTarget {
    PaceTarget {
        target_rounds_per_hour: 120.0,
        below_target_percent: 75.0,
        window_rounds: 4,
        burst_errors: 2,
        burst_rounds: 3,
    }
}

#[test]
fn the_built_in_targets_cover_every_game_and_bad_ones_are_refused_with_every_reason() {
    let defaults = PaceTargets::defaults();
    for game in GameKind::ALL {
        let target = defaults.of(game).expect("a target for every game");
        assert!(target.problems().is_empty(), "{game:?}");
    }
    let bad = PaceTargets::from_toml(
        "[chess]\ntarget_rounds_per_hour = 0\nbelow_target_percent = 120\nwindow_rounds = 1\nburst_errors = 0\nburst_rounds = 3\n",
    )
    .unwrap_err();
    for reason in [
        "[chess]: no such game",
        "target_rounds_per_hour must be a number above 0",
        "below_target_percent must be above 0 and at most 100",
        "window_rounds must be 2 or more",
        "burst_errors and burst_rounds must be 1 or more",
    ] {
        assert!(bad.contains(reason), "{bad}");
    }
    assert!(PaceTargets::from_toml("[baccarat]\ntarget = 3\n").is_err());
}

/// A round every 20 s (10 s dealing + 10 s gap) is 180 an hour; every 60 s (10 + 50) is 60 an
/// hour, under the line of 90 (75% of 120).
#[test]
fn a_slow_stretch_is_one_alert_and_another_only_after_the_pace_recovered() {
    let mut gaps = vec![0];
    gaps.extend([10; 5]); // rounds 2–6 brisk
    gaps.extend([50; 6]); // rounds 7–12 slow
    gaps.extend([10; 6]); // rounds 13–18 brisk again
    gaps.extend([50; 6]); // rounds 19–24 slow again
    let (pace, attribution) = rounds(&gaps);
    let alerts = alerts(&pace, &attribution, &target());
    let raised: Vec<(AlertKind, u32)> = alerts.iter().map(|a| (a.kind, a.round)).collect();
    assert!(!alerts.is_empty(), "{alerts:#?}");
    // The window of rounds 6–9 (its first round's gap not in it): 4 × 10 s + 3 × 50 s = 190 s,
    // 4 × 3600 / 190 ≈ 75.8 an hour; the window of 5–8 was 150 s, 96 an hour. Recovered at
    // round 13 (96 an hour again), slow again at 21.
    assert_eq!(
        raised,
        [
            (AlertKind::PaceBelowTarget, 9),
            (AlertKind::PaceBelowTarget, 21)
        ]
    );
    let first = &alerts[0];
    assert_eq!(first.dealer.as_deref(), Some("Mere"));
    assert!((first.measured - 4.0 * 3600.0 / 190.0).abs() < 1e-9);
    assert!((first.threshold - 90.0).abs() < 1e-9);
    assert!(first.message.contains("under 90.0"), "{}", first.message);
}

#[test]
fn an_error_burst_is_raised_once_and_a_device_fault_counts_in_neither_alert() {
    let (pace, mut attribution) = rounds(&[0, 10, 10, 10, 10, 10, 10, 10]);
    attribution.irregularities = vec![
        error(2, "DEAL_OUT_OF_ORDER"),
        error(3, "RESULT_MISMATCH"), // two within three rounds: a burst
        error(4, "RESULT_MISMATCH"), // still bursting: no second alert
        error(7, "DEVICE_ERROR"),    // the device's: not counted
    ];
    let raised = alerts(&pace, &attribution, &target());
    assert_eq!(raised.len(), 1, "{raised:#?}");
    assert_eq!(
        (raised[0].kind, raised[0].round),
        (AlertKind::ErrorBurst, 3)
    );
    assert_eq!(raised[0].measured, 2.0);

    // A round a jam held up for over three minutes (less than a break) is not slow dealing.
    let (pace, mut attribution) = rounds(&[0, 10, 10, 10, 200, 10, 10, 10]);
    assert_eq!(
        alerts(&pace, &attribution, &target()).len(),
        1,
        "slow without the fault"
    );
    attribution.rounds[4].device_fault = true;
    assert!(alerts(&pace, &attribution, &target()).is_empty());
}

#[test]
fn a_table_s_own_target_replaces_the_game_s_rounds_an_hour_only() {
    let defaults = PaceTargets::defaults();
    let game = *defaults.of(GameKind::Baccarat).expect("Baccarat's");
    let table = defaults
        .for_table(GameKind::Baccarat, Some(50))
        .expect("a target");
    assert_eq!(table.target_rounds_per_hour, 50.0);
    assert_eq!(table.window_rounds, game.window_rounds);
    assert_eq!(
        table.alert_below(),
        50.0 * game.below_target_percent / 100.0
    );
    assert_eq!(defaults.for_table(GameKind::Baccarat, None), Some(game));
    assert_eq!(defaults.for_table(GameKind::Baccarat, Some(0)), Some(game));
}
