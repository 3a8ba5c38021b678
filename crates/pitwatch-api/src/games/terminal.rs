//! A table of any game on a terminal: what `pitwatch replay` prints of a table's outputs, chosen
//! by its rule book's game (each game's wording is in its own module here), so the CLI replays
//! an event file, a raw capture or a shoe from the record without naming a game.
//!
//! Text comes as whole lines, each ended, with an untrusted message's later lines kept inside its
//! entry (`pitwatch_report::untrusted::continued`); the terminal's own escaping of hidden
//! characters is the CLI's, applied to every line it prints. JSON comes as a value in the game's
//! own shape (a Baccarat or Blackjack round is `type: "round"`, a poker hand `type: "hand"`).

use pitwatch_games::{GameBook, GameOutput, GameRound};
use pitwatch_rules::TableOutput;
use pitwatch_shuffle::ShuffleBook;

use super::{baccarat, blackjack, poker};

/// The first line of a replay's text report: the rule book (and what it is about).
pub fn report_header(book: &GameBook) -> String {
    match book {
        GameBook::Baccarat(book) => baccarat::report_header(book),
        GameBook::Blackjack(book) => blackjack::report_header(book),
        GameBook::Poker(book) => poker::report_header(book),
    }
}

/// What a replay of an event file or a capture judges each shoe's shuffle by: a Baccarat book's
/// thresholds. The other games' file replays have never judged shuffles (their replays from the
/// record do, as the recorder does), and their reports keep that shape.
pub fn file_shuffle_book(book: &GameBook) -> Option<ShuffleBook> {
    match book {
        GameBook::Baccarat(book) => Some(book.shuffle_terms().into()),
        GameBook::Blackjack(_) | GameBook::Poker(_) => None,
    }
}

/// One output of a table under `book` as text (each line ended). A round of another game than
/// the book's (which a table's engine never outputs) is nothing.
pub fn output_text(book: &GameBook, output: &GameOutput) -> String {
    match book {
        GameBook::Baccarat(book) => {
            as_baccarat(output).map_or_else(String::new, |o| baccarat::output_text(&o, book))
        }
        GameBook::Blackjack(_) => {
            as_blackjack(output).map_or_else(String::new, |o| blackjack::output_text(&o))
        }
        GameBook::Poker(book) => {
            as_poker(output).map_or_else(String::new, |o| poker::output_text(&o, book))
        }
    }
}

/// One output of a table under `book` as its game's JSON object (`None` for a round of another
/// game than the book's, as [`output_text`]).
pub fn output_json(book: &GameBook, output: &GameOutput) -> Option<serde_json::Value> {
    let value = match book {
        GameBook::Baccarat(_) => serde_json::to_value(as_baccarat(output)?),
        GameBook::Blackjack(_) => serde_json::to_value(as_blackjack(output)?),
        GameBook::Poker(_) => serde_json::to_value(as_poker(output)?),
    };
    // Serialising records of strings, numbers and lists cannot fail; a failure prints null.
    Some(value.unwrap_or_default())
}

/// What a replay's text report counts for its closing line.
#[derive(Debug, Clone, Default)]
pub struct Totals {
    /// Shoes summarised (a poker table's decks).
    pub shoes: u32,
    /// Rounds completed (a poker table's hands).
    pub rounds: u32,
    /// Irregularities, by code.
    pub by_code: std::collections::BTreeMap<String, u32>,
}

impl Totals {
    /// Counts one output.
    pub fn count(&mut self, output: &GameOutput) {
        match output {
            TableOutput::Round(_) => self.rounds += 1,
            TableOutput::Shoe(_) => self.shoes += 1,
            TableOutput::Irregularity(i) => {
                *self.by_code.entry(i.code.as_str().to_owned()).or_default() += 1;
            }
            TableOutput::DeviceErrorCleared(_) => {}
        }
    }

    /// Irregularities of every code.
    pub fn irregularities(&self) -> u32 {
        self.by_code.values().sum()
    }

    /// The report's closing line in the book's game's terms (without its line end).
    pub fn line(&self, book: &GameBook) -> String {
        match book {
            GameBook::Baccarat(_) => baccarat::report_totals(self),
            GameBook::Blackjack(_) => blackjack::report_totals(self),
            GameBook::Poker(_) => poker::report_totals(self),
        }
    }
}

/// The output as Baccarat's own (`None` for another game's round).
fn as_baccarat(output: &GameOutput) -> Option<pitwatch_baccarat::Output> {
    use pitwatch_baccarat::Output;
    Some(match output {
        TableOutput::Round(GameRound::Baccarat(r)) => Output::Round(*r),
        TableOutput::Round(_) => return None,
        TableOutput::Irregularity(i) => Output::Irregularity(i.clone()),
        TableOutput::Shoe(s) => Output::Shoe(*s),
        TableOutput::DeviceErrorCleared(c) => Output::DeviceErrorCleared(c.clone()),
    })
}

/// The output as the Blackjack engine's, its round borrowed (`None` for another game's round).
fn as_blackjack(output: &GameOutput) -> Option<TableOutput<&pitwatch_blackjack::RoundRecord>> {
    Some(match output {
        TableOutput::Round(GameRound::Blackjack(r)) => TableOutput::Round(&**r),
        TableOutput::Round(_) => return None,
        TableOutput::Irregularity(i) => TableOutput::Irregularity(i.clone()),
        TableOutput::Shoe(s) => TableOutput::Shoe(*s),
        TableOutput::DeviceErrorCleared(c) => TableOutput::DeviceErrorCleared(c.clone()),
    })
}

/// The output as the poker engine's (`None` for another game's round).
fn as_poker(output: &GameOutput) -> Option<pitwatch_poker::Output> {
    use pitwatch_poker::Output;
    Some(match output {
        TableOutput::Round(GameRound::Poker(h)) => Output::Hand((**h).clone()),
        TableOutput::Round(_) => return None,
        TableOutput::Irregularity(i) => Output::Irregularity(i.clone()),
        TableOutput::Shoe(s) => Output::Shoe(*s),
        TableOutput::DeviceErrorCleared(c) => Output::DeviceErrorCleared(c.clone()),
    })
}
