//! The one rule-book loader: a book of any game by built-in name, by path or from the text kept in
//! the record, with a table's deck count or poker variant from its reference
//! (`nz-blackjack;decks=6`, `nz-poker;variant=draw`). Every front end and the machinery load books
//! here, so a name means the same book everywhere and a file is checked the same way before it
//! is read.
//!
//! [`GameBook::load`] and [`GameBook::from_text`] serve pit definitions, the record and reports;
//! [`load_rule_book`] a Baccarat book alone (the simulator); [`file_book`] the CLI's replay of an
//! event file, which says which engine runs it (with [`blackjack_file_book`] and
//! [`poker_file_book`] that it tries first; their messages are the CLI's own).

use std::path::Path;

use pitwatch_baccarat::{LoadError, RuleBook};
use pitwatch_blackjack as blackjack;
use pitwatch_poker as poker;

use crate::GameKind;

/// The largest rule-book file read (a rule book is a few kilobytes of TOML; this refuses a
/// device, a pipe or a log file named by mistake before reading it).
pub const MAX_RULE_BOOK_BYTES: u64 = 1 << 20;

/// Loads a rule book by built-in name or from a path, which must be a regular file of at most
/// [`MAX_RULE_BOOK_BYTES`]: `/dev/zero` or a directory is refused with a message, not read.
pub fn load_rule_book(name_or_path: &str) -> Result<RuleBook, String> {
    if let Some(book) = RuleBook::builtin(name_or_path) {
        return Ok(book);
    }
    rule_book_file_ok(name_or_path)?;
    load_baccarat(name_or_path).map_err(|e| e.to_string())
}

/// A Baccarat book by built-in name or from a path, with the rules crate's own error (which
/// lists a book's every problem), for a caller that prints them one per line.
pub fn load_baccarat(name_or_path: &str) -> Result<RuleBook, LoadError> {
    RuleBook::load(name_or_path)
}

/// Loads a rule book of any game (Baccarat, Blackjack, Pontoon) by built-in name or from a path,
/// with the same checks on the file as [`load_rule_book`].
pub fn load_game_book(name_or_path: &str) -> Result<GameBook, String> {
    rule_book_file_ok(name_or_path)?;
    GameBook::load(name_or_path)
}

/// Checks, without reading it, that a rule book named by path is a regular file of at most
/// [`MAX_RULE_BOOK_BYTES`] (a built-in name, or a path that does not exist, passes: loading says
/// what is wrong then).
pub fn rule_book_file_ok(name_or_path: &str) -> Result<(), String> {
    if RuleBook::builtin(name_or_path).is_some() {
        return Ok(());
    }
    if let Ok(meta) = std::fs::metadata(name_or_path) {
        if !meta.is_file() {
            return Err(format!(
                "{name_or_path} is not a regular file (a rule book is a TOML file)"
            ));
        }
        if meta.len() > MAX_RULE_BOOK_BYTES {
            return Err(format!(
                "{name_or_path} is {} bytes; a rule book is at most {} bytes",
                meta.len(),
                MAX_RULE_BOOK_BYTES
            ));
        }
    }
    Ok(())
}

/// The text of a rule book as it judged a table, to keep in the record: a built-in book's own
/// TOML (of any game), or a custom book's file as read now (a table's `;decks=N` or poker
/// `;variant=V` is kept in its reference, not in the text).
pub fn book_text(rules: &str) -> Option<String> {
    let name = split_reference(rules).map_or(rules, |parts| parts.name);
    if let Some((_, text)) = pitwatch_baccarat::book::BUILTIN
        .iter()
        .find(|(id, _)| *id == name)
    {
        return Some((*text).to_owned());
    }
    if let Some(text) = blackjack::Book::builtin_text(name) {
        return Some(text.to_owned());
    }
    if let Some(text) = poker::Book::builtin_text(name) {
        return Some(text.to_owned());
    }
    std::fs::read_to_string(name).ok()
}

