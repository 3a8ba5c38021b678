//! The runner and the carry check on a toy game that only counts the cards of each shoe, so they
//! are shown to notice a wrong expectation and a wrong resume without any real game.

use std::fs;
use std::path::PathBuf;

use pitwatch_model::{EventKind, TableEvent};
use pitwatch_rules::{Game, ShoeSummary};
use serde::{Deserialize, Serialize};

use crate::carry::{self, Resumable};
use crate::{check, failures, parse, FixtureGame, Line, Wording};

/// Counts the cards of each shoe; `deal N` is its own shorthand (N unreadable cards).
struct Counting;

impl FixtureGame for Counting {
    type Book = ();
    type Output = ShoeSummary;
    const WORDING: Wording = Wording::ROUNDS;

    fn book(rules: &str) -> Result<(), String> {
        (rules == "count")
            .then_some(())
            .ok_or(format!("no book {rules}"))
    }

    fn shorthand(words: &[&str]) -> Result<Vec<EventKind>, String> {
        match words[0] {
            "deal" => {
                let n: usize = crate::shorthand::word(words, 1)?;
                Ok(vec![crate::shorthand::drawn(None, None, None); n])
            }
            other => Err(format!("unknown shorthand {other:?}")),
        }
    }

    fn replay(_: &(), events: &[TableEvent]) -> Vec<ShoeSummary> {
        let mut engine = Counter::default();
        let mut out: Vec<_> = events
            .iter()
            .flat_map(|e| {
                engine.handle_event(e);
                std::iter::from_fn(|| engine.poll_output()).collect::<Vec<_>>()
            })
            .collect();
        engine.finish();
        out.extend(std::iter::from_fn(|| engine.poll_output()));
        out
    }

    fn line(output: &ShoeSummary) -> Line<'_> {
        Line::Shoe(output)
    }
}

/// The toy engine: a shoe's cards, and the shoes so far (its carry).
#[derive(Debug, Default, Clone)]
struct Counter {
    carry: Shoes,
    cards: u32,
    out: Vec<ShoeSummary>,
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Serialize, Deserialize)]
struct Shoes(u32);

impl Counter {
    fn close(&mut self) {
        if self.carry.0 > 0 {
            self.out.push(ShoeSummary {
                shoe: self.carry.0,
                rounds: 0,
                cards: self.cards,
                partial: false,
                continuous: false,
                open_device_errors: 0,
                first_seq: 0,
                last_seq: 0,
            });
        }
    }
}

impl Game for Counter {
    type Output = ShoeSummary;
    type View = (u32, u32);

    fn game(&self) -> &'static str {
        "counting"
    }

    fn handle_event(&mut self, event: &TableEvent) {
        match event.kind {
            EventKind::Shuffled { .. } => {
                self.close();
                self.carry.0 += 1;
                self.cards = 0;
            }
            EventKind::CardDrawn { .. } => self.cards += 1,
            _ => {}
        }
    }

    fn poll_output(&mut self) -> Option<ShoeSummary> {
        (!self.out.is_empty()).then(|| self.out.remove(0))
    }

    fn finish(&mut self) {
        self.close();
        self.carry.0 = 0;
    }

    fn interrupt(&mut self) {}

    fn view(&self) -> (u32, u32) {
        (self.carry.0, self.cards)
    }
}

/// Resumes the toy engine; a `FORGETFUL` resume drops the shoes before it, as a broken carry
/// would.
struct Toy<const FORGETFUL: bool>;

impl<const FORGETFUL: bool> Resumable for Toy<FORGETFUL> {
    type Book = ();
    type Engine = Counter;
    type Carry = Shoes;

    fn new((): ()) -> Counter {
        Counter::default()
    }

    fn resume((): (), carry: Shoes) -> Counter {
        Counter {
            // The carry is taken at the shoe's first event, the shuffle, which counts it again.
            carry: Shoes(if FORGETFUL { 0 } else { carry.0 - 1 }),
            ..Counter::default()
        }
    }

    fn shoe(engine: &Counter) -> u32 {
        engine.carry.0
    }

    fn carry(engine: &Counter) -> Shoes {
        engine.carry
    }
}

/// A directory of its own for one test's fixture files.
fn scratch(name: &str, files: &[(&str, &str)]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pitwatch-fixtures-{}-{name}", std::process::id()));
    fs::create_dir_all(&dir).unwrap();
    for (file, text) in files {
        fs::write(dir.join(file), text).unwrap();
    }
    dir
}

const RIGHT: &str = "rules = count\nevents:\nshuffled 8 416\ncards AS ??\ndeal 3\nshuffled\nexpect:\nshoe 1 rounds 0 cards 5\nshoe 2 rounds 0 cards 0\n";
const WRONG: &str = "rules = count\nevents:\nshuffled 8 416\nexpect:\nshoe 1 rounds 99 cards 0\n";

#[test]
fn the_shoe_shorthand_and_the_games_meet_in_one_numbered_stream() {
    let f = parse::<Counting>(RIGHT).unwrap();
    assert_eq!(f.rules, "count");
    let seqs: Vec<u64> = f.events.iter().map(|e| e.seq).collect();
    assert_eq!(seqs, [1, 2, 3, 4, 5, 6, 7]);
    assert!(matches!(
        f.events[0].kind,
        EventKind::Shuffled {
            decks: Some(8),
            cards: Some(416),
            shuffler: None
        }
    ));
    assert_eq!(f.expect.len(), 2);
}

#[test]
fn a_bad_line_is_reported_with_its_number() {
    let err = parse::<Counting>("rules = count\nevents:\nshuffled\nfrobnicate 2\n").unwrap_err();
    assert!(err.starts_with("line 4: frobnicate 2:"), "{err}");
    let err = parse::<Counting>("events:\nshuffled\n").unwrap_err();
    assert!(err.contains("rules"), "{err}");
}

#[test]
fn the_runner_notices_a_wrong_expectation_in_every_file() {
    let dir = scratch(
        "wrong",
        &[
            ("a.txt", WRONG),
            ("b.txt", RIGHT),
            ("c.txt", WRONG),
            ("d.md", WRONG),
        ],
    );
    let failures = failures::<Counting>(&dir, 3, false);
    assert_eq!(failures.len(), 2, "{failures:?}");
    assert!(
        failures[0].contains("a.txt")
            && failures[0].contains("actual:\n    shoe 1 rounds 0 cards 0")
    );
    assert!(failures[1].contains("c.txt"));
    // Too few fixtures is a failure too: a moved directory must not pass empty.
    assert_eq!(crate::failures::<Counting>(&dir, 5, false).len(), 3);
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn updating_rewrites_only_the_expect_section() {
    let dir = scratch("update", &[("a.txt", &format!("# why\n{WRONG}"))]);
    let path = dir.join("a.txt");
    check::<Counting>(&path, true).unwrap();
    let text = fs::read_to_string(&path).unwrap();
    assert_eq!(
        text,
        "# why\nrules = count\nevents:\nshuffled 8 416\nexpect:\nshoe 1 rounds 0 cards 0\n"
    );
    check::<Counting>(&path, false).unwrap();
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_carry_check_notices_a_resume_that_forgets() {
    let shuffle = EventKind::Shuffled {
        decks: None,
        cards: None,
        shuffler: None,
    };
    let card = crate::shorthand::drawn(None, None, None);
    let events = carry::three_shoes(shuffle, card);
    assert_eq!(carry::check::<Toy<false>>(&(), &events, &[]), Ok(3));
    let err = carry::check::<Toy<true>>(&(), &events, &[]).unwrap_err().0;
    assert!(err.contains("view at the shoe's first event 2"), "{err}");
}
