//! Hostile text through every report format (the untrusted-text rule, `untrusted.rs`): arbitrary
//! Unicode (controls, bidirectional controls and other format characters, combining marks,
//! astral planes, quotes, separators, formula starts, very long texts) as every name, note and
//! cell of a document. The CSV parses with the same number of cells, each the text exactly once
//! the documented neutralisation is undone, none able to start a formula; the JSON parses back to
//! the same strings; the PDF's text layer holds no hidden character, shows each one as its
//! marker, and keeps every line of a text inside its own cell. Needs `pdftotext` (poppler-utils,
//! installed by `scripts/install-system-deps.sh`).

use std::process::Command;

use pitwatch_report::untrusted::{self, spreadsheet_original};
use pitwatch_report::{render_pdf, Block, Document};
use proptest::prelude::*;

/// One character a hostile person or device might send.
fn hostile_char() -> impl Strategy<Value = char> {
    prop_oneof![
        4 => any::<char>(),
        3 => proptest::char::range('a', 'z'),
        2 => prop::sample::select(vec![
            '\u{202A}', '\u{202B}', '\u{202C}', '\u{202D}', '\u{202E}', '\u{2066}', '\u{2067}',
            '\u{2068}', '\u{2069}', '\u{200E}', '\u{200F}', '\u{061C}', '\u{200B}', '\u{200D}',
            '\u{FEFF}', '\u{00AD}', '\u{2028}', '\u{2029}', '\u{E0041}',
        ]),
        2 => prop::sample::select(vec![
            '\n', '\r', '\t', '\0', '\u{1b}', '\u{7f}', '\u{85}', '\u{9b}', '\u{7}',
        ]),
        2 => prop::sample::select(vec!['=', '+', '-', '@', '\'', '"', ',', ';', ' ', '|']),
        1 => proptest::char::range('\u{300}', '\u{36F}'),
        1 => proptest::char::range('\u{4E00}', '\u{4EFF}'),
        1 => proptest::char::range('\u{1F600}', '\u{1F64F}'),
        1 => proptest::char::range('\u{5D0}', '\u{5EA}'),
    ]
}

/// A hostile text: usually short, sometimes very long.
fn hostile_text() -> impl Strategy<Value = String> {
    prop_oneof![
        8 => proptest::collection::vec(hostile_char(), 0..40).prop_map(|c| c.into_iter().collect()),
        1 => proptest::collection::vec(hostile_char(), 1..20)
            .prop_map(|c| c.into_iter().collect::<String>().repeat(200)),
    ]
}

/// A document with `texts` in every place a name or note can be.
fn document(texts: &[String]) -> Document {
    let t = |i: usize| texts[i % texts.len()].clone();
    Document {
        title: t(0),
        subtitle: t(1),
        footer: t(2),
        build: t(3),
        author: t(3),
        created: None,
        blocks: vec![
            Block::Heading { text: t(4) },
            Block::Fields {
                fields: vec![(t(5), t(6)), ("Site".into(), t(7))],
            },
            Block::Paragraph { text: t(0) },
            Block::Table {
                columns: vec!["Time (UTC)".into(), "By".into(), "Text".into()],
                widths: vec![20, 12, 40],
                rows: vec![
                    vec!["2026-12-01T20:00:00Z".into(), t(1), t(2)],
                    vec![t(3), t(4), t(5)],
                ],
            },
        ],
    }
}

/// The cells the CSV must hold, in order (before neutralisation).
fn expected_cells(doc: &Document) -> Vec<[String; 4]> {
    let mut rows = vec![["section", "kind", "label", "value"].map(String::from)];
    let r = |s: &str, k: &str, l: &str, v: &str| [s, k, l, v].map(String::from);
    rows.push(r("", "title", "", &doc.title));
    rows.push(r("", "subtitle", "", &doc.subtitle));
    let mut section = String::new();
    for block in &doc.blocks {
        match block {
            Block::Heading { text } => section = text.clone(),
            Block::Fields { fields } => {
                for (l, v) in fields {
                    rows.push(r(&section, "field", l, v));
                }
            }
            Block::Paragraph { text } | Block::Verbatim { text } => {
                rows.push(r(&section, "text", "", text))
            }
            Block::Table {
                columns,
                rows: cells,
                ..
            } => {
                for row in cells {
                    let value = columns
                        .iter()
                        .zip(row)
                        .map(|(c, v)| format!("{c}={v}"))
                        .collect::<Vec<_>>()
                        .join("; ");
                    rows.push(r(&section, "row", &row[0], &value));
                }
            }
        }
    }
    rows.push(r("", "footer", "", &doc.footer));
    if !doc.build.is_empty() {
        rows.push(r("", "build", "", &doc.build));
    }
    if !doc.author.is_empty() {
        rows.push(r("", "author", "", &doc.author));
    }
    rows
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn csv_and_json_hold_every_text_exactly(texts in proptest::collection::vec(hostile_text(), 8)) {
        let doc = document(&texts);

        let csv = doc.to_csv();
        let mut reader = csv::ReaderBuilder::new().has_headers(false).from_reader(csv.as_bytes());
        let records: Vec<csv::StringRecord> = reader.records().collect::<Result<_, _>>().unwrap();
        let expected = expected_cells(&doc);
        prop_assert_eq!(records.len(), expected.len());
        for (record, want) in records.iter().zip(&expected) {
            prop_assert_eq!(record.len(), 4);
            for (cell, want) in record.iter().zip(want) {
                prop_assert!(
                    !cell.starts_with(['=', '+', '-', '@', '\t', '\r']),
                    "a cell that could be a formula: {:?}", cell
                );
                prop_assert_eq!(spreadsheet_original(cell), want.as_str());
                let neutralised = untrusted::spreadsheet_cell(want);
                prop_assert_eq!(cell, neutralised.as_ref());
            }
        }

        let json: serde_json::Value = serde_json::from_str(&doc.to_json()).unwrap();
        prop_assert_eq!(json["title"].as_str(), Some(doc.title.as_str()));
        prop_assert_eq!(json["subtitle"].as_str(), Some(doc.subtitle.as_str()));
        prop_assert_eq!(json["blocks"][1]["fields"][1][1].as_str(), Some(texts[7].as_str()));
        prop_assert_eq!(json["blocks"][3]["rows"][1][2].as_str(), Some(texts[5].as_str()));
        let back: serde_json::Value = serde_json::to_value(&doc).unwrap();
        prop_assert_eq!(json, back);
    }

    #[test]
    fn shown_text_has_no_hidden_character_and_undoes_to_the_original(text in hostile_text()) {
        let shown = untrusted::visible(&text);
        prop_assert!(!shown.chars().any(untrusted::is_hidden));
        // Each marker stands for one character: replacing them back gives the text again.
        let mut back = String::new();
        let mut rest = shown.as_ref();
        while let Some(start) = rest.find("<U+") {
            back.push_str(&rest[..start]);
            let after = &rest[start + 3..];
            let end = after.find('>').unwrap();
            match u32::from_str_radix(&after[..end], 16).ok().and_then(char::from_u32) {
                Some(c) if untrusted::is_hidden(c) && after[..end].len() >= 4 => back.push(c),
                _ => back.push_str(&rest[start..start + 3 + end + 1]),
            }
            rest = &after[end + 1..];
        }
        back.push_str(rest);
        prop_assert_eq!(back, text.clone());
        prop_assert_eq!(untrusted::lines(&shown).count(), text.split('\n').count());
    }
}

