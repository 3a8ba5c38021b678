//! The exposure figures checked to the digit against the published ones, and the enumeration
//! against a brute-force deal of every ordering of small shoes.

use super::*;
use crate::PointSet;
use pitwatch_model::DeckKind;
use proptest::prelude::*;

fn eight_decks() -> (Outcomes, CardsLeft) {
    let left = CardsLeft::full(ShoeComposition::new(8, DeckKind::Standard52));
    let outcomes = outcomes(&DrawingTable::punto_banco(), &left).expect("a whole shoe");
    (outcomes, left)
}

fn edge(wager: Wager) -> f64 {
    let (outcomes, left) = eight_decks();
    worth(wager, &outcomes, &left).house_edge_percent()
}

/// Rounded as the published figures are.
fn rounded(x: f64, places: i32) -> f64 {
    let scale = 10f64.powi(places);
    (x * scale).round() / scale
}

#[test]
fn a_whole_eight_deck_shoe_gives_the_published_counts_of_the_main_wagers() {
    let (outcomes, _) = eight_decks();
    let winner = |side: Option<Side>| outcomes.count(|e| e.winner() == side);
    assert_eq!(winner(Some(Side::Banker)), 2_292_252_566_437_888);
    assert_eq!(winner(Some(Side::Player)), 2_230_518_282_592_256);
    assert_eq!(winner(None), 475_627_426_473_216);
    assert_eq!(outcomes.total(), 4_998_398_275_503_360);
}

#[test]
fn a_whole_eight_deck_shoe_gives_the_published_house_edges() {
    assert_eq!(
        rounded(
            edge(Wager::Banker {
                commission_percent: 5
            }),
            4
        ),
        1.0579
    );
    assert_eq!(rounded(edge(Wager::Player), 4), 1.2351);
    assert_eq!(rounded(edge(Wager::Tie { pays: 8 }), 4), 14.3596);
    assert_eq!(rounded(edge(Wager::Dragon7 { pays: 40 }), 4), 7.6113);
    assert_eq!(rounded(edge(Wager::Panda8 { pays: 25 }), 4), 10.1876);
    assert_eq!(rounded(edge(Wager::PlayerPair { pays: 11 }), 4), 10.3614);
    assert_eq!(rounded(edge(Wager::BankerPair { pays: 11 }), 4), 10.3614);
}

#[test]
fn the_side_bets_come_from_these_exact_counts() {
    let (outcomes, left) = eight_decks();
    // A Banker win with three cards totalling 7, a Player win with three cards totalling 8.
    let dragon =
        outcomes.count(|e| e.winner() == Some(Side::Banker) && e.banker_three && e.banker == 7);
    let panda =
        outcomes.count(|e| e.winner() == Some(Side::Player) && e.player_three && e.player == 8);
    assert_eq!(dragon, DRAGON_7_SEQUENCES);
    assert_eq!(panda, PANDA_8_SEQUENCES);
    // 416 cards, 32 of each rank: 13 × 32 × 31 ordered pairs of a rank among 416 × 415.
    let pair = worth(Wager::PlayerPair { pays: 11 }, &outcomes, &left);
    assert_eq!(pair.denominator, 416 * 415);
    assert_eq!(
        pair.numerator,
        11 * 13 * 32 * 31 - (416 * 415 - 13 * 32 * 31)
    );
    // Dragon 7 at 40 to 1, exactly: 41 × its sequences less every sequence, over them all.
    let d7 = worth(Wager::Dragon7 { pays: 40 }, &outcomes, &left);
    assert_eq!(
        d7.numerator,
        100 * (41 * DRAGON_7_SEQUENCES as i128 - outcomes.total() as i128)
    );
}

/// Ordered six-card sequences of an eight-deck shoe that deal a Banker win with a three-card 7.
const DRAGON_7_SEQUENCES: u128 = 112_633_011_329_024;
/// Ordered six-card sequences of an eight-deck shoe that deal a Player win with a three-card 8.
const PANDA_8_SEQUENCES: u128 = 172_660_763_262_976;

#[test]
fn no_commission_banker_stands_off_a_three_card_seven() {
    let (outcomes, left) = eight_decks();
    let ez = worth(Wager::BankerNoCommission, &outcomes, &left);
    let banker = outcomes.count(|e| e.winner() == Some(Side::Banker));
    let player = outcomes.count(|e| e.winner() == Some(Side::Player));
    let dragon =
        outcomes.count(|e| e.winner() == Some(Side::Banker) && e.banker_three && e.banker == 7);
    assert_eq!(
        ez.numerator,
        100 * ((banker - dragon) as i128 - player as i128)
    );
    // EZ Baccarat's published Banker edge: 1.0183%.
    assert_eq!(rounded(ez.house_edge_percent(), 4), 1.0183);
}