/// The Blackjack or Pontoon book `rules` names, if it names one: a built-in id, or a rule book
/// file whose `[book]` says `game = "blackjack"` or `"pontoon"`. `Err` says why it cannot be used.
pub fn blackjack_file_book(rules: &str) -> Option<Result<blackjack::Book, String>> {
    if blackjack::book::BUILTIN.contains(&rules) {
        return Some(blackjack::Book::builtin(rules).map_err(|e| e.to_string()));
    }
    let path = Path::new(rules);
    if !path.is_file() {
        return None;
    }
    let text = std::fs::read_to_string(path).ok()?;
    let game = text.lines().map(str::trim).find_map(|line| {
        let value = line.strip_prefix("game")?.trim_start().strip_prefix('=')?;
        Some(value.trim().trim_matches('"').to_owned())
    })?;
    if game != "blackjack" && game != "pontoon" {
        return None;
    }
    Some(blackjack::Book::from_toml(&text).map_err(|e| format!("{}: {e}", path.display())))
}

/// The poker book `rules` names (dealing `variant`, or its default), if it names one: a built-in
/// id, or a rule book file whose `[book]` says `game = "poker"`. `Err` says why it cannot be used.
pub fn poker_file_book(rules: &str, variant: Option<&str>) -> Option<Result<poker::Book, String>> {
    let book = if poker::book::BUILTIN.contains(&rules) {
        poker::Book::builtin(rules).map_err(|e| e.to_string())
    } else {
        let path = Path::new(rules);
        if !path.is_file() {
            return None;
        }
        let text = std::fs::read_to_string(path).ok()?;
        let game = text.lines().map(str::trim).find_map(|line| {
            let value = line.strip_prefix("game")?.trim_start().strip_prefix('=')?;
            Some(value.trim().trim_matches('"').to_owned())
        })?;
        if game != "poker" {
            return None;
        }
        poker::Book::from_toml(&text).map_err(|e| format!("{}: {e}", path.display()))
    };
    Some(match variant {
        Some(v) => book.and_then(|b| b.with_variant(v).map_err(|e| e.to_string())),
        None => book,
    })
}

/// Why an event file cannot be replayed under the book `pitwatch replay FILE --rules` names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileBookError {
    /// A variant was asked of a book that deals none (only a poker book has variants).
    NoVariants,
    /// The book cannot be used: why, and every problem of a book that reads but does not check
    /// (listed one per line after the reason).
    Refused {
        /// Why, in a sentence.
        reason: String,
        /// Each problem the book's check found (empty when the reason says it all).
        problems: Vec<String>,
    },
}

/// The book an event file (or raw capture) is replayed under: `rules` (a built-in id or a rule
/// book file) read as a poker book dealing `variant` (or its default), else as a Blackjack or
/// Pontoon book, else as a Baccarat book, the first that claims it deciding the engine.
pub fn file_book(rules: &str, variant: Option<&str>) -> Result<GameBook, FileBookError> {
    let refused = |reason: String| FileBookError::Refused {
        reason,
        problems: Vec::new(),
    };
    match poker_file_book(rules, variant) {
        Some(Ok(book)) => return Ok(book.into()),
        Some(Err(problem)) => return Err(refused(problem)),
        None if variant.is_some() => return Err(FileBookError::NoVariants),
        None => {}
    }
    match blackjack_file_book(rules) {
        Some(Ok(book)) => return Ok(book.into()),
        Some(Err(problem)) => return Err(refused(problem)),
        None => {}
    }
    match load_baccarat(rules) {
        Ok(book) => Ok(book.into()),
        Err(LoadError::Invalid { source_name, error }) => Err(FileBookError::Refused {
            reason: format!(
                "rule book {source_name} is invalid ({} problems):",
                error.problems.len()
            ),
            problems: error.problems,
        }),
        Err(error) => Err(refused(error.to_string())),
    }
}

/// How a table's deck count ends a rule book's reference (`nz-blackjack;decks=6`).
const DECKS: &str = ";decks=";
/// How a poker table's variant ends a rule book's reference (`nz-poker;variant=seven_card_stud`).
const VARIANT: &str = ";variant=";

