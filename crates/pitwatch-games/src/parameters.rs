//! A rule book's parameters as an administrator reads them before giving the book to a table:
//! every setting of every section in the book's own order, its value as the book writes it, and
//! the rule it cites. A book is data (TOML) and cites its rules in the comment beside a setting
//! (`min_from_back = 20   # 7.6: at least 20 cards in from the back`); the rule number is read
//! from the start of that comment, and the comment is kept as the setting's note. Any game's
//! book, built in or a file, is read the same way; the book must load as its game's first.
//! The `[cite]` section (which rule each irregularity cites) gives its value as the rule; the
//! rules' own texts (`[texts]`) are not settings and are left out.

use toml_edit::{DocumentMut, Item, Table};

use crate::book::{book_text, rule_book_file_ok};
use crate::GameBook;

/// One setting of a book.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parameter {
    /// Its key within its section (`min_from_back`; a nested key as `a.b`).
    pub key: String,
    /// Its value as the book writes it (`20`, `"last_coup"`, `[8, 9]`).
    pub value: String,
    /// The rule it cites (`7.6`, `12.1(b)`), if its note begins with one.
    pub rule: Option<String>,
    /// The book's note beside it, without the rule number.
    pub note: String,
}

/// One section of a book (`[cut]`, `[drawing.banker_draws_when_player_drew]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    /// Its name as the book heads it.
    pub name: String,
    /// Its settings, in the book's order.
    pub parameters: Vec<Parameter>,
}

/// A book as its parameters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BookParameters {
    /// The `[book]` header's fields (id, jurisdiction, game, title, gazette, effective…).
    pub header: Vec<(String, String)>,
    /// Every other section.
    pub sections: Vec<Section>,
    /// The variants a table may deal from it (id, name), in the book's order; empty when it
    /// has one way of dealing.
    pub variants: Vec<(String, String)>,
    /// The variant dealt when a table does not say, where it has variants.
    pub default_variant: Option<String>,
    /// Whether a table may give the book another deck count.
    pub decks_choosable: bool,
}

/// The parameters of the book `rules` names (a built-in id or a file, with a table's
/// `;decks=N` or `;variant=V`), after it loads as its game's book. `Err` says why it cannot.
pub fn book_parameters(rules: &str) -> Result<BookParameters, String> {
    let rules = rules.trim();
    if rules.is_empty() {
        return Err("name a rule book".into());
    }
    let loaded = GameBook::load(rules)?;
    let name = rules.split(';').next().unwrap_or(rules);
    if std::path::Path::new(name).exists() {
        rule_book_file_ok(name)?;
    }
    let text = book_text(rules).ok_or_else(|| format!("no rule book {name:?}"))?;
    let mut parameters = parameters_of(&text)?;
    (parameters.variants, parameters.default_variant) = loaded.variants();
    parameters.decks_choosable = loaded.decks_choosable();
    Ok(parameters)
}

/// The parameters of a book's text.
pub fn parameters_of(text: &str) -> Result<BookParameters, String> {
    let doc: DocumentMut = text
        .parse()
        .map_err(|e| format!("the rule book does not read: {e}"))?;
    let mut header = Vec::new();
    let mut sections = Vec::new();
    for (name, item) in doc.iter() {
        let Some(table) = item.as_table() else {
            continue;
        };
        // The rules' texts are shown where a rule is cited (an incident), not as settings.
        if name == "texts" {
            continue;
        }
        if name == "book" {
            for (key, value) in table.iter() {
                if let Some(v) = value.as_value() {
                    let shown = v
                        .as_str()
                        .map_or_else(|| v.to_string().trim().to_owned(), str::to_owned);
                    header.push((key.to_owned(), shown.trim().to_owned()));
                }
            }
            continue;
        }
        walk(name, table, &mut sections);
    }
    Ok(BookParameters {
        header,
        sections,
        variants: Vec::new(),
        default_variant: None,
        decks_choosable: true,
    })
}

