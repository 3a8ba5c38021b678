//! Renaming and retiring a table from the window (administrators): the pit definition's file is
//! edited in place, every comment and every other section kept as written, checked as a whole
//! before it is written (the previous file kept as `.bak`), and applied by a reload, which stops
//! and starts only the table concerned. The reload's audit row (`pit.reload`, chained in the
//! record) carries the step, the section before and after, who and when.
//!
//! A table's name is how the record knows it: what it recorded stays under the name it had
//! then (the record is append-only), and a renamed table starts recording under its new name
//! with a new device session. A retired table stops recording; its record stays. The last table
//! that runs is not retired (a pit that monitors nothing is a mistake, not a setting).

use pitwatch_api::dto::{
    BookFieldView, BookParameterView, BookSectionView, BookVariantView, BookView, PitReload,
};
use pitwatch_api::{ApiError, ErrorCode};
use pitwatch_recording::pit::PitConfig;
use toml_edit::{ArrayOfTables, DocumentMut, Table};

use crate::live::{internal, Desk};
use crate::reload::write_keeping_the_old;

/// What a step does to one `[[table]]` section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TableEdit {
    /// The table is named `to` from now on.
    Rename {
        /// Its new name.
        to: String,
    },
    /// The table's section is taken out of the pit definition.
    Retire,
}

/// The file's text with `edit` made to the section of the table `name`, and that section as it
/// was and as it is after (none once retired). Only that section changes.
pub fn edit_section(
    text: &str,
    name: &str,
    edit: &TableEdit,
) -> Result<(String, String, Option<String>), ApiError> {
    let invalid = |m: String| ApiError::new(ErrorCode::InvalidInput, m);
    let mut doc: DocumentMut = text
        .parse()
        .map_err(|e| invalid(format!("the pit definition does not read: {e}")))?;
    let tables = doc
        .get_mut("table")
        .and_then(|t| t.as_array_of_tables_mut())
        .ok_or_else(|| invalid("the pit definition has no [[table]] section".into()))?;
    let at = position(tables, name).ok_or_else(|| {
        ApiError::new(
            ErrorCode::NotFound,
            format!("no table named {name:?} in the pit definition"),
        )
    })?;
    let before = section(tables.get(at).expect("found above"));
    let after = match edit {
        TableEdit::Rename { to } => {
            let to = to.trim();
            if to.is_empty() {
                return Err(invalid("give the table's new name".into()));
            }
            if to == name {
                return Err(invalid(format!("the table is already named {name:?}")));
            }
            if position(tables, to).is_some() {
                return Err(invalid(format!(
                    "a table named {to:?} is already in the pit definition"
                )));
            }
            let table = tables.get_mut(at).expect("found above");
            let decor = table
                .get("name")
                .and_then(|n| n.as_value())
                .map(|v| v.decor().clone());
            let mut value = toml_edit::Value::from(to);
            if let Some(decor) = decor {
                *value.decor_mut() = decor;
            }
            table.insert("name", toml_edit::Item::Value(value));
            Some(section(table))
        }
        TableEdit::Retire => {
            tables.remove(at);
            None
        }
    };
    Ok((doc.to_string(), before, after))
}

fn position(tables: &ArrayOfTables, name: &str) -> Option<usize> {
    tables
        .iter()
        .position(|t| t.get("name").and_then(|n| n.as_str()).map(str::trim) == Some(name))
}

/// One table's section as the audit keeps it.
fn section(table: &Table) -> String {
    format!("[[table]]\n{table}")
}

