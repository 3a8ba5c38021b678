//! `pitwatch export`: an incident's report as PDF, CSV and JSON, as a user writes it.

use super::*;

#[test]
fn export_writes_an_incident_report_as_pdf_csv_and_json() {
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
        "--site",
        "Demo Casino",
        capture.to_str().unwrap(),
    ]);
    assert!(out.status.success());
    first_admin(db_s);
    add_staff(db_s, "surveillance", "sam");
    assert!(pitwatch_as(
        STAFF_PW,
        &[
            "incident",
            "note",
            "--db",
            db_s,
            "--user",
            "sam",
            "2",
            "Camera 14 reviewed"
        ]
    )
    .status
    .success());
    let pdf = dir.path().join("incident.pdf");
    let csv = dir.path().join("incident.csv");
    let json = dir.path().join("incident.json");
    let out = pitwatch_as(
        STAFF_PW,
        &[
            "export",
            "incident",
            "--user",
            "sam",
            "2",
            "--db",
            db_s,
            "--pdf",
            pdf.to_str().unwrap(),
            "--csv",
            csv.to_str().unwrap(),
            "--json",
            json.to_str().unwrap(),
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));

    let pdf = pdftotext(&pdf);
    for expected in [
        // The irregularity in words, its code beside it for search.
        "Incident 2: Declared result differs from the cards",
        "(RESULT_MISMATCH)",
        "Demo Casino",
        "Camera 14 reviewed",
        "4S 2D",
        "KD 5C 2H",
    ] {
        assert!(pdf.contains(expected), "the PDF shows {expected}:\n{pdf}");
    }
    let csv = std::fs::read_to_string(&csv).unwrap();
    assert!(
        csv.contains(r#""Incident","field","Code","RESULT_MISMATCH""#),
        "{csv}"
    );
    assert!(
        csv.contains(r#""Rule cited","field","Rule","10.1""#),
        "{csv}"
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(
        json["title"],
        "Incident 2: Declared result differs from the cards (RESULT_MISMATCH)"
    );
    assert_eq!(json["build"], pitwatch_report::build::label());
    // The anchor in the report is the hash of the incident's latest chained row, which verify checks.
    let anchor = json["footer"]
        .as_str()
        .unwrap()
        .rsplit("anchor ")
        .next()
        .unwrap()
        .to_owned();
    let conn = rusqlite::Connection::open(&db).unwrap();
    let hash: Vec<u8> = conn
        .query_row(
            "SELECT hash FROM incident_changes WHERE incident_id = 2 ORDER BY id DESC LIMIT 1",
            [],
            |r| r.get(0),
        )
        .unwrap();
    let hex: String = hash.iter().map(|b| format!("{b:02x}")).collect();
    assert!(hex.starts_with(&anchor), "{anchor} vs {hex}");

    let shoe_pdf = dir.path().join("shoe.pdf");
    let out = pitwatch_as(
        STAFF_PW,
        &[
            "export",
            "shoe",
            "--user",
            "sam",
            "--db",
            db_s,
            "--table",
            "BAC-1",
            "--shoe",
            "1",
            "--pdf",
            shoe_pdf.to_str().unwrap(),
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = pitwatch_as(
        STAFF_PW,
        &[
            "export",
            "incident",
            "--user",
            "sam",
            "99",
            "--db",
            db_s,
            "--pdf",
            shoe_pdf.to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("no incident 99"));

    // The shift handover report of the day, by a named author.
    let shift_pdf = dir.path().join("shift.pdf");
    let shift_json = dir.path().join("shift.json");
    let out = pitwatch_as(
        STAFF_PW,
        &[
            "export",
            "shift",
            "--user",
            "sam",
            "--db",
            db_s,
            "--from",
            "2000-01-01T00:00:00Z",
            "--to",
            "2100-01-01T00:00:00Z",
            "--author",
            "Mere Tūhoe",
            "--pdf",
            shift_pdf.to_str().unwrap(),
            "--json",
            shift_json.to_str().unwrap(),
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let shift = pdftotext(&shift_pdf);
    for expected in [
        "Shift report 2000-01-01 00:00:00 to 2100-01-01 00:00:00",
        "Demo Casino",
        "RESULT_MISMATCH",
        "BAC-1",
        "incident_changes",
    ] {
        assert!(
            shift.contains(expected),
            "the shift report shows {expected}:\n{shift}"
        );
    }
    let info = Command::new("pdfinfo").arg(&shift_pdf).output().unwrap();
    assert!(
        text(&info.stdout).contains("Mere Tūhoe"),
        "{}",
        text(&info.stdout)
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&shift_json).unwrap()).unwrap();
    assert_eq!(json["author"], "Mere Tūhoe");
    // A shift that ends before it starts is refused with the reason.
    let out = pitwatch_as(
        STAFF_PW,
        &[
            "export",
            "shift",
            "--user",
            "sam",
            "--db",
            db_s,
            "--from",
            "2026-11-30T18:00:00Z",
            "--to",
            "2026-11-30T06:00:00Z",
            "--pdf",
            shift_pdf.to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("must end after it starts"),
        "{}",
        text(&out.stderr)
    );
}
