//! Every game's shoes get the shuffle analysis, not Baccarat's alone: the watch takes what it
//! needs from the shared shoe rules ([`pitwatch_rules::ShoeRules`]) a Blackjack or poker book
//! gives its table, follows the shoe starts that table's engine reports, and, when a shoe repeats
//! the order of the one before, raises `SHUFFLE_SUSPECT` under the game's own book only if the
//! book cites a rule for it (the built-in `nz-blackjack` and `nz-poker` cite none: the shoe's
//! verdict is suspect, and no incident is raised).

use pitwatch_model::{Card, EventKind, TableEvent, Target};
use pitwatch_rules::{Game, IrregularityCode};
use pitwatch_shuffle::{ShoeShuffle, ShuffleWatch, Verdict};

/// Runs `events` through `engine` and a watch on `book`'s shoe rules: every shoe judged, the
/// last when the stream ends.
fn judge<G: Game>(
    mut engine: G,
    shoe: impl Fn(&G) -> u32,
    watch: &mut ShuffleWatch,
    events: &[TableEvent],
) -> Vec<ShoeShuffle> {
    let mut judged = Vec::new();
    for event in events {
        let before = shoe(&engine);
        engine.handle_event(event);
        watch.observe(event);
        if shoe(&engine) != before {
            judged.extend(watch.shoe_started(shoe(&engine), event.seq));
        }
        while engine.poll_output().is_some() {}
    }
    judged.extend(watch.finish());
    judged
}

/// `rules` with a rule cited for `SHUFFLE_SUSPECT`.
fn citing(rules: &pitwatch_rules::ShoeRules) -> pitwatch_rules::ShoeRules {
    let mut rules = rules.clone();
    rules
        .cite
        .push(("SHUFFLE_SUSPECT".to_owned(), "shuffle".to_owned()));
    rules
}

/// `events` again after them, renumbered: the same shoe dealt twice (a false shuffle).
fn twice(events: &[TableEvent]) -> Vec<TableEvent> {
    let n = events.len() as u64;
    let mut all = events.to_vec();
    all.extend(events.iter().map(|e| {
        let mut e = e.clone();
        e.seq += n;
        e
    }));
    all
}

#[test]
fn a_blackjack_shoe_dealt_again_in_the_same_order_is_suspect_and_honest_shoes_are_not() {
    use pitwatch_blackjack::{dealer, Book, Engine};
    let book = Book::nz_blackjack();
    let honest = dealer::deal(
        &book,
        &dealer::Config {
            seed: 7,
            shoes: 3,
            ..dealer::Config::default()
        },
    );
    let mut watch = ShuffleWatch::new(&book.shoe);
    let judged = judge(
        Engine::new(book.clone()),
        Engine::shoe,
        &mut watch,
        &honest.events,
    );
    assert_eq!(judged.iter().map(|j| j.shoe).collect::<Vec<_>>(), [1, 2, 3]);
    assert_eq!(judged[0].analysis.verdict, Verdict::NotCompared);
    for j in &judged[1..] {
        assert_ne!(j.analysis.verdict, Verdict::NotCompared, "shoe {}", j.shoe);
        assert!(j.irregularity.is_none(), "shoe {}: {}", j.shoe, j.detail());
    }

    let one = dealer::deal(
        &book,
        &dealer::Config {
            seed: 7,
            shoes: 1,
            ..dealer::Config::default()
        },
    );
    // The built-in book cites no rule for it: suspect, and no incident.
    let mut watch = ShuffleWatch::new(&book.shoe);
    let judged = judge(
        Engine::new(book.clone()),
        Engine::shoe,
        &mut watch,
        &twice(&one.events),
    );
    assert_eq!(judged.len(), 2);
    assert_eq!(judged[1].analysis.verdict, Verdict::Suspect);
    assert!(
        judged[1].irregularity.is_none(),
        "{:?}",
        judged[1].irregularity
    );
    // A book that cites one raises it, citing it.
    let mut watch = ShuffleWatch::new(&citing(&book.shoe));
    let judged = judge(
        Engine::new(book.clone()),
        Engine::shoe,
        &mut watch,
        &twice(&one.events),
    );
    let irregularity = judged[1].irregularity.as_ref().expect("SHUFFLE_SUSPECT");
    assert_eq!(irregularity.code, IrregularityCode::ShuffleSuspect);
    assert_eq!(irregularity.rule, "shuffle");
    assert_eq!(irregularity.rule_book, "nz-blackjack");
    assert_eq!(irregularity.shoe, 2);
    assert!(
        irregularity.message.starts_with("Shoe 2 keeps a block of"),
        "{}",
        irregularity.message
    );
}

