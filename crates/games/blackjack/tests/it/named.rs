//! Split hands named by the card (`box:N.H`): the honest dealer simulator names the hand within
//! the box on every box's card (`Config::name_hands`). The same honest rounds with and without
//! names give the same rounds (outcomes, payouts, cards, totals), and with names every injected
//! fault, the split-hand faults among them, is found once at its round.

use pitwatch_blackjack::dealer::{deal, Config, Fault};
use pitwatch_blackjack::{replay, Book};
use pitwatch_model::{Action, EventKind, Target};
use proptest::prelude::*;

use crate::simulated::{check_outcomes, irregularities, rounds};

fn books() -> [Book; 2] {
    [Book::nz_blackjack(), Book::nz_pontoon()]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    #[test]
    fn the_same_honest_rounds_with_and_without_hand_names_settle_alike(
        seed in any::<u64>(),
        declare_boxes in any::<bool>(),
        report_stands in any::<bool>(),
    ) {
        for book in books() {
            let config = Config {
                seed,
                shoes: 2,
                declare_boxes,
                report_stands,
                insurance_every: 3,
                ..Config::default()
            };
            let plain = deal(&book, &config);
            let named = deal(&book, &Config { name_hands: true, ..config.clone() });
            // The same stream but for the targets: every box's card names its hand.
            prop_assert_eq!(plain.events.len(), named.events.len());
            for (p, n) in plain.events.iter().zip(&named.events) {
                match (&p.kind, &n.kind) {
                    (
                        EventKind::CardDrawn { target: Some(Target::Box(b)), card: pc, index: pi, .. },
                        EventKind::CardDrawn { target: Some(Target::Hand { number, .. }), card: nc, index: ni, .. },
                    ) => {
                        prop_assert_eq!((b, pc, pi), (number, nc, ni));
                    }
                    (p, n) => prop_assert_eq!(p, n),
                }
            }
            let plain_out = replay(&book, &plain.events);
            let named_out = replay(&book, &named.events);
            prop_assert!(irregularities(&named_out).is_empty(), "{:#?}", irregularities(&named_out));
            prop_assert_eq!(rounds(&plain_out), rounds(&named_out));
            check_outcomes(&book, &named, &named_out);
        }
    }
}

#[test]
fn honest_split_hands_are_named_and_settled_as_the_dealer_reckons() {
    // Over many rounds the named stream has split hands (a card to hand 2 or later) and they
    // settle as the dealer reckons.
    for book in books() {
        let dealt = deal(
            &book,
            &Config {
                seed: 7,
                shoes: 20,
                name_hands: true,
                ..Config::default()
            },
        );
        let later_hands = dealt
            .events
            .iter()
            .filter(|e| {
                matches!(
                    e.kind,
                    EventKind::CardDrawn {
                        target: Some(Target::Hand { hand: 2.., .. }),
                        ..
                    }
                )
            })
            .count();
        let splits = dealt
            .events
            .iter()
            .filter(|e| {
                matches!(
                    e.kind,
                    EventKind::Decision {
                        action: Action::Split,
                        ..
                    }
                )
            })
            .count();
        assert!(
            later_hands > 5 && later_hands >= splits,
            "{}: {later_hands} cards to split hands, {splits} splits, {} rounds",
            book.id,
            dealt.rounds
        );
        let outputs = replay(&book, &dealt.events);
        assert!(irregularities(&outputs).is_empty(), "{}", book.id);
        check_outcomes(&book, &dealt, &outputs);
    }
}

#[test]
fn with_hands_named_each_fault_is_found_at_its_round_and_nowhere_else() {
    let mut split_faults = 0;
    for book in books() {
        for &fault in Fault::ALL {
            for seed in 1..=10 {
                let rare = fault == Fault::InsuranceUnsettled;
                let config = Config {
                    seed,
                    shoes: if rare { 6 } else { 3 },
                    boxes: if rare { 1 } else { 7 },
                    declare_boxes: seed % 2 == 0,
                    report_stands: seed % 3 == 0,
                    faults: vec![(fault, 2 + seed as u32)],
                    insurance_every: if rare { 1 } else { 2 },
                    name_hands: true,
                };
                if !fault.can_show(&book, &config) {
                    continue;
                }
                let dealt = deal(&book, &config);
                let Some(&at) = dealt.injected.first() else {
                    continue;
                };
                let label = format!(
                    "{} {} seed {seed} at {}.{}",
                    book.id,
                    fault.name(),
                    at.shoe,
                    at.round
                );
                let outputs = replay(&book, &dealt.events);
                let flagged = irregularities(&outputs);
                assert_eq!(flagged.len(), 1, "{label}: {flagged:#?}");
                assert_eq!(
                    (flagged[0].shoe, flagged[0].round),
                    (at.shoe, (at.round > 0).then_some(at.round)),
                    "{label}"
                );
                assert!(
                    flagged[0].code == fault.code() || flagged[0].also.contains(fault.code()),
                    "{label}: {flagged:#?}"
                );
                check_outcomes(&book, &dealt, &outputs);
                split_faults += usize::from(matches!(
                    fault,
                    Fault::SplitHandOutOfTurn | Fault::CardToFinishedSplitHand
                ));
            }
        }
    }
    assert!(
        split_faults >= 10,
        "only {split_faults} split-hand faults injected"
    );
}
