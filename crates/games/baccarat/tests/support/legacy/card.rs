//! Cards and rounds: where each card goes, the first card of a shoe, stray, excess and unreadable cards, and the start of a round.

use super::*;

impl Engine {
    // ----- cards and rounds -----

    /// Whether a retransmitted report repeats a card already counted: it names a position
    /// (target and index) that already holds that very card, in the round being dealt or the one
    /// just completed, or it repeats the last burn card's target, index and card. A plain report
    /// names no position, so nothing tells it from the next card: the driver drops repeats of
    /// those (`docs/events.md`).
    pub(super) fn already_counted(
        &self,
        card: Option<Card>,
        target: Option<Target>,
        index: Option<u8>,
    ) -> bool {
        if target.is_none() {
            return false;
        }
        if self.last_card == Some((card, target, index)) {
            return true;
        }
        let side = match target {
            Some(Target::Player) => Side::Player,
            Some(Target::Banker) => Side::Banker,
            _ => return false,
        };
        let Some(position) = index.filter(|i| *i >= 1).map(|i| usize::from(i) - 1) else {
            return false;
        };
        let hands = if self.round.active {
            Some(self.round.hands)
        } else {
            self.prev.filter(|p| p.open).map(|p| BySide {
                player: p.record.player,
                banker: p.record.banker,
            })
        };
        hands.is_some_and(|h| h.get(side).card(position) == Some(card))
    }

    /// Whether a card is the one a round held open by an early result is waiting for.
    pub(super) fn is_due(&self, target: Option<Target>, index: Option<u8>) -> bool {
        let side = match target {
            // A plain shoe holds a round open only until "no more bets", so any card is due.
            None => return !self.targets_reported,
            Some(Target::Player) => Side::Player,
            Some(Target::Banker) => Side::Banker,
            Some(_) => return false,
        };
        let hands = &self.round.hands;
        match self.drawing.next_card(&hands.player, &hands.banker) {
            NextCard::To(s, i) => s == side && index.is_none_or(|x| x == i),
            NextCard::Unknown(_) | NextCard::Complete => false,
        }
    }

    pub(super) fn on_card(
        &mut self,
        seq: u64,
        card: Option<Card>,
        target: Option<Target>,
        index: Option<u8>,
        face_up: Option<bool>,
        retransmit: bool,
    ) {
        if retransmit && self.already_counted(card, target, index) {
            // The device sent the same report again (docs/events.md, "retransmit"): the card was
            // counted when it first arrived.
            return;
        }
        if !self.targets_reported
            && matches!(
                target,
                Some(Target::Player | Target::Banker | Target::First | Target::Burn)
            )
        {
            self.targets_reported = true;
        }
        if self.round.active && (self.round.confirming || self.round.held.is_some()) {
            self.settle_open_round(target, index);
        }
        let first_of_shoe = target == Some(Target::First)
            && !(self.shoe_open && self.shoe.burn == Burn::AwaitFirst);
        if first_of_shoe {
            self.first_card_of_a_shoe(seq);
        }
        self.ensure_shoe(seq);
        self.shoe.cards += 1;
        if matches!(target, Some(Target::First | Target::Burn)) {
            // A Player or Banker card's position is in its round; a burn card's only here.
            self.last_card = Some((card, target, index));
        }
        if self.unshuffled.is_some() {
            self.flag_unshuffled(seq);
        }
        if target.is_none() && self.targets_reported {
            self.stray_card(seq, card);
            return;
        }
        if self.burn_card(seq, card, target, face_up) {
            self.see(seq, card, None);
            return;
        }
        let side = match target {
            None => None,
            Some(Target::Player) => Some(Side::Player),
            Some(Target::Banker) => Some(Side::Banker),
            Some(Target::Burn | Target::First) => {
                // A burn card outside the burn (or a first card under a book without one):
                // counted, dealt to no hand.
                self.see(seq, card, None);
                return;
            }
            Some(other) => {
                let round = self.current_round();
                self.see(seq, card, round);
                self.flag(
                    Code::DealOutOfOrder,
                    round,
                    seq,
                    &[seq],
                    format!(
                        "A card was reported to {other}, which Baccarat does not have; it is \
                         left out of the round. Check the device's configuration."
                    ),
                );
                return;
            }
        };
        if !self.shoe.synced {
            // Joined part-way with a device that reports targets: wait for a round's first card.
            // A plain shoe cannot tell, so it starts at once (its first round is not judged).
            // After an interruption a plain shoe that can wait for "no more bets" does.
            let plain = side.is_none() && !self.shoe.await_bets;
            if plain || side == Some(Side::Player) && index.is_none_or(|i| i == 1) {
                self.shoe.synced = true;
                if plain && self.shoe.interrupted {
                    self.shoe.resync_round = self.shoe.rounds + 1;
                }
            } else {
                self.see(seq, card, None);
                return;
            }
        }
        let round = match side {
            Some(side) => self.deal_targeted(seq, card, side, index, face_up, retransmit),
            None => self.deal_plain(seq, card, face_up),
        };
        self.see(seq, card, round);
        self.complete_if_done();
    }

