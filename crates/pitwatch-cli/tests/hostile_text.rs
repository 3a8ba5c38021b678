//! Hostile text through every output of the `pitwatch` binary (issue 26, the untrusted-text rule
//! in `pitwatch_report::untrusted`): a table named `@SUM(9)`, a site named `=1+2`, a note whose
//! line feed reads like a resolution by root, device text holding a right-to-left override, and
//! then arbitrary Unicode (a property test), through `incidents`, `incidents --json`,
//! `incident show` and the incident, shoe and shift exports (CSV, JSON, PDF).
//!
//! The exported CSVs are opened in a real spreadsheet, LibreOffice (Debian's
//! `libreoffice-calc-nogui`, installed by `scripts/install-system-deps.sh`): no cell may hold a
//! formula and every cell must read as written. Only that check is skipped, with a message, when
//! `soffice` is missing. The PDFs need poppler-utils (a missing tool fails).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use pitwatch_report::untrusted;
use proptest::prelude::*;

fn key_file() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("hostile-text-tests/signing.key")
}

fn command() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_pitwatch"));
    command.env("PITWATCH_KEY", key_file());
    command
}

fn run(password: &str, args: &[&str]) -> Output {
    command()
        .args(args)
        .env("PITWATCH_PASSWORD", password)
        .output()
        .expect("pitwatch runs")
}

fn ok(password: &str, args: &[&str]) -> String {
    let out = run(password, args);
    assert!(
        out.status.success(),
        "pitwatch {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("the CLI prints UTF-8")
}

const ROOT_PW: &str = "root keeps the pit keys 42";
const STAFF_PW: &str = "correct horse battery staple";

/// A shoe with a burn fault, a result fault and a device error whose text is `device_text`.
fn events(device_text: &str) -> String {
    let error = serde_json::json!({"event": "device_error", "code": "E7", "text": device_text});
    format!(
        r#"{{"event":"shuffled","decks":8,"shuffler":"batch"}}
{{"event":"cut","position":180}}
{{"event":"cutting_card_placed","from_back":24}}
{{"event":"card_drawn","card":"3H","target":"first","face_up":true}}
{{"event":"card_drawn","card":"KD","target":"burn"}}
{{"event":"card_drawn","card":"7C","target":"burn"}}
{{"event":"burn_counted","count":2}}
{error}
{{"event":"card_drawn","card":"4S","target":"player","index":1}}
{{"event":"card_drawn","card":"KD","target":"banker","index":1}}
{{"event":"card_drawn","card":"2D","target":"player","index":2}}
{{"event":"card_drawn","card":"5C","target":"banker","index":2}}
{{"event":"card_drawn","card":"2H","target":"banker","index":3}}
{{"event":"result_declared","outcome":"player"}}
"#
    )
}

/// A record of `table` at `site` with the shoe of [`events`], root as its administrator and
/// sam (surveillance) as staff.
fn record(dir: &Path, table: &str, site: &str, device_text: &str) -> String {
    let db = dir.join("pit.db").to_str().unwrap().to_owned();
    let capture = dir.join("shoe.jsonl");
    std::fs::write(&capture, events(device_text)).unwrap();
    ok(
        "",
        &[
            "import",
            "--db",
            &db,
            "--table",
            table,
            "--format",
            "events",
            "--site",
            site,
            capture.to_str().unwrap(),
        ],
    );
    ok(
        ROOT_PW,
        &["user", "add", "--db", &db, "--role", "admin", "root"],
    );
    let out = command()
        .args([
            "user",
            "add",
            "--db",
            &db,
            "--admin",
            "root",
            "--role",
            "surveillance",
            "sam",
        ])
        .env("PITWATCH_ADMIN_PASSWORD", ROOT_PW)
        .env("PITWATCH_PASSWORD", STAFF_PW)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    db
}

/// `incidents --json`: every line one JSON object (the output parses whatever the text).
fn incidents_json(db: &str) -> Vec<serde_json::Value> {
    let out = ok("", &["incidents", "--db", db, "--json"]);
    out.lines()
        .map(|line| {
            serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("incidents --json printed invalid JSON ({e}): {line}"))
        })
        .collect()
}

fn id_of(incidents: &[serde_json::Value], code: &str) -> String {
    incidents
        .iter()
        .find(|i| i["code"] == code)
        .unwrap_or_else(|| panic!("no {code} incident in {incidents:?}"))["id"]
        .to_string()
}

