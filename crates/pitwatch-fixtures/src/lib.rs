//! The games' shared test support, a dev-dependency of each game only: one runner for every
//! game's data-driven fixtures (as shakmaty's `tests/perft.rs` runs one perft for every variant),
//! and one carry property ([`carry`]). Every game stands on one shoe tracker, so its fixtures share
//! the file format, the shoe's shorthand and the lines of the tracker's outputs; a game adds only
//! its own shorthand and its round's line, through [`FixtureGame`]. Beside them, the seed pages
//! every game's rule texts are quoted from ([`seeds`]).
//!
//! A fixture file (`tests/fixtures/*.txt` in each game's crate) is an event script and the
//! outputs it must produce:
//!
//! ```text
//! # a comment
//! rules = nz-baccarat                  a book (the game reads it: a built-in id, a variant…;
//!                                      `file:books/x.toml` names a test book beside the fixtures)
//! events:
//! {"event":"shuffled","decks":8}       a whole event as JSON (every field the model has)
//! shuffled 8 416                       or shorthand: the shoe's (see [`shorthand`]) or the game's
//! expect:
//! shoe 1 rounds 0 cards 0              one line per output (see [`Wording`])
//! ```
//!
//! Events are numbered from `seq` 1, one per event. [`check_dir`] runs every fixture of a game's
//! crate and reports every mismatch at once; with `UPDATE_FIXTURES=1` it writes the actual outputs
//! into the files' `expect:` sections instead, for review in the diff.

pub mod carry;
mod lines;
pub mod seeds;
pub mod shorthand;

use std::fs;
use std::path::Path;

use pitwatch_model::{EventKind, TableEvent};

pub use lines::{seq_span, Line, Wording};

/// What the runner needs of a game.
pub trait FixtureGame {
    /// The game's rule book.
    type Book;
    /// What the game's engine outputs.
    type Output;

    /// How the game words the lines every game shares.
    const WORDING: Wording;
    /// The book of a fixture with no `rules =` line, if the game has one.
    const DEFAULT_RULES: Option<&'static str> = None;
    /// The cards of one of the game's decks, what a shorthand deck check expects per deck.
    const DECK_CARDS: u32 = 52;

    /// The book a `rules =` line names (a `file:` path already made absolute).
    fn book(rules: &str) -> Result<Self::Book, String>;
    /// The events of a shorthand line (split into words) that is not a shoe's.
    fn shorthand(words: &[&str]) -> Result<Vec<EventKind>, String>;
    /// The engine's outputs for the whole stream.
    fn replay(book: &Self::Book, events: &[TableEvent]) -> Vec<Self::Output>;
    /// One output as the runner sees it.
    fn line(output: &Self::Output) -> Line<'_>;
}

/// The `expect:` line of one of `G`'s outputs.
pub fn summary<G: FixtureGame>(output: &G::Output) -> String {
    G::WORDING.line(&G::line(output))
}

/// A parsed fixture.
#[derive(Debug, Clone)]
pub struct Fixture {
    /// The `rules =` line as written (or the game's default).
    pub rules: String,
    /// The events, `seq` from 1.
    pub events: Vec<TableEvent>,
    /// The expected lines.
    pub expect: Vec<String>,
}

