//! Who may do what: the roles, the commands that change the record, and the one check every such
//! command makes first, for the CLI and the desktop alike.
//!
//! | role | may |
//! |---|---|
//! | supervisor | export, note, acknowledge, resolve, console entries (a dealer signed in or out among them), shift sign-off, mute the alarm, read the dealers' figures |
//! | surveillance | export, note, read the audit log, mute the alarm, read the house's exposure |
//! | admin | what a supervisor does, users, the audit log, the house's exposure, setting up the pit (tables, devices, the pit definition reloaded), the access listing and its periodic review; never the independent review of the audit log |
//! | inspector | read only: export every report, read the audit log, the users and the access listing, read the house's exposure, sign the access review and the independent log review; every command that changes the record is refused, and every read is audited |
//!
//! The inspector (a regulator's or an internal auditor's account) reads the house's exposure
//! because it is a read like any other, already audited for everyone, and the inspector is not
//! the pit (the reason the pit may not see it). Signing a review is the one step an inspector
//! writes: it changes nothing but says, on record, that they looked. An administrator may not
//! sign the log review, which reviews what administrators did (`review_log` is the one command
//! an administrator lacks). Every command an inspector runs is audited as [`INSPECTED`] besides
//! what the command itself audits, and their looks at incidents and replays are audited every
//! time, not once in ten minutes (`crate::viewed`).
//!
//! Watching needs no role: the pit, the incident list, one incident and a shoe's replay are
//! reads, which the window shows to whoever stands at the workstation, as before.
//! Recording what devices send (the desktop's and `pitwatch monitor`'s monitor, `pitwatch
//! import` of a capture) is the machine's work, not a person's command, and needs none. A refused
//! command is the error code `forbidden`, and the refusal is itself an audit row
//! (`access.forbidden`: who, which command, with their role and workstation), so a curious
//! employee trying buttons that are not theirs leaves a trace.
//!
//! Whether a session is still live ([`check_live`]) is read here too, from the record: one
//! user holds one session at a time (see the sessions module's notes).

use pitwatch_api::{ApiError, ErrorCode};
use pitwatch_model::Timestamp;
use pitwatch_store::{Role, Store, LOGIN};

/// The audit action of a refused command (the subject is the command's name).
pub const FORBIDDEN: &str = "access.forbidden";

/// The audit action of a command an inspector ran (the subject is the command's name): every
/// read of theirs is on record.
pub const INSPECTED: &str = "access.inspected";

/// Every command that changes the record or reveals what only some roles may see.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Command {
    /// Acknowledge an incident.
    Acknowledge,
    /// Add a note to an incident.
    AddNote,
    /// Resolve an incident.
    Resolve,
    /// Reopen a resolved incident.
    Reopen,
    /// Record a console entry (something no device sees) at a table.
    RecordConsole,
    /// Export an incident's report.
    ExportIncident,
    /// Export a shoe's report.
    ExportShoe,
    /// Export the shift handover report.
    ExportShift,
    /// Sign off a shift's handover.
    SignOffShift,
    /// Add a user.
    AddUser,
    /// Change a user's role.
    ChangeRole,
    /// Reset a user's password.
    ResetPassword,
    /// Deactivate or reactivate a user.
    SetActive,
    /// List the users.
    ListUsers,
    /// Read the audit log (failed logins, refusals, every action).
    ViewAudit,
    /// Set up the pit: its tables and devices, the pit definition reloaded.
    ConfigurePit,
    /// Mute or unmute the alarm's sound at the workstation (every role; nobody logged in may
    /// not, see [`crate::alarm`]).
    MuteAlarm,
    /// Read the house's exposure at a table (each wager's worth from the cards left): for
    /// surveillance and administrators only, never the pit (issue 29), every read audited.
    ViewExposure,
    /// Read the access listing: every user, their role, status and what the role allows.
    AccessListing,
    /// Sign the periodic review of the access listing.
    ReviewAccess,
    /// Sign the independent review of the audit log (never an administrator).
    ReviewLog,
    /// Archive old device records to the site's archive folder (administrators only).
    ArchiveRecord,
    /// Read the dealers' figures at a table (each dealer's rounds, pace and errors; issue 30):
    /// for supervisors and administrators only, every look audited.
    ViewDealers,
}

