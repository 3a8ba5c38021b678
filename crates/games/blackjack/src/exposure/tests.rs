//! The count and the Super Sevens worth, checked by hand and against every ordering of small
//! shoes.

use super::*;
use pitwatch_model::{DeckKind, ShoeComposition};
use proptest::prelude::*;

fn pays() -> SuperSevensSection {
    SuperSevensSection {
        min_decks: 6,
        one_seven: 3,
        two_unsuited: 50,
        two_suited: 100,
        three_unsuited: 500,
        three_suited: 5000,
    }
}

#[test]
fn hi_lo_counts_low_cards_up_and_high_cards_down_and_balances_over_a_deck() {
    assert_eq!(hi_lo(Rank::Two), 1);
    assert_eq!(hi_lo(Rank::Six), 1);
    assert_eq!(hi_lo(Rank::Seven), 0);
    assert_eq!(hi_lo(Rank::Nine), 0);
    assert_eq!(hi_lo(Rank::Ten), -1);
    assert_eq!(hi_lo(Rank::King), -1);
    assert_eq!(hi_lo(Rank::Ace), -1);
    let deck: i32 = Rank::ALL.iter().map(|&r| hi_lo(r) * 4).sum();
    assert_eq!(deck, 0, "a balanced count");
}

#[test]
fn the_true_count_is_per_deck_left_and_penetration_the_share_dealt() {
    let mut counter = ShoeComposition::new(6, DeckKind::Standard52).counter();
    for _ in 0..4 {
        for suit in Suit::ALL {
            counter.see(Card::new(Rank::Five, suit));
        }
    }
    for suit in Suit::ALL {
        counter.see(Card::new(Rank::Ace, suit));
    }
    let count = Count::of(&counter);
    assert_eq!(count.running, 16 - 4);
    assert_eq!(count.left(), 312 - 20);
    let true_count = count.true_count().expect("cards left");
    assert!((true_count - 12.0 * 52.0 / 292.0).abs() < 1e-12);
    assert!((count.penetration() - 20.0 / 312.0).abs() < 1e-12);
    // Pontoon's decks are counted in 48s.
    let spanish = Count::of(&ShoeComposition::new(6, DeckKind::Spanish48).counter());
    assert_eq!(
        (spanish.shoe, spanish.per_deck, spanish.running),
        (288, 48, 0)
    );
}

#[test]
fn a_full_shoe_gives_super_sevens_the_worth_its_counts_make() {
    // Six decks: 24 sevens, six of each suit, among 312 cards.
    let counter = ShoeComposition::new(6, DeckKind::Standard52).counter();
    let worth = super_sevens(&counter, &pays()).expect("a whole shoe");
    let (n, s, o) = (312i128, 24i128, 288i128);
    let expected = -o * (n - 1) * (n - 2)
        + s * o * (n - 2) * 3
        + 4 * 6 * 5 * (4 * 5000 + 18 * 500 + o * 100)
        + 24 * 18 * (22 * 500 + o * 50);
    assert_eq!(worth.with_third, expected);
    assert_eq!(worth.denominator, (n * (n - 1) * (n - 2)) as u128);
    // The house is well ahead off the top, and more so when the third card never comes.
    assert!(worth.house_edge_percent() > 5.0, "{worth:?}");
    assert!(worth.house_edge_without_third_percent() > worth.house_edge_percent());
}

#[test]
fn sevens_gone_make_super_sevens_worse_and_sevens_left_better() {
    let full = ShoeComposition::new(6, DeckKind::Standard52).counter();
    let base = super_sevens(&full, &pays()).expect("cards left");
    let mut without_sevens = full.clone();
    for _ in 0..3 {
        for suit in Suit::ALL {
            without_sevens.see(Card::new(Rank::Seven, suit));
        }
    }
    let fewer = super_sevens(&without_sevens, &pays()).expect("cards left");
    assert!(fewer.house_edge_percent() > base.house_edge_percent());
    let mut rich = full;
    for rank in [Rank::Ten, Rank::Jack, Rank::Queen, Rank::King] {
        for _ in 0..6 {
            for suit in Suit::ALL {
                rich.see(Card::new(rank, suit));
            }
        }
    }
    let richer = super_sevens(&rich, &pays()).expect("cards left");
    assert!(richer.house_edge_percent() < base.house_edge_percent());
}

/// Every ordered triple of the distinct cards given, paid as the wager pays.
fn brute_force(cards: &[Card], third: bool) -> (i128, u128) {
    let p = pays();
    let seven = |card: Card| card.rank == Rank::Seven;
    let mut total = 0i128;
    let mut count = 0u128;
    for a in 0..cards.len() {
        for b in 0..cards.len() {
            for c in 0..cards.len() {
                if a == b || b == c || a == c {
                    continue;
                }
                count += 1;
                let (x, y, z) = (cards[a], cards[b], cards[c]);
                total += if !seven(x) {
                    -1
                } else if !seven(y) {
                    i128::from(p.one_seven)
                } else if third && seven(z) {
                    if x.suit == y.suit && y.suit == z.suit {
                        i128::from(p.three_suited)
                    } else {
                        i128::from(p.three_unsuited)
                    }
                } else if x.suit == y.suit {
                    i128::from(p.two_suited)
                } else {
                    i128::from(p.two_unsuited)
                };
            }
        }
    }
    (total, count)
}

proptest! {
    /// The closed form equals paying every ordered triple of a small shoe.
    #[test]
    fn the_worth_equals_every_ordering_paid(
        sevens in prop::collection::vec(0usize..4, 0..7),
        others in 0usize..6,
    ) {
        // Physical cards: sevens of the suits drawn, then other ranks.
        let mut cards: Vec<Card> = sevens
            .iter()
            .map(|&s| Card::new(Rank::Seven, Suit::ALL[s]))
            .collect();
        cards.extend((0..others).map(|i| Card::new(Rank::Two, Suit::ALL[i % 4])));
        prop_assume!(cards.len() >= 3);
        let mut by_suit = [0i128; 4];
        for &s in &sevens {
            by_suit[s] += 1;
        }
        let worth = super_sevens_from(by_suit, cards.len() as i128, &pays()).expect("three cards");
        let (with, n) = brute_force(&cards, true);
        let (without, _) = brute_force(&cards, false);
        prop_assert_eq!(worth.denominator, n);
        prop_assert_eq!(worth.with_third, with);
        prop_assert_eq!(worth.without_third, without);
    }
}
