//! The differential fault-injection test for poker, like Baccarat's
//! (`crates/games/baccarat/tests/it/differential.rs`): streams of one to four honest hands (from a
//! device that reports each card's `index`, or one that does not) from the test's own dealer (`dealer.rs`, written from the variants' deal and seed 002, not from the
//! engine), one of them with one injected fault. The engine must raise exactly one irregularity,
//! in that hand, with the code and rule seed 002 gives the fault, record that hand as the seed
//! says (a misdeal by its letter, or one seat's hand dead or void and no misdeal), and leave
//! every other hand untouched: no irregularity, no misdeal, no seat ruled. Honest streams raise
//! nothing.
//!
//! `PITWATCH_FAULT_CASES` sets the cases of the property tests (default 256) and the seeded
//! cases per fault and variant of the confusion matrix (default 25). The matrix in
//! `docs/irregularities.md` is printed by
//! `PITWATCH_FAULT_CASES=200 cargo test -p pitwatch-poker --test it differential::fault_matrix -- --nocapture`.

use std::collections::BTreeMap;

use pitwatch_model::{EventKind, TableEvent};
use pitwatch_poker::{replay, Book, HandRecord, Output};
use pitwatch_rules::{Irregularity, IrregularityCode};
use proptest::prelude::*;

use crate::dealer::{deal, Fault, Rng, VARIANTS};

fn cases(default: u32) -> u32 {
    std::env::var("PITWATCH_FAULT_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(default)
}

/// What one case gave: a label for the matrix and what went against seed 002.
struct Case {
    label: String,
    problems: Vec<String>,
}

fn label(irregularities: &[&Irregularity], hand: Option<&HandRecord>) -> String {
    let raised = match irregularities {
        [] => "—".to_owned(),
        [one] => {
            let also: Vec<&str> = IrregularityCode::ALL
                .iter()
                .filter(|c| one.also.contains(**c))
                .map(|c| c.as_str())
                .collect();
            let also = if also.is_empty() {
                String::new()
            } else {
                format!(" (+{})", also.join(", "))
            };
            format!("{}{also} \"{}\"", one.code, one.rule)
        }
        many => format!("{} incidents", many.len()),
    };
    let hand = match hand {
        Some(h) => match (h.misdeal, h.seats.iter().find_map(|s| s.ruled)) {
            (Some(m), _) => format!("misdeal {m}"),
            (None, Some(r)) => format!("seat {r}"),
            (None, None) => "no misdeal".to_owned(),
        },
        None => "no hand".to_owned(),
    };
    format!("{raised}, {hand}")
}

/// Deals a stream of `variant` with `fault` in one hand (or none), replays it and checks it.
fn case(variant: &str, fault: Option<Fault>, seed: u64) -> Case {
    let mut rng = Rng::new(seed);
    let count = 1 + rng.below(4);
    let at = rng.below(count);
    // Half the streams come from a device that reports each card's index, half without it.
    let indexed = rng.one_in(2);
    let mut kinds = Vec::new();
    let mut aimed = None;
    for h in 0..count {
        let dealt = deal(
            &mut rng,
            variant,
            if h == at { fault } else { None },
            indexed,
        );
        if h == at {
            aimed = dealt.seat;
        }
        kinds.extend(dealt.events);
    }
    // The next shuffle ends the last hand: it was played to its end.
    kinds.push(EventKind::Shuffled {
        decks: Some(1),
        cards: Some(52),
        shuffler: None,
    });
    let events: Vec<TableEvent> = kinds
        .into_iter()
        .enumerate()
        .map(|(i, k)| TableEvent::new(i as u64 + 1, k))
        .collect();
    let book = Book::nz_poker().with_variant(variant).unwrap();
    let out = replay(&book, &events);
    let irregularities: Vec<&Irregularity> = out
        .iter()
        .filter_map(|o| match o {
            Output::Irregularity(i) => Some(i),
            _ => None,
        })
        .collect();
    let hands: Vec<&HandRecord> = out
        .iter()
        .filter_map(|o| match o {
            Output::Hand(h) => Some(h),
            _ => None,
        })
        .collect();
    let mut problems = Vec::new();
    if hands.len() != count || hands.iter().any(|h| !h.complete) {
        problems.push(format!("{} hands recorded of {count} dealt", hands.len()));
    }
    for (i, h) in hands.iter().enumerate() {
        let ruled: Vec<_> = h
            .seats
            .iter()
            .filter_map(|s| s.ruled.map(|r| (s.seat, r)))
            .collect();
        match fault.filter(|_| i == at) {
            None => {
                if h.misdeal.is_some() || !ruled.is_empty() {
                    problems.push(format!(
                        "hand {} untouched by the fault: misdeal {:?}, seats ruled {ruled:?}",
                        h.hand, h.misdeal
                    ));
                }
            }
            Some(f) => {
                let expect = f.expect(variant);
                let want: Vec<_> = expect
                    .ruled
                    .iter()
                    .filter_map(|&r| aimed.map(|s| (s, r)))
                    .collect();
                if h.misdeal != expect.misdeal || ruled != want {
                    problems.push(format!(
                        "faulted hand {}: misdeal {:?}, seats ruled {ruled:?}; seed 002 gives misdeal {:?}, seats ruled {want:?}",
                        h.hand, h.misdeal, expect.misdeal
                    ));
                }
            }
        }
    }
    match fault {
        None => {
            if !irregularities.is_empty() {
                problems.push(format!("honest hands raised {irregularities:?}"));
            }
        }
        Some(f) => {
            let expect = f.expect(variant);
            match irregularities.as_slice() {
                [one] => {
                    let deck = u32::try_from(at).unwrap() + 1;
                    if one.code != expect.code
                        || one.rule != expect.rule
                        || one.also != pitwatch_rules::CodeSet::EMPTY
                        || one.shoe != deck
                        || one.round != Some(1)
                    {
                        problems.push(format!(
                            "raised {} (also {:?}) \"{}\" in deck {} round {:?}; seed 002 gives {} \"{}\" in deck {deck} round 1",
                            one.code, one.also, one.rule, one.shoe, one.round, expect.code, expect.rule
                        ));
                    }
                }
                other => problems.push(format!(
                    "{} irregularities, not one: {other:?}",
                    other.len()
                )),
            }
        }
    }
    Case {
        label: label(&irregularities, hands.get(at).copied()),
        problems,
    }
}

/// Every (variant, fault) pair the dealer injects.
fn pairs() -> Vec<(&'static str, Fault)> {
    let mut all = Vec::new();
    for &variant in VARIANTS {
        for &fault in Fault::ALL {
            if fault.applies(variant) {
                all.push((variant, fault));
            }
        }
    }
    all
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(256)))]

    #[test]
    fn one_injected_fault_is_one_irregularity_in_its_hand_and_every_other_hand_is_untouched(
        (variant, fault) in prop::sample::select(pairs()),
        seed in any::<u64>(),
    ) {
        let case = case(variant, Some(fault), seed);
        prop_assert!(
            case.problems.is_empty(),
            "{} in {variant} (seed {seed}): {}",
            fault.name(),
            case.problems.join("; ")
        );
    }

    #[test]
    fn honest_streams_raise_nothing(
        variant in prop::sample::select(VARIANTS.to_vec()),
        seed in any::<u64>(),
    ) {
        let case = case(variant, None, seed);
        prop_assert!(case.problems.is_empty(), "{variant} (seed {seed}): {}", case.problems.join("; "));
    }
}

