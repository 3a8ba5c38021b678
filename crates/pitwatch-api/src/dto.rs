//! Data transfer objects: what crosses the IPC boundary to the web front end.
//!
//! Every type here derives `ts_rs::TS`; `ui/src/lib/bindings.ts` is generated from them by
//! [`typescript_bindings`] and committed. The test `bindings_are_current` fails when the committed
//! file is stale; `make bindings` (or `UPDATE_BINDINGS=1 cargo test -p pitwatch-api`) rewrites it.

use serde::Serialize;
use ts_rs::TS;

use crate::pit::{Game, Protocol, TableConfig};

/// The pit at a glance: one tile per table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PitOverview {
    /// The site's name.
    pub site: String,
    /// Whether the tables are the simulated demo pit.
    pub demo: bool,
    /// The tables, in the pit definition's order.
    pub tables: Vec<TableTile>,
}

/// One table's tile in the pit overview.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct TableTile {
    /// The table's name, unique in the pit.
    pub name: String,
    /// The game dealt there.
    pub game: Game,
    /// The rule book it is checked against.
    pub rule_book: String,
    /// The protocol its device speaks.
    pub protocol: Protocol,
    /// How the device is reached, for people (`/dev/ttyUSB0 @ 4800 baud`, `tcp host:port`).
    pub link: String,
    /// The device link's state.
    pub status: LinkStatus,
}

/// The state of a table's device link.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum LinkStatus {
    /// Defined but not being read (monitoring not started).
    NotMonitored,
    /// Connected and reading.
    Connected,
    /// Lost; trying again.
    Reconnecting,
    /// The device reports an error.
    Error,
}

impl From<&TableConfig> for TableTile {
    fn from(table: &TableConfig) -> Self {
        TableTile {
            name: table.name.clone(),
            game: table.game,
            rule_book: table.rules.clone(),
            protocol: Protocol::from(&table.device),
            link: table.describe_link(),
            status: LinkStatus::NotMonitored,
        }
    }
}

/// An error as the front end sees it: a code to switch on and a message for people.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS, thiserror::Error)]
#[error("{message}")]
pub struct ApiError {
    /// What kind of failure, for the UI to act on.
    pub code: ErrorCode,
    /// What happened, in words a supervisor understands.
    pub message: String,
}

/// Kinds of failure the UI distinguishes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// A configuration or input is invalid.
    InvalidInput,
    /// The thing asked for does not exist.
    NotFound,
    /// Something failed inside Pitwatch.
    Internal,
}

/// The TypeScript declarations of every DTO, as committed in `ui/src/lib/bindings.ts`.
pub fn typescript_bindings() -> String {
    let cfg = ts_rs::Config::new().with_large_int("number");
    let decls = [
        PitOverview::decl(&cfg),
        TableTile::decl(&cfg),
        Game::decl(&cfg),
        Protocol::decl(&cfg),
        LinkStatus::decl(&cfg),
        ApiError::decl(&cfg),
        ErrorCode::decl(&cfg),
    ];
    let mut out = String::from(
        "// Generated from the Rust DTOs in crates/pitwatch-api/src/dto.rs. Do not edit:\n\
         // run `make bindings` after changing them.\n",
    );
    for decl in decls {
        out.push('\n');
        out.push_str("export ");
        out.push_str(decl.trim());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn bindings_are_current() {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../ui/src/lib/bindings.ts");
        let generated = typescript_bindings();
        if std::env::var_os("UPDATE_BINDINGS").is_some() {
            std::fs::write(&path, &generated).unwrap();
        }
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            committed == generated,
            "{} is stale: run `make bindings` and commit it",
            path.display()
        );
    }

    #[test]
    fn errors_serialise_as_code_and_message() {
        let error = ApiError {
            code: ErrorCode::NotFound,
            message: "no table BAC-9".into(),
        };
        assert_eq!(
            serde_json::to_string(&error).unwrap(),
            r#"{"code":"not_found","message":"no table BAC-9"}"#
        );
    }
}
