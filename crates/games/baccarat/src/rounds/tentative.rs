//! Tentative rounds on the shared tracker, as the engine reads a plain shoe's card between rounds
//! (12.1(b)): a plain card after a complete round and before the next round's "no more bets" is
//! a third card the rules do not authorise, flagged in that round, and read as the first card of
//! the next round, which stays tentative: complete by the rules, it waits for the next event, a
//! boundary confirming it and a card showing it one card too long (the card between rounds was
//! set aside, and the round is dealt again from the cards after it).

use pitwatch_model::Card;
use pitwatch_rules::{Boundary, Findings, IrregularityCode as Code};

use super::{BaccaratRounds, Live};
use crate::drawing::NextCard;
use crate::record::RoundRecord;
use crate::side::{BySide, Hand, Side};

impl BaccaratRounds {
    /// Whether a plain card now comes between rounds: after the round closed last, with no card
    /// since, and before the next round's "no more bets" in a stream that reports it, or before
    /// that round's result in a stream that declares every round's.
    pub(super) fn between_rounds(&self) -> bool {
        let before_result = self.results_run >= 2 && self.last_checked == Some(false);
        self.round.is_none()
            && self.last_open
            && self.last.is_some()
            && (self.bets_reported || before_result)
    }

    /// Flags a plain card (`card`, at `seq`, `disclosed` face up) dealt after `record`'s round
    /// was complete and before the next round's "no more bets", read as 12.1(b).
    pub(super) fn flag_card_between_rounds(
        &self,
        record: &RoundRecord,
        seq: u64,
        card: Option<Card>,
        disclosed: bool,
        found: &mut Findings,
    ) {
        let shown = card.map_or(String::new(), |c| format!(" ({c})"));
        let then = if disclosed {
            " It was disclosed, so the dealer announces \"No bets this hand\" for that round."
        } else {
            ""
        };
        let boundary = if self.bets_reported {
            "\"No more bets\" for the next round"
        } else {
            "the round's result"
        };
        found.flag(
            Code::UnauthorisedThirdCard,
            seq,
            vec![record.first_seq, record.last_seq, seq],
            format!(
                "A card{shown} was dealt after round {} was complete and before {boundary}: a \
                 third card the rules do not authorise. By 12.1(b) it becomes the first card of \
                 the next round{then}; if the next round is dealt with four cards of its own, it \
                 was set aside. If instead the next round was dealt before bets closed (8.2), \
                 correct the record.",
                record.round
            ),
        );
    }

    /// Whether the boundary `by` (at `seq`; `ended`: the shoe had ended) shows the tentative round
    /// was no round: more than one card after the last round was complete and before "no more
    /// bets" (the next round begins only now, 8.2), before that round's result, or before the
    /// cards were reshuffled with no round left after the last coup (11.2). They were extra cards of that round, set aside:
    /// the finding joins its irregularity, and the round is dropped.
    pub(super) fn set_aside(
        &mut self,
        seq: u64,
        by: Boundary,
        ended: bool,
        found: &mut Findings,
    ) -> bool {
        let (Some(r), Some(prev)) = (self.round, self.last) else {
            return false;
        };
        if by == Boundary::Result && r.unannounced && r.placed == 1 {
            // One card between the last round and its result: read as 12.1(b), the first card
            // of the next round (the stream was not yet known to declare every result).
            let card = r.hands.player.card(0).flatten();
            self.flag_card_between_rounds(&prev, r.first_seq, card, false, found);
            if let Some(r) = self.round.as_mut() {
                r.unannounced = false;
                r.carried = true;
                r.tentative = true;
            }
            return false;
        }
        let unannounced = by == Boundary::Result && r.unannounced && r.placed < 4;
        let before = match by {
            Boundary::BetsClosed if !r.after_bets => "before \"No more bets\" for the next round",
            Boundary::Result => "before its result was declared",
            Boundary::Reshuffle if ended => {
                "before the cards were reshuffled, with no round left after the last coup (11.2)"
            }
            _ => return false,
        };
        if !unannounced && (!r.tentative || r.confirming || r.placed < 2) {
            return false;
        }
        self.round = None;
        let (cards, n) = plain_order(&r.hands);
        let shown: Vec<String> = cards
            .iter()
            .take(n)
            .map(|c| c.map_or("??".to_owned(), |c| c.to_string()))
            .collect();
        found.flag(
            Code::UnauthorisedThirdCard,
            seq,
            vec![prev.first_seq, prev.last_seq, r.first_seq, r.last_seq, seq],
            format!(
                "{} card(s) ({}) were dealt after round {} was complete and {before}: cards the \
                 rules give no hand, set aside. The round stands on its own cards.",
                n,
                shown.join(" "),
                prev.round
            ),
        );
        true
    }

