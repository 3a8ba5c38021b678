//! Shuffle integrity: does a shoe's card order show that the cards were really mixed?
//!
//! A card-reading shoe records the order of every card drawn. A false shuffle that keeps a block
//! of cards (a "slug") in the order it was dealt from the previous shoe, or a shuffle too weak to
//! mix (one or two riffles), leaves that order visible in the next shoe. [`analyse`] compares a
//! shoe's order with the orders of the table's previous shoes and computes two statistics and
//! their p-values under a uniform random shuffle (method and calibration: `docs/shuffle.md`):
//!
//! - the **longest preserved run**: the longest block of consecutive cards that appears in the
//!   same order, consecutively, in a previous shoe. Cards are compared by rank and suit: a
//!   multi-deck shoe's copies of a card cannot be told apart, so any copy matches. p-value: a
//!   union bound over the start positions of both shoes (conservative, never below the truth
//!   given the bound on a block's probability, [`Analysis::p_run`]).
//! - the **preserved pairs**: how many adjacent pairs (card, next card) of the shoe also occur
//!   as an adjacent pair in a previous shoe. Under a uniform shuffle every position has the same
//!   chance of a preserved pair, so the expected count is exact; the tail is Poisson
//!   ([`Analysis::p_pairs`]). This is what one to four riffles leave (each riffle keeps about
//!   half of the adjacent pairs together).
//!
//! **Burn and unreadable cards.** The order given is every card the shoe drew, burn included
//! (burn cards are physically part of the stack and the shoe reads them). An unreadable card
//! (`None`) matches nothing, in either shoe: a run or pair through it is broken, never bridged,
//! so an unreadable card can only lower the statistics (the p-values stay valid, if weaker).
//!
//! Pure and deterministic: no clock, no I/O, no randomness.

mod stats;
pub mod watch;

use pitwatch_model::{Card, ShoeComposition};
use serde::Serialize;

pub use stats::poisson_upper_tail;
pub use watch::{orders_from_events, Order, ShoeShuffle, ShuffleBook, ShuffleWatch};

/// How the analysis judges a shoe: the rule book's `[shuffle]` settings.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Settings {
    /// A shoe whose combined p-value is at or below this is `suspect` (the false-alarm rate on
    /// honest shoes is at most this; `docs/shuffle.md`).
    pub alarm_p_value: f64,
    /// A shoe whose combined p-value is at or below this (but above the alarm) is `weak`.
    pub weak_p_value: f64,
    /// How many of the table's previous shoes to compare with (the nearest first).
    pub previous_shoes: u32,
}

impl Default for Settings {
    /// One false alarm in 10,000 honest shoes at most; `weak` at one in 1,000; the two previous
    /// shoes.
    fn default() -> Settings {
        Settings {
            alarm_p_value: 1e-4,
            weak_p_value: 1e-3,
            previous_shoes: 2,
        }
    }
}

/// What the analysis concludes about a shoe.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Nothing to compare with (the table's first shoe, or one too short to judge).
    NotCompared,
    /// No sign of the previous order.
    WellMixed,
    /// More of the previous order than a uniform shuffle leaves often, below the alarm.
    Weak,
    /// The previous order survives far beyond what a uniform shuffle leaves: `SHUFFLE_SUSPECT`.
    Suspect,
}

impl Verdict {
    /// The name used in JSON (`well_mixed`).
    pub const fn as_str(self) -> &'static str {
        match self {
            Verdict::NotCompared => "not_compared",
            Verdict::WellMixed => "well_mixed",
            Verdict::Weak => "weak",
            Verdict::Suspect => "suspect",
        }
    }
}

/// A block of cards found in the same order in the shoe and a previous shoe.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PreservedRun {
    /// How many shoes back the previous shoe is (1: the shoe just before).
    pub shoes_back: u32,
    /// Cards in the block.
    pub length: u32,
    /// 1-based position of the block's first card in this shoe's order (burn included).
    pub position: u32,
    /// 1-based position of the block's first card in the previous shoe's order.
    pub previous_position: u32,
    /// The cards, in order.
    pub cards: Vec<Card>,
}

/// The statistics against one previous shoe.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    /// How many shoes back (1: the shoe just before).
    pub shoes_back: u32,
    /// Cards (readable) in the previous shoe's order.
    pub previous_cards: u32,
    /// The longest block in the same order, with where it is; `None` when no card matches.
    pub run: Option<PreservedRun>,
    /// Adjacent pairs of this shoe found as adjacent pairs in the previous shoe.
    pub preserved_pairs: u32,
    /// The expected number of preserved pairs under a uniform shuffle.
    pub expected_pairs: f64,
    /// P(preserved pairs ≥ observed) under a uniform shuffle (Poisson tail).
    pub p_pairs: f64,
}

