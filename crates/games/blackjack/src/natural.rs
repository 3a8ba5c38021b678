//! The chance that a box's first two cards are a natural (a blackjack; a Pontoon in a Spanish
//! shoe), computed exactly over every ordered pair of cards a full shoe can give, through the
//! engine's own hand evaluation ([`crate::hand::Cards::is_natural`]).

use pitwatch_model::{Card, ShoeComposition};

use crate::hand::Cards;

/// The exact probability that two cards drawn from a full `composition` make a natural.
pub fn probability(composition: ShoeComposition) -> f64 {
    let mut naturals = 0u64;
    let mut pairs = 0u64;
    for first in 0..Card::DISTINCT {
        let Some(a) = Card::from_index(first) else {
            continue;
        };
        let copies_a = u64::from(composition.copies_of(a));
        if copies_a == 0 {
            continue;
        }
        for second in 0..Card::DISTINCT {
            let Some(b) = Card::from_index(second) else {
                continue;
            };
            let copies_b = u64::from(composition.copies_of(b));
            // The second card cannot be the very copy drawn first.
            let ways = copies_a
                * if first == second {
                    copies_b - 1
                } else {
                    copies_b
                };
            if ways == 0 {
                continue;
            }
            pairs += ways;
            let mut hand = Cards::new();
            hand.push(Some(a));
            hand.push(Some(b));
            if hand.is_natural() {
                naturals += ways;
            }
        }
    }
    naturals as f64 / pairs as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use pitwatch_model::DeckKind;

    /// The published figures (`../shared/docs/games.md` section 7): 4.745% for 8 standard decks,
    /// 4.749% for 6; 4.178% for 8 Spanish decks, 4.181% for 6, 4.188% for 4.
    #[test]
    fn the_chance_of_a_natural_matches_the_published_figures() {
        let percent = |decks, kind| {
            (probability(ShoeComposition::new(decks, kind)) * 100_000.0).round() / 1000.0
        };
        assert_eq!(percent(8, DeckKind::Standard52), 4.745);
        assert_eq!(percent(6, DeckKind::Standard52), 4.749);
        assert_eq!(percent(8, DeckKind::Spanish48), 4.178);
        assert_eq!(percent(6, DeckKind::Spanish48), 4.181);
        assert_eq!(percent(4, DeckKind::Spanish48), 4.188);
    }

    #[test]
    fn it_equals_the_closed_form() {
        // 2 · (4N)(16N) / (52N (52N − 1)) for standard decks, 2 · (4N)(12N) / (48N (48N − 1)).
        for n in 1..=8u8 {
            let m = f64::from(n);
            let standard = 2.0 * (4.0 * m) * (16.0 * m) / (52.0 * m * (52.0 * m - 1.0));
            let spanish = 2.0 * (4.0 * m) * (12.0 * m) / (48.0 * m * (48.0 * m - 1.0));
            let got = probability(ShoeComposition::new(n, DeckKind::Standard52));
            assert!(
                (got - standard).abs() < 1e-12,
                "{n} standard: {got} vs {standard}"
            );
            let got = probability(ShoeComposition::new(n, DeckKind::Spanish48));
            assert!(
                (got - spanish).abs() < 1e-12,
                "{n} spanish: {got} vs {spanish}"
            );
        }
    }
}
