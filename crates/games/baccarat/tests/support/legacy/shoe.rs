//! Shoes: their start and end, the shuffle, cut and cutting card, replaced and exposed cards, the hand-preparation steps and device errors.

use super::*;

impl Engine {
    // ----- shoes -----

    /// A cut or a cutting card placed after an interruption, in a shoe that has shown no card:
    /// the deal has not begun (a shoe is cut and its cutting card placed before its first card),
    /// so whatever went by while nobody listened held no card. The shoe is followed from its
    /// first card on (burn and rounds as usual), as when a shoe cut off before its first card
    /// starts again ([`Engine::start_shoe`]); it stays marked partial.
    pub(super) fn resume_before_first_card(&mut self, seq: u64) {
        if self.shoe_open
            && self.shoe.interrupted
            && !self.shoe.continuous
            && self.shoe.cards == 0
            && self.shoe.rounds == 0
            && !self.round.active
        {
            let composition = self.shoe.composition;
            self.start_shoe(seq, composition, None, false);
        }
    }

    /// A stream that does not start with a shuffle joined a shoe part-way.
    pub(super) fn ensure_shoe(&mut self, seq: u64) {
        if self.shoe_no == 0 {
            self.start_shoe(seq, self.book.composition(), None, true);
        }
    }

    pub(super) fn start_shoe(
        &mut self,
        seq: u64,
        composition: ShoeComposition,
        shuffler: Option<ShufflerKind>,
        partial: bool,
    ) {
        let reuse = self.shoe_open && self.shoe.cards == 0 && self.shoe.rounds == 0;
        // A shoe cut off before its first card is followed from that card on (burn and rounds
        // as usual), but stays marked partial: the cut and the cutting card may have gone by
        // while nobody was listening (`interrupt`), so what is flagged in it may lack context.
        let cut_off_before_first_card = reuse && self.shoe.interrupted;
        self.settle();
        if !reuse {
            // Once a shoe: what survives into the new shoe, as it stands now.
            self.carry = Carry {
                shoes: self.shoe_no,
                shuffles_reported: self.shuffles_reported,
                bets_reported: self.bets_reported,
                unshuffled: self.unshuffled,
                open_errors: self.open_errors.clone(),
                last_round: self.last_recorded,
                results_run: self.results_run,
                targets_reported: self.targets_reported,
                shuffler: self.shuffler.clone(),
            };
            self.end_shoe();
            self.shoe_no += 1;
            self.shoe.first_seq = seq;
        }
        let continuous = self.book.shuffler() == ShufflerKind::Continuous
            || shuffler == Some(ShufflerKind::Continuous);
        let burn = if partial {
            Burn::NotExpected
        } else {
            match self.book.burn() {
                BurnPolicy::None | BurnPolicy::Fixed(0) => Burn::NotExpected,
                BurnPolicy::Fixed(n) => Burn::Burning {
                    expected: Some(n),
                    seen: 0,
                    first_seq: seq,
                },
                BurnPolicy::FirstCardValue { .. } => Burn::AwaitFirst,
            }
        };
        self.shoe = Shoe {
            composition,
            counter: composition.counter(),
            continuous,
            partial: partial || cut_off_before_first_card,
            synced: !partial,
            cards: 0,
            rounds: 0,
            first_seq: self.shoe.first_seq,
            last_seq: seq,
            burn,
            burn_flagged: false,
            cutting_card_flagged: false,
            cutting_card_seen: false,
            last_round: None,
            ended: false,
            past_last_coup_flagged: false,
            replaced: false,
            interrupted: false,
            await_bets: false,
            resync_round: 0,
            bets_seen: false,
            held_burn: [(None, 0); HELD_BURN],
            held_burn_len: 0,
        };
        self.shoe_open = true;
        self.round = Round::IDLE;
        self.prev = None;
        self.last_card = None;
    }

    pub(super) fn end_shoe(&mut self) {
        if !self.shoe_open {
            return;
        }
        self.settle();
        self.shoe_open = false;
        self.out.push_back(Output::Shoe(ShoeSummary {
            shoe: self.shoe_no,
            rounds: self.shoe.rounds,
            cards: self.shoe.cards,
            partial: self.shoe.partial,
            continuous: self.shoe.continuous,
            open_device_errors: self.open_errors.len() as u32,
            first_seq: self.shoe.first_seq,
            last_seq: self.shoe.last_seq,
        }));
    }