#[test]
fn a_shoe_rich_in_sevens_favours_dragon_7_and_too_few_cards_count_nothing() {
    // Take out every eight and nine: the Banker's three-card sevens grow common.
    let mut left = CardsLeft::full(ShoeComposition::new(8, DeckKind::Standard52));
    for rank in [Rank::Eight, Rank::Nine] {
        while left.take(rank) {}
    }
    let table = DrawingTable::punto_banco();
    let o = outcomes(&table, &left).expect("enough cards");
    let dragon = worth(Wager::Dragon7 { pays: 40 }, &o, &left);
    let full = edge(Wager::Dragon7 { pays: 40 });
    assert!(dragon.house_edge_percent() < full, "{dragon:?}");
    let five = CardsLeft::of_ranks(&[Rank::Ace, Rank::Two, Rank::Three, Rank::Four, Rank::Five]);
    assert_eq!(outcomes(&table, &five), None);
}

#[test]
fn unseen_cards_stay_in_the_count_and_seen_ones_leave_it() {
    let composition = ShoeComposition::new(8, DeckKind::Standard52);
    let mut counter = composition.counter();
    counter.see(Card::new(Rank::Seven, Suit::Hearts));
    counter.see(Card::new(Rank::Seven, Suit::Spades));
    let left = CardsLeft::after(&counter);
    assert_eq!(left.total(), 414);
    assert_eq!(left.of(Rank::Seven), 30);
    assert_eq!(left.of(Rank::Eight), 32);
}

/// Every ordered six-card sequence of the distinct cards of `ranks`, dealt one by one.
fn brute_force(table: &DrawingTable, ranks: &[Rank]) -> std::collections::HashMap<Ending, u128> {
    let cards: Vec<Card> = ranks.iter().map(|&r| Card::new(r, Suit::Clubs)).collect();
    let mut counts = std::collections::HashMap::new();
    let mut order = Vec::with_capacity(6);
    let mut used = vec![false; cards.len()];
    fn walk(
        table: &DrawingTable,
        cards: &[Card],
        used: &mut [bool],
        order: &mut Vec<usize>,
        counts: &mut std::collections::HashMap<Ending, u128>,
    ) {
        if order.len() == 6 {
            let mut hands: BySide<Hand> = BySide::default();
            for &i in order.iter() {
                match table.next_card(&hands.player, &hands.banker) {
                    NextCard::To(side, _) | NextCard::Unknown(side) => {
                        hands.get_mut(side).push(Some(cards[i]));
                    }
                    NextCard::Complete => break,
                }
            }
            let ending = Ending {
                player: hands.player.total().unwrap_or(0),
                player_three: hands.player.len() == 3,
                banker: hands.banker.total().unwrap_or(0),
                banker_three: hands.banker.len() == 3,
            };
            *counts.entry(ending).or_default() += 1;
            return;
        }
        for i in 0..cards.len() {
            if !used[i] {
                used[i] = true;
                order.push(i);
                walk(table, cards, used, order, counts);
                order.pop();
                used[i] = false;
            }
        }
    }
    walk(table, &cards, &mut used, &mut order, &mut counts);
    counts
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// The exact enumeration equals dealing every ordering of a small shoe card by card.
    #[test]
    fn the_enumeration_equals_every_ordering_dealt(
        ranks in prop::collection::vec(prop::sample::select(Rank::ALL.to_vec()), 6..=8)
    ) {
        let table = DrawingTable::punto_banco();
        let left = CardsLeft::of_ranks(&ranks);
        let counted = outcomes(&table, &left).expect("six cards or more");
        let dealt = brute_force(&table, &ranks);
        let counted_map: std::collections::HashMap<Ending, u128> = counted.endings().collect();
        prop_assert_eq!(&counted_map, &dealt);
        prop_assert_eq!(counted.total(), dealt.values().sum::<u128>());
    }
}

/// Any Table of Play a rule book could hold: every set drawn at random, naturals included.
fn any_table() -> impl Strategy<Value = DrawingTable> {
    let set = || {
        (0u16..0x400).prop_map(|mask| {
            PointSet::of(
                &(0u8..=9)
                    .filter(|v| mask & (1 << v) != 0)
                    .collect::<Vec<_>>(),
            )
        })
    };
    (set(), set(), set(), prop::array::uniform10(set())).prop_map(
        |(
            natural,
            player_draws_on,
            banker_draws_when_player_stood,
            banker_draws_when_player_drew,
        )| {
            DrawingTable {
                natural,
                player_draws_on,
                banker_draws_when_player_stood,
                banker_draws_when_player_drew,
            }
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// The plan read off the engine once counts what asking the engine at every card counts, for
    /// any Table of Play and any shoe, from a few cards to most of eight decks.
    #[test]
    fn the_plan_counts_what_the_general_walk_counts(
        table in prop_oneof![Just(DrawingTable::punto_banco()), any_table()],
        counts in prop::array::uniform13(0u32..=32),
    ) {
        let ranks: Vec<Rank> = Rank::ALL
            .iter()
            .zip(counts)
            .flat_map(|(&rank, n)| std::iter::repeat_n(rank, n as usize))
            .collect();
        let left = CardsLeft::of_ranks(&ranks);
        prop_assert_eq!(outcomes(&table, &left), outcomes_by_walk(&table, &left));
    }
}

#[test]
fn the_plan_is_used_for_the_books_table() {
    assert!(Plan::of(&DrawingTable::punto_banco()).is_some());
}
