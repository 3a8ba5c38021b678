//! The shorthand every game's fixtures share: the shoe's events, which the one shoe tracker
//! handles for every game, so they are written the same way in every game's fixtures. A game's
//! own shorthand (cards to its boxes, seats or sides, decisions, results) is the game's
//! ([`crate::FixtureGame::shorthand`]); these helpers read its words too.
//!
//! ```text
//! shuffled [decks] [cards] [shuffler]   cut N   place N   cutting   bets   replaced
//! first 5S   burn 2H 3H   burned N        the burn's first card, burn cards, the burn counted
//! cards AS KD 9D                          plain cards (no target; ?? = unreadable)
//! exposed AS loading   error 7 text   cleared 7
//! steps chemmy stacking riffle            hand-preparation steps (Pontoon 6.4)
//! started [decks]   checked decks cards [missing extra foreign]   a shuffler beside the shoe
//! ```

use std::fmt::Display;
use std::str::FromStr;

use pitwatch_model::{Card, EventKind, ShuffleStep, Target};

/// Word `i` of a line, parsed.
pub fn word<T>(words: &[&str], i: usize) -> Result<T, String>
where
    T: FromStr,
    T::Err: Display,
{
    let w = words
        .get(i)
        .ok_or_else(|| format!("word {} missing", i + 1))?;
    w.parse().map_err(|e| format!("{w:?}: {e}"))
}

/// Word `i` of a line parsed, or `None` past the line's end.
pub fn optional<T>(words: &[&str], i: usize) -> Result<Option<T>, String>
where
    T: FromStr,
    T::Err: Display,
{
    if i < words.len() {
        word(words, i).map(Some)
    } else {
        Ok(None)
    }
}

/// A card: `AS`, or `??` for a card the device could not read.
pub fn card(text: &str) -> Result<Option<Card>, String> {
    if text == "??" {
        return Ok(None);
    }
    text.parse().map(Some).map_err(|e| format!("{text:?}: {e}"))
}

/// A card drawn, as the devices report one; `face_up` and `retransmit` are unsaid.
pub fn drawn(card: Option<Card>, target: Option<Target>, index: Option<u8>) -> EventKind {
    EventKind::CardDrawn {
        card,
        target,
        index,
        face_up: None,
        retransmit: None,
    }
}

/// A card to a named place, `place[#index]:card` (`1:AS`, `D#2:9H`): the place as written, the
/// device's index if said, and the card's text, for the game to read.
pub fn placed(w: &str) -> Result<(&str, Option<u8>, &str), String> {
    let (place, text) = w
        .split_once(':')
        .ok_or_else(|| format!("unknown shorthand {w:?}"))?;
    match place.split_once('#') {
        Some((place, index)) => {
            let index = index.parse().map_err(|e| format!("{w:?}: {e}"))?;
            Ok((place, Some(index), text))
        }
        None => Ok((place, None, text)),
    }
}

/// The events of a shoe-level shorthand line, or `None` when the line's first word is not one
/// of them (it is then the game's). `deck_cards` is what a deck holds in the game (a deck
/// check's expected count per deck).
pub fn shoe_events(words: &[&str], deck_cards: u32) -> Option<Result<Vec<EventKind>, String>> {
    let first = *words.first()?;
    let events = match first {
        "shuffled" => shuffled(words).map(|e| vec![e]),
        "cut" => word(words, 1).map(|position| vec![EventKind::Cut { position }]),
        "place" => word(words, 1).map(|from_back| vec![EventKind::CuttingCardPlaced { from_back }]),
        "cutting" => Ok(vec![EventKind::CuttingCardDrawn]),
        "bets" => Ok(vec![EventKind::BetsClosed]),
        "replaced" => Ok(vec![EventKind::CardsReplaced]),
        "burned" => word(words, 1).map(|count| vec![EventKind::BurnCounted { count }]),
        "first" => word::<String>(words, 1)
            .and_then(|c| card(&c))
            .map(|c| vec![drawn(c, Some(Target::First), Some(1))]),
        "burn" => (1..words.len())
            .map(|i| Ok(drawn(card(words[i])?, Some(Target::Burn), Some(i as u8))))
            .collect(),
        "cards" => words[1..]
            .iter()
            .map(|c| Ok(drawn(card(c)?, None, None)))
            .collect(),
        "exposed" => (|| {
            Ok(vec![EventKind::CardExposed {
                card: card(&word::<String>(words, 1)?)?,
                during: word(words, 2)?,
            }])
        })(),
        "error" => word(words, 1).map(|code| {
            vec![EventKind::DeviceError {
                code,
                text: words[2..].join(" "),
            }]
        }),
        "cleared" => word(words, 1).map(|code| vec![EventKind::DeviceErrorCleared { code }]),
        "steps" => (1..words.len())
            .map(|i| {
                Ok(EventKind::ShuffleStep {
                    step: word::<ShuffleStep>(words, i)?,
                })
            })
            .collect(),
        "started" => {
            optional(words, 1).map(|decks| vec![EventKind::ShuffleStarted { decks, cycle: None }])
        }
        "checked" => checked(words, deck_cards).map(|e| vec![e]),
        _ => return None,
    };
    Some(events)
}

/// `shuffled [decks] [cards] [shuffler]`: the numbers in order, then the shuffler, if named.
fn shuffled(words: &[&str]) -> Result<EventKind, String> {
    let mut decks = None;
    let mut cards = None;
    let mut shuffler = None;
    for (i, w) in words.iter().enumerate().skip(1) {
        match w.parse::<u32>() {
            Ok(n) if decks.is_none() => {
                decks = Some(u8::try_from(n).map_err(|e| format!("{w:?} decks: {e}"))?);
            }
            Ok(n) => cards = Some(n),
            Err(_) => shuffler = Some(word(words, i)?),
        }
    }
    Ok(EventKind::Shuffled {
        decks,
        cards,
        shuffler,
    })
}

/// `checked decks cards [missing extra foreign]`: a shuffler's deck check, expecting
/// `deck_cards` a deck.
fn checked(words: &[&str], deck_cards: u32) -> Result<EventKind, String> {
    let decks: u8 = word(words, 1)?;
    let count = |i| optional::<u32>(words, i).map(Option::unwrap_or_default);
    Ok(EventKind::DeckChecked {
        decks: Some(decks),
        cards: word(words, 2)?,
        expected: u32::from(decks) * deck_cards,
        missing: count(3)?,
        extra: count(4)?,
        foreign: count(5)?,
        shuffler: None,
    })
}
