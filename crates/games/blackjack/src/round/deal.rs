//! The deal checked card by card: the initial deal's order (one card to each box in play in turn,
//! the dealer, then the second cards), each box's hands played in turn (a card to a later hand
//! means the hands before it stood), cards to hands that had finished, and the dealer's draw.

use pitwatch_model::Card;
use pitwatch_rules::{Findings, IrregularityCode as Code};

use super::settle::Owes;
use super::state::{End, Stage};
use super::Rounds;
use crate::book::HoleCard;

impl Rounds {
    pub(super) fn all_finished(&self) -> bool {
        // From the last: play goes forward, so while the round is played an open hand is found
        // at once.
        self.boxes
            .iter()
            .rev()
            .filter(|b| Self::in_play(b))
            .all(|b| b.hands().iter().rev().all(|h| !h.open()))
    }

    fn initial_done(&self) -> bool {
        let dealer = match self.book.hole_card {
            HoleCard::None => 1,
            HoleCard::American => 2,
        };
        // The dealer's count first: until the dealer has the initial card(s) no box is walked.
        self.dealer.len() >= dealer
            && self
                .boxes
                .iter()
                .filter(|b| Self::in_play(b))
                .all(|b| b.cards_to_three() >= 2)
            && self.boxes.iter().any(Self::in_play)
    }

    fn out_of_order(&mut self, seq: u64, message: String, found: &mut Findings) {
        if !self.order_flagged {
            self.order_flagged = true;
            found.flag(Code::DealOutOfOrder, seq, vec![seq], message);
        }
    }

    fn finished_hand(&self, seq: u64, message: String, found: &mut Findings) {
        found.flag(Code::CardToFinishedHand, seq, vec![seq], message);
    }

    /// The hands before box `upto` (index) and hand `hand` stand, having had a card go past them.
    pub(super) fn stand_before(
        &mut self,
        upto: usize,
        hand: usize,
        seq: u64,
        found: &mut Findings,
    ) {
        // Play goes forward: every hand before the last one passed to is finished, so the walk
        // starts there (during the initial deal, boxes are still being added: from the start).
        let (start_box, start_hand) = if self.stage == Stage::Initial {
            (0, 0)
        } else {
            let start = self.passed;
            self.passed = start.max((upto.min(self.boxes.len()), hand));
            start
        };
        for bi in start_box..self.boxes.len() {
            let number = self.boxes[bi].number;
            let n = usize::from(self.boxes[bi].n_hands);
            let first = if bi == start_box { start_hand } else { 0 };
            for hi in first..n {
                if bi > upto || (bi == upto && hi >= hand) {
                    return;
                }
                let h = &mut self.boxes[bi].hands[hi];
                if !h.open() || h.cards.is_empty() {
                    continue;
                }
                h.end = End::Stood;
                let (len, pending) = (h.cards.len(), h.double_pending);
                if len < 2 || pending {
                    found.flag(
                        Code::WrongCardCount,
                        seq,
                        vec![seq],
                        if pending {
                            format!("Box {number} hand {} doubled but was passed without its one card.", hi + 1)
                        } else {
                            format!("Box {number} hand {} was passed with {len} card(s): every hand takes at least two.", hi + 1)
                        },
                    );
                }
            }
        }
    }

    pub(super) fn place(&mut self, bi: usize, hi: usize, card: Option<Card>) {
        let b = &mut self.boxes[bi];
        if usize::from(b.dealt_len) < 3 {
            b.dealt[usize::from(b.dealt_len)] = card;
            b.dealt_len += 1;
        }
        let one_card_aces = self.book.split_aces_one_card;
        let h = &mut b.hands[hi];
        h.cards.push(card);
        let total = h.cards.total();
        if total.is_some_and(|t| t.value > 21) {
            h.end = End::Bust;
        } else if h.double_pending {
            h.double_pending = false;
            h.end = End::Doubled;
        } else if h.split_ace && one_card_aces && h.cards.len() >= 2 {
            h.end = End::SplitAce;
        } else if total.is_some_and(|t| t.value == 21) {
            h.end = End::TwentyOne;
        }
    }

    pub(super) fn on_box_card(
        &mut self,
        seq: u64,
        number: u8,
        hand: Option<u8>,
        index: Option<u8>,
        card: Option<Card>,
        found: &mut Findings,
    ) {
        match self.stage {
            Stage::Initial if hand.is_some_and(|h| h != 1) => {
                self.no_such_hand(seq, number, hand.unwrap_or(0), 1, found);
            }
            Stage::Initial => self.initial_box_card(seq, number, index, card, found),
            Stage::Play => self.play_box_card(seq, number, hand, index, card, found),
            Stage::Dealer => {
                self.finished_hand(
                    seq,
                    format!("A card went to box {number} after the dealer began drawing: every box had finished."),
                    found,
                );
            }
        }
    }

