//! A round's record: the public [`RoundRecord`] with its boxes, hands and side bets (held inline,
//! one allocation per round), built from the round in progress or from the last round closed,
//! which the rounds carry into the next shoe ([`RoundsCarry`]).

use serde::{Deserialize, Serialize};

use super::state::BoxState;
use super::{Rounds, MAX_HANDS};
use crate::hand::Cards;

/// A hand's outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum HandOutcome {
    /// A blackjack (Pontoon) paid at the natural's odds (5.1(c), 5.4).
    Blackjack,
    /// Won (5.1(a), (b); a Pontoon 21 paid at once).
    Win,
    /// Lost (5.1(d), (f), (g)).
    Lose,
    /// A stand off (5.1(e)).
    Push,
    /// Surrendered: half the wager lost.
    Surrender,
}

/// Up to `N` values inline (no allocation), serialised as a JSON array of those present; derefs
/// to a slice.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Inline<T: Copy + Default, const N: usize> {
    items: [T; N],
    len: u8,
}

impl<T: Copy + Default, const N: usize> Default for Inline<T, N> {
    fn default() -> Self {
        Inline {
            items: [T::default(); N],
            len: 0,
        }
    }
}

impl<T: Copy + Default, const N: usize> Inline<T, N> {
    /// Adds a value; beyond `N` it is dropped (callers never hold more).
    #[inline]
    pub fn push(&mut self, value: T) {
        if usize::from(self.len) < N {
            self.items[usize::from(self.len)] = value;
            self.len += 1;
        }
    }
}

impl<T: Copy + Default, const N: usize> std::ops::Deref for Inline<T, N> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        &self.items[..usize::from(self.len)]
    }
}

impl<'a, T: Copy + Default, const N: usize> IntoIterator for &'a Inline<T, N> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<T: Copy + Default + Serialize, const N: usize> Serialize for Inline<T, N> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}

/// One hand of a box as the round ended.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct HandRecord {
    /// The cards in deal order (`null` for an unreadable card).
    pub cards: Cards,
    /// The total, `None` if a card was unreadable.
    pub total: Option<u8>,
    /// Whether an ace counts 11.
    pub soft: bool,
    /// Whether the hand doubled.
    pub doubled: bool,
    /// Whether the hand came from a split.
    pub split: bool,
    /// The outcome, `None` when the cards cannot settle it (unreadable, or the round cut off).
    pub outcome: Option<HandOutcome>,
    /// What the hand won (positive) or lost (negative), in units of the box's original wager;
    /// `None` with the outcome.
    pub pays: Option<f64>,
    /// The rule that settles it (`5.1(b)`, or the bonus paid).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule: Option<&'static str>,
}

/// A side bet of a box, as the cards settle it if it was placed (the stream does not say which
/// boxes bet).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct SideBet {
    /// `super_sevens` or `insurance`.
    pub bet: &'static str,
    /// Super Sevens: how many of the box's first cards are sevens in a row from the first.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sevens: Option<u8>,
    /// Super Sevens: whether those sevens are of one suit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suited: Option<bool>,
    /// What it won or lost per unit staked on it; `None` if unknown.
    pub pays: Option<f64>,
}

/// One box in a round.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BoxRecord {
    /// The box number.
    #[serde(rename = "box")]
    pub number: u8,
    /// Its hands (more than one after a split).
    pub hands: Inline<HandRecord, MAX_HANDS>,
    /// Its side bets as the cards settle them.
    pub side_bets: Inline<SideBet, 2>,
}

/// One round as the engine followed it; `pitwatch replay --json` prints it with `type: "round"`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RoundRecord {
    /// `blackjack` or `pontoon`.
    pub game: &'static str,
    /// The shoe, 1-based.
    pub shoe: u32,
    /// The round, 1-based within the shoe.
    pub round: u32,
    /// The dealer's cards.
    pub dealer: Cards,
    /// The dealer's total, `None` if unknown.
    pub dealer_total: Option<u8>,
    /// Whether the dealer's two cards are a blackjack (Pontoon).
    pub dealer_blackjack: bool,
    /// The boxes in play.
    pub boxes: Vec<BoxRecord>,
    /// `seq` of the round's first event.
    pub first_seq: u64,
    /// `seq` of its last card.
    pub last_seq: u64,
    /// Whether every hand and the dealer finished by the rules.
    pub complete: bool,
}

