//! The application layer: what a supervisor, a surveillance officer or an administrator can do
//! with a pit, one module per use case, called by both front ends (the `pitwatch` CLI and the
//! desktop shell in `src-tauri`), which only adapt arguments and results.
//!
//! Every command that changes the record first checks the caller's role ([`access`]); a refusal
//! is the error code `forbidden` and is audited. Accounts ([`accounts`]) log people in (throttled,
//! failures audited), create the first administrator of an empty record atomically, and make
//! every later change to an account an administrator's audited act. [`desk`] is the live pit of
//! the desktop app (the monitor, the simulated demo devices, the pit model) with its session.
//!
//! `pitwatch-api` keeps the boundary (the DTOs, their conversions, the error codes) and the
//! machinery (monitor, recorder, replay, reports); this crate decides who may use it.

pub mod access;
pub mod accounts;
pub mod desk;
pub mod incidents;
pub mod reports;

pub use access::{Command, Principal};
