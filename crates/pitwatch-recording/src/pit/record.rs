//! The record's section of the pit definition (`[record]`): where checkpoints are witnessed, the
//! retention the site keeps (its jurisdiction's, from `retention.toml`, or longer) and where and
//! when the device record is archived (docs/retention.md).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The record's witnesses, retention and archive (`[record]`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecordConfig {
    /// Folders (another disk, a network share) where each checkpoint is written down too, in
    /// `<record id>.checkpoints`, besides the journal kept beside the database.
    #[serde(default)]
    pub witness: Vec<std::path::PathBuf>,
    /// The jurisdiction whose retention the site keeps (`retention.toml`: `nz`).
    #[serde(default = "default_jurisdiction")]
    pub jurisdiction: String,
    /// Years the site keeps its records, if longer than its jurisdiction's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retention_years: Option<u32>,
    /// The folder archives are written to (`pitwatch archive run`): the venue's archive disk.
    /// By default `archive/` beside the database.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub archive: Option<std::path::PathBuf>,
    /// How old the device record must be, in days, before it may be archived: the live record
    /// keeps at least this much for disputes and reports.
    #[serde(default = "default_archive_after_days")]
    pub archive_after_days: u32,
}

impl Default for RecordConfig {
    fn default() -> Self {
        RecordConfig {
            witness: Vec::new(),
            jurisdiction: default_jurisdiction(),
            retention_years: None,
            archive: None,
            archive_after_days: default_archive_after_days(),
        }
    }
}

fn default_jurisdiction() -> String {
    "nz".to_owned()
}

/// Ninety days: a quarter's disputes, reports and reviews read the live record.
fn default_archive_after_days() -> u32 {
    90
}

/// Record retention by jurisdiction (`retention.toml`).
const RETENTION: &str = include_str!("../retention.toml");

/// One jurisdiction's retention, as `retention.toml` gives it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Jurisdiction {
    name: String,
    years: u32,
    cite: String,
}

fn jurisdictions() -> BTreeMap<String, Jurisdiction> {
    toml::from_str(RETENTION).unwrap_or_default()
}

impl RecordConfig {
    /// The retention the site keeps: its jurisdiction's, or longer where the site says so.
    pub fn retention(&self) -> Result<pitwatch_store::archive::Retention, String> {
        let known = jurisdictions();
        let Some(jurisdiction) = known.get(&self.jurisdiction) else {
            return Err(format!(
                "record.jurisdiction {:?} has no retention on file (known: {})",
                self.jurisdiction,
                known.keys().cloned().collect::<Vec<_>>().join(", ")
            ));
        };
        let years = match self.retention_years {
            Some(years) if years < jurisdiction.years => {
                return Err(format!(
                    "record.retention_years {years} is shorter than {}'s {} years ({})",
                    jurisdiction.name, jurisdiction.years, jurisdiction.cite
                ))
            }
            Some(years) => years,
            None => jurisdiction.years,
        };
        let cite = if years == jurisdiction.years {
            format!("{}: {}", jurisdiction.name, jurisdiction.cite)
        } else {
            format!(
                "the site's own {years} years ({}: {} years, {})",
                jurisdiction.name, jurisdiction.years, jurisdiction.cite
            )
        };
        Ok(pitwatch_store::archive::Retention {
            jurisdiction: self.jurisdiction.clone(),
            years,
            cite,
        })
    }

    /// The folder archives of the record at `db` go to.
    pub fn archive_folder(&self, db: &std::path::Path) -> std::path::PathBuf {
        match &self.archive {
            Some(folder) => folder.clone(),
            None => db
                .parent()
                .unwrap_or_else(|| std::path::Path::new("."))
                .join("archive"),
        }
    }

    pub(super) fn is_default(&self) -> bool {
        *self == RecordConfig::default()
    }
}
