//! Text for the PDF: the fonts compiled into the crate, font fallback, shaping and line breaking.
//!
//! Each character is set in the first font of its style that has a glyph for it (Noto Sans for
//! Latin with its diacritics, Greek and Cyrillic; WenQuanYi Micro Hei for Chinese, Japanese and
//! Korean), each run of one font is shaped by rustybuzz, and lines break where Unicode's line
//! breaking rules (UAX #14) allow: between words, and between CJK ideographs. A line's width is
//! the sum of the advances of the very glyphs that are drawn, so what is measured is what is shown.
//!
//! Text is laid out left to right; right-to-left scripts are not reordered (no bidi), and scripts
//! neither font covers (Thai, Devanagari, Arabic…) show the font's missing-glyph box, while the
//! text itself stays in the PDF for search and copy.

use std::ops::Range;
use std::sync::LazyLock;

use krilla::text::{Font, GlyphId, KrillaGlyph};

static NOTO_SANS: &[u8] = include_bytes!("../fonts/NotoSans-Regular.ttf");
static NOTO_SANS_BOLD: &[u8] = include_bytes!("../fonts/NotoSans-Bold.ttf");
static NOTO_SANS_MONO: &[u8] = include_bytes!("../fonts/NotoSansMono-Regular.ttf");
/// A collection: face 0 is WenQuanYi Micro Hei, face 1 its fixed-width Micro Hei Mono.
static WQY_MICROHEI: &[u8] = include_bytes!("../fonts/wqy-microhei.ttc");

/// How a piece of text is set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Style {
    /// Running text.
    Regular,
    /// Headings and labels.
    Bold,
    /// Fixed width: rule texts, bytes.
    Mono,
}

/// One of the embedded faces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FaceId {
    Regular,
    Bold,
    Mono,
    Cjk,
    CjkMono,
}

/// A font face: for the PDF (krilla) and for shaping (rustybuzz), from the same bytes.
pub(crate) struct Face {
    pub(crate) font: Font,
    shaper: rustybuzz::Face<'static>,
    units_per_em: f32,
}

impl Face {
    fn load(data: &'static [u8], index: u32) -> Option<Face> {
        let shaper = rustybuzz::Face::from_slice(data, index)?;
        let units_per_em = shaper.units_per_em() as f32;
        let font = Font::new(data.into(), index)?;
        Some(Face {
            font,
            shaper,
            units_per_em,
        })
    }

    fn has(&self, c: char) -> bool {
        self.shaper.glyph_index(c).is_some()
    }
}

/// Every face a report uses.
pub(crate) struct Fonts {
    regular: Face,
    bold: Face,
    mono: Face,
    cjk: Face,
    cjk_mono: Face,
}

static FONTS: LazyLock<Option<Fonts>> = LazyLock::new(|| {
    Some(Fonts {
        regular: Face::load(NOTO_SANS, 0)?,
        bold: Face::load(NOTO_SANS_BOLD, 0)?,
        mono: Face::load(NOTO_SANS_MONO, 0)?,
        cjk: Face::load(WQY_MICROHEI, 0)?,
        cjk_mono: Face::load(WQY_MICROHEI, 1)?,
    })
});

/// The embedded fonts, parsed once; `None` only if a compiled-in font file does not parse (a
/// test checks that they all do).
pub(crate) fn fonts() -> Option<&'static Fonts> {
    FONTS.as_ref()
}

impl Fonts {
    pub(crate) fn face(&self, id: FaceId) -> &Face {
        match id {
            FaceId::Regular => &self.regular,
            FaceId::Bold => &self.bold,
            FaceId::Mono => &self.mono,
            FaceId::Cjk => &self.cjk,
            FaceId::CjkMono => &self.cjk_mono,
        }
    }

    /// The faces tried for `style`, in order. The CJK face has no bold: bold CJK text is drawn
    /// with its outline stroked as well (see [`Run::embolden`]).
    fn chain(style: Style) -> [FaceId; 2] {
        match style {
            Style::Regular => [FaceId::Regular, FaceId::Cjk],
            Style::Bold => [FaceId::Bold, FaceId::Cjk],
            Style::Mono => [FaceId::Mono, FaceId::CjkMono],
        }
    }