    /// The hands the cards of the tentative round after its first (the card between rounds)
    /// make, if they make a complete round by themselves.
    pub(super) fn rest_round(&self, r: &Live) -> Option<BySide<Hand>> {
        let (cards, n) = plain_order(&r.hands);
        if n < 2 {
            return None;
        }
        let mut hands = BySide::<Hand>::default();
        for card in cards.iter().take(n).skip(1) {
            match self.drawing.next_card(&hands.player, &hands.banker) {
                NextCard::To(s, _) | NextCard::Unknown(s) => {
                    hands.get_mut(s).push(*card);
                }
                NextCard::Complete => return None,
            }
        }
        (self.drawing.next_card(&hands.player, &hands.banker) == NextCard::Complete)
            .then_some(hands)
    }

    /// Deals the tentative round again without the card between rounds it began with: that card
    /// was set aside, and the round is the cards after it.
    pub(super) fn redeal(&mut self) {
        let drawing = self.drawing;
        let Some(r) = self.round.as_mut() else {
            return;
        };
        let old = *r;
        let (cards, n) = plain_order(&old.hands);
        let first = old.seqs[1.min(n.saturating_sub(1))];
        r.hands = BySide::default();
        r.next = drawing.next_card(&Hand::new(), &Hand::new());
        r.first_seq = first;
        r.last_seq = first;
        r.held = None;
        r.late_len = 0;
        r.carried = false;
        r.no_bets = false;
        r.tentative = false;
        r.confirming = false;
        r.placed = 0;
        for (&seq, &card) in old.seqs.iter().zip(&cards).take(n).skip(1) {
            let to = match r.next {
                NextCard::To(s, _) | NextCard::Unknown(s) => s,
                NextCard::Complete => break,
            };
            r.push(&drawing, seq, to, card);
        }
    }

    /// Whether a declared `outcome` shows that a tentative round complete by the rules was dealt
    /// without its first card: the cards after it make a round with that result, and the round
    /// with it does not.
    pub(super) fn result_says_set_aside(&self, outcome: pitwatch_model::Outcome) -> bool {
        let Some(r) = self.round.as_ref().filter(|r| r.confirming) else {
            return false;
        };
        let hands = &r.hands;
        let with = RoundRecord::from_hands(0, 0, hands.player, hands.banker).outcome;
        let without = self
            .rest_round(r)
            .and_then(|h| RoundRecord::from_hands(0, 0, h.player, h.banker).outcome);
        with != Some(outcome) && without == Some(outcome)
    }
}

/// The cards of a plain round in the order they were placed: P1, B1, P2, B2, then the Player's
/// third card, then the Banker's.
fn plain_order(hands: &BySide<Hand>) -> ([Option<Card>; 6], usize) {
    let mut cards = [None; 6];
    let mut n = 0;
    for (side, i) in [
        (Side::Player, 0),
        (Side::Banker, 0),
        (Side::Player, 1),
        (Side::Banker, 1),
        (Side::Player, 2),
        (Side::Banker, 2),
    ] {
        if let Some(card) = hands.get(side).card(i) {
            cards[n] = card;
            n += 1;
        }
    }
    (cards, n)
}
