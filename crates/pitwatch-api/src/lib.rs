//! The window's boundary: what crosses IPC between the desktop's web front end and the Rust
//! side, and what both front ends show.
//!
//! - [`dto`]: the data transfer objects (every one derives `ts_rs::TS`; `ui/src/lib/bindings.ts`
//!   is generated from them), the error codes of `{code, message}` errors ([`ApiError`],
//!   [`ErrorCode`]) and the `pit-update` event's payload;
//! - [`games`]: the boundary's registry of games, one module per game (its DTOs and conversions)
//!   and the unions tagged by `game` that carry them; [`bindings`]: `ui/src/lib/bindings.ts`
//!   generated from the DTOs;
//! - [`commands`]: the desktop's command list (`ui/src/lib/commands.ts` is generated from it);
//! - [`convert`]: the core's and the machinery's types as the front ends show them (round results,
//!   events in words, incident rows, frame bytes).
//!
//! The machinery (the pit definition, monitor, recorder, record, replay, reports) is
//! `pitwatch-recording`, below this crate; the use cases are `pitwatch-app`, above it. Nothing
//! here knows Tauri, so the desktop shell's commands are one-line adapters.

pub mod bindings;
pub mod commands;
pub mod convert;
pub mod dto;
pub mod games;

pub use dto::{ApiError, ErrorCode, PitOverview, TableTile};
use pitwatch_recording::PitConfig;

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
