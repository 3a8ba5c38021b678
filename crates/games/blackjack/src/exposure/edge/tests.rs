//! The player's edge: against a Monte Carlo reference that deals real rounds from the finite
//! shoe and plays the calculation's own decisions (the error bound), against published
//! full-shoe figures, basic strategy's best-known decisions, and on any composition (a property
//! test).
//!
//! The Monte Carlo runs `EDGE_MC_ROUNDS` rounds per shoe (200,000 by default, a few seconds in
//! a debug build); docs/exposure.md gives the large runs (`EDGE_MC_ROUNDS=20000000 cargo test
//! --release ...`).

use super::Strategy;
use super::*;
use pitwatch_model::{DeckKind, Suit};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A common American rule set: six decks, the dealer stands on soft 17 and peeks, double on any
/// two, double after split, split to four hands, no resplit of aces, no surrender, 3 to 2.
fn american(decks: u8, h17: bool) -> Book {
    let mut book = Book::nz_blackjack()
        .with_decks(decks)
        .expect("4 to 8 decks");
    book.hole_card = HoleCard::American;
    book.dealer_hits_soft17 = h17;
    book.double_on = DoubleOn::AnyTwo;
    book.double_after_split = true;
    book.max_hands = 4;
    book.resplit_aces = false;
    book.split_aces_one_card = true;
    book.surrender = false;
    book.dealer_natural_takes = DealerNaturalTakes::AllStakes;
    book
}

/// Every card of `composition` less `gone` cards of each value (aces first).
fn depleted(composition: ShoeComposition, gone: [u32; 10]) -> RanksLeft {
    let full = RanksLeft::full(composition).counts();
    RanksLeft::from_counts(std::array::from_fn(|v| full[v].saturating_sub(gone[v])))
}

// ---------------------------------------------------------------------------------------------
// The Monte Carlo reference: whole rounds dealt without replacement from the cards left, settled
// as the engine settles them (round/settle.rs), the decisions read from the calculation's
// strategy.

struct Shoe {
    full: [u32; 10],
    left: [u32; 10],
    n: u32,
}

impl Shoe {
    fn new(left: &RanksLeft) -> Shoe {
        Shoe {
            full: left.counts(),
            left: left.counts(),
            n: left.total(),
        }
    }

    fn reset(&mut self) {
        self.left = self.full;
        self.n = self.full.iter().sum();
    }

    fn draw(&mut self, rng: &mut ChaCha8Rng) -> usize {
        let mut r = rng.gen_range(0..self.n);
        for (v, count) in self.left.iter_mut().enumerate() {
            if r < *count {
                *count -= 1;
                self.n -= 1;
                return v;
            }
            r -= *count;
        }
        unreachable!("the shoe holds {} cards", self.n)
    }
}

#[derive(Clone)]
struct McHand {
    cards: Vec<usize>,
    doubled: bool,
    from_split: bool,
}

impl McHand {
    fn new(cards: Vec<usize>, from_split: bool) -> McHand {
        McHand {
            cards,
            doubled: false,
            from_split,
        }
    }
    fn hard(&self) -> usize {
        self.cards.iter().map(|v| v + 1).sum()
    }
    fn ace(&self) -> bool {
        self.cards.contains(&0)
    }
    fn total(&self) -> usize {
        best(self.hard(), self.ace())
    }
    fn natural(&self) -> bool {
        self.cards.len() == 2 && self.total() == 21
    }
}

fn settled(rules: &Rules, hand: &McHand) -> bool {
    hand.total() > 21 || (rules.at_once && hand.total() == 21)
}

fn hit_on(
    rules: &Rules,
    strategy: &Strategy,
    hand: &mut McHand,
    fh: usize,
    u: usize,
    shoe: &mut Shoe,
    rng: &mut ChaCha8Rng,
) {
    while !settled(rules, hand) {
        let k = slot(strategy.counts_cards, hand.cards.len());
        if !strategy.hit[fh][u][hand.hard()][usize::from(hand.ace())][k] {
            break;
        }
        hand.cards.push(shoe.draw(rng));
    }
}

