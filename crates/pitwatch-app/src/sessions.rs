//! Sessions at the workstation: who is logged in (one person at a time; logging in as someone
//! else is the shift change's "switch supervisor"), the first administrator of a new pit, and
//! the administrator's user management, each a call into [`crate::accounts`].
//!
//! **One session per user.** A user holds one live session at a time across every workstation
//! (the desktops and the CLI share the record). A login *ends* the session it replaces rather
//! than being refused: the control a casino IT audit asks for is "concurrent sessions
//! prevented", and both choices meet it, but refusing would let a session left open on an
//! unattended workstation (or one whose process died, which never logs out) lock its user out
//! until someone walks over to it, and an attacker holding a stolen session could keep the real
//! user out. Ending the old one leaves the person who proves the password in control, and the
//! handover is on record: the new `session.login` and a `session.ended` naming the session
//! ended and its workstation are one write transaction ([`accounts::begin_session`]). The
//! record is the truth shared across processes, as for throttling: every command of a desk
//! checks that no login as its user came after its own ([`accounts::check_live`]); if one did,
//! the seat is cleared and the command refused (`unauthorised`) with where and when the new
//! login was. A logout, and the window's lock after it sat idle (which logs out), frees the
//! session; a CLI command is a login of its own, so it ends its user's desktop session.

use pitwatch_api::dto::{ApiError, AuditRow, ErrorCode, Session, UserRow};

use crate::accounts;
use crate::live::Desk;

/// User `name` as the record now has them.
fn user_now(store: &pitwatch_store::Store, name: &str) -> Result<UserRow, ApiError> {
    let user = store
        .users()?
        .into_iter()
        .find(|u| u.name == name)
        .ok_or_else(|| ApiError::new(ErrorCode::NotFound, format!("no user named {name:?}")))?;
    accounts::user_row(store, user)
}

impl Desk {
    /// Logs `user` in at this workstation (audited; failures audited and throttled, see
    /// [`accounts::login`]). Whoever was logged in before is logged out first (switching
    /// supervisor at a shift change).
    pub fn login(&self, user: &str, password: &str) -> Result<Session, ApiError> {
        let now = self.clock.now();
        let login = {
            let mut store = self.record.store();
            accounts::begin_session(
                &self.policy(),
                &mut store,
                user,
                password,
                self.workstation.name(),
                now,
            )?
        };
        self.switch_to(login, now)
    }

    /// Sets `user`'s own password (`old` checked as a login's is, `new` under the password
    /// policy) and logs them in: how a password past [`accounts::MAX_PASSWORD_AGE`] is replaced.
    /// Audited as `user.password` by the user.
    pub fn change_own_password(
        &self,
        user: &str,
        old: &str,
        new: &str,
    ) -> Result<Session, ApiError> {
        let now = self.clock.now();
        let login = {
            let mut store = self.record.store();
            accounts::change_own_password_session(
                &mut store,
                user,
                old,
                new,
                self.workstation.name(),
                now,
            )?
        };
        self.switch_to(login, now)
    }

    /// The access policy of this pit (the demo's supervisor is exempt, see
    /// [`accounts::Policy::DEMO`]).
    pub(crate) fn policy(&self) -> accounts::Policy {
        if self.pit.demo {
            accounts::Policy::DEMO
        } else {
            accounts::Policy::STANDARD
        }
    }

    /// Makes `login` the session, logging out whoever it replaces.
    fn switch_to(
        &self,
        login: accounts::Login,
        now: pitwatch_model::Timestamp,
    ) -> Result<Session, ApiError> {
        let principal = login.principal;
        let mut seat = self.workstation.seat();
        let previous = seat.principal.replace(principal.clone());
        let previous_session = seat.session.replace(login.session);
        if let Some(previous) = previous {
            // A new session starts with the sound on: the mute was the one before's.
            self.end_mute(&mut seat, &previous, "login", now)?;
            // The one before is logged out unless it is the same user's (the new login ended it,
            // on record) or a login elsewhere had already ended it.
            let live = {
                let store = self.record.store();
                previous_session
                    .is_none_or(|id| accounts::check_live(&store, &previous.user, id).is_ok())
            };
            if previous.user != principal.user && live {
                accounts::logout(&mut self.record.store(), &previous, now)?;
            }
        }
        Ok(principal.session())
    }

