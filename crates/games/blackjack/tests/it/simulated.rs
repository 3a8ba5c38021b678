//! Simulated play: the dealer simulator (its own hand counting) deals honest rounds with a
//! basic-strategy player per box, and faults at chosen rounds; the engine must flag nothing in
//! honest play, settle every hand as the simulator reckons it, and find each fault at its round.

use pitwatch_blackjack::dealer::{deal, Config, Dealt, Fault};
use pitwatch_blackjack::{replay, Book, Output, RoundRecord};
use pitwatch_model::{EventKind, TableEvent};

fn books() -> [Book; 2] {
    [Book::nz_blackjack(), Book::nz_pontoon()]
}

pub(crate) fn rounds(outputs: &[Output]) -> Vec<&RoundRecord> {
    outputs
        .iter()
        .filter_map(|o| match o {
            Output::Round(r) => Some(r),
            _ => None,
        })
        .collect()
}

pub(crate) fn irregularities(outputs: &[Output]) -> Vec<&pitwatch_rules::Irregularity> {
    outputs
        .iter()
        .filter_map(|o| match o {
            Output::Irregularity(i) => Some(i),
            _ => None,
        })
        .collect()
}

pub(crate) fn check_outcomes(book: &Book, dealt: &Dealt, outputs: &[Output]) {
    let rounds = rounds(outputs);
    assert_eq!(rounds.len() as u32, dealt.rounds, "{}: rounds", book.id);
    for e in &dealt.expected {
        let round = rounds
            .iter()
            .find(|r| r.shoe == e.shoe && r.round == e.round)
            .unwrap_or_else(|| panic!("{}: no round {}.{}", book.id, e.shoe, e.round));
        assert!(
            round.complete,
            "{}: round {}.{} incomplete",
            book.id, e.shoe, e.round
        );
        let b = round
            .boxes
            .iter()
            .find(|b| b.number == e.box_number)
            .unwrap_or_else(|| {
                panic!(
                    "{}: round {}.{} has no box {}",
                    book.id, e.shoe, e.round, e.box_number
                )
            });
        let hand = &b.hands[e.hand];
        let cards: Vec<_> = hand.cards.as_slice().iter().map(|c| c.unwrap()).collect();
        let at = format!(
            "{} round {}.{} box {} hand {}",
            book.id,
            e.shoe,
            e.round,
            e.box_number,
            e.hand + 1
        );
        assert_eq!(cards, e.cards, "{at}: cards");
        assert_eq!(hand.outcome, Some(e.outcome), "{at}: outcome");
        assert_eq!(hand.pays, Some(e.pays), "{at}: pays");
    }
    for e in &dealt.insurance {
        let at = format!(
            "{} round {}.{} box {} insurance",
            book.id, e.shoe, e.round, e.box_number
        );
        let round = rounds
            .iter()
            .find(|r| r.shoe == e.shoe && r.round == e.round)
            .unwrap_or_else(|| panic!("{at}: no round"));
        assert!(round.complete, "{at}: round incomplete");
        let pays = round
            .boxes
            .iter()
            .find(|b| b.number == e.box_number)
            .and_then(|b| b.side_bets.iter().find(|s| s.bet == "insurance"))
            .unwrap_or_else(|| panic!("{at}: not on record"))
            .pays;
        assert_eq!(pays, Some(e.pays), "{at}: pays");
    }
}

#[test]
fn honest_play_is_never_flagged_and_every_hand_is_settled_as_the_dealer_reckons() {
    for book in books() {
        for (declare_boxes, report_stands) in [(true, true), (false, false), (true, false)] {
            for seed in 1..=12 {
                let config = Config {
                    seed,
                    shoes: 2,
                    declare_boxes,
                    report_stands,
                    ..Config::default()
                };
                let dealt = deal(&book, &config);
                assert!(
                    dealt.rounds > 10,
                    "{} seed {seed}: {} rounds",
                    book.id,
                    dealt.rounds
                );
                let outputs = replay(&book, &dealt.events);
                let flagged = irregularities(&outputs);
                assert!(
                    flagged.is_empty(),
                    "{} seed {seed} declare {declare_boxes} stands {report_stands}: {flagged:#?}",
                    book.id
                );
                check_outcomes(&book, &dealt, &outputs);
            }
        }
    }
}

