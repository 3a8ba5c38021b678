//! The PDF: A4 pages laid out top to bottom with automatic page breaks (a table's header row is
//! repeated on each page it continues on), written by krilla with the embedded fonts subsetted to
//! the glyphs used.
//!
//! The PDF is tagged: a structure tree of headings, paragraphs and tables (header cells, rows,
//! data cells) over the page content, with rules, shading, repeated headers and page footers
//! marked as artifacts. Screen readers and copy-paste then read a table row by row, cell by
//! cell; the metadata carries the title, the author and the creation time in UTC.

use std::num::NonZeroU16;

use krilla::color::luma;
use krilla::geom::{PathBuilder, Point, Rect};
use krilla::metadata::{DateTime, Metadata};
use krilla::page::PageSettings;
use krilla::paint::{Fill, Stroke};
use krilla::surface::Surface;
use krilla::tagging::{
    Artifact, ArtifactType, ContentTag, Identifier, Node, SpanTag, TableHeaderScope, Tag, TagGroup,
    TagKind, TagTree,
};
use krilla::SerializeSettings;

use crate::text::{self, Fonts, Line, Style};
use crate::{Block, Document, RenderError};

const PAGE_W: f32 = 595.0;
const PAGE_H: f32 = 842.0;
const MARGIN: f32 = 50.0;
/// Content stays above this line (y grows downwards); the footer sits below it.
const BOTTOM: f32 = PAGE_H - 60.0;
const CONTENT_W: f32 = PAGE_W - 2.0 * MARGIN;
const FOOTER_Y: f32 = PAGE_H - 32.0;

/// How a piece of content enters the structure tree.
#[derive(Debug, Clone, Copy)]
enum Content {
    /// Real content: leaf `n` of the structure tree.
    Leaf(usize),
    /// Not part of the document's logical content.
    Artifact(ArtifactType),
}

/// Something drawn on a page.
enum Item {
    Text {
        x: f32,
        /// The baseline.
        y: f32,
        size: f32,
        grey: f32,
        line: Line,
        content: Content,
    },
    Rule {
        y: f32,
        grey: f32,
    },
    Shade {
        x: f32,
        y: f32,
        w: f32,
        h: f32,
    },
}

/// A structure element being built: its tag and children.
struct Element {
    tag: Kind,
    children: Vec<Child>,
}

enum Child {
    Element(Element),
    Leaf(usize),
}

/// The structure tags a report uses.
#[derive(Clone)]
enum Kind {
    Heading(u16, String),
    Paragraph,
    Code,
    Table,
    Head,
    Body,
    Row,
    RowHeader,
    ColumnHeader,
    Cell,
}

impl Element {
    fn new(tag: Kind) -> Element {
        Element {
            tag,
            children: Vec::new(),
        }
    }

    fn push(&mut self, child: Element) {
        self.children.push(Child::Element(child));
    }
}

/// Lays out pages and the structure tree.
struct Layout<'f> {
    fonts: &'f Fonts,
    pages: Vec<Vec<Item>>,
    y: f32,
    leaves: usize,
}

