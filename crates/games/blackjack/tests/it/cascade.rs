//! No cascades: a card after a round looked complete that does not begin the next round is that
//! round's, one incident there, and the rounds after it keep their numbers. The honest dealer
//! simulator deals a stream, and its fault goes in at a round where the class shows: a card to an
//! empty box at a round whose every box was settled without the dealer (the card looks like the
//! next round's first), and the dealer's extra card at a round whose last card came just before
//! the cutting card (which then comes out after the round looked complete, just before that extra
//! card). Each case must be one incident, at its round, with the fault's code, and every other
//! hand must be settled as the dealer reckons.

use pitwatch_blackjack::dealer::{deal, Config, Dealt, Fault};
use pitwatch_blackjack::{replay, Book, RoundRecord};
use pitwatch_model::{EventKind, Target};

use crate::simulated::{check_outcomes, irregularities, rounds};

/// The ways a table reports: (boxes declared, stands reported).
const STYLES: [(bool, bool); 3] = [(true, true), (true, false), (false, false)];

/// The rounds of an honest stream (numbered over the stream from 1, as the dealer's faults are)
/// where `class` holds, leaving out the last shoe's: the stream ends with it, and a card at the
/// end of a capture may be the first of a round cut off.
fn rounds_where(
    dealt: &Dealt,
    records: &[&RoundRecord],
    shoes: u32,
    class: impl Fn(&Dealt, &RoundRecord) -> bool,
) -> Vec<u32> {
    records
        .iter()
        .enumerate()
        .filter(|&(_, r)| r.shoe < shoes && class(dealt, r))
        .map(|(i, _)| i as u32 + 1)
        .collect()
}

/// Every box settled without the dealer: the dealer took only the first card.
fn every_box_settled(_: &Dealt, r: &RoundRecord) -> bool {
    r.dealer.len() == 1
}

/// The dealer drew the round's last card, and the cutting card came out right after it.
fn cutting_card_after_the_dealers_last(dealt: &Dealt, r: &RoundRecord) -> bool {
    let at = |seq: u64| dealt.events.get(seq as usize - 1).map(|e| &e.kind);
    let dealer_last = matches!(
        at(r.last_seq),
        Some(EventKind::CardDrawn {
            target: Some(Target::Dealer),
            ..
        })
    );
    dealer_last && r.dealer.len() >= 2 && at(r.last_seq + 1) == Some(&EventKind::CuttingCardDrawn)
}

/// Injects `fault` at every round of honest streams where `class` holds, and checks each case;
/// returns how many cases there were.
fn check_class(
    book: &Book,
    fault: Fault,
    boxes: u8,
    class: impl Fn(&Dealt, &RoundRecord) -> bool + Copy,
) -> usize {
    let mut cases = 0;
    for (declare_boxes, report_stands) in STYLES {
        for seed in 1..=30 {
            let honest = Config {
                seed,
                shoes: 3,
                boxes,
                declare_boxes,
                report_stands,
                ..Config::default()
            };
            let dealt = deal(book, &honest);
            let outputs = replay(book, &dealt.events);
            for round in rounds_where(&dealt, &rounds(&outputs), honest.shoes, class) {
                let config = Config {
                    faults: vec![(fault, round)],
                    ..honest.clone()
                };
                let faulty = deal(book, &config);
                let label = format!(
                    "{} {} seed {seed} declared {declare_boxes} stands {report_stands} round {round}",
                    book.id,
                    fault.name()
                );
                assert_eq!(faulty.injected.len(), 1, "{label}: not injected");
                let at = faulty.injected[0];
                let outputs = replay(book, &faulty.events);
                let flagged = irregularities(&outputs);
                assert_eq!(flagged.len(), 1, "{label}: {flagged:#?}");
                assert_eq!(
                    (flagged[0].shoe, flagged[0].round),
                    (at.shoe, Some(at.round)),
                    "{label}: {flagged:#?}"
                );
                assert!(
                    flagged[0].code == fault.code() || flagged[0].also.contains(fault.code()),
                    "{label}: {flagged:#?}"
                );
                check_outcomes(book, &faulty, &outputs);
                cases += 1;
            }
        }
    }
    cases
}

#[test]
fn a_card_to_an_empty_box_after_every_box_was_settled_is_that_rounds() {
    for book in [Book::nz_blackjack(), Book::nz_pontoon()] {
        // One box in play, so that every box is often bust.
        let cases = check_class(&book, Fault::CardToEmptyBox, 1, every_box_settled);
        assert!(cases >= 20, "{}: only {cases} cases", book.id);
    }
}

#[test]
fn the_dealers_card_after_the_cutting_card_is_that_rounds() {
    for book in [Book::nz_blackjack(), Book::nz_pontoon()] {
        let mut cases = 0;
        for boxes in [1, 3] {
            cases += check_class(
                &book,
                Fault::DealerDrawsOnStand,
                boxes,
                cutting_card_after_the_dealers_last,
            );
        }
        assert!(cases >= 10, "{}: only {cases} cases", book.id);
    }
}