impl Command {
    /// Every command, for tests and documentation.
    pub const ALL: [Command; 23] = [
        Command::Acknowledge,
        Command::AddNote,
        Command::Resolve,
        Command::Reopen,
        Command::RecordConsole,
        Command::ExportIncident,
        Command::ExportShoe,
        Command::ExportShift,
        Command::SignOffShift,
        Command::AddUser,
        Command::ChangeRole,
        Command::ResetPassword,
        Command::SetActive,
        Command::ListUsers,
        Command::ViewAudit,
        Command::ConfigurePit,
        Command::MuteAlarm,
        Command::ViewExposure,
        Command::AccessListing,
        Command::ReviewAccess,
        Command::ReviewLog,
        Command::ArchiveRecord,
        Command::ViewDealers,
    ];

    /// The command's name, as audited and as the desktop's command list names it.
    pub const fn name(self) -> &'static str {
        match self {
            Command::Acknowledge => "acknowledge",
            Command::AddNote => "add_note",
            Command::Resolve => "resolve",
            Command::Reopen => "reopen",
            Command::RecordConsole => "record_console",
            Command::ExportIncident => "export_incident",
            Command::ExportShoe => "export_shoe",
            Command::ExportShift => "export_shift",
            Command::SignOffShift => "sign_off_shift",
            Command::AddUser => "add_user",
            Command::ChangeRole => "change_role",
            Command::ResetPassword => "reset_password",
            Command::SetActive => "set_active",
            Command::ListUsers => "users",
            Command::ViewAudit => "audit",
            Command::ConfigurePit => "configure_pit",
            Command::MuteAlarm => "mute_alarm",
            Command::ViewExposure => "view_exposure",
            Command::AccessListing => "access_listing",
            Command::ReviewAccess => "review_access",
            Command::ReviewLog => "review_log",
            Command::ArchiveRecord => "archive_record",
            Command::ViewDealers => "view_dealers",
        }
    }

    /// Whether `role` may run this command.
    pub const fn allowed(self, role: Role) -> bool {
        use Command as C;
        match role {
            // The log review is independent of the administrators whose actions it reviews.
            Role::Admin => !matches!(self, C::ReviewLog),
            Role::Inspector => matches!(
                self,
                C::ExportIncident
                    | C::ExportShoe
                    | C::ExportShift
                    | C::ListUsers
                    | C::ViewAudit
                    | C::ViewExposure
                    | C::AccessListing
                    | C::ReviewAccess
                    | C::ReviewLog
            ),
            Role::Supervisor => matches!(
                self,
                C::Acknowledge
                    | C::AddNote
                    | C::Resolve
                    | C::Reopen
                    | C::RecordConsole
                    | C::ExportIncident
                    | C::ExportShoe
                    | C::ExportShift
                    | C::SignOffShift
                    | C::MuteAlarm
                    | C::ViewDealers
            ),
            Role::Surveillance => matches!(
                self,
                C::AddNote
                    | C::ExportIncident
                    | C::ExportShoe
                    | C::ExportShift
                    | C::ViewAudit
                    | C::MuteAlarm
                    | C::ViewExposure
                    | C::ReviewLog
            ),
        }
    }
}

/// Someone authenticated, at a workstation: every use case takes one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Principal {
    /// The user's name.
    pub user: String,
    /// Their role as the record held it when they authenticated.
    pub role: Role,
    /// Where they work (the host's name, or `PITWATCH_WORKSTATION`).
    pub workstation: String,
}

impl Principal {
    /// Who acts, and where, as the audit log keeps it.
    pub fn actor(&self) -> pitwatch_store::Actor {
        pitwatch_store::Actor::at(&self.user, &self.workstation)
    }

