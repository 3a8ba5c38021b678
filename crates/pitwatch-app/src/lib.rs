//! The application layer: what a supervisor, a surveillance officer or an administrator can do
//! with a pit, one module per use case, called by both front ends (the `pitwatch` CLI and the
//! desktop shell in `src-tauri`), which only adapt arguments and results.
//!
//! Every command that changes the record first checks the caller's role ([`access`]); a refusal
//! is the error code `forbidden` and is audited. The use cases:
//!
//! - [`accounts`]: logging in (throttled, failures audited), the first administrator of an empty
//!   record (atomic), and every later change to an account as an administrator's audited act;
//!   [`sessions`]: who is logged in at this workstation, and switching supervisor; [`alarm`]:
//!   the alarm's sound muted and unmuted by someone logged in, audited;
//! - [`incidents`]: the incident list, one incident's evidence, and its workflow (resolved from
//!   a list of resolutions once acknowledged, reopened with a reason);
//! - [`console`]: what a supervisor records that no device sees; [`dealers`]: a dealer signed
//!   in at a table or out of it, from the command line (from the window it is a console entry);
//! - [`replay`]: a table's shoes and a shoe replayed from the record;
//! - [`reviews`]: the access listing (who may do what, from [`access`]'s own table), and the
//!   periodic access review and independent log review signed in the app, overdue as alerts;
//! - [`reports`]: exports; [`evidence`]: an incident's evidence pack, verified offline;
//!   [`handover`]: the shift's handover summary, its sign-off with the
//!   user's password and the incoming supervisor's acceptance, a period signed off once;
//! - [`record`]: the record's verification, status and alerts;
//! - [`reload`]: the pit definition's file applied again while the pit runs (administrators);
//! - [`setup`]: what a workstation runs (a pit definition or the demo, kept apart);
//! - [`surveillance`]: the central database read-only, every workstation, its incidents and
//!   replays (issue 16);
//! - [`live`] and [`pit_model`]: the live pit ([`Desk`]: monitor, simulated demo devices, the
//!   fold of the monitor's events into one tile per table).
//!
//! The modules stand in an order with no circle (tidy's
//! `no_crate_s_modules_use_each_other_in_a_circle`): [`access`], [`pit_model`], [`setup`] and
//! [`state`] (the desk's three parts and the order of their locks) at the bottom, [`live`] (the
//! [`Desk`] itself) above them, and the use cases, `impl Desk` blocks, above `live`.
//!
//! `pitwatch-api` keeps the boundary (the DTOs, their conversions, the error codes, the command
//! list) and the machinery (monitor, recorder, replay, reports); this crate decides who may use it.

pub mod access;
pub mod accounts;
pub mod alarm;
pub mod archive;
pub mod console;
pub mod dealers;
pub mod evidence;
pub mod exposure;
pub mod handover;
pub mod health;
pub mod incidents;
pub mod link_test;
pub mod live;
pub mod pit_model;
pub mod record;
pub mod reload;
pub mod replay;
pub mod reports;
pub mod reviews;
pub mod sessions;
pub mod setup;
pub mod state;
pub mod surveillance;
pub mod tables;
#[cfg(test)]
mod testkit;
pub mod viewed;

pub use access::{Command, Principal};
pub use live::Desk;
pub use pit_model::PitModel;
pub use setup::DeskOptions;