    /// Logs the current user out (audited), unless a login as them elsewhere has already ended
    /// their session here (then the seat is only cleared: the record says how it ended).
    pub fn logout(&self) -> Result<(), ApiError> {
        let mut seat = self.workstation.seat();
        let session = seat.session.take();
        if let Some(principal) = seat.principal.take() {
            let now = self.clock.now();
            let live = {
                let store = self.record.store();
                session.is_none_or(|id| accounts::check_live(&store, &principal.user, id).is_ok())
            };
            let reason = if live { "logout" } else { "session_ended" };
            self.end_mute(&mut seat, &principal, reason, now)?;
            if live {
                accounts::logout(&mut self.record.store(), &principal, now)?;
            }
        }
        Ok(())
    }

    /// Adds a user with `role` (`supervisor`, `surveillance` or `admin`) and `password`. Only a
    /// logged-in admin may; audited with the admin as the actor (`user.add`).
    pub fn add_user(&self, name: &str, role: &str, password: &str) -> Result<UserRow, ApiError> {
        let who = self.principal()?;
        let role = accounts::parse_role(role)?;
        accounts::add_user(
            &mut self.record.store(),
            &who,
            name,
            role,
            password,
            self.clock.now(),
        )
    }

    /// Gives user `name` the role `role`; only a logged-in admin may, and never so that no active
    /// administrator is left. Audited with the admin and the workstation (`user.role`).
    pub fn change_role(&self, name: &str, role: &str) -> Result<UserRow, ApiError> {
        let who = self.principal()?;
        let role = accounts::parse_role(role)?;
        let mut store = self.record.store();
        accounts::change_role(&mut store, &who, name, role, self.clock.now())?;
        user_now(&store, name)
    }

    /// Sets user `name`'s password (the policy applies); only a logged-in admin may. Audited
    /// without the password (`user.password`).
    pub fn reset_password(&self, name: &str, password: &str) -> Result<UserRow, ApiError> {
        let who = self.principal()?;
        let mut store = self.record.store();
        accounts::reset_password(&mut store, &who, name, password, self.clock.now())?;
        user_now(&store, name)
    }

    /// Deactivates user `name` (they can no longer log in; what they did stays on record) or
    /// reactivates them; only a logged-in admin may, and never the last active administrator.
    /// Audited (`user.active`).
    pub fn set_active(&self, name: &str, active: bool) -> Result<UserRow, ApiError> {
        let who = self.principal()?;
        let mut store = self.record.store();
        accounts::set_active(&mut store, &who, name, active, self.clock.now())?;
        user_now(&store, name)
    }

    /// Every user of this pit's database (name, role, when added, whether active), by name;
    /// never a password hash. Only a logged-in admin may list them.
    pub fn users(&self) -> Result<Vec<UserRow>, ApiError> {
        let who = self.principal()?;
        accounts::users(&mut self.record.store(), &who, self.clock.now())
    }

    /// The newest `limit` rows of the audit log (only those about logins and refusals when
    /// `access_only`), newest first; administrators and surveillance only.
    pub fn audit(&self, access_only: bool, limit: u32) -> Result<Vec<AuditRow>, ApiError> {
        let who = self.principal()?;
        let actions: &[&str] = if access_only {
            &accounts::ACCESS_ACTIONS
        } else {
            &[]
        };
        accounts::audit_log(
            &mut self.record.store(),
            &who,
            actions,
            limit,
            self.clock.now(),
        )
    }

    /// Whether this is a first run: a real pit (not the demo) whose record has no users at all,
    /// so nobody could log in. The window then asks for the first administrator.
    pub fn needs_first_admin(&self) -> Result<bool, ApiError> {
        Ok(!self.pit.demo && accounts::needs_first_admin(&self.record.store())?)
    }