    /// The session as the window sees it.
    pub(crate) fn session(&self) -> pitwatch_api::dto::Session {
        pitwatch_api::dto::Session {
            user: self.user.clone(),
            role: self.role.as_str().to_owned(),
        }
    }
}

/// The JSON detail of a login or a refusal: where, and what else is worth keeping.
pub(crate) fn detail(workstation: &str, more: &[(&str, &str)]) -> String {
    // The same form as every other step's (the user is a column of its own).
    pitwatch_store::Actor::at("", workstation).detail(more)
}

/// Checks that `who` may run `command` (on `target`, which the audit names). A refusal is
/// audited as [`FORBIDDEN`] and answered with [`ErrorCode::Forbidden`].
pub fn require(
    store: &mut Store,
    who: &Principal,
    command: Command,
    target: &str,
    now: Timestamp,
) -> Result<(), ApiError> {
    if command.allowed(who.role) {
        if who.role == Role::Inspector {
            let detail = detail(
                &who.workstation,
                &[("role", who.role.as_str()), ("target", target)],
            );
            let mut batch = store.batch(now)?;
            batch.append_audit(&who.user, INSPECTED, command.name(), &detail, now)?;
            batch.commit()?;
        }
        return Ok(());
    }
    let detail = detail(
        &who.workstation,
        &[("role", who.role.as_str()), ("target", target)],
    );
    let mut batch = store.batch(now)?;
    batch.append_audit(&who.user, FORBIDDEN, command.name(), &detail, now)?;
    batch.commit()?;
    Err(ApiError::new(
        ErrorCode::Forbidden,
        format!(
            "{} ({}) may not {}; the attempt is recorded",
            who.user,
            who.role.as_str(),
            describe(command)
        ),
    ))
}

fn describe(command: Command) -> &'static str {
    match command {
        Command::Acknowledge => "acknowledge incidents",
        Command::AddNote => "add notes",
        Command::Resolve => "resolve incidents",
        Command::Reopen => "reopen incidents",
        Command::RecordConsole => "record console entries",
        Command::ExportIncident | Command::ExportShoe | Command::ExportShift => "export reports",
        Command::SignOffShift => "sign off a shift",
        Command::AddUser => "add users",
        Command::ChangeRole => "change roles",
        Command::ResetPassword => "reset passwords",
        Command::SetActive => "deactivate or reactivate users",
        Command::ListUsers => "list users",
        Command::ViewAudit => "read the audit log",
        Command::ConfigurePit => "set up the pit (its tables and devices)",
        Command::MuteAlarm => "mute the alarm",
        Command::ViewExposure => "read the house's exposure (surveillance only)",
        Command::AccessListing => "read the access listing",
        Command::ReviewAccess => "sign the access review",
        Command::ReviewLog => {
            "sign the audit log's review (an independent reviewer's: surveillance or an inspector)"
        }
        Command::ArchiveRecord => "archive the record (administrators only)",
        Command::ViewDealers => "read the dealers' figures (supervisors and administrators only)",
    }
}

/// The audit actions that begin or end a session: the newest of them about a user says whether
/// they hold a live session (a `session.login`) or none.
pub const SESSION_MARKS: [&str; 3] = [LOGIN, LOGOUT, SESSION_ENDED];

/// The audit action of a logout (the user's own, or the window's lock after it sat idle).
pub const LOGOUT: &str = "session.logout";

/// The audit action of a session ended because its user logged in elsewhere: written in the
/// same transaction as the new `session.login`, by the user, its detail naming the new
/// workstation, the session ended (`ended_session`, its login's audit id) and where it was
/// (`ended_workstation`).
pub const SESSION_ENDED: &str = "session.ended";

/// The workstation an audit row's detail names (`unknown` if none).
pub(crate) fn workstation_of(detail: &str) -> String {
    serde_json::from_str::<serde_json::Value>(detail)
        .ok()
        .and_then(|d| d.get("workstation")?.as_str().map(str::to_owned))
        .unwrap_or_else(|| "unknown".into())
}

