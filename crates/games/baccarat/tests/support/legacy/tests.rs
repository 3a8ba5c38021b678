//! Unit tests of the engine's internals.

use super::*;
use pitwatch_model::EventKind;

fn event(seq: u64, kind: EventKind) -> TableEvent {
    TableEvent::new(seq, kind)
}

#[test]
fn a_wrong_pair_is_named_in_plain_words() {
    let mut engine = Engine::new(RuleBook::nz_baccarat());
    let cards = [
        (pitwatch_baccarat::side::Side::Player, "9S"),
        (pitwatch_baccarat::side::Side::Banker, "KH"),
        (pitwatch_baccarat::side::Side::Player, "9D"),
        (pitwatch_baccarat::side::Side::Banker, "3D"),
    ];
    engine.handle_event(&event(
        1,
        EventKind::Shuffled {
            decks: None,
            cards: None,
            shuffler: None,
        },
    ));
    engine.handle_event(&event(2, EventKind::card("AS".parse().unwrap())));
    engine.handle_event(&event(3, EventKind::card("2H".parse().unwrap())));
    for (i, (_, card)) in cards.iter().enumerate() {
        engine.handle_event(&event(4 + i as u64, EventKind::card(card.parse().unwrap())));
    }
    engine.handle_event(&event(
        8,
        EventKind::ResultDeclared {
            outcome: Outcome::Player,
            player_pair: Some(false),
            banker_pair: Some(true),
        },
    ));
    let messages: Vec<String> = std::iter::from_fn(|| engine.poll_output())
        .filter_map(|o| match o {
            Output::Irregularity(i) => Some(i.message),
            _ => None,
        })
        .collect();
    assert_eq!(messages.len(), 1, "{messages:?}");
    assert!(
        messages[0].contains(
            "declared no player pair but the cards are one; declared a banker pair but the \
             cards are not one"
        ),
        "{}",
        messages[0]
    );
}

#[test]
fn given_a_shoe_in_play_the_engine_reports_where_it_is() {
    let mut engine = Engine::new(RuleBook::nz_baccarat());
    assert_eq!(engine.shoe(), 0);
    engine.handle_event(&event(
        1,
        EventKind::Shuffled {
            decks: Some(6),
            cards: Some(312),
            shuffler: None,
        },
    ));
    for (seq, card) in [(2, "2S"), (3, "3S"), (4, "4S"), (5, "9S"), (6, "KH")] {
        engine.handle_event(&event(seq, EventKind::card(card.parse().unwrap())));
    }
    assert_eq!(engine.shoe(), 1);
    assert_eq!(engine.round_in_progress(), Some(1));
    assert_eq!(engine.cards_left(), 312 - 5);
    assert!(!engine.is_partial());
    engine.handle_event(&event(
        7,
        EventKind::DeviceError {
            code: "2".into(),
            text: "overdraw".into(),
        },
    ));
    assert_eq!(engine.open_device_errors().collect::<Vec<_>>(), [("2", 7)]);
    engine.handle_event(&event(
        8,
        EventKind::DeviceErrorCleared { code: "2".into() },
    ));
    assert_eq!(engine.open_device_errors().count(), 0);
}