#[test]
fn honest_insurance_is_settled_by_the_dealers_second_card_and_never_flagged() {
    // Boxes take insurance on every other ace: some rounds leave only insurance open (every hand
    // bust: likeliest with one box), where the dealer takes the second card alone; the others
    // play on as usual.
    let book = Book::nz_blackjack();
    assert!(book.insurance, "the NZ book offers insurance");
    let (mut insured, mut only_insurance, mut won) = (0, 0, 0);
    for seed in 1..=24 {
        let config = Config {
            seed,
            shoes: 2,
            boxes: if seed % 2 == 0 { 1 } else { 7 },
            insurance_every: 2,
            ..Config::default()
        };
        let dealt = deal(&book, &config);
        let outputs = replay(&book, &dealt.events);
        let flagged = irregularities(&outputs);
        assert!(flagged.is_empty(), "seed {seed}: {flagged:#?}");
        check_outcomes(&book, &dealt, &outputs);
        insured += dealt.insurance.len();
        won += dealt.insurance.iter().filter(|e| e.pays > 0.0).count();
        for r in rounds(&outputs) {
            let insured_here = r
                .boxes
                .iter()
                .any(|b| b.side_bets.iter().any(|s| s.bet == "insurance"));
            let all_bust = r
                .boxes
                .iter()
                .all(|b| b.hands.iter().all(|h| h.total.is_some_and(|t| t > 21)));
            if insured_here && all_bust {
                assert_eq!(r.dealer.len(), 2, "seed {seed} round {}", r.round);
                only_insurance += 1;
            }
        }
    }
    assert!(insured > 50, "{insured} insurance wagers");
    assert!(won > 0, "no insurance won");
    assert!(only_insurance > 0, "no round with only insurance open");
}

#[test]
fn the_honest_simulation_covers_the_rules_it_should() {
    // Over many rounds, every outcome, doubles, splits and (Pontoon) surrenders and bonuses occur.
    for book in books() {
        let dealt = deal(
            &book,
            &Config {
                seed: 7,
                shoes: 20,
                ..Config::default()
            },
        );
        let outputs = replay(&book, &dealt.events);
        let hands: Vec<_> = rounds(&outputs)
            .into_iter()
            .flat_map(|r| r.boxes.iter().flat_map(|b| b.hands.iter()))
            .collect();
        let outcome = |name: &str| {
            hands
                .iter()
                .filter(|h| serde_json::to_value(h.outcome).unwrap() == name)
                .count()
        };
        for name in ["blackjack", "win", "lose", "push"] {
            assert!(outcome(name) > 0, "{}: no {name}", book.id);
        }
        assert!(hands.iter().any(|h| h.doubled), "{}: no double", book.id);
        assert!(hands.iter().any(|h| h.split), "{}: no split", book.id);
        if book.surrender {
            assert!(outcome("surrender") > 0, "{}: no surrender", book.id);
        }
        if book.bonus.is_some() {
            assert!(
                hands
                    .iter()
                    .any(|h| h.rule.is_some_and(|r| r.starts_with("bonus"))),
                "{}: no bonus paid",
                book.id
            );
        }
    }
}