    /// A round left open for a card that might still belong to it meets the next card: a
    /// tentative round complete by the rules proves one card too long (or a new shoe begins), a
    /// round held by an early result gets its due card or is closed without it.
    #[cold]
    #[inline(never)]
    pub(super) fn settle_open_round(&mut self, target: Option<Target>, index: Option<u8>) {
        if self.round.confirming {
            if target == Some(Target::First) {
                self.confirm_round();
            } else {
                // One card more than a round that began with the card between rounds takes:
                // that card was set aside, and the round is the cards after it.
                self.redeal_tentative();
            }
        } else if self.round.held.is_some() && !self.is_due(target, index) {
            self.end_hold();
        }
    }

    /// A device that reports the first card announces a new shoe by itself (the Angel Eye sends no
    /// shuffle): start one, but if the stream does report shuffles, this shoe was not shuffled.
    #[cold]
    #[inline(never)]
    pub(super) fn first_card_of_a_shoe(&mut self, seq: u64) {
        // After an interruption the shuffle may have happened while nobody was listening.
        let interrupted = self.shoe_open && self.shoe.interrupted;
        if self.round.active {
            self.close_round(seq, Boundary::Reshuffle);
        }
        // A shoe just shuffled with nothing drawn yet is this shoe, not a previous one.
        let fresh = self.shoe_open && self.shoe.cards == 0 && self.unshuffled.is_none();
        let composition = if fresh {
            self.shoe.composition
        } else {
            // A shoe that reports no decks holds what its shuffler shuffled for it, when known.
            let book = self.book.composition();
            match self.shuffler.pending.as_ref().and_then(|held| held.decks) {
                Some(decks) if decks > 0 => ShoeComposition::new(decks, book.kind),
                _ => book,
            }
        };
        let shuffler = (fresh && self.shoe.continuous).then_some(ShufflerKind::Continuous);
        self.start_shoe(seq, composition, shuffler, false);
        if fresh {
            return;
        }
        // The shoe reports no shuffle of its own: it was loaded from the shuffler's last (used up
        // here whatever else is said, so the state after this card does not depend on it).
        self.judge_steps(seq, true);
        let loaded = self.shuffler.loaded(seq, None, None);
        if interrupted {
            // The shuffle may have happened while nobody was listening.
        } else if self.shuffles_reported || self.unshuffled.is_some() {
            self.unshuffled = None;
            self.flag(
                Code::NotShuffled,
                None,
                seq,
                &[seq],
                "A new shoe began (first card of the burn) with no shuffle since the last \
                 shoe. The cards must be shuffled and cut before play."
                    .to_owned(),
            );
        } else if let Some(found) = loaded {
            self.flag(found.code, None, seq, &found.evidence, found.message);
        }
    }

    /// Cards dealt while the cards must first be shuffled.
    #[cold]
    #[inline(never)]
    pub(super) fn flag_unshuffled(&mut self, seq: u64) {
        let Some((why, since)) = self.unshuffled.take() else {
            return;
        };
        let message = match why {
            Unshuffled::Replaced => {
                "Cards were dealt from replaced cards that were not shuffled and cut (7.10), \
                 nor accepted as pre-shuffled. Stop: the new cards must be checked, shuffled \
                 and cut."
            }
            Unshuffled::Exposed => {
                "Cards were dealt after a card was exposed before play, without a new \
                 shuffle. This is a misdeal: reshuffle and cut."
            }
        };
        self.flag(
            Code::NotShuffled,
            self.current_round(),
            seq,
            &[since, seq],
            message.to_owned(),
        );
    }

