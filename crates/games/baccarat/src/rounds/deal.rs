//! Placing a card in the round in progress on the shared tracker: a card the device reported to a
//! hand goes where the device says (8.4 and the Table of Play say whether that was the next
//! position; the first card out of order is the round's `DEAL_OUT_OF_ORDER`), a plain card where
//! the rules give the next card. The table has counted the card against the shoe already.

use pitwatch_model::{Card, Target};
use pitwatch_rules::{Findings, IrregularityCode as Code};

use super::BaccaratRounds;
use crate::drawing::NextCard;
use crate::side::{Hand, Side};

/// The hand a target names, if it names one.
pub(super) fn side(target: Option<Target>) -> Option<Side> {
    match target {
        Some(Target::Player) => Some(Side::Player),
        Some(Target::Banker) => Some(Side::Banker),
        _ => None,
    }
}

impl BaccaratRounds {
    /// Places a card of the round in progress (`target` `None`: a plain card).
    pub(super) fn place(
        &mut self,
        seq: u64,
        card: Option<Card>,
        target: Option<Target>,
        index: Option<u8>,
        found: &mut Findings,
    ) {
        let Some(round) = self.round.as_mut() else {
            return;
        };
        let hands = round.hands;
        let next = round.next;
        let Some(side) = side(target) else {
            // A plain card: where the rules give the next card.
            let to = match next {
                NextCard::To(s, _) | NextCard::Unknown(s) => s,
                NextCard::Complete => Side::Player,
            };
            round.hands.get_mut(to).push(card);
            round.next = self
                .drawing
                .next_card(&round.hands.player, &round.hands.banker);
            round.last_seq = seq;
            round.placed_late(seq);
            return;
        };
        // Worded only when a card cannot be placed: formatting it for every card was most of the
        // table's work per card (docs/benchmarks.md).
        let what = || match index {
            Some(i) => format!("as {side} card {i}"),
            None => format!("to the {side}"),
        };
        let len = hands.get(side).len();
        let position = match index {
            Some(i) if i >= 1 => usize::from(i),
            _ => len + 1,
        };
        if position > Hand::MAX {
            unplaceable(
                found,
                seq,
                card,
                format!("{}, but a Baccarat hand holds at most three cards", what()),
            );
            return;
        }
        if position <= len {
            let held = hands.get(side).card(position - 1).flatten();
            let holding = held.map_or("an unreadable card".to_owned(), |c| c.to_string());
            unplaceable(
                found,
                seq,
                card,
                format!("{}, a position that already holds {holding}", what()),
            );
            return;
        }
        let as_expected = position == len + 1
            && match next {
                NextCard::To(s, i) => s == side && position == usize::from(i),
                // An unreadable card hides the decision: any third card may be right.
                NextCard::Unknown(_) => position == 3,
                NextCard::Complete => false,
            };
        if !as_expected && !round.order_flagged {
            round.order_flagged = true;
            out_of_order(found, seq, card, side, position, next);
        }
        round.hands.get_mut(side).push(card);
        round.next = self
            .drawing
            .next_card(&round.hands.player, &round.hands.banker);
        round.last_seq = seq;
        round.placed_late(seq);
    }
}

/// A card no hand can take (reported `what`): counted against the shoe, in no hand.
fn unplaceable(found: &mut Findings, seq: u64, card: Option<Card>, what: String) {
    let shown = card.map_or("An unreadable card".to_owned(), |c| format!("Card {c}"));
    found.flag(
        Code::DealOutOfOrder,
        seq,
        vec![seq],
        format!(
            "{shown} was reported {what}. It left the shoe but belongs to no hand: it is not \
             counted in any round and starts none. Find out where it went (8.4); if a round \
             cannot be reconstructed, it is a misdeal."
        ),
    );
}

/// A card dealt to another position than the next by 8.4 and the Table of Play.
fn out_of_order(
    found: &mut Findings,
    seq: u64,
    card: Option<Card>,
    side: Side,
    position: usize,
    next: NextCard,
) {
    let expected = match next {
        NextCard::To(s, i) => format!("{s} card {i}"),
        NextCard::Unknown(s) => format!("possibly {s} card 3"),
        NextCard::Complete => "no further card".to_owned(),
    };
    found.flag(
        Code::DealOutOfOrder,
        seq,
        vec![seq],
        format!(
            "{} was dealt to {side} card {position}, but by 8.4 and the Table of Play the next \
             card is {expected}. The hands are followed as dealt; the supervisor decides whether \
             the round can be reconstructed or is a misdeal.",
            card.map_or("An unreadable card".to_owned(), |c| format!("Card {c}")),
        ),
    );
}