/// A shoe's shuffle statistics against the table's previous shoes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Analysis {
    /// Cards in the shoe's order (burn included), readable or not.
    pub cards: u32,
    /// Unreadable cards among them.
    pub unreadable: u32,
    /// One comparison per previous shoe, the nearest first.
    pub comparisons: Vec<Comparison>,
    /// The longest preserved run over all previous shoes (0 when there is none).
    pub longest_preserved_run: u32,
    /// Where it is (the first found, nearest shoe first).
    pub run: Option<PreservedRun>,
    /// P(some previous shoe shares a run at least this long) under a uniform shuffle: the
    /// expected number of matching start positions, a union bound (so never too small).
    pub p_run: f64,
    /// The preserved pairs of the comparison with the smallest pair p-value.
    pub preserved_pairs: u32,
    /// Their expected number under a uniform shuffle.
    pub expected_pairs: f64,
    /// The smallest pair p-value times the number of shoes compared (Bonferroni).
    pub p_pairs: f64,
    /// The combined p-value: twice the smaller of `p_run` and `p_pairs` (Bonferroni over the two
    /// statistics), at most 1.
    pub p_value: f64,
    /// When the preserved pairs are what is unusual: the number of Gilbert–Shannon–Reeds riffles
    /// (without a wash) that keeps about this many pairs.
    pub riffles: Option<u32>,
    /// The conclusion under the settings.
    pub verdict: Verdict,
}

impl Analysis {
    /// A short label for a person: "well mixed", "weak: consistent with 3 riffles", "weak: a
    /// block of 6 cards kept", "suspect: a block of 20 cards kept", "not compared".
    pub fn label(&self) -> String {
        let detail = match (self.p_run <= self.p_pairs, &self.run, self.riffles) {
            (true, Some(run), _) => format!("a block of {} cards kept", run.length),
            (_, _, Some(k)) => format!(
                "consistent with {k} riffle{}",
                if k == 1 { "" } else { "s" }
            ),
            _ => format!("{} pairs kept", self.preserved_pairs),
        };
        match self.verdict {
            Verdict::NotCompared => "not compared".into(),
            Verdict::WellMixed => "well mixed".into(),
            Verdict::Weak => format!("weak: {detail}"),
            Verdict::Suspect => format!("suspect: {detail}"),
        }
    }
}

/// Fewer readable cards than this in the shoe, and it is not judged (a shoe cut off at its start).
pub const MIN_CARDS: u32 = 20;

/// Compares `current` (every card the shoe drew, in order, burn included; `None`: unreadable)
/// with `previous` (the table's previous shoes' orders, the nearest first; only the first
/// `settings.previous_shoes` are used), for a shoe of `composition`.
pub fn analyse(
    current: &[Option<Card>],
    previous: &[&[Option<Card>]],
    composition: ShoeComposition,
    settings: &Settings,
) -> Analysis {
    let cards = current.len() as u32;
    let unreadable = current.iter().filter(|c| c.is_none()).count() as u32;
    let readable = cards - unreadable;
    let used = previous
        .iter()
        .take(settings.previous_shoes as usize)
        .filter(|p| p.iter().any(Option::is_some))
        .count();
    let model = Model::new(composition);
    let comparisons: Vec<Comparison> = previous
        .iter()
        .take(settings.previous_shoes as usize)
        .enumerate()
        .filter(|(_, p)| p.iter().any(Option::is_some))
        .map(|(i, p)| compare(current, p, i as u32 + 1, &model))
        .collect();

    let run = comparisons
        .iter()
        .filter_map(|c| c.run.as_ref())
        .fold(None::<&PreservedRun>, |best, r| match best {
            Some(b) if b.length >= r.length => Some(b),
            _ => Some(r),
        })
        .cloned();
    let longest = run.as_ref().map_or(0, |r| r.length);
    let p_run = if longest == 0 {
        1.0
    } else {
        let expected: f64 = comparisons
            .iter()
            .map(|c| model.expected_runs(current.len(), c.previous_cards as usize, longest))
            .sum();
        expected.min(1.0)
    };
    let best_pairs = comparisons
        .iter()
        .min_by(|a, b| a.p_pairs.total_cmp(&b.p_pairs));
    let (preserved_pairs, expected_pairs, p_pairs_one) = best_pairs.map_or((0, 0.0, 1.0), |c| {
        (c.preserved_pairs, c.expected_pairs, c.p_pairs)
    });
    let p_pairs = (p_pairs_one * used.max(1) as f64).min(1.0);
    let p_value = (2.0 * p_run.min(p_pairs)).min(1.0);
    let riffles = best_pairs.and_then(|c| {
        estimate_riffles(
            c.preserved_pairs,
            c.expected_pairs,
            readable,
            c.previous_cards,
            composition.total_cards(),
        )
    });
    let verdict = if used == 0 || readable < MIN_CARDS {
        Verdict::NotCompared
    } else if p_value <= settings.alarm_p_value {
        Verdict::Suspect
    } else if p_value <= settings.weak_p_value {
        Verdict::Weak
    } else {
        Verdict::WellMixed
    };
    Analysis {
        cards,
        unreadable,
        comparisons,
        longest_preserved_run: longest,
        run,
        p_run,
        preserved_pairs,
        expected_pairs,
        p_pairs,
        p_value,
        riffles: if p_pairs <= p_run { riffles } else { None },
        verdict,
    }
}