    /// Creates the first administrator of a real pit whose record has no users, and logs them in
    /// (see [`accounts::create_first_admin`]: atomic, refused once any user exists). Refused on
    /// the demo pit.
    pub fn create_first_admin(&self, name: &str, password: &str) -> Result<Session, ApiError> {
        if self.pit.demo {
            return Err(ApiError::new(
                ErrorCode::Conflict,
                "the demo pit has its own supervisor; no first administrator is needed",
            ));
        }
        let login = accounts::create_first_admin_session(
            &mut self.record.store(),
            name,
            password,
            self.workstation.name(),
            self.clock.now(),
        )?;
        let mut seat = self.workstation.seat();
        seat.principal = Some(login.principal.clone());
        seat.session = Some(login.session);
        Ok(login.principal.session())
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use pitwatch_api::dto::{AuditRow, ConsoleEntry, ErrorCode, Session, ShiftQuery, UserRow};
    use pitwatch_model::Timestamp;

    use crate::live::Desk;
    use crate::setup::DeskOptions;
    use crate::testkit::*;

    #[test]
    fn only_an_admin_adds_users_and_each_addition_is_audited() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let db = dir.path().join("users.db");
        let desk = real_desk(&db);
        desk.add_user("sue", "supervisor", SUP)
            .expect("a supervisor");
        desk.logout().expect("logout");
        let refused = desk
            .add_user("bob", "supervisor", BOB)
            .expect_err("nobody is logged in");
        assert_eq!(refused.code, ErrorCode::Unauthorised);
        desk.login("sue", SUP).expect("the supervisor");
        let refused = desk
            .add_user("bob", "supervisor", BOB)
            .expect_err("a supervisor may not add users");
        assert_eq!(refused.code, ErrorCode::Forbidden);
        desk.login("alice", ALICE).expect("the admin");
        let added = desk
            .add_user(" bob ", "surveillance", BOB)
            .expect("an admin adds a user");
        assert_eq!(
            added,
            UserRow {
                name: "bob".into(),
                role: "surveillance".into(),
                created_at: added.created_at.clone(),
                active: true,
                password_set_at: Some(added.created_at.clone()),
                last_login_at: None,
                may: [
                    "add_note",
                    "export_incident",
                    "export_shoe",
                    "export_shift",
                    "audit",
                    "mute_alarm",
                    "view_exposure",
                    "review_log"
                ]
                .map(String::from)
                .to_vec(),
            }
        );
        for (name, role, password) in [
            ("carol", "croupier", "carol sings in the choir"),
            ("carol", "supervisor", "short"),
            ("carol", "supervisor", "password1234"),
            ("bob", "supervisor", BOB),
            ("", "supervisor", "nobody at all is here tonight"),
        ] {
            let error = desk.add_user(name, role, password).expect_err("refused");
            assert_eq!(
                error.code,
                ErrorCode::InvalidInput,
                "{name} {role}: {error}"
            );
        }
        let session = desk.login("bob", BOB).expect("the new user logs in");
        assert_eq!(session.role, "surveillance");
        desk.stop();
        let store = test_store(&db);
        let added: Vec<(String, String)> = store
            .audit_entries("user.add")
            .expect("audit")
            .into_iter()
            .map(|e| (e.user, e.subject))
            .collect();
        assert_eq!(
            added,
            [
                ("alice".to_owned(), "sue".to_owned()),
                ("alice".to_owned(), "bob".to_owned())
            ],
            "each addition names the admin who made it"
        );
        let forbidden = store
            .audit_entries(crate::access::FORBIDDEN)
            .expect("audit");
        assert_eq!(forbidden.len(), 1);
        assert_eq!(
            (forbidden[0].user.as_str(), forbidden[0].subject.as_str()),
            ("sue", "add_user")
        );
    }