impl Layout<'_> {
    fn page(&mut self) -> &mut Vec<Item> {
        if self.pages.is_empty() {
            self.pages.push(Vec::new());
        }
        let last = self.pages.len() - 1;
        &mut self.pages[last]
    }

    fn new_page(&mut self) {
        self.pages.push(Vec::new());
        self.y = MARGIN;
    }

    /// Starts a new page unless `height` still fits on this one.
    fn room(&mut self, height: f32) {
        if self.y + height > BOTTOM {
            self.new_page();
        }
    }

    fn leaf(&mut self) -> usize {
        self.leaves += 1;
        self.leaves - 1
    }

    fn draw(&mut self, x: f32, y: f32, size: f32, grey: f32, line: Line, content: Content) {
        self.page().push(Item::Text {
            x: x + line.indent * size,
            y,
            size,
            grey,
            line,
            content,
        });
    }

    fn rule(&mut self, y: f32, grey: f32) {
        self.page().push(Item::Rule { y, grey });
    }

    /// Wrapped text from the current position, each line a leaf of `parent`; the lines after a
    /// line break in the text are indented under the first (verbatim text keeps its own).
    #[allow(clippy::too_many_arguments)] // reason: one call per kind of text, each names them all
    fn lines(
        &mut self,
        style: Style,
        size: f32,
        x: f32,
        width: f32,
        grey: f32,
        text: &str,
        parent: &mut Element,
    ) {
        let leading = size * 1.35;
        let hang = if matches!(style, Style::Mono) {
            0.0
        } else {
            text::HANG
        };
        for line in text::wrap(self.fonts, style, text, size, width, hang) {
            self.room(leading);
            self.y += leading;
            let leaf = self.leaf();
            parent.children.push(Child::Leaf(leaf));
            let y = self.y;
            self.draw(x, y, size, grey, line, Content::Leaf(leaf));
        }
    }

    /// Lines of a cell: wrapped, drawn from `top`, each a leaf of `cell`.
    #[allow(clippy::too_many_arguments)] // reason: a cell's place, its font and its parent
    fn cell(
        &mut self,
        lines: Vec<Line>,
        style_size: f32,
        leading: f32,
        x: f32,
        top: f32,
        content: Option<&mut Element>,
        artifact: bool,
    ) {
        let mut y = top;
        let mut parent = content;
        for line in lines {
            y += leading;
            let content = if artifact {
                Content::Artifact(ArtifactType::PaginationOther)
            } else {
                let leaf = self.leaf();
                if let Some(parent) = parent.as_deref_mut() {
                    parent.children.push(Child::Leaf(leaf));
                }
                Content::Leaf(leaf)
            };
            self.draw(x, y, style_size, 0.0, line, content);
        }
    }
}

/// A rendered PDF.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pdf {
    /// The file's bytes.
    pub bytes: Vec<u8>,
    /// How many pages it has.
    pub pages: usize,
}

/// Renders `document` as a PDF.
pub fn render_pdf(document: &Document) -> Result<Pdf, RenderError> {
    let fonts = text::fonts().ok_or(RenderError::Fonts)?;
    let mut layout = Layout {
        fonts,
        pages: vec![Vec::new()],
        y: MARGIN,
        leaves: 0,
    };
    let mut root: Vec<Element> = Vec::new();

    let mut title = Element::new(Kind::Heading(
        1,
        crate::untrusted::visible(&document.title).into_owned(),
    ));
    layout.lines(
        Style::Bold,
        18.0,
        MARGIN,
        CONTENT_W,
        0.0,
        &document.title,
        &mut title,
    );
    root.push(title);
    let mut subtitle = Element::new(Kind::Paragraph);
    layout.lines(
        Style::Regular,
        10.5,
        MARGIN,
        CONTENT_W,
        0.35,
        &document.subtitle,
        &mut subtitle,
    );
    root.push(subtitle);
    layout.y += 6.0;
    layout.rule(layout.y, 0.2);

    for block in &document.blocks {
        match block {
            Block::Heading { text } => {
                // A heading is not left alone at the foot of a page.
                layout.room(40.0);
                layout.y += 12.0;
                let mut heading = Element::new(Kind::Heading(
                    2,
                    crate::untrusted::visible(text).into_owned(),
                ));
                layout.lines(
                    Style::Bold,
                    12.5,
                    MARGIN,
                    CONTENT_W,
                    0.0,
                    text,
                    &mut heading,
                );
                root.push(heading);
                layout.y += 3.0;
                layout.rule(layout.y, 0.6);
                layout.y += 2.0;
            }
            Block::Fields { fields } => root.push(field_rows(&mut layout, fields)),
            Block::Paragraph { text } => {
                layout.y += 4.0;
                let mut paragraph = Element::new(Kind::Paragraph);
                layout.lines(
                    Style::Regular,
                    10.0,
                    MARGIN,
                    CONTENT_W,
                    0.0,
                    text,
                    &mut paragraph,
                );
                root.push(paragraph);
            }
            Block::Verbatim { text } => {
                layout.y += 4.0;
                let mut code = Element::new(Kind::Code);
                layout.lines(
                    Style::Mono,
                    8.5,
                    MARGIN + 8.0,
                    CONTENT_W - 8.0,
                    0.1,
                    text,
                    &mut code,
                );
                let mut paragraph = Element::new(Kind::Paragraph);
                paragraph.push(code);
                root.push(paragraph);
            }
            Block::Table {
                columns,
                widths,
                rows,
            } => root.push(table(&mut layout, columns, widths, rows)),
        }
    }

    let count = layout.pages.len();
    for (i, page) in layout.pages.iter_mut().enumerate() {
        let footer = if document.build.is_empty() {
            format!("{}    page {} of {count}", document.footer, i + 1)
        } else {
            format!(
                "{} · {}    page {} of {count}",
                document.footer,
                document.build,
                i + 1
            )
        };
        page.push(Item::Text {
            x: MARGIN,
            y: FOOTER_Y,
            size: 7.5,
            grey: 0.45,
            line: text::line(fonts, Style::Regular, &footer),
            content: Content::Artifact(ArtifactType::Footer),
        });
    }
    let bytes = write(document, fonts, &layout.pages, root)?;
    Ok(Pdf {
        bytes,
        pages: count,
    })
}

