//! The carry into a shoe on the shared tracker: a Blackjack or Pontoon engine resumed with what
//! was carried into a shoe, fed from that shoe's first event, reaches the same state as the engine
//! that followed the whole stream, so every later step gives the same outputs and the same view
//! (one shoe's replay and a restarted recorder need not run the shoes before it). The same
//! property as Baccarat's (`crates/games/baccarat/tests/it/carry.rs`).

use pitwatch_blackjack::{Book, Carry, Engine, Output, View};
use pitwatch_model::{EventKind, ShuffleStep, TableEvent};
use pitwatch_rules::Game;
use proptest::prelude::*;

type Steps = Vec<(u64, Vec<Output>, View)>;

/// Runs `engine` over `events[from..]`, interrupting before the event at each index in `cuts`,
/// then finishes. Returns each step's outputs and view, the outputs of `finish`, and, for every
/// shoe started on the way, its first event's index and the carry into it.
fn run(
    mut engine: Engine,
    events: &[TableEvent],
    from: usize,
    cuts: &[usize],
) -> (Steps, Vec<Output>, Vec<(usize, Carry)>) {
    let mut steps = Vec::new();
    let mut starts = Vec::new();
    let mut shoe = engine.shoe();
    for i in from..=events.len() {
        for _ in cuts.iter().filter(|&&c| c == i) {
            engine.interrupt();
        }
        let Some(event) = events.get(i) else { break };
        engine.handle_event(event);
        let outputs: Vec<Output> = std::iter::from_fn(|| engine.poll_output()).collect();
        if engine.shoe() != shoe {
            starts.push((i, engine.shoe_carry().clone()));
            shoe = engine.shoe();
        }
        steps.push((event.seq, outputs, engine.view()));
    }
    engine.finish();
    let closing = std::iter::from_fn(|| engine.poll_output()).collect();
    (steps, closing, starts)
}

/// Resumes at every shoe start of `events` and compares with the whole stream; returns how many
/// shoes were checked.
fn check(book: &Book, events: &[TableEvent], cuts: &[usize]) -> Result<usize, TestCaseError> {
    let (whole, closing, starts) = run(Engine::new(book.clone()), events, 0, cuts);
    for (index, carry) in &starts {
        // The carry is stored as JSON with the shoe's start.
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

/// Any event, with what the carry holds besides the rounds: device errors, the shuffler's starts
/// and hand-preparation steps (Pontoon's 6.4).
fn event() -> impl Strategy<Value = EventKind> {
    prop_oneof![
        20 => crate::arbitrary::kind(),
        1 => Just(EventKind::DeviceError { code: "9".into(), text: "door".into() }),
        1 => Just(EventKind::DeviceErrorCleared { code: "9".into() }),
        1 => Just(EventKind::ShuffleStarted { decks: None, cycle: None }),
        1 => prop::sample::select(ShuffleStep::ALL.to_vec()).prop_map(|step| EventKind::ShuffleStep { step }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn resuming_at_any_shoe_with_its_carry_gives_the_same_steps_as_the_whole_stream(
        kinds in prop::collection::vec(event(), 0..300),
        cuts in prop::collection::vec(0usize..301, 0..4),
        book in prop::sample::select(vec!["nz-blackjack", "nz-pontoon"]),
    ) {
        let book = Book::builtin(book).unwrap();
        let events: Vec<TableEvent> = kinds
            .into_iter()
            .enumerate()
            .map(|(i, k)| TableEvent::new(i as u64 + 1, k))
            .collect();
        check(&book, &events, &cuts)?;
    }
}

#[test]
fn the_check_resumes_real_shoes() {
    // A property over no shoe at all would pass vacuously: these streams start three.
    let shuffle = EventKind::Shuffled {
        decks: None,
        cards: None,
        shuffler: None,
    };
    let card = EventKind::CardDrawn {
        card: pitwatch_model::Card::from_index(3),
        target: Some(pitwatch_model::Target::Box(1)),
        index: Some(1),
        face_up: None,
        retransmit: None,
    };
    let kinds = [
        shuffle.clone(),
        card.clone(),
        shuffle.clone(),
        card.clone(),
        shuffle,
        card,
    ];
    let events: Vec<TableEvent> = kinds
        .into_iter()
        .enumerate()
        .map(|(i, k)| TableEvent::new(i as u64 + 1, k))
        .collect();
    for book in [Book::nz_blackjack(), Book::nz_pontoon()] {
        assert_eq!(check(&book, &events, &[]).unwrap(), 3);
    }
}