    /// A device that reports where every card goes reported this one to no hand (an Angel Eye
    /// card drawn outside a game): it left the shoe, but it starts no round.
    #[cold]
    #[inline(never)]
    pub(super) fn stray_card(&mut self, seq: u64, card: Option<Card>) {
        let round = self.current_round();
        self.see(seq, card, round);
        self.unplaceable(
            seq,
            card,
            round,
            "to no hand, by a device that reports where every card goes".to_owned(),
        );
    }

    /// Counts a card against the shoe and flags excess and unreadable cards.
    #[inline(always)]
    pub(super) fn see(&mut self, seq: u64, card: Option<Card>, round: Option<u32>) {
        match card {
            Some(card) => {
                if !self.shoe.counter.see(card) {
                    self.flag_excess(seq, card, round);
                }
            }
            None => self.flag_unreadable(seq, round),
        }
    }

    #[cold]
    #[inline(never)]
    pub(super) fn flag_excess(&mut self, seq: u64, card: Card, round: Option<u32>) {
        let copies = self.shoe.counter.seen(card);
        let holds = self.shoe.composition.copies_of(card);
        self.flag(
            Code::ExcessCard,
            round,
            seq,
            &[seq],
            format!(
                "{card} is copy {copies} of a card the shoe holds {holds} times: a foreign or \
                 duplicate card. Stop play, remove it and check the cards."
            ),
        );
    }

    #[cold]
    #[inline(never)]
    pub(super) fn flag_unreadable(&mut self, seq: u64, round: Option<u32>) {
        self.flag(
            Code::UnreadableCard,
            round,
            seq,
            &[seq],
            "The device could not read a card. Read it at the table and record it; the round's \
             result is unknown to the monitor until then."
                .to_owned(),
        );
    }

    /// Flags a card the engine cannot place in any hand (reported `what`). It is counted against
    /// the shoe, and no round is started for it.
    #[cold]
    #[inline(never)]
    pub(super) fn unplaceable(
        &mut self,
        seq: u64,
        card: Option<Card>,
        round: Option<u32>,
        what: String,
    ) {
        let shown = card.map_or("An unreadable card".to_owned(), |c| format!("Card {c}"));
        self.flag(
            Code::DealOutOfOrder,
            round,
            seq,
            &[seq],
            format!(
                "{shown} was reported {what}. It left the shoe but belongs to no hand: it is not \
                 counted in any round and starts none. Find out where it went (8.4); if a round \
                 cannot be reconstructed, it is a misdeal."
            ),
        );
    }

    /// Whether the stream declares every round's result (the last rounds' results all came
    /// before the next round began).
    pub(super) fn results_declared(&self) -> bool {
        self.results_run >= 2
    }

    pub(super) fn current_round(&self) -> Option<u32> {
        self.round.active.then_some(self.round.number)
    }

    /// Starts the next round. A round started by a card carried over under 12.1(b) leaves the
    /// previous round's irregularity open (the card belongs to its settlement); any other settles
    /// it.
    pub(super) fn start_round(&mut self, seq: u64, carried: bool) {
        if !carried {
            self.settle();
            if let Some(prev) = self.prev {
                self.results_run = if prev.result_checked {
                    self.results_run.saturating_add(1)
                } else {
                    0
                };
            }
        }
        self.shoe.rounds += 1;
        self.round = Round {
            active: true,
            number: self.shoe.rounds,
            first_seq: seq,
            last_seq: seq,
            carried,
            ..Round::IDLE
        };
        if self.shoe.continuous {
            // Discards go back into a continuous shuffler, so copies are only countable within a
            // round.
            self.shoe.counter = self.shoe.composition.counter();
        }
    }

    /// Flags the first round dealt after the last coup was completed (once per shoe).
    pub(super) fn check_past_last_coup(&mut self, seq: u64) {
        if self.shoe.ended && !self.shoe.continuous && !self.shoe.past_last_coup_flagged {
            self.shoe.past_last_coup_flagged = true;
            let last = self.shoe.last_round.unwrap_or(0);
            self.flag(
                Code::DealtPastLastCoup,
                Some(self.round.number),
                seq,
                &[seq],
                format!(
                    "Round {} was dealt after the last coup (round {last}) was completed. No \
                     further cards may be dealt until the cards are replaced or reshuffled (11.2).",
                    self.round.number
                ),
            );
        }
    }
}
