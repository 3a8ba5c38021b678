//! The pace alerts of one table followed live (issue 30): the same alerts as
//! [`super::alerts`] over the whole record, raised as the table's steps arrive, at a cost that
//! does not grow with the record.
//!
//! The watch keeps only the steps of the table's last few rounds (enough for the pace window and
//! the burst, and the round before each, whose judgement decides whether a condition is new) and
//! the dealer signed in before them. When a round closes, the round before it is **settled** (a
//! result declared after its last card, and what that result was found to break, came before
//! the new round's first card), and the watch judges those few rounds exactly as the whole
//! record is judged, keeping the alerts raised at the newly settled round. So an alert comes
//! one round after the round it is raised at (the one the record names), and
//! [`TargetWatch::finish`] settles the last round at the end of the steps; a property test
//! checks that every alert is the whole record's.
//!
//! Besides the alerts, the watch says which conditions hold now ([`TargetWatch::active`]): the
//! alert that began each, until the pace recovers or the burst has passed.

use pitwatch_model::{EventKind, TableEvent};
use pitwatch_rules::TableOutput;

use super::{judge, AlertKind, PaceAlert, PaceTarget};
use crate::dealers::Attribution;
use crate::pace::Pace;
use crate::GameOutput;

/// Steps held at most while no round closes (a table left with its device chattering): past
/// this the oldest half is let go, and judgement starts afresh from what is left.
const MOST_STEPS: usize = 20_000;

/// One table's pace alerts, followed step by step.
#[derive(Debug, Clone)]
pub struct TargetWatch {
    target: PaceTarget,
    /// The dealer signed in just before the first step held.
    dealer_before: Option<String>,
    /// The steps of the last rounds, in order.
    steps: Vec<(TableEvent, Vec<GameOutput>)>,
    /// The last round settled and judged: (shoe, round).
    judged: Option<(u32, u32)>,
    slow: Option<PaceAlert>,
    burst: Option<PaceAlert>,
}

impl TargetWatch {
    /// A watch of a table held to `target`, from the table's first step.
    pub fn new(target: PaceTarget) -> TargetWatch {
        TargetWatch {
            target,
            dealer_before: None,
            steps: Vec::new(),
            judged: None,
            slow: None,
            burst: None,
        }
    }

    /// What the table is held to.
    pub fn target(&self) -> &PaceTarget {
        &self.target
    }

    /// Takes in one step (an event with what the table's engine output on it); returns the
    /// alerts raised at the round it settles, if it closes a round.
    pub fn step(&mut self, event: &TableEvent, outputs: &[GameOutput]) -> Vec<PaceAlert> {
        self.steps.push((event.clone(), outputs.to_vec()));
        if outputs.iter().any(|o| matches!(o, TableOutput::Round(_))) {
            return self.settle(false);
        }
        if self.steps.len() > MOST_STEPS {
            let cut = self.steps.len() / 2;
            self.dealer_before = dealer_after(self.dealer_before.take(), &self.steps[..cut]);
            self.steps.drain(..cut);
        }
        Vec::new()
    }

    /// The end of the steps: the last round is settled too. Returns the alerts raised at it.
    pub fn finish(&mut self) -> Vec<PaceAlert> {
        self.settle(true)
    }

    /// The alerts whose condition holds at the last round settled: the one that began each.
    pub fn active(&self) -> Vec<&PaceAlert> {
        self.slow.iter().chain(self.burst.iter()).collect()
    }

    /// Judges the rounds held, the last one too when `all`, and keeps the alerts raised after
    /// the round judged before.
    fn settle(&mut self, all: bool) -> Vec<PaceAlert> {
        let first_seq = self.steps.first().map_or(0, |(e, _)| e.seq);
        let signed_in = self.dealer_before.clone().map(|dealer| {
            TableEvent::new(
                first_seq.saturating_sub(1),
                EventKind::DealerSignedIn { dealer },
            )
        });
        let steps = || {
            signed_in
                .iter()
                .map(|e| (e, &[][..]))
                .chain(self.steps.iter().map(|(e, o)| (e, o.as_slice())))
        };
        let mut pace = Pace::of(steps());
        let attribution = Attribution::of(steps());
        if !all {
            // The round just closed is not settled: its result may yet come.
            pace.rounds.pop();
        }
        let Some(last) = pace.rounds.last().map(|r| (r.shoe, r.round)) else {
            return Vec::new();
        };
        if self.judged == Some(last) {
            return Vec::new();
        }
        let judged = judge(&pace, &attribution, &self.target);
        let position = |at: (u32, u32)| pace.rounds.iter().position(|r| (r.shoe, r.round) == at);
        // The rounds after the one judged before are new; a round judged before and let go
        // since leaves only the last.
        let from = match self.judged {
            None => 0,
            Some(before) => position(before).map_or(pace.rounds.len() - 1, |i| i + 1),
        };
        let new: Vec<PaceAlert> = judged
            .alerts
            .into_iter()
            .filter(|a| position((a.shoe, a.round)).is_some_and(|i| i >= from))
            .collect();
        for alert in &new {
            match alert.kind {
                AlertKind::PaceBelowTarget => self.slow = Some(alert.clone()),
                AlertKind::ErrorBurst => self.burst = Some(alert.clone()),
            }
        }
        if !judged.slow {
            self.slow = None;
        }
        if !judged.bursting {
            self.burst = None;
        }
        self.judged = Some(last);
        self.let_go(&attribution);
        new
    }

    /// Lets go of the steps before the rounds the next judgement needs: the window or the
    /// burst (whichever is longer), the round before it, and the round not yet settled, none a
    /// device fault interrupted (those count in neither alert).
    fn let_go(&mut self, attribution: &Attribution) {
        let keep = self.target.window_rounds.max(self.target.burst_rounds) as usize + 2;
        let mut counted = 0;
        let from = attribution.rounds.iter().rev().find(|r| {
            if !r.device_fault {
                counted += 1;
            }
            counted == keep && !r.device_fault
        });
        let Some(from) = from else {
            return;
        };
        let cut = self.steps.partition_point(|(e, _)| e.seq < from.first_seq);
        self.dealer_before = from.dealer.clone();
        self.steps.drain(..cut);
    }
}

/// The dealer signed in after `steps`, `before` having been signed in before them (as
/// [`Attribution`] reads sign-ins and sign-outs).
fn dealer_after(before: Option<String>, steps: &[(TableEvent, Vec<GameOutput>)]) -> Option<String> {
    steps
        .iter()
        .fold(before, |now, (event, _)| match &event.kind {
            EventKind::DealerSignedIn { dealer } => Some(dealer.clone()),
            EventKind::DealerSignedOut { dealer } if now.as_deref() == Some(dealer.as_str()) => {
                None
            }
            _ => now,
        })
}

#[cfg(test)]
mod tests;