    /// The face `c` is set in: the first of the style's faces that has it.
    fn pick(&self, style: Style, c: char) -> FaceId {
        let chain = Fonts::chain(style);
        chain
            .iter()
            .copied()
            .find(|&id| self.face(id).has(c))
            .unwrap_or(chain[0])
    }
}

/// Characters that belong with the character before them whatever font that is in: combining
/// marks, joiners and variation selectors (a macron typed as U+0304 stays on its vowel), and
/// spaces (so a run of CJK with spaces stays one run).
fn follows_previous(c: char) -> bool {
    c.is_whitespace()
        || matches!(c,
            '\u{0300}'..='\u{036F}'
            | '\u{1AB0}'..='\u{1AFF}'
            | '\u{1DC0}'..='\u{1DFF}'
            | '\u{20D0}'..='\u{20FF}'
            | '\u{FE00}'..='\u{FE0F}'
            | '\u{FE20}'..='\u{FE2F}'
            | '\u{200C}'
            | '\u{200D}'
            | '\u{3099}'
            | '\u{309A}')
}

/// A piece of one line in one face, ready to draw.
#[derive(Debug, Clone)]
pub(crate) struct Run {
    /// The face.
    pub(crate) face: FaceId,
    /// Bold asked for but the face has no bold: stroke the outline too.
    pub(crate) embolden: bool,
    /// The text the glyphs show (for the PDF's text layer: search, copy, screen readers).
    pub(crate) text: String,
    /// The glyphs, advances in ems, ranges into `text`.
    pub(crate) glyphs: Vec<KrillaGlyph>,
}

/// One laid-out line.
#[derive(Debug, Clone, Default)]
pub(crate) struct Line {
    pub(crate) runs: Vec<Run>,
    /// How far the line is drawn to the right of its text's left edge, in ems: a line after a
    /// line break in the text is indented under the text's first line ([`HANG`]).
    pub(crate) indent: f32,
}

impl Line {
    /// The line's advance width at `size` points.
    #[cfg(test)]
    pub(crate) fn width(&self, size: f32) -> f32 {
        self.runs
            .iter()
            .flat_map(|r| &r.glyphs)
            .map(|g| g.x_advance)
            .sum::<f32>()
            * size
    }

    /// The text of the line.
    #[cfg(test)]
    pub(crate) fn text(&self) -> String {
        self.runs.iter().map(|r| r.text.as_str()).collect()
    }
}

/// A glyph of shaped text: its face and its cluster's bytes in the paragraph.
#[derive(Debug, Clone)]
struct Shaped {
    face: FaceId,
    glyph: GlyphId,
    advance: f32,
    x_offset: f32,
    y_offset: f32,
    cluster: Range<usize>,
}

/// A paragraph shaped once: its glyphs in order, and the advance before each byte.
struct Paragraph<'t> {
    text: &'t str,
    glyphs: Vec<Shaped>,
    /// `before[i]`: the advance (ems) of every glyph whose cluster starts before byte `i`.
    before: Vec<f32>,
}

impl Paragraph<'_> {
    fn width(&self, range: Range<usize>) -> f32 {
        self.before[range.end] - self.before[range.start]
    }

    /// The line showing `range` (trailing spaces left off).
    fn line(&self, range: Range<usize>, style: Style) -> Line {
        let end = range.start + self.text[range.clone()].trim_end().len();
        let mut runs: Vec<Run> = Vec::new();
        let mut current: Vec<&Shaped> = Vec::new();
        let flush = |current: &mut Vec<&Shaped>, runs: &mut Vec<Run>| {
            let Some(first) = current.first() else {
                return;
            };
            let from = current.iter().map(|g| g.cluster.start).min().unwrap_or(0);
            let to = current.iter().map(|g| g.cluster.end).max().unwrap_or(from);
            runs.push(Run {
                face: first.face,
                embolden: style == Style::Bold && first.face == FaceId::Cjk,
                text: self.text[from..to].to_owned(),
                glyphs: current
                    .iter()
                    .map(|g| {
                        KrillaGlyph::new(
                            g.glyph,
                            g.advance,
                            g.x_offset,
                            g.y_offset,
                            0.0,
                            g.cluster.start - from..g.cluster.end - from,
                            None,
                        )
                    })
                    .collect(),
            });
            current.clear();
        };
        for glyph in &self.glyphs {
            if glyph.cluster.start < range.start || glyph.cluster.start >= end {
                continue;
            }
            if current.last().is_some_and(|g| g.face != glyph.face) {
                flush(&mut current, &mut runs);
            }
            current.push(glyph);
        }
        flush(&mut current, &mut runs);
        Line { runs, indent: 0.0 }
    }
}

