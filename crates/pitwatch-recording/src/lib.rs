//! The recording machinery both front ends run on: what happens between a device's bytes and
//! the record, and what is read back out of the record.
//!
//! - [`pit`]: the pit definition (the site, each table's game, rule book and device links), read
//!   from TOML with every problem listed at once; the built-in demo pit.
//! - [`recorder`]: one table's pipeline (bytes, frames, events, rounds, incidents), planned
//!   without I/O and written in one batch; [`monitor`]: every table's device read live, one
//!   group-committing writer, its spool, and what is published once it is on record; [`lease`]:
//!   one writer per table; [`liveness`]: a device offline, never connected or silent as an
//!   alarm (a pure deadline state machine).
//! - [`clock`]: clock truth, the host clock's synchronisation state sampled, judged against a
//!   limit and put on record, for the alert and every incident report.
//! - [`probe`]: a connection test, one device's link read and decoded for a few seconds before
//!   anything is saved (nothing recorded).
//! - [`record`]: the record as the application opens it (the installation's key and witnesses,
//!   verification gating recording, segments).
//! - [`replay`]: a table's shoes rebuilt from the raw bytes on record; [`shuffle`]: each shoe's
//!   shuffle judged from the record.
//! - [`report`]: incident, shoe and shift reports as [`pitwatch_report::Document`]s.
//!
//! Nothing here names a game: a table's game, its book, engine, rounds and views come from the
//! registry, `pitwatch-games`. Nothing here knows the window: the DTOs, their conversions and the error codes the window
//! sees are `pitwatch-api`'s, above this crate, and the use cases are `pitwatch-app`'s.

pub mod archived;
pub mod clock;
pub mod lease;
pub mod liveness;
pub mod monitor;
pub mod pit;
pub mod probe;
pub mod record;
pub mod recorder;
pub mod replay;
pub mod report;
pub mod shuffle;

pub use pit::{PitConfig, PitConfigError};
