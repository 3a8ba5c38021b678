//! Properties of the analyser: a shoe compared with itself gives the maximal statistics; a slug is
//! found at its positions in both shoes; honest (uniformly shuffled) shoes have super-uniform
//! p-values (a one-sided Kolmogorov–Smirnov bound at a fixed seed, so it cannot flake), an unbiased
//! expected pair count, and are almost never flagged.

use pitwatch_model::{Card, DeckKind, ShoeComposition};
use pitwatch_shuffle::{analyse, longest_common_block, Settings, Verdict};
use proptest::prelude::*;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const EIGHT: ShoeComposition = ShoeComposition::new(8, DeckKind::Standard52);

/// A full shoe of `composition` in a uniformly random order.
fn shuffled(composition: ShoeComposition, rng: &mut ChaCha8Rng) -> Vec<Option<Card>> {
    let mut cards: Vec<Option<Card>> = (0..Card::DISTINCT)
        .filter_map(Card::from_index)
        .flat_map(|c| std::iter::repeat_n(Some(c), usize::from(composition.copies_of(c))))
        .collect();
    cards.shuffle(rng);
    cards
}

/// The dealt part of a shoe: all but a stub of 14 to 60 cards behind the cutting card.
fn dealt(mut shoe: Vec<Option<Card>>, rng: &mut ChaCha8Rng) -> Vec<Option<Card>> {
    let stub = rng.gen_range(14..=60);
    shoe.truncate(shoe.len() - stub);
    shoe
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn a_shoe_compared_with_itself_gives_the_maximal_statistics(
        seed in any::<u64>(),
        unreadable in proptest::collection::vec(0usize..416, 0..3),
    ) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut shoe = dealt(shuffled(EIGHT, &mut rng), &mut rng);
        for &at in &unreadable {
            if at < shoe.len() {
                shoe[at] = None;
            }
        }
        let analysis = analyse(&shoe, &[&shoe], EIGHT, &Settings::default());
        // The longest block is the longest stretch of readable cards.
        let longest_readable = shoe
            .split(Option::is_none)
            .map(<[Option<Card>]>::len)
            .max()
            .unwrap_or(0) as u32;
        prop_assert_eq!(analysis.longest_preserved_run, longest_readable);
        // Every pair of readable neighbours is preserved.
        let readable_pairs = shoe.windows(2).filter(|w| w[0].is_some() && w[1].is_some()).count();
        prop_assert_eq!(analysis.preserved_pairs as usize, readable_pairs);
        prop_assert_eq!(analysis.verdict, Verdict::Suspect);
        prop_assert!(analysis.p_value < 1e-100, "{}", analysis.p_value);
    }

    #[test]
    fn a_slug_is_found_at_its_positions_in_both_shoes(
        seed in any::<u64>(),
        size in 8usize..40,
    ) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let previous = dealt(shuffled(EIGHT, &mut rng), &mut rng);
        let from = rng.gen_range(0..previous.len() - size);
        let mut current = dealt(shuffled(EIGHT, &mut rng), &mut rng);
        let at = rng.gen_range(0..current.len() - size);
        current[at..at + size].copy_from_slice(&previous[from..from + size]);
        let analysis = analyse(&current, &[&previous], EIGHT, &Settings::default());
        let run = analysis.run.clone().expect("a block");
        prop_assert!(run.length as usize >= size);
        // The block found covers the slug in both shoes, at the same offset (chance matches may
        // only extend it).
        let (start, prev_start) = (run.position as usize - 1, run.previous_position as usize - 1);
        prop_assert!(start <= at && at + size <= start + run.length as usize);
        prop_assert_eq!(at - start, from - prev_start);
        prop_assert_eq!(run.shoes_back, 1);
        prop_assert_eq!(analysis.verdict, Verdict::Suspect);
        prop_assert!(analysis.label().starts_with("suspect: a block of"));
    }

    #[test]
    fn the_longest_common_block_matches_a_brute_force_search(
        a in proptest::collection::vec(proptest::option::weighted(0.9, 0usize..4), 0..30),
        b in proptest::collection::vec(proptest::option::weighted(0.9, 0usize..4), 0..30),
    ) {
        let to_cards = |v: &[Option<usize>]| -> Vec<Option<Card>> {
            v.iter().map(|c| c.and_then(Card::from_index)).collect()
        };
        let (a, b) = (to_cards(&a), to_cards(&b));
        let mut brute = 0;
        for i in 0..a.len() {
            for j in 0..b.len() {
                let mut k = 0;
                while i + k < a.len() && j + k < b.len() && a[i + k].is_some() && a[i + k] == b[j + k] {
                    k += 1;
                }
                brute = brute.max(k);
            }
        }
        let found = longest_common_block(&a, &b);
        prop_assert_eq!(found.map_or(0, |(len, _, _)| len), brute);
        if let Some((len, i, j)) = found {
            prop_assert_eq!(&a[i..i + len], &b[j..j + len]);
        }
    }
}

