//! Reading a pit definition table by table: a table whose section is wrong is set aside as
//! disabled, with every one of its problems and the line its section starts on, while the
//! others run. Only what makes the whole file unusable refuses it: a TOML syntax error (one
//! error, with its line and column), or a problem of the pit as a whole (the site, the record,
//! the central copy).

use std::collections::BTreeSet;

use serde::Deserialize;

use super::{PitConfig, PitConfigError, TableConfig};
use pitwatch_games::GameKind;

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
    /// Its game, when its section names one Pitwatch knows.
    pub game: Option<GameKind>,
}

impl DisabledTable {
    /// The table as its tile shows it: as read, or, when its section could not be read, its
    /// name (or its place in the file) and its game (a section naming no known game is shown as
    /// the registry's first game), with no rules and no devices.
    pub fn shown(&self) -> TableConfig {
        self.config.clone().unwrap_or_else(|| TableConfig {
            name: if self.name.is_empty() {
                format!("table {}", self.index)
            } else {
                self.name.clone()
            },
            game: self.game.unwrap_or(GameKind::ALL[0]),
            rules: String::new(),
            decks: None,
            variant: None,
            devices: Vec::new(),
            simulated: false,
            liveness: Default::default(),
            pace_target: None,
        })
    }
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
            let game = value
                .get("game")
                .and_then(toml::Value::as_str)
                .and_then(GameKind::from_name);
            match value.try_into::<TableConfig>() {
                Ok(table) => read.push((i, line, game, Ok(table))),
                Err(e) => read.push((
                    i,
                    line,
                    game,
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
        for (i, line, game, table) in &read {
            match table {
                Ok(table) => {
                    let found = pit.table_problems(*i, table, &mut seen);
                    checked.push((
                        *i,
                        *line,
                        *game,
                        table.name.clone(),
                        found,
                        Some(table.clone()),
                    ));
                }
                Err((name, problem)) => {
                    checked.push((*i, *line, *game, name.clone(), vec![problem.clone()], None))
                }
            }
        }
        for (i, line, game, name, found, table) in checked {
            match table {
                Some(table) if found.is_empty() => pit.tables.push(table),
                config => pit.disabled.push(DisabledTable {
                    index: i + 1,
                    name,
                    line,
                    problems: found,
                    config,
                    game,
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
