//! Data-driven fixtures: each file in `tests/fixtures/` is an event script and the outputs it must
//! produce, walked by one runner, [`check`].
//!
//! A fixture has a `rules = <book>` line (a built-in id, or `file:books/<name>.toml` for a test
//! book beside the fixtures), an `events:` section and an `expect:` section. Event
//! lines are JSON objects, or shorthand (seq numbers count from 1, one per event):
//!
//! ```text
//! shuffled [decks] [cards] [continuous]   cut N   place N   cutting   bets   replaced
//! first 5S   burn 2H 3H   burned N         (the burn's first card, burn cards, burn_counted)
//! P1 AS B1 KD P2 9D B2 5C B3 2H            (cards with target and index; ?? = unreadable)
//! cards AS KD 9D 5C                         (plain cards)
//! result banker [pp=true] [bp=false]   exposed AS loading   error 7 text   cleared 7
//! ```
//!
//! Expected lines are the compact summary of each output (see [`summary`]). Set
//! `UPDATE_FIXTURES=1` to write the actual outputs into the files, then review the diff.

use std::fs;
use std::path::Path;

use pitwatch_baccarat::{replay, Output, RuleBook};
use pitwatch_model::{EventKind, ExposedDuring, Outcome, TableEvent, Target};
use serde_json::Value;

/// One line per output: what a fixture's `expect:` section lists.
pub fn summary(output: &Output) -> String {
    match output {
        Output::Round(r) => format!(
            "round {}.{} P[{}]={} B[{}]={} {} seq {}-{}{}{}",
            r.shoe,
            r.round,
            r.player,
            r.player_total.map_or("?".into(), |t| t.to_string()),
            r.banker,
            r.banker_total.map_or("?".into(), |t| t.to_string()),
            r.outcome.map_or("unknown".into(), |o| o.to_string()),
            r.first_seq,
            r.last_seq,
            if r.complete { "" } else { " incomplete" },
            if r.no_bets { " no-bets" } else { "" },
        ),
        Output::Irregularity(i) => format!(
            "irregularity {} shoe {} round {} seq {} rule {:?}",
            i.code,
            i.shoe,
            i.round.map_or("-".into(), |r| r.to_string()),
            i.seq,
            i.rule
        ),
        Output::Shoe(s) => format!(
            "shoe {} rounds {} cards {}{}{}",
            s.shoe,
            s.rounds,
            s.cards,
            if s.partial { " partial" } else { "" },
            if s.continuous { " continuous" } else { "" }
        ),
        Output::DeviceErrorCleared(c) => {
            format!("cleared {} raised {} seq {}", c.code, c.raised_seq, c.seq)
        }
    }
}

fn card_event(card: &str, target: Option<Target>, index: Option<u8>) -> EventKind {
    EventKind::CardDrawn {
        card: if card == "??" {
            None
        } else {
            Some(card.parse().unwrap_or_else(|e| panic!("{card}: {e}")))
        },
        target,
        index,
        face_up: None,
        retransmit: None,
    }
}

/// Parses one shorthand line into events.
fn shorthand(line: &str) -> Vec<EventKind> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let num = |i: usize| -> u32 {
        words[i]
            .parse()
            .unwrap_or_else(|_| panic!("{line}: number"))
    };
    match words[0] {
        "shuffled" => {
            let mut decks = None;
            let mut cards = None;
            let mut shuffler = None;
            for w in &words[1..] {
                match w.parse::<u32>() {
                    Ok(n) if decks.is_none() => decks = Some(n as u8),
                    Ok(n) => cards = Some(n),
                    Err(_) => shuffler = Some(w.parse().unwrap()),
                }
            }
            vec![EventKind::Shuffled {
                decks,
                cards,
                shuffler,
            }]
        }
        "cut" => vec![EventKind::Cut { position: num(1) }],
        "place" => vec![EventKind::CuttingCardPlaced { from_back: num(1) }],
        "cutting" => vec![EventKind::CuttingCardDrawn],
        "bets" => vec![EventKind::BetsClosed],
        "replaced" => vec![EventKind::CardsReplaced],
        "burned" => vec![EventKind::BurnCounted { count: num(1) }],
        "first" => vec![card_event(words[1], Some(Target::First), Some(1))],
        "burn" => words[1..]
            .iter()
            .enumerate()
            .map(|(i, c)| card_event(c, Some(Target::Burn), Some(i as u8 + 1)))
            .collect(),
        "cards" => words[1..]
            .iter()
            .map(|c| card_event(c, None, None))
            .collect(),
        "result" => {
            let outcome: Outcome = words[1].parse().unwrap();
            let flag = |key: &str| {
                words[2..]
                    .iter()
                    .find_map(|w| w.strip_prefix(key).map(|v| v == "true"))
            };
            vec![EventKind::ResultDeclared {
                outcome,
                player_pair: flag("pp="),
                banker_pair: flag("bp="),
            }]
        }
        "exposed" => vec![EventKind::CardExposed {
            card: Some(words[1].parse().unwrap()),
            during: words[2].parse::<ExposedDuring>().unwrap(),
        }],
        "error" => vec![EventKind::DeviceError {
            code: words[1].into(),
            text: words[2..].join(" "),
        }],
        "cleared" => vec![EventKind::DeviceErrorCleared {
            code: words[1].into(),
        }],
        _ => words
            .chunks(2)
            .map(|pair| {
                let (side, index) = pair[0].split_at(1);
                let target = match side {
                    "P" => Target::Player,
                    "B" => Target::Banker,
                    other => panic!("{line}: unknown shorthand {other:?}"),
                };
                let index: u8 = index.parse().unwrap_or_else(|_| panic!("{line}: index"));
                card_event(pair[1], Some(target), Some(index))
            })
            .collect(),
    }
}