    /// A shuffle began a new shoe; `check` is what the shuffler's own deck check found wrong
    /// (cards missing, extra or foreign), if it reported one.
    pub(super) fn on_shuffled(
        &mut self,
        seq: u64,
        decks: Option<u8>,
        cards: Option<u32>,
        shuffler: Option<ShufflerKind>,
        check: Option<String>,
    ) {
        if self.round.active {
            self.close_round(seq, Boundary::Reshuffle);
        }
        let default = self.book.composition();
        let reported = decks;
        let decks = decks.unwrap_or(default.decks);
        let composition = ShoeComposition::new(decks.max(1), default.kind);
        self.start_shoe(seq, composition, shuffler, false);
        self.judge_steps(seq, true);
        if let Some(found) = self.shuffler.loaded(seq, reported, cards) {
            self.flag(found.code, None, seq, &found.evidence, found.message);
        }
        self.shuffles_reported = true;
        // New cards shuffled, or pre-shuffled cards accepted as such (7.10, 11.3): either way
        // nothing is left to shuffle.
        self.unshuffled = None;
        // Everything wrong with the shuffled set is one fault: one incident listing it all.
        let mut wrong = Vec::new();
        let (min, max) = self.book.deck_range();
        if decks < min || decks > max {
            wrong.push(format!(
                "The shuffle reports {decks} decks; the rule book allows {min} to {max}."
            ));
        }
        if let Some(cards) = cards {
            let expected = composition.total_cards();
            if cards != expected {
                wrong.push(format!(
                    "The shuffler counted {cards} cards; {decks} decks of {} hold {expected}.",
                    default.kind
                ));
            }
        }
        if let Some(found) = check {
            // A count can be right while a card is missing and another doubled.
            let mut found = found;
            if let Some(first) = found.get_mut(..1) {
                first.make_ascii_uppercase();
            }
            wrong.push(format!("{found}."));
        }
        if !wrong.is_empty() {
            self.flag(
                Code::ShuffleCountMismatch,
                None,
                seq,
                &[seq],
                format!(
                    "{} Cards are missing, extra or foreign: remove the cards from the table and \
                     check them before play.",
                    wrong.join(" ")
                ),
            );
        }
    }

    pub(super) fn on_cut(&mut self, seq: u64, position: u32) {
        if self.shoe.continuous || self.shoe.partial {
            return;
        }
        let total = self.shoe.composition.total_cards();
        let min = self.book.cut().cards(self.shoe.composition);
        if position < min || position.saturating_add(min) > total {
            let from_back = total.saturating_sub(position);
            self.flag(
                Code::CutTooCloseToEnd,
                None,
                seq,
                &[seq],
                format!(
                    "The cut was {position} cards from the front and {from_back} from the back; the \
                     rule book requires at least {min} from either end. Have the cards cut again."
                ),
            );
        }
    }

    pub(super) fn on_cutting_card_placed(&mut self, seq: u64, from_back: u32) {
        if self.shoe.continuous || self.shoe.partial {
            return;
        }
        let limit = self.book.cutting_card();
        let total = self.shoe.composition.total_cards();
        if !limit.allows(from_back, total) {
            self.shoe.cutting_card_flagged = true;
            self.flag(
                Code::CuttingCardMisplaced,
                None,
                seq,
                &[seq],
                format!(
                    "The cutting card was placed with {from_back} cards behind it; the rule book \
                     requires {}. Reposition it before dealing.",
                    limit.describe()
                ),
            );
        }
    }

