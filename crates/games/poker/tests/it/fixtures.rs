//! Poker's data-driven fixtures (`tests/fixtures/*.txt`) through the one runner every game shares
//! (`pitwatch-fixtures`: the file format, the shoe's shorthand, `UPDATE_FIXTURES`); this file adds
//! only the seats' shorthand and the hand's line. The `rules =` line names the book and, after it,
//! the variant dealt (`rules = nz-poker seven_card_stud`).
//!
//! ```text
//! 1:AS- 2:KD- 1#2:9H+     cards to seats (`#N` the device's index, `-` face down, `+` face up,
//!                         `??` unreadable)
//! board AS KD QH          cards without a target (community cards), face up
//! blind 1   act 2 call    a forced bet, an action on a hand
//! misdeal d 2,5 misdeal   a declared misdeal: reason, seats (`-` for none), ruling
//! ```

use std::fmt::Write as _;

use pitwatch_fixtures::shorthand::{card, placed, word};
use pitwatch_fixtures::{seq_span, FixtureGame, Line, Wording};
use pitwatch_model::{EventKind, PlayerAction, TableEvent, Target};
use pitwatch_poker::{replay, Book, HandRecord, Output};

/// Poker, to the fixture runner.
struct Poker;

impl FixtureGame for Poker {
    type Book = Book;
    type Output = Output;
    // Decks and hands; an irregularity names only its hand, and the codes its incident folds in.
    const WORDING: Wording = Wording {
        shoe: "deck",
        round: "hand",
        irregularity_shoe: false,
        also: true,
    };

    fn book(rules: &str) -> Result<Book, String> {
        let mut words = rules.split_whitespace();
        let book = Book::builtin(words.next().unwrap_or_default()).map_err(|e| e.to_string())?;
        match words.next() {
            Some(variant) => book.with_variant(variant).map_err(|e| e.to_string()),
            None => Ok(book),
        }
    }

    fn shorthand(words: &[&str]) -> Result<Vec<EventKind>, String> {
        let seat = |i| word(words, i).map(Target::Seat);
        Ok(match words[0] {
            "board" => words[1..]
                .iter()
                .map(|c| Ok(drawn(card(c)?, None, None, Some(true))))
                .collect::<Result<_, String>>()?,
            "blind" => vec![EventKind::PlayerActed {
                target: seat(1)?,
                action: PlayerAction::Blind,
            }],
            "act" => vec![EventKind::PlayerActed {
                target: seat(1)?,
                action: word(words, 2)?,
            }],
            "misdeal" => vec![EventKind::MisdealDeclared {
                reason: word(words, 1)?,
                seats: match word::<String>(words, 2)?.as_str() {
                    "-" => Vec::new(),
                    seats => seats
                        .split(',')
                        .map(|s| s.parse().map_err(|e| format!("{s:?}: {e}")))
                        .collect::<Result<_, String>>()?,
                },
                ruling: word(words, 3)?,
            }],
            _ => words
                .iter()
                .map(|w| seat_card(w))
                .collect::<Result<_, String>>()?,
        })
    }

    fn replay(book: &Book, events: &[TableEvent]) -> Vec<Output> {
        replay(book, events)
    }

    fn line(output: &Output) -> Line<'_> {
        match output {
            Output::Hand(h) => Line::Round(hand(h)),
            Output::Irregularity(i) => Line::Irregularity(i),
            Output::Shoe(s) => Line::Shoe(s),
            Output::DeviceErrorCleared(c) => Line::Cleared(c),
        }
    }
}

/// A card drawn, face up or down if said.
fn drawn(
    card: Option<pitwatch_model::Card>,
    target: Option<Target>,
    index: Option<u8>,
    face_up: Option<bool>,
) -> EventKind {
    EventKind::CardDrawn {
        card,
        target,
        index,
        face_up,
        retransmit: None,
    }
}

/// `1:AS-`, `1#2:9H+`: a card to a seat, with the device's index and its face if said.
fn seat_card(w: &str) -> Result<EventKind, String> {
    let bad = |e: std::num::ParseIntError| format!("{w:?}: {e}");
    let (target, index, text) = placed(w)?;
    let (text, face_up) = match text.as_bytes().last() {
        Some(b'+') => (&text[..text.len() - 1], Some(true)),
        Some(b'-') => (&text[..text.len() - 1], Some(false)),
        _ => (text, None),
    };
    let seat = Target::Seat(target.parse().map_err(bad)?);
    Ok(drawn(card(text)?, Some(seat), index, face_up))
}

fn hand(h: &HandRecord) -> String {
    let mut s = format!("hand {} deck {} {} seats", h.hand, h.shoe, h.variant);
    for seat in &h.seats {
        let _ = write!(s, " {}:{}", seat.seat, seat.cards);
        if seat.face_up > 0 {
            let _ = write!(s, "/{}up", seat.face_up);
        }
        if seat.folded {
            s.push('f');
        } else if seat.acted {
            s.push('a');
        }
        if let Some(ruled) = seat.ruled {
            let _ = write!(s, "({ruled})");
        }
    }
    let _ = write!(
        s,
        " misdeal {}",
        h.misdeal.map_or("-".to_owned(), |m| m.to_string())
    );
    for d in &h.declared {
        let _ = write!(s, " declared {} {}", d.reason, d.ruling);
    }
    if let Some(sa) = h.substantial_action_seq {
        let _ = write!(s, " sa {sa}");
    }
    s + &seq_span(h.first_seq, h.last_seq, h.complete)
}

#[test]
fn every_fixture_gives_its_expected_outputs() {
    pitwatch_fixtures::check_dir::<Poker>(env!("CARGO_MANIFEST_DIR"), 12);
}