/// Text as the untrusted-text rule shows it ([`crate::untrusted::visible`]): a tab is a space,
/// and every other control character, every format character (the bidirectional overrides and
/// isolates, zero-width characters) and the line separators are drawn as visible markers
/// (`<U+202E>`), so they can neither reorder nor hide what is around them.
fn clean(text: &str) -> String {
    crate::untrusted::visible(&text.replace('\t', " ")).into_owned()
}

fn shape<'t>(fonts: &Fonts, style: Style, text: &'t str) -> Paragraph<'t> {
    // Runs of one face each.
    let mut runs: Vec<(FaceId, Range<usize>)> = Vec::new();
    for (i, c) in text.char_indices() {
        let end = i + c.len_utf8();
        match runs.last_mut() {
            Some((_, range)) if follows_previous(c) => range.end = end,
            _ => {
                let face = fonts.pick(style, c);
                match runs.last_mut() {
                    Some((last, range)) if *last == face => range.end = end,
                    _ => runs.push((face, i..end)),
                }
            }
        }
    }
    let mut glyphs = Vec::with_capacity(text.len());
    for (face_id, range) in runs {
        let face = fonts.face(face_id);
        let mut buffer = rustybuzz::UnicodeBuffer::new();
        buffer.push_str(&text[range.clone()]);
        buffer.guess_segment_properties();
        // Laid out left to right always (no bidi), so clusters come in text order.
        buffer.set_direction(rustybuzz::Direction::LeftToRight);
        let output = rustybuzz::shape(&face.shaper, &[], buffer);
        let infos = output.glyph_infos();
        let positions = output.glyph_positions();
        let first = glyphs.len();
        for (info, position) in infos.iter().zip(positions) {
            let start = range.start + info.cluster as usize;
            glyphs.push(Shaped {
                face: face_id,
                glyph: GlyphId::new(info.glyph_id),
                advance: position.x_advance as f32 / face.units_per_em,
                x_offset: position.x_offset as f32 / face.units_per_em,
                y_offset: position.y_offset as f32 / face.units_per_em,
                cluster: start..range.end,
            });
        }
        // A cluster ends where the next one starts.
        for i in first..glyphs.len() {
            let start = glyphs[i].cluster.start;
            if let Some(next) = glyphs[i + 1..]
                .iter()
                .map(|g| g.cluster.start)
                .find(|&s| s > start)
            {
                glyphs[i].cluster.end = next;
            }
        }
    }
    let mut before = vec![0.0f32; text.len() + 1];
    for glyph in &glyphs {
        before[glyph.cluster.start + 1] += glyph.advance;
    }
    for i in 1..before.len() {
        before[i] += before[i - 1];
    }
    Paragraph {
        text,
        glyphs,
        before,
    }
}

/// Where a line may end inside `text`, in order, ending with its length.
fn break_points(text: &str) -> Vec<usize> {
    let mut points: Vec<usize> = unicode_linebreak::linebreaks(text)
        .map(|(at, _)| at)
        .filter(|&at| at > 0)
        .collect();
    if points.last() != Some(&text.len()) {
        points.push(text.len());
    }
    points
}

