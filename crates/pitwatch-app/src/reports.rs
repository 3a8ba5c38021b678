//! Reports: who may export which (every role), and the audit of each export with its actor and
//! workstation. Rendering is `pitwatch_api::report`'s; writing the file is the front end's.

use pitwatch_api::ApiError;
use pitwatch_model::Timestamp;
use pitwatch_store::Store;

use crate::access::{detail, require, Command, Principal};

/// Checks that `who` may run `command` (an export) on `subject` before the report is built.
pub fn may_export(
    store: &mut Store,
    who: &Principal,
    command: Command,
    subject: &str,
    now: Timestamp,
) -> Result<(), ApiError> {
    require(store, who, command, subject, now)
}

/// Audits that `who` exported `subject` to `written` (`incident.export`, `shoe.export`,
/// `shift.export` by `command`).
pub fn exported(
    store: &mut Store,
    who: &Principal,
    command: Command,
    subject: &str,
    written: &str,
    now: Timestamp,
) -> Result<(), ApiError> {
    let action = match command {
        Command::ExportShoe => "shoe.export",
        Command::ExportShift => "shift.export",
        _ => "incident.export",
    };
    let detail = detail(&who.workstation, &[("written", written)]);
    let mut batch = store.batch(now)?;
    batch.append_audit(&who.user, action, subject, &detail, now)?;
    batch.commit()?;
    Ok(())
}

/// `who` signs off the handover of `shift` with `note` (supervisors and administrators).
pub fn sign_off(
    store: &mut Store,
    who: &Principal,
    shift: &pitwatch_api::report::Shift,
    note: &str,
    now: Timestamp,
) -> Result<(), ApiError> {
    require(
        store,
        who,
        Command::SignOffShift,
        &format!("shift {} to {}", shift.from, shift.to),
        now,
    )?;
    pitwatch_api::report::record_sign_off(store, &who.user, shift, note, now)?;
    Ok(())
}
