//! Arbitrary event sequences never panic the engine, and the same events give the same outputs.

use pitwatch_blackjack::{Book, Engine};
use pitwatch_model::{Action, Card, EventKind, ExposedDuring, TableEvent, Target};
use pitwatch_rules::Game;
use proptest::prelude::*;

pub(crate) fn kind() -> impl Strategy<Value = EventKind> {
    let card = prop_oneof![
        1 => Just(None),
        12 => (0usize..52).prop_map(Card::from_index),
    ];
    let target = prop_oneof![
        1 => Just(None),
        3 => Just(Some(Target::Dealer)),
        6 => (1u8..=9).prop_map(|n| Some(Target::Box(n))),
        // A hand named, hand 0 among them (no reader makes one, but the type holds it).
        2 => (1u8..=9, 0u8..=4).prop_map(|(number, hand)| Some(Target::Hand { number, hand })),
        1 => Just(Some(Target::Burn)),
    ];
    let action = prop_oneof![
        Just(Action::InPlay),
        Just(Action::Stand),
        Just(Action::Double),
        Just(Action::Split),
        Just(Action::Surrender),
        Just(Action::Insurance),
    ];
    prop_oneof![
        30 => (card, target, proptest::option::of(1u8..=12)).prop_map(|(card, target, index)| {
            EventKind::CardDrawn { card, target, index, face_up: None, retransmit: None }
        }),
        8 => (1u8..=9, proptest::option::of(1u8..=5), action.clone()).prop_map(|(n, hand, action)| {
            EventKind::Decision { target: Target::Box(n), hand, action }
        }),
        1 => (1u8..=9, 0u8..=4, action).prop_map(|(number, hand, action)| {
            EventKind::Decision { target: Target::Hand { number, hand }, hand: None, action }
        }),
        2 => Just(EventKind::BetsClosed),
        1 => (proptest::option::of(1u8..=10), proptest::option::of(0u32..500)).prop_map(|(decks, cards)| {
            EventKind::Shuffled { decks, cards, shuffler: None }
        }),
        1 => (0u32..500).prop_map(|position| EventKind::Cut { position }),
        1 => (0u32..500).prop_map(|from_back| EventKind::CuttingCardPlaced { from_back }),
        1 => Just(EventKind::CuttingCardDrawn),
        1 => Just(EventKind::CardsReplaced),
        1 => Just(EventKind::CardExposed { card: None, during: ExposedDuring::Loading }),
        1 => Just(EventKind::DeviceError { code: "7".into(), text: "jam".into() }),
        1 => Just(EventKind::DeviceErrorCleared { code: "7".into() }),
    ]
}

fn run(book: &Book, kinds: &[EventKind], interrupt_at: usize) -> Vec<String> {
    let mut engine = Engine::new(book.clone());
    let mut out = Vec::new();
    for (i, kind) in kinds.iter().enumerate() {
        if i == interrupt_at {
            engine.interrupt();
        }
        engine.handle_event(&TableEvent::new(i as u64 + 1, kind.clone()));
        let _ = engine.view();
        while let Some(o) = engine.poll_output() {
            out.push(serde_json::to_string(&o).unwrap());
        }
    }
    engine.finish();
    while let Some(o) = engine.poll_output() {
        out.push(serde_json::to_string(&o).unwrap());
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    #[test]
    fn any_stream_is_followed_without_panic_and_deterministically(
        kinds in proptest::collection::vec(kind(), 0..200),
        pontoon in any::<bool>(),
        interrupt_at in 0usize..250,
    ) {
        let book = if pontoon { Book::nz_pontoon() } else { Book::nz_blackjack() };
        let first = run(&book, &kinds, interrupt_at);
        prop_assert_eq!(first, run(&book, &kinds, interrupt_at));
    }
}
