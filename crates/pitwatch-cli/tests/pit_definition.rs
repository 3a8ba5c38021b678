//! `pitwatch monitor` reads the pit definition table by table: a table whose section is wrong is
//! listed as disabled with every one of its problems and its line; with no table left to run it
//! stops, saying so.

use std::process::Command;

#[test]
fn a_wrong_section_is_listed_disabled_with_its_problems_and_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("pit.toml");
    std::fs::write(
        &config,
        "[site]\nname = \"One table\"\n\n[[table]]\nname = \"BAC-9\"\ngame = \"baccarat\"\nrulez = \"nz-baccarat\"\ndevice = { protocol = \"barcode\" }\nlink = { kind = \"serial\", path = \"/dev/ttyUSB9\", baud = 96000 }\n",
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_pitwatch"))
        .args(["monitor", "--config"])
        .arg(&config)
        .arg("--db")
        .arg(dir.path().join("x.db"))
        .env("PITWATCH_KEY", dir.path().join("signing.key"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("table BAC-9 (line 4) DISABLED: 1 problem(s)"),
        "{stderr}"
    );
    assert!(
        stderr.contains("table 1 (\"BAC-9\") at line 4: unknown field `rulez`, expected one of"),
        "{stderr}"
    );
    assert!(stderr.contains("no table can run (1 disabled)"), "{stderr}");
    assert!(!dir.path().join("x.db").exists(), "nothing recorded");
}