impl Desk {
    /// The rule book `rules` names, setting by setting with the rules they cite, for a logged-in
    /// user choosing a table's book (a book is read, never changed, here).
    pub fn rule_book(&self, rules: &str) -> Result<BookView, ApiError> {
        self.principal()?;
        let book = pitwatch_games::parameters::book_parameters(rules)
            .map_err(|e| ApiError::new(ErrorCode::InvalidInput, e))?;
        Ok(BookView {
            rules: rules.trim().to_owned(),
            header: book
                .header
                .into_iter()
                .map(|(key, value)| BookFieldView { key, value })
                .collect(),
            sections: book
                .sections
                .into_iter()
                .map(|s| BookSectionView {
                    name: s.name,
                    parameters: s
                        .parameters
                        .into_iter()
                        .map(|p| BookParameterView {
                            key: p.key,
                            value: p.value,
                            rule: p.rule,
                            note: p.note,
                        })
                        .collect(),
                })
                .collect(),
            variants: book
                .variants
                .into_iter()
                .map(|(id, name)| BookVariantView { id, name })
                .collect(),
            default_variant: book.default_variant,
            decks_choosable: book.decks_choosable,
        })
    }

    /// Renames the table `name` to `to` in the pit definition (administrators only) and applies
    /// it: the table stops under its old name and starts under the new one; the others go on.
    pub fn rename_table(&self, name: &str, to: &str) -> Result<PitReload, ApiError> {
        let to = to.trim();
        let edit = TableEdit::Rename { to: to.to_owned() };
        self.edit_table(name, &edit, vec![("renamed", format!("{name} to {to}"))])
    }

    /// Retires the table `name` (administrators only): its section leaves the pit definition
    /// and it stops recording; what it recorded stays. The last table that runs is not retired.
    pub fn retire_table(&self, name: &str) -> Result<PitReload, ApiError> {
        let running = self.live.running();
        let runs = running.tables.iter().any(|t| t.name == name);
        if runs && running.tables.len() == 1 {
            return Err(ApiError::new(
                ErrorCode::Conflict,
                format!(
                    "{name} is the only table this pit monitors: add the table that replaces it \
                     first, then retire it"
                ),
            ));
        }
        drop(running);
        self.edit_table(name, &TableEdit::Retire, vec![("retired", name.to_owned())])
    }

