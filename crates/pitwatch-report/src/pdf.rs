//! A small PDF writer: A4 pages of text in the standard Helvetica and Courier fonts, with rules
//! and shaded table headers, laid out top to bottom with automatic page breaks.

use std::fmt::Write as _;

use crate::{Block, Document};

const PAGE_W: f32 = 595.0;
const PAGE_H: f32 = 842.0;
const MARGIN: f32 = 50.0;
const BOTTOM: f32 = 60.0;
const CONTENT_W: f32 = PAGE_W - 2.0 * MARGIN;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Font {
    Regular,
    Bold,
    Mono,
}

impl Font {
    fn name(self) -> &'static str {
        match self {
            Font::Regular => "F1",
            Font::Bold => "F2",
            Font::Mono => "F3",
        }
    }
}

/// Advance widths of Helvetica for ASCII 32..=126, in thousandths of an em.
const HELVETICA: [u16; 95] = [
    278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278, 556, 556, 556,
    556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556, 1015, 667, 667, 722, 722, 667,
    611, 778, 722, 278, 500, 667, 556, 833, 722, 778, 667, 778, 722, 667, 611, 722, 667, 944, 667,
    667, 611, 278, 278, 278, 469, 556, 333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500,
    222, 833, 556, 556, 556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584,
];

fn char_width(font: Font, c: char, size: f32) -> f32 {
    let em = match font {
        Font::Mono => 600.0,
        Font::Regular | Font::Bold => {
            let base = match c as u32 {
                32..=126 => f32::from(HELVETICA[(c as u32 - 32) as usize]),
                _ => 600.0,
            };
            // Helvetica-Bold is a little wider; overestimating keeps text inside its column.
            if font == Font::Bold {
                base * 1.08
            } else {
                base
            }
        }
    };
    em * size / 1000.0
}

fn text_width(font: Font, text: &str, size: f32) -> f32 {
    text.chars().map(|c| char_width(font, c, size)).sum()
}

/// Splits `text` into lines no wider than `width`, breaking at spaces (and inside words that are
/// longer than a line). Existing line breaks are kept.
fn wrap(font: Font, text: &str, size: f32, width: f32) -> Vec<String> {
    let mut lines = Vec::new();
    for paragraph in text.split('\n') {
        let mut line = String::new();
        for word in paragraph.split(' ') {
            let candidate = if line.is_empty() {
                word.to_owned()
            } else {
                format!("{line} {word}")
            };
            if text_width(font, &candidate, size) <= width {
                line = candidate;
                continue;
            }
            if !line.is_empty() {
                lines.push(std::mem::take(&mut line));
            }
            // A word wider than the line is broken by characters.
            let mut piece = String::new();
            for c in word.chars() {
                if text_width(font, &piece, size) + char_width(font, c, size) > width
                    && !piece.is_empty()
                {
                    lines.push(std::mem::take(&mut piece));
                }
                piece.push(c);
            }
            line = piece;
        }
        lines.push(line);
    }
    lines
}

/// Text as a PDF string literal in WinAnsiEncoding.
fn pdf_string(text: &str) -> String {
    let mut out = String::from("(");
    for c in text.chars() {
        let byte: u8 = match c {
            '\u{20}'..='\u{7e}' => c as u8,
            '\u{a0}'..='\u{ff}' => c as u32 as u8,
            '\u{2014}' => 0x97,
            '\u{2013}' => 0x96,
            '\u{2026}' => 0x85,
            '\u{2018}' => 0x91,
            '\u{2019}' => 0x92,
            '\u{201c}' => 0x93,
            '\u{201d}' => 0x94,
            '\u{2022}' => 0x95,
            '\u{20ac}' => 0x80,
            '\u{2264}' | '\u{2265}' | '\u{2192}' => b'?',
            _ => b'?',
        };
        match byte {
            b'(' | b')' | b'\\' => {
                out.push('\\');
                out.push(byte as char);
            }
            0x20..=0x7e => out.push(byte as char),
            _ => {
                let _ = write!(out, "\\{byte:03o}");
            }
        }
    }
    out.push(')');
    out
}

/// Lays out pages as content-stream operators.
struct Layout {
    pages: Vec<String>,
    y: f32,
}

impl Layout {
    fn new() -> Self {
        Layout {
            pages: vec![String::new()],
            y: PAGE_H - MARGIN,
        }
    }

    fn page(&mut self) -> &mut String {
        self.pages.last_mut().expect("there is always a page")
    }

    /// Starts a new page unless `height` still fits on this one.
    fn room(&mut self, height: f32) {
        if self.y - height < BOTTOM {
            self.pages.push(String::new());
            self.y = PAGE_H - MARGIN;
        }
    }