/// A rule book of any game a table can run.
#[derive(Debug, Clone)]
pub enum GameBook {
    /// A Baccarat book (`nz-baccarat`, `macau-baccarat`, …).
    Baccarat(RuleBook),
    /// A Blackjack or Pontoon book (`nz-blackjack`, `nz-pontoon`).
    Blackjack(Box<blackjack::Book>),
    /// A poker book (`nz-poker`), dealing one of its variants.
    Poker(Box<poker::Book>),
}

impl From<RuleBook> for GameBook {
    fn from(book: RuleBook) -> GameBook {
        GameBook::Baccarat(book)
    }
}

impl From<blackjack::Book> for GameBook {
    fn from(book: blackjack::Book) -> GameBook {
        GameBook::Blackjack(Box::new(book))
    }
}

impl From<poker::Book> for GameBook {
    fn from(book: poker::Book) -> GameBook {
        GameBook::Poker(Box::new(book))
    }
}

/// The `game` a rule book's `[book]` table names (`None` when it names none: a Baccarat book,
/// whose format predates the field).
fn declared_game(text: &str) -> Option<String> {
    let value: toml::Value = toml::from_str(text).ok()?;
    value.get("book")?.get("game")?.as_str().map(str::to_owned)
}

/// A rule book's reference taken apart: the book's name or path, the table's deck count and
/// (poker) the variant dealt, when it gives them (`nz-poker;variant=draw`, `nz-baccarat;decks=6`).
struct Reference<'a> {
    name: &'a str,
    decks: Option<u8>,
    variant: Option<&'a str>,
}

/// Splits `reference` into the book's name or path, the table's deck count and the variant.
fn split_reference(reference: &str) -> Result<Reference<'_>, String> {
    let mut name = reference;
    let mut decks = None;
    let mut variant = None;
    loop {
        if let Some((head, v)) = name.rsplit_once(VARIANT) {
            if variant.is_none() && !v.contains(';') {
                variant = Some(v.trim());
                name = head;
                continue;
            }
        }
        if let Some((head, d)) = name.rsplit_once(DECKS) {
            if decks.is_none() && !d.contains(';') {
                decks = Some(
                    d.trim()
                        .parse()
                        .map_err(|_| format!("{reference}: {d:?} is not a number of decks"))?,
                );
                name = head;
                continue;
            }
        }
        return Ok(Reference {
            name,
            decks,
            variant,
        });
    }
}

impl GameBook {
    /// A built-in book by id or a rule book file, of any game, either ending in `;decks=N` for a
    /// table whose shoe holds N decks (a book's [`GameBook::reference`] loads back as the book).
    pub fn load(reference: &str) -> Result<GameBook, String> {
        let parts = split_reference(reference)?;
        let name = parts.name;
        if let Some(text) = blackjack::Book::builtin_text(name) {
            return GameBook::from_parts(text, &parts);
        }
        if let Some(text) = poker::Book::builtin_text(name) {
            return GameBook::from_parts(text, &parts);
        }
        if RuleBook::builtin(name).is_none() {
            if let Ok(text) = std::fs::read_to_string(name) {
                if matches!(
                    declared_game(&text).as_deref(),
                    Some("blackjack" | "pontoon" | "poker")
                ) {
                    return GameBook::from_parts(&text, &parts);
                }
            }
        }
        if parts.variant.is_some() {
            return Err(format!(
                "{reference}: a variant is for a poker rule book (nz-poker)"
            ));
        }
        RuleBook::load(reference)
            .map(GameBook::Baccarat)
            .map_err(|e| match e {
                // Every game's built-in books, not only Baccarat's.
                LoadError::NotFound {
                    name,
                    builtin,
                    reason,
                } => LoadError::NotFound {
                    name,
                    builtin: format!(
                        "{builtin}, {}, {}",
                        blackjack::book::BUILTIN.join(", "),
                        poker::book::BUILTIN.join(", ")
                    ),
                    reason,
                }
                .to_string(),
                e => e.to_string(),
            })
    }

