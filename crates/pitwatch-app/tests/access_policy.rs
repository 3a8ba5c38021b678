//! The access policy beyond the right password, on a real record: a password older than
//! [`accounts::MAX_PASSWORD_AGE`] is refused until its user sets a new one (their own change,
//! audited, the old password checked as a login's is), and an account unused for
//! [`accounts::INACTIVE_AFTER`] is disabled at its next login, audited, except the last active
//! administrator. Neither refusal counts as a failed login.

use pitwatch_api::ErrorCode;
use pitwatch_app::access::Principal;
use pitwatch_app::accounts::{self, Policy, INACTIVE_AFTER, MAX_PASSWORD_AGE, POLICY_ACTOR};
use pitwatch_model::Timestamp;
use pitwatch_store::{Role, Store, LOGIN_FAILED, LOGIN_REFUSED};

const STRONG: &str = "plum kettle orbit 47 lantern";
const NEWER: &str = "violet harbour 93 saddle crane";
const DAY: i64 = 86_400;

fn t(seconds: i64) -> Timestamp {
    Timestamp::from_unix_millis(1_780_000_000_000 + seconds * 1000).unwrap()
}

/// Seconds in `duration`, for [`t`].
fn secs(duration: std::time::Duration) -> i64 {
    i64::try_from(duration.as_secs()).unwrap()
}

fn admin() -> Principal {
    Principal {
        user: "root".into(),
        role: Role::Admin,
        workstation: "pit-ws-3".into(),
    }
}

/// A record with its first admin `root` and a supervisor `ana`, both set up at t(0).
fn record() -> Store {
    let mut store = Store::open_in_memory().unwrap();
    accounts::create_first_admin(&mut store, "root", STRONG, "pit-ws-3", t(0)).unwrap();
    accounts::add_user(&mut store, &admin(), "ana", Role::Supervisor, STRONG, t(0)).unwrap();
    store
}

fn audited(store: &Store, action: &str, subject: &str) -> Vec<pitwatch_store::AuditEntry> {
    store
        .audit_entries(action)
        .unwrap()
        .into_iter()
        .filter(|e| e.subject == subject)
        .collect()
}

#[test]
fn a_password_past_its_age_is_replaced_by_its_user_before_they_log_in() {
    let mut store = record();
    // Logged in every week, so the account stays in use; the password ages all the same.
    let mut day = 0;
    while day * DAY <= secs(MAX_PASSWORD_AGE) {
        accounts::login(&mut store, "ana", STRONG, "ws", t(day * DAY)).unwrap();
        day += 7;
    }
    let late = t(secs(MAX_PASSWORD_AGE) + DAY);
    let expired = accounts::login(&mut store, "ana", STRONG, "ws", late).unwrap_err();
    assert_eq!(expired.code, ErrorCode::PasswordExpired, "{expired:?}");
    assert!(
        expired.message.contains("choose a new one"),
        "{}",
        expired.message
    );
    // A wrong password is still just wrong: the age says nothing about a password not known.
    let wrong = accounts::login(
        &mut store,
        "ana",
        "not it at all, no",
        "ws",
        t(secs(MAX_PASSWORD_AGE) + DAY + 10),
    )
    .unwrap_err();
    assert_eq!(wrong.code, ErrorCode::Unauthorised);
    let later = t(secs(MAX_PASSWORD_AGE) + DAY + 60);
    // The refusal was the attempt's outcome and no failure: the next try is not held back.
    let again = accounts::login(&mut store, "ana", STRONG, "ws", later).unwrap_err();
    assert_eq!(again.code, ErrorCode::PasswordExpired, "{again:?}");
    assert_eq!(audited(&store, LOGIN_REFUSED, "ana").len(), 2);

    // The new password is judged first, then the old one as a login's is.
    let same =
        accounts::change_own_password(&mut store, "ana", STRONG, STRONG, "ws", later).unwrap_err();
    assert_eq!(same.code, ErrorCode::InvalidInput);
    let weak =
        accounts::change_own_password(&mut store, "ana", STRONG, "password1234", "ws", later)
            .unwrap_err();
    assert_eq!(weak.code, ErrorCode::InvalidInput);
    let failures = audited(&store, LOGIN_FAILED, "ana").len();
    let wrong_old = accounts::change_own_password(
        &mut store,
        "ana",
        "not the old one, no",
        NEWER,
        "ws",
        t(secs(MAX_PASSWORD_AGE) + DAY + 120),
    )
    .unwrap_err();
    assert_eq!(wrong_old.code, ErrorCode::Unauthorised);
    assert_eq!(
        audited(&store, LOGIN_FAILED, "ana").len(),
        failures + 1,
        "a failure like a login's"
    );

    let renewed_at = t(secs(MAX_PASSWORD_AGE) + DAY + 300);
    let ana = accounts::change_own_password(&mut store, "ana", STRONG, NEWER, "ws", renewed_at)
        .expect("the user's own new password");
    assert_eq!((ana.user.as_str(), ana.role), ("ana", Role::Supervisor));
    let changes = audited(&store, "user.password", "ana");
    assert_eq!(changes.len(), 1);
    assert_eq!(changes[0].user, "ana", "the user changed it themself");
    let soon = t(secs(MAX_PASSWORD_AGE) + DAY + 400);
    accounts::login(&mut store, "ana", NEWER, "ws", soon).expect("the new password");
    accounts::login(
        &mut store,
        "ana",
        STRONG,
        "ws",
        t(secs(MAX_PASSWORD_AGE) + DAY + 500),
    )
    .expect_err("the old password is gone");
}

