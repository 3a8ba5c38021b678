//! The dealer's own tests: honest shoes by the book, and each fault where it was planned.

use super::*;
use pitwatch_model::DeckKind;
use pitwatch_rules::{CutLimit, ShuffleCheck};

/// The NZ Baccarat shoe (Gazette 2004 No 56): eight decks from a batch shuffler, cut at
/// least a deck from either end (7.6), the cutting card at least 20 cards from the back
/// (7.6), the burn by the first card's value (7.7, 7.9: ace 1) and the last coup (11.2).
fn nz() -> ShoeBook {
    ShoeBook {
        composition: ShoeComposition::new(8, DeckKind::Standard52),
        min_decks: 4,
        max_decks: 8,
        shuffler: ShufflerKind::Batch,
        shuffle_steps: Vec::new(),
        cut: Some(CutLimit::Decks(1)),
        cutting_card: Some(CuttingCardLimit {
            min_from_back: 20,
            max_from_back_fraction: None,
        }),
        burn: BurnPolicy::FirstCardValue { ace: 1 },
        end_of_shoe: Some(EndOfShoePolicy::LastCoup),
        shuffle_check: ShuffleCheck::default(),
    }
}

#[test]
fn an_honest_shoe_holds_no_card_more_often_than_the_shoe_does() {
    let session = deal(&nz(), &DealerConfig::angel_eye(), &[], 9);
    let mut seen = [0u8; Card::DISTINCT];
    for event in &session.events {
        if let EventKind::CardDrawn { card: Some(c), .. } = event.kind {
            seen[c.index()] += 1;
        }
    }
    assert!(seen.iter().all(|&n| n <= 8));
    let drawn: u32 = seen.iter().map(|&n| u32::from(n)).sum();
    assert_eq!(session.cards_per_shoe, vec![drawn]);
    // The cutting card sits 20 to 34 cards from the back; after it at most two rounds (12
    // cards) are dealt.
    assert!((382..=408).contains(&drawn), "{drawn} cards drawn");
}

#[test]
fn a_shoe_starts_with_shuffle_cut_cutting_card_and_the_burn() {
    let session = deal(&nz(), &DealerConfig::angel_eye(), &[], 2);
    let names: Vec<&str> = session
        .events
        .iter()
        .take(4)
        .map(|e| e.kind.name())
        .collect();
    assert_eq!(
        names,
        ["shuffled", "cut", "cutting_card_placed", "card_drawn"]
    );
    let EventKind::CardDrawn {
        card: Some(first),
        target: Some(Target::First),
        ..
    } = session.events[3].kind
    else {
        panic!("the burn's first card comes first: {:?}", session.events[3]);
    };
    let burns = session
        .events
        .iter()
        .filter(|e| {
            matches!(
                e.kind,
                EventKind::CardDrawn {
                    target: Some(Target::Burn),
                    ..
                }
            )
        })
        .count() as u32;
    assert_eq!(burns, nz().burn.count_after(first.rank));
}

#[test]
fn every_injected_fault_points_at_an_event_of_the_stream() {
    // A shoe has one burn, so each burn fault goes in a shoe of its own.
    let mut burn_shoe = 0;
    let plans: Vec<FaultPlan> = FaultKind::ALL
        .iter()
        .map(|&kind| {
            let burn = kind.name().starts_with("burn_");
            burn_shoe += u32::from(burn);
            FaultPlan {
                kind,
                shoe: if burn { burn_shoe } else { 1 },
                round: 20,
            }
        })
        .collect();
    let config = DealerConfig {
        shoes: 4,
        ..DealerConfig::angel_eye()
    };
    let session = deal(&nz(), &config, &plans, 4);
    let missing: Vec<_> = plans
        .iter()
        .filter(|p| !session.faults.iter().any(|f| f.kind == p.kind))
        .collect();
    assert!(missing.is_empty(), "not injected: {missing:?}");
    assert_eq!(session.faults.len(), FaultKind::ALL.len());
    for fault in &session.faults {
        assert!(
            session.events.iter().any(|e| e.seq == fault.seq),
            "{fault:?}"
        );
        assert_eq!(fault.expected_code, fault.kind.expected_code());
    }
}

#[test]
fn fault_names_match_their_json_and_parse_back() {
    for &kind in FaultKind::ALL {
        let json = serde_json::to_value(kind).unwrap();
        assert_eq!(json.as_str(), Some(kind.name()));
        assert_eq!(kind.name().parse::<FaultKind>(), Ok(kind));
    }
    assert!("card_switch".parse::<FaultKind>().is_err());
}

#[test]
fn the_same_seed_deals_the_same_events_and_a_plain_shoe_carries_no_targets() {
    let a = deal(&nz(), &DealerConfig::barcode(), &[], 77);
    let b = deal(&nz(), &DealerConfig::barcode(), &[], 77);
    assert_eq!(a.events, b.events);
    assert_eq!(a.rounds, b.rounds);
    assert!(a.events.iter().all(|e| !matches!(
        e.kind,
        EventKind::CardDrawn {
            target: Some(_),
            ..
        }
    )));
}
