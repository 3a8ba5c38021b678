//! What a reloaded pit definition changes, table by table: a table's name is its identity, and
//! only the tables that differ are stopped or started. Pure: it compares two definitions and
//! says what to do, nothing more.

use super::{PitConfig, TableConfig};

/// A table whose definition differs between the running pit and the new file, and in what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChangedTable {
    /// The table's name.
    pub name: String,
    /// What differs, in the order of the table's fields: `game`, `rules`, `decks`, `variant`,
    /// `devices`, `simulated`, `liveness`.
    pub what: Vec<&'static str>,
}

/// What applying a new pit definition to the running one does.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PitDiff {
    /// Tables in the new file that are not running (new, or disabled before and right now),
    /// in the new file's order: started.
    pub added: Vec<String>,
    /// Running tables the new file no longer has, in the running order: stopped.
    pub removed: Vec<String>,
    /// Running tables whose section is now wrong, in the running order: stopped, and shown
    /// disabled with their problems.
    pub disabled: Vec<String>,
    /// Running tables whose definition differs, in the new file's order: stopped and started
    /// again.
    pub changed: Vec<ChangedTable>,
    /// Running tables the new file defines alike, in the new file's order: not touched.
    pub unchanged: Vec<String>,
    /// Settings of the whole pit that differ (`site`, `demo`, `record`, `central`, `clock`): a reload
    /// does not apply them; they take effect at the next start.
    pub at_restart: Vec<&'static str>,
}

impl PitDiff {
    /// Whether applying it stops or starts no table.
    pub fn is_empty(&self) -> bool {
        self.added.is_empty()
            && self.removed.is_empty()
            && self.disabled.is_empty()
            && self.changed.is_empty()
    }

    /// The tables to stop: removed, disabled and changed, in that order.
    pub fn to_stop(&self) -> impl Iterator<Item = &str> {
        self.removed
            .iter()
            .chain(&self.disabled)
            .map(String::as_str)
            .chain(self.changed.iter().map(|c| c.name.as_str()))
    }

    /// The tables to start: changed (again) and added, in that order.
    pub fn to_start(&self) -> impl Iterator<Item = &str> {
        self.changed
            .iter()
            .map(|c| c.name.as_str())
            .chain(self.added.iter().map(String::as_str))
    }
}

impl PitDiff {
    /// What it does, field by field, for the audit row and for people: `added`, `removed`,
    /// `changed` (each with what changed), `disabled`, `unchanged` and `at_restart`, each a
    /// comma-separated list (`-` when empty).
    pub fn fields(&self) -> Vec<(&'static str, String)> {
        let list = |names: &[String]| {
            if names.is_empty() {
                "-".to_owned()
            } else {
                names.join(", ")
            }
        };
        let changed: Vec<String> = self
            .changed
            .iter()
            .map(|c| format!("{} ({})", c.name, c.what.join(" ")))
            .collect();
        let at_restart: Vec<String> = self.at_restart.iter().map(|s| s.to_string()).collect();
        vec![
            ("added", list(&self.added)),
            ("removed", list(&self.removed)),
            ("changed", list(&changed)),
            ("disabled", list(&self.disabled)),
            ("unchanged", list(&self.unchanged)),
            ("at_restart", list(&at_restart)),
        ]
    }
}

/// What differs between two definitions of one table.
fn differences(old: &TableConfig, new: &TableConfig) -> Vec<&'static str> {
    let mut what = Vec::new();
    let mut differs = |name, d: bool| {
        if d {
            what.push(name);
        }
    };
    differs("game", old.game != new.game);
    differs("rules", old.rules != new.rules);
    differs("decks", old.decks != new.decks);
    differs("variant", old.variant != new.variant);
    differs("devices", old.devices != new.devices);
    differs("simulated", old.simulated != new.simulated);
    differs("liveness", old.liveness != new.liveness);
    what
}

/// Compares the running pit with a new definition (`next`, read by [`PitConfig::load`]) table by
/// table, by name.
pub fn diff(running: &PitConfig, next: &PitConfig) -> PitDiff {
    let find = |tables: &[TableConfig], name: &str| tables.iter().position(|t| t.name == name);
    let mut out = PitDiff::default();
    for table in &next.tables {
        match find(&running.tables, &table.name) {
            None => out.added.push(table.name.clone()),
            Some(i) => {
                let what = differences(&running.tables[i], table);
                if what.is_empty() {
                    out.unchanged.push(table.name.clone());
                } else {
                    out.changed.push(ChangedTable {
                        name: table.name.clone(),
                        what,
                    });
                }
            }
        }
    }
    for table in &running.tables {
        if find(&next.tables, &table.name).is_some() {
            continue;
        }
        if next.disabled.iter().any(|d| d.name == table.name) {
            out.disabled.push(table.name.clone());
        } else {
            out.removed.push(table.name.clone());
        }
    }
    let mut differs = |name, d: bool| {
        if d {
            out.at_restart.push(name);
        }
    };
    differs("site", running.site != next.site);
    differs("demo", running.demo != next.demo);
    differs("record", running.record != next.record);
    differs("central", running.central != next.central);
    differs("clock", running.clock != next.clock);
    out
}

#[cfg(test)]
mod tests;
