//! A round's state as the deal goes: each box in play with its hands (up to [`MAX_HANDS`] after
//! splitting), how each hand's play ended, and the stage the round is in.

use pitwatch_model::Card;
use serde::{Deserialize, Serialize};

use super::MAX_HANDS;
use crate::hand::Cards;

/// How a hand's play ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(super) enum End {
    Open,
    Stood,
    Bust,
    TwentyOne,
    Doubled,
    SplitAce,
    Surrendered,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct HandState {
    pub(super) cards: Cards,
    pub(super) doubled: bool,
    /// Doubled, awaiting its one card.
    pub(super) double_pending: bool,
    pub(super) from_split: bool,
    pub(super) split_ace: bool,
    pub(super) end: End,
}

impl HandState {
    pub(super) const EMPTY: HandState = HandState {
        cards: Cards::new(),
        doubled: false,
        double_pending: false,
        from_split: false,
        split_ace: false,
        end: End::Open,
    };

    #[inline]
    pub(super) fn open(&self) -> bool {
        self.end == End::Open
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct BoxState {
    pub(super) number: u8,
    pub(super) hands: [HandState; MAX_HANDS],
    pub(super) n_hands: u8,
    /// The first three cards dealt to the box, in deal order (Super Sevens).
    pub(super) dealt: [Option<Card>; 3],
    pub(super) dealt_len: u8,
    pub(super) insurance: bool,
    pub(super) declared: bool,
}

impl BoxState {
    pub(super) fn new(number: u8) -> BoxState {
        BoxState {
            number,
            hands: [HandState::EMPTY; MAX_HANDS],
            n_hands: 1,
            dealt: [None; 3],
            dealt_len: 0,
            insurance: false,
            declared: false,
        }
    }

    #[inline]
    pub(super) fn hands(&self) -> &[HandState] {
        &self.hands[..usize::from(self.n_hands)]
    }

    #[inline]
    pub(super) fn cards(&self) -> usize {
        self.hands().iter().map(|h| h.cards.len()).sum()
    }

    /// The cards the box holds, counted to three: its first three cards are kept (`dealt`), so
    /// this is `dealt_len`, without walking the hands; enough for the initial deal's checks,
    /// which compare with 0, 1 or 2.
    #[inline]
    pub(super) fn cards_to_three(&self) -> usize {
        debug_assert_eq!(usize::from(self.dealt_len), self.cards().min(3));
        usize::from(self.dealt_len)
    }

    #[inline]
    pub(super) fn first_open(&self) -> Option<usize> {
        self.hands().iter().position(HandState::open)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Stage {
    /// The initial deal.
    Initial,
    /// The boxes play their hands.
    Play,
    /// The dealer draws.
    Dealer,
}
