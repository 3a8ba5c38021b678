//! `pitwatch incident pack` and `pitwatch verify --pack`: an incident's evidence pack written on
//! one installation and checked on another, fresh, with no database and only the public key's
//! fingerprint; a pack changed, or checked against another key, fails with exit 1.

use super::*;

/// `pitwatch` as a fresh installation in `dir`: a key file of its own that does not exist yet.
fn fresh(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pitwatch"))
        .env("PITWATCH_KEY", dir.join("fresh-install/signing.key"))
        .args(args)
        .output()
        .expect("pitwatch runs")
}

#[test]
fn a_pack_written_here_verifies_on_a_fresh_installation_with_the_fingerprint_alone() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("pit.db");
    let db_s = db.to_str().unwrap();
    let capture = dir.path().join("shoe.jsonl");
    std::fs::write(&capture, BURN_AND_RESULT_FAULTS).unwrap();
    let out = pitwatch(&[
        "import",
        "--db",
        db_s,
        "--table",
        "BAC-1",
        "--format",
        "events",
        capture.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    first_admin(db_s);
    add_staff(db_s, "surveillance", "sam");
    let note = pitwatch_as(
        STAFF_PW,
        &[
            "incident",
            "note",
            "--db",
            db_s,
            "--user",
            "sam",
            "2",
            "Camera 14 reviewed",
        ],
    );
    assert!(note.status.success(), "{}", text(&note.stderr));
    let log = pitwatch_as(
        STAFF_PW,
        &[
            "incident",
            "surveillance",
            "--db",
            db_s,
            "--user",
            "sam",
            "2",
            "--camera",
            "CAM-14",
            "--time-code",
            "21:14:05",
            "--disposition",
            "Result misdeclared by the dealer",
            "--employee",
            "D. Smith (4411)",
        ],
    );
    assert!(log.status.success(), "{}", text(&log.stderr));
    let pack = dir.path().join("incident-2.pwpack");
    let out = pitwatch_as(
        STAFF_PW,
        &[
            "incident",
            "pack",
            "--db",
            db_s,
            "--user",
            "sam",
            "2",
            "--out",
            pack.to_str().unwrap(),
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let said = text(&out.stdout);
    let fingerprint = said
        .split("signed by key ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("the fingerprint is printed: {said}"))
        .to_owned();

    // Another machine: only the pack travels; the record and its key stay behind.
    let elsewhere = tempfile::tempdir().unwrap();
    let copy = elsewhere.path().join("incident-2.pwpack");
    std::fs::copy(&pack, &copy).unwrap();
    drop(dir);
    let copy_s = copy.to_str().unwrap();
    let out = fresh(
        elsewhere.path(),
        &["verify", "--pack", copy_s, "--key", &fingerprint],
    );
    let shown = text(&out.stdout);
    assert!(out.status.success(), "{shown}\n{}", text(&out.stderr));
    for expected in [
        "incident 2 (RESULT_MISMATCH) at table BAC-1",
        "by sam",
        "evidence: incidents 1 row(s): 2",
        "evidence: incident_notes 2 row(s)",
        "surveillance log, by sam",
        "Time code: 21:14:05",
        "evidence: audit_log",
        "evidence: events",
        "checkpoint: pitwatch-checkpoint:1:",
        "verified",
    ] {
        assert!(shown.contains(expected), "{expected:?} in:\n{shown}");
    }
    // The report inside prints the surveillance log with the notes.
    let members = pitwatch_store::pack::tar::read(&std::fs::read(&copy).unwrap()).unwrap();
    let report = elsewhere.path().join("report.pdf");
    std::fs::write(
        &report,
        &members
            .iter()
            .find(|m| m.name == "report.pdf")
            .unwrap()
            .bytes,
    )
    .unwrap();
    let printed = pdftotext(&report);
    for expected in [
        "Camera or recording: CAM-14",
        "Employees involved: D. Smith (4411)",
    ] {
        assert!(printed.contains(expected), "{expected:?} in:\n{printed}");
    }
    // The public key in a file, as `pitwatch verify --db` prints it, does as well.
    let public_key = shown
        .split("public key ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap()
        .to_owned();
    let key_file = elsewhere.path().join("pit-3.pub");
    std::fs::write(
        &key_file,
        format!("# pit-3's installation key\n{public_key}\n"),
    )
    .unwrap();
    let out = fresh(
        elsewhere.path(),
        &[
            "verify",
            "--pack",
            copy_s,
            "--key",
            key_file.to_str().unwrap(),
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));

    // No key given, none installed here: consistent, but whose it is cannot be said.
    let out = fresh(elsewhere.path(), &["verify", "--pack", copy_s]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("CANNOT SAY WHOSE IT IS"));

    // Another installation's key: refused.
    let stranger = "0000-1111-2222-3333-4444-5555-6666-7777";
    let out = fresh(
        elsewhere.path(),
        &["verify", "--pack", copy_s, "--key", stranger],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("NOT VERIFIED"),
        "{}",
        text(&out.stderr)
    );

    // One byte of the report changed in the file.
    let mut bytes = std::fs::read(&copy).unwrap();
    let at = bytes.windows(5).position(|w| w == b"%PDF-").unwrap();
    bytes[at + 100] ^= 0x01;
    std::fs::write(&copy, &bytes).unwrap();
    let out = fresh(
        elsewhere.path(),
        &["verify", "--pack", copy_s, "--key", &fingerprint],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("report.pdf was changed"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn a_pack_needs_a_login_and_a_file_that_is_not_a_pack_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let db = recorded_database(dir.path());
    let db_s = db.to_str().unwrap();
    first_admin(db_s);
    let pack = dir.path().join("x.pwpack");
    let out = pitwatch_as(
        "wrong password entirely",
        &[
            "incident",
            "pack",
            "--db",
            db_s,
            "--user",
            "root",
            "1",
            "--out",
            pack.to_str().unwrap(),
        ],
    );
    assert!(!out.status.success());
    assert!(!pack.exists(), "nothing written without a login");
    let not_a_pack = dir.path().join("not.pwpack");
    std::fs::write(&not_a_pack, b"hello").unwrap();
    let out = pitwatch(&[
        "verify",
        "--pack",
        not_a_pack.to_str().unwrap(),
        "--key",
        "0000-1111-2222-3333-4444-5555-6666-7777",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("not an evidence pack"),
        "{}",
        text(&out.stderr)
    );
}
