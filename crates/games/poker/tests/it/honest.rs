//! Honest hands are never flagged: an independent dealer (its own deal order and faces, written
//! from the variants' ordinary deal, not from the engine) deals random tables of every variant,
//! with actions, later streets, the draw and community cards; the engine must record every hand
//! with its seats' counts, no misdeal and no irregularity.

use pitwatch_model::{Card, EventKind, PlayerAction, TableEvent, Target};
use pitwatch_poker::{replay, Book, Output};
use proptest::prelude::*;

/// One honest hand's plan.
#[derive(Debug, Clone)]
struct Plan {
    variant: &'static str,
    /// Seats dealt in, ascending.
    seats: Vec<u8>,
    /// The first seat dealt (left of the button), as a position in `seats`.
    first: usize,
    /// The deck's order (a permutation of 0..52).
    deck: Vec<u8>,
    /// Per seat: fold after the initial deal.
    folds: Vec<bool>,
    /// Per seat: cards replaced in the draw (Draw Poker).
    draws: Vec<u8>,
}

fn card(n: u8) -> Card {
    let ranks = "A23456789TJQK";
    let suits = "SHDC";
    let r = &ranks[usize::from(n % 13)..usize::from(n % 13) + 1];
    let s = &suits[usize::from(n / 13)..usize::from(n / 13) + 1];
    format!("{r}{s}").parse().unwrap()
}

/// The variant's faces as dealt: (initial, later).
fn faces(variant: &str) -> (Vec<bool>, Vec<bool>) {
    match variant {
        "texas_holdem" => (vec![false, false], vec![]),
        "draw" => (vec![false; 5], vec![]),
        "five_card_stud" => (vec![false, true], vec![true, true, true]),
        "seven_card_stud" => (vec![false, false, true], vec![true, true, true, false]),
        other => panic!("{other}"),
    }
}

fn deal(plan: &Plan) -> Vec<EventKind> {
    let mut deck = plan.deck.iter().map(|&n| card(n));
    let mut events = vec![EventKind::Shuffled {
        decks: Some(1),
        cards: Some(52),
        shuffler: None,
    }];
    let n = plan.seats.len();
    // Blinds: the first two seats dealt.
    for k in 0..2.min(n) {
        events.push(EventKind::PlayerActed {
            target: Target::Seat(plan.seats[(plan.first + k) % n]),
            action: PlayerAction::Blind,
        });
    }
    let clockwise: Vec<u8> = (0..n).map(|k| plan.seats[(plan.first + k) % n]).collect();
    let mut held = vec![0u8; 256];
    let mut give =
        |events: &mut Vec<EventKind>, seat: u8, up: bool, deck: &mut dyn Iterator<Item = Card>| {
            held[usize::from(seat)] += 1;
            events.push(EventKind::CardDrawn {
                card: deck.next(),
                target: Some(Target::Seat(seat)),
                index: Some(held[usize::from(seat)]),
                face_up: Some(up),
                retransmit: None,
            });
        };
    let (initial, later) = faces(plan.variant);
    for &up in &initial {
        for &seat in &clockwise {
            give(&mut events, seat, up, &mut deck);
        }
    }
    // Every seat acts once: a call, or a fold where the plan says.
    let mut live = Vec::new();
    for (i, &seat) in clockwise.iter().enumerate() {
        let fold = plan.folds[i] && live.len() + (n - i) > 2;
        events.push(EventKind::PlayerActed {
            target: Target::Seat(seat),
            action: if fold {
                PlayerAction::Fold
            } else {
                PlayerAction::Call
            },
        });
        if !fold {
            live.push((i, seat));
        }
    }
    match plan.variant {
        "texas_holdem" => {
            for _ in 0..5 {
                events.push(EventKind::CardDrawn {
                    card: deck.next(),
                    target: None,
                    index: None,
                    face_up: Some(true),
                    retransmit: None,
                });
            }
        }
        "draw" => {
            // The draw takes what the deck has left.
            let mut left = 52 - n * initial.len();
            for &(i, seat) in &live {
                let draws = usize::from(plan.draws[i]).min(left);
                left -= draws;
                for _ in 0..draws {
                    give(&mut events, seat, false, &mut deck);
                }
                events.push(EventKind::PlayerActed {
                    target: Target::Seat(seat),
                    action: PlayerAction::Check,
                });
            }
        }
        _ => {
            for &up in &later {
                for &(_, seat) in &live {
                    give(&mut events, seat, up, &mut deck);
                }
                for &(_, seat) in &live {
                    events.push(EventKind::PlayerActed {
                        target: Target::Seat(seat),
                        action: PlayerAction::Check,
                    });
                }
            }
        }
    }
    events
}

