//! A declared result on the shared tracker (`result_declared`, 10.1): it closes the round in
//! progress, or holds it open for a third card still due (a device that places cards says where
//! that card goes; in a plain stream with "no more bets", every card before the next one is the
//! round's), and is checked against the round it settles (`RESULT_MISMATCH`), as the engine
//! checks it.

use pitwatch_model::{EventKind, Outcome, TableEvent, Target};
use pitwatch_rules::{Findings, IrregularityCode as Code, ResultTaken};

use super::{deal, BaccaratRounds, Live};
use crate::drawing::NextCard;
use crate::record::is_boundary;

impl Live {
    /// A card was placed at `seq`: one after the result that holds the round open is kept for
    /// the evidence.
    pub(super) fn placed_late(&mut self, seq: u64) {
        if self.held.is_some() {
            if let Some(slot) = self.late.get_mut(usize::from(self.late_len)) {
                *slot = seq;
                self.late_len += 1;
            }
        }
    }
}

impl BaccaratRounds {
    /// What a declared result does to the round in progress (`in_round`).
    pub(super) fn on_result(&mut self, event: &TableEvent, in_round: bool) -> ResultTaken {
        let EventKind::ResultDeclared { outcome, .. } = event.kind else {
            return ResultTaken::Ignored;
        };
        if self.round.as_ref().is_some_and(|r| r.confirming) && in_round {
            // The result settles a tentative round complete by the rules: confirmed, unless it
            // is the result of the cards after the card between rounds (that card set aside).
            if self.result_says_set_aside(outcome) {
                self.redeal();
            } else if let Some(r) = self.round.as_mut() {
                r.tentative = false;
                r.confirming = false;
            }
        }
        let (targets, bets) = (self.targets_reported, self.bets_reported);
        let Some(round) = self.round.as_mut().filter(|_| in_round) else {
            return ResultTaken::Settles;
        };
        if outcome == Outcome::Void {
            // A forced quit: the round is void, nothing is missing from it.
            return ResultTaken::Voids;
        }
        if matches!(round.next, NextCard::To(_, 3)) && (targets || bets) {
            // Declared while a third card is still due: the card may yet come.
            round.held = Some(event.seq);
            return ResultTaken::Holds;
        }
        ResultTaken::Settles
    }

    /// Whether the round held open by an early result still waits through `event`: a card it
    /// is due, or an event beside the deal (the next round's boundary ends the wait).
    pub(super) fn still_due(&self, event: &EventKind) -> bool {
        match event {
            e if is_boundary(e) => false,
            EventKind::CardDrawn { target, index, .. } => self.is_due(*target, *index),
            _ => true,
        }
    }

    /// Whether a card is the one the held round is waiting for.
    fn is_due(&self, target: Option<Target>, index: Option<u8>) -> bool {
        let side = match target {
            // A plain shoe holds a round open only until "no more bets", so any card is due.
            None => return !self.targets_reported,
            Some(Target::Player | Target::Banker) => deal::side(target),
            Some(_) => return false,
        };
        match self.round.as_ref().map(|r| r.next) {
            Some(NextCard::To(s, i)) => side == Some(s) && index.is_none_or(|x| x == i),
            _ => false,
        }
    }

    /// Checks a declared result against the round closed last (once: the table asks once a
    /// round), and flags a round completed after its result was declared (10.1).
    pub(super) fn judge_result(&mut self, event: &TableEvent, found: &mut Findings) {
        let early = self.early.take();
        let EventKind::ResultDeclared {
            outcome,
            player_pair,
            banker_pair,
        } = event.kind
        else {
            return;
        };
        let Some(r) = &self.last else {
            return;
        };
        if outcome == Outcome::Void {
            return;
        }
        let seq = event.seq;
        // Most results agree with the cards: asked first, and the words of what differs found
        // only when something does.
        let differs = |declared: Option<bool>, actual: Option<bool>| matches!((declared, actual), (Some(d), Some(a)) if d != a);
        let agrees = r.outcome.is_none_or(|actual| actual == outcome)
            && !differs(player_pair, r.player_pair)
            && !differs(banker_pair, r.banker_pair);
        let wrong = if agrees {
            Vec::new()
        } else {
            r.result_mismatches(outcome, player_pair, banker_pair)
        };
        if !wrong.is_empty() {
            found.flag(
                Code::ResultMismatch,
                seq,
                vec![r.first_seq, r.last_seq, seq],
                r.result_mismatch_message(&wrong),
            );
        }
        let Some((declared, late, late_len)) = early.filter(|(s, ..)| *s == seq) else {
            return;
        };
        let late = late.get(..usize::from(late_len)).unwrap_or_default();
        let mut evidence = vec![r.first_seq, declared];
        evidence.extend(late);
        found.flag(
            Code::ResultMismatch,
            r.last_seq,
            evidence,
            r.early_result_message(outcome, late.len()),
        );
    }
}
