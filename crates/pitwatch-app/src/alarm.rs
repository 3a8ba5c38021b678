//! The alarm's sound at this workstation: muted and unmuted only by someone logged in, each an
//! audited step (`alarm.mute`, `alarm.unmute`, with the workstation), so the record says who
//! silenced the pit and for how long. A mute belongs to its session: logging out, another
//! login and the window's lock (which logs out) end it, audited as an unmute with the reason.
//! Nobody logged in (before a login, on the lock screen) cannot mute: the alarm sounds.

use pitwatch_api::ApiError;
use pitwatch_model::Timestamp;
use pitwatch_store::Store;

use crate::access::{detail, require, Command, Principal};
use crate::live::Desk;
use crate::state::workstation::Seat;

/// The audit action of a mute.
pub const ALARM_MUTE: &str = "alarm.mute";
/// The audit action of an unmute (by its user, or because their session ended).
pub const ALARM_UNMUTE: &str = "alarm.unmute";

/// Records that `who` muted (`muted`) or unmuted the alarm at their workstation, saying why
/// (`reason`: `user` when they pressed it, `logout` or `login` when their session ended it).
pub fn record(
    store: &mut Store,
    who: &Principal,
    muted: bool,
    reason: &str,
    now: Timestamp,
) -> Result<(), ApiError> {
    require(store, who, Command::MuteAlarm, "alarm", now)?;
    let action = if muted { ALARM_MUTE } else { ALARM_UNMUTE };
    let mut batch = store.batch(now)?;
    batch.append_audit(
        &who.user,
        action,
        "alarm",
        &detail(&who.workstation, &[("reason", reason)]),
        now,
    )?;
    batch.commit()?;
    Ok(())
}

impl Desk {
    /// The logged-in user mutes (`true`) or unmutes the alarm's sound at this workstation;
    /// answers whether it is muted now. Asking for what already is writes nothing. Nobody
    /// logged in: `unauthorised`, and nothing changes.
    pub fn set_alarm_muted(&self, muted: bool) -> Result<bool, ApiError> {
        let mut seat = self.workstation.seat();
        // Logged in here, and their session not ended by a login elsewhere.
        let who = self.seated(&mut seat)?;
        if seat.alarm_muted != muted {
            record(
                &mut self.record.store(),
                &who,
                muted,
                "user",
                self.clock.now(),
            )?;
            seat.alarm_muted = muted;
        }
        Ok(seat.alarm_muted)
    }

    /// Whether the alarm is muted now.
    pub fn alarm_muted(&self) -> bool {
        self.workstation.alarm_muted()
    }

    /// Ends `who`'s mute, if the alarm is muted, because their session ends (`reason`); `seat`
    /// is the workstation's, held by the session's change.
    pub(crate) fn end_mute(
        &self,
        seat: &mut Seat,
        who: &Principal,
        reason: &str,
        now: Timestamp,
    ) -> Result<(), ApiError> {
        if seat.alarm_muted {
            record(&mut self.record.store(), who, false, reason, now)?;
            seat.alarm_muted = false;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use pitwatch_api::dto::ErrorCode;

    use crate::testkit::*;

    /// The alarm rows of the record at `db`: who, which, and why.
    fn alarm_rows(db: &std::path::Path) -> Vec<(String, String, String)> {
        let store = test_store(db);
        let mut rows: Vec<(i64, String, String, String)> = [super::ALARM_MUTE, super::ALARM_UNMUTE]
            .into_iter()
            .flat_map(|action| store.audit_entries(action).expect("audit"))
            .map(|e| {
                let detail: serde_json::Value = serde_json::from_str(&e.detail).expect("JSON");
                assert_eq!(detail["workstation"], crate::access::workstation());
                (
                    e.id,
                    e.user,
                    e.action,
                    detail["reason"].as_str().unwrap_or("").to_owned(),
                )
            })
            .collect();
        rows.sort();
        rows.into_iter().map(|(_, u, a, r)| (u, a, r)).collect()
    }

    fn row(user: &str, action: &str, reason: &str) -> (String, String, String) {
        (user.into(), action.into(), reason.into())
    }

    #[test]
    fn only_someone_logged_in_mutes_and_every_mute_and_unmute_is_audited() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let db = dir.path().join("alarm.db");
        let desk = real_desk(&db);
        desk.add_user("sue", "supervisor", SUP)
            .expect("a supervisor");
        desk.add_user("bob", "surveillance", BOB)
            .expect("surveillance");
        desk.logout().expect("logout");
        // Nobody logged in (the lock screen): refused, nothing on record, the alarm sounds.
        let refused = desk.set_alarm_muted(true).expect_err("nobody is logged in");
        assert_eq!(refused.code, ErrorCode::Unauthorised);
        assert!(!desk.alarm_muted());
        desk.login("sue", SUP).expect("the supervisor");
        assert!(desk.set_alarm_muted(true).expect("muted"));
        assert!(desk.alarm_muted());
        assert!(desk.overview().alarm_muted, "the window reads it");
        assert_eq!(
            desk.overview().time_zone,
            None,
            "a pit definition without a time_zone: UTC"
        );
        // Asked again: already muted, nothing more written.
        assert!(desk.set_alarm_muted(true).expect("still muted"));
        assert!(!desk.set_alarm_muted(false).expect("unmuted"));
        assert!(desk.set_alarm_muted(true).expect("muted again"));
        // Logging out (as the window's lock does) ends the mute, on record.
        desk.logout().expect("logout");
        assert!(!desk.alarm_muted());
        assert_eq!(
            desk.set_alarm_muted(false).expect_err("locked").code,
            ErrorCode::Unauthorised
        );
        // Every role may mute; another login ends the mute of the one before.
        desk.login("bob", BOB).expect("surveillance");
        assert!(desk.set_alarm_muted(true).expect("surveillance mutes"));
        desk.login("sue", SUP).expect("the supervisor takes over");
        assert!(
            !desk.alarm_muted(),
            "a new session starts with the sound on"
        );
        desk.stop();
        assert_eq!(
            alarm_rows(&db),
            [
                row("sue", "alarm.mute", "user"),
                row("sue", "alarm.unmute", "user"),
                row("sue", "alarm.mute", "user"),
                row("sue", "alarm.unmute", "logout"),
                row("bob", "alarm.mute", "user"),
                row("bob", "alarm.unmute", "login"),
            ]
        );
        let store = test_store(&db);
        assert!(store
            .audit_entries(crate::access::FORBIDDEN)
            .expect("audit")
            .is_empty());
    }
}
