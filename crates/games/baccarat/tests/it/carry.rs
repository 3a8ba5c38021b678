//! [`Carry`]: an engine resumed with what was carried into a shoe, fed from that shoe's first
//! event, reaches the same state as the engine that followed the whole stream, so every later
//! step gives the same outputs and the same view (one shoe's replay need not run the shoes
//! before it). The property is every game's (`pitwatch_fixtures::carry`); here it runs over
//! Baccarat's arbitrary streams and the reference dealer's shoes.

use pitwatch_baccarat::{Carry, Engine, RuleBook};
use pitwatch_dealer::{deal, DealerConfig, FaultKind, FaultPlan};
use pitwatch_fixtures::carry::{self, numbered};
use proptest::prelude::*;

use crate::arbitrary::kind;

pitwatch_fixtures::resumable!(
    /// The engine, to the carry property every game shares.
    Baccarat: RuleBook, Engine, Carry
);

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn resuming_at_any_shoe_with_its_carry_gives_the_same_steps_as_the_whole_stream(
        kinds in proptest::collection::vec(kind(), 0..300),
        cuts in proptest::collection::vec(0usize..301, 0..4),
        book in proptest::sample::select(vec!["nz-baccarat", "macau-baccarat", "nz-baccarat-continuous"]),
    ) {
        let book = RuleBook::builtin(book).unwrap();
        carry::check::<Baccarat>(&book, &numbered(kinds), &cuts)?;
    }
}

#[test]
fn simulated_shoes_with_faults_and_cut_offs_resume_exactly_at_every_shoe() {
    let book = RuleBook::nz_baccarat();
    let faults: Vec<FaultPlan> = [
        (FaultKind::DeviceError, 1, 5),
        (FaultKind::CardExposed, 2, 7),
        (FaultKind::RoundPastLastCoup, 3, 1),
        (FaultKind::OutOfOrderCard, 4, 3),
    ]
    .into_iter()
    .map(|(kind, shoe, round)| FaultPlan { kind, shoe, round })
    .collect();
    for config in [DealerConfig::angel_eye(), DealerConfig::barcode()] {
        let config = DealerConfig { shoes: 6, ..config };
        let session = deal(&book.shoe_book(), &config, &faults, 11);
        let n = session.events.len();
        for cuts in [vec![], vec![n / 3, n / 2 + 7], vec![n]] {
            let shoes = carry::check::<Baccarat>(&book, &session.events, &cuts).unwrap();
            assert!(shoes >= 6, "{shoes} shoes started");
        }
    }
}

#[test]
fn a_carry_written_before_results_and_targets_were_kept_still_reads() {
    // As the recorder of the current main stores it with each shoe's start.
    let stored = r#"{"shoes":3,"shuffles_reported":true,"bets_reported":true,"unshuffled":null,"open_errors":[["7",120]],"last_round":null}"#;
    let carry: Carry = serde_json::from_str(stored).unwrap();
    assert_eq!(carry.shoes, 3);
    let engine = Engine::resume(RuleBook::nz_baccarat(), carry.clone());
    assert_eq!(engine.shoe(), 3);
    assert_eq!(
        engine.open_device_errors().collect::<Vec<_>>(),
        [("7", 120)]
    );
    // And what is written now reads back the same.
    let again: Carry = serde_json::from_str(&serde_json::to_string(&carry).unwrap()).unwrap();
    assert_eq!(again, carry);
}
