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
             view_exposure"
        ),
        "{sam}"
    );
    let root = listing.lines().find(|l| l.starts_with("root ")).unwrap();
    assert!(
        root.contains("add_user") && root.contains("acknowledge"),
        "{root}"
    );
}