/// A matrix row: per variant, how many cases gave each label.
type Row = BTreeMap<&'static str, BTreeMap<String, u64>>;

/// The confusion matrix: each fault (and none) in each variant it applies to, over seeded cases
/// (seed `k` for case `k`), tallied by what was raised and how the faulted hand was recorded;
/// printed as the Markdown table in `docs/irregularities.md`. Every case must also pass the
/// property above.
#[test]
fn fault_matrix() {
    let per = u64::from(cases(25));
    let mut rows: Vec<(String, Row)> = Vec::new();
    let mut failed = Vec::new();
    let faults: Vec<Option<Fault>> = std::iter::once(None)
        .chain(Fault::ALL.iter().copied().map(Some))
        .collect();
    for fault in faults {
        let name = fault.map_or("none (honest)", Fault::name).to_owned();
        let mut row = Row::new();
        for &variant in VARIANTS {
            if fault.is_some_and(|f| !f.applies(variant)) {
                continue;
            }
            let tally: &mut BTreeMap<String, u64> = row.entry(variant).or_default();
            for k in 0..per {
                let case = case(variant, fault, k);
                *tally.entry(case.label).or_default() += 1;
                if !case.problems.is_empty() {
                    failed.push(format!(
                        "{name} in {variant} (seed {k}): {}",
                        case.problems.join("; ")
                    ));
                }
            }
        }
        rows.push((name, row));
    }
    let mut table = format!("| injected fault | {} |\n|---|", VARIANTS.join(" | "));
    table.push_str(&"---|".repeat(VARIANTS.len()));
    table.push('\n');
    for (name, row) in &rows {
        table.push_str(&format!("| `{name}` |"));
        for variant in VARIANTS {
            let cell = match row.get(variant) {
                None => "n/a".to_owned(),
                Some(tally) => tally
                    .iter()
                    .map(|(label, n)| format!("{label} {n}/{per}"))
                    .collect::<Vec<_>>()
                    .join("<br>"),
            };
            table.push_str(&format!(" {cell} |"));
        }
        table.push('\n');
    }
    println!("{table}");
    let total: u64 = rows
        .iter()
        .flat_map(|(_, row)| row.values())
        .flat_map(|tally| tally.values())
        .sum();
    println!("{total} cases, {} failed", failed.len());
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}
