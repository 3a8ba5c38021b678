//! The desk's state, in three parts, each owning its locks behind a small API: [`record`] (the
//! record: the desk's connection to the store, how far it was verified, what is wrong with it),
//! [`workstation`] (who is logged in here, whether they muted the alarm, the looks audited
//! lately) and [`pit`] (the running pit: the tables running, the live model, the updates to the
//! window, the monitor and the threads beside it). [`crate::live::Desk`] holds one of each; the
//! use cases (`impl Desk` blocks in the modules above `live`) go through these parts and never
//! the other way: nothing here names the desk or a use case. Beside them, [`exposure`]: every
//! table's exposure followed live for surveillance, and [`pace`]: every table's pace alerts
//! followed live for the supervisors, each on a thread and connection of its own (each one's
//! lock is taken alone).
//!
//! Lock order. Where two locks are held together they are taken in this order, never the
//! reverse: the pit's change lock (`pit::LivePit::one_change_at_a_time`), the pit's devices
//! (the monitor, `pit::LivePit::with_monitor`), the workstation's seat
//! (`workstation::Workstation::seat`), the store (`record::Record::store`), the pit's
//! tables running (`pit::LivePit::running`), the live model (`pit::LivePit::model`); the
//! record's verification marks and alerts are taken last and alone. Sending an update takes no
//! lock.

use std::sync::{Mutex, MutexGuard};

use pitwatch_api::dto::{ApiError, ErrorCode};

pub mod exposure;
pub mod pace;
pub mod pit;
pub mod record;
pub mod workstation;

/// `mutex`'s guard, even if a thread panicked holding it.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic in another thread must not take the desk down with it: the data is still usable.
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// An internal error with `message`.
pub(crate) fn internal(message: impl Into<String>) -> ApiError {
    ApiError::new(ErrorCode::Internal, message)
}