    /// The book of `text` (a book's TOML as the record keeps it), with the deck count of
    /// `reference` when it gives one.
    pub fn from_text(text: &str, reference: &str) -> Result<GameBook, String> {
        let parts = split_reference(reference)?;
        match declared_game(text).as_deref() {
            Some("blackjack" | "pontoon" | "poker") => GameBook::from_parts(text, &parts),
            _ => {
                if parts.variant.is_some() {
                    return Err(format!(
                        "{reference}: a variant is for a poker rule book (nz-poker)"
                    ));
                }
                let book = RuleBook::from_toml(text, reference).map_err(|e| e.to_string())?;
                match parts.decks {
                    None => Ok(GameBook::Baccarat(book)),
                    Some(decks) => book.with_decks(decks).map(GameBook::Baccarat),
                }
            }
        }
    }

    /// A Blackjack, Pontoon or poker book from its text, with the reference's deck count and
    /// variant.
    fn from_parts(text: &str, parts: &Reference<'_>) -> Result<GameBook, String> {
        let name = parts.name;
        if declared_game(text).as_deref() == Some("poker") {
            if parts.decks.is_some() {
                return Err(format!(
                    "{name}: a poker table's deck count is its rule book's (decks is for shoes)"
                ));
            }
            let book = poker::Book::from_toml(text).map_err(|e| format!("{name}: {e}"))?;
            return match parts.variant {
                None => Ok(GameBook::from(book)),
                Some(v) => book
                    .with_variant(v)
                    .map(GameBook::from)
                    .map_err(|e| e.to_string()),
            };
        }
        if parts.variant.is_some() {
            return Err(format!(
                "{name}: a variant is for a poker rule book (nz-poker)"
            ));
        }
        let book = blackjack::Book::from_toml(text).map_err(|e| format!("{name}: {e}"))?;
        match parts.decks {
            None => Ok(GameBook::Blackjack(Box::new(book))),
            Some(decks) => book.with_decks(decks).map(GameBook::from),
        }
    }

    /// The game the book is for.
    pub fn kind(&self) -> GameKind {
        match self {
            GameBook::Baccarat(_) => GameKind::Baccarat,
            GameBook::Blackjack(book) => match book.variant {
                blackjack::book::Variant::Blackjack => GameKind::Blackjack,
                blackjack::book::Variant::Pontoon => GameKind::Pontoon,
            },
            GameBook::Poker(_) => GameKind::Poker,
        }
    }