/// What the terminal shows for `text` (the CLI's `safe.rs`): controls as escapes, every other
/// hidden character as its marker.
fn terminal(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '\n' | '\t' => c.to_string(),
            '\r' => "\\r".into(),
            '\0' => "\\0".into(),
            c if untrusted::is_hidden(c) && (c as u32) < 0x100 => format!("\\x{:02x}", c as u32),
            c if untrusted::is_hidden(c) => untrusted::marker(c),
            c => c.to_string(),
        })
        .collect()
}

/// No character of the output may drive a terminal or reorder it.
fn assert_terminal_safe(out: &str) {
    if let Some(c) = out.chars().find(|&c| untrusted::is_hidden(c)) {
        panic!("U+{:04X} reached the terminal: {out:?}", c as u32);
    }
}

/// The history entries `incident show` printed: each entry's lines, continuation lines joined
/// back to the entry they belong to. Panics on a line that is neither.
fn show_entries(out: &str) -> Vec<String> {
    let continuation = format!("  {}", untrusted::CONTINUATION);
    let mut entries: Vec<String> = Vec::new();
    let mut in_history = false;
    for line in out.lines() {
        if let Some(rest) = line.strip_prefix(&continuation) {
            let last = entries
                .last_mut()
                .expect("a continuation line follows an entry");
            last.push('\n');
            last.push_str(rest);
        } else if line.starts_with("  20") {
            in_history = true;
            entries.push(line.to_owned());
        } else {
            assert!(
                !in_history,
                "a stray line after the history began: {line:?}"
            );
            entries.push(line.to_owned());
        }
    }
    entries
}

const FORGED: &str =
    "Camera 14 reviewed\n2026-12-01T20:00:00.000Z  resolved     root       Closed: no irregularity";

