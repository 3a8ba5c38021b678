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