/// Labelled values: a two-column table (label, value) without a header row.
fn field_rows(layout: &mut Layout<'_>, fields: &[(String, String)]) -> Element {
    let label_w = 130.0;
    let size = 9.5;
    let leading = size * 1.35;
    let mut table = Element::new(Kind::Table);
    let mut body = Element::new(Kind::Body);
    for (label, value) in fields {
        let labels = text::wrap(
            layout.fonts,
            Style::Bold,
            label,
            size,
            label_w - 8.0,
            text::HANG,
        );
        let values = text::wrap(
            layout.fonts,
            Style::Regular,
            value,
            size,
            CONTENT_W - label_w,
            text::HANG,
        );
        let lines = labels.len().max(values.len());
        // A value of a few lines stays together; a longer one may continue on the next page.
        layout.room(leading * lines.min(3) as f32);
        let mut row = Element::new(Kind::Row);
        let mut header = Element::new(Kind::RowHeader);
        let mut cell = Element::new(Kind::Cell);
        let top = layout.y;
        for (i, line) in labels.into_iter().enumerate() {
            let leaf = layout.leaf();
            header.children.push(Child::Leaf(leaf));
            let y = top + leading * (i + 1) as f32;
            layout.draw(MARGIN, y, size, 0.25, line, Content::Leaf(leaf));
        }
        let mut y = top;
        let mut broke = false;
        for line in values {
            if y + leading > BOTTOM {
                // The rest of a long value goes on the next page.
                layout.new_page();
                y = layout.y;
                broke = true;
            }
            y += leading;
            let leaf = layout.leaf();
            cell.children.push(Child::Leaf(leaf));
            layout.draw(MARGIN + label_w, y, size, 0.0, line, Content::Leaf(leaf));
        }
        layout.y = if broke {
            y
        } else {
            y.max(top + leading * lines as f32)
        };
        row.push(header);
        row.push(cell);
        body.push(row);
    }
    table.push(body);
    table
}