/// Whether session `session` of `user` (the id of its login's audit row) is still live: no login
/// as `user` came after it. If another did, the error says where and when (`unauthorised`), so
/// the desk that held it can tell its user why they must log in again.
pub fn check_live(store: &Store, user: &str, session: i64) -> Result<(), ApiError> {
    let Some(newest) = store.latest_audit(user, &[LOGIN])? else {
        return Ok(());
    };
    if newest.id <= session {
        return Ok(());
    }
    let ended_by = store
        .audit_entries_about(SESSION_ENDED, user)?
        .into_iter()
        .find(|e| {
            serde_json::from_str::<serde_json::Value>(&e.detail)
                .ok()
                .and_then(|d| d.get("ended_session")?.as_str()?.parse::<i64>().ok())
                == Some(session)
        })
        .unwrap_or(newest);
    Err(ApiError::new(
        ErrorCode::Unauthorised,
        format!(
            "the session of {user:?} here was ended by a login as {user:?} at workstation {} at              {}: one user holds one session at a time; log in again to continue here (which \
             ends that one)",
            workstation_of(&ended_by.detail),
            ended_by.at
        ),
    ))
}

/// This workstation's name: `PITWATCH_WORKSTATION`, else the host's name, else `unknown`.
pub fn workstation() -> String {
    let env = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
    env("PITWATCH_WORKSTATION")
        .or_else(|| {
            std::fs::read_to_string("/proc/sys/kernel/hostname")
                .ok()
                .map(|h| h.trim().to_owned())
                .filter(|h| !h.is_empty())
        })
        .or_else(|| env("HOSTNAME"))
        .or_else(|| env("COMPUTERNAME"))
        .unwrap_or_else(|| "unknown".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_roles_are_as_the_issue_gives_them() {
        use Command as C;
        let may = |role: Role| -> Vec<&str> {
            Command::ALL
                .iter()
                .filter(|c| c.allowed(role))
                .map(|c| c.name())
                .collect()
        };
        assert_eq!(
            may(Role::Surveillance),
            [
                "add_note",
                "export_incident",
                "export_shoe",
                "export_shift",
                "audit",
                "mute_alarm",
                "view_exposure",
                "review_log"
            ]
        );
        assert_eq!(
            may(Role::Inspector),
            [
                "export_incident",
                "export_shoe",
                "export_shift",
                "users",
                "audit",
                "view_exposure",
                "access_listing",
                "review_access",
                "review_log"
            ]
        );
        // The log review is independent of the administrators.
        assert!(!C::ReviewLog.allowed(Role::Admin));
        // The pit never sees the exposure (a count shown to the pit invites shuffling away
        // shoes that favour the players).
        assert!(!C::ViewExposure.allowed(Role::Supervisor));
        // A dealer's figures are the pit's supervisors' and administrators' only (issue 30).
        assert!(C::ViewDealers.allowed(Role::Supervisor) && C::ViewDealers.allowed(Role::Admin));
        assert!(!C::ViewDealers.allowed(Role::Surveillance));
        assert!(!C::ViewDealers.allowed(Role::Inspector));
        for cannot in [C::Acknowledge, C::Resolve, C::Reopen, C::RecordConsole] {
            assert!(!cannot.allowed(Role::Surveillance), "{cannot:?}");
        }
        for admin_only in [
            C::AddUser,
            C::ChangeRole,
            C::ResetPassword,
            C::SetActive,
            C::ListUsers,
            C::ConfigurePit,
            C::AccessListing,
            C::ReviewAccess,
        ] {
            assert!(!admin_only.allowed(Role::Supervisor), "{admin_only:?}");
            assert!(!admin_only.allowed(Role::Surveillance), "{admin_only:?}");
        }
        assert_eq!(may(Role::Admin).len(), Command::ALL.len() - 1);
        for c in Command::ALL {
            if c.allowed(Role::Supervisor) {
                assert!(
                    c.allowed(Role::Admin),
                    "an admin does what a supervisor does"
                );
            }
        }
    }
}
