//! [`Carry`]: an engine resumed with what was carried into a shoe, fed from that shoe's first
//! event, reaches the same state as the engine that followed the whole stream, so every later
//! step gives the same outputs and the same view (one shoe's replay need not run the shoes
//! before it).

use pitwatch_baccarat::{Carry, Engine, Output, RuleBook, TableView};
use pitwatch_dealer::{deal, DealerConfig, FaultKind, FaultPlan};
use pitwatch_model::TableEvent;
use proptest::prelude::*;

use crate::arbitrary::kind;

type Steps = Vec<(u64, Vec<Output>, TableView)>;

/// Runs `engine` over `events[from..]`, interrupting before the event at each index in `cuts`
/// (past the end: after the last event), then finishes. Returns each step's outputs and view,
/// the outputs of `finish`, and, for every shoe started on the way, its first event's index and
/// the carry into it.
fn run(
    mut engine: Engine,
    events: &[TableEvent],
    from: usize,
    cuts: &[usize],
) -> (Steps, Vec<Output>, Vec<(usize, Carry)>) {
    let mut steps = Vec::new();
    let mut starts = Vec::new();
    let mut shoe = engine.view().shoe;
    for i in from..=events.len() {
        for _ in cuts.iter().filter(|&&c| c == i) {
            engine.interrupt();
        }
        let Some(event) = events.get(i) else { break };
        engine.handle_event(event);
        let outputs: Vec<Output> = std::iter::from_fn(|| engine.poll_output()).collect();
        let view = engine.view();
        if view.shoe != shoe {
            starts.push((i, engine.shoe_carry().clone()));
            shoe = view.shoe;
        }
        steps.push((event.seq, outputs, view));
    }
    engine.finish();
    let closing = std::iter::from_fn(|| engine.poll_output()).collect();
    (steps, closing, starts)
}

/// Resumes at every shoe start of `events` and compares with the whole stream; returns how many
/// shoes were checked.
fn check(book: &RuleBook, events: &[TableEvent], cuts: &[usize]) -> Result<usize, TestCaseError> {
    let (whole, closing, starts) = run(Engine::new(book.clone()), events, 0, cuts);
    for (index, carry) in &starts {
        // The carry is stored as JSON between the recorder and replay.
        let json = serde_json::to_string(carry).unwrap();
        let carry: Carry = serde_json::from_str(&json).unwrap();
        let resumed = Engine::resume(book.clone(), carry);
        let (steps, resumed_closing, _) = run(resumed, events, *index, cuts);
        let expected = &whole[*index..];
        prop_assert_eq!(steps.len(), expected.len());
        // The first event's view is the same; its outputs may also close the shoe before.
        prop_assert_eq!(
            &steps[0].2,
            &expected[0].2,
            "view at the shoe's first event {}",
            index
        );
        prop_assert_eq!(
            &steps[1..],
            &expected[1..],
            "steps after the shoe's first event {}",
            index
        );
        prop_assert_eq!(&resumed_closing, &closing);
    }
    Ok(starts.len())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn resuming_at_any_shoe_with_its_carry_gives_the_same_steps_as_the_whole_stream(
        kinds in proptest::collection::vec(kind(), 0..300),
        cuts in proptest::collection::vec(0usize..301, 0..4),
        book in proptest::sample::select(vec!["nz-baccarat", "macau-baccarat", "nz-baccarat-continuous"]),
    ) {
        let book = RuleBook::builtin(book).unwrap();
        let events: Vec<TableEvent> = kinds
            .into_iter()
            .enumerate()
            .map(|(i, k)| TableEvent::new(i as u64 + 1, k))
            .collect();
        check(&book, &events, &cuts)?;
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
            let shoes = check(&book, &session.events, &cuts).unwrap();
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