fn table(
    layout: &mut Layout<'_>,
    columns: &[String],
    widths: &[u32],
    rows: &[Vec<String>],
) -> Element {
    let total: u32 = widths.iter().sum::<u32>().max(1);
    let size = 8.5;
    let leading = size * 1.3;
    let pad = 3.0;
    let col_w: Vec<f32> = (0..columns.len())
        .map(|i| CONTENT_W * widths.get(i).copied().unwrap_or(1) as f32 / total as f32)
        .collect();
    // Each column at least as wide as its widest word (a code, a hash), so no word is split
    // between characters while the page has room; the others give up width for it.
    let needed: Vec<f32> = (0..columns.len())
        .map(|i| {
            let header = text::widest_word(layout.fonts, Style::Bold, &columns[i]);
            let cells = rows
                .iter()
                .filter_map(|r| r.get(i))
                .map(|c| text::widest_word(layout.fonts, Style::Regular, c))
                .fold(0.0_f32, f32::max);
            header.max(cells) * size + 2.0 * pad + 0.01
        })
        .collect();
    let col_w = fit_widths(&col_w, &needed, CONTENT_W);
    let mut table = Element::new(Kind::Table);
    let mut head = Element::new(Kind::Head);
    let mut body = Element::new(Kind::Body);
    let header_lines: Vec<Vec<Line>> = columns
        .iter()
        .zip(&col_w)
        .map(|(title, w)| {
            text::wrap(
                layout.fonts,
                Style::Bold,
                title,
                size,
                w - 2.0 * pad,
                text::HANG,
            )
        })
        .collect();
    let header_height = header_lines.iter().map(Vec::len).max().unwrap_or(1) as f32 * leading;
    // The header row; on a continuation page the same row again, as an artifact (a screen reader
    // reads the header once).
    let header = |layout: &mut Layout<'_>, head: Option<&mut Element>| {
        layout.room(header_height + leading * 2.0 + 4.0);
        layout.y += 4.0;
        let y = layout.y;
        layout.page().push(Item::Shade {
            x: MARGIN,
            y,
            w: CONTENT_W,
            h: header_height + 5.0,
        });
        let top = layout.y;
        let mut row = Element::new(Kind::Row);
        let artifact = head.is_none();
        let mut x = MARGIN;
        for (lines, w) in header_lines.iter().zip(&col_w) {
            let mut cell = Element::new(Kind::ColumnHeader);
            layout.cell(
                lines.clone(),
                size,
                leading,
                x + pad,
                top,
                Some(&mut cell),
                artifact,
            );
            row.push(cell);
            x += w;
        }
        layout.y = top + header_height + 3.0;
        if let Some(head) = head {
            head.push(row);
        }
    };
    header(layout, Some(&mut head));
    for cells in rows {
        let wrapped: Vec<Vec<Line>> = col_w
            .iter()
            .enumerate()
            .map(|(i, w)| {
                let cell = cells.get(i).map_or("", String::as_str);
                text::wrap(
                    layout.fonts,
                    Style::Regular,
                    cell,
                    size,
                    w - 2.0 * pad,
                    text::HANG,
                )
            })
            .collect();
        let height = wrapped.iter().map(Vec::len).max().unwrap_or(1) as f32 * leading + 3.0;
        if layout.y + height > BOTTOM {
            layout.new_page();
            header(layout, None);
        }
        let top = layout.y;
        let mut row = Element::new(Kind::Row);
        let mut x = MARGIN;
        for (lines, w) in wrapped.into_iter().zip(&col_w) {
            let mut cell = Element::new(Kind::Cell);
            layout.cell(lines, size, leading, x + pad, top, Some(&mut cell), false);
            row.push(cell);
            x += w;
        }
        body.push(row);
        layout.y = top + height;
        layout.rule(layout.y - 1.0, 0.85);
    }
    table.push(head);
    table.push(body);
    table
}

/// Column widths from the proportional `widths`, each widened to what it `needed` (its widest
/// word) by taking from the columns with width to spare, in proportion to their spare width.
/// Unchanged when every column has what it needs; when the columns together need more than
/// `total`, each gets its need scaled down alike (a word then breaks only where it must).
fn fit_widths(widths: &[f32], needed: &[f32], total: f32) -> Vec<f32> {
    let short: f32 = widths
        .iter()
        .zip(needed)
        .map(|(w, n)| (n - w).max(0.0))
        .sum();
    if short <= 0.0 {
        return widths.to_vec();
    }
    let need_all: f32 = needed.iter().sum();
    if need_all >= total {
        return needed.iter().map(|n| n * total / need_all).collect();
    }
    let spare: f32 = widths
        .iter()
        .zip(needed)
        .map(|(w, n)| (w - n).max(0.0))
        .sum();
    widths
        .iter()
        .zip(needed)
        .map(|(&w, &n)| {
            if n >= w {
                n
            } else {
                w - (w - n) * short / spare
            }
        })
        .collect()
}