    fn text(&mut self, font: Font, size: f32, x: f32, y: f32, grey: f32, text: &str) {
        let op = format!(
            "BT {grey:.2} g /{} {size:.1} Tf {x:.1} {y:.1} Td {} Tj ET\n",
            font.name(),
            pdf_string(text)
        );
        self.page().push_str(&op);
    }

    fn rule(&mut self, y: f32, grey: f32) {
        let op = format!(
            "{grey:.2} G 0.6 w {MARGIN:.1} {y:.1} m {:.1} {y:.1} l S\n",
            PAGE_W - MARGIN
        );
        self.page().push_str(&op);
    }

    fn shade(&mut self, x: f32, y: f32, w: f32, h: f32) {
        let op = format!("0.90 g {x:.1} {y:.1} {w:.1} {h:.1} re f\n");
        self.page().push_str(&op);
    }

    fn lines(&mut self, font: Font, size: f32, x: f32, width: f32, grey: f32, text: &str) {
        let leading = size * 1.35;
        for line in wrap(font, text, size, width) {
            self.room(leading);
            self.y -= leading;
            self.text(font, size, x, self.y, grey, &line);
        }
    }
}

/// Renders `document` as a PDF file.
pub fn render_pdf(document: &Document) -> Vec<u8> {
    let mut layout = Layout::new();
    layout.lines(Font::Bold, 18.0, MARGIN, CONTENT_W, 0.0, &document.title);
    layout.lines(
        Font::Regular,
        10.5,
        MARGIN,
        CONTENT_W,
        0.35,
        &document.subtitle,
    );
    layout.y -= 6.0;
    layout.rule(layout.y, 0.2);
    for block in &document.blocks {
        match block {
            Block::Heading { text } => {
                layout.room(40.0);
                layout.y -= 12.0;
                layout.lines(Font::Bold, 12.5, MARGIN, CONTENT_W, 0.0, text);
                layout.y -= 3.0;
                layout.rule(layout.y, 0.6);
                layout.y -= 2.0;
            }
            Block::Fields { fields } => {
                let label_w = 130.0;
                for (label, value) in fields {
                    let size = 9.5;
                    let leading = size * 1.35;
                    let lines = wrap(Font::Regular, value, size, CONTENT_W - label_w);
                    layout.room(leading * lines.len().min(3) as f32);
                    layout.y -= leading;
                    let y = layout.y;
                    layout.text(Font::Bold, size, MARGIN, y, 0.25, label);
                    for (i, line) in lines.iter().enumerate() {
                        if i > 0 {
                            layout.room(leading);
                            layout.y -= leading;
                        }
                        let y = layout.y;
                        layout.text(Font::Regular, size, MARGIN + label_w, y, 0.0, line);
                    }
                }
            }
            Block::Paragraph { text } => {
                layout.y -= 4.0;
                layout.lines(Font::Regular, 10.0, MARGIN, CONTENT_W, 0.0, text);
            }
            Block::Verbatim { text } => {
                layout.y -= 4.0;
                layout.lines(Font::Mono, 8.5, MARGIN + 8.0, CONTENT_W - 8.0, 0.1, text);
            }
            Block::Table {
                columns,
                widths,
                rows,
            } => table(&mut layout, columns, widths, rows),
        }
    }
    let count = layout.pages.len();
    for (i, page) in layout.pages.iter_mut().enumerate() {
        let footer = format!("{}    page {} of {count}", document.footer, i + 1);
        let op = format!(
            "BT 0.45 g /F1 7.5 Tf {MARGIN:.1} 32.0 Td {} Tj ET\n",
            pdf_string(&footer)
        );
        page.push_str(&op);
    }
    assemble(&layout.pages)
}

fn table(layout: &mut Layout, columns: &[String], widths: &[u32], rows: &[Vec<String>]) {
    let total: u32 = widths.iter().sum::<u32>().max(1);
    let col_w: Vec<f32> = (0..columns.len())
        .map(|i| CONTENT_W * widths.get(i).copied().unwrap_or(1) as f32 / total as f32)
        .collect();
    let size = 8.5;
    let leading = size * 1.3;
    let pad = 3.0;
    let header = |layout: &mut Layout| {
        layout.room(leading * 3.0);
        layout.y -= 4.0;
        layout.shade(MARGIN, layout.y - leading - 2.0, CONTENT_W, leading + 4.0);
        layout.y -= leading;
        let mut x = MARGIN;
        for (title, w) in columns.iter().zip(&col_w) {
            let y = layout.y;
            layout.text(Font::Bold, size, x + pad, y, 0.0, title);
            x += w;
        }
        layout.y -= 3.0;
    };
    header(layout);
    for row in rows {
        let cells: Vec<Vec<String>> = row
            .iter()
            .zip(&col_w)
            .map(|(cell, w)| wrap(Font::Regular, cell, size, w - 2.0 * pad))
            .collect();
        let height = cells.iter().map(Vec::len).max().unwrap_or(1) as f32 * leading + 3.0;
        if layout.y - height < BOTTOM {
            layout.room(PAGE_H);
            header(layout);
        }
        let top = layout.y;
        let mut x = MARGIN;
        for (lines, w) in cells.iter().zip(&col_w) {
            let mut y = top;
            for line in lines {
                y -= leading;
                layout.text(Font::Regular, size, x + pad, y, 0.0, line);
            }
            x += w;
        }
        layout.y = top - height;
        layout.rule(layout.y + 1.0, 0.85);
    }
}

