//! The application API: the one layer both the desktop app and the `pitwatch` CLI call.
//!
//! It owns the pit definition and (in later work) the live monitors, the store and replay. Its
//! public functions take and return the DTOs in [`dto`]; nothing in it knows Tauri, so the
//! desktop shell's commands are one-line adapters and the same behaviour is testable here.

pub mod commands;
pub mod convert;
pub mod dto;
pub mod game;
pub mod lease;
pub mod monitor;
pub mod pit;
pub mod record;
pub mod recorder;
pub mod replay;
pub mod report;
pub mod shuffle;

pub use dto::{ApiError, ErrorCode, PitOverview, TableTile};
pub use pit::{PitConfig, PitConfigError};

/// The application: a pit definition and what is known about its tables.
#[derive(Debug, Clone)]
pub struct Pitwatch {
    pit: PitConfig,
}

impl Pitwatch {
    /// An application watching the pit described by `pit`.
    pub fn new(pit: PitConfig) -> Self {
        Pitwatch { pit }
    }

    /// An application on the built-in demo pit.
    pub fn demo() -> Self {
        Pitwatch::new(PitConfig::demo())
    }

    /// The pit definition in use.
    pub fn pit(&self) -> &PitConfig {
        &self.pit
    }

    /// One tile per table, in the order the pit definition lists them.
    pub fn pit_overview(&self) -> PitOverview {
        PitOverview {
            site: self.pit.site.name.clone(),
            demo: self.pit.demo,
            demo_login: None,
            session: None,
            tables: self.pit.tables.iter().map(TableTile::from).collect(),
            record: dto::RecordStatus::default(),
            idle_lock_seconds: dto::DEFAULT_IDLE_LOCK_SECONDS,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn demo_overview_lists_every_demo_table_in_order() {
        let overview = Pitwatch::demo().pit_overview();
        assert!(overview.demo);
        let names: Vec<&str> = overview.tables.iter().map(|t| t.name.as_str()).collect();
        let demo = PitConfig::demo();
        let expected: Vec<&str> = demo.tables.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, expected);
        assert!(names.len() >= 6, "the demo pit has at least six tables");
    }
}