    fn initial_box_card(
        &mut self,
        seq: u64,
        number: u8,
        index: Option<u8>,
        card: Option<Card>,
        found: &mut Findings,
    ) {
        let known = self.box_index(number);
        let has = known.map_or(0, |i| self.boxes[i].cards());
        if self.declared_any && !known.is_some_and(|i| self.boxes[i].declared) {
            self.finished_hand(
                seq,
                format!("A card went to box {number}, which is not in play this round."),
                found,
            );
            return;
        }
        if !self.declared_any && !self.dealer.is_empty() && has == 0 {
            self.finished_hand(
                seq,
                format!("A card went to box {number}, which had no first card: it is not in play this round."),
                found,
            );
            return;
        }
        let position = has + 1;
        if index.is_some_and(|i| usize::from(i) != position) {
            self.out_of_order(
                seq,
                format!(
                    "Box {number} was dealt card {} where card {position} was due.",
                    index.unwrap_or(0)
                ),
                found,
            );
        }
        let expected = if self.dealer.is_empty() {
            if self.declared_any {
                self.boxes
                    .iter()
                    .find(|b| b.declared && b.cards_to_three() == 0)
                    .map(|b| b.number)
                    == Some(number)
            } else {
                has == 0
                    && self
                        .boxes
                        .iter()
                        .filter(|b| Self::in_play(b))
                        .all(|b| b.number < number)
            }
        } else {
            self.boxes
                .iter()
                .find(|b| Self::in_play(b) && b.cards_to_three() == 1)
                .map(|b| b.number)
                == Some(number)
        };
        if !expected {
            self.out_of_order(
                seq,
                format!("Box {number} was dealt its card {position} out of turn: one card to each box in play in turn, then the dealer, then the second card to each box."),
                found,
            );
        }
        let bi = match known {
            Some(i) => i,
            None => self.box_entry(number),
        };
        self.place(bi, 0, card);
        self.after_initial_card();
    }

    fn after_initial_card(&mut self) {
        if self.initial_done() {
            self.stage = Stage::Play;
            // With a hole card, a dealer blackjack is known now: no box plays (5.1(d), (e)).
            if self.book.hole_card == HoleCard::American && self.dealer.is_natural() {
                for b in &mut self.boxes {
                    let n = usize::from(b.n_hands);
                    for h in &mut b.hands[..n] {
                        if h.open() {
                            h.end = End::Stood;
                        }
                    }
                }
                self.stage = Stage::Dealer;
            }
        }
    }

    /// A card that names a hand the box does not have: placed in no hand.
    fn no_such_hand(&self, seq: u64, number: u8, hand: u8, hands: u8, found: &mut Findings) {
        found.flag(
            Code::DealOutOfOrder,
            seq,
            vec![seq],
            format!("A card went to box {number} hand {hand}, which the box does not have (it has {hands} hand(s)): the card is placed in no hand."),
        );
    }

    fn play_box_card(
        &mut self,
        seq: u64,
        number: u8,
        hand: Option<u8>,
        index: Option<u8>,
        card: Option<Card>,
        found: &mut Findings,
    ) {
        let Some(bi) = self
            .box_index(number)
            .filter(|&i| Self::in_play(&self.boxes[i]))
        else {
            self.finished_hand(
                seq,
                format!("A card went to box {number}, which is not in play this round."),
                found,
            );
            return;
        };
        if let Some(hand) = hand {
            self.named_hand_card(seq, bi, hand, index, card, found);
            return;
        }
        // After a split, a card the device reports as a hand's second card while the hand being
        // played holds two is the next hand's: the hand before it stood unreported.
        let by_index = index.and_then(|i| {
            let b = &self.boxes[bi];
            let first = b.first_open()?;
            (first..usize::from(b.n_hands))
                .find(|&h| b.hands[h].open() && b.hands[h].cards.len() + 1 == usize::from(i))
        });
        let Some(hi) = by_index.or_else(|| self.boxes[bi].first_open()) else {
            let why = why_finished(self.boxes[bi].hands().last().map(|h| h.end));
            self.finished_hand(
                seq,
                format!("A card went to box {number}, whose hand had finished ({why})."),
                found,
            );
            return;
        };
        self.stand_before(bi, hi, seq, found);
        let position = self.boxes[bi].hands[hi].cards.len() + 1;
        if index.is_some_and(|i| usize::from(i) != position) {
            self.out_of_order(
                seq,
                format!(
                    "Box {number} was dealt card {} where card {position} was due.",
                    index.unwrap_or(0)
                ),
                found,
            );
        }
        self.place(bi, hi, card);
    }

