//! One fault, one incident: what a game and the table find in one round is one irregularity,
//! its first finding opening it and the others added to it ([`Irregularity::absorb`]), output
//! when the round closes; what belongs to no round (the shoe's, the shuffler's, the burn's) is
//! output at once. Every irregularity cites the book's rule for its `[cite]` key. Here too: a
//! card the table gives no round, found as the game says (`RoundGame::stray_card`, its findings
//! the round closed last's or a round it begins carried over), and a finding the game withdraws.

use pitwatch_model::TableEvent;

use super::burn::BurnFinding;
use super::{Table, TableOutput};
use crate::irregularity::{CodeSet, Irregularity, IrregularityCode as Code};
use crate::seam::{Findings, RoundGame, Stray};
use crate::shuffler::ShufflerFinding;

impl<G: RoundGame> Table<G> {
    // ----- findings -----

    #[allow(clippy::too_many_arguments)]
    pub(super) fn irregularity(
        &self,
        code: Code,
        cite: &str,
        seq: u64,
        mut evidence: Vec<u64>,
        message: String,
        shoe: u32,
        round: Option<u32>,
        partial: bool,
    ) -> Irregularity {
        evidence.sort_unstable();
        evidence.dedup();
        Irregularity {
            code,
            severity: code.severity(),
            rule: self.rules.cite(cite).to_owned(),
            rule_book: self.rules.book_id.clone(),
            shoe,
            round,
            seq,
            evidence,
            message,
            partial,
            also: CodeSet::EMPTY,
        }
    }

    /// Flags what the shuffler watch found, at once.
    pub(super) fn flag_found(&mut self, seq: u64, found: ShufflerFinding) {
        let cite = found.code.as_str();
        self.flag_found_as(seq, found, cite);
    }

    /// Outputs a shuffler finding citing the book's `cite` key (`CODE/qualifier` falls back to
    /// the code's own citation).
    pub(super) fn flag_found_as(&mut self, seq: u64, found: ShufflerFinding, cite: &str) {
        let irregularity = self.irregularity(
            found.code,
            cite,
            seq,
            found.evidence,
            found.message,
            self.shoe_no,
            None,
            self.shoe.partial,
        );
        self.out.push_back(TableOutput::Irregularity(irregularity));
    }

    /// Outputs what the burn found, at once (the burn belongs to no round).
    pub(super) fn flag_burn(&mut self, seq: u64, found: Vec<BurnFinding>) {
        for (code, evidence, message) in found {
            let irregularity = self.irregularity(
                code,
                code.as_str(),
                seq,
                evidence,
                message,
                self.shoe_no,
                None,
                self.shoe.partial,
            );
            self.out.push_back(TableOutput::Irregularity(irregularity));
        }
    }

    pub(super) fn flag_now(&mut self, code: Code, cite: &str, seq: u64, message: String) {
        let irregularity = self.irregularity(
            code,
            cite,
            seq,
            vec![seq],
            message,
            self.shoe_no,
            None,
            self.shoe.partial,
        );
        self.out.push_back(TableOutput::Irregularity(irregularity));
    }

    /// A shoe-level finding: the round's, if one is being dealt and the game says a finding of
    /// `code` joins it ([`RoundGame::joins_round`]), else at once.
    pub(super) fn flag_shoe(&mut self, code: Code, cite: &'static str, seq: u64, message: String) {
        let dealing = self.round.is_some() && !self.game.is_complete();
        if dealing && self.game.joins_round(code) {
            self.found.flag_cited(code, cite, seq, vec![seq], message);
            self.take_found();
        } else {
            self.flag_now(code, cite, seq, message);
        }
    }

    /// A finding about a card: the round's if the card is in one, else at once.
    pub(super) fn flag(
        &mut self,
        in_round: bool,
        code: Code,
        cite: &'static str,
        seq: u64,
        message: String,
    ) {
        self.found.flag_cited(code, cite, seq, vec![seq], message);
        self.take_found_or_now(in_round);
    }

    pub(super) fn take_found_or_now(&mut self, in_round: bool) {
        self.take_found_in(in_round && self.round.is_some());
    }

    pub(super) fn take_found(&mut self) {
        self.take_found_in(self.round.is_some());
    }

    /// Moves the game's findings into the round's one irregularity, or out at once.
    pub(super) fn take_found_in(&mut self, in_round: bool) {
        let round = in_round.then(|| self.shoe.rounds + 1);
        self.take_found_for(round);
    }

