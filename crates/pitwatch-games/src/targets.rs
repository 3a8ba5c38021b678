//! Targets and alerts of pace (issue 30), as data: the rounds an hour a table of each game is
//! held to, and when a table is alerted: **pace below target** (the last rounds dealt well under
//! the target) and **error burst** (many irregularities against dealers in few rounds). The
//! defaults per game are `targets.toml` beside this file; a pit gives its own in the same shape.
//!
//! The alerts are computed from a table's pace and attribution alone ([`alerts`]), so a replayed
//! record raises the same alerts at the same rounds. Each is raised when its condition becomes
//! true and not again until the condition has cleared: a table dealing slowly for an hour is one
//! alert, not one a round. [`watch::TargetWatch`] raises the same alerts live, event by event,
//! judging only the last few rounds each time one is settled.

use std::collections::BTreeMap;

use pitwatch_model::Timestamp;
use serde::{Deserialize, Serialize};

use crate::dealers::Attribution;
use crate::pace::{Pace, RoundPace, BREAK_AFTER_MS};
use crate::GameKind;

/// What a table is held to.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PaceTarget {
    /// The rounds an hour of dealing expected.
    pub target_rounds_per_hour: f64,
    /// "Pace below target" when the last [`PaceTarget::window_rounds`] rounds were dealt at under
    /// this percentage of the target.
    pub below_target_percent: f64,
    /// How many rounds the pace alert looks back over.
    pub window_rounds: u32,
    /// "Error burst" when this many irregularities counted against dealers ...
    pub burst_errors: u32,
    /// ... fall within this many rounds.
    pub burst_rounds: u32,
}

impl PaceTarget {
    /// Every reason this target cannot be used, at once.
    pub fn problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        if !(self.target_rounds_per_hour.is_finite() && self.target_rounds_per_hour > 0.0) {
            problems.push("target_rounds_per_hour must be a number above 0".to_owned());
        }
        if !(self.below_target_percent > 0.0 && self.below_target_percent <= 100.0) {
            problems.push("below_target_percent must be above 0 and at most 100".to_owned());
        }
        if self.window_rounds < 2 {
            problems.push("window_rounds must be 2 or more".to_owned());
        }
        if self.burst_errors == 0 || self.burst_rounds == 0 {
            problems.push("burst_errors and burst_rounds must be 1 or more".to_owned());
        }
        problems
    }

    /// The rounds an hour under which the pace alert is raised.
    pub fn alert_below(&self) -> f64 {
        self.target_rounds_per_hour * self.below_target_percent / 100.0
    }
}

/// Targets by game, as `targets.toml` writes them (`[baccarat]`, `[blackjack]`, …).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct PaceTargets(BTreeMap<String, PaceTarget>);

impl PaceTargets {
    /// The defaults every pit starts from (`targets.toml`).
    pub fn defaults() -> PaceTargets {
        PaceTargets::from_toml(include_str!("targets.toml"))
            .expect("the built-in pace targets are valid (tested)")
    }

    /// Targets from TOML text, every problem listed at once.
    pub fn from_toml(text: &str) -> Result<PaceTargets, String> {
        let targets: PaceTargets = toml::from_str(text).map_err(|e| e.to_string())?;
        let mut problems = Vec::new();
        for (game, target) in &targets.0 {
            if GameKind::from_name(game).is_none() {
                problems.push(format!("[{game}]: no such game"));
            }
            problems.extend(
                target
                    .problems()
                    .into_iter()
                    .map(|p| format!("[{game}]: {p}")),
            );
        }
        if problems.is_empty() {
            Ok(targets)
        } else {
            Err(problems.join("; "))
        }
    }

    /// The target of a table of `game`, if one is set.
    pub fn of(&self, game: GameKind) -> Option<&PaceTarget> {
        self.0.get(game.as_str())
    }

    /// The target of one table of `game`: the game's, its rounds an hour replaced by the
    /// table's own `rounds_per_hour` where the pit definition gives one (the thresholds stay
    /// the game's).
    pub fn for_table(&self, game: GameKind, rounds_per_hour: Option<u32>) -> Option<PaceTarget> {
        let mut target = *self.of(game)?;
        if let Some(rounds) = rounds_per_hour.filter(|&r| r > 0) {
            target.target_rounds_per_hour = f64::from(rounds);
        }
        Some(target)
    }
}

/// What an alert is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AlertKind {
    /// The last rounds were dealt under the target's alert line.
    PaceBelowTarget,
    /// Many irregularities against dealers in few rounds.
    ErrorBurst,
}

impl AlertKind {
    /// The alert's code, as audited and shown beside its words.
    pub const fn code(self) -> &'static str {
        match self {
            AlertKind::PaceBelowTarget => "PACE_BELOW_TARGET",
            AlertKind::ErrorBurst => "ERROR_BURST",
        }
    }

    /// The alert in words, for people.
    pub const fn words(self) -> &'static str {
        match self {
            AlertKind::PaceBelowTarget => "Pace below target",
            AlertKind::ErrorBurst => "Error burst",
        }
    }
}