/// The null model: a uniformly random order of the full shoe.
struct Model {
    /// Cards in the full shoe.
    total: f64,
    /// Copies of each card (by [`Card::index`]).
    copies: [f64; Card::DISTINCT],
    /// The most copies of any card.
    max_copies: f64,
}

impl Model {
    fn new(composition: ShoeComposition) -> Model {
        let mut copies = [0.0; Card::DISTINCT];
        for (i, slot) in copies.iter_mut().enumerate() {
            if let Some(card) = Card::from_index(i) {
                *slot = f64::from(composition.copies_of(card));
            }
        }
        Model {
            total: f64::from(composition.total_cards()).max(1.0),
            copies,
            max_copies: copies.iter().copied().fold(0.0, f64::max),
        }
    }

    /// An upper bound on the probability that `length` given positions of a uniformly random
    /// order hold a given block: each card, drawn without replacement, is at most
    /// `max_copies / (total − t)`.
    fn block_bound(&self, length: u32) -> f64 {
        (0..length)
            .map(|t| (self.max_copies / (self.total - f64::from(t)).max(1.0)).min(1.0))
            .product()
    }

    /// The expected number of start positions (i, j) where `n` positions of the shoe and `m` of a
    /// previous shoe agree for at least `length` cards, bounded above (a union bound).
    fn expected_runs(&self, n: usize, m: usize, length: u32) -> f64 {
        let l = length as usize;
        if n < l || m < l {
            return 0.0;
        }
        ((n - l + 1) as f64) * ((m - l + 1) as f64) * self.block_bound(length)
    }

    /// The probability that two given adjacent positions of a uniformly random order hold `a`
    /// then `b`.
    fn pair(&self, a: usize, b: usize) -> f64 {
        let ka = self.copies[a];
        let kb = self.copies[b] - if a == b { 1.0 } else { 0.0 };
        (ka * kb.max(0.0)) / (self.total * (self.total - 1.0).max(1.0))
    }
}

/// Compares the shoe with one previous shoe.
fn compare(
    current: &[Option<Card>],
    previous: &[Option<Card>],
    shoes_back: u32,
    model: &Model,
) -> Comparison {
    let run = longest_common_block(current, previous).map(|(length, i, j)| PreservedRun {
        shoes_back,
        length: length as u32,
        position: i as u32 + 1,
        previous_position: j as u32 + 1,
        cards: current[i..i + length].iter().flatten().copied().collect(),
    });

    // The previous shoe's adjacent pairs, as a set of (card, next card).
    let mut pairs = vec![false; Card::DISTINCT * Card::DISTINCT];
    for w in previous.windows(2) {
        if let (Some(a), Some(b)) = (w[0], w[1]) {
            pairs[a.index() * Card::DISTINCT + b.index()] = true;
        }
    }
    let chance: f64 = pairs
        .iter()
        .enumerate()
        .filter(|(_, kept)| **kept)
        .map(|(k, _)| model.pair(k / Card::DISTINCT, k % Card::DISTINCT))
        .sum();
    let preserved = current
        .windows(2)
        .filter(|w| match (w[0], w[1]) {
            (Some(a), Some(b)) => pairs[a.index() * Card::DISTINCT + b.index()],
            _ => false,
        })
        .count() as u32;
    // Every position of a uniformly random order has the same chance of holding a given pair,
    // whatever its neighbours: the expectation is exact.
    let expected = current.len().saturating_sub(1) as f64 * chance;
    Comparison {
        shoes_back,
        previous_cards: previous.iter().filter(|c| c.is_some()).count() as u32,
        run,
        preserved_pairs: preserved,
        expected_pairs: expected,
        p_pairs: poisson_upper_tail(preserved, expected),
    }
}

