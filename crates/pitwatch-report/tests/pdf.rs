//! The PDF as a reader gets it: the text poppler extracts (every script exactly, tables row by
//! row), the metadata, the embedded and subsetted fonts, the tag tree, and pagination. Needs
//! poppler-utils (`pdftotext`, `pdfinfo`, `pdffonts`), which `scripts/install-system-deps.sh`
//! installs; a missing tool fails the test rather than skipping it.

use std::path::{Path, PathBuf};
use std::process::Command;

use chrono::TimeZone;
use pitwatch_report::{render_pdf, Block, Document};

fn sample(rows: usize) -> Document {
    Document {
        title: "Incident 7: CARD_EXPOSED".into(),
        subtitle: "Te Whare Petipeti · table BAC-1 · opened 2026-11-30T09:00:00Z".into(),
        footer: "Pitwatch incident report 7 · anchor 9f86d081".into(),
        build: "Pitwatch 1.2.3 (build 6929b7d1c2e3)".into(),
        author: "Mere Tūhoe".into(),
        created: Some(
            chrono::Utc
                .with_ymd_and_hms(2026, 11, 30, 9, 30, 5)
                .unwrap(),
        ),
        blocks: vec![
            Block::Heading {
                text: "Incident".into(),
            },
            Block::Fields {
                fields: vec![
                    ("Severity".into(), "high".into()),
                    ("Acknowledged by".into(), "Mere Tūhoe".into()),
                    ("Note".into(), "監控已檢查".into()),
                ],
            },
            Block::Paragraph {
                text: "Kua tirohia te kāmera 14. Ka tukuna te pūrongo ki te kaiwhakahaere; \
                       監控已檢查，沒有發現問題。"
                    .into(),
            },
            Block::Verbatim {
                text: "7.7 (b) The dealer shall burn cards — ā, ē, ī, ō, ū.".into(),
            },
            Block::Heading {
                text: "Notes and sign-offs".into(),
            },
            Block::Table {
                columns: vec!["Time (UTC)".into(), "By".into(), "Text".into()],
                widths: vec![20, 14, 40],
                rows: (0..rows)
                    .map(|i| {
                        vec![
                            format!("2026-11-30T09:{:02}:00Z", i % 60),
                            if i % 2 == 0 {
                                "Mere Tūhoe"
                            } else {
                                "王小明"
                            }
                            .to_owned(),
                            format!("Row {i}: Kua tirohia te kāmera 14 / 監控已檢查"),
                        ]
                    })
                    .collect(),
            },
        ],
    }
}

fn out_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("pitwatch-report");
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    dir
}

fn poppler(tool: &str, args: &[&str], pdf: &Path) -> String {
    let output = Command::new(tool)
        .args(args)
        .arg(pdf)
        .args(if tool == "pdftotext" {
            &["-"][..]
        } else {
            &[][..]
        })
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "{tool} cannot run ({e}): install poppler-utils (scripts/install-system-deps.sh)"
            )
        });
    assert!(
        output.status.success(),
        "{tool} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("poppler writes UTF-8")
}

fn write(name: &str, document: &Document) -> PathBuf {
    let path = out_dir().join(name);
    std::fs::write(&path, render_pdf(document).expect("a PDF").bytes).expect("written");
    path
}

#[test]
fn every_script_comes_out_of_the_pdf_exactly_as_it_went_in() {
    let pdf = write("scripts.pdf", &sample(3));
    let text = poppler("pdftotext", &["-layout"], &pdf);
    for expected in [
        "Incident 7: CARD_EXPOSED",
        "Te Whare Petipeti",
        "Mere Tūhoe",
        "監控已檢查",
        "Kua tirohia te kāmera 14.",
        "監控已檢查，沒有發現問題。",
        "ā, ē, ī, ō, ū",
        "王小明",
    ] {
        assert!(text.contains(expected), "{expected:?} not in:\n{text}");
    }
    assert!(!text.contains('?'), "a character was replaced:\n{text}");
}

#[test]
fn a_table_reads_row_by_row_and_cell_by_cell() {
    let pdf = write("table.pdf", &sample(3));
    // Reading order (no -layout): what copy-paste and a screen reader get.
    let text = poppler("pdftotext", &[], &pdf);
    let rows: Vec<usize> = (0..3)
        .map(|i| {
            text.find(&format!("2026-11-30T09:{i:02}:00Z"))
                .unwrap_or_else(|| panic!("row {i} in:\n{text}"))
        })
        .collect();
    assert!(rows.windows(2).all(|w| w[0] < w[1]), "{text}");
    // With the layout kept, each row is one line: time, who, text.
    let layout = poppler("pdftotext", &["-layout"], &pdf);
    let line = layout
        .lines()
        .find(|l| l.contains("2026-11-30T09:01:00Z"))
        .expect("row 1");
    let (time, who, note) = (
        line.find("2026-11-30T09:01:00Z").unwrap(),
        line.find("王小明").expect("who on the row's line"),
        line.find("Row 1:").expect("text on the row's line"),
    );
    assert!(time < who && who < note, "{line}");
}