    #[test]
    fn only_an_admin_lists_users_with_their_roles_and_dates() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let db = dir.path().join("list.db");
        let desk = real_desk(&db);
        desk.add_user("sue", "supervisor", SUP)
            .expect("a supervisor");
        let added = desk
            .add_user("bob", "surveillance", BOB)
            .expect("an admin adds a user");
        desk.logout().expect("logout");
        let refused = desk.users().expect_err("nobody is logged in");
        assert_eq!(refused.code, ErrorCode::Unauthorised);
        desk.login("sue", SUP).expect("the supervisor");
        let refused = desk.users().expect_err("a supervisor may not list users");
        assert_eq!(refused.code, ErrorCode::Forbidden);
        desk.login("alice", ALICE).expect("the admin");
        let users = desk.users().expect("an admin lists users");
        desk.stop();
        let names: Vec<(&str, &str)> = users
            .iter()
            .map(|u| (u.name.as_str(), u.role.as_str()))
            .collect();
        assert_eq!(
            names,
            [
                ("alice", "admin"),
                ("bob", "surveillance"),
                ("sue", "supervisor")
            ]
        );
        let bob = users.iter().find(|u| u.name == "bob").expect("bob");
        assert_eq!(bob, &added, "the list says what adding returned");
        assert!(
            users
                .iter()
                .all(|u| u.created_at.parse::<Timestamp>().is_ok()),
            "{users:?}"
        );
    }

    #[test]
    fn an_admin_changes_roles_resets_passwords_and_deactivates_from_the_desk() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let db = dir.path().join("manage.db");
        let desk = real_desk(&db);
        desk.add_user("sue", "supervisor", SUP)
            .expect("a supervisor");
        let sue = desk
            .change_role("sue", "surveillance")
            .expect("an admin changes a role");
        assert_eq!(sue.role, "surveillance");
        let weak = desk
            .reset_password("sue", "password1234")
            .expect_err("the policy applies to resets");
        assert_eq!(weak.code, ErrorCode::InvalidInput);
        desk.reset_password("sue", BOB).expect("a reset");
        let sue = desk.set_active("sue", false).expect("a deactivation");
        assert!(!sue.active);
        let last = desk
            .set_active("alice", false)
            .expect_err("the last active admin stays");
        assert_eq!(last.code, ErrorCode::Conflict);
        assert_eq!(
            desk.change_role("nobody", "admin")
                .expect_err("no such user")
                .code,
            ErrorCode::NotFound
        );
        // Deactivated, sue cannot log in; reactivated, with the new password, she can.
        assert_eq!(
            desk.login("sue", BOB).expect_err("deactivated").code,
            ErrorCode::Unauthorised
        );
        desk.login("alice", ALICE).expect("the admin again");
        assert!(desk.set_active("sue", true).expect("reactivated").active);
        // That refusal counted as a failed login for sue: the next try waits a second.
        std::thread::sleep(std::time::Duration::from_millis(1100));
        let session = desk.login("sue", BOB).expect("the new password");
        assert_eq!(session.role, "surveillance");
        // Nobody but an admin manages accounts.
        for refused in [
            desk.change_role("sue", "admin"),
            desk.reset_password("alice", SUP),
            desk.set_active("alice", false),
        ] {
            assert_eq!(
                refused.expect_err("not an admin").code,
                ErrorCode::Forbidden
            );
        }
        desk.stop();
        let store = test_store(&db);
        for action in ["user.role", "user.password", "user.active"] {
            let rows = store.audit_entries(action).expect("audit");
            assert!(rows.iter().all(|r| r.user == "alice"), "{action}: {rows:?}");
            assert!(
                rows.iter()
                    .all(|r| r.detail.contains(&crate::access::workstation())),
                "{action}: {rows:?}"
            );
        }
        assert_eq!(store.audit_entries("user.active").expect("audit").len(), 2);
    }

    #[test]
    fn a_real_pit_with_no_users_creates_its_first_admin_once() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let db = dir.path().join("first.db");
        let (desk, updates) = Desk::start(DeskOptions {
            pit: real_pit(),
            ..DeskOptions::demo(db.clone())
        })
        .expect("the desk starts");
        drop(updates);
        assert!(desk.needs_first_admin().expect("asks the record"));
        for (name, password) in [
            ("  ", "a long enough phrase for root"),
            ("root", "short"),
            ("root", "root-password"),
        ] {
            let error = desk
                .create_first_admin(name, password)
                .expect_err("refused");
            assert_eq!(error.code, ErrorCode::InvalidInput, "{name}: {error}");
        }
        assert!(
            desk.needs_first_admin().expect("asks the record"),
            "a refused attempt creates nobody"
        );
        let session = desk
            .create_first_admin(" root ", ALICE)
            .expect("the first admin");
        assert_eq!(
            session,
            Session {
                user: "root".into(),
                role: "admin".into()
            }
        );
        assert_eq!(desk.overview().session, Some(session));
        assert!(!desk.needs_first_admin().expect("asks the record"));
        let again = desk
            .create_first_admin("mallory", BOB)
            .expect_err("only once");
        assert_eq!(again.code, ErrorCode::Forbidden);
        desk.add_user("sam", "supervisor", SUP)
            .expect("the first admin adds users");
        desk.logout().expect("logout");
        desk.login("root", ALICE)
            .expect("the first admin logs in again");
        desk.stop();

        let store = test_store(&db);
        let details = store
            .audit_details("user.first_admin", "root")
            .expect("audit");
        assert_eq!(details.len(), 1);
        let detail: serde_json::Value = serde_json::from_str(&details[0]).expect("JSON");
        assert_eq!(detail["role"], "admin");
        assert_eq!(detail["workstation"], crate::access::workstation());
        assert!(!store.user_exists("mallory").expect("users"));
        drop(store);

        // Restarted on the same record: no first run any more.
        let (desk, updates) = Desk::start(DeskOptions {
            pit: real_pit(),
            ..DeskOptions::demo(db)
        })
        .expect("the desk starts again");
        drop(updates);
        assert!(!desk.needs_first_admin().expect("asks the record"));
        let again = desk
            .create_first_admin("mallory", BOB)
            .expect_err("never again");
        assert_eq!(again.code, ErrorCode::Forbidden);
        desk.stop();
    }

    #[test]
    fn a_login_as_the_same_user_elsewhere_ends_the_session_here_saying_where() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let db = dir.path().join("one-session.db");
        let desk = real_desk(&db);
        desk.users().expect("alice is logged in here");
        // The CLI, at another workstation, logs alice in on the same record.
        let mut cli = test_store(&db);
        crate::accounts::login(&mut cli, "alice", ALICE, "cli-ws", desk.clock.now())
            .expect("the CLI's login");
        let logouts = |store: &pitwatch_store::Store| {
            store
                .audit_entries(crate::accounts::LOGOUT)
                .expect("audit")
                .len()
        };
        let before = logouts(&cli);
        // Even muting the alarm (which holds the seat) finds the session ended.
        let ended = desk
            .set_alarm_muted(true)
            .expect_err("the session here was ended");
        assert_eq!(ended.code, ErrorCode::Unauthorised);
        assert!(ended.message.contains("cli-ws"), "{}", ended.message);
        assert_eq!(desk.overview().session, None, "the seat is cleared");
        assert_eq!(
            desk.users().expect_err("still logged out").message,
            "log in first"
        );
        desk.logout().expect("a logout with nobody here");
        assert_eq!(
            logouts(&cli),
            before,
            "the record already says how it ended"
        );
        // Logging in again here ends the CLI's session in turn.
        desk.login("alice", ALICE).expect("alice again");
        desk.users().expect("live here again");
        let ended = cli
            .audit_entries(crate::accounts::SESSION_ENDED)
            .expect("audit");
        let workstations: Vec<String> = ended
            .iter()
            .map(|e| {
                let d: serde_json::Value = serde_json::from_str(&e.detail).expect("JSON");
                d["ended_workstation"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned()
            })
            .collect();
        assert_eq!(
            workstations,
            [crate::access::workstation(), "cli-ws".to_owned()]
        );
        // A logout frees it: the next login anywhere ends nothing.
        desk.logout().expect("logout");
        assert_eq!(logouts(&cli), before + 1);
        crate::accounts::login(&mut cli, "alice", ALICE, "cli-ws", desk.clock.now())
            .expect("the CLI's login");
        assert_eq!(
            cli.audit_entries(crate::accounts::SESSION_ENDED)
                .expect("audit")
                .len(),
            2
        );
        desk.stop();
    }

    #[test]
    fn surveillance_is_refused_the_supervisors_commands_and_sees_failed_logins() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let db = dir.path().join("roles.db");
        let desk = real_desk(&db);
        desk.add_user("sam", "surveillance", BOB)
            .expect("surveillance");
        let failed = desk.login("sam", "not sams password at all");
        assert_eq!(failed.expect_err("wrong").code, ErrorCode::Unauthorised);
        // A second try at once is throttled; a third after the delay passes.
        std::thread::sleep(Duration::from_millis(1100));
        desk.login("sam", BOB).expect("sam logs in");
        for refused in [
            desk.resolve(1, "nothing to see", None).map(|_| ()),
            desk.reopen(1, "nothing to see").map(|_| ()),
            desk.acknowledge(1).map(|_| ()),
            desk.record_console("T1", &ConsoleEntry::CardsReplaced)
                .map(|_| ()),
            desk.users().map(|_| ()),
            desk.add_user("eve", "admin", ALICE).map(|_| ()),
            desk.sign_off_shift(
                &ShiftQuery {
                    from: "2000-01-01T00:00:00Z".into(),
                    to: "2100-01-01T00:00:00Z".into(),
                    table: None,
                },
                &crate::testkit::handover("not mine to sign"),
            )
            .map(|_| ()),
        ] {
            assert_eq!(refused.expect_err("refused").code, ErrorCode::Forbidden);
        }
        let audit = desk
            .audit(true, 50)
            .expect("surveillance reads the audit log");
        let failed: Vec<&AuditRow> = audit
            .iter()
            .filter(|r| r.action == pitwatch_store::LOGIN_FAILED)
            .collect();
        assert_eq!(failed.len(), 1, "{audit:?}");
        assert_eq!(failed[0].user, "sam");
        assert!(failed[0].detail.contains("workstation"), "{failed:?}");
        let forbidden = audit
            .iter()
            .filter(|r| r.action == crate::access::FORBIDDEN && r.user == "sam")
            .count();
        assert_eq!(forbidden, 7);
        desk.stop();
    }
}