/// Parses a fixture's text; an error names the line.
pub fn parse<G: FixtureGame>(text: &str) -> Result<Fixture, String> {
    let mut rules = G::DEFAULT_RULES.map(str::to_owned);
    let mut events = Vec::new();
    let mut expect = Vec::new();
    let mut section = "";
    for (number, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let at = |e: String| format!("line {}: {line}: {e}", number + 1);
        if let Some(r) = line.strip_prefix("rules = ") {
            rules = Some(r.trim().to_owned());
            continue;
        }
        if line == "events:" || line == "expect:" {
            section = line;
            continue;
        }
        match section {
            "events:" => {
                let seq = events.len() as u64 + 1;
                if line.starts_with('{') {
                    // A whole event, with whatever fields the shorthand does not say.
                    let value = serde_json::from_str(line).map_err(|e| at(e.to_string()))?;
                    let event =
                        TableEvent::from_json(value, Some(seq)).map_err(|e| at(e.to_string()))?;
                    events.push(event);
                    continue;
                }
                let words: Vec<&str> = line.split_whitespace().collect();
                let kinds = shorthand::shoe_events(&words, G::DECK_CARDS)
                    .unwrap_or_else(|| G::shorthand(&words))
                    .map_err(at)?;
                events.extend(
                    (seq..)
                        .zip(kinds)
                        .map(|(seq, kind)| TableEvent::new(seq, kind)),
                );
            }
            "expect:" => expect.push(line.to_owned()),
            _ => return Err(at("outside a section".into())),
        }
    }
    Ok(Fixture {
        rules: rules.ok_or("no `rules =` line")?,
        events,
        expect,
    })
}

/// Runs one fixture file. On a mismatch, `update` writes the actual lines into the file's
/// `expect:` section; otherwise the mismatch is the error.
pub fn check<G: FixtureGame>(path: &Path, update: bool) -> Result<(), String> {
    let fail = |e: String| format!("{}: {e}", path.display());
    let text = fs::read_to_string(path).map_err(|e| fail(e.to_string()))?;
    let fixture = parse::<G>(&text).map_err(fail)?;
    // `rules = file:books/x.toml` names a test book beside the fixtures.
    let rules = match fixture.rules.strip_prefix("file:") {
        Some(relative) => path.with_file_name(relative).display().to_string(),
        None => fixture.rules.clone(),
    };
    let book = G::book(&rules).map_err(fail)?;
    let actual: Vec<String> = G::replay(&book, &fixture.events)
        .iter()
        .map(summary::<G>)
        .collect();
    if actual == fixture.expect {
        return Ok(());
    }
    if update {
        fs::write(path, updated(&text, &actual)).map_err(|e| fail(e.to_string()))?;
        return Ok(());
    }
    Err(format!(
        "{}:\n  expected:\n    {}\n  actual:\n    {}",
        path.display(),
        fixture.expect.join("\n    "),
        actual.join("\n    ")
    ))
}

/// `text` with its `expect:` section replaced by `actual` (everything before it kept as written).
fn updated(text: &str, actual: &[String]) -> String {
    let mut head = String::new();
    for line in text.lines() {
        if line.trim() == "expect:" {
            break;
        }
        head.push_str(line);
        head.push('\n');
    }
    let mut out = format!("{head}expect:\n");
    for line in actual {
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// Runs every `*.txt` fixture in a game crate's `tests/fixtures/` (`crate_dir` its
/// `CARGO_MANIFEST_DIR`), in name order, and panics listing every file that does not give its
/// expected lines; with `UPDATE_FIXTURES` set, rewrites them instead. `at_least` is how many
/// fixtures there must be, so a moved directory does not pass empty.
pub fn check_dir<G: FixtureGame>(crate_dir: &str, at_least: usize) {
    let dir = Path::new(crate_dir).join("tests/fixtures");
    let update = std::env::var_os("UPDATE_FIXTURES").is_some();
    let failures = failures::<G>(&dir, at_least, update);
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Every failure of [`check`] over the fixtures of `dir`, one per file.
pub fn failures<G: FixtureGame>(dir: &Path, at_least: usize, update: bool) -> Vec<String> {
    let mut paths: Vec<_> = match fs::read_dir(dir) {
        Ok(entries) => entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "txt"))
            .collect(),
        Err(e) => return vec![format!("{}: {e}", dir.display())],
    };
    paths.sort();
    let mut failures: Vec<String> = paths
        .iter()
        .filter_map(|p| check::<G>(p, update).err())
        .collect();
    if paths.len() < at_least {
        failures.push(format!(
            "{}: {} fixtures, fewer than {at_least}",
            dir.display(),
            paths.len()
        ));
    }
    failures
}

#[cfg(test)]
mod tests;