fn grey(level: f32) -> luma::Color {
    luma::Color::new((level.clamp(0.0, 1.0) * 255.0).round() as u8)
}

fn metadata(document: &Document) -> Metadata {
    let mut metadata = Metadata::new()
        .title(crate::untrusted::visible(&document.title).into_owned())
        .creator(if document.build.is_empty() {
            "Pitwatch".to_owned()
        } else {
            crate::untrusted::visible(&document.build).into_owned()
        })
        .language("en".to_owned());
    if !document.author.is_empty() {
        metadata = metadata.authors(vec![
            crate::untrusted::visible(&document.author).into_owned()
        ]);
    }
    if let Some(at) = document.created {
        use chrono::{Datelike, Timelike};
        // Years outside 0..=9999 cannot be written in a PDF date; such a time is left out.
        if let Ok(year) = u16::try_from(at.year()) {
            metadata = metadata.creation_date(
                DateTime::new(year)
                    .month(at.month() as u8)
                    .day(at.day() as u8)
                    .hour(at.hour() as u8)
                    .minute(at.minute() as u8)
                    .second(at.second() as u8)
                    .utc_offset_hour(0)
                    .utc_offset_minute(0),
            );
        }
    }
    metadata
}

fn draw_line(surface: &mut Surface<'_>, fonts: &Fonts, x: f32, y: f32, size: f32, line: &Line) {
    let mut x = x;
    for run in &line.runs {
        let face = fonts.face(run.face);
        if run.embolden {
            // No bold CJK face is embedded: outline the glyphs as well as filling them.
            let fill = surface.get_fill().cloned();
            surface.set_stroke(Some(Stroke {
                paint: fill
                    .map(|f| f.paint)
                    .unwrap_or_else(|| luma::Color::black().into()),
                width: size * 0.035,
                ..Default::default()
            }));
        }
        surface.draw_glyphs(
            Point::from_xy(x, y),
            &run.glyphs,
            face.font.clone(),
            &run.text,
            size,
            false,
        );
        if run.embolden {
            surface.set_stroke(None);
        }
        x += run.glyphs.iter().map(|g| g.x_advance).sum::<f32>() * size;
    }
}

fn write(
    document: &Document,
    fonts: &Fonts,
    pages: &[Vec<Item>],
    root: Vec<Element>,
) -> Result<Vec<u8>, RenderError> {
    let mut pdf = krilla::Document::new_with(SerializeSettings::default());
    pdf.set_metadata(metadata(document));
    let leaves = pages
        .iter()
        .flatten()
        .filter(|i| {
            matches!(
                i,
                Item::Text {
                    content: Content::Leaf(_),
                    ..
                }
            )
        })
        .count();
    let mut ids: Vec<Option<Identifier>> = vec![None; leaves];
    let size = PageSettings::from_wh(PAGE_W, PAGE_H).ok_or(RenderError::Layout)?;
    for items in pages {
        let mut page = pdf.start_page_with(size.clone());
        let mut surface = page.surface();
        for item in items {
            match item {
                Item::Text {
                    x,
                    y,
                    size,
                    grey: level,
                    line,
                    content,
                } => {
                    surface.set_fill(Some(Fill {
                        paint: grey(*level).into(),
                        ..Default::default()
                    }));
                    surface.set_stroke(None);
                    let tag = match content {
                        Content::Leaf(_) => ContentTag::Span(SpanTag::empty()),
                        Content::Artifact(kind) => ContentTag::Artifact(Artifact::with_kind(*kind)),
                    };
                    let id = surface.start_tagged(tag);
                    draw_line(&mut surface, fonts, *x, *y, *size, line);
                    surface.end_tagged();
                    if let Content::Leaf(n) = content {
                        if let Some(slot) = ids.get_mut(*n) {
                            *slot = Some(id);
                        }
                    }
                }
                Item::Rule { y, grey: level } => {
                    let mut path = PathBuilder::new();
                    path.move_to(MARGIN, *y);
                    path.line_to(PAGE_W - MARGIN, *y);
                    if let Some(path) = path.finish() {
                        surface.set_fill(None);
                        surface.set_stroke(Some(Stroke {
                            paint: grey(*level).into(),
                            width: 0.6,
                            ..Default::default()
                        }));
                        surface.start_tagged(ContentTag::Artifact(Artifact::with_kind(
                            ArtifactType::Layout,
                        )));
                        surface.draw_path(&path);
                        surface.end_tagged();
                    }
                }
                Item::Shade { x, y, w, h } => {
                    let mut path = PathBuilder::new();
                    if let Some(rect) = Rect::from_xywh(*x, *y, *w, *h) {
                        path.push_rect(rect);
                    }
                    if let Some(path) = path.finish() {
                        surface.set_stroke(None);
                        surface.set_fill(Some(Fill {
                            paint: grey(0.90).into(),
                            ..Default::default()
                        }));
                        surface.start_tagged(ContentTag::Artifact(Artifact::with_kind(
                            ArtifactType::Layout,
                        )));
                        surface.draw_path(&path);
                        surface.end_tagged();
                    }
                }
            }
        }
        surface.finish();
        page.finish();
    }
    let mut tree = TagTree::new().with_lang(Some("en".to_owned()));
    for element in root {
        if let Some(node) = node(element, &ids) {
            tree.push(node);
        }
    }
    pdf.set_tag_tree(tree);
    pdf.finish().map_err(|e| RenderError::Pdf(format!("{e:?}")))
}

