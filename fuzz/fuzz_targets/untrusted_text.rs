//! Fuzzes the untrusted-text rule (`pitwatch_report::untrusted`) through the report formats: any
//! text (split into a document's names, notes and cells at each 0x1F byte) gives a CSV that
//! parses into the same cells, none able to start a formula and each the text exactly once the
//! neutralisation is undone; JSON that parses back to the same strings; shown text with no hidden
//! character whose markers undo to the text; and a PDF, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pitwatch_report::untrusted;
use pitwatch_report::{render_pdf, Block, Document};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let parts: Vec<String> = text.split('\u{1f}').map(str::to_owned).collect();
    let t = |i: usize| parts[i % parts.len()].clone();

    for part in &parts {
        let shown = untrusted::visible(part);
        assert!(!shown.chars().any(untrusted::is_hidden), "{shown:?}");
        assert_eq!(untrusted::lines(&shown).count(), part.split('\n').count());
        let cell = untrusted::spreadsheet_cell(part);
        assert_eq!(untrusted::spreadsheet_original(&cell), part.as_str());
        assert!(!cell.starts_with(['=', '+', '-', '@', '\t', '\r']));
    }

    let doc = Document {
        title: t(0),
        subtitle: t(1),
        footer: t(2),
        build: t(3),
        author: String::new(),
        created: None,
        blocks: vec![
            Block::Heading { text: t(3) },
            Block::Fields {
                fields: vec![(t(4), t(5))],
            },
            Block::Table {
                columns: vec!["By".into(), "Text".into()],
                widths: vec![1, 3],
                rows: vec![vec![t(6), t(7)]],
            },
        ],
    };
    let csv = doc.to_csv();
    let records: Vec<csv::StringRecord> = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(csv.as_bytes())
        .records()
        .collect::<Result<_, _>>()
        .expect("the CSV parses");
    let mut expected = vec![
        ["section", "kind", "label", "value"].map(String::from),
        [String::new(), "title".into(), String::new(), t(0)],
        [String::new(), "subtitle".into(), String::new(), t(1)],
        [t(3), "field".into(), t(4), t(5)],
        [t(3), "row".into(), t(6), format!("By={}; Text={}", t(6), t(7))],
        [String::new(), "footer".into(), String::new(), t(2)],
    ];
    // The build line is written only when the document names its build.
    if !t(3).is_empty() {
        expected.push([String::new(), "build".into(), String::new(), t(3)]);
    }
    assert_eq!(records.len(), expected.len(), "{csv:?}");
    for (record, want) in records.iter().zip(&expected) {
        assert_eq!(record.len(), 4);
        for (cell, want) in record.iter().zip(want) {
            assert!(!cell.starts_with(['=', '+', '-', '@', '\t', '\r']), "{cell:?}");
            assert_eq!(untrusted::spreadsheet_original(cell), want.as_str());
        }
    }

    let json: serde_json::Value = serde_json::from_str(&doc.to_json()).expect("the JSON parses");
    assert_eq!(json["title"].as_str(), Some(t(0).as_str()));
    assert_eq!(json["blocks"][2]["rows"][0][1].as_str(), Some(t(7).as_str()));

    if data.len() <= 2048 {
        let _ = render_pdf(&doc).expect("a PDF");
    }
});
