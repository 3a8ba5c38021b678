//! Data-driven fixtures: each file in `tests/fixtures/` is an event script and the outputs it must
//! produce. A fixture has a `rules = <book> [variant]` line, an `events:` section and an `expect:`
//! section. Event lines are JSON objects or shorthand (seq numbers count from 1, one per event):
//!
//! ```text
//! shuffled [decks] [cards]
//! 1:AS- 2:KD- 1#2:9H+     cards to seats (`#N` the device's index, `-` face down, `+` face up,
//!                         `??` unreadable)
//! board AS KD QH          cards without a target (community cards)
//! blind 1   act 2 call    a forced bet, an action on a hand
//! misdeal d 2,5 misdeal   a declared misdeal: reason, seats (`-` for none), ruling
//! exposed AS dealing      a card exposed (dealing, cutting, loading)
//! replaced                the cards were replaced
//! ```
//!
//! Expected lines are one summary per output (see [`summary`]). `UPDATE_FIXTURES=1` writes the
//! actual outputs into the files for review.

use std::fmt::Write as _;
use std::fs;
use std::path::Path;

use pitwatch_model::{EventKind, ExposedDuring, TableEvent, Target};
use pitwatch_poker::{replay, Book, HandRecord, Output};
use serde_json::Value;

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
    let _ = write!(
        s,
        " seq {}-{}{}",
        h.first_seq,
        h.last_seq,
        if h.complete { "" } else { " incomplete" }
    );
    s
}

/// One line per output.
pub fn summary(output: &Output) -> String {
    match output {
        Output::Hand(h) => hand(h),
        Output::Irregularity(i) => {
            let mut also: Vec<&str> = pitwatch_rules::IrregularityCode::ALL
                .iter()
                .filter(|c| i.also.contains(**c))
                .map(|c| c.as_str())
                .collect();
            also.sort_unstable();
            format!(
                "irregularity {}{} hand {} seq {} rule {:?}",
                i.code,
                if also.is_empty() {
                    String::new()
                } else {
                    format!(" (also {})", also.join(" "))
                },
                i.round.map_or("-".into(), |r| r.to_string()),
                i.seq,
                i.rule
            )
        }
        Output::Shoe(s) => format!(
            "deck {} hands {} cards {}{}",
            s.shoe,
            s.rounds,
            s.cards,
            if s.partial { " partial" } else { "" }
        ),
        Output::DeviceErrorCleared(c) => {
            format!("cleared {} raised {} seq {}", c.code, c.raised_seq, c.seq)
        }
    }
}

fn card(text: &str) -> Option<pitwatch_model::Card> {
    (text != "??").then(|| text.parse().unwrap_or_else(|e| panic!("{text}: {e}")))
}

fn card_event(
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

/// Parses one shorthand line into events.
pub fn shorthand(line: &str) -> Vec<EventKind> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let seat = |w: &str| Target::Seat(w.parse().unwrap());
    match words[0] {
        "shuffled" => vec![EventKind::Shuffled {
            decks: words.get(1).map(|w| w.parse().unwrap()),
            cards: words.get(2).map(|w| w.parse().unwrap()),
            shuffler: None,
        }],
        "replaced" => vec![EventKind::CardsReplaced],
        "board" => words[1..]
            .iter()
            .map(|c| card_event(card(c), None, None, Some(true)))
            .collect(),
        "blind" => vec![EventKind::PlayerActed {
            target: seat(words[1]),
            action: pitwatch_model::PlayerAction::Blind,
        }],
        "act" => vec![EventKind::PlayerActed {
            target: seat(words[1]),
            action: words[2].parse().unwrap(),
        }],
        "misdeal" => vec![EventKind::MisdealDeclared {
            reason: words[1].parse().unwrap(),
            seats: if words[2] == "-" {
                Vec::new()
            } else {
                words[2].split(',').map(|s| s.parse().unwrap()).collect()
            },
            ruling: words[3].parse().unwrap(),
        }],
        "exposed" => vec![EventKind::CardExposed {
            card: card(words[1]),
            during: words[2].parse::<ExposedDuring>().unwrap(),
        }],
        _ => words
            .iter()
            .map(|w| {
                let (target, text) = w
                    .split_once(':')
                    .unwrap_or_else(|| panic!("bad shorthand {w:?}"));
                let (target, index) = match target.split_once('#') {
                    Some((t, i)) => (t, Some(i.parse().unwrap())),
                    None => (target, None),
                };
                let (text, face_up) = match text.as_bytes().last() {
                    Some(b'+') => (&text[..text.len() - 1], Some(true)),
                    Some(b'-') => (&text[..text.len() - 1], Some(false)),
                    _ => (text, None),
                };
                card_event(card(text), Some(seat(target)), index, face_up)
            })
            .collect(),
    }
}

/// Runs one fixture file; returns the actual summaries and the expected ones.
fn run(path: &Path) -> (Vec<String>, Vec<String>, String) {
    let text = fs::read_to_string(path).unwrap();
    let mut book = None;
    let mut events = Vec::new();
    let mut expected = Vec::new();
    let mut section = "";
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(rules) = line.strip_prefix("rules = ") {
            let mut words = rules.split_whitespace();
            let mut b = Book::builtin(words.next().unwrap()).unwrap();
            if let Some(variant) = words.next() {
                b = b.with_variant(variant).unwrap();
            }
            book = Some(b);
            continue;
        }
        if line == "events:" || line == "expect:" {
            section = line;
            continue;
        }
        match section {
            "events:" => {
                if line.starts_with('{') {
                    let value: Value = serde_json::from_str(line).unwrap();
                    let seq = events.len() as u64 + 1;
                    events.push(TableEvent::from_json(value, Some(seq)).unwrap());
                } else {
                    for kind in shorthand(line) {
                        let seq = events.len() as u64 + 1;
                        events.push(TableEvent::new(seq, kind));
                    }
                }
            }
            "expect:" => expected.push(line.to_owned()),
            _ => panic!("{}: line outside a section: {line}", path.display()),
        }
    }
    let book = book.unwrap_or_else(|| panic!("{}: no rules line", path.display()));
    let actual: Vec<String> = replay(&book, &events).iter().map(summary).collect();
    (actual, expected, text)
}

#[test]
fn every_fixture_gives_its_expected_outputs() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut paths: Vec<_> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    paths.sort();
    assert!(paths.len() >= 12, "only {} fixtures", paths.len());
    let update = std::env::var_os("UPDATE_FIXTURES").is_some();
    let mut failures = Vec::new();
    for path in paths {
        let (actual, expected, text) = run(&path);
        if actual == expected {
            continue;
        }
        if update {
            let head = text.split("expect:").next().unwrap();
            fs::write(&path, format!("{head}expect:\n{}\n", actual.join("\n"))).unwrap();
        } else {
            failures.push(format!(
                "{}:\n  expected:\n    {}\n  actual:\n    {}",
                path.display(),
                expected.join("\n    "),
                actual.join("\n    ")
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
