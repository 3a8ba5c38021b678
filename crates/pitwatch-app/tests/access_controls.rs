//! The access controls an IT audit checks (issue 32), on a real record with time passed in: one
//! live session per user (a login elsewhere ends the old one, on record), the access listing
//! generated from the code's own role table, the periodic access review and the independent log
//! review signed in the app (overdue as alerts), and the read-only inspector whose every read is
//! audited.

use std::time::Duration;

use pitwatch_api::dto::{AccessReviewRequest, LogReviewRequest};
use pitwatch_api::ErrorCode;
use pitwatch_app::access::{Command, Principal, FORBIDDEN, INSPECTED};
use pitwatch_app::accounts::{self, Policy, LOGOUT, SESSION_ENDED};
use pitwatch_app::reviews::{self, ReviewPeriods, ACCESS_REVIEW, LOG_REVIEW};
use pitwatch_model::Timestamp;
use pitwatch_store::{Role, Store};

const STRONG: &str = "plum kettle orbit 47 lantern";
const DAY: i64 = 86_400;

fn t(seconds: i64) -> Timestamp {
    Timestamp::from_unix_millis(1_780_000_000_000 + seconds * 1000).unwrap()
}

fn who(user: &str, role: Role) -> Principal {
    Principal {
        user: user.into(),
        role,
        workstation: "pit-ws-3".into(),
    }
}

/// A record with its first admin `root`, a supervisor `ana`, surveillance `sam` and an
/// inspector `ivy`, all set up at t(0).
fn record() -> Store {
    let mut store = Store::open_in_memory().unwrap();
    accounts::create_first_admin(&mut store, "root", STRONG, "pit-ws-3", t(0)).unwrap();
    let root = who("root", Role::Admin);
    for (name, role) in [
        ("ana", Role::Supervisor),
        ("sam", Role::Surveillance),
        ("ivy", Role::Inspector),
    ] {
        accounts::add_user(&mut store, &root, name, role, STRONG, t(0)).unwrap();
    }
    store
}

fn audited(store: &Store, action: &str) -> Vec<pitwatch_store::AuditEntry> {
    store.audit_entries(action).unwrap()
}

fn detail(entry: &pitwatch_store::AuditEntry) -> serde_json::Value {
    serde_json::from_str(&entry.detail).unwrap()
}

#[test]
fn a_login_elsewhere_ends_the_users_session_on_record_and_a_logout_frees_it() {
    let mut store = record();
    let policy = Policy::STANDARD;
    let at_a = accounts::begin_session(&policy, &mut store, "ana", STRONG, "ws-a", t(10)).unwrap();
    accounts::check_live(&store, "ana", at_a.session).unwrap();
    // Another user's login changes nothing for ana.
    accounts::begin_session(&policy, &mut store, "sam", STRONG, "ws-b", t(20)).unwrap();
    accounts::check_live(&store, "ana", at_a.session).unwrap();

    let at_b = accounts::begin_session(&policy, &mut store, "ana", STRONG, "ws-b", t(30)).unwrap();
    let ended = accounts::check_live(&store, "ana", at_a.session).unwrap_err();
    assert_eq!(ended.code, ErrorCode::Unauthorised);
    assert!(
        ended.message.contains("ws-b") && ended.message.contains("ended"),
        "{}",
        ended.message
    );
    accounts::check_live(&store, "ana", at_b.session).unwrap();
    let rows = audited(&store, SESSION_ENDED);
    assert_eq!(rows.len(), 1, "{rows:?}");
    let ended = detail(&rows[0]);
    assert_eq!(ended["workstation"], "ws-b");
    assert_eq!(ended["ended_workstation"], "ws-a");
    assert_eq!(ended["ended_session"], at_a.session.to_string());
    assert_eq!(rows[0].user, "ana");

    // The listing shows the live session where it is; a logout frees it, and the next login
    // ends nothing.
    let root = who("root", Role::Admin);
    let listing = reviews::access_listing(&mut store, &root, &policy, t(40)).unwrap();
    let ana = listing.users.iter().find(|u| u.name == "ana").unwrap();
    assert_eq!(ana.session_at.as_deref(), Some("ws-b"));
    accounts::logout(&mut store, &at_b.principal, t(50)).unwrap();
    assert_eq!(audited(&store, LOGOUT).len(), 1);
    let listing = reviews::access_listing(&mut store, &root, &policy, t(60)).unwrap();
    let ana = listing.users.iter().find(|u| u.name == "ana").unwrap();
    assert_eq!(ana.session_at, None);
    accounts::begin_session(&policy, &mut store, "ana", STRONG, "ws-a", t(70)).unwrap();
    assert_eq!(
        audited(&store, SESSION_ENDED).len(),
        1,
        "nothing left to end"
    );
}

