//! Reading a pit definition table by table: a table whose section is wrong is set aside as
//! disabled, with every one of its problems and the line its section starts on, while the
//! others run. Only what makes the whole file unusable refuses it: a TOML syntax error (one
//! error, with its line and column), or a problem of the pit as a whole (the site, the record,
//! the central copy).

use std::collections::BTreeSet;

use serde::Deserialize;

use super::{PitConfig, PitConfigError, TableConfig};

/// A table of the pit definition that cannot run, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DisabledTable {
    /// Its place among the file's `[[table]]` sections, 1-based.
    pub index: usize,
    /// Its name, as its section gives it (empty when it gives none).
    pub name: String,
    /// The line its section starts on, 1-based.
    pub line: usize,
    /// Everything wrong with it, each saying what is accepted.
    pub problems: Vec<String>,
    /// The table as read, when its section could be read at all (its game and devices, shown
    /// on its tile).
    pub config: Option<TableConfig>,
}

/// The `[[table]]` sections with where each is in the file.
#[derive(Deserialize)]
struct Sections {
    #[serde(default)]
    table: Vec<toml::Spanned<toml::Value>>,
}

impl PitConfig {
    /// Reads a pit definition table by table: the tables that are right in [`PitConfig::tables`],
    /// those that are not in [`PitConfig::disabled`] with their problems. Refuses the file only
    /// for a syntax error (one error with its line and column) or problems of the pit as a whole
    /// (every one listed).
    pub fn load(text: &str) -> Result<PitConfig, PitConfigError> {
        let syntax = |e: toml::de::Error| PitConfigError::Syntax(e.to_string());
        let sections: Sections = toml::from_str(text).map_err(syntax)?;
        let mut rest: toml::Table = toml::from_str(text).map_err(syntax)?;
        rest.remove("table");
        let mut pit: PitConfig = toml::Value::Table(rest)
            .try_into()
            .map_err(|e: toml::de::Error| PitConfigError::Invalid(vec![e.message().to_owned()]))?;
        let mut problems = pit.pit_problems();
        if !sections.table.is_empty() {
            problems.retain(|p| p != "no [[table]] is defined");
        }
        let line_of = |at: usize| text[..at.min(text.len())].matches('\n').count() + 1;
        let mut read = Vec::new();
        for (i, section) in sections.table.into_iter().enumerate() {
            let line = line_of(section.span().start);
            let value = section.into_inner();
            let name = value
                .get("name")
                .and_then(toml::Value::as_str)
                .unwrap_or_default()
                .to_owned();
            match value.try_into::<TableConfig>() {
                Ok(table) => read.push((i, line, Ok(table))),
                Err(e) => read.push((
                    i,
                    line,
                    Err((
                        name.clone(),
                        format!(
                            "table {} ({name:?}) at line {line}: {}",
                            i + 1,
                            e.message().trim()
                        ),
                    )),
                )),
            }
        }
        let mut seen = BTreeSet::new();
        let mut checked = Vec::new();
        for (i, line, table) in &read {
            match table {
                Ok(table) => {
                    let found = pit.table_problems(*i, table, &mut seen);
                    checked.push((*i, *line, table.name.clone(), found, Some(table.clone())));
                }
                Err((name, problem)) => {
                    checked.push((*i, *line, name.clone(), vec![problem.clone()], None))
                }
            }
        }
        for (i, line, name, found, table) in checked {
            match table {
                Some(table) if found.is_empty() => pit.tables.push(table),
                config => pit.disabled.push(DisabledTable {
                    index: i + 1,
                    name,
                    line,
                    problems: found,
                    config,
                }),
            }
        }
        // The whole file refused: every problem, the tables' too, listed at once.
        if !problems.is_empty() {
            problems.extend(pit.disabled.iter().flat_map(|d| d.problems.clone()));
            return Err(PitConfigError::Invalid(problems));
        }
        Ok(pit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PIT: &str = r#"[site]
name = "Three tables"

[[table]]
name = "BAC-1"
game = "baccarat"
rules = "nz-baccarat"
device = { protocol = "angel-eye" }
link = { kind = "serial", path = "/dev/ttyUSB0", baud = 4800 }

[[table]]
name = "BAC-2"
game = "baccarat"
rulez = "nz-baccarat"
device = { protocol = "angel-eye" }
link = { kind = "serial", path = "/dev/ttyUSB1", baud = 4800 }

[[table]]
name = "BAC-3"
game = "baccarat"
rules = "nz-baccarat"
device = { protocol = "angel-eye" }
link = { kind = "serial", path = "/dev/ttyUSB2", baud = 96000, stop_bits = 3 }
"#;

    #[test]
    fn a_wrong_section_disables_its_table_only_with_every_problem_and_its_line() {
        let pit = PitConfig::load(PIT).unwrap();
        assert_eq!(
            pit.tables
                .iter()
                .map(|t| t.name.as_str())
                .collect::<Vec<_>>(),
            ["BAC-1"]
        );
        assert_eq!(pit.disabled.len(), 2, "{:#?}", pit.disabled);
        let two = &pit.disabled[0];
        assert_eq!((two.index, two.name.as_str(), two.line), (2, "BAC-2", 11));
        assert_eq!(two.problems.len(), 1);
        assert!(
            two.problems[0].starts_with(
                "table 2 (\"BAC-2\") at line 11: unknown field `rulez`, expected one of"
            ),
            "{:?}",
            two.problems
        );
        assert!(two.config.is_none());
        let three = &pit.disabled[1];
        assert_eq!((three.index, three.line), (3, 18));
        assert_eq!(three.problems.len(), 2, "{:?}", three.problems);
        assert!(three.problems[0].contains("link baud 96000 is not a rate serial ports accept"));
        assert!(three.problems[1].contains("link stop_bits must be 1 or 2"));
        assert_eq!(
            three.config.as_ref().map(|t| t.name.as_str()),
            Some("BAC-3")
        );
        // The strict reading still refuses the whole file.
        assert!(PitConfig::from_toml(PIT).is_err());
    }

    #[test]
    fn a_syntax_error_is_one_error_with_its_line_and_column_and_a_pit_problem_refuses_all() {
        let broken = PIT.replace("game = \"baccarat\"\nrulez", "game = baccarat\nrulez");
        let PitConfigError::Syntax(e) = PitConfig::load(&broken).unwrap_err() else {
            panic!("a syntax error");
        };
        assert!(e.contains("line 13, column 8"), "{e}");
        let nameless = PIT.replace("name = \"Three tables\"", "name = \"\"");
        let PitConfigError::Invalid(all) = PitConfig::load(&nameless).unwrap_err() else {
            panic!("refused");
        };
        assert_eq!(all.len(), 4, "{all:#?}");
        assert_eq!(all[0], "site.name is empty");
        assert!(all[1].contains("unknown field `rulez`"), "{all:#?}");
    }
}