/// Adds `table` (named `name`) and the tables under it, each a section, in the book's order.
fn walk(name: &str, table: &Table, sections: &mut Vec<Section>) {
    let mut parameters = Vec::new();
    let mut nested = Vec::new();
    for (key, item) in table.iter() {
        match item {
            Item::Value(value) => {
                let beside = value
                    .decor()
                    .suffix()
                    .and_then(|s| s.as_str())
                    .unwrap_or("");
                let above = table
                    .key(key)
                    .and_then(|k| k.leaf_decor().prefix())
                    .and_then(|p| p.as_str())
                    .unwrap_or("");
                let (rule, note) = citation(beside, above);
                let mut bare = value.clone();
                bare.decor_mut().clear();
                let shown = bare.to_string().trim().to_owned();
                // `[cite]` says which rule each irregularity cites: its value is the rule.
                // Its note is the comment whole (a rule number there is the note's own).
                let (rule, note) = match (name, value.as_str()) {
                    ("cite", Some(cited)) => (Some(cited.to_owned()), comment_of(beside, above)),
                    _ => (rule, note),
                };
                parameters.push(Parameter {
                    key: key.to_owned(),
                    value: shown,
                    rule,
                    note,
                });
            }
            Item::Table(inner) => nested.push((format!("{name}.{key}"), inner)),
            Item::ArrayOfTables(_) | Item::None => {}
        }
    }
    if !parameters.is_empty() {
        sections.push(Section {
            name: name.to_owned(),
            parameters,
        });
    }
    for (name, inner) in nested {
        walk(&name, inner, sections);
    }
}

/// The rule number and the note of a setting: its comment beside it (`# 7.6: at least …`), else
/// the comment lines just above it.
fn citation(beside: &str, above: &str) -> (Option<String>, String) {
    let note = comment_of(beside, above);
    match rule_number(&note) {
        Some((rule, rest)) => (Some(rule), rest),
        None => (None, note),
    }
}

/// The comment beside a setting, else the comment lines just above it, as one line.
fn comment_of(beside: &str, above: &str) -> String {
    let comment = |text: &str| {
        text.lines()
            .map(str::trim)
            .filter_map(|l| l.strip_prefix('#'))
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join(" ")
    };
    Some(comment(beside))
        .filter(|c| !c.is_empty())
        .unwrap_or_else(|| comment(above))
}

