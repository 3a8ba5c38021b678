//! The carry into a shoe on the shared tracker: a Blackjack or Pontoon engine resumed with what
//! was carried into a shoe, fed from that shoe's first event, reaches the same state as the engine
//! that followed the whole stream, so every later step gives the same outputs and the same view
//! (one shoe's replay and a restarted recorder need not run the shoes before it). The
//! property is every game's (`pitwatch_fixtures::carry`), run here over this game's streams.

use pitwatch_blackjack::{Book, Carry, Engine};
use pitwatch_fixtures::carry::{self, numbered, three_shoes};
use pitwatch_model::{EventKind, ShuffleStep};
use proptest::prelude::*;

pitwatch_fixtures::resumable!(
    /// The engine, to the carry property every game shares.
    Blackjack: Book, Engine, Carry
);

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
        let events = numbered(kinds);
        carry::check::<Blackjack>(&book, &events, &cuts)?;
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
    let events = three_shoes(shuffle, card);
    for book in [Book::nz_blackjack(), Book::nz_pontoon()] {
        assert_eq!(carry::check::<Blackjack>(&book, &events, &[]).unwrap(), 3);
    }
}
