//! A round joined part-way: after the stream was cut off ([`pitwatch_rules::Table::interrupt`]),
//! the tail of the round that began while nobody listened. Its cards are placed where the device
//! says, for the view and the record, and nothing is judged (what came before the cut is
//! unknown); the next round begins at the first event that can only begin one given what the
//! tail has shown ([`Rounds::begins_joined`]).

use pitwatch_model::{Action, EventKind, Target};

use super::{Rounds, MAX_HANDS};

/// What the tail of a joined round has shown about where the deal stands.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Joined {
    /// The deal has gone past the boxes' first cards: a dealer card, a box's later card, or a
    /// decision other than putting a box in play came.
    pub(super) past_first: bool,
    /// The highest box dealt its first card in the tail (0: none): the first cards go to the
    /// boxes in turn, so a first card to this box or one before it begins the next round.
    pub(super) first_max: u8,
}

impl Rounds {
    /// Follows one event of a joined round: its cards placed where the device says, nothing
    /// judged.
    pub(super) fn follow_joined(&mut self, seq: u64, event: &EventKind) {
        let Some(joined) = self.joined.as_mut() else {
            return;
        };
        match event {
            EventKind::CardDrawn {
                card,
                target: Some(target),
                index,
                ..
            } => {
                let hand = target.hand().unwrap_or(1).max(1);
                let number = target.box_number();
                if *index == Some(1) && hand == 1 && number.is_some() {
                    joined.first_max = joined.first_max.max(number.unwrap_or(0));
                } else {
                    joined.past_first = true;
                }
                self.last_seq = seq;
                self.any_card = true;
                match number {
                    Some(number) => {
                        let bi = self.box_entry(number);
                        let hi = usize::from(hand).min(MAX_HANDS) - 1;
                        let b = &mut self.boxes[bi];
                        b.n_hands = b.n_hands.max(u8::try_from(hi + 1).unwrap_or(1));
                        self.place(bi, hi, *card);
                    }
                    None if *target == Target::Dealer => self.dealer.push(*card),
                    None => {}
                }
            }
            EventKind::Decision { action, .. } if *action != Action::InPlay => {
                joined.past_first = true;
            }
            _ => {}
        }
    }

    /// Whether `event` begins the next round after the tail of a joined round: a box's first
    /// card (reported as card 1) once the tail showed the deal past the first cards, or to a box
    /// no later than one the tail already dealt a first card; a box put in play after a card
    /// (boxes are put in play before the round's first card). Anything else may be the joined
    /// round's (a stream that reports no card numbers shows no boundary but "no more bets" and
    /// the shuffle, which the table reads itself).
    pub(super) fn begins_joined(&self, joined: Joined, event: &EventKind) -> bool {
        match event {
            EventKind::CardDrawn {
                target: Some(target),
                index: Some(1),
                ..
            } => target.box_number().is_some_and(|n| {
                target.hand().is_none_or(|h| h == 1)
                    && (joined.past_first || (joined.first_max > 0 && n <= joined.first_max))
            }),
            EventKind::Decision {
                action: Action::InPlay,
                ..
            } => self.any_card || joined.past_first,
            _ => false,
        }
    }
}