    /// A card the device says went to hand `hand` (from 1) of the box at `bi`: believed, and
    /// checked against the order of play (each hand of a box in turn, so a hand before it that
    /// still lacks a card it must have makes the card out of order; one before it that could
    /// have stood did, as for a card to a later box).
    fn named_hand_card(
        &mut self,
        seq: u64,
        bi: usize,
        hand: u8,
        index: Option<u8>,
        card: Option<Card>,
        found: &mut Findings,
    ) {
        let b = &self.boxes[bi];
        let number = b.number;
        if hand == 0 || hand > b.n_hands {
            let hands = b.n_hands;
            self.no_such_hand(seq, number, hand, hands, found);
            return;
        }
        let hi = usize::from(hand) - 1;
        if !b.hands[hi].open() {
            let why = why_finished(Some(b.hands[hi].end));
            self.finished_hand(
                seq,
                format!(
                    "A card went to box {number} hand {hand}, whose hand had finished ({why})."
                ),
                found,
            );
            return;
        }
        let waiting = (0..hi).find(|&j| {
            let h = &b.hands[j];
            h.open() && (h.cards.len() < 2 || h.double_pending)
        });
        if let Some(j) = waiting {
            // The earlier hand stays open for the card it must still have.
            self.stand_before(bi, 0, seq, found);
            self.out_of_order(
                seq,
                format!("Box {number} hand {hand} was dealt a card while hand {} was still open: each hand of a box is played in turn.", j + 1),
                found,
            );
        } else {
            self.stand_before(bi, hi, seq, found);
        }
        let position = self.boxes[bi].hands[hi].cards.len() + 1;
        if index.is_some_and(|i| usize::from(i) != position) {
            self.out_of_order(
                seq,
                format!(
                    "Box {number} hand {hand} was dealt card {} where card {position} was due.",
                    index.unwrap_or(0)
                ),
                found,
            );
        }
        self.place(bi, hi, card);
    }

    pub(super) fn on_dealer_card(
        &mut self,
        seq: u64,
        index: Option<u8>,
        card: Option<Card>,
        found: &mut Findings,
    ) {
        let position = self.dealer.len() + 1;
        if index.is_some_and(|i| usize::from(i) != position) {
            self.out_of_order(
                seq,
                format!(
                    "The dealer was dealt card {} where card {position} was due.",
                    index.unwrap_or(0)
                ),
                found,
            );
        }
        match self.stage {
            Stage::Initial => {
                let expected = if self.dealer.is_empty() {
                    self.boxes.iter().any(Self::in_play)
                        && (!self.declared_any
                            || self
                                .boxes
                                .iter()
                                .filter(|b| b.declared)
                                .all(|b| b.cards_to_three() >= 1))
                } else {
                    self.book.hole_card == HoleCard::American
                        && self
                            .boxes
                            .iter()
                            .filter(|b| Self::in_play(b))
                            .all(|b| b.cards_to_three() >= 2)
                };
                if !expected {
                    self.out_of_order(
                        seq,
                        format!("The dealer was dealt card {position} out of turn: one card to each box in play, then the dealer."),
                        found,
                    );
                }
                self.dealer.push(card);
                self.after_initial_card();
            }
            Stage::Play | Stage::Dealer => {
                if self.stage == Stage::Play {
                    self.stand_before(self.boxes.len(), 0, seq, found);
                    self.stage = Stage::Dealer;
                }
                if !self.dealer_flagged {
                    let wrong = match self.dealer_owes() {
                        Owes::Nothing if !self.any_insured() => Some(
                            "when every box was already settled, so the dealer takes no further card"
                                .to_owned(),
                        ),
                        Owes::Nothing => Some(
                            "when every box was already settled and the second card had settled the insurance, so the dealer takes no further card"
                                .to_owned(),
                        ),
                        Owes::SecondCard => None,
                        Owes::Play => match (self.dealer_must_draw(), self.dealer.total()) {
                            (Some(false), Some(t)) => Some(format!(
                                "on {}{}, where the book says stand",
                                if t.soft { "soft " } else { "" },
                                t.value
                            )),
                            _ => None,
                        },
                    };
                    if let Some(why) = wrong {
                        self.dealer_flagged = true;
                        found.flag(
                            Code::DealerDrawWrong,
                            seq,
                            vec![seq],
                            format!("The dealer took a card {why}."),
                        );
                    }
                }
                self.dealer.push(card);
            }
        }
    }
}

/// Why a hand had finished, for a card that came to it.
fn why_finished(end: Option<End>) -> &'static str {
    match end {
        Some(End::Bust) => "bust",
        Some(End::TwentyOne) => "on 21",
        Some(End::Doubled) => "doubled and had its one card",
        Some(End::SplitAce) => "a split ace with its one card",
        Some(End::Surrendered) => "surrendered",
        _ => "stood",
    }
}
