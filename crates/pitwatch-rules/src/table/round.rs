//! A round's start and close on the shared tracker: an event of a round given to the game
//! ([`crate::RoundGame`]), the round it begins or joins, a declared result and its check, the card
//! held until the next event shows its round, and the close that outputs the round's record after
//! its irregularity. Split from `mod.rs` by concern (the table's state and dispatch stay there).

use pitwatch_model::{EventKind, TableEvent};

use super::{Table, TableOutput};
use crate::seam::{Boundary, Findings, ResultTaken, RoundGame};

impl<G: RoundGame> Table<G> {
    pub(super) fn on_round_event(&mut self, event: &TableEvent) {
        if !self.game.is_round_event(&event.kind) {
            return;
        }
        self.enter_round(event);
        if self.round.is_some() {
            self.game_event(event);
        }
    }

    /// Gives the round in progress one of its events: what the game finds goes into the round's
    /// irregularity, or, in a round joined part-way, nowhere (it may be what was missed).
    #[inline(always)]
    pub(super) fn game_event(&mut self, event: &TableEvent) {
        if self.joined {
            self.game.handle_event(event, &mut Findings::default());
        } else {
            self.game.handle_event(event, &mut self.found);
            if let Some(code) = self.found.1.take() {
                self.withdraw(code);
            }
            self.take_found();
        }
        if self.game.closes_when_complete() && self.game.is_complete() {
            // The game's round is over with its last card (one joined part-way too): recorded
            // now, not at the next boundary.
            self.close_round(event.seq, Boundary::NextRound);
        }
    }

    /// Starts a round for `event` if it begins one (closing the round before it); whether it did.
    /// After an interruption, the first event of a round joins the round it belongs to (it began
    /// while nobody listened), and a round joined so gives way to the next one that begins.
    #[inline(always)]
    pub(super) fn enter_round(&mut self, event: &TableEvent) -> bool {
        // Asked of every card: joining a round after an interruption is rare, and out of line;
        // beginning one is a card in five or so, inline.
        if self.joining {
            return self.join_round(event.seq) || self.begin_round(event, false);
        }
        self.game.begins_round(&event.kind) && self.begin_round(event, true)
    }

    /// The first event of a round after an interruption: joins the round it belongs to, if none
    /// is in progress (whether it did).
    #[inline(never)]
    fn join_round(&mut self, seq: u64) -> bool {
        self.joining = false;
        if self.round.is_some() {
            return false;
        }
        self.flush_pending();
        let number = self.shoe.rounds + 1;
        self.round = Some(number);
        self.joined = true;
        self.game.join_round(self.shoe_no, number, seq);
        true
    }

    /// Starts the round `event` begins (`begins`: the game said so already; else it is asked
    /// here), closing the round before it; whether it did.
    #[inline]
    fn begin_round(&mut self, event: &TableEvent, begins: bool) -> bool {
        if !begins && !self.game.begins_round(&event.kind) {
            return false;
        }
        if self.round.is_some() {
            self.close_round(event.seq, Boundary::NextRound);
        }
        self.flush_pending();
        if let Some(declared) = self.last_result {
            self.results_run = if declared {
                self.results_run.saturating_add(1)
            } else {
                0
            };
        }
        let number = self.shoe.rounds + 1;
        self.round = Some(number);
        self.game.start_round(self.shoe_no, number, event.seq);
        true
    }

    /// A declared result: what the game says it does to the round in progress
    /// ([`RoundGame::result_declared`]), then checked against the round closed last.
    pub(super) fn on_result(&mut self, event: &TableEvent) {
        let seq = event.seq;
        if self.last_result == Some(false) {
            // The result of the round closed last: the cards since may prove no round.
            self.set_aside(seq, Boundary::Result);
        }
        // A round that holds only a card carried over is not the round a result settles.
        let in_round = self.round.is_some() && !self.game.carried_only();
        let taken = self.game.result_declared(event, in_round);
        if taken == ResultTaken::Ignored {
            return;
        }
        self.ensure_shoe(seq);
        if in_round {
            match taken {
                ResultTaken::Holds => {
                    self.result_held = Some(event.clone());
                    return;
                }
                ResultTaken::Voids => self.close_round_judged(seq, Boundary::Result, false),
                _ => {
                    // Closed by its result: judged on the cards it got, with the result, as one
                    // irregularity output after the round.
                    self.result_held = Some(event.clone());
                    self.close_round(seq, Boundary::Result);
                    return;
                }
            }
        }
        self.result_for_last(event);
    }

    /// The round held open by a declared result is closed at that result.
    pub(super) fn end_result_hold(&mut self) {
        if let Some(seq) = self.result_held.as_ref().map(|e| e.seq) {
            self.close_round(seq, Boundary::Result);
        }
        self.result_held = None;
    }

    /// Checks a declared result against the round closed last, once, and outputs that round's
    /// irregularity.
    pub(super) fn result_for_last(&mut self, event: &TableEvent) {
        if self.last_result == Some(false) {
            self.last_result = Some(true);
            // Found in place (the game adds after what is there); a withdrawal is no check's.
            self.game.check_result(event, &mut self.found);
            self.found.1 = None;
            self.take_found_for(Some(self.shoe.rounds));
        }
        self.flush_pending();
    }

    /// Outputs the irregularity held open until now: a round's cut off by an interruption, or
    /// one waiting for its round's result.
    pub(super) fn flush_pending(&mut self) {
        if let Some(irregularity) = self.pending.take() {
            self.awaiting_result = false;
            if self.unaligned && irregularity.round.is_some() {
                self.unaligned_held.push(irregularity);
            } else {
                self.out.push_back(TableOutput::Irregularity(irregularity));
            }
        }
    }