/// The width, in ems, of the widest stretch of `text` that Unicode gives no break inside (its
/// longest word, say `UNAUTHORISED_THIRD_CARD`): a column narrower than this would split it.
pub(crate) fn widest_word(fonts: &Fonts, style: Style, text: &str) -> f32 {
    let text = clean_keep_newlines(text);
    let mut widest = 0.0_f32;
    for paragraph in text.split('\n') {
        let shaped = shape(fonts, style, paragraph);
        let mut start = 0;
        for at in break_points(paragraph) {
            let end = start + paragraph[start..at].trim_end().len();
            widest = widest.max(shaped.width(start..end));
            start = at;
        }
    }
    widest
}

/// How far the lines after a line break in a text are indented under its first line, in ems, so
/// that a line of a note can never pass for a new paragraph, field or row.
pub(crate) const HANG: f32 = 1.5;

/// Splits `text` into lines no wider than `width` points at `size` points, breaking where
/// Unicode allows (a word longer than a line is broken between characters). Line breaks in the
/// text are kept, the lines after each indented by `hang` ems; an empty text is one empty line.
pub(crate) fn wrap(
    fonts: &Fonts,
    style: Style,
    text: &str,
    size: f32,
    width: f32,
    hang: f32,
) -> Vec<Line> {
    let text = clean_keep_newlines(text);
    let mut lines = Vec::new();
    for (n, paragraph) in text.split('\n').enumerate() {
        let indent = if n == 0 { 0.0 } else { hang };
        let limit = (width / size - indent).max(1.0);
        let first = lines.len();
        let shaped = shape(fonts, style, paragraph);
        let visible = |from: usize, to: usize| {
            let trimmed = from + paragraph[from..to].trim_end().len();
            shaped.width(from..trimmed)
        };
        let breaks = break_points(paragraph);
        let mut start = 0;
        let mut fit: Option<usize> = None;
        let mut i = 0;
        while i < breaks.len() {
            let at = breaks[i];
            if at <= start {
                i += 1;
                continue;
            }
            if visible(start, at) <= limit {
                fit = Some(at);
                i += 1;
                continue;
            }
            match fit.take() {
                Some(end) => {
                    lines.push(shaped.line(start..end, style));
                    start = end;
                }
                None => {
                    // One word wider than the line: break it between characters, keeping
                    // combining marks with their letter.
                    let mut end = start;
                    for (offset, c) in paragraph[start..at].char_indices().skip(1) {
                        let candidate = start + offset;
                        if follows_previous(c) {
                            continue;
                        }
                        if visible(start, candidate) > limit {
                            break;
                        }
                        end = candidate;
                    }
                    if end == start {
                        // Not even one character fits: it gets a line of its own.
                        end = start
                            + paragraph[start..]
                                .chars()
                                .next()
                                .map_or(at - start, char::len_utf8);
                    }
                    lines.push(shaped.line(start..end, style));
                    start = end;
                }
            }
        }
        lines.push(shaped.line(start..paragraph.len(), style));
        for line in &mut lines[first..] {
            line.indent = indent;
        }
    }
    lines
}

/// Like [`clean`], but line breaks stay (as `\n`).
fn clean_keep_newlines(text: &str) -> String {
    text.replace("\r\n", "\n")
        .split('\n')
        .map(clean)
        .collect::<Vec<_>>()
        .join("\n")
}

