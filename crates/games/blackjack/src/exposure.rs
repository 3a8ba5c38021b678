//! What surveillance watches at a Blackjack or Pontoon table from the cards dealt alone (issue
//! 29): the Hi-Lo running and true count, how far the shoe is dealt, and the exact worth of the
//! Super Sevens wager on the next round from the sevens (by suit) and the other cards left.
//!
//! **Hi-Lo** (a documented, balanced count): 2 to 6 count +1, 7 to 9 count 0, tens, court cards and
//! aces count −1. The true count is the running count divided by the decks left (cards left over
//! the book's cards per deck: 52, or 48 for Pontoon's Spanish decks). Penetration is the share of
//! the shoe dealt.
//!
//! **Super Sevens** pays on the patron's first cards: the first a 7, then 7-7 (suited or not),
//! then 7-7-7 (all one suit or not), by the book's pay table (`[super_sevens]`). By
//! exchangeability any three places of the shoe's next cards are distributed as its first three,
//! so the worth is exact over ordered triples of the cards left. Whether the patron's third card
//! is dealt depends on play (a patron on 7-7, a hard 14, may stand), so the worth is given both
//! ways: with the third card dealt on 7-7 (the most the wager can be worth) and without it.
//!
//! Cards not seen (a burn dealt face down, a card the shoe could not read) stay in the count as
//! unknown: they are a random part of what is left, which leaves every expectation unchanged.
//!
//! **The player's edge off the top** on the main wager, by a stated method with a tested error
//! bound, is [`edge`]'s ([`player_edge`]).

use pitwatch_model::deck::ShoeCounter;
use pitwatch_model::{Card, Rank, Suit};
use serde::Serialize;

use crate::book::SuperSevensSection;

pub mod edge;

pub use edge::{player_edge, PlayerEdge};

/// The Hi-Lo value of a card's rank.
pub const fn hi_lo(rank: Rank) -> i32 {
    match rank.blackjack_value() {
        2..=6 => 1,
        7..=9 => 0,
        _ => -1,
    }
}

/// Where a shoe stands for a counter: from the cards seen of it so far.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Count {
    /// The Hi-Lo running count of the cards seen.
    pub running: i32,
    /// Cards seen.
    pub seen: u32,
    /// Cards the shoe holds.
    pub shoe: u32,
    /// Cards per deck (52, or 48 for Spanish decks).
    pub per_deck: u32,
}

impl Count {
    /// The count of the cards `counter` has seen.
    pub fn of(counter: &ShoeCounter) -> Count {
        let composition = counter.composition();
        let mut running = 0;
        for i in 0..Card::DISTINCT {
            if let Some(card) = Card::from_index(i) {
                running += hi_lo(card.rank) * i32::from(counter.seen(card));
            }
        }
        Count {
            running,
            seen: counter.total_seen(),
            shoe: composition.total_cards(),
            per_deck: composition.kind.cards_per_deck(),
        }
    }

    /// Cards left in the shoe.
    pub fn left(&self) -> u32 {
        self.shoe.saturating_sub(self.seen)
    }

    /// The running count per deck left (`None` with no card left).
    pub fn true_count(&self) -> Option<f64> {
        let left = self.left();
        (left > 0).then(|| f64::from(self.running) * f64::from(self.per_deck) / f64::from(left))
    }

    /// The share of the shoe dealt, from 0 to 1.
    pub fn penetration(&self) -> f64 {
        if self.shoe == 0 {
            return 0.0;
        }
        f64::from(self.seen.min(self.shoe)) / f64::from(self.shoe)
    }
}

/// The Super Sevens wager's exact worth on the next round: its expected return per unit staked,
/// as `numerator / denominator`, with the patron's third card dealt on 7-7 and without.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct SuperSevensWorth {
    /// Expected return times `denominator`, the third card dealt on 7-7.
    pub with_third: i128,
    /// Expected return times `denominator`, no third card.
    pub without_third: i128,
    /// Ordered triples of the cards left: `N (N − 1) (N − 2)`.
    pub denominator: u128,
}

impl SuperSevensWorth {
    /// The house's edge in percent with the third card dealt on 7-7 (the least it can be).
    pub fn house_edge_percent(&self) -> f64 {
        -100.0 * self.with_third as f64 / self.denominator as f64
    }

    /// The house's edge in percent when the patron stands on 7-7.
    pub fn house_edge_without_third_percent(&self) -> f64 {
        -100.0 * self.without_third as f64 / self.denominator as f64
    }
}

/// The worth of Super Sevens, paid by `pays`, on a round dealt from the cards `counter` has not
/// seen; `None` with fewer than three cards left.
pub fn super_sevens(counter: &ShoeCounter, pays: &SuperSevensSection) -> Option<SuperSevensWorth> {
    let composition = counter.composition();
    let mut sevens = [0i128; 4];
    for (i, suit) in Suit::ALL.into_iter().enumerate() {
        let card = Card::new(Rank::Seven, suit);
        sevens[i] = i128::from(
            composition
                .copies_of(card)
                .saturating_sub(counter.seen(card)),
        );
    }
    let left = i128::from(Count::of(counter).left());
    super_sevens_from(sevens, left, pays)
}

/// [`super_sevens`] from the sevens left by suit and all the cards left.
pub fn super_sevens_from(
    sevens: [i128; 4],
    left: i128,
    pays: &SuperSevensSection,
) -> Option<SuperSevensWorth> {
    let n = left;
    let s: i128 = sevens.iter().sum();
    if n < 3 || s > n || sevens.iter().any(|&x| x < 0) {
        return None;
    }
    let others = n - s;
    let pay = |to_one: u32| i128::from(to_one);
    // Ordered triples by what they pay; a first card that is not a 7 loses the stake.
    let mut with_third = -others * (n - 1) * (n - 2);
    let mut without_third = with_third;
    for (i, &si) in sevens.iter().enumerate() {
        // A 7 then a card that is not.
        let one = si * others * (n - 2) * pay(pays.one_seven);
        with_third += one;
        without_third += one;
        // 7-7 of one suit: the third card a 7 of that suit, another 7, or none.
        let suited = si * (si - 1);
        with_third += suited * (si - 2).max(0) * pay(pays.three_suited)
            + suited * (s - si) * pay(pays.three_unsuited)
            + suited * others * pay(pays.two_suited);
        without_third += suited * (n - 2) * pay(pays.two_suited);
        // 7-7 of two suits: any third 7 makes three unsuited.
        for (j, &sj) in sevens.iter().enumerate() {
            if i == j {
                continue;
            }
            let unsuited = si * sj;
            with_third += unsuited * (s - 2) * pay(pays.three_unsuited)
                + unsuited * others * pay(pays.two_unsuited);
            without_third += unsuited * (n - 2) * pay(pays.two_unsuited);
        }
    }
    Some(SuperSevensWorth {
        with_third,
        without_third,
        denominator: (n * (n - 1) * (n - 2)) as u128,
    })
}

#[cfg(test)]
mod tests;