    fn edit_table(
        &self,
        name: &str,
        edit: &TableEdit,
        mut more: Vec<(&'static str, String)>,
    ) -> Result<PitReload, ApiError> {
        let who = self.may_configure()?;
        let path = self.pit_file()?;
        let _one_at_a_time = self.live.one_change_at_a_time();
        let name = name.trim();
        let before_text = std::fs::read_to_string(path)
            .map_err(|e| internal(format!("cannot read {}: {e}", path.display())))?;
        let (after_text, before, after) = edit_section(&before_text, name, edit)?;
        let next = PitConfig::load(&after_text).map_err(|e| {
            ApiError::new(
                ErrorCode::InvalidInput,
                format!("the pit definition would not read after this change: {e}"),
            )
        })?;
        // A name the pit definition does not accept disables the table: refused, unless its
        // section was already wrong (renaming a disabled table is allowed).
        if let TableEdit::Rename { to } = edit {
            let was_disabled = self.live.running().disabled.iter().any(|d| d.name == name);
            if let Some(problem) = next.disabled.iter().find(|d| &d.name == to) {
                if !was_disabled {
                    return Err(ApiError::new(
                        ErrorCode::InvalidInput,
                        format!(
                            "the table cannot be named {to:?}: {}",
                            problem.problems.join("; ")
                        ),
                    ));
                }
            }
        }
        write_keeping_the_old(path, &before_text, &after_text)?;
        more.push(("before", before));
        if let Some(after) = after {
            more.push(("after", after));
        }
        self.reload_as(&who, more)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PIT: &str = r#"# The main pit, level 2.
[site]
name = "Sky"

# By the window.
[[table]]
name = "BAC-1"   # the high-limit table
game = "baccarat"
rules = "nz-baccarat"
device = { protocol = "barcode" }
link = { kind = "tcp", address = "127.0.0.1:4001" }

[[table]]
name = "BJ-1"
game = "blackjack"
rules = "nz-blackjack"
device = { protocol = "pitwatch" }
link = { kind = "tcp", address = "127.0.0.1:4002" }
"#;

    fn rename(to: &str) -> TableEdit {
        TableEdit::Rename { to: to.into() }
    }

    #[test]
    fn a_rename_changes_the_name_alone_and_keeps_every_comment() {
        let (text, before, after) = edit_section(PIT, "BAC-1", &rename("BAC-01")).unwrap();
        assert_eq!(
            text,
            PIT.replace("name = \"BAC-1\"   #", "name = \"BAC-01\"   #")
        );
        assert!(before.contains("name = \"BAC-1\""), "{before}");
        assert!(after.expect("renamed").contains("\"BAC-01\""));
        let config = PitConfig::load(&text).unwrap();
        let names: Vec<&str> = config.tables.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["BAC-01", "BJ-1"]);
    }

    #[test]
    fn a_retired_table_leaves_the_others_as_written() {
        let (text, before, after) = edit_section(PIT, "BJ-1", &TableEdit::Retire).unwrap();
        assert!(after.is_none());
        assert!(before.contains("nz-blackjack"), "{before}");
        assert!(!text.contains("BJ-1"), "{text}");
        assert!(
            text.starts_with("# The main pit, level 2.\n[site]"),
            "{text}"
        );
        assert!(
            text.contains("# By the window.\n[[table]]\nname = \"BAC-1\"   # the high-limit table")
        );
        let config = PitConfig::load(&text).unwrap();
        assert_eq!(config.tables.len(), 1);
    }

    #[test]
    fn a_logged_in_user_reads_a_books_settings_with_their_rules() {
        let dir = tempfile::tempdir().unwrap();
        let desk = crate::testkit::real_desk(&dir.path().join("pit.db"));
        desk.logout().unwrap();
        let anonymous = desk.rule_book("nz-baccarat").expect_err("nobody logged in");
        assert_eq!(anonymous.code, ErrorCode::Unauthorised);
        desk.login("alice", crate::testkit::ALICE).unwrap();
        let book = desk.rule_book(" nz-blackjack;decks=6 ").expect("a book");
        assert_eq!(book.rules, "nz-blackjack;decks=6");
        assert!(book
            .header
            .iter()
            .any(|f| f.key == "id" && f.value == "nz-blackjack"));
        let cite = book
            .sections
            .iter()
            .find(|s| s.name == "cite")
            .expect("its citations");
        assert!(cite.parameters.iter().all(|p| p.rule.is_some()), "{cite:?}");
        assert!(book.variants.is_empty() && book.default_variant.is_none());
        assert!(book.decks_choosable);
        let unknown = desk.rule_book("nz-roulette").expect_err("no such book");
        assert_eq!(unknown.code, ErrorCode::InvalidInput);
        desk.stop();
    }

    #[test]
    fn names_that_cannot_be_are_refused_in_words() {
        let cases = [
            (
                "NOPE",
                rename("X"),
                ErrorCode::NotFound,
                "no table named \"NOPE\"",
            ),
            (
                "BAC-1",
                rename("BJ-1"),
                ErrorCode::InvalidInput,
                "already in the pit",
            ),
            ("BAC-1", rename("  "), ErrorCode::InvalidInput, "new name"),
            (
                "BAC-1",
                rename("BAC-1"),
                ErrorCode::InvalidInput,
                "already named",
            ),
            (
                "NOPE",
                TableEdit::Retire,
                ErrorCode::NotFound,
                "no table named",
            ),
        ];
        for (name, edit, code, words) in cases {
            let error = edit_section(PIT, name, &edit).expect_err(name);
            assert_eq!(error.code, code, "{error}");
            assert!(error.message.contains(words), "{error}");
        }
        let broken = edit_section("[[table]\nname = 1", "A", &TableEdit::Retire).unwrap_err();
        assert!(broken.message.contains("does not read"), "{broken}");
        let empty = edit_section("[site]\nname = \"S\"\n", "A", &TableEdit::Retire).unwrap_err();
        assert!(empty.message.contains("no [[table]]"), "{empty}");
    }
}