#[test]
fn the_metadata_has_title_author_and_creation_time_in_utc() {
    let pdf = write("metadata.pdf", &sample(1));
    let info = poppler("pdfinfo", &["-isodates"], &pdf);
    let field = |name: &str| {
        info.lines()
            .find_map(|l| l.strip_prefix(&format!("{name}:")))
            .map(str::trim)
            .unwrap_or_else(|| panic!("no {name} in:\n{info}"))
            .to_owned()
    };
    assert_eq!(field("Title"), "Incident 7: CARD_EXPOSED");
    assert_eq!(field("Author"), "Mere Tūhoe");
    assert_eq!(field("Creator"), "Pitwatch 1.2.3 (build 6929b7d1c2e3)");
    assert_eq!(field("CreationDate"), "2026-11-30T09:30:05Z");
    assert_eq!(field("Tagged"), "yes");
    assert_eq!(field("Pages"), "1");
}

#[test]
fn fonts_are_embedded_and_subsetted() {
    let pdf = write("fonts.pdf", &sample(1));
    let fonts = poppler("pdffonts", &[], &pdf);
    let rows: Vec<&str> = fonts.lines().skip(2).collect();
    assert!(rows.len() >= 4, "regular, bold, mono and CJK:\n{fonts}");
    for row in &rows {
        let columns: Vec<&str> = row.split_whitespace().collect();
        // name type encoding emb sub uni object ID
        let n = columns.len();
        assert_eq!(
            &columns[n - 5..n - 2],
            ["yes", "yes", "yes"],
            "embedded, subsetted, with a Unicode map: {row}"
        );
    }
    for family in [
        "NotoSans-Regular",
        "NotoSans-Bold",
        "NotoSansMono",
        "WenQuanYi",
    ] {
        assert!(fonts.contains(family), "{family} in:\n{fonts}");
    }
    // Subsetted: far smaller than the 6.7 MB of fonts it draws from.
    let size = std::fs::metadata(&pdf).expect("the file").len();
    assert!(size < 200_000, "{size} bytes");
}

#[test]
fn a_long_table_continues_on_further_pages_with_its_header_and_page_numbers() {
    let pdf = write("long.pdf", &sample(200));
    let info = poppler("pdfinfo", &[], &pdf);
    let pages: usize = info
        .lines()
        .find_map(|l| l.strip_prefix("Pages:"))
        .and_then(|p| p.trim().parse().ok())
        .expect("a page count");
    assert!(pages >= 4, "{pages} pages");
    assert_eq!(render_pdf(&sample(200)).expect("a PDF").pages, pages);
    let text = poppler("pdftotext", &["-layout"], &pdf);
    for page in 1..=pages {
        // Every page's footer: the document's, the version and build that made it, the page.
        let footer = text
            .lines()
            .find(|l| l.ends_with(&format!("page {page} of {pages}")))
            .unwrap_or_else(|| panic!("no footer of page {page}"));
        assert!(
            footer.starts_with(
                "Pitwatch incident report 7 · anchor 9f86d081 · Pitwatch 1.2.3 (build 6929b7d1c2e3) "
            ),
            "footer of page {page}: {footer}"
        );
    }
    // The header row is repeated on every page the table is on.
    assert_eq!(text.matches("Time (UTC)").count(), pages, "{text}");
    for i in 0..200 {
        assert!(text.contains(&format!("Row {i}: Kua tirohia")), "row {i}");
    }
}

#[test]
fn a_code_wider_than_its_column_is_never_split_between_lines() {
    // The report: the code column a sixth of a narrow table, the codes longer than that.
    let codes = [
        "UNAUTHORISED_THIRD_CARD",
        "SHUFFLE_COUNT_MISMATCH",
        "MISDEAL_AFTER_ACTION",
    ];
    let document = Document {
        title: "Shift report".into(),
        subtitle: "Te Whare Petipeti".into(),
        footer: "Pitwatch shift report".into(),
        build: String::new(),
        author: "Mere Tūhoe".into(),
        created: None,
        blocks: vec![Block::Table {
            columns: vec![
                "#".into(),
                "Table".into(),
                "Code".into(),
                "Severity".into(),
                "What happened".into(),
            ],
            widths: vec![4, 8, 10, 8, 40],
            rows: codes
                .iter()
                .enumerate()
                .map(|(i, code)| {
                    vec![
                        format!("{}", i + 1),
                        "BAC-1".into(),
                        (*code).into(),
                        "High".into(),
                        "The Player's hand of 5 was dealt a third card the rules do not allow"
                            .into(),
                    ]
                })
                .collect(),
        }],
    };
    let pdf = write("codes.pdf", &document);
    let text = poppler("pdftotext", &["-layout"], &pdf);
    for code in codes {
        assert!(
            text.lines().any(|l| l.contains(code)),
            "{code} is split:\n{text}"
        );
    }
}
