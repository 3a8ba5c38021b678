//! The pace of simulated Baccarat shoes with known timings: each part of a round, the gap
//! between rounds, a shoe change's downtime, rounds per hour over dealing time only.

use super::*;
use crate::{GameBook, TableEngine};

const T0: i64 = 1_796_000_000_000;

/// An event of the event-file format (docs/events.md) at `T0 + seconds`.
fn event(seq: u64, seconds: f64, json: &str) -> TableEvent {
    let mut value: serde_json::Value = serde_json::from_str(json).expect("JSON");
    value["seq"] = seq.into();
    let mut event: TableEvent = serde_json::from_value(value).expect("an event");
    event.at = Timestamp::from_unix_millis(T0 + (seconds * 1000.0) as i64);
    event
}

/// A round of four cards, naturals both (P 9, B 8): bets closed at `start`, the cards a second
/// apart from `start + deal_after`, the result `reveal` seconds after the last card.
fn round(events: &mut Vec<TableEvent>, start: f64, deal_after: f64, reveal: f64) {
    let mut seq = events.len() as u64 + 1;
    let mut push = |at: f64, json: &str| {
        events.push(event(seq, at, json));
        seq += 1;
    };
    push(start, r#"{"event":"bets_closed"}"#);
    let first = start + deal_after;
    for (i, (card, target, index)) in [
        ("9H", "player", 1),
        ("8D", "banker", 1),
        ("KS", "player", 2),
        ("KC", "banker", 2),
    ]
    .into_iter()
    .enumerate()
    {
        push(
            first + i as f64,
            &format!(
                r#"{{"event":"card_drawn","card":"{card}","target":"{target}","index":{index}}}"#
            ),
        );
    }
    push(
        first + 3.0 + reveal,
        r#"{"event":"result_declared","outcome":"player"}"#,
    );
}

fn shuffle(events: &mut Vec<TableEvent>, at: f64) {
    let seq = events.len() as u64 + 1;
    events.push(event(seq, at, r#"{"event":"shuffled","decks":8}"#));
}

fn pace_of(events: &[TableEvent]) -> Pace {
    let book = GameBook::load("nz-baccarat").expect("a built-in book");
    let mut engine = TableEngine::new(book);
    let steps: Vec<(TableEvent, Vec<GameOutput>)> = events
        .iter()
        .map(|event| {
            engine.handle_event(event);
            let mut outputs = Vec::new();
            while let Some(output) = engine.poll_output() {
                outputs.push(output);
            }
            (event.clone(), outputs)
        })
        .collect();
    Pace::of(steps.iter().map(|(e, o)| (e, o.as_slice())))
}

#[test]
fn each_part_of_a_round_and_the_gap_between_rounds_are_timed() {
    let mut events = Vec::new();
    shuffle(&mut events, 0.0);
    round(&mut events, 10.0, 2.0, 5.0); // cards 12–15 s, result 20 s
    round(&mut events, 40.0, 3.0, 7.0); // cards 43–46 s, result 53 s
    let pace = pace_of(&events);
    assert_eq!(pace.rounds.len(), 2, "{pace:?}");
    let (first, second) = (&pace.rounds[0], &pace.rounds[1]);
    assert_eq!((first.shoe, first.round), (1, 1));
    assert_eq!(first.bets_closed_to_first_card_ms, Some(2_000));
    assert_eq!(first.deal_ms, Some(3_000));
    assert_eq!(first.reveal_ms, Some(5_000));
    assert_eq!(first.gap_before_ms, None, "a shoe's first round");
    assert_eq!(first.duration_ms(), Some(8_000));
    assert_eq!(second.bets_closed_to_first_card_ms, Some(3_000));
    assert_eq!(second.reveal_ms, Some(7_000));
    assert_eq!(
        second.gap_before_ms,
        Some(23_000),
        "result at 20 s, first card at 43 s"
    );
    assert!(pace.shoes.is_empty());
    // No burn dealt before the first round: one irregularity in two rounds.
    assert_eq!(pace.irregularities.get("BURN_MISSING"), Some(&1));
    assert_eq!(pace.errors_per_100_rounds(), Some(50.0));
    // Dealing time: 8 s + 23 s + 10 s for two rounds: 2 × 3600 / 41 an hour.
    let per_hour = pace.rounds_per_hour(BREAK_AFTER_MS).expect("timed");
    assert!((per_hour - 7_200.0 / 41.0).abs() < 1e-9, "{per_hour}");
}

#[test]
fn a_break_and_a_shoe_change_are_not_dealing_time_and_the_change_is_timed() {
    let mut events = Vec::new();
    shuffle(&mut events, 0.0);
    round(&mut events, 10.0, 2.0, 5.0); // first card 12 s, last 15 s, result 20 s
                                        // A break of ten minutes, then a round.
    round(&mut events, 620.0, 2.0, 5.0); // 622–625 s, result 630 s
                                         // The shoe changes: shuffled at 700 s, the new shoe's first card at 812 s.
    shuffle(&mut events, 700.0);
    round(&mut events, 810.0, 2.0, 5.0);
    let pace = pace_of(&events);
    assert_eq!(pace.rounds.len(), 3, "{pace:?}");
    assert_eq!(pace.rounds[1].gap_before_ms, Some(602_000));
    assert_eq!(pace.rounds[2].shoe, 2);
    assert_eq!(pace.rounds[2].gap_before_ms, None);
    assert_eq!(pace.shoes.len(), 1);
    let change = &pace.shoes[0];
    assert_eq!(change.shoe, 2);
    assert_eq!(
        change.last_card_at.map(|t| t.unix_millis() - T0),
        Some(625_000)
    );
    assert_eq!(
        change.shuffled_at.map(|t| t.unix_millis() - T0),
        Some(700_000)
    );
    assert_eq!(change.downtime_ms(), Some(812_000 - 625_000));
    // Three rounds of 8 s each, no gap counted: 3 × 3600 / 24.
    let per_hour = pace.rounds_per_hour(BREAK_AFTER_MS).expect("timed");
    assert!((per_hour - 450.0).abs() < 1e-9, "{per_hour}");
}

#[test]
fn events_without_times_give_rounds_without_timings() {
    let mut events = Vec::new();
    shuffle(&mut events, 0.0);
    round(&mut events, 10.0, 2.0, 5.0);
    for event in &mut events {
        event.at = None;
    }
    let pace = pace_of(&events);
    assert_eq!(pace.rounds.len(), 1);
    assert_eq!(pace.rounds[0].deal_ms, None);
    assert_eq!(pace.rounds_per_hour(BREAK_AFTER_MS), None);
}

#[test]
fn a_shoes_provenance_is_its_shuffle_deck_check_cut_and_cutting_card() {
    let mut events = Vec::new();
    shuffle(&mut events, 0.0);
    let mut push = |at: f64, json: &str| {
        let seq = events.len() as u64 + 1;
        events.push(event(seq, at, json));
    };
    push(
        1.0,
        r#"{"event":"deck_checked","decks":8,"cards":415,"expected":416,"missing":1,"extra":0,"foreign":0}"#,
    );
    push(30.0, r#"{"event":"cut","position":212}"#);
    push(35.0, r#"{"event":"cutting_card_placed","from_back":60}"#);
    round(&mut events, 40.0, 2.0, 5.0); // first card at 42 s
    let seq = events.len() as u64 + 1;
    events.push(event(seq, 60.0, r#"{"event":"cutting_card_drawn"}"#));
    let p = Provenance::of(&events);
    assert_eq!(p.decks, Some(8));
    assert_eq!(p.shuffled_at.map(|t| t.unix_millis() - T0), Some(0));
    let check = p.deck_check.expect("the deck check");
    assert!(!check.whole());
    assert_eq!((check.cards, check.missing), (415, 1));
    assert_eq!(p.cut_position, Some(212));
    assert_eq!(p.cutting_card_from_back, Some(60));
    assert_eq!(p.cutting_card_out_after, Some(4));
    assert_eq!(p.cards_drawn, 4);
    assert_eq!(p.shuffle_to_first_card_ms(), Some(42_000));
}