/// What the engine pays a hand (round/settle.rs), the dealer's cards final.
fn settle(rules: &Rules, hand: &McHand, hi: usize, dealer: &McHand) -> f64 {
    let stake = if hand.doubled { 2.0 } else { 1.0 };
    let total = hand.total();
    if total > 21 {
        return -stake;
    }
    let natural = hand.natural() && (!hand.from_split || rules.split_natural);
    if rules.at_once && total == 21 {
        if natural {
            return rules.natural_pays;
        }
        if let Some((cards, six_seven_eight, seven_seven_seven, not_after_double)) = rules.bonus {
            if !(not_after_double && hand.doubled) {
                let mut sorted = hand.cards.clone();
                sorted.sort_unstable();
                // Value indexes: 5 a six, 6 a seven, 7 an eight.
                if sorted == [5, 6, 7] {
                    return six_seven_eight * stake;
                }
                if sorted == [6, 6, 6] {
                    return seven_seven_seven * stake;
                }
                match hand.cards.len() {
                    5 => return cards[0] * stake,
                    6 => return cards[1] * stake,
                    n if n >= 7 => return cards[2] * stake,
                    _ => {}
                }
            }
        }
        return stake;
    }
    let dealer_natural = dealer.natural();
    if natural {
        return if dealer_natural {
            0.0
        } else {
            rules.natural_pays
        };
    }
    if dealer_natural {
        return if rules.all_stakes {
            -stake
        } else if hi == 0 {
            -1.0
        } else {
            0.0
        };
    }
    let d = dealer.total();
    if d > 21 || total > d {
        stake
    } else if total == d {
        0.0
    } else {
        -stake
    }
}

fn round(rules: &Rules, strategy: &Strategy, shoe: &mut Shoe, rng: &mut ChaCha8Rng) -> f64 {
    shoe.reset();
    let (p1, u, p2) = (shoe.draw(rng), shoe.draw(rng), shoe.draw(rng));
    let mut dealer = McHand::new(vec![u], false);
    if rules.peek {
        dealer.cards.push(shoe.draw(rng));
        if dealer.natural() {
            let player = McHand::new(vec![p1, p2], false);
            return match (player.natural(), rules.at_once) {
                (true, true) => rules.natural_pays,
                (true, false) => 0.0,
                (false, _) => -1.0,
            };
        }
    }
    let first = McHand::new(vec![p1, p2], false);
    let mut hands = Vec::new();
    if first.natural() {
        hands.push(first);
    } else {
        match strategy.first[p1][p2][u] {
            Play::Surrender => return -0.5,
            Play::Stand => hands.push(first),
            Play::Hit => {
                let mut hand = first;
                hand.cards.push(shoe.draw(rng));
                hit_on(rules, strategy, &mut hand, 0, u, shoe, rng);
                hands.push(hand);
            }
            Play::Double => {
                let mut hand = first;
                hand.doubled = true;
                hand.cards.push(shoe.draw(rng));
                hands.push(hand);
            }
            Play::Split => {
                let x = p1;
                let max = if x == 0 && !rules.resplit_aces {
                    2
                } else {
                    usize::from(rules.max_hands)
                };
                hands.push(McHand::new(vec![x], true));
                hands.push(McHand::new(vec![x], true));
                let mut i = 0;
                while i < hands.len() {
                    let c = shoe.draw(rng);
                    if c == x && hands.len() < max {
                        hands.push(McHand::new(vec![x], true));
                        continue;
                    }
                    hands[i].cards.push(c);
                    let fh = usize::from(i > 0);
                    let hand = &mut hands[i];
                    let one_card = x == 0 && rules.aces_one_card;
                    if !one_card && !settled(rules, hand) {
                        match strategy.split_hand[fh][x][c][u] {
                            Play::Double => {
                                hand.doubled = true;
                                hand.cards.push(shoe.draw(rng));
                            }
                            Play::Hit => {
                                hand.cards.push(shoe.draw(rng));
                                hit_on(rules, strategy, hand, fh, u, shoe, rng);
                            }
                            _ => {}
                        }
                    }
                    i += 1;
                }
            }
        }
    }
    if !rules.peek {
        dealer.cards.push(shoe.draw(rng));
    }
    if !dealer.natural() {
        loop {
            let t = dealer.total();
            let soft = dealer.ace() && dealer.hard() + 10 <= 21;
            if t >= 18 || (t == 17 && !(soft && rules.h17)) {
                break;
            }
            dealer.cards.push(shoe.draw(rng));
        }
    }
    hands
        .iter()
        .enumerate()
        .map(|(hi, hand)| settle(rules, hand, hi, &dealer))
        .sum()
}