#[test]
fn the_access_listing_comes_from_the_code_s_table_and_says_each_account_s_status() {
    let mut store = record();
    let policy = Policy::STANDARD;
    let root = who("root", Role::Admin);
    // sam is locked by five failed logins, a user is deactivated, one has a formula for a name.
    for n in 0..5 {
        let _ = accounts::login(
            &mut store,
            "sam",
            "not sams password",
            "ws",
            t(100 + n * 20),
        );
    }
    accounts::add_user(&mut store, &root, "=cmd|x", Role::Supervisor, STRONG, t(1)).unwrap();
    accounts::set_active(&mut store, &root, "=cmd|x", false, t(2)).unwrap();

    let listing = reviews::access_listing(&mut store, &root, &policy, t(300)).unwrap();
    let status: Vec<(&str, &str, &str)> = listing
        .users
        .iter()
        .map(|u| (u.name.as_str(), u.role.as_str(), u.status.as_str()))
        .collect();
    assert_eq!(
        status,
        [
            ("=cmd|x", "supervisor", "disabled"),
            ("ana", "supervisor", "active"),
            ("ivy", "inspector", "active"),
            ("root", "admin", "active"),
            ("sam", "surveillance", "locked"),
        ]
    );
    let sam = listing.users.iter().find(|u| u.name == "sam").unwrap();
    assert!(sam.locked_until.is_some());
    assert_eq!(sam.password_age_days, Some(0));
    // Every role's commands are the code's own table's.
    for role in Role::ALL {
        let listed = listing
            .roles
            .iter()
            .find(|r| r.role == role.as_str())
            .unwrap();
        let code: Vec<&str> = Command::ALL
            .iter()
            .filter(|c| c.allowed(role))
            .map(|c| c.name())
            .collect();
        assert_eq!(listed.may, code, "{role:?}");
    }
    // Ninety-one days on, every password is past its age.
    let later = reviews::access_listing(&mut store, &root, &policy, t(91 * DAY)).unwrap();
    let ana = later.users.iter().find(|u| u.name == "ana").unwrap();
    assert_eq!(
        (ana.status.as_str(), ana.password_age_days),
        ("password_expired", Some(91))
    );
    assert_ne!(later.digest, listing.digest);

    // Exported as CSV, no cell is a formula.
    let csv = reviews::listing_document(&listing, "Real").to_csv();
    assert!(csv.contains("\"'=cmd|x\""), "{csv}");
    assert!(!csv.contains("\"=cmd"), "{csv}");
    assert!(csv.contains("review_log"), "{csv}");

    // A supervisor may not read it: refused, and the refusal audited.
    let refused =
        reviews::access_listing(&mut store, &who("ana", Role::Supervisor), &policy, t(301))
            .unwrap_err();
    assert_eq!(refused.code, ErrorCode::Forbidden);
    let forbidden = audited(&store, FORBIDDEN);
    assert_eq!(forbidden.last().unwrap().subject, "access_listing");
}