#[test]
fn honest_shoes_have_super_uniform_p_values_and_are_rarely_flagged() {
    // 400 honest 8-deck shoes, each against the two before it, seed fixed: deterministic. Under a
    // uniform shuffle P(p ≤ α) ≤ α for every α (the statistics are discrete and the run's
    // p-value is a union bound, so p-values are conservative, not exactly uniform). One-sided
    // Kolmogorov–Smirnov: sup_α (F̂(α) − α) stays below sqrt(ln(1/0.001) / 2n), the bound a
    // super-uniform sample exceeds with chance under 0.001.
    let mut rng = ChaCha8Rng::seed_from_u64(20_261_201);
    let settings = Settings::default();
    let mut history: Vec<Vec<Option<Card>>> = vec![dealt(shuffled(EIGHT, &mut rng), &mut rng)];
    let mut p_values = Vec::new();
    let mut flagged = 0;
    let mut excess = Vec::new();
    let n = 400;
    for _ in 0..n {
        let shoe = dealt(shuffled(EIGHT, &mut rng), &mut rng);
        let previous: Vec<&[Option<Card>]> =
            history.iter().rev().take(2).map(Vec::as_slice).collect();
        let analysis = analyse(&shoe, &previous, EIGHT, &settings);
        p_values.push(analysis.p_value);
        flagged += u32::from(analysis.verdict == Verdict::Suspect);
        let first = &analysis.comparisons[0];
        excess.push(f64::from(first.preserved_pairs) - first.expected_pairs);
        history.push(shoe);
    }
    p_values.sort_by(f64::total_cmp);
    let d_plus = p_values
        .iter()
        .enumerate()
        .map(|(i, p)| (i + 1) as f64 / n as f64 - p)
        .fold(f64::NEG_INFINITY, f64::max);
    let bound = ((1.0f64 / 0.001).ln() / (2.0 * n as f64)).sqrt();
    assert!(d_plus <= bound, "D+ {d_plus} > {bound}");
    // At most one flag in 400 honest shoes (the rate allowed is 1 in 10,000).
    assert!(flagged <= 1, "{flagged} honest shoes flagged");
    // The expected pair count is exact: the mean excess is within 4 standard errors of 0
    // (the count is close to Poisson, variance ≈ mean ≈ 55).
    let mean = excess.iter().sum::<f64>() / n as f64;
    let se = (55.0f64 / n as f64).sqrt();
    assert!(mean.abs() < 4.0 * se, "mean excess {mean}, se {se}");
}

#[test]
fn a_spanish_shoe_is_judged_by_its_own_composition() {
    let six = ShoeComposition::new(6, DeckKind::Spanish48);
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let previous = dealt(shuffled(six, &mut rng), &mut rng);
    let current = dealt(shuffled(six, &mut rng), &mut rng);
    let analysis = analyse(&current, &[&previous], six, &Settings::default());
    assert_ne!(analysis.verdict, Verdict::Suspect);
    assert!(analysis.expected_pairs > 0.0);
    let same = analyse(&previous, &[&previous], six, &Settings::default());
    assert_eq!(same.verdict, Verdict::Suspect);
}
