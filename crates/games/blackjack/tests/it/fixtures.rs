//! Blackjack's and Pontoon's data-driven fixtures (`tests/fixtures/*.txt`) through the one runner
//! every game shares (`pitwatch-fixtures`: the file format, the shoe's shorthand, `UPDATE_FIXTURES`);
//! this file adds only the boxes' shorthand and the round's line.
//!
//! ```text
//! 1:AS D:9H 2:KD          cards to box 1, the dealer, box 2 (?? = unreadable)
//! 1#2:AS                  a card to box 1 reported as the hand's card 2 (the device's index)
//! 1.2:AS                  a card to box 1 hand 2, named by the device (`box:1.2`)
//! in 1 2   stand 1   double 2   split 1   surrender 1   insurance 3   stand 1.2 (box 1 hand 2)
//! ```

use std::fmt::Write as _;

use pitwatch_blackjack::{replay, Book, Output, RoundRecord};
use pitwatch_fixtures::shorthand::{card, drawn, placed, word};
use pitwatch_fixtures::{seq_span, FixtureGame, Line, Wording};
use pitwatch_model::{Action, EventKind, TableEvent, Target};

/// Blackjack and Pontoon, to the fixture runner.
struct Blackjack;

impl FixtureGame for Blackjack {
    type Book = Book;
    type Output = Output;
    const WORDING: Wording = Wording::ROUNDS;
    // A shuffler's deck check counts Pontoon's Spanish decks (no tens).
    const DECK_CARDS: u32 = 48;

    fn book(rules: &str) -> Result<Book, String> {
        Book::builtin(rules).map_err(|e| e.to_string())
    }

    fn shorthand(words: &[&str]) -> Result<Vec<EventKind>, String> {
        let action = match words[0] {
            "in" => {
                return words[1..]
                    .iter()
                    .map(|b| decision(b, Action::InPlay))
                    .collect()
            }
            "stand" => Action::Stand,
            "double" => Action::Double,
            "split" => Action::Split,
            "surrender" => Action::Surrender,
            "insurance" => Action::Insurance,
            _ => return words.iter().map(|w| box_card(w)).collect(),
        };
        Ok(vec![decision(&word::<String>(words, 1)?, action)?])
    }

    fn replay(book: &Book, events: &[TableEvent]) -> Vec<Output> {
        replay(book, events)
    }

    fn line(output: &Output) -> Line<'_> {
        Line::of(output, round)
    }
}

/// A decision on box `target` (`1`) or one of its hands (`1.2`).
fn decision(target: &str, action: Action) -> Result<EventKind, String> {
    let bad = |e: std::num::ParseIntError| format!("{target:?}: {e}");
    let (number, hand) = match target.split_once('.') {
        Some((b, h)) => (b, Some(h.parse().map_err(bad)?)),
        None => (target, None),
    };
    Ok(EventKind::Decision {
        target: Target::Box(number.parse().map_err(bad)?),
        hand,
        action,
    })
}

/// `1:AS`, `D:9H`, `1#2:AS` or `1.2:AS`: a card to a box, the dealer or a box's hand.
fn box_card(w: &str) -> Result<EventKind, String> {
    let bad = |e: std::num::ParseIntError| format!("{w:?}: {e}");
    let (target, index, text) = placed(w)?;
    let target = if target == "D" {
        Target::Dealer
    } else if let Some((number, hand)) = target.split_once('.') {
        Target::Hand {
            number: number.parse().map_err(bad)?,
            hand: hand.parse().map_err(bad)?,
        }
    } else {
        Target::Box(target.parse().map_err(bad)?)
    };
    Ok(drawn(card(text)?, Some(target), index))
}

fn cards(cards: &[Option<pitwatch_model::Card>]) -> String {
    cards
        .iter()
        .map(|c| c.map_or_else(|| "??".to_owned(), |c| c.to_string()))
        .collect::<Vec<_>>()
        .join(" ")
}

fn total(t: Option<u8>) -> String {
    t.map_or_else(|| "?".to_owned(), |t| t.to_string())
}

fn round(r: &RoundRecord) -> String {
    let mut s = format!(
        "round {}.{} D[{}]={}{}",
        r.shoe,
        r.round,
        cards(r.dealer.as_slice()),
        total(r.dealer_total),
        if r.dealer_blackjack { " bj" } else { "" }
    );
    for b in &r.boxes {
        for (i, h) in b.hands.iter().enumerate() {
            let _ = write!(
                s,
                " | {}{}:[{}]={}{}{} {} {}",
                b.number,
                if b.hands.len() > 1 {
                    format!(".{}", i + 1)
                } else {
                    String::new()
                },
                cards(h.cards.as_slice()),
                total(h.total),
                if h.soft { "s" } else { "" },
                if h.doubled { " dbl" } else { "" },
                h.outcome.map_or_else(
                    || "unsettled".to_owned(),
                    |o| serde_json::to_value(o)
                        .unwrap()
                        .as_str()
                        .unwrap()
                        .to_owned()
                ),
                h.pays.map_or_else(|| "?".to_owned(), |p| format!("{p:+}")),
            );
        }
        for bet in &b.side_bets {
            let _ = write!(
                s,
                " {}{}",
                bet.bet,
                bet.pays
                    .map_or_else(|| "?".to_owned(), |p| format!("{p:+}"))
            );
        }
    }
    s + &seq_span(r.first_seq, r.last_seq, r.complete)
}

#[test]
fn every_fixture_gives_its_expected_outputs() {
    pitwatch_fixtures::check_dir::<Blackjack>(env!("CARGO_MANIFEST_DIR"), 15);
}
