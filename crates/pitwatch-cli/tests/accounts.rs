//! `pitwatch user renew` and the access listing (`pitwatch user list`): a user sets their own
//! password with the current one (how a password past its age is replaced from the command
//! line), and the listing says, per user, their role, when their password was set, their last
//! login and what they may do.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn command(dir: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_pitwatch"));
    command.env("PITWATCH_KEY", dir.join("signing.key"));
    command
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

const ROOT_PW: &str = "root keeps the pit keys 42";
const NEW_PW: &str = "violet harbour 93 saddle crane";
const STAFF_PW: &str = "correct horse battery staple";

fn run(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = command(dir);
    command.args(args);
    for (k, v) in env {
        command.env(k, v);
    }
    command.output().expect("pitwatch runs")
}

fn record(dir: &Path) -> PathBuf {
    let db = dir.join("pit.db");
    let db_s = db.to_str().unwrap();
    let out = run(
        dir,
        &["user", "add", "--db", db_s, "--role", "admin", "root"],
        &[("PITWATCH_PASSWORD", ROOT_PW)],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = run(
        dir,
        &[
            "user",
            "add",
            "--db",
            db_s,
            "--admin",
            "root",
            "--role",
            "surveillance",
            "sam",
        ],
        &[
            ("PITWATCH_ADMIN_PASSWORD", ROOT_PW),
            ("PITWATCH_PASSWORD", STAFF_PW),
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    db
}

#[test]
fn a_user_renews_their_own_password_with_the_current_one() {
    let dir = tempfile::tempdir().unwrap();
    let db = record(dir.path());
    let db_s = db.to_str().unwrap();
    let renew = |current: &str, new: &str| {
        run(
            dir.path(),
            &["user", "renew", "--db", db_s, "sam"],
            &[
                ("PITWATCH_PASSWORD", current),
                ("PITWATCH_NEW_PASSWORD", new),
            ],
        )
    };
    let out = renew("not sam's password at all", NEW_PW);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("wrong user name or password"),
        "{}",
        text(&out.stderr)
    );
    let out = renew(STAFF_PW, STAFF_PW);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("must differ"),
        "{}",
        text(&out.stderr)
    );
    // The wrong current password was a failed login: the next attempt waits its second.
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let out = renew(STAFF_PW, NEW_PW);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("password of sam set by sam"));

    // The listing: root sees sam's new password's time, sam's last login and what each may do.
    let out = run(
        dir.path(),
        &["user", "list", "--db", db_s, "--admin", "root"],
        &[("PITWATCH_ADMIN_PASSWORD", ROOT_PW)],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let listing = text(&out.stdout);
    let header = listing.lines().next().unwrap();
    for column in [
        "user",
        "role",
        "status",
        "added",
        "password set",
        "last login",
        "may",
    ] {
        assert!(header.contains(column), "{header}");
    }
    let sam = listing.lines().find(|l| l.starts_with("sam ")).unwrap();
    assert!(sam.contains("surveillance"), "{sam}");
    assert!(
        !sam.contains("never"),
        "sam logged in with the renewal: {sam}"
    );
    assert!(
        sam.ends_with(
            "add_note, export_incident, export_shoe, export_shift, audit, mute_alarm, \
             view_exposure, review_log"
        ),
        "{sam}"
    );
    let root = listing.lines().find(|l| l.starts_with("root ")).unwrap();
    assert!(
        root.contains("add_user") && root.contains("acknowledge"),
        "{root}"
    );
}

#[test]
fn an_inspector_reads_the_access_listing_and_signs_the_reviews_an_admin_may_not_sign() {
    let dir = tempfile::tempdir().unwrap();
    let db = record(dir.path());
    let db_s = db.to_str().unwrap();
    let out = run(
        dir.path(),
        &[
            "user",
            "add",
            "--db",
            db_s,
            "--admin",
            "root",
            "--role",
            "inspector",
            "ivy",
        ],
        &[
            ("PITWATCH_ADMIN_PASSWORD", ROOT_PW),
            ("PITWATCH_PASSWORD", NEW_PW),
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let csv = dir.path().join("access.csv");
    let out = run(
        dir.path(),
        &[
            "user",
            "access",
            "--db",
            db_s,
            "--as",
            "ivy",
            "--csv",
            csv.to_str().unwrap(),
        ],
        &[("PITWATCH_PASSWORD", NEW_PW)],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let listing = text(&out.stdout);
    let ivy = listing.lines().find(|l| l.starts_with("ivy ")).unwrap();
    assert!(ivy.contains("inspector") && ivy.contains("active"), "{ivy}");
    assert!(
        listing.contains("inspector     may export_incident"),
        "{listing}"
    );
    let digest = listing
        .lines()
        .find_map(|l| l.strip_prefix("digest "))
        .unwrap()
        .to_owned();
    let written = std::fs::read_to_string(&csv).unwrap();
    assert!(written.contains(&digest), "{written}");

    // Her login for the next command changes her last login, not what the listing grants: the
    // digest she read is still the listing's.
    let out = run(
        dir.path(),
        &[
            "user",
            "review-access",
            "--db",
            db_s,
            "--as",
            "ivy",
            "--digest",
            &digest,
            "--comment",
            "three accounts, each as expected",
        ],
        &[("PITWATCH_PASSWORD", NEW_PW)],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("access review signed by ivy"),
        "{}",
        text(&out.stdout)
    );
    // A digest that is not the listing's is refused.
    let out = run(
        dir.path(),
        &[
            "user",
            "review-access",
            "--db",
            db_s,
            "--as",
            "ivy",
            "--digest",
            "00ff",
            "--comment",
            "x",
        ],
        &[("PITWATCH_PASSWORD", NEW_PW)],
    );
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("read it again"),
        "{}",
        text(&out.stderr)
    );

    // The log review: root (an administrator) is refused; ivy signs.
    let review_log = |who: &str, password: &str| {
        run(
            dir.path(),
            &[
                "user",
                "review-log",
                "--db",
                db_s,
                "--as",
                who,
                "--from",
                "2000-01-01T00:00:00Z",
                "--to",
                "2001-01-01T00:00:00Z",
                "--comment",
                "nothing untoward",
            ],
            &[("PITWATCH_PASSWORD", password)],
        )
    };
    let out = review_log("root", ROOT_PW);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("may not"),
        "{}",
        text(&out.stderr)
    );
    let out = review_log("ivy", NEW_PW);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("0 rows"),
        "{}",
        text(&out.stdout)
    );

    let out = run(
        dir.path(),
        &["user", "reviews", "--db", db_s, "--as", "sam"],
        &[("PITWATCH_PASSWORD", STAFF_PW)],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let status = text(&out.stdout);
    assert!(
        status.contains("audit log review: last") && status.contains("by ivy"),
        "{status}"
    );
    assert!(
        status.contains("access review: last") && !status.contains("ALERT"),
        "{status}"
    );
}