/// The krilla structure node for `element`, its leaves replaced by the content drawn for them.
fn node(element: Element, ids: &[Option<Identifier>]) -> Option<Node> {
    let tag: TagKind = match element.tag {
        Kind::Heading(level, title) => Tag::Hn(
            NonZeroU16::new(level).unwrap_or(NonZeroU16::MIN),
            Some(title),
        )
        .into(),
        Kind::Paragraph => Tag::P.into(),
        Kind::Code => Tag::Code.into(),
        Kind::Table => Tag::Table.into(),
        Kind::Head => Tag::THead.into(),
        Kind::Body => Tag::TBody.into(),
        Kind::Row => Tag::TR.into(),
        Kind::RowHeader => Tag::TH(TableHeaderScope::Row).into(),
        Kind::ColumnHeader => Tag::TH(TableHeaderScope::Column).into(),
        Kind::Cell => Tag::TD.into(),
    };
    let mut group = TagGroup::new(tag);
    for child in element.children {
        match child {
            Child::Element(element) => {
                if let Some(node) = node(element, ids) {
                    group.push(node);
                }
            }
            Child::Leaf(n) => {
                if let Some(Some(id)) = ids.get(n) {
                    group.push(*id);
                }
            }
        }
    }
    Some(Node::Group(group))
}

#[cfg(test)]
mod tests {
    use super::fit_widths;

    #[test]
    fn columns_keep_their_widths_when_every_word_fits() {
        assert_eq!(
            fit_widths(&[100.0, 300.0], &[40.0, 80.0], 400.0),
            vec![100.0, 300.0]
        );
    }

    #[test]
    fn a_column_too_narrow_for_its_word_takes_width_from_the_others() {
        let w = fit_widths(&[50.0, 150.0, 200.0], &[120.0, 50.0, 50.0], 400.0);
        assert!((w.iter().sum::<f32>() - 400.0).abs() < 1e-3, "{w:?}");
        assert!((w[0] - 120.0).abs() < 1e-3, "{w:?}");
        assert!(w[1] >= 50.0 && w[2] >= 50.0, "{w:?}");
        // The spare width is given up in proportion: 100 and 150 spare, 70 taken.
        assert!((w[1] - (150.0 - 28.0)).abs() < 1e-3, "{w:?}");
        assert!((w[2] - (200.0 - 42.0)).abs() < 1e-3, "{w:?}");
    }

    #[test]
    fn words_wider_than_the_page_share_it_alike() {
        let w = fit_widths(&[200.0, 200.0], &[300.0, 500.0], 400.0);
        assert!(
            (w[0] - 150.0).abs() < 1e-3 && (w[1] - 250.0).abs() < 1e-3,
            "{w:?}"
        );
    }
}
