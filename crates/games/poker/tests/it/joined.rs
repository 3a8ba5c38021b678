//! A table joined mid-hand after a restart: streams of hands from the test's dealer
//! (`dealer.rs`) are cut at every position of the first hand (the monitor stopped listening
//! there), and the hand under way when it listened again is followed as joined: honest play
//! raises nothing after the cut, and a fault dealt in the hand after the joined one (every hand
//! is dealt from a fresh shuffle) is still exactly one incident, in that hand.

use pitwatch_model::{EventKind, TableEvent};
use pitwatch_poker::{Book, Engine, Output};
use pitwatch_rules::{Game, Irregularity};
use proptest::prelude::*;

use crate::dealer::{deal, Fault, Rng, VARIANTS};

/// Runs `events` through a fresh engine, interrupting before the event at index `cut`.
fn run(book: &Book, events: &[TableEvent], cut: usize) -> Vec<Output> {
    let mut engine = Engine::new(book.clone());
    let mut out = Vec::new();
    for (i, event) in events.iter().enumerate() {
        if i == cut {
            engine.interrupt();
        }
        engine.handle_event(event);
        out.extend(std::iter::from_fn(|| engine.poll_output()));
    }
    engine.finish();
    out.extend(std::iter::from_fn(|| engine.poll_output()));
    out
}

fn irregularities(outputs: &[Output]) -> Vec<&Irregularity> {
    outputs
        .iter()
        .filter_map(|o| match o {
            Output::Irregularity(i) => Some(i),
            _ => None,
        })
        .collect()
}

/// Two hands of `variant`, the second with `fault`, then the shuffle that ends it; and the index
/// of the second hand's shuffle.
fn stream(seed: u64, variant: &str, fault: Option<Fault>) -> (Vec<TableEvent>, usize) {
    let mut rng = Rng::new(seed);
    let indexed = rng.one_in(2);
    let mut kinds = deal(&mut rng, variant, None, indexed).events;
    let second = kinds.len();
    kinds.extend(deal(&mut rng, variant, fault, indexed).events);
    kinds.push(EventKind::Shuffled {
        decks: Some(1),
        cards: Some(52),
        shuffler: None,
    });
    let events = kinds
        .into_iter()
        .enumerate()
        .map(|(i, k)| TableEvent::new(i as u64 + 1, k))
        .collect();
    (events, second)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn honest_hands_cut_anywhere_raise_nothing(seed in any::<u64>()) {
        for &variant in VARIANTS {
            let book = Book::nz_poker().with_variant(variant).unwrap();
            let (events, _) = stream(seed, variant, None);
            for cut in 0..events.len() {
                let out = run(&book, &events, cut);
                let flagged = irregularities(&out);
                prop_assert!(
                    flagged.is_empty(),
                    "{variant} seed {seed}, cut before seq {}: {:#?}",
                    events[cut].seq,
                    flagged
                );
            }
        }
    }

    #[test]
    fn a_fault_in_the_hand_after_the_joined_one_is_exactly_one_incident(
        seed in any::<u64>(),
        fault in proptest::sample::select(vec![
            Fault::ExtraCardBeforeAction,
            Fault::ExtraCardAfterOwnAction,
            Fault::ExtraCardAfterOthersActed,
            Fault::DealtOut,
            Fault::ShortInitialDeal,
            Fault::InitialOutOfOrder,
            Fault::DuplicateCard,
            Fault::TwoExposedInInitialDraw,
            Fault::WrongFaceInitial,
            Fault::StreetTwoCards,
            Fault::StreetOutOfOrder,
            Fault::LastPlayerShort,
        ]),
    ) {
        for &variant in VARIANTS.iter().filter(|v| fault.applies(v)) {
            let book = Book::nz_poker().with_variant(variant).unwrap();
            let (events, second) = stream(seed, variant, Some(fault));
            let code = fault.expect(variant).code;
            for cut in 1..=second {
                let out = run(&book, &events, cut);
                let flagged = irregularities(&out);
                let label = format!(
                    "{variant} {} seed {seed}, cut before seq {}",
                    fault.name(),
                    events[cut].seq
                );
                prop_assert_eq!(flagged.len(), 1, "{}: {:#?}", label, flagged);
                prop_assert_eq!(flagged[0].code, code, "{}", label);
                prop_assert!(flagged[0].seq > events[second].seq, "{}", label);
            }
        }
    }
}