#[test]
fn an_access_review_signs_the_listing_as_read_and_is_due_again_after_its_period() {
    let mut store = record();
    let policy = Policy::STANDARD;
    let periods = ReviewPeriods::default();
    let root = who("root", Role::Admin);
    let status = reviews::review_status(&store, &periods, t(10)).unwrap();
    assert!(status.last_access.is_none());
    assert!(
        status
            .alerts
            .iter()
            .any(|a| a.message.contains("no access review")),
        "{:?}",
        status.alerts
    );
    let listing = reviews::access_listing(&mut store, &root, &policy, t(10)).unwrap();
    let request = |digest: &str, comment: &str| AccessReviewRequest {
        digest: digest.into(),
        comment: comment.into(),
    };
    let blank = reviews::sign_access_review(
        &mut store,
        &root,
        &policy,
        &request(&listing.digest, "  "),
        t(20),
    );
    assert_eq!(blank.unwrap_err().code, ErrorCode::InvalidInput);
    // The listing changes after it was read: the review of the old one is refused.
    accounts::set_active(&mut store, &root, "ana", false, t(15)).unwrap();
    let stale = reviews::sign_access_review(
        &mut store,
        &root,
        &policy,
        &request(&listing.digest, "all as expected"),
        t(20),
    );
    assert_eq!(stale.unwrap_err().code, ErrorCode::Conflict);
    let listing = reviews::access_listing(&mut store, &root, &policy, t(25)).unwrap();
    let signed = reviews::sign_access_review(
        &mut store,
        &root,
        &policy,
        &request(&listing.digest, "ana left; all others as expected"),
        t(30),
    )
    .unwrap();
    assert_eq!(
        (
            signed.kind.as_str(),
            signed.reviewer.as_str(),
            signed.digest.as_str()
        ),
        ("access", "root", listing.digest.as_str())
    );
    let rows = audited(&store, ACCESS_REVIEW);
    assert_eq!(rows.len(), 1);
    assert_eq!(
        detail(&rows[0])["comment"],
        "ana left; all others as expected"
    );
    assert_eq!(signed.id, rows[0].id);

    // A supervisor may not sign it.
    let refused = reviews::sign_access_review(
        &mut store,
        &who("ana", Role::Supervisor),
        &policy,
        &request(&listing.digest, "me too"),
        t(40),
    );
    assert_eq!(refused.unwrap_err().code, ErrorCode::Forbidden);

    let quiet = reviews::review_status(&store, &periods, t(30 + 89 * DAY)).unwrap();
    assert!(
        !quiet
            .alerts
            .iter()
            .any(|a| a.message.contains("access review")),
        "{:?}",
        quiet.alerts
    );
    assert_eq!(quiet.access_every_days, 90);
    let overdue = reviews::review_status(&store, &periods, t(30 + 91 * DAY)).unwrap();
    assert!(
        overdue
            .alerts
            .iter()
            .any(|a| a.message.contains("access review is overdue")
                && a.kind == "access"
                && a.message.contains("root")),
        "{:?}",
        overdue.alerts
    );
    // The period is configuration.
    let monthly = ReviewPeriods {
        access: Duration::from_secs(30 * 86_400),
        ..periods
    };
    let due = reviews::review_status(&store, &monthly, t(30 + 31 * DAY)).unwrap();
    assert!(due
        .alerts
        .iter()
        .any(|a| a.message.contains("access review is overdue")));
}