/// A parsed fixture file.
pub struct Fixture {
    /// The rule book: a built-in id or `file:books/<name>.toml`.
    pub rules: String,
    /// The events, `seq` from 1.
    pub events: Vec<TableEvent>,
    /// The expected output summaries.
    pub expect: Vec<String>,
}

/// Parses a fixture's text.
pub fn parse(text: &str) -> Fixture {
    let mut rules = String::from("nz-baccarat");
    let mut events = Vec::new();
    let mut expect = Vec::new();
    let mut section = "";
    for raw in text.lines() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(r) = line.strip_prefix("rules = ") {
            rules = r.trim().to_owned();
            continue;
        }
        if line == "events:" || line == "expect:" {
            section = line;
            continue;
        }
        match section {
            "events:" => {
                if line.starts_with('{') {
                    // A whole event, extra fields (a shuffler's deck check) included.
                    let value: Value = serde_json::from_str(line).unwrap();
                    events
                        .push(TableEvent::from_json(value, Some(events.len() as u64 + 1)).unwrap());
                    continue;
                }
                for kind in shorthand(line) {
                    events.push(TableEvent::new(events.len() as u64 + 1, kind));
                }
            }
            "expect:" => expect.push(line.to_owned()),
            _ => panic!("line outside a section: {line}"),
        }
    }
    Fixture {
        rules,
        events,
        expect,
    }
}

/// Runs one fixture file; returns a description of the mismatch, if any.
fn check(path: &Path) -> Result<(), String> {
    let text = fs::read_to_string(path).map_err(|e| e.to_string())?;
    let fixture = parse(&text);
    // `rules = file:books/x.toml` names a test book beside the fixtures.
    let rules = match fixture.rules.strip_prefix("file:") {
        Some(relative) => path.with_file_name(relative).display().to_string(),
        None => fixture.rules.clone(),
    };
    let book = RuleBook::load(&rules).map_err(|e| e.to_string())?;
    let actual: Vec<String> = replay(&book, &fixture.events).iter().map(summary).collect();
    if actual == fixture.expect {
        return Ok(());
    }
    if std::env::var_os("UPDATE_FIXTURES").is_some() {
        let head = text.split("\nexpect:").next().unwrap_or(&text);
        let updated = format!("{head}\nexpect:\n{}\n", actual.join("\n"));
        fs::write(path, updated).map_err(|e| e.to_string())?;
        return Ok(());
    }
    Err(format!(
        "{}:\n  expected:\n    {}\n  actual:\n    {}",
        path.display(),
        fixture.expect.join("\n    "),
        actual.join("\n    ")
    ))
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
    assert!(paths.len() >= 10, "fixtures missing from {}", dir.display());
    let failures: Vec<String> = paths.iter().filter_map(|p| check(p).err()).collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn the_runner_notices_a_wrong_expectation() {
    let dir = std::env::temp_dir().join(format!("pitwatch-fixture-{}", std::process::id()));
    fs::create_dir_all(&dir).unwrap();
    let path = dir.join("wrong.txt");
    fs::write(
        &path,
        "events:\nshuffled 8 416\nexpect:\nshoe 1 rounds 99 cards 0\n",
    )
    .unwrap();
    if std::env::var_os("UPDATE_FIXTURES").is_none() {
        assert!(check(&path).is_err());
    }
    fs::remove_dir_all(&dir).unwrap();
}