/// A round's cards and numbers, for its record.
pub(super) struct RoundData<'a> {
    pub(super) shoe: u32,
    pub(super) number: u32,
    pub(super) first_seq: u64,
    pub(super) last_seq: u64,
    pub(super) boxes: &'a [BoxState],
    pub(super) dealer: Cards,
}

/// The last round closed, kept (its boxes' memory swapped, not copied) for the table view, and
/// carried into the next shoe as it stands.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct Closed {
    pub(super) shoe: u32,
    pub(super) number: u32,
    pub(super) first_seq: u64,
    pub(super) last_seq: u64,
    pub(super) boxes: Vec<BoxState>,
    pub(super) dealer: Cards,
    pub(super) complete: bool,
    pub(super) dealer_final: bool,
    pub(super) any: bool,
}

/// What a Blackjack or Pontoon table's rounds carry from one shoe into the next: the last round
/// closed, for the table view (stored as JSON with the shoe's start).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoundsCarry(pub(super) Closed);

impl Rounds {
    pub(super) fn record(&self, complete: bool, dealer_final: bool) -> RoundRecord {
        self.record_of(&self.round_data(), complete, dealer_final)
    }

    fn round_data(&self) -> RoundData<'_> {
        RoundData {
            shoe: self.shoe,
            number: self.number,
            first_seq: self.first_seq,
            last_seq: self.last_seq,
            boxes: &self.boxes,
            dealer: self.dealer,
        }
    }

    pub(super) fn record_of(
        &self,
        data: &RoundData<'_>,
        complete: bool,
        dealer_final: bool,
    ) -> RoundRecord {
        let dealer = &data.dealer;
        let dealer_total = dealer.total();
        // One allocation per round: the boxes, each holding its hands and side bets inline,
        // filled where they lie (a box record is some 400 bytes: built aside, it is copied in).
        let dealer_natural = dealer.is_natural();
        let insurance_pays =
            (dealer_final && dealer.len() >= 2).then_some(if dealer_natural { 2.0 } else { -1.0 });
        let mut boxes = Vec::with_capacity(data.boxes.len());
        for b in data.boxes.iter().filter(|b| Self::in_play(b)) {
            boxes.push(BoxRecord {
                number: b.number,
                hands: Inline::default(),
                side_bets: Inline::default(),
            });
            let Some(record) = boxes.last_mut() else {
                continue;
            };
            for (hi, h) in b.hands().iter().enumerate() {
                let (outcome, pays, mut rule) = self.settle(h, hi, dealer, dealer_final);
                // 5.1 and 5.4 are the Blackjack rules' numbers; Pontoon's are not in the source.
                if self.book.variant.is_pontoon() && rule.is_some_and(|r| r.starts_with("5.")) {
                    rule = None;
                }
                let total = h.cards.total();
                record.hands.push(HandRecord {
                    cards: h.cards,
                    total: total.map(|t| t.value),
                    soft: total.is_some_and(|t| t.soft),
                    doubled: h.doubled,
                    split: h.from_split,
                    outcome,
                    pays,
                    rule,
                });
            }
            if let Some(s7) = self.super_sevens(b) {
                record.side_bets.push(s7);
            }
            if b.insurance {
                record.side_bets.push(SideBet {
                    bet: "insurance",
                    sevens: None,
                    suited: None,
                    pays: insurance_pays,
                });
            }
        }
        RoundRecord {
            game: self.book.variant.name(),
            shoe: data.shoe,
            round: data.number,
            dealer: *dealer,
            dealer_total: dealer_total.map(|t| t.value),
            dealer_blackjack: dealer_natural,
            boxes,
            first_seq: data.first_seq,
            last_seq: data.last_seq,
            complete,
        }
    }
}
