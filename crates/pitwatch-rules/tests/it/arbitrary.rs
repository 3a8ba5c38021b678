//! Arbitrary event sequences: the engine never panics, whatever it is fed, and replaying the same
//! events twice gives the same output.

use pitwatch_model::{Card, EventKind, ExposedDuring, Outcome, ShufflerKind, TableEvent, Target};
use pitwatch_rules::{replay, RuleBook};
use proptest::prelude::*;

fn card() -> impl Strategy<Value = Option<Card>> {
    prop_oneof![
        9 => (0usize..52).prop_map(Card::from_index),
        1 => Just(None),
    ]
}

fn target() -> impl Strategy<Value = Option<Target>> {
    prop_oneof![
        Just(None),
        Just(Some(Target::Player)),
        Just(Some(Target::Banker)),
        Just(Some(Target::First)),
        Just(Some(Target::Burn)),
        Just(Some(Target::Dealer)),
        (1u8..9).prop_map(|n| Some(Target::Box(n))),
    ]
}

fn kind() -> impl Strategy<Value = EventKind> {
    prop_oneof![
        12 => (card(), target(), proptest::option::of(1u8..5), proptest::option::of(any::<bool>()), proptest::option::of(any::<bool>()))
            .prop_map(|(card, target, index, face_up, retransmit)| EventKind::CardDrawn { card, target, index, face_up, retransmit }),
        1 => (proptest::option::of(0u8..12), proptest::option::of(0u32..500), proptest::option::of(proptest::sample::select(ShufflerKind::ALL.to_vec())))
            .prop_map(|(decks, cards, shuffler)| EventKind::Shuffled { decks, cards, shuffler }),
        1 => (0u32..500).prop_map(|position| EventKind::Cut { position }),
        1 => (0u32..500).prop_map(|from_back| EventKind::CuttingCardPlaced { from_back }),
        1 => Just(EventKind::CuttingCardDrawn),
        1 => (0u32..15).prop_map(|count| EventKind::BurnCounted { count }),
        2 => (proptest::sample::select(Outcome::ALL.to_vec()), proptest::option::of(any::<bool>()), proptest::option::of(any::<bool>()))
            .prop_map(|(outcome, player_pair, banker_pair)| EventKind::ResultDeclared { outcome, player_pair, banker_pair }),
        1 => (card(), proptest::sample::select(ExposedDuring::ALL.to_vec()))
            .prop_map(|(card, during)| EventKind::CardExposed { card, during }),
        1 => (0u8..3).prop_map(|c| EventKind::DeviceError { code: c.to_string(), text: "x".into() }),
        1 => (0u8..3).prop_map(|c| EventKind::DeviceErrorCleared { code: c.to_string() }),
        1 => Just(EventKind::CardsReplaced),
        2 => Just(EventKind::BetsClosed),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn arbitrary_event_sequences_never_panic_and_replay_identically(
        kinds in proptest::collection::vec(kind(), 0..300),
        book in proptest::sample::select(vec!["nz-baccarat", "macau-baccarat", "nz-baccarat-continuous"]),
    ) {
        let book = RuleBook::builtin(book).unwrap();
        let events: Vec<TableEvent> = kinds
            .into_iter()
            .enumerate()
            .map(|(i, k)| TableEvent::new(i as u64 + 1, k))
            .collect();
        let first = replay(&book, &events);
        let second = replay(&book, &events);
        prop_assert_eq!(first, second);
    }
}