    pub(super) fn on_cutting_card(&mut self, seq: u64) {
        if self.shoe.continuous || self.shoe.cutting_card_seen {
            // 7.8: no cutting card with a continuous shuffler; a second cutting card sits at the
            // back and changes nothing.
            return;
        }
        self.shoe.cutting_card_seen = true;
        if !self.shoe.partial && !self.shoe.cutting_card_flagged {
            let total = self.shoe.composition.total_cards();
            let behind = total.saturating_sub(self.shoe.cards);
            let limit = self.book.cutting_card();
            if !limit.allows(behind, total) {
                self.shoe.cutting_card_flagged = true;
                self.flag(
                    Code::CuttingCardMisplaced,
                    self.current_round(),
                    seq,
                    &[seq],
                    format!(
                        "The cutting card came out with {behind} cards behind it ({} dealt); the \
                         rule book requires {}. The shoe ends by the last-coup rule as usual; \
                         check how the cutting card was placed.",
                        self.shoe.cards,
                        limit.describe()
                    ),
                );
            }
        }
        // A tentative round complete by the rules is over: the cutting card comes between rounds.
        let in_round = self.round.active && !self.round.confirming;
        let next = self.shoe.rounds + 1;
        let last = match (self.book.end_of_shoe(), in_round) {
            // 11.2(b): complete this round, then one further round.
            (EndOfShoePolicy::LastCoup, true) => self.round.number + 1,
            // 11.2(a): drawn as the first card of a round, that round is the last.
            (EndOfShoePolicy::LastCoup, false) => next,
            (EndOfShoePolicy::FinishRound, true) => self.round.number,
            (EndOfShoePolicy::FinishRound, false) => next,
            (EndOfShoePolicy::OneMoreRound, true) => self.round.number + 1,
            (EndOfShoePolicy::OneMoreRound, false) => next + 1,
        };
        self.shoe.last_round = Some(last);
        if !in_round && self.shoe.rounds >= last {
            self.shoe.ended = true;
        }
    }

    pub(super) fn on_cards_replaced(&mut self, seq: u64) {
        if self.round.active {
            self.close_round(seq, Boundary::Reshuffle);
        }
        if self.shoe_open {
            // New cards: count them afresh, and the old shoe's end no longer applies.
            self.shoe.counter = self.shoe.composition.counter();
            self.shoe.ended = false;
            self.shoe.last_round = None;
            self.shoe.cutting_card_seen = false;
            self.shoe.burn = Burn::NotExpected;
            self.shoe.replaced = true;
        }
        self.prev = None;
        self.unshuffled = Some((Unshuffled::Replaced, seq));
    }

    pub(super) fn on_exposed(&mut self, seq: u64, card: Option<Card>, during: ExposedDuring) {
        let what = card.map_or_else(|| "A card".to_owned(), |c| format!("Card {c}"));
        match during {
            ExposedDuring::Cutting | ExposedDuring::Loading => {
                self.unshuffled = Some((Unshuffled::Exposed, seq));
                self.flag(
                    Code::CardExposed,
                    None,
                    seq,
                    &[seq],
                    format!(
                        "{what} was exposed during {during}. This is a misdeal: the cards must be \
                         reshuffled and cut again before any card is dealt."
                    ),
                );
            }
            ExposedDuring::Dealing => {
                let round = self.current_round().or(self.prev.map(|p| p.record.round));
                self.flag(
                    Code::CardExposed,
                    round,
                    seq,
                    &[seq],
                    format!(
                        "{what} was exposed during the deal. If it is a third card to the Player \
                         the rules do not authorise, 12.1(b): announce \"No bets this hand\" for \
                         the round it starts; otherwise the supervisor decides whether the round \
                         stands."
                    ),
                );
            }
        }
    }

    /// Cards were loaded (into the shuffler, or the shoe when `into_shoe`): flagged when the book
    /// lists preparation steps and they were not all logged, in order, since the last load. A
    /// book that lists none leaves the shuffler's state (and so the carry) as it was.
    pub(super) fn judge_steps(&mut self, seq: u64, into_shoe: bool) {
        if self.book.shuffle_steps().is_empty() {
            return;
        }
        if let Some(found) = self
            .shuffler
            .load_steps(seq, self.book.shuffle_steps(), into_shoe)
        {
            self.flag_with(
                found.code,
                Cite::Steps,
                None,
                seq,
                &found.evidence,
                found.message,
            );
        }
    }

    pub(super) fn on_device_error(&mut self, seq: u64, code: &str, text: &str) {
        if code == pitwatch_model::WITHHELD_ERROR_CODE {
            // Not an error the device clears: the order may be out, whatever the device does
            // next. Each withheld line is a finding of its own.
            let round = self.current_round();
            self.flag_with(
                Code::OrderDisclosed,
                Cite::Code,
                round,
                seq,
                &[seq],
                format!("Device error {code}: {text}"),
            );
            return;
        }
        if self.open_errors.iter().any(|(c, _)| c == code) {
            return;
        }
        self.open_errors.push((code.to_owned(), seq));
        let round = self.current_round();
        self.flag(
            Code::DeviceError,
            round,
            seq,
            &[seq],
            format!(
                "The device reported error {code} ({text}). It stays open until the device clears \
                 it: check the shoe and the cards of the current round before continuing."
            ),
        );
    }
}