fn plan() -> impl Strategy<Value = Plan> {
    (
        prop::sample::select(vec![
            "texas_holdem",
            "draw",
            "five_card_stud",
            "seven_card_stud",
        ]),
        prop::sample::subsequence((1u8..=10).collect::<Vec<_>>(), 2..=10),
        any::<prop::sample::Index>(),
        Just((0u8..52).collect::<Vec<_>>()).prop_shuffle(),
        prop::collection::vec(any::<bool>(), 10),
        prop::collection::vec(0u8..=3, 10),
    )
        .prop_map(|(variant, mut seats, first, deck, folds, draws)| {
            // Seven Card Stud deals at most seven cards to seven seats from one deck.
            if variant == "seven_card_stud" {
                seats.truncate(7);
            }
            let first = first.index(seats.len());
            Plan {
                variant,
                seats,
                first,
                deck,
                folds,
                draws,
            }
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn honest_hands_are_never_flagged(plans in prop::collection::vec(plan(), 1..4)) {
        for variant in ["texas_holdem", "draw", "five_card_stud", "seven_card_stud"] {
            let book = Book::nz_poker().with_variant(variant).unwrap();
            let mut kinds = Vec::new();
            let mut expected = Vec::new();
            for p in plans.iter().filter(|p| p.variant == variant) {
                kinds.extend(deal(p));
                expected.push(p.seats.len());
            }
            let events: Vec<TableEvent> = kinds
                .into_iter()
                .enumerate()
                .map(|(i, k)| TableEvent::new(i as u64 + 1, k))
                .collect();
            let out = replay(&book, &events);
            let mut hands = Vec::new();
            for o in &out {
                match o {
                    Output::Irregularity(i) => prop_assert!(false, "{variant}: flagged {i:?}"),
                    Output::Hand(h) => {
                        prop_assert_eq!(h.misdeal, None);
                        prop_assert!(h.substantial_action_seq.is_some());
                        hands.push(h.seats.len());
                    }
                    _ => {}
                }
            }
            prop_assert_eq!(hands, expected);
        }
    }
}

/// Any event of a poker table, including nonsense (seats dealt at random, indices and faces
/// anyhow, actions and declarations out of place).
pub(crate) fn arbitrary_event() -> impl Strategy<Value = EventKind> {
    let seat = (1u8..=10).prop_map(Target::Seat);
    prop_oneof![
        6 => (0u8..52, seat.clone(), prop::option::of(1u8..=12), prop::option::of(any::<bool>()))
            .prop_map(|(c, target, index, face_up)| EventKind::CardDrawn {
                card: Some(card(c)),
                target: Some(target),
                index,
                face_up,
                retransmit: None,
            }),
        1 => (0u8..52).prop_map(|c| EventKind::card(card(c))),
        1 => (50u32..54).prop_map(|cards| EventKind::Shuffled {
            decks: Some(1),
            cards: Some(cards),
            shuffler: None,
        }),
        3 => (seat.clone(), prop::sample::select(PlayerAction::ALL.to_vec()))
            .prop_map(|(target, action)| EventKind::PlayerActed { target, action }),
        1 => (
            prop::sample::select(pitwatch_model::MisdealReason::ALL.to_vec()),
            prop::collection::vec(1u8..=10, 0..3),
            prop::sample::select(pitwatch_model::MisdealRuling::ALL.to_vec()),
        )
            .prop_map(|(reason, seats, ruling)| EventKind::MisdealDeclared { reason, seats, ruling }),
        1 => prop::sample::select(pitwatch_model::ExposedDuring::ALL.to_vec())
            .prop_map(|during| EventKind::CardExposed { card: None, during }),
        1 => Just(EventKind::CardsReplaced),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Whatever arrives, the engine never panics, every hand is recorded once with consecutive
    /// numbers, and a hand's seats never hold more cards than the stream dealt to seats.
    #[test]
    fn arbitrary_streams_never_panic(kinds in prop::collection::vec(arbitrary_event(), 0..120)) {
        let seat_cards = kinds
            .iter()
            .filter(|k| matches!(k, EventKind::CardDrawn { target: Some(_), .. }))
            .count();
        let events: Vec<TableEvent> = kinds
            .into_iter()
            .enumerate()
            .map(|(i, k)| TableEvent::new(i as u64 + 1, k))
            .collect();
        for variant in ["texas_holdem", "draw", "five_card_stud", "seven_card_stud"] {
            let book = Book::nz_poker().with_variant(variant).unwrap();
            let mut number = 0;
            let mut dealt = 0usize;
            for o in replay(&book, &events) {
                if let Output::Hand(h) = o {
                    number += 1;
                    prop_assert_eq!(h.hand, number);
                    dealt += h.seats.iter().map(|s| usize::from(s.cards)).sum::<usize>();
                }
            }
            prop_assert_eq!(dealt, seat_cards);
        }
    }
}