#[test]
fn the_log_review_is_signed_by_a_reviewer_who_is_not_an_administrator() {
    let mut store = record();
    let periods = ReviewPeriods::default();
    let request = |from: Timestamp, to: Timestamp| LogReviewRequest {
        from: from.to_string(),
        to: to.to_string(),
        comment: "failed logins and refusals looked at; nothing untoward".into(),
    };
    // An administrator may not review the log of what administrators did: refused, audited.
    let refused = reviews::sign_log_review(
        &mut store,
        &who("root", Role::Admin),
        &request(t(0), t(100)),
        t(200),
    );
    assert_eq!(refused.unwrap_err().code, ErrorCode::Forbidden);
    let forbidden = audited(&store, FORBIDDEN);
    assert_eq!(
        (forbidden[0].user.as_str(), forbidden[0].subject.as_str()),
        ("root", "review_log")
    );
    let sam = who("sam", Role::Surveillance);
    for bad in [request(t(100), t(100)), request(t(0), t(10_000))] {
        let error = reviews::sign_log_review(&mut store, &sam, &bad, t(200)).unwrap_err();
        assert_eq!(error.code, ErrorCode::InvalidInput, "{error:?}");
    }
    let signed =
        reviews::sign_log_review(&mut store, &sam, &request(t(0), t(150)), t(200)).unwrap();
    let digest = store.audit_digest(t(0), t(150)).unwrap();
    assert!(
        digest.rows >= 5,
        "the users added and the refusal: {digest:?}"
    );
    assert_eq!(
        (
            signed.rows,
            signed.digest.as_str(),
            signed.reviewer.as_str()
        ),
        (Some(digest.rows), digest.digest.as_str(), "sam")
    );
    assert_eq!(audited(&store, LOG_REVIEW).len(), 1);
    // An inspector may sign it too.
    reviews::sign_log_review(
        &mut store,
        &who("ivy", Role::Inspector),
        &request(t(0), t(150)),
        t(210),
    )
    .unwrap();

    let status = reviews::review_status(&store, &periods, t(210 + 6 * DAY)).unwrap();
    assert_eq!(
        status.log_from.as_deref(),
        Some(t(150).to_string().as_str())
    );
    assert!(!status
        .alerts
        .iter()
        .any(|a| a.message.contains("audit log review")));
    let overdue = reviews::review_status(&store, &periods, t(210 + 8 * DAY)).unwrap();
    assert!(
        overdue
            .alerts
            .iter()
            .any(|a| a.message.contains("audit log review is overdue")
                && a.kind == "log"
                && a.message.contains("ivy")),
        "{:?}",
        overdue.alerts
    );
}

#[test]
fn an_inspector_reads_everything_changes_nothing_and_every_read_is_audited() {
    let mut store = record();
    let ivy = who("ivy", Role::Inspector);
    // Every command that changes the record is refused, each refusal audited.
    let changes = [
        Command::Acknowledge,
        Command::AddNote,
        Command::Resolve,
        Command::Reopen,
        Command::RecordConsole,
        Command::SignOffShift,
        Command::AddUser,
        Command::ChangeRole,
        Command::ResetPassword,
        Command::SetActive,
        Command::ConfigurePit,
        Command::MuteAlarm,
    ];
    for (n, command) in changes.into_iter().enumerate() {
        let refused =
            pitwatch_app::access::require(&mut store, &ivy, command, "x", t(10 + n as i64));
        assert_eq!(
            refused.unwrap_err().code,
            ErrorCode::Forbidden,
            "{command:?}"
        );
    }
    assert_eq!(audited(&store, FORBIDDEN).len(), changes.len());
    let added = accounts::add_user(&mut store, &ivy, "eve", Role::Admin, STRONG, t(30));
    assert_eq!(added.unwrap_err().code, ErrorCode::Forbidden);
    assert!(!store.user_exists("eve").unwrap());
    // Reads: the users, the audit log, the access listing; each one audited as inspected.
    accounts::users(&mut store, &ivy, t(40)).unwrap();
    accounts::audit_log(&mut store, &ivy, &[], 50, t(41)).unwrap();
    reviews::access_listing(&mut store, &ivy, &Policy::STANDARD, t(42)).unwrap();
    let inspected: Vec<String> = audited(&store, INSPECTED)
        .into_iter()
        .map(|e| {
            assert_eq!(e.user, "ivy");
            e.subject
        })
        .collect();
    assert_eq!(inspected, ["users", "audit", "access_listing"]);
    // Another role's reads are not audited as inspections.
    accounts::users(&mut store, &who("root", Role::Admin), t(50)).unwrap();
    assert_eq!(audited(&store, INSPECTED).len(), 3);
    // The role is known by name, and logs in.
    assert_eq!(accounts::parse_role("inspector").unwrap(), Role::Inspector);
    let login = accounts::login(&mut store, "ivy", STRONG, "ws", t(60)).unwrap();
    assert_eq!(login.role, Role::Inspector);
}