/// The longest block of readable cards that `a` and `b` both hold consecutively in the same order,
/// as (length, start in `a`, start in `b`); the first such block by position in `a`, then in `b`.
/// `None` when they share no readable card. Dynamic programming over one row: O(|a|·|b|) time,
/// O(|b|) memory.
pub fn longest_common_block(
    a: &[Option<Card>],
    b: &[Option<Card>],
) -> Option<(usize, usize, usize)> {
    let mut row = vec![0u32; b.len() + 1];
    let mut best: Option<(usize, usize, usize)> = None;
    let mut best_len = 0;
    for (i, x) in a.iter().enumerate() {
        let Some(x) = x else {
            row.fill(0);
            continue;
        };
        // `diag` is the previous row's value one column left, saved before it is overwritten.
        let mut diag = 0;
        for (j, y) in b.iter().enumerate() {
            let up = row[j + 1];
            let len = if *y == Some(*x) { diag + 1 } else { 0 };
            row[j + 1] = len;
            diag = up;
            // Strictly longer only: the first block found (by position in `a`, then `b`) stays.
            if len > best_len {
                best_len = len;
                best = Some((len as usize, i + 1 - len as usize, j + 1 - len as usize));
            }
        }
    }
    best
}

/// The number of riffles (1 to 12) whose expected share of kept pairs is nearest the observed
/// excess, or `None` when there is no excess to explain.
///
/// One Gilbert–Shannon–Reeds riffle of a stack keeps an adjacent pair adjacent when both cards fall
/// in the same packet, chance 1/2; K riffles, 1/2^K. Only the part of the stack that was dealt is
/// seen in the previous shoe, so the share observable is scaled by its fraction of the shoe.
fn estimate_riffles(
    preserved: u32,
    expected: f64,
    readable: u32,
    previous_cards: u32,
    total: u32,
) -> Option<u32> {
    let slots = f64::from(readable.saturating_sub(1)).max(1.0);
    let excess = (f64::from(preserved) - expected) / slots;
    let seen = (f64::from(previous_cards) / f64::from(total.max(1))).min(1.0);
    if excess <= 0.0 || seen <= 0.0 {
        return None;
    }
    let share = excess / seen;
    (1..=12u32).min_by(|a, b| {
        let da = (share.ln() - (0.5f64.powi(*a as i32)).ln()).abs();
        let db = (share.ln() - (0.5f64.powi(*b as i32)).ln()).abs();
        da.total_cmp(&db)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pitwatch_model::DeckKind;

    fn shoe(cards: &[usize]) -> Vec<Option<Card>> {
        cards.iter().map(|&i| Card::from_index(i % 52)).collect()
    }

    #[test]
    fn the_longest_common_block_is_found_at_its_positions() {
        let a = shoe(&[1, 2, 3, 4, 5, 6, 7]);
        let b = shoe(&[9, 3, 4, 5, 6, 10, 1, 2]);
        assert_eq!(longest_common_block(&a, &b), Some((4, 2, 1)));
        assert_eq!(longest_common_block(&a, &shoe(&[40, 41])), None);
        assert_eq!(longest_common_block(&[], &b), None);
    }

    #[test]
    fn an_unreadable_card_breaks_a_block_and_never_matches() {
        let mut a = shoe(&[1, 2, 3, 4, 5, 6]);
        let b = shoe(&[1, 2, 3, 4, 5, 6]);
        a[2] = None;
        assert_eq!(longest_common_block(&a, &b), Some((3, 3, 3)));
        let blank = vec![None; 6];
        assert_eq!(longest_common_block(&blank, &blank), None);
    }

    #[test]
    fn duplicates_of_a_multi_deck_shoe_match_any_copy() {
        // The block 7, 7, 8 appears twice in b; the first occurrence is reported.
        let a = shoe(&[7, 7, 8, 30]);
        let b = shoe(&[7, 7, 7, 8, 1, 7, 7, 8]);
        assert_eq!(longest_common_block(&a, &b), Some((3, 0, 1)));
    }

    #[test]
    fn a_first_shoe_is_not_compared() {
        let a = shoe(&(0..100).collect::<Vec<_>>());
        let analysis = analyse(
            &a,
            &[],
            ShoeComposition::new(8, DeckKind::Standard52),
            &Settings::default(),
        );
        assert_eq!(analysis.verdict, Verdict::NotCompared);
        assert_eq!(analysis.label(), "not compared");
        assert_eq!(analysis.p_value, 1.0);
    }

    #[test]
    fn the_pair_chance_of_a_full_order_sums_to_one() {
        let model = Model::new(ShoeComposition::new(8, DeckKind::Standard52));
        let total: f64 = (0..52)
            .flat_map(|a| (0..52).map(move |b| (a, b)))
            .map(|(a, b)| model.pair(a, b))
            .sum();
        assert!((total - 1.0).abs() < 1e-12, "{total}");
        let spanish = Model::new(ShoeComposition::new(6, DeckKind::Spanish48));
        let total: f64 = (0..52)
            .flat_map(|a| (0..52).map(move |b| (a, b)))
            .map(|(a, b)| spanish.pair(a, b))
            .sum();
        assert!((total - 1.0).abs() < 1e-12, "{total}");
    }
}
