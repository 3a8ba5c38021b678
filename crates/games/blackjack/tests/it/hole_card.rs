//! A book with a hole card (`hole_card = "american"`): the dealer's second card comes after the
//! boxes' second cards, before they play; a dealer blackjack ends the round with no further card.

use pitwatch_blackjack::{replay, Book, HandOutcome, Output};
use pitwatch_model::{EventKind, TableEvent, Target};

fn book() -> Book {
    let text = include_str!("../../rulebooks/nz-blackjack.toml")
        .replace("hole_card = \"none\"", "hole_card = \"american\"");
    Book::from_toml(&text).unwrap()
}

fn events(cards: &[(&str, &str)]) -> Vec<TableEvent> {
    let mut events = vec![TableEvent::new(
        1,
        EventKind::Shuffled {
            decks: Some(6),
            cards: Some(312),
            shuffler: None,
        },
    )];
    for (target, card) in cards {
        let target = match *target {
            "D" => Target::Dealer,
            n => Target::Box(n.parse().unwrap()),
        };
        let seq = events.len() as u64 + 1;
        events.push(TableEvent::new(
            seq,
            EventKind::CardDrawn {
                card: Some(card.parse().unwrap()),
                target: Some(target),
                index: None,
                face_up: None,
                retransmit: None,
            },
        ));
    }
    events
}

#[test]
fn the_hole_card_is_dealt_after_the_boxes_second_cards() {
    let book = book();
    // Box 1 on 18 stands (the dealer's card ends its play); dealer 9 + 7 = 16 draws a 5: 21.
    let outputs = replay(
        &book,
        &events(&[
            ("1", "TS"),
            ("D", "9H"),
            ("1", "8D"),
            ("D", "7C"),
            ("D", "5C"),
        ]),
    );
    let rounds: Vec<_> = outputs
        .iter()
        .filter_map(|o| match o {
            Output::Round(r) => Some(r),
            _ => None,
        })
        .collect();
    assert!(
        outputs
            .iter()
            .all(|o| !matches!(o, Output::Irregularity(_))),
        "{outputs:#?}"
    );
    assert_eq!(rounds.len(), 1);
    assert_eq!(rounds[0].dealer_total, Some(21));
    assert_eq!(rounds[0].boxes[0].hands[0].outcome, Some(HandOutcome::Lose));
    // The hole card before a box's second card is out of turn.
    let outputs = replay(
        &book,
        &events(&[("1", "TS"), ("D", "9H"), ("D", "7C"), ("1", "8D")]),
    );
    assert!(outputs.iter().any(|o| matches!(o, Output::Irregularity(i)
        if i.code == pitwatch_rules::IrregularityCode::DealOutOfOrder)));
}

#[test]
fn a_dealer_blackjack_with_a_hole_card_ends_the_round() {
    let book = book();
    let outputs = replay(
        &book,
        &events(&[
            ("1", "TS"),
            ("D", "AH"),
            ("1", "8D"),
            ("D", "KC"),
            // The next round.
            ("1", "9S"),
            ("D", "TD"),
            ("1", "9C"),
            ("D", "8H"),
            // Box 1 draws to 21; the dealer stands on the 18 the hole card made.
            ("1", "3D"),
        ]),
    );
    assert!(
        outputs
            .iter()
            .all(|o| !matches!(o, Output::Irregularity(_))),
        "{outputs:#?}"
    );
    let rounds: Vec<_> = outputs
        .iter()
        .filter_map(|o| match o {
            Output::Round(r) => Some(r),
            _ => None,
        })
        .collect();
    assert_eq!(rounds.len(), 2);
    assert!(rounds[0].dealer_blackjack && rounds[0].complete);
    assert_eq!(rounds[0].boxes[0].hands[0].pays, Some(-1.0));
    assert!(rounds[1].complete);
    assert_eq!(rounds[1].boxes[0].hands[0].outcome, Some(HandOutcome::Win));
}