#[test]
fn an_administrators_reset_starts_the_password_age_again() {
    let mut store = record();
    let reset_at = secs(MAX_PASSWORD_AGE) - DAY;
    accounts::reset_password(&mut store, &admin(), "ana", NEWER, t(reset_at)).unwrap();
    accounts::login(
        &mut store,
        "ana",
        NEWER,
        "ws",
        t(secs(MAX_PASSWORD_AGE) + DAY),
    )
    .expect("the reset password is a day old");
}

#[test]
fn an_account_unused_past_the_limit_is_disabled_at_its_next_login_except_the_last_admin() {
    let mut store = record();
    accounts::login(&mut store, "ana", STRONG, "ws", t(10)).unwrap();
    let stale = t(10 + secs(INACTIVE_AFTER) + DAY);
    let refused = accounts::login(&mut store, "ana", STRONG, "ws", stale).unwrap_err();
    assert_eq!(refused.code, ErrorCode::Unauthorised);
    assert!(
        refused.message.contains("was disabled"),
        "{}",
        refused.message
    );
    let users = store.users().unwrap();
    let ana = users.iter().find(|u| u.name == "ana").unwrap();
    assert!(!ana.active, "disabled");
    let disabled = audited(&store, "user.active", "ana");
    assert_eq!(disabled.len(), 1);
    assert_eq!(
        disabled[0].user, POLICY_ACTOR,
        "the policy is named as the actor"
    );
    // Disabled, the account answers as any wrong login does.
    let after = accounts::login(
        &mut store,
        "ana",
        STRONG,
        "ws",
        t(10 + secs(INACTIVE_AFTER) + 2 * DAY),
    )
    .unwrap_err();
    assert_eq!(after.message, "wrong user name or password");

    // An administrator reactivates it: that counts as use, and ana logs in again.
    let root_at = 10 + secs(INACTIVE_AFTER) + 3 * DAY;
    // root is the last active administrator: never disabled, though unused as long, but its
    // password is as old, so it must choose a new one.
    let root = accounts::login(&mut store, "root", STRONG, "ws", t(root_at)).unwrap_err();
    assert_eq!(root.code, ErrorCode::PasswordExpired, "{root:?}");
    accounts::change_own_password(&mut store, "root", STRONG, NEWER, "ws", t(root_at + 60))
        .expect("the last administrator keeps the way in");
    accounts::set_active(&mut store, &admin(), "ana", true, t(root_at + 120)).unwrap();
    let ana = accounts::login(&mut store, "ana", STRONG, "ws", t(root_at + 180)).unwrap_err();
    assert_eq!(
        ana.code,
        ErrorCode::PasswordExpired,
        "reactivated, with an old password"
    );
}

#[test]
fn the_demo_policy_asks_nothing_beyond_the_password() {
    let mut store = record();
    let year = t(365 * DAY);
    accounts::login_under(&Policy::DEMO, &mut store, "ana", STRONG, "ws", year)
        .expect("the demo's supervisor logs in however long ago");
}

#[test]
fn the_access_listing_says_who_may_do_what_and_when_each_password_was_set() {
    let mut store = record();
    accounts::login(&mut store, "ana", STRONG, "ws", t(30)).unwrap();
    accounts::reset_password(&mut store, &admin(), "ana", NEWER, t(60)).unwrap();
    let users = accounts::users(&mut store, &admin(), t(90)).unwrap();
    let ana = users.iter().find(|u| u.name == "ana").unwrap();
    assert_eq!(ana.password_set_at, Some(t(60).to_string()));
    assert_eq!(ana.last_login_at, Some(t(30).to_string()));
    assert_eq!(
        ana.may,
        [
            "acknowledge",
            "add_note",
            "resolve",
            "reopen",
            "record_console",
            "export_incident",
            "export_shoe",
            "export_shift",
            "sign_off_shift",
            "mute_alarm",
            "view_dealers"
        ]
    );
    let root = users.iter().find(|u| u.name == "root").unwrap();
    assert_eq!(root.password_set_at, Some(t(0).to_string()));
    assert!(root.may.iter().any(|c| c == "add_user"));
    let refused = accounts::users(
        &mut store,
        &Principal {
            user: "ana".into(),
            role: Role::Supervisor,
            workstation: "ws".into(),
        },
        t(91),
    )
    .unwrap_err();
    assert_eq!(
        refused.code,
        ErrorCode::Forbidden,
        "the listing is an administrator's"
    );
}