/// One Hold'em hand from a deck in `order`: two cards to each of eight seats, then the board.
fn holdem(first_seq: u64, order: &[Card]) -> Vec<TableEvent> {
    let mut kinds = vec![EventKind::Shuffled {
        decks: Some(1),
        cards: Some(52),
        shuffler: None,
    }];
    let mut cards = order.iter();
    for round in 1..=2u8 {
        for seat in 1..=8u8 {
            kinds.push(EventKind::CardDrawn {
                card: cards.next().copied(),
                target: Some(Target::Seat(seat)),
                index: Some(round),
                face_up: Some(false),
                retransmit: None,
            });
        }
    }
    kinds.extend(cards.take(5).map(|c| EventKind::card(*c)));
    kinds
        .into_iter()
        .enumerate()
        .map(|(i, kind)| TableEvent::new(first_seq + i as u64, kind))
        .collect()
}

#[test]
fn a_poker_deck_dealt_again_in_the_same_order_is_suspect_and_a_mixed_one_is_not() {
    use pitwatch_poker::{Book, Engine};
    let book = Book::nz_poker();
    let deck: Vec<Card> = (0..52).filter_map(Card::from_index).collect();
    // A deck well mixed by a fixed permutation (7 is prime to 52): no pair of the first order
    // stays adjacent.
    let mixed: Vec<Card> = (0..52).map(|i| deck[(i * 7) % 52]).collect();
    let mut honest = holdem(1, &deck);
    let next = honest.len() as u64 + 1;
    honest.extend(holdem(next, &mixed));

    let mut watch = ShuffleWatch::new(&book.shoe);
    let judged = judge(Engine::new(book.clone()), Engine::shoe, &mut watch, &honest);
    assert_eq!(judged.iter().map(|j| j.shoe).collect::<Vec<_>>(), [1, 2]);
    assert_eq!(judged[1].analysis.verdict, Verdict::WellMixed);
    assert!(judged[1].irregularity.is_none());

    let mut watch = ShuffleWatch::new(&book.shoe);
    let judged = judge(
        Engine::new(book.clone()),
        Engine::shoe,
        &mut watch,
        &twice(&holdem(1, &deck)),
    );
    assert_eq!(judged[1].analysis.verdict, Verdict::Suspect);
    assert!(
        judged[1].irregularity.is_none(),
        "nz-poker cites no rule for it"
    );
    let mut watch = ShuffleWatch::new(&citing(&book.shoe));
    let judged = judge(
        Engine::new(book.clone()),
        Engine::shoe,
        &mut watch,
        &twice(&holdem(1, &deck)),
    );
    let irregularity = judged[1].irregularity.as_ref().expect("SHUFFLE_SUSPECT");
    assert_eq!(irregularity.rule_book, "nz-poker");
    assert_eq!(irregularity.shoe, 2);
    assert!(
        irregularity.message.starts_with("Shoe 2 keeps"),
        "{}",
        irregularity.message
    );
    // Every adjacent pair of the hand's 21 cards was kept.
    assert_eq!(judged[1].analysis.preserved_pairs, 20);
}