/// A rule number at the start of `note` (`7.6`, `12.1(b)`, `8.4(a)(ii)`) and what follows it.
fn rule_number(note: &str) -> Option<(String, String)> {
    let bytes = note.as_bytes();
    let mut end = 0;
    while end < bytes.len() && (bytes[end].is_ascii_digit() || bytes[end] == b'.') {
        end += 1;
    }
    // A number alone ("20 cards") is no rule: a rule has a dot between digits.
    let number = note[..end].trim_end_matches('.');
    if !number.contains('.') || number.starts_with('.') {
        return None;
    }
    let mut at = number.len();
    while note[at..].starts_with('(') {
        let Some(close) = note[at..].find(')') else {
            break;
        };
        let inside = &note[at + 1..at + close];
        if inside.is_empty()
            || inside.len() > 4
            || !inside.chars().all(|c| c.is_ascii_alphanumeric())
        {
            break;
        }
        at += close + 1;
    }
    // "11.2(a) and (b)": the second paragraph is the same rule's.
    if let Some(more) = note[at..].strip_prefix(" and (") {
        if let Some(close) = more.find(')').filter(|&c| (1..=4).contains(&c)) {
            at += " and (".len() + close + 1;
        }
    }
    let rest = note[at..]
        .trim_start_matches([':', ',', ';', ' ', '-', '—'])
        .trim()
        .to_owned();
    Some((note[..at].to_owned(), rest))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn find<'a>(book: &'a BookParameters, section: &str, key: &str) -> &'a Parameter {
        book.sections
            .iter()
            .find(|s| s.name == section)
            .and_then(|s| s.parameters.iter().find(|p| p.key == key))
            .unwrap_or_else(|| panic!("{section}.{key} in {book:?}"))
    }

    #[test]
    fn a_baccarat_book_cites_its_rules_beside_its_settings() {
        let book = book_parameters("nz-baccarat").expect("the built-in book");
        assert!(book
            .header
            .iter()
            .any(|(k, v)| k == "gazette" && v.starts_with("NZ Gazette 2004")));
        let cut = find(&book, "cut", "min_from_either_end_decks");
        assert_eq!(
            (cut.value.as_str(), cut.rule.as_deref()),
            ("1", Some("7.6"))
        );
        assert_eq!(cut.note, "at least one deck in from either end");
        let burn = find(&book, "burn", "policy");
        assert_eq!(burn.value, "\"first_card_value\"");
        assert_eq!(burn.rule.as_deref(), Some("7.7"));
        // A setting without a comment has no rule, and nested tables are sections of their own.
        let natural = find(&book, "drawing", "natural");
        assert_eq!(
            (natural.value.as_str(), natural.rule.as_ref()),
            ("[8, 9]", None)
        );
        find(&book, "drawing.banker_draws_when_player_drew", "3");
        let cited = find(&book, "cite", "BURN_MISSING");
        assert_eq!(cited.rule.as_deref(), Some("7.7(a)"));
        assert!(book.sections.iter().all(|s| s.name != "texts"));
    }

    #[test]
    fn every_built_in_book_reads_with_some_rule_cited() {
        for id in [
            "nz-baccarat",
            "nz-baccarat-continuous",
            "macau-baccarat",
            "nz-blackjack",
            "nz-pontoon",
            "nz-poker",
        ] {
            let book = book_parameters(id).unwrap_or_else(|e| panic!("{id}: {e}"));
            let cited = book
                .sections
                .iter()
                .flat_map(|s| &s.parameters)
                .filter(|p| p.rule.is_some())
                .count();
            assert!(cited > 0, "{id} cites no rule: {book:?}");
            assert!(
                book.header.iter().any(|(k, v)| k == "id" && v == id),
                "{id}"
            );
        }
    }

    #[test]
    fn a_book_says_which_variants_and_deck_counts_a_table_may_choose() {
        let poker = book_parameters("nz-poker;variant=draw").expect("a book");
        let ids: Vec<&str> = poker.variants.iter().map(|(id, _)| id.as_str()).collect();
        assert_eq!(
            ids,
            ["draw", "five_card_stud", "seven_card_stud", "texas_holdem"]
        );
        assert!(poker
            .variants
            .contains(&("seven_card_stud".into(), "Seven Card Stud".into())));
        assert_eq!(poker.default_variant.as_deref(), Some("texas_holdem"));
        assert!(!poker.decks_choosable);
        for id in ["nz-baccarat", "nz-blackjack;decks=6", "nz-pontoon"] {
            let book = book_parameters(id).expect("a book");
            assert!(book.variants.is_empty(), "{id}");
            assert_eq!(book.default_variant, None, "{id}");
            assert!(book.decks_choosable, "{id}");
        }
    }

    #[test]
    fn rule_numbers_are_read_from_the_start_of_a_note_only() {
        let cases = [
            ("7.6: at least one deck", Some("7.6"), "at least one deck"),
            (
                "12.1(b) a third card after the round",
                Some("12.1(b)"),
                "a third card after the round",
            ),
            ("8.4(a)(ii), the Banker", Some("8.4(a)(ii)"), "the Banker"),
            ("11.2 (a) and (b)", Some("11.2"), "(a) and (b)"),
            ("11.2(a) and (b)", Some("11.2(a) and (b)"), ""),
            ("11.2(a) and the Banker", Some("11.2(a)"), "and the Banker"),
            (
                "20 cards in from the back",
                None,
                "20 cards in from the back",
            ),
            (
                "the usual NZ shoe; 4-8 decks",
                None,
                "the usual NZ shoe; 4-8 decks",
            ),
            ("", None, ""),
        ];
        for (note, rule, rest) in cases {
            let (got_rule, got_rest) = citation(&format!("   # {note}"), "");
            assert_eq!(
                (got_rule.as_deref(), got_rest.as_str()),
                (rule, rest),
                "{note:?}"
            );
        }
        // Above the setting when nothing is beside it.
        let (rule, note) = citation("", "\n# 9.8: dealt face up\n");
        assert_eq!(
            (rule.as_deref(), note.as_str()),
            (Some("9.8"), "dealt face up")
        );
    }

    #[test]
    fn a_book_that_is_not_one_is_refused_in_words() {
        assert!(book_parameters("")
            .unwrap_err()
            .contains("name a rule book"));
        assert!(book_parameters("no-such-book").is_err());
        assert!(parameters_of("[cut\n")
            .unwrap_err()
            .contains("does not read"));
    }
}