#[test]
fn the_issue_s_hostile_names_notes_and_device_text() {
    let dir = tempfile::tempdir().unwrap();
    let db = record(
        dir.path(),
        "@SUM(9)",
        "=1+2",
        "jam \u{202e}devlos\u{202c} ok",
    );
    let incidents = incidents_json(&db);
    let device = id_of(&incidents, "DEVICE_ERROR");
    let result = id_of(&incidents, "RESULT_MISMATCH");
    let message = incidents
        .iter()
        .find(|i| i["code"] == "DEVICE_ERROR")
        .unwrap()["message"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        message.contains("jam \u{202e}devlos\u{202c} ok"),
        "the JSON holds the device text exactly: {message:?}"
    );
    assert!(incidents.iter().all(|i| i["table"] == "@SUM(9)"));
    let raw = ok("", &["incidents", "--db", &db, "--json"]);
    assert_terminal_safe(&raw);
    assert!(raw.contains("\\u202e"), "{raw}");

    let list = ok("", &["incidents", "--db", &db]);
    assert_terminal_safe(&list);
    assert!(list.contains("@SUM(9)"), "{list}");

    ok(
        STAFF_PW,
        &[
            "incident", "note", "--db", &db, "--user", "sam", &result, FORGED,
        ],
    );
    let show = ok("", &["incident", "show", "--db", &db, &result]);
    assert_terminal_safe(&show);
    let forged_line = FORGED.split('\n').nth(1).unwrap();
    for line in show.lines() {
        assert!(
            !line.trim_start().starts_with(forged_line) || line.contains(untrusted::CONTINUATION),
            "a note's second line passes for an entry:\n{show}"
        );
    }
    let entries = show_entries(&show);
    let noted: Vec<&String> = entries.iter().filter(|e| e.contains(" note ")).collect();
    assert_eq!(noted.len(), 1, "{show}");
    assert!(
        noted[0].ends_with(FORGED),
        "the note is whole in its entry:\n{show}"
    );
    assert!(
        !entries
            .iter()
            .any(|e| e.contains("resolved ") && !e.contains(" note ")),
        "{show}"
    );

    let show = ok("", &["incident", "show", "--db", &db, &device]);
    assert_terminal_safe(&show);
    assert!(show.contains("jam <U+202E>devlos<U+202C> ok"), "{show}");

    // The exports: the incident with the note, the device's incident, the shoe and the shift.
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("hostile-text");
    std::fs::create_dir_all(&out).unwrap();
    let path = |name: &str| out.join(name).to_str().unwrap().to_owned();
    let export = |what: &[&str], name: &str| {
        let mut args = vec!["export"];
        args.extend_from_slice(what);
        let (pdf, csv, json) = (
            path(&format!("{name}.pdf")),
            path(&format!("{name}.csv")),
            path(&format!("{name}.json")),
        );
        args.extend_from_slice(&[
            "--user", "sam", "--db", &db, "--pdf", &pdf, "--csv", &csv, "--json", &json,
        ]);
        ok(STAFF_PW, &args);
        (pdf, csv, json)
    };
    let shift = [
        "shift",
        "--from",
        "2000-01-01T00:00:00Z",
        "--to",
        "2100-01-01T00:00:00Z",
    ];
    let exports = [
        export(&["incident", &result], "incident-note"),
        export(&["incident", &device], "incident-device"),
        export(&["shoe", "--table", "@SUM(9)", "--shoe", "1"], "shoe"),
        export(&shift, "shift"),
    ];
    for (pdf, csv, json) in &exports {
        let text = std::fs::read_to_string(csv).unwrap();
        let cells = csv_cells(&text);
        for cell in cells.iter().flatten() {
            assert!(
                !cell.starts_with(['=', '+', '-', '@', '\t', '\r']),
                "{csv}: a cell that could be a formula: {cell:?}"
            );
        }
        spreadsheet_reads_as_written(Path::new(csv), &cells);
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap();
        let pdf_text = pdftotext(Path::new(pdf));
        assert!(
            !pdf_text.chars().any(untrusted::is_format),
            "{pdf}: a format character in the PDF's text"
        );
        let _ = json;
    }
    // The site and table names are cells that read as text.
    let incident_csv = std::fs::read_to_string(&exports[0].1).unwrap();
    let cells = csv_cells(&incident_csv);
    let subtitle = &cells.iter().find(|r| r[1] == "subtitle").unwrap()[3];
    assert!(subtitle.starts_with("'=1+2 · table @SUM(9)"), "{subtitle}");
    assert_eq!(
        untrusted::spreadsheet_original(subtitle),
        incident_json_subtitle(&exports[0].2)
    );
    assert!(
        cells.iter().any(|r| r[3].contains(FORGED)),
        "the note is one cell, whole"
    );
    // The device text's override is a visible marker in the incident and shift PDFs.
    for pdf in [&exports[1].0, &exports[3].0] {
        let text = pdftotext(Path::new(pdf));
        assert!(text.contains("<U+202E>devlos<U+202C>"), "{pdf}:\n{text}");
        assert!(!text.contains('\u{202e}'));
    }
    // In the PDF the note's second line stays in its cell, indented: never at the left margin,
    // where each row's time is.
    let note_pdf = pdftotext(Path::new(&exports[0].0));
    assert!(note_pdf.contains("Camera 14 reviewed"), "{note_pdf}");
    let forged = note_pdf
        .lines()
        .find(|l| l.contains("2026-12-01T20:00:00.000Z"))
        .unwrap_or_else(|| panic!("the note's second line is in the PDF:\n{note_pdf}"));
    assert!(forged.starts_with("      "), "{forged:?}");
}

fn incident_json_subtitle(path: &str) -> String {
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    json["subtitle"].as_str().unwrap().to_owned()
}

/// Whether a string somewhere in `value` contains `needle`.
fn holds(value: &serde_json::Value, needle: &str) -> bool {
    match value {
        serde_json::Value::String(s) => s.contains(needle),
        serde_json::Value::Array(items) => items.iter().any(|v| holds(v, needle)),
        serde_json::Value::Object(map) => map.values().any(|v| holds(v, needle)),
        _ => false,
    }
}

fn csv_cells(text: &str) -> Vec<Vec<String>> {
    csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(text.as_bytes())
        .records()
        .map(|r| {
            r.expect("the CSV parses")
                .iter()
                .map(str::to_owned)
                .collect()
        })
        .collect()
}

fn pdftotext(pdf: &Path) -> String {
    let out = Command::new("pdftotext")
        .args(["-layout", "-enc", "UTF-8"])
        .arg(pdf)
        .arg("-")
        .output()
        .expect("pdftotext runs (install poppler-utils: scripts/install-system-deps.sh)");
    assert!(out.status.success());
    without_extraction_marks(&String::from_utf8(out.stdout).unwrap())
}

