//! The burn on the shared table (`pitwatch_rules::Table`), for a Blackjack book that has one: the
//! NZ books have none (and their outputs and views are unchanged), a house's book with a `[burn]`
//! section gets Baccarat's burn checks, in the same words.

use pitwatch_blackjack::{replay, Book, Engine, Output};
use pitwatch_model::{Card, EventKind, TableEvent, Target};
use pitwatch_rules::Game;

/// NZ Blackjack with a burn of the first card's value (an ace 1), citing its codes.
fn burning_book() -> Book {
    let text = Book::builtin_text("nz-blackjack").unwrap().replacen(
        "[cite]\n",
        "[burn]\npolicy = \"first_card_value\"\nace = 1\n\n[cite]\n\
         BURN_MISSING = \"house rule 3\"\nBURN_COUNT_MISMATCH = \"house rule 3\"\n",
        1,
    );
    Book::from_toml(&text).unwrap()
}

fn card(seq: u64, card: &str, target: Target, index: u8) -> TableEvent {
    TableEvent::new(
        seq,
        EventKind::CardDrawn {
            card: Some(card.parse::<Card>().unwrap()),
            target: Some(target),
            index: Some(index),
            face_up: None,
            retransmit: None,
        },
    )
}

fn shuffled(seq: u64) -> TableEvent {
    TableEvent::new(
        seq,
        EventKind::Shuffled {
            decks: None,
            cards: None,
            shuffler: None,
        },
    )
}

/// A round of box 1 and the dealer from `seq` on: 1:KS D:9H 1:8D D:8C (the dealer stands on 17).
fn round(seq: u64) -> Vec<TableEvent> {
    vec![
        card(seq, "KS", Target::Box(1), 1),
        card(seq + 1, "9H", Target::Dealer, 1),
        card(seq + 2, "8D", Target::Box(1), 2),
        TableEvent::new(
            seq + 3,
            EventKind::Decision {
                target: Target::Box(1),
                hand: None,
                action: pitwatch_model::Action::Stand,
            },
        ),
        card(seq + 4, "8C", Target::Dealer, 2),
    ]
}

fn irregularities(outputs: &[Output]) -> Vec<(String, u64, String)> {
    outputs
        .iter()
        .filter_map(|o| match o {
            Output::Irregularity(i) => Some((i.code.as_str().to_owned(), i.seq, i.message.clone())),
            _ => None,
        })
        .collect()
}

#[test]
fn a_book_with_a_burn_follows_it_and_an_honest_burn_raises_nothing() {
    let book = burning_book();
    // Shuffle, a 3 face up, three burn cards, then the round.
    let mut events = vec![shuffled(1), card(2, "3H", Target::First, 1)];
    for (i, c) in ["2C", "4D", "6S"].iter().enumerate() {
        events.push(card(3 + i as u64, c, Target::Burn, i as u8 + 1));
    }
    events.extend(round(6));
    let mut engine = Engine::new(book.clone());
    let mut phases = Vec::new();
    for e in &events {
        engine.handle_event(e);
        phases.push(serde_json::to_value(engine.view()).unwrap()["phase"].clone());
    }
    assert_eq!(
        phases[..5],
        ["awaiting_burn", "burning", "burning", "burning", "burning"]
    );
    assert_eq!(phases[5], "dealing");
    let view = serde_json::to_value(engine.view()).unwrap();
    assert_eq!(view["burn"]["status"], "done");
    assert_eq!(view["burn"]["expected"], 3);
    assert_eq!(view["burn"]["burned"], 3);

    let outputs = replay(&book, &events);
    assert_eq!(irregularities(&outputs), []);
    // The round is the same as without the burn's cards.
    let plain: Vec<TableEvent> = std::iter::once(shuffled(1)).chain(round(6)).collect();
    let rounds = |o: &[Output]| -> Vec<String> {
        o.iter()
            .filter(|o| matches!(o, Output::Round(_)))
            .map(|o| serde_json::to_string(o).unwrap())
            .collect()
    };
    assert_eq!(rounds(&outputs), rounds(&replay(&book, &plain)));
}

