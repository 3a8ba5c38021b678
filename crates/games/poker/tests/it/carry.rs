//! The carry into a deck on the shared tracker: a poker engine resumed with what was carried into
//! a deck (a shuffle), fed from that deck's first event, reaches the same state as the engine that
//! followed the whole stream, so every later step gives the same outputs and the same view (one
//! deck's replay and a restarted recorder need not run the hands before it). The property is every
//! game's (`pitwatch_fixtures::carry`), run here over this game's streams.

use pitwatch_fixtures::carry::{self, numbered, three_shoes};
use pitwatch_model::EventKind;
use pitwatch_poker::{Book, Carry, Engine};
use proptest::prelude::*;

pitwatch_fixtures::resumable!(
    /// The engine, to the carry property every game shares.
    Poker: Book, Engine, Carry
);

/// Any event, with what the carry holds besides the hands: device errors and the shuffler's
/// starts.
fn event() -> impl Strategy<Value = EventKind> {
    prop_oneof![
        20 => crate::honest::arbitrary_event(),
        1 => Just(EventKind::DeviceError { code: "9".into(), text: "door".into() }),
        1 => Just(EventKind::DeviceErrorCleared { code: "9".into() }),
        1 => Just(EventKind::ShuffleStarted { decks: None, cycle: None }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn resuming_at_any_deck_with_its_carry_gives_the_same_steps_as_the_whole_stream(
        kinds in prop::collection::vec(event(), 0..200),
        cuts in prop::collection::vec(0usize..201, 0..4),
        variant in prop::sample::select(vec!["texas_holdem", "draw", "five_card_stud", "seven_card_stud"]),
    ) {
        let book = Book::nz_poker().with_variant(variant).unwrap();
        let events = numbered(kinds);
        carry::check::<Poker>(&book, &events, &cuts)?;
    }
}

#[test]
fn the_check_resumes_real_decks() {
    // A property over no deck at all would pass vacuously: this stream shuffles three.
    let shuffle = EventKind::Shuffled {
        decks: Some(1),
        cards: Some(52),
        shuffler: None,
    };
    let card = EventKind::CardDrawn {
        card: pitwatch_model::Card::from_index(3),
        target: Some(pitwatch_model::Target::Seat(1)),
        index: Some(1),
        face_up: Some(false),
        retransmit: None,
    };
    let events = three_shoes(shuffle, card);
    assert_eq!(
        carry::check::<Poker>(&Book::nz_poker(), &events, &[]).unwrap(),
        3
    );
}
