//! Read access audited where it matters (issue 32): who looked at an incident or replayed a
//! shoe, at which workstation and when, in the audit log beside the changes (`incident.view`,
//! `replay.view`). Anyone at the workstation may look at the pit's incidents; a look with nobody
//! logged in is audited as such. The window reads an incident again whenever it changes, so a
//! look is audited once per user and subject within [`AGAIN_AFTER_MS`]; the next look after that
//! is audited again.

use pitwatch_api::dto::ApiError;
use pitwatch_model::Timestamp;
use pitwatch_store::Store;

use crate::access::{detail, Principal};
use crate::live::Desk;

pub use crate::state::workstation::{Viewed, AGAIN_AFTER_MS};

/// Who the audit log names for a look with nobody logged in.
pub const NOBODY: &str = "(nobody logged in)";

/// The audit action of a look at an incident.
pub const INCIDENT_VIEWED: &str = "incident.view";

/// The audit action of a shoe replayed.
pub const REPLAY_VIEWED: &str = "replay.view";

/// Audits a read made at the command line (`pitwatch incident show`, `pitwatch replay --db`)
/// in `store`: by `who` when the command was given a login (`--user`), else by [`NOBODY`], with
/// the workstation, the role and the operating system's account in the detail. Every such read
/// is its own row: a command runs once, it does not refresh as a screen does.
pub fn audit_read(
    store: &mut Store,
    who: Option<&Principal>,
    action: &str,
    subject: &str,
    now: Timestamp,
) -> Result<(), ApiError> {
    let user = who.map_or(NOBODY, |p| p.user.as_str());
    let role = who.map_or("", |p| p.role.as_str());
    let workstation = who.map_or_else(crate::access::workstation, |p| p.workstation.clone());
    let os_user = std::env::var("USER")
        .or_else(|_| std::env::var("LOGNAME"))
        .unwrap_or_default();
    let detail = detail(
        &workstation,
        &[
            ("role", role),
            ("via", "command line"),
            ("os_user", &os_user),
        ],
    );
    let mut batch = store.batch(now)?;
    batch.append_audit(user, action, subject, &detail, now)?;
    batch.commit()?;
    Ok(())
}
/// The audit action of an inspector's read of the incident list (subject: `incidents`).
pub const INCIDENTS_READ: &str = "incidents.list";

impl Desk {
    /// Audits a read by an inspector (every read of theirs is on record, see
    /// [`crate::access`]), once per subject within [`AGAIN_AFTER_MS`] as any look: the window
    /// reads the list again on every change. Nothing for other roles, whose list reads are the
    /// pit's ordinary watching.
    pub(crate) fn audit_inspection(
        &self,
        action: &'static str,
        subject: &str,
    ) -> Result<(), ApiError> {
        let inspector = self
            .workstation
            .logged_in()
            .is_some_and(|p| p.role == pitwatch_store::Role::Inspector);
        if inspector {
            self.audit_view(action, subject)?;
        }
        Ok(())
    }

    /// Audits a look at `subject` (`action`: `incident.view`, `replay.view`) by the user logged
    /// in, or by nobody, unless the same look was audited within [`AGAIN_AFTER_MS`].
    pub(crate) fn audit_view(&self, action: &'static str, subject: &str) -> Result<(), ApiError> {
        let now = self.clock.now();
        let who = {
            let mut seat = self.workstation.seat();
            let who = seat.principal.clone();
            let user = who.as_ref().map_or(NOBODY, |p| p.user.as_str());
            if !seat.viewed.is_new(user, action, subject, now.unix_millis()) {
                return Ok(());
            }
            who
        };
        let user = who.as_ref().map_or(NOBODY, |p| p.user.as_str());
        let role = who.as_ref().map_or("", |p| p.role.as_str());
        let detail = detail(self.workstation.name(), &[("role", role)]);
        let mut store = self.record.store();
        let mut batch = store.batch(now)?;
        batch.append_audit(user, action, subject, &detail, now)?;
        batch.commit()?;
        Ok(())
    }
}