#[test]
fn each_injected_fault_is_found_at_its_round_and_nowhere_else() {
    for book in books() {
        for &fault in Fault::ALL {
            for seed in 1..=10 {
                // Only insurance left open needs every hand bust: likeliest with one box.
                let rare = fault == Fault::InsuranceUnsettled;
                let config = Config {
                    seed,
                    shoes: if rare { 6 } else { 2 },
                    boxes: if rare { 1 } else { 7 },
                    faults: vec![(fault, 4 + seed as u32)],
                    insurance_every: if rare { 1 } else { 2 },
                    ..Config::default()
                };
                if !fault.can_show(&book, &config) {
                    continue;
                }
                let dealt = deal(&book, &config);
                assert_eq!(
                    dealt.injected.len(),
                    1,
                    "{} {fault:?} seed {seed}: not injected",
                    book.id
                );
                let at = dealt.injected[0];
                let outputs = replay(&book, &dealt.events);
                let flagged = irregularities(&outputs);
                let label = format!(
                    "{} {} seed {seed} at {}.{}",
                    book.id,
                    fault.name(),
                    at.shoe,
                    at.round
                );
                assert_eq!(flagged.len(), 1, "{label}: {flagged:#?}");
                let found = flagged[0];
                // A fault at a shoe's load (round 0) is outside any round.
                assert_eq!(
                    (found.shoe, found.round),
                    (at.shoe, (at.round > 0).then_some(at.round)),
                    "{label}"
                );
                assert!(
                    found.code == fault.code() || found.also.contains(fault.code()),
                    "{label}: found {} (also {:?})",
                    found.code,
                    found.also
                );
                check_outcomes(&book, &dealt, &outputs);
            }
        }
    }
}

#[test]
fn a_plain_shoe_of_the_same_cards_gets_the_shoe_checks_only() {
    for book in books() {
        let dealt = deal(
            &book,
            &Config {
                seed: 3,
                shoes: 2,
                ..Config::default()
            },
        );
        let plain: Vec<TableEvent> = dealt
            .events
            .iter()
            .filter(|e| !matches!(e.kind, EventKind::Decision { .. }))
            .map(|e| match &e.kind {
                EventKind::CardDrawn { card, .. } => {
                    TableEvent::new(e.seq, EventKind::card(card.unwrap()))
                }
                _ => e.clone(),
            })
            .collect();
        let outputs = replay(&book, &plain);
        assert!(irregularities(&outputs).is_empty(), "{}", book.id);
        assert!(rounds(&outputs).is_empty(), "{}", book.id);
        let cards: u32 = outputs
            .iter()
            .filter_map(|o| match o {
                Output::Shoe(s) => Some(s.cards),
                _ => None,
            })
            .sum();
        let dealt_cards = plain
            .iter()
            .filter(|e| matches!(e.kind, EventKind::CardDrawn { .. }))
            .count();
        assert_eq!(cards as usize, dealt_cards, "{}", book.id);
        // A foreign card in the same plain stream is still found.
        if book.variant.is_pontoon() {
            let mut foreign = plain.clone();
            let i = foreign
                .iter()
                .position(|e| matches!(e.kind, EventKind::CardDrawn { .. }))
                .unwrap();
            foreign[i].kind = EventKind::card("TS".parse().unwrap());
            let outputs = replay(&book, &foreign);
            let flagged = irregularities(&outputs);
            assert_eq!(flagged.len(), 1);
            assert_eq!(
                flagged[0].code,
                pitwatch_rules::IrregularityCode::ExcessCard
            );
        }
    }
}

#[test]
fn the_view_shows_the_round_in_progress_and_the_last_round_as_output() {
    use pitwatch_blackjack::Engine;
    use pitwatch_rules::Game;
    for book in books() {
        let dealt = deal(
            &book,
            &Config {
                seed: 9,
                shoes: 1,
                ..Config::default()
            },
        );
        let mut engine = Engine::new(book.clone());
        let mut last = None;
        let mut in_progress = 0;
        for event in &dealt.events {
            engine.handle_event(event);
            while let Some(o) = engine.poll_output() {
                if let Output::Round(r) = o {
                    last = Some(r);
                }
            }
            let view = engine.view();
            assert_eq!(view.last_round, last, "{} after seq {}", book.id, event.seq);
            if let Some(round) = &view.round {
                in_progress += 1;
                assert_eq!(round.round, view.rounds_completed + 1);
            }
        }
        assert!(in_progress > 0);
    }
}
