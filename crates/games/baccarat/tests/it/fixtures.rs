//! Baccarat's data-driven fixtures (`tests/fixtures/*.txt`) through the one runner every game
//! shares (`pitwatch-fixtures`: the file format, the shoe's shorthand, `UPDATE_FIXTURES`); this
//! file adds only Baccarat's shorthand and its round's line. A fixture without a `rules =` line is
//! under `nz-baccarat`; `file:books/<name>.toml` is a test book beside the fixtures.
//!
//! ```text
//! P1 AS B1 KD P2 9D B2 5C B3 2H            cards with side and index (?? = unreadable)
//! result banker [pp=true] [bp=false]       a declared result, with the pairs if said
//! ```

use pitwatch_baccarat::{replay, Output, RuleBook};
use pitwatch_fixtures::shorthand::{card, drawn, word};
use pitwatch_fixtures::{seq_span, FixtureGame, Line, Wording};
use pitwatch_model::{EventKind, Outcome, TableEvent, Target};

/// Baccarat, to the fixture runner.
pub struct Baccarat;

impl FixtureGame for Baccarat {
    type Book = RuleBook;
    type Output = Output;
    const WORDING: Wording = Wording::ROUNDS;
    const DEFAULT_RULES: Option<&'static str> = Some("nz-baccarat");

    fn book(rules: &str) -> Result<RuleBook, String> {
        RuleBook::load(rules).map_err(|e| e.to_string())
    }

    fn shorthand(words: &[&str]) -> Result<Vec<EventKind>, String> {
        if words[0] == "result" {
            let flag = |key: &str| {
                words[2..]
                    .iter()
                    .find_map(|w| w.strip_prefix(key).map(|v| v == "true"))
            };
            let outcome: Outcome = word(words, 1)?;
            return Ok(vec![EventKind::ResultDeclared {
                outcome,
                player_pair: flag("pp="),
                banker_pair: flag("bp="),
            }]);
        }
        words
            .chunks(2)
            .map(|pair| {
                let (side, index) = pair[0].split_at(1);
                let target = match side {
                    "P" => Target::Player,
                    "B" => Target::Banker,
                    other => return Err(format!("unknown shorthand {other:?}")),
                };
                let index = index.parse().map_err(|e| format!("{:?}: {e}", pair[0]))?;
                let text = pair.get(1).ok_or(format!("{:?} without a card", pair[0]))?;
                Ok(drawn(card(text)?, Some(target), Some(index)))
            })
            .collect()
    }

    fn replay(book: &RuleBook, events: &[TableEvent]) -> Vec<Output> {
        replay(book, events)
    }

    fn line(output: &Output) -> Line<'_> {
        match output {
            Output::Round(r) => Line::Round(format!(
                "round {}.{} P[{}]={} B[{}]={} {}{}{}",
                r.shoe,
                r.round,
                r.player,
                r.player_total.map_or("?".into(), |t| t.to_string()),
                r.banker,
                r.banker_total.map_or("?".into(), |t| t.to_string()),
                r.outcome.map_or("unknown".into(), |o| o.to_string()),
                seq_span(r.first_seq, r.last_seq, r.complete),
                if r.no_bets { " no-bets" } else { "" },
            )),
            Output::Irregularity(i) => Line::Irregularity(i),
            Output::Shoe(s) => Line::Shoe(s),
            Output::DeviceErrorCleared(c) => Line::Cleared(c),
        }
    }
}

/// One line per output: what a fixture's `expect:` section lists.
pub fn summary(output: &Output) -> String {
    pitwatch_fixtures::summary::<Baccarat>(output)
}

/// Parses a fixture's text (the other tests' event scripts are fixtures too).
pub fn parse(text: &str) -> pitwatch_fixtures::Fixture {
    pitwatch_fixtures::parse::<Baccarat>(text).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn every_fixture_gives_its_expected_outputs() {
    pitwatch_fixtures::check_dir::<Baccarat>(env!("CARGO_MANIFEST_DIR"), 10);
}
