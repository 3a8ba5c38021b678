//! Reports a regulator can read: a document is a title and a list of [`Block`]s (headings,
//! key-value fields, paragraphs, tables), rendered to PDF, or to CSV and JSON for other tools.
//!
//! The PDF is written by krilla with fonts compiled into this crate (Noto Sans for Latin, Greek
//! and Cyrillic, WenQuanYi Micro Hei for Chinese, Japanese and Korean; `fonts/README.md`), each
//! subsetted to the glyphs a report uses, so a name like "Mere Tūhoe" or "監控已檢查" is shown,
//! searched and copied exactly as recorded. Pure: no clock, no file; the creation time is the
//! caller's.

pub mod build;
mod pdf;
mod text;
pub mod untrusted;
pub mod words;

use serde::Serialize;

pub use pdf::{render_pdf, Pdf};

/// Why a PDF could not be made.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    /// A font compiled into the program does not parse (a broken build, not bad input).
    #[error("the report fonts built into this program cannot be read")]
    Fonts,
    /// The page geometry is invalid (a broken build, not bad input).
    #[error("the report's page layout is invalid")]
    Layout,
    /// The PDF library refused the document.
    #[error("the PDF cannot be written: {0}")]
    Pdf(String),
}

/// A report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Document {
    /// The title on the first page.
    pub title: String,
    /// A line under the title (site, date).
    pub subtitle: String,
    /// Printed at the foot of every page (e.g. the anchoring hash).
    pub footer: String,
    /// The program's version and build that made the report ([`build::label`]), printed at the
    /// foot of every page after the footer and written as the PDF's creator; empty if unknown.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub build: String,
    /// Who the document is by (the user who exported it), for the PDF's metadata; empty if
    /// nobody in particular.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub author: String,
    /// When it was made, for the PDF's metadata (UTC).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub created: Option<chrono::DateTime<chrono::Utc>>,
    /// The content.
    pub blocks: Vec<Block>,
}

/// One piece of content.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Block {
    /// A section heading.
    Heading {
        /// The heading.
        text: String,
    },
    /// Labelled values, one per line.
    Fields {
        /// (label, value) pairs.
        fields: Vec<(String, String)>,
    },
    /// Running text, wrapped.
    Paragraph {
        /// The text.
        text: String,
    },
    /// Verbatim text in a fixed-width font (rule texts, raw bytes).
    Verbatim {
        /// The text; lines are kept.
        text: String,
    },
    /// A table with a header row.
    Table {
        /// Column titles.
        columns: Vec<String>,
        /// Relative column widths (any positive numbers; they are scaled to the page).
        widths: Vec<u32>,
        /// Rows of cells.
        rows: Vec<Vec<String>>,
    },
}

impl Document {
    /// The document with its author and creation time set (the PDF's metadata).
    pub fn stamped(self, author: &str, created: chrono::DateTime<chrono::Utc>) -> Document {
        Document {
            author: author.to_owned(),
            created: Some(created),
            ..self
        }
    }