/// The mean return per round and its standard error over `rounds` rounds.
fn monte_carlo(
    book: &Book,
    left: &RanksLeft,
    strategy: &Strategy,
    rounds: u64,
    seed: u64,
) -> (f64, f64) {
    let rules = Rules::of(book);
    let mut shoe = Shoe::new(left);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let (mut sum, mut sum2) = (0.0, 0.0);
    for _ in 0..rounds {
        let x = round(&rules, strategy, &mut shoe, &mut rng);
        sum += x;
        sum2 += x * x;
    }
    let n = rounds as f64;
    let mean = sum / n;
    let var = (sum2 / n - mean * mean).max(0.0);
    (mean, (var / n).sqrt())
}

fn rounds() -> u64 {
    std::env::var("EDGE_MC_ROUNDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(200_000)
}

/// The calculation against the Monte Carlo: a line to print, and whether it is within the bound
/// plus three standard errors.
fn check_against_monte_carlo(
    name: &str,
    book: &Book,
    left: &RanksLeft,
    seed: u64,
) -> (String, bool, [f64; 3]) {
    let analysis = analyse(book, left).expect("enough cards");
    let edge = player_edge_of(book, left).expect("enough cards");
    let (mean, se) = monte_carlo(book, left, &analysis.strategy, rounds(), seed);
    let (calc, sim, se) = (edge.percent, 100.0 * mean, 100.0 * se);
    let off = calc - sim;
    let line = format!(
        "{name}: {} cards, calculated {calc:+.4}%, Monte Carlo {sim:+.4}% ± {se:.4} (1 s.e.), off {off:+.4}, bound {:.4}",
        left.total(),
        edge.error_bound
    );
    (
        line,
        off.abs() <= edge.error_bound + 3.0 * se,
        [off, edge.error_bound, se],
    )
}

#[test]
fn the_edge_lies_within_its_bound_of_a_finite_shoe_dealt_round_by_round() {
    let six = ShoeComposition::new(6, DeckKind::Standard52);
    let one = ShoeComposition::new(1, DeckKind::Standard52);
    let nz = Book::nz_blackjack();
    let peek = american(6, false);
    let pontoon = Book::nz_pontoon();
    let spanish = ShoeComposition::new(6, DeckKind::Spanish48);
    // Tens (index 9) and low cards (indexes 1 to 5) taken out in numbers.
    let low_gone = [0, 10, 10, 10, 10, 10, 0, 0, 0, 0];
    let tens_gone = [0, 0, 0, 0, 0, 0, 0, 0, 0, 40];
    let cases: Vec<(&str, &Book, RanksLeft)> = vec![
        ("nz-blackjack, six decks whole", &nz, RanksLeft::full(six)),
        (
            "American S17 peek, six decks whole",
            &peek,
            RanksLeft::full(six),
        ),
        (
            "nz-pontoon, six Spanish decks whole",
            &pontoon,
            RanksLeft::full(spanish),
        ),
        (
            "nz-blackjack, two decks left rich in tens",
            &nz,
            depleted(
                ShoeComposition::new(2, DeckKind::Standard52),
                [0, 2, 2, 2, 2, 2, 0, 0, 0, 0],
            ),
        ),
        (
            "nz-blackjack, six decks, 50 low cards gone",
            &nz,
            depleted(six, low_gone),
        ),
        (
            "American S17 peek, six decks, 40 tens gone",
            &peek,
            depleted(six, tens_gone),
        ),
        ("nz-blackjack, one deck left", &nz, RanksLeft::full(one)),
        (
            "American S17 peek, one deck left",
            &peek,
            RanksLeft::full(one),
        ),
        (
            "nz-pontoon, one Spanish deck left, tens poor",
            &pontoon,
            depleted(
                ShoeComposition::new(1, DeckKind::Spanish48),
                [0, 0, 0, 0, 0, 0, 0, 0, 0, 4],
            ),
        ),
    ];
    let mut beyond = Vec::new();
    let mut pooled = [0.0; 3];
    for (seed, (name, book, left)) in cases.iter().enumerate() {
        let (line, within, [off, bound, se]) =
            check_against_monte_carlo(name, book, left, 29 + seed as u64);
        println!("{line}");
        if !within {
            beyond.push(line);
        }
        pooled[0] += off;
        pooled[1] += bound;
        pooled[2] += se * se;
    }
    assert!(
        beyond.is_empty(),
        "beyond the bound plus 3 s.e.:\n{}",
        beyond.join("\n")
    );
    // A bias the same way in every shoe shows in the mean, whose error is a third of each
    // shoe's: the mean lies within the mean bound and three of its standard errors.
    let k = cases.len() as f64;
    let (mean_off, mean_bound, mean_se) = (pooled[0] / k, pooled[1] / k, pooled[2].sqrt() / k);
    println!("mean: off {mean_off:+.4}, bound {mean_bound:.4}, s.e. {mean_se:.4}");
    assert!(
        mean_off.abs() <= mean_bound + 3.0 * mean_se,
        "the shoes are off by {mean_off} on average, beyond {mean_bound} + 3 x {mean_se}"
    );
}

// ---------------------------------------------------------------------------------------------
// Published figures and basic strategy.

#[test]
fn a_whole_six_deck_shoe_under_common_rules_gives_the_published_house_edge() {
    // The rule-effects table of "The Color of Blackjack" (thecolorofblackjack.com/
    // solution_one.html, after the figures of the Wizard of Odds and Griffin): from a single-deck
    // baseline of -0.02%, six decks -0.53 and double after split +0.13 give -0.42% for six
    // decks, S17, double on any two, DAS, resplits, no surrender, 3 to 2; the dealer hitting
    // soft 17 costs 0.20 points, a natural paid 6 to 5 1.39. The method's bound at 312 cards
    // is 0.07 points; 0.1 is allowed (the table is rounded and additive).
    let full = RanksLeft::full(ShoeComposition::new(6, DeckKind::Standard52));
    let s17 = player_edge_of(&american(6, false), &full).expect("a whole shoe");
    assert!((s17.percent + 0.42).abs() < 0.1, "S17: {}%", s17.percent);
    let h17 = player_edge_of(&american(6, true), &full).expect("a whole shoe");
    let added = s17.percent - h17.percent;
    assert!((added - 0.20).abs() < 0.05, "H17 costs {added} points");
    let mut six_five = american(6, false);
    six_five.natural_pays = crate::Odds { to: 6, per: 5 };
    let worse = player_edge_of(&six_five, &full).expect("a whole shoe");
    let cost = s17.percent - worse.percent;
    println!(
        "S17 {:+.4}%, H17 {:+.4}%, 6 to 5 {:+.4}%",
        s17.percent, h17.percent, worse.percent
    );
    assert!((cost - 1.39).abs() < 0.05, "6 to 5 costs {cost} points");
}

#[test]
fn a_whole_six_deck_shoe_with_no_hole_card_gives_the_published_house_edge() {
    // The Wizard of Odds, Blackjack Appendix 9 (wizardofodds.com/games/blackjack/appendix/9/
    // euro-6dh17r4/), computed exactly: six decks, the dealer hits soft 17, no hole card and a
    // dealer blackjack takes every stake, resplits to four hands but not aces, one card to
    // split aces, double after split: an expected return of -0.72705%.
    let mut book = american(6, true);
    book.hole_card = HoleCard::None;
    book.dealer_natural_takes = DealerNaturalTakes::AllStakes;
    let full = RanksLeft::full(ShoeComposition::new(6, DeckKind::Standard52));
    let edge = player_edge_of(&book, &full).expect("a whole shoe");
    assert!((edge.percent + 0.727).abs() < edge.error_bound, "{edge:?}");
    // Taking only the original wager is worth about a tenth of a point more to the player.
    book.dealer_natural_takes = DealerNaturalTakes::OriginalOnly;
    let original = player_edge_of(&book, &full).expect("a whole shoe");
    println!(
        "no hole card, H17: all stakes {:+.4}%, original only {:+.4}%",
        edge.percent, original.percent
    );
    assert!(original.percent > edge.percent + 0.05, "{original:?}");
}

#[test]
fn the_decisions_are_basic_strategy_s_best_known_ones() {
    let full = RanksLeft::full(ShoeComposition::new(6, DeckKind::Standard52));
    let analysis = analyse(&american(6, false), &full).expect("a whole shoe");
    let first = &analysis.strategy.first;
    // Value indexes: 0 an ace, 9 a ten.
    let cases = [
        (9, 9, 5, Play::Stand, "20 against a 6"),
        (4, 5, 5, Play::Double, "11 against a 6"),
        (4, 5, 9, Play::Double, "11 against a 10"),
        (7, 7, 6, Play::Split, "8-8 against a 7"),
        (0, 0, 9, Play::Split, "A-A against a 10"),
        (8, 8, 6, Play::Stand, "9-9 against a 7"),
        (5, 9, 9, Play::Hit, "16 against a 10, no surrender"),
        (1, 9, 3, Play::Stand, "12 against a 4"),
        (1, 9, 1, Play::Hit, "12 against a 2"),
        (0, 6, 4, Play::Double, "soft 18 against a 5"),
        (0, 6, 8, Play::Hit, "soft 18 against a 9"),
        (2, 4, 0, Play::Hit, "8 against an ace"),
    ];
    for (a, b, u, play, what) in cases {
        assert_eq!(first[a][b][u], play, "{what}");
    }
    // With surrender, 16 against a 10 is given up.
    let mut book = american(6, false);
    book.surrender = true;
    let analysis = analyse(&book, &full).expect("a whole shoe");
    assert_eq!(analysis.strategy.first[5][9][9], Play::Surrender);
    // Hard 17 stands and soft 17 hits against a 7 later in a hand.
    assert!(!analysis.strategy.hit[0][6][17][0][0]);
    assert!(analysis.strategy.hit[0][6][7][1][0]);
}

#[test]
fn tens_left_favour_the_player_and_low_cards_left_the_house() {
    let six = ShoeComposition::new(6, DeckKind::Standard52);
    let book = Book::nz_blackjack();
    let whole = player_edge_of(&book, &RanksLeft::full(six)).expect("cards");
    let rich =
        player_edge_of(&book, &depleted(six, [0, 12, 12, 12, 12, 12, 0, 0, 0, 0])).expect("cards");
    let poor =
        player_edge_of(&book, &depleted(six, [0, 0, 0, 0, 0, 0, 0, 0, 0, 60])).expect("cards");
    assert!(rich.percent > whole.percent + 1.0, "{rich:?} {whole:?}");
    assert!(poor.percent < whole.percent - 1.0, "{poor:?} {whole:?}");
    // The house is ahead on a whole NZ shoe (no hole card, hard doubles only).
    assert!(whole.percent < 0.0 && !whole.player_ahead(), "{whole:?}");
    assert_eq!(whole.method, METHOD);
    assert_eq!(whole.cards_left, 312);
}

#[test]
fn the_edge_from_a_counter_is_the_edge_of_the_cards_it_has_not_seen() {
    let book = Book::nz_blackjack();
    let mut counter = ShoeComposition::new(6, DeckKind::Standard52).counter();
    for suit in Suit::ALL {
        counter.see(Card::new(Rank::Five, suit));
        counter.see(Card::new(Rank::King, suit));
    }
    let mut left = RanksLeft::full(counter.composition());
    for _ in 0..4 {
        assert!(left.take(Rank::Five));
        assert!(left.take(Rank::King));
    }
    assert_eq!(RanksLeft::after(&counter), left);
    assert_eq!(player_edge(&book, &counter), player_edge_of(&book, &left));
    // Pontoon's decks hold no tens, but court cards count ten.
    let spanish = RanksLeft::full(ShoeComposition::new(6, DeckKind::Spanish48));
    assert_eq!(spanish.counts()[9], 6 * 12);
    assert_eq!(spanish.total(), 288);
}

#[test]
fn pontoon_states_what_it_leaves_out_and_is_worth_more_with_its_bonuses() {
    let spanish = RanksLeft::full(ShoeComposition::new(6, DeckKind::Spanish48));
    let book = Book::nz_pontoon();
    let edge = player_edge_of(&book, &spanish).expect("a whole shoe");
    assert!(
        edge.unmodelled.iter().any(|u| u.contains("6-7-8")),
        "{edge:?}"
    );
    let mut plain = book.clone();
    plain.bonus = None;
    let without = player_edge_of(&plain, &spanish).expect("a whole shoe");
    assert!(edge.percent > without.percent, "{edge:?} {without:?}");
}

#[test]
fn too_few_cards_give_no_figure() {
    let book = Book::nz_blackjack();
    let few = RanksLeft::from_counts([1, 1, 1, 1, 1, 1, 1, 1, 1, 10]);
    assert_eq!(few.total(), MIN_CARDS - 1);
    assert!(player_edge_of(&book, &few).is_none());
    let enough = RanksLeft::from_counts([1, 1, 1, 1, 1, 1, 1, 1, 1, 11]);
    assert!(player_edge_of(&book, &enough).is_some());
}

#[test]
fn the_bound_shrinks_as_the_shoe_grows() {
    assert!(error_bound(52) > error_bound(312));
    assert!(error_bound(416) > 0.0);
    assert!(error_bound(0).is_finite());
}

proptest! {
    /// Any composition with enough cards gives a finite figure within what a round can pay;
    /// fewer give none.
    #[test]
    fn any_composition_gives_a_finite_figure_or_none(
        counts in prop::array::uniform10(0u32..40),
        pontoon in any::<bool>(),
        peek in any::<bool>(),
    ) {
        let mut book = if pontoon { Book::nz_pontoon() } else { Book::nz_blackjack() };
        if peek {
            book.hole_card = HoleCard::American;
        }
        let left = RanksLeft::from_counts(counts);
        match player_edge_of(&book, &left) {
            None => prop_assert!(left.total() < MIN_CARDS),
            Some(edge) => {
                prop_assert!(left.total() >= MIN_CARDS);
                prop_assert!(edge.percent.is_finite() && edge.error_bound.is_finite());
                // A round loses at most the four split hands doubled and wins at most that
                // times the best bonus.
                prop_assert!(edge.percent > -800.0 && edge.percent < 2400.0, "{edge:?}");
            }
        }
    }
}