/// `text` as one line, however wide.
pub(crate) fn line(fonts: &Fonts, style: Style, text: &str) -> Line {
    let text = clean(text);
    let shaped = shape(fonts, style, &text);
    shaped.line(0..text.len(), style)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fonts() -> &'static Fonts {
        super::fonts().expect("the embedded fonts parse")
    }

    #[test]
    fn every_embedded_face_loads() {
        let fonts = fonts();
        for id in [
            FaceId::Regular,
            FaceId::Bold,
            FaceId::Mono,
            FaceId::Cjk,
            FaceId::CjkMono,
        ] {
            assert!(fonts.face(id).units_per_em > 0.0, "{id:?}");
        }
    }

    #[test]
    fn macrons_and_chinese_get_real_glyphs_from_the_right_face() {
        let fonts = fonts();
        for style in [Style::Regular, Style::Bold, Style::Mono] {
            let line = line(
                fonts,
                style,
                "Mere Tūhoe: 監控已檢查, Kua tirohia te kāmera 14",
            );
            assert_eq!(
                line.text(),
                "Mere Tūhoe: 監控已檢查, Kua tirohia te kāmera 14"
            );
            for run in &line.runs {
                for glyph in &run.glyphs {
                    assert_ne!(glyph.glyph_id.to_u32(), 0, "{style:?}: .notdef in {run:?}");
                }
            }
            let faces: Vec<FaceId> = line.runs.iter().map(|r| r.face).collect();
            let latin = Fonts::chain(style)[0];
            let cjk = Fonts::chain(style)[1];
            assert_eq!(faces, [latin, cjk, latin], "{style:?}");
            assert_eq!(line.runs[1].text, "監控已檢查");
            assert_eq!(line.runs[1].embolden, style == Style::Bold);
        }
    }

    #[test]
    fn a_combining_macron_stays_with_its_letter() {
        // "ū" typed as u + U+0304.
        let line = line(fonts(), Style::Regular, "Tu\u{304}hoe");
        assert_eq!(line.runs.len(), 1);
        assert_eq!(line.runs[0].text, "Tu\u{304}hoe");
    }

    #[test]
    fn wrapping_respects_the_width_and_keeps_every_word() {
        let fonts = fonts();
        let text = "Mere Tūhoe noted: Kua tirohia te kāmera 14, the burn had too few cards.";
        let lines = wrap(fonts, Style::Regular, text, 10.0, 120.0, HANG);
        assert!(lines.len() > 2, "{}", lines.len());
        for line in &lines {
            assert!(line.width(10.0) <= 120.0, "{:?}", line.text());
        }
        let joined: Vec<String> = lines.iter().map(Line::text).collect();
        assert_eq!(joined.join(" "), text);
    }

    #[test]
    fn chinese_breaks_between_ideographs_and_measures_as_drawn() {
        let fonts = fonts();
        let text = "監控已檢查".repeat(8);
        let lines = wrap(fonts, Style::Regular, &text, 10.0, 100.0, HANG);
        assert!(lines.len() >= 4, "{}", lines.len());
        for line in &lines {
            let width = line.width(10.0);
            assert!(width <= 100.0, "{width}");
            // A CJK glyph is a square em: 40 characters at 10 pt are 400 pt wide in all.
            assert!(width > 80.0, "lines are filled: {width}");
        }
        assert_eq!(lines.iter().map(Line::text).collect::<String>(), text);
    }

    #[test]
    fn the_widest_word_is_measured_as_drawn() {
        let fonts = fonts();
        let code = "UNAUTHORISED_THIRD_CARD";
        let alone = widest_word(fonts, Style::Regular, code);
        let line = wrap(fonts, Style::Regular, code, 10.0, 1000.0, 0.0);
        assert!((alone * 10.0 - line[0].width(10.0)).abs() < 0.01);
        let sentence = format!("A {code} at BAC-1\nand a second line");
        assert!((widest_word(fonts, Style::Regular, &sentence) - alone).abs() < 1e-4);
        assert_eq!(widest_word(fonts, Style::Regular, ""), 0.0);
    }

    #[test]
    fn a_word_wider_than_the_line_is_broken_between_characters() {
        let fonts = fonts();
        let hash = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
        let lines = wrap(fonts, Style::Mono, hash, 10.0, 60.0, 0.0);
        assert!(lines.len() > 5);
        for line in &lines {
            assert!(line.width(10.0) <= 60.0);
        }
        assert_eq!(lines.iter().map(Line::text).collect::<String>(), hash);
    }

    #[test]
    fn line_breaks_are_kept_indented_and_hidden_characters_shown() {
        let fonts = fonts();
        let lines = wrap(
            fonts,
            Style::Regular,
            "a\tb\u{7}\r\n\nc\u{202e}d",
            10.0,
            500.0,
            HANG,
        );
        let texts: Vec<String> = lines.iter().map(Line::text).collect();
        assert_eq!(texts, ["a b<U+0007>", "", "c<U+202E>d"]);
        let indents: Vec<f32> = lines.iter().map(|l| l.indent).collect();
        assert_eq!(indents, [0.0, HANG, HANG]);
    }
}