/// `text` without the embedding marks pdftotext itself writes when a page holds right-to-left
/// letters (RLE, LRE and PDF around each run it reorders, neutral characters and all): they are
/// not in the PDF. On a page without such letters, and every other format character anywhere,
/// stay to be found.
fn without_extraction_marks(text: &str) -> String {
    let rtl = |c: char| matches!(c as u32, 0x0590..=0x08FF | 0xFB1D..=0xFDFF | 0xFE70..=0xFEFF);
    if !text.chars().any(rtl) {
        return text.to_owned();
    }
    text.chars()
        .filter(|c| !matches!(c, '\u{202A}' | '\u{202B}' | '\u{202C}'))
        .collect()
}

#[test]
fn only_pdftotexts_own_marks_around_a_right_to_left_run_are_taken_out() {
    assert_eq!(
        without_extraction_marks("x \u{202B}\u{5E9}\u{202C} y"),
        "x \u{5E9} y"
    );
    // A mark that wraps no right-to-left letter is not pdftotext's: it stays.
    assert_eq!(
        without_extraction_marks("\u{202B}abc\u{202C}"),
        "\u{202B}abc\u{202C}"
    );
    assert_eq!(
        without_extraction_marks("\u{202E}\u{5E9}"),
        "\u{202E}\u{5E9}"
    );
}