    /// The document as pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// The document as CSV: one row per field, paragraph and table row, with the section it is
    /// in, so a spreadsheet can filter by section. Written by the `csv` crate with every field
    /// in double quotes, each cell through [`untrusted::spreadsheet_cell`]: a cell starting with
    /// `=`, `+`, `-`, `@`, a tab, a carriage return or a single quote has one `'` put before it,
    /// so no cell is a formula; nothing else of the text changes.
    pub fn to_csv(&self) -> String {
        let mut writer = csv::WriterBuilder::new()
            .quote_style(csv::QuoteStyle::Always)
            .terminator(csv::Terminator::Any(b'\n'))
            .from_writer(Vec::new());
        let mut rows: Vec<[String; 4]> =
            vec![["section", "kind", "label", "value"].map(String::from)];
        let mut row = |section: &str, kind: &str, label: &str, value: &str| {
            rows.push([section, kind, label, value].map(String::from));
        };
        let mut section = String::new();
        row("", "title", "", &self.title);
        row("", "subtitle", "", &self.subtitle);
        for block in &self.blocks {
            match block {
                Block::Heading { text } => section = text.clone(),
                Block::Fields { fields } => {
                    for (label, value) in fields {
                        row(&section, "field", label, value);
                    }
                }
                Block::Paragraph { text } | Block::Verbatim { text } => {
                    row(&section, "text", "", text);
                }
                Block::Table { columns, rows, .. } => {
                    for cells in rows {
                        let value = columns
                            .iter()
                            .zip(cells)
                            .map(|(c, v)| format!("{c}={v}"))
                            .collect::<Vec<_>>()
                            .join("; ");
                        row(
                            &section,
                            "row",
                            cells.first().map_or("", String::as_str),
                            &value,
                        );
                    }
                }
            }
        }
        row("", "footer", "", &self.footer);
        if !self.build.is_empty() {
            row("", "build", "", &self.build);
        }
        if !self.author.is_empty() {
            row("", "author", "", &self.author);
        }
        if let Some(created) = self.created {
            row(
                "",
                "created",
                "",
                &created.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            );
        }
        for cells in &rows {
            // Writing strings into memory cannot fail.
            let _ = writer.write_record(
                cells
                    .iter()
                    .map(|c| untrusted::spreadsheet_cell(c).into_owned()),
            );
        }
        let bytes = writer.into_inner().unwrap_or_default();
        String::from_utf8(bytes).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Document {
        Document {
            title: "Incident 7: BURN_COUNT_MISMATCH".into(),
            subtitle: "Demo Casino, table BAC-1".into(),
            footer: "anchor 9f86d081".into(),
            build: "Pitwatch 1.2.3 (build 6929b7d1c2e3)".into(),
            author: String::new(),
            created: None,
            blocks: vec![
                Block::Heading {
                    text: "Incident".into(),
                },
                Block::Fields {
                    fields: vec![
                        ("Severity".into(), "high".into()),
                        ("Rule".into(), "7.7(b), 7.9".into()),
                    ],
                },
                Block::Table {
                    columns: vec!["seq".into(), "event".into()],
                    widths: vec![1, 4],
                    rows: vec![vec!["4".into(), "card_drawn 3H, \"first\"".into()]],
                },
            ],
        }
    }

    #[test]
    fn csv_quotes_every_field_and_keeps_sections() {
        let csv = sample().to_csv();
        assert!(
            csv.starts_with(
                "\"section\",\"kind\",\"label\",\"value\"\n\"\",\"title\",\"\",\"Incident 7: BURN_COUNT_MISMATCH\"\n"
            ),
            "{csv}"
        );
        assert!(
            csv.contains("\"Incident\",\"field\",\"Rule\",\"7.7(b), 7.9\"\n"),
            "{csv}"
        );
        assert!(
            csv.contains(
                "\"Incident\",\"row\",\"4\",\"seq=4; event=card_drawn 3H, \"\"first\"\"\"\n"
            ),
            "{csv}"
        );
    }

    #[test]
    fn csv_cells_that_could_be_formulas_are_quoted() {
        let mut doc = sample();
        doc.subtitle = "=1+2".into();
        doc.blocks.push(Block::Table {
            columns: vec!["table".into()],
            widths: vec![1],
            rows: vec![vec!["@SUM(9)".into()]],
        });
        let csv = doc.to_csv();
        assert!(csv.contains("\"\",\"subtitle\",\"\",\"'=1+2\"\n"), "{csv}");
        assert!(
            csv.contains("\"Incident\",\"row\",\"'@SUM(9)\",\"table=@SUM(9)\"\n"),
            "{csv}"
        );
        let mut reader = csv::Reader::from_reader(csv.as_bytes());
        let records: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
        assert_eq!(untrusted::spreadsheet_original(&records[1][3]), "=1+2");
    }

    #[test]
    fn csv_and_json_carry_the_build_that_made_them() {
        let csv = sample().to_csv();
        assert!(
            csv.contains("\"\",\"build\",\"\",\"Pitwatch 1.2.3 (build 6929b7d1c2e3)\"\n"),
            "{csv}"
        );
        let json: serde_json::Value = serde_json::from_str(&sample().to_json()).unwrap();
        assert_eq!(json["build"], "Pitwatch 1.2.3 (build 6929b7d1c2e3)");
        let unknown = Document {
            build: String::new(),
            ..sample()
        };
        assert!(!unknown.to_csv().contains("\"build\""));
        assert!(!unknown.to_json().contains("\"build\""));
    }

    #[test]
    fn json_tags_blocks_by_type() {
        let json: serde_json::Value = serde_json::from_str(&sample().to_json()).unwrap();
        assert_eq!(json["blocks"][0]["type"], "heading");
        assert_eq!(json["blocks"][1]["fields"][0][0], "Severity");
    }
}