    /// The game the book is for, as a pit definition names it (`baccarat`, `blackjack`,
    /// `pontoon`).
    pub fn game(&self) -> &'static str {
        match self {
            GameBook::Baccarat(_) => "baccarat",
            GameBook::Blackjack(book) => book.variant.name(),
            GameBook::Poker(_) => "poker",
        }
    }

    /// The book's id.
    pub fn id(&self) -> &str {
        match self {
            GameBook::Baccarat(book) => book.id(),
            GameBook::Blackjack(book) => &book.id,
            GameBook::Poker(book) => &book.id,
        }
    }

    /// The book's title.
    pub fn title(&self) -> &str {
        match self {
            GameBook::Baccarat(book) => book.title(),
            GameBook::Blackjack(book) => &book.title,
            GameBook::Poker(book) => &book.title,
        }
    }

    /// How the book is named on record: its id, with `;decks=N` when the table's deck count is
    /// not the book's own.
    pub fn reference(&self) -> String {
        match self {
            GameBook::Baccarat(book) => book.reference(),
            GameBook::Blackjack(book) => match blackjack::Book::builtin(&book.id) {
                Ok(own) if own.decks != book.decks => format!("{}{DECKS}{}", book.id, book.decks),
                _ => book.id.clone(),
            },
            GameBook::Poker(book) if book.variant.id != book.default_variant => {
                format!("{}{VARIANT}{}", book.id, book.variant.id)
            }
            GameBook::Poker(book) => book.id.clone(),
        }
    }

    /// The variants a table may deal from the book, as (id, name) in the book's order, and the
    /// one dealt when a table does not say; none for a book with a single way of dealing.
    pub fn variants(&self) -> (Vec<(String, String)>, Option<String>) {
        match self {
            GameBook::Poker(book) => (
                book.variants
                    .values()
                    .map(|v| (v.id.clone(), v.name.clone()))
                    .collect(),
                Some(book.default_variant.clone()),
            ),
            GameBook::Baccarat(_) | GameBook::Blackjack(_) => (Vec::new(), None),
        }
    }

    /// Whether a table may deal the book from a shoe of another deck count (`;decks=N`); a
    /// book that deals each hand from one deck of its own says no.
    pub fn decks_choosable(&self) -> bool {
        !matches!(self, GameBook::Poker(_))
    }

    /// The texts of the rules `citation` cites (number, text), for reports.
    pub fn rule_texts(&self, citation: &str) -> Vec<(String, String)> {
        match self {
            GameBook::Baccarat(book) => book.rule_texts(citation),
            GameBook::Blackjack(book) => book
                .rule_texts(citation)
                .into_iter()
                .map(|(n, t)| (n.to_owned(), t.to_owned()))
                .collect(),
            GameBook::Poker(book) => book
                .rule_texts(citation)
                .into_iter()
                .map(|(n, t)| (n.to_owned(), t.to_owned()))
                .collect(),
        }
    }

    /// The steps of preparing the cards by hand the book requires before each load, in order
    /// (any game's book may list them; a poker book has none).
    pub fn shuffle_steps(&self) -> &[pitwatch_model::ShuffleStep] {
        match self {
            GameBook::Baccarat(book) => book.shuffle_steps(),
            GameBook::Blackjack(book) => &book.shuffle_steps,
            GameBook::Poker(_) => &[],
        }
    }

    /// The Baccarat book, for what only Baccarat has (shuffle thresholds, the Gazette fields).
    pub fn baccarat(&self) -> Option<&RuleBook> {
        match self {
            GameBook::Baccarat(book) => Some(book),
            GameBook::Blackjack(_) | GameBook::Poker(_) => None,
        }
    }

    /// The shared shoe rules of a game on the shared table (Blackjack, Pontoon, poker): what
    /// its shuffle watch judges shoes by. `None` for Baccarat, whose [`RuleBook`] gives them.
    pub fn shoe_rules(&self) -> Option<&pitwatch_rules::ShoeRules> {
        match self {
            GameBook::Blackjack(book) => Some(&book.shoe),
            GameBook::Poker(book) => Some(&book.shoe),
            GameBook::Baccarat(_) => None,
        }
    }

    /// The poker book, for what only poker has (its variant, the misdeal reasons).
    pub fn poker(&self) -> Option<&poker::Book> {
        match self {
            GameBook::Poker(book) => Some(book),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn books_of_every_game_load_by_name_and_from_their_text() {
        for (name, game) in [
            ("nz-baccarat", "baccarat"),
            ("nz-blackjack", "blackjack"),
            ("nz-pontoon", "pontoon"),
        ] {
            let book = GameBook::load(name).unwrap();
            assert_eq!(book.game(), game);
            assert_eq!(book.reference(), name);
            let text = book_text(name).unwrap();
            assert_eq!(GameBook::from_text(&text, name).unwrap().game(), game);
        }
        // A table's deck count or poker variant is in its reference; the record keeps the
        // book's own text, which loads back with the reference as the same book.
        for reference in [
            "nz-blackjack;decks=8",
            "nz-baccarat;decks=6",
            "nz-poker",
            "nz-poker;variant=seven_card_stud",
        ] {
            let text = book_text(reference).unwrap_or_else(|| panic!("{reference}: no text"));
            let from_text = GameBook::from_text(&text, reference).unwrap();
            let loaded = GameBook::load(reference).unwrap();
            assert_eq!(from_text.reference(), loaded.reference(), "{reference}");
            assert_eq!(from_text.game(), loaded.game(), "{reference}");
        }
        let eight = GameBook::load("nz-blackjack;decks=8").unwrap();
        assert_eq!(eight.reference(), "nz-blackjack;decks=8");
        assert_eq!(
            GameBook::load(&eight.reference()).unwrap().reference(),
            "nz-blackjack;decks=8"
        );
        let err = GameBook::load("nz-pontoon;decks=12").unwrap_err();
        assert!(
            err.contains("outside what rule book nz-pontoon allows"),
            "{err}"
        );
    }
}