#[test]
fn a_round_dealt_before_the_burn_and_a_short_burn_are_flagged_in_baccarats_words() {
    let book = burning_book();
    let mut missing = vec![shuffled(1)];
    missing.extend(round(2));
    let found = irregularities(&replay(&book, &missing));
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].0, "BURN_MISSING");
    assert_eq!(found[0].1, 2);
    assert!(found[0]
        .2
        .starts_with("Dealing began without the burn's first card drawn face up"));

    // A 5 face up and only two burn cards before the round.
    let mut short = vec![
        shuffled(1),
        card(2, "5H", Target::First, 1),
        card(3, "2C", Target::Burn, 1),
        card(4, "4D", Target::Burn, 2),
    ];
    short.extend(round(5));
    let outputs = replay(&book, &short);
    let found = irregularities(&outputs);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].0, "BURN_COUNT_MISMATCH");
    assert_eq!(
        found[0].2,
        "The burn had too few cards: 2 burned where the first card requires 5 (10, J, Q, K \
         count 10; ace 1). Record it; the shoe continues."
    );
    let Output::Irregularity(i) = outputs
        .iter()
        .find(|o| matches!(o, Output::Irregularity(_)))
        .unwrap()
    else {
        unreachable!()
    };
    assert_eq!(i.rule, "house rule 3");
    assert_eq!(i.evidence, [2, 5]);
    assert_eq!(i.round, None);

    // The device's own burn count, one short of the first card's value.
    let counted = vec![
        shuffled(1),
        card(2, "2H", Target::First, 1),
        card(3, "2C", Target::Burn, 1),
        TableEvent::new(4, EventKind::BurnCounted { count: 1 }),
    ];
    let found = irregularities(&replay(&book, &counted));
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].0, "BURN_COUNT_MISMATCH");
    assert!(found[0]
        .2
        .contains("1 burned where the first card requires 2"));
}

#[test]
fn the_nz_books_have_no_burn_and_a_book_with_one_must_cite_its_codes() {
    let book = Book::nz_blackjack();
    assert_eq!(book.shoe.burn, pitwatch_rules::BurnPolicy::None);
    let mut engine = Engine::new(book);
    engine.handle_event(&shuffled(1));
    let view = serde_json::to_value(engine.view()).unwrap();
    assert!(view.get("burn").is_none(), "{view}");
    assert_eq!(view["phase"], "dealing");

    let uncited = Book::builtin_text("nz-blackjack").unwrap().replacen(
        "[cite]\n",
        "[burn]\npolicy = \"fixed\"\ncount = 1\n\n[cite]\n",
        1,
    );
    let err = Book::from_toml(&uncited).unwrap_err().to_string();
    assert!(
        err.contains("[cite]: missing the rule to cite for BURN_MISSING"),
        "{err}"
    );
    let cites_without_burn = Book::builtin_text("nz-blackjack").unwrap().replacen(
        "[cite]\n",
        "[cite]\nBURN_MISSING = \"x\"\n",
        1,
    );
    let err = Book::from_toml(&cites_without_burn)
        .unwrap_err()
        .to_string();
    assert!(err.contains("this game never raises BURN_MISSING"), "{err}");
}

#[test]
fn a_plain_shoe_counts_its_burn_off_by_the_first_cards_value() {
    let book = burning_book();
    let mut engine = Engine::new(book.clone());
    let mut events = vec![shuffled(1)];
    for (i, c) in ["4H", "2C", "9D", "KS", "QH", "5D"].iter().enumerate() {
        events.push(TableEvent::new(
            2 + i as u64,
            EventKind::card(c.parse().unwrap()),
        ));
    }
    let mut burned = Vec::new();
    for e in &events {
        engine.handle_event(e);
        let view = serde_json::to_value(engine.view()).unwrap();
        burned.push((view["phase"].clone(), view["burn"]["burned"].clone()));
    }
    // The 4 face up, then four cards burned; the sixth card is the shoe's first after the burn.
    for (at, phase, count) in [
        (1, "burning", 0),
        (4, "burning", 3),
        (5, "dealing", 4),
        (6, "dealing", 4),
    ] {
        assert_eq!(burned[at].0, phase, "after event {}", at + 1);
        assert_eq!(burned[at].1, count, "after event {}", at + 1);
    }
    let view = serde_json::to_value(engine.view()).unwrap();
    assert_eq!(view["cards_dealt"], 6);
    assert_eq!(irregularities(&replay(&book, &events)), []);
}

/// A device error reported again while open is flagged again (Blackjack's and Pontoon's way) but
/// stays one open error: the device's one clear closes it (it stayed open for ever before).
#[test]
fn a_device_error_reported_twice_is_closed_by_its_one_clear() {
    for book in [Book::nz_blackjack(), Book::nz_pontoon()] {
        let error = |seq| {
            TableEvent::new(
                seq,
                EventKind::DeviceError {
                    code: "9".into(),
                    text: "door open".into(),
                },
            )
        };
        let events = [
            shuffled(1),
            error(2),
            error(3),
            TableEvent::new(4, EventKind::DeviceErrorCleared { code: "9".into() }),
        ];
        let mut engine = Engine::new(book.clone());
        let mut open = Vec::new();
        for e in &events {
            engine.handle_event(e);
            open.push(serde_json::to_value(engine.view()).unwrap()["open_device_errors"].clone());
        }
        assert_eq!(open, [0, 1, 1, 0], "{}", book.id);
        let flagged: Vec<_> = irregularities(&replay(&book, &events))
            .into_iter()
            .filter(|(code, ..)| *code == "DEVICE_ERROR")
            .collect();
        assert_eq!(flagged.len(), 2, "each report is flagged: {flagged:?}");
    }
}