/// Writes the PDF objects, the cross-reference table and the trailer.
fn assemble(pages: &[String]) -> Vec<u8> {
    let mut objects: Vec<String> = Vec::new();
    let page_count = pages.len();
    // 1 catalog, 2 pages, 3-5 fonts, then a page and its content for each page.
    objects.push("<< /Type /Catalog /Pages 2 0 R >>".to_owned());
    let kids: Vec<String> = (0..page_count)
        .map(|i| format!("{} 0 R", 6 + 2 * i))
        .collect();
    objects.push(format!(
        "<< /Type /Pages /Kids [{}] /Count {page_count} >>",
        kids.join(" ")
    ));
    for base in ["Helvetica", "Helvetica-Bold", "Courier"] {
        objects.push(format!(
            "<< /Type /Font /Subtype /Type1 /BaseFont /{base} /Encoding /WinAnsiEncoding >>"
        ));
    }
    for (i, content) in pages.iter().enumerate() {
        objects.push(format!(
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {PAGE_W} {PAGE_H}] \
             /Resources << /Font << /F1 3 0 R /F2 4 0 R /F3 5 0 R >> >> /Contents {} 0 R >>",
            7 + 2 * i
        ));
        objects.push(format!(
            "<< /Length {} >>\nstream\n{content}endstream",
            content.len()
        ));
    }
    let mut out: Vec<u8> = b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n".to_vec();
    let mut offsets = Vec::with_capacity(objects.len());
    for (i, object) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n{object}\nendobj\n", i + 1).as_bytes());
    }
    let xref = out.len();
    let mut table = format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1);
    for offset in offsets {
        let _ = writeln!(table, "{offset:010} 00000 n ");
    }
    out.extend_from_slice(table.as_bytes());
    out.extend_from_slice(
        format!(
            "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
            objects.len() + 1
        )
        .as_bytes(),
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrapping_respects_the_width_and_keeps_every_word() {
        let text = "The burn had too few cards: 2 burned where the first card requires 3.";
        let lines = wrap(Font::Regular, text, 10.0, 120.0);
        assert!(lines.len() > 2);
        for line in &lines {
            assert!(text_width(Font::Regular, line, 10.0) <= 120.0, "{line}");
        }
        assert_eq!(lines.join(" "), text);
        let long = wrap(Font::Mono, &"x".repeat(50), 10.0, 60.0);
        assert_eq!(
            long.iter().map(String::len).collect::<Vec<_>>(),
            [10, 10, 10, 10, 10]
        );
    }

    #[test]
    fn strings_are_escaped_and_encoded() {
        assert_eq!(pdf_string("a(b)\\c"), "(a\\(b\\)\\\\c)");
        assert_eq!(pdf_string("Casino · Pit — 1"), "(Casino \\267 Pit \\227 1)");
        assert_eq!(pdf_string("♠"), "(?)");
    }

    #[test]
    fn a_pdf_has_valid_structure_and_paginates() {
        let rows = (0..120)
            .map(|i| vec![i.to_string(), format!("event {i}")])
            .collect();
        let document = Document {
            title: "T".into(),
            subtitle: "S".into(),
            footer: "F".into(),
            blocks: vec![Block::Table {
                columns: vec!["seq".into(), "event".into()],
                widths: vec![1, 3],
                rows,
            }],
        };
        let pdf = render_pdf(&document);
        let text = String::from_utf8_lossy(&pdf);
        assert!(text.starts_with("%PDF-1.4"));
        assert!(text.trim_end().ends_with("%%EOF"));
        let pages = text.matches("/Type /Page ").count();
        assert!(pages >= 2, "120 rows need more than one page");
        assert!(text.contains(&format!("/Count {pages}")));
        // Every xref offset points at the start of its object.
        let xref_at: usize = text
            .rsplit("startxref\n")
            .next()
            .unwrap()
            .lines()
            .next()
            .unwrap()
            .parse()
            .unwrap();
        let table = &text[xref_at..];
        for (i, line) in table
            .lines()
            .skip(3)
            .take_while(|l| l.ends_with(" n "))
            .enumerate()
        {
            let offset: usize = line[..10].parse().unwrap();
            assert!(
                text[offset..].starts_with(&format!("{} 0 obj", i + 1)),
                "object {}",
                i + 1
            );
        }
    }
}