/// An alert raised at a round.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PaceAlert {
    /// What it is about.
    pub kind: AlertKind,
    /// The shoe of the round it was raised at.
    pub shoe: u32,
    /// The round it was raised at.
    pub round: u32,
    /// When that round closed.
    pub at: Option<Timestamp>,
    /// The dealer of that round.
    pub dealer: Option<String>,
    /// What was measured: rounds an hour over the window, or the irregularities in the burst.
    pub measured: f64,
    /// What it was held to: the alert line in rounds an hour, or the burst's count.
    pub threshold: f64,
    /// What happened, in words for a supervisor.
    pub message: String,
}

/// The alerts of a table held to `target`, from its pace and attribution (of the same steps).
/// Rounds a device fault interrupted count in neither alert, and an irregularity outside any
/// round (a cut, a shoe's load) in no burst.
pub fn alerts(pace: &Pace, attribution: &Attribution, target: &PaceTarget) -> Vec<PaceAlert> {
    judge(pace, attribution, target).alerts
}

/// The alerts over some rounds, and whether each condition still held at the last of them.
pub(crate) struct Judged {
    /// The alerts raised, in order.
    pub(crate) alerts: Vec<PaceAlert>,
    /// The last window judged was under the alert line.
    pub(crate) slow: bool,
    /// The last rounds judged held a burst.
    pub(crate) bursting: bool,
}

/// [`alerts`], with the state of each condition at the end.
pub(crate) fn judge(pace: &Pace, attribution: &Attribution, target: &PaceTarget) -> Judged {
    let dealt: BTreeMap<(u32, u32), &crate::dealers::DealtRound> = attribution
        .rounds
        .iter()
        .map(|r| ((r.shoe, r.round), r))
        .collect();
    let counted: Vec<&RoundPace> = pace
        .rounds
        .iter()
        .filter(|r| {
            !dealt
                .get(&(r.shoe, r.round))
                .is_some_and(|d| d.device_fault)
        })
        .collect();
    let mut errors_at: BTreeMap<(u32, u32), u32> = BTreeMap::new();
    for found in attribution.irregularities.iter().filter(|i| i.counted) {
        if let Some(round) = found.round {
            *errors_at.entry((found.shoe, round)).or_insert(0) += 1;
        }
    }
    let dealer_of = |r: &RoundPace| dealt.get(&(r.shoe, r.round)).and_then(|d| d.dealer.clone());
    let mut out = Vec::new();
    let (mut slow, mut bursting) = (false, false);
    let window = target.window_rounds as usize;
    let line = target.alert_below();
    for (i, round) in counted.iter().enumerate() {
        if i + 1 >= window {
            let mut last: Vec<RoundPace> = counted[i + 1 - window..=i]
                .iter()
                .map(|r| (*r).clone())
                .collect();
            last[0].gap_before_ms = None;
            let window_pace = Pace {
                rounds: last,
                ..Pace::default()
            };
            if let Some(per_hour) = window_pace.rounds_per_hour(BREAK_AFTER_MS) {
                let below = per_hour < line;
                if below && !slow {
                    out.push(PaceAlert {
                        kind: AlertKind::PaceBelowTarget,
                        shoe: round.shoe,
                        round: round.round,
                        at: round.closed_at,
                        dealer: dealer_of(round),
                        measured: per_hour,
                        threshold: line,
                        message: format!(
                            "The last {window} rounds were dealt at {per_hour:.1} an hour, under {line:.1} ({}% of the target of {:.0})",
                            target.below_target_percent, target.target_rounds_per_hour
                        ),
                    });
                }
                slow = below;
            }
        }
        let from = (i + 1).saturating_sub(target.burst_rounds as usize);
        let errors: u32 = counted[from..=i]
            .iter()
            .map(|r| errors_at.get(&(r.shoe, r.round)).copied().unwrap_or(0))
            .sum();
        let burst = errors >= target.burst_errors;
        if burst && !bursting {
            out.push(PaceAlert {
                kind: AlertKind::ErrorBurst,
                shoe: round.shoe,
                round: round.round,
                at: round.closed_at,
                dealer: dealer_of(round),
                measured: f64::from(errors),
                threshold: f64::from(target.burst_errors),
                message: format!(
                    "{errors} irregularities in the last {} rounds (an error burst is {} within {})",
                    i + 1 - from,
                    target.burst_errors,
                    target.burst_rounds
                ),
            });
        }
        bursting = burst;
    }
    Judged {
        alerts: out,
        slow,
        bursting,
    }
}

pub mod watch;

#[cfg(test)]
mod tests;