/// Opens `csv` in LibreOffice Calc as a user would (UTF-8, comma-separated, formulas evaluated
/// as on any import) and checks that no cell became a formula (the sheet saved as ODS holds no
/// `table:formula`) and that every cell reads exactly as written (the sheet saved as CSV again).
/// Skipped, saying so, only when `soffice` is not installed.
fn spreadsheet_reads_as_written(csv: &Path, cells: &[Vec<String>]) {
    if Command::new("soffice").arg("--version").output().is_err() {
        eprintln!(
            "SKIPPED the spreadsheet check of {}: soffice is not installed \
             (libreoffice-calc-nogui; scripts/install-system-deps.sh)",
            csv.display()
        );
        return;
    }
    let work = tempfile::tempdir().unwrap();
    let profile = format!(
        "-env:UserInstallation=file://{}",
        work.path().join("profile").display()
    );
    let convert = |to: &str, dir: &str| {
        let out = Command::new("soffice")
            .args([
                "--headless",
                "--norestore",
                &profile,
                "--infilter=CSV:44,34,76,1",
            ])
            .args(["--convert-to", to, "--outdir"])
            .arg(work.path().join(dir))
            .arg(csv)
            .output()
            .expect("soffice runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let name = csv.file_stem().unwrap().to_str().unwrap();
        let ext = if to == "ods" { "ods" } else { "csv" };
        work.path().join(dir).join(format!("{name}.{ext}"))
    };
    let ods = convert("ods", "ods");
    let content = Command::new("unzip")
        .args(["-p"])
        .arg(&ods)
        .arg("content.xml")
        .output()
        .expect("unzip runs");
    let content = String::from_utf8(content.stdout).unwrap();
    assert!(
        content.contains("<table:table "),
        "{} did not open as a sheet",
        csv.display()
    );
    assert!(
        !content.contains("table:formula"),
        "{}: LibreOffice reads a cell as a formula",
        csv.display()
    );
    let again = convert("csv:Text - txt - csv (StarCalc):44,34,76,1,,0,true", "csv");
    let read = csv_cells(&std::fs::read_to_string(&again).unwrap());
    assert_eq!(read.len(), cells.len(), "{}", csv.display());
    for (row, (got, want)) in read.iter().zip(cells).enumerate() {
        for (col, want) in want.iter().enumerate() {
            let got = got.get(col).map_or("", String::as_str);
            assert_eq!(got, want, "{} row {row} column {col}", csv.display());
        }
    }
}

/// A note or device text as arbitrary Unicode (but NUL, which neither argv nor a file name can
/// hold).
fn hostile_text() -> impl Strategy<Value = String> {
    let c = prop_oneof![
        4 => any::<char>().prop_filter("no NUL", |&c| c != '\0'),
        3 => proptest::char::range('a', 'z'),
        2 => prop::sample::select(vec![
            '\u{202A}', '\u{202B}', '\u{202C}', '\u{202D}', '\u{202E}', '\u{2066}', '\u{2069}',
            '\u{200E}', '\u{200F}', '\u{061C}', '\u{200B}', '\u{FEFF}', '\u{2028}', '\u{E0041}',
        ]),
        2 => prop::sample::select(vec!['\n', '\r', '\t', '\u{1b}', '\u{7f}', '\u{85}', '\u{9b}']),
        2 => prop::sample::select(vec!['=', '+', '-', '@', '\'', '"', ',', ' ']),
        1 => proptest::char::range('\u{300}', '\u{36F}'),
        1 => proptest::char::range('\u{1F600}', '\u{1F64F}'),
    ];
    prop_oneof![
        6 => proptest::collection::vec(c.clone(), 1..40),
        1 => proptest::collection::vec(c, 1..10).prop_map(|v| v.repeat(300)),
    ]
    .prop_map(|v| format!("x{}", v.into_iter().collect::<String>()))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_text_through_every_cli_output(device_text in hostile_text(), note in hostile_text()) {
        let dir = tempfile::tempdir().unwrap();
        let db = record(dir.path(), "BAC-1", "Te Whare Petipeti", &device_text);
        let incidents = incidents_json(&db);
        let device = id_of(&incidents, "DEVICE_ERROR");
        let message = incidents.iter().find(|i| i["code"] == "DEVICE_ERROR").unwrap()["message"]
            .as_str().unwrap().to_owned();
        prop_assert!(message.contains(&device_text), "{:?} not in {:?}", device_text, message);
        assert_terminal_safe(&ok("", &["incidents", "--db", &db, "--json"]));
        assert_terminal_safe(&ok("", &["incidents", "--db", &db]));

        let noted = run(STAFF_PW, &["incident", "note", "--db", &db, "--user", "sam", &device, &note]);
        let show = ok("", &["incident", "show", "--db", &db, &device]);
        assert_terminal_safe(&show);
        let entries = show_entries(&show);
        // The message is one entry (its lines continued under it), shown as the terminal shows it.
        prop_assert!(entries.iter().any(|e| e.contains(&terminal(&device_text))), "{}", show);
        if noted.status.success() {
            let shown = terminal(note.trim());
            let mine: Vec<&String> = entries.iter().filter(|e| e.contains(" note ")).collect();
            prop_assert_eq!(mine.len(), 1, "{}", show);
            prop_assert!(mine[0].contains(&shown), "{:?} not in {:?}", shown, mine[0]);
        }

        let csv = dir.path().join("incident.csv");
        let json = dir.path().join("incident.json");
        ok(STAFF_PW, &[
            "export", "incident", &device, "--user", "sam", "--db", &db,
            "--csv", csv.to_str().unwrap(), "--json", json.to_str().unwrap(),
        ]);
        let cells = csv_cells(&std::fs::read_to_string(&csv).unwrap());
        prop_assert!(cells.iter().all(|r| r.len() == 4));
        prop_assert!(cells.iter().flatten().all(|c| !c.starts_with(['=', '+', '-', '@', '\t', '\r'])));
        prop_assert!(cells.iter().any(|r| untrusted::spreadsheet_original(&r[3]).contains(&device_text)));
        let doc: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        prop_assert!(doc.to_string().len() > 2);
        let paragraphs: Vec<&str> = doc["blocks"].as_array().unwrap().iter()
            .filter_map(|b| b["text"].as_str()).collect();
        prop_assert!(paragraphs.iter().any(|p| p.contains(&device_text)));

        // The shift (the device's text in its device errors) and the shoe, in every format.
        for (what, name) in [
            (vec!["shift", "--from", "2000-01-01T00:00:00Z", "--to", "2100-01-01T00:00:00Z"], "shift"),
            (vec!["shoe", "--table", "BAC-1", "--shoe", "1"], "shoe"),
        ] {
            let (csv, json, pdf) = (
                dir.path().join(format!("{name}.csv")),
                dir.path().join(format!("{name}.json")),
                dir.path().join(format!("{name}.pdf")),
            );
            let mut args = vec!["export"];
            args.extend(what);
            args.extend([
                "--user", "sam", "--db", &db, "--csv", csv.to_str().unwrap(),
                "--json", json.to_str().unwrap(), "--pdf", pdf.to_str().unwrap(),
            ]);
            ok(STAFF_PW, &args);
            let cells = csv_cells(&std::fs::read_to_string(&csv).unwrap());
            prop_assert!(cells.iter().all(|r| r.len() == 4));
            prop_assert!(cells.iter().flatten().all(|c| !c.starts_with(['=', '+', '-', '@', '\t', '\r'])));
            let json: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
            let text = pdftotext(&pdf);
            prop_assert!(!text.chars().any(untrusted::is_format), "{}: {:?}", name, text);
            if name == "shift" {
                prop_assert!(cells.iter().any(|r| untrusted::spreadsheet_original(&r[3]).contains(&device_text)));
                prop_assert!(holds(&json, &device_text), "the shift's JSON holds the device's text");
            }
        }
    }
}