/// What `pdftotext -raw` extracts from `pdf`.
fn pdftotext(pdf: &[u8]) -> String {
    let dir = tempfile_dir();
    let path = dir.join(format!("p{}.pdf", std::process::id()));
    std::fs::write(&path, pdf).unwrap();
    let out = Command::new("pdftotext")
        .args(["-raw", "-enc", "UTF-8"])
        .arg(&path)
        .arg("-")
        .output()
        .expect("pdftotext runs (install poppler-utils: scripts/install-system-deps.sh)");
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap()
}

fn tempfile_dir() -> std::path::PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("untrusted-pdf");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Characters whose PDF text is compared exactly: no right-to-left letters (poppler reorders
/// those for reading) and no combining marks (poppler may compose them).
fn pdf_char() -> impl Strategy<Value = char> {
    prop_oneof![
        4 => proptest::char::range('a', 'z'),
        1 => Just(' '),
        2 => prop::sample::select(vec![
            '\u{202A}', '\u{202B}', '\u{202C}', '\u{202D}', '\u{202E}', '\u{2066}', '\u{2067}',
            '\u{2068}', '\u{2069}', '\u{200E}', '\u{200F}', '\u{061C}', '\u{200B}', '\u{FEFF}',
            '\u{2028}', '\u{0}', '\u{1b}', '\u{7f}', '\u{85}', '=', '@', '\'',
        ]),
        1 => proptest::char::range('\u{4E00}', '\u{4E3F}'),
        1 => prop::sample::select(vec!['ā', 'ē', 'ī', 'ō', 'ū', 'Ā']),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn the_pdf_shows_hidden_characters_as_markers_and_keeps_lines_in_their_cell(
        lines in proptest::collection::vec(proptest::collection::vec(pdf_char(), 1..30), 1..4)
    ) {
        let note: String = lines
            .iter()
            .map(|l| l.iter().collect::<String>())
            .collect::<Vec<_>>()
            .join("\n");
        let doc = Document {
            title: "Incident 1: DEVICE_ERROR".into(),
            subtitle: note.clone(),
            footer: "footer".into(),
            build: String::new(),
            author: String::new(),
            created: None,
            blocks: vec![Block::Table {
                columns: vec!["Time (UTC)".into(), "Text".into()],
                widths: vec![1, 3],
                rows: vec![vec!["T1".into(), note.clone()], vec!["T2".into(), "next".into()]],
            }],
        };
        let pdf = render_pdf(&doc).unwrap();
        let text = pdftotext(&pdf.bytes);
        prop_assert!(!text.chars().any(|c| untrusted::is_format(c) || (c.is_control() && c != '\n' && c != '\x0c')),
            "a hidden character reached the PDF's text: {:?}", text);
        // Every line of the note, shown, is in the text (words may wrap: compare without spaces).
        let squeeze = |s: &str| s.chars().filter(|c| !c.is_whitespace()).collect::<String>();
        let all = squeeze(&text);
        for line in note.split('\n') {
            let shown = untrusted::visible(line.trim());
            prop_assert!(all.contains(&squeeze(&shown)), "{:?} not in {:?}", shown, text);
        }
        // The second row starts after the whole note.
        let t2 = text.find("T2").unwrap();
        let last = note.split('\n').next_back().map(|l| squeeze(&untrusted::visible(l))).unwrap();
        prop_assert!(squeeze(&text[..t2]).contains(&last));
    }
}