    /// Withdraws the round in progress's finding of `code` as the game asks, if it is the
    /// round's only finding so far, and tells the game.
    pub(super) fn withdraw(&mut self, code: Code) {
        let round = Some(self.shoe.rounds + 1);
        let only = self.pending.as_ref().is_some_and(|p| {
            p.shoe == self.shoe_no && p.round == round && p.code == code && p.also.is_empty()
        });
        if only && !self.awaiting_result {
            self.pending = None;
            self.game.withdrawn(code);
        }
    }

    /// A card given no round, found as the game says ([`RoundGame::stray_card`]).
    pub(super) fn stray_card(&mut self, event: &TableEvent) {
        let in_round = self.round.is_some();
        let mut found = Findings::default();
        let stray = self.game.stray_card(event, in_round, &mut found);
        self.found.0.append(&mut found.0);
        match stray {
            Stray::Carried if !in_round && self.shoe.rounds > 0 => {
                // The card begins the next round, carried over from the round closed last, whose
                // irregularity it joins and leaves waiting.
                self.take_found_for_last();
                let number = self.shoe.rounds + 1;
                self.round = Some(number);
                self.carried = true;
                self.game.start_round(self.shoe_no, number, event.seq);
            }
            Stray::LastRound | Stray::Carried if !in_round && self.shoe.rounds > 0 => {
                self.take_found_for_last();
            }
            _ => self.take_found_or_now(in_round),
        }
    }

    /// What was found between rounds is the round closed last's: it joins that round's
    /// irregularity if that still waits, else opens one of its own, output at the next boundary.
    pub(super) fn take_found_for_last(&mut self) {
        let last = self.shoe.rounds;
        if self.pending.as_ref().is_some_and(|p| p.round != Some(last)) {
            self.flush_pending();
        }
        self.take_found_for(Some(last));
    }

    /// The round in progress, if the game says `by` shows it was no round
    /// ([`RoundGame::sets_aside`]), is dropped: its cards were the round closed last's, set aside.
    #[inline(always)]
    pub(super) fn set_aside(&mut self, seq: u64, by: crate::seam::Boundary) {
        // Asked at every "no more bets" and result, mostly with no round in progress: only the
        // question is inline.
        if self.round.is_some() && !self.joined && self.shoe.rounds > 0 {
            self.set_aside_now(seq, by);
        }
    }

    #[inline(never)]
    fn set_aside_now(&mut self, seq: u64, by: crate::seam::Boundary) {
        let mut found = Findings::default();
        let ended = self.shoe.ended.is_some();
        if self.game.sets_aside(seq, by, ended, &mut found) {
            self.round = None;
            self.carried = false;
        } else if !found.is_empty() {
            // Kept, its first card now read as carried over from the round closed last.
            self.carried = true;
        }
        if !found.is_empty() {
            self.found.0.append(&mut found.0);
            self.take_found_for_last();
        }
    }

    /// Forgets the round in progress, which proved not to be a round (its cards were the
    /// burn's): what was found in it so far has no round, and goes out now.
    pub(super) fn drop_round(&mut self) {
        let Some(number) = self.round.take() else {
            return;
        };
        self.game.discard_round();
        self.joined = false;
        self.carried = false;
        let shoe = self.shoe_no;
        if let Some(p) = self
            .pending
            .as_mut()
            .filter(|p| p.shoe == shoe && p.round == Some(number))
        {
            p.round = None;
        }
        self.flush_pending();
    }

    /// Moves the game's findings into the one irregularity of `round` (the round in progress,
    /// or the round closed last, whose irregularity may wait for its result), or out at once
    /// (`None`).
    #[inline]
    pub(super) fn take_found_for(&mut self, round: Option<u32>) {
        // Asked after every card, and almost never with anything found: the check stays inline
        // and the work out of line.
        if !self.found.is_empty() {
            self.take_found_now(round);
        }
    }

    #[inline(never)]
    fn take_found_now(&mut self, round: Option<u32>) {
        let found = std::mem::take(&mut self.found.0);
        let in_round = round.is_some();
        if in_round && self.carried && self.pending.as_ref().is_some_and(|p| p.round != round) {
            // The round before a round begun by a card carried over: its irregularity goes out
            // before this round's opens.
            self.flush_pending();
        }
        for f in found {
            let irregularity = self.irregularity(
                f.code,
                f.cite,
                f.seq,
                f.evidence,
                f.message,
                self.shoe_no,
                round,
                self.shoe.partial,
            );
            if in_round {
                match &mut self.pending {
                    Some(pending) => pending.absorb(irregularity),
                    None => self.pending = Some(irregularity),
                }
            } else {
                self.out.push_back(TableOutput::Irregularity(irregularity));
            }
        }
    }
}