    /// Gives the card held after a round looked over ([`Held`]) its round, now that `next` (or
    /// the end of the stream, `None`) shows which: "no more bets", a shuffle, replaced cards and
    /// what the game reads so ([`RoundGame::opened_by`]) show it was the round's own stray card,
    /// found there, and the round is not renumbered; the end of the stream, a card exposed and
    /// what the game reads so show it began the next round, as it would have at once. Events
    /// beside the deal (the cutting card, a device error, the shuffler's) leave it held.
    #[inline(always)]
    pub(super) fn resolve_held(&mut self, next: Option<&TableEvent>) {
        // Asked at every event, and a card is rarely held: only the question is inline.
        if self.held.is_some() {
            self.resolve_held_now(next);
        }
    }

    #[inline(never)]
    fn resolve_held_now(&mut self, next: Option<&TableEvent>) {
        let Some(held) = self.held.take() else {
            return;
        };
        let opened = match next.map(|e| &e.kind) {
            None | Some(EventKind::CardExposed { .. }) => true,
            Some(EventKind::BetsClosed | EventKind::Shuffled { .. } | EventKind::CardsReplaced) => {
                false
            }
            Some(
                kind @ (EventKind::CardDrawn {
                    target: Some(_), ..
                }
                | EventKind::Decision { .. }),
            ) if self.game.is_round_event(kind) => self.game.opened_by(&held.event.kind, kind),
            Some(_) => {
                self.held = Some(held);
                return;
            }
        };
        if let Some(cut) = held.cut {
            if opened {
                // The cutting card came out during the round the held card began (7.1(c)).
                self.shoe.cut_in_next = true;
            } else {
                // It came out after the round in progress had all its cards (7.1(b)).
                self.shoe.ended = Some(cut);
                self.shoe.last_open = true;
            }
        }
        let card = super::shoe::card_of(&held.event);
        self.place_card(&held.event, card, true, held.fits, opened);
    }

    /// Closes the round in progress, if any, and outputs its irregularity then its record.
    #[inline(always)]
    pub(super) fn close_round(&mut self, seq: u64, by: Boundary) {
        if self.round.is_none() {
            // Asked at every "no more bets", mostly with no round in progress (a game whose round
            // closes with its last card): what `close_round_judged` does then, inline.
            self.result_held = None;
            if !(self.awaiting_result && by == Boundary::Reshuffle) {
                self.flush_pending();
            }
            return;
        }
        self.close_round_judged(seq, by, true);
    }

    /// Closes the round in progress, judging what its end shows if `judged` (and the round was
    /// not joined part-way).
    pub(super) fn close_round_judged(&mut self, seq: u64, by: Boundary, judged: bool) {
        let cut_off = by == Boundary::End;
        if by == Boundary::Reshuffle && self.shoe.ended.is_some() {
            // After the last coup the round in progress may prove no round.
            self.set_aside(seq, by);
        }
        if self.round.take().is_none() {
            // What a round cut off by an interruption had found goes out at the round's boundary;
            // what waits for a round's result, at any but replaced cards (it goes out at the next
            // round, as the engine outputs it; a new shoe outputs it as the old one ends).
            self.result_held = None;
            if !(self.awaiting_result && by == Boundary::Reshuffle) {
                self.flush_pending();
            }
            return;
        }
        // (A cut-off round, `judged` false, was begun all the same: it is recorded, unfinished.)
        let ends = by == Boundary::Reshuffle || by == Boundary::End && judged;
        if ends && self.game.carried_only() {
            // A card carried over does not survive a reshuffle or replacement (nor the end of
            // the record): no round.
            self.game.discard_round();
            self.joined = false;
            self.carried = false;
            return;
        }
        // A round joined part-way is closed as cut off, and what its end shows is not judged.
        let joined = std::mem::take(&mut self.joined);
        let record = if joined || !judged {
            self.game
                .close_round_by(seq, true, by, &mut Findings::default())
        } else {
            self.game.close_round_by(seq, cut_off, by, &mut self.found)
        };
        self.take_found_in(true);
        self.carried = false;
        self.shoe.rounds += 1;
        // The declared result is taken at the end, only when one is held: it is a whole event,
        // and most rounds close without one.
        let result_held = self.result_held.is_some();
        if !result_held && !self.game.awaits_result(self.results_run) {
            self.flush_pending();
        }
        self.awaiting_result = self.pending.is_some();
        self.out.push_back(TableOutput::Round(record));
        // A round seen only in part has no result to check.
        self.last_result = (!joined).then_some(false);
        self.shoe.last_open = false;
        if let Some(last) = self.shoe.last_round {
            // The game's end of shoe: rounds went on after the cutting card, up to its last.
            if self.shoe.rounds >= last && self.shoe.ended.is_none() {
                self.shoe.ended = Some(seq);
            }
        } else if self.shoe.cutting_card_out && self.shoe.ended.is_none() {
            if self.shoe.cut_in_next {
                // The cutting card came out in the round after this one: that one is the last.
                self.shoe.cut_in_next = false;
            } else {
                // 7.1(c): the round in which the cutting card appeared was the last.
                self.shoe.ended = Some(seq);
            }
        }
        if result_held {
            if let Some(result) = self.result_held.take() {
                self.result_for_last(&result);
            }
        }
    }
}
