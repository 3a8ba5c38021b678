//! Data-driven fixtures: each file in `tests/fixtures/` is an event script and the outputs it must
//! produce. A fixture has a `rules = <book>` line, an `events:` section and an `expect:` section.
//! Event lines are JSON objects or shorthand (seq numbers count from 1, one per event):
//!
//! ```text
//! shuffled [decks] [cards]   cut N   place N   cutting   bets   replaced
//! 1:AS D:9H 2:KD          cards to box 1, the dealer, box 2 (?? = unreadable)
//! 1#2:AS                  a card to box 1 reported as the hand's card 2 (the device's index)
//! 1.2:AS                  a card to box 1 hand 2, named by the device (`box:1.2`)
//! cards AS KD             plain cards (no target)
//! in 1 2   stand 1   double 2   split 1   surrender 1   insurance 3   stand 1.2 (box 1 hand 2)
//! exposed AS loading   error 7 text   cleared 7
//! steps chemmy stacking riffle   (hand-preparation steps, Pontoon 6.4)
//! started [decks]   checked decks cards [missing extra foreign]   (a shuffler beside the shoe)
//! ```
//!
//! Expected lines are one summary per output (see [`summary`]). `UPDATE_FIXTURES=1` writes the
//! actual outputs into the files for review.

use std::fmt::Write as _;
use std::fs;
use std::path::Path;

use pitwatch_blackjack::{replay, Book, Output, RoundRecord};
use pitwatch_model::{Action, EventKind, ExposedDuring, ShuffleStep, TableEvent, Target};
use serde_json::Value;

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
    let _ = write!(
        s,
        " seq {}-{}{}",
        r.first_seq,
        r.last_seq,
        if r.complete { "" } else { " incomplete" }
    );
    s
}

/// One line per output.
pub fn summary(output: &Output) -> String {
    match output {
        Output::Round(r) => round(r),
        Output::Irregularity(i) => format!(
            "irregularity {} shoe {} round {} seq {} rule {:?}",
            i.code,
            i.shoe,
            i.round.map_or("-".into(), |r| r.to_string()),
            i.seq,
            i.rule
        ),
        Output::Shoe(s) => format!(
            "shoe {} rounds {} cards {}{}",
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

fn decision(target: &str, action: Action) -> EventKind {
    let (number, hand) = match target.split_once('.') {
        Some((b, h)) => (b, Some(h.parse().unwrap())),
        None => (target, None),
    };
    EventKind::Decision {
        target: Target::Box(number.parse().unwrap()),
        hand,
        action,
    }
}

/// Parses one shorthand line into events.
fn shorthand(line: &str) -> Vec<EventKind> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let number = |i: usize| words[i].parse::<u32>().unwrap();
    match words[0] {
        "shuffled" => vec![EventKind::Shuffled {
            decks: words.get(1).map(|w| w.parse().unwrap()),
            cards: words.get(2).map(|w| w.parse().unwrap()),
            shuffler: None,
        }],
        "cut" => vec![EventKind::Cut {
            position: number(1),
        }],
        "place" => vec![EventKind::CuttingCardPlaced {
            from_back: number(1),
        }],
        "cutting" => vec![EventKind::CuttingCardDrawn],
        "bets" => vec![EventKind::BetsClosed],
        "replaced" => vec![EventKind::CardsReplaced],
        "cards" => words[1..]
            .iter()
            .map(|c| card_event(card(c), None, None))
            .collect(),
        "in" => words[1..]
            .iter()
            .map(|b| decision(b, Action::InPlay))
            .collect(),
        "stand" => vec![decision(words[1], Action::Stand)],
        "double" => vec![decision(words[1], Action::Double)],
        "split" => vec![decision(words[1], Action::Split)],
        "surrender" => vec![decision(words[1], Action::Surrender)],
        "insurance" => vec![decision(words[1], Action::Insurance)],
        "exposed" => vec![EventKind::CardExposed {
            card: card(words[1]),
            during: words[2].parse::<ExposedDuring>().unwrap(),
        }],
        "error" => vec![EventKind::DeviceError {
            code: words[1].to_owned(),
            text: words[2..].join(" "),
        }],
        "cleared" => vec![EventKind::DeviceErrorCleared {
            code: words[1].to_owned(),
        }],
        "steps" => words[1..]
            .iter()
            .map(|w| EventKind::ShuffleStep {
                step: w.parse::<ShuffleStep>().unwrap(),
            })
            .collect(),
        "started" => vec![EventKind::ShuffleStarted {
            decks: words.get(1).map(|w| w.parse().unwrap()),
            cycle: None,
        }],
        "checked" => {
            let decks: u8 = words[1].parse().unwrap();
            let n = |i: usize| words.get(i).map_or(0, |w| w.parse::<u32>().unwrap());
            vec![EventKind::DeckChecked {
                decks: Some(decks),
                cards: number(2),
                expected: u32::from(decks) * 48,
                missing: n(3),
                extra: n(4),
                foreign: n(5),
                shuffler: None,
            }]
        }
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
                let target = if target == "D" {
                    Target::Dealer
                } else if let Some((number, hand)) = target.split_once('.') {
                    Target::Hand {
                        number: number.parse().unwrap(),
                        hand: hand.parse().unwrap(),
                    }
                } else {
                    Target::Box(target.parse().unwrap())
                };
                card_event(card(text), Some(target), index)
            })
            .collect(),
    }
}

fn card_event(
    card: Option<pitwatch_model::Card>,
    target: Option<Target>,
    index: Option<u8>,
) -> EventKind {
    EventKind::CardDrawn {
        card,
        target,
        index,
        face_up: None,
        retransmit: None,
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
        if let Some(id) = line.strip_prefix("rules = ") {
            book = Some(Book::builtin(id).unwrap());
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
    assert!(paths.len() >= 15, "only {} fixtures", paths.len());
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
