//! The one rule for untrusted text. Names, notes, site and table names and device text come
//! from people and devices; every output applies this module at its edge, so that such text can
//! neither run as a formula in a spreadsheet, nor break a JSON document, nor pass for another
//! entry, nor reorder or hide what is shown around it:
//!
//! - **Spreadsheets (CSV):** [`spreadsheet_cell`]. A cell whose text begins with `=`, `+`, `-`,
//!   `@`, a tab or a carriage return (what Excel, LibreOffice and Google Sheets may read as a
//!   formula; OWASP's "CSV injection" list), or with a single quote, is written with one single
//!   quote before it. Nothing else changes: [`spreadsheet_original`] (drop one leading `'`)
//!   gives back the text exactly. The writer is the `csv` crate, every field in double quotes.
//! - **JSON:** always serde_json, which is valid for every string.
//! - **Shown text (PDF, terminal, window):** [`visible`]. Every character in [`is_hidden`]
//!   (controls but the line feed and the tab; Unicode's format characters, category Cf, which
//!   hold the bidirectional embeddings, overrides, isolates and marks, the zero-width space and
//!   joiners, the soft hyphen and the tag characters; the line and paragraph separators) is shown
//!   as a visible marker such as `<U+202E>` instead, so it can neither reorder nor hide text. The
//!   terminal keeps its older escapes for C0 and C1 controls (`\x1b`, `\r`).
//! - **Line breaks:** a line feed is the only line break untrusted text has ([`lines`]). Each
//!   output keeps a text's lines inside its own entry: the CLI indents continuation lines under
//!   the entry behind [`CONTINUATION`], the PDF keeps them in the text's table cell or indents
//!   them under the paragraph's first line, the window keeps them in the entry's element.
//!
//! The window (`ui/src/lib/untrusted.ts`) implements the same character classes.

use std::borrow::Cow;

/// What starts each continuation line of a multi-line text in the terminal (after the entry's
/// indentation), so no line of a note can pass for an entry of its own.
pub const CONTINUATION: &str = "  \u{21B3} ";

/// Whether `c` is one of Unicode's format characters (general category Cf, Unicode 15.1): the
/// bidirectional controls (U+061C, U+200E/U+200F, U+202A–U+202E, U+2066–U+2069), the zero-width
/// space, joiners and word joiner, invisible operators, the byte-order mark, the soft hyphen,
/// interlinear annotation controls, tags and the like.
pub fn is_format(c: char) -> bool {
    matches!(
        c as u32,
        0x00AD
            | 0x0600..=0x0605
            | 0x061C
            | 0x06DD
            | 0x070F
            | 0x0890..=0x0891
            | 0x08E2
            | 0x180E
            | 0x200B..=0x200F
            | 0x202A..=0x202E
            | 0x2060..=0x2064
            | 0x2066..=0x206F
            | 0xFEFF
            | 0xFFF9..=0xFFFB
            | 0x110BD
            | 0x110CD
            | 0x13430..=0x1343F
            | 0x1BCA0..=0x1BCA3
            | 0x1D173..=0x1D17A
            | 0xE0001
            | 0xE0020..=0xE007F
    )
}

/// Whether `c` may not be shown as it is: a control character other than the line feed and the
/// tab (C0, DEL, C1), a format character ([`is_format`]), or the line or paragraph separator
/// (U+2028, U+2029: line breaks the text's own lines would not show).
pub fn is_hidden(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || is_format(c)
        || matches!(c, '\u{2028}' | '\u{2029}')
}

/// The visible marker for `c`: `<U+202E>` (at least four hexadecimal digits, upper case).
pub fn marker(c: char) -> String {
    format!("<U+{:04X}>", c as u32)
}

/// `text` with every hidden character ([`is_hidden`]) replaced by its [`marker`]; line feeds
/// and tabs are kept, everything else is unchanged.
pub fn visible(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_hidden) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if is_hidden(c) {
            out.push_str(&marker(c));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// The lines of `text`: split at each line feed (a text without one is one line; an empty
/// text is one empty line).
pub fn lines(text: &str) -> std::str::Split<'_, char> {
    text.split('\n')
}

/// `text` (one entry's text, printed on a terminal after `indent`) with each line break followed
/// by `indent` and [`CONTINUATION`], so its later lines stay inside the entry.
pub fn continued<'t>(text: &'t str, indent: &str) -> Cow<'t, str> {
    if !text.contains('\n') {
        return Cow::Borrowed(text);
    }
    Cow::Owned(text.replace('\n', &format!("\n{indent}{CONTINUATION}")))
}

/// Whether a spreadsheet could read a cell starting with `c` as a formula (or as the text
/// marker, the single quote, which would hide itself).
fn spreadsheet_trigger(c: char) -> bool {
    matches!(c, '=' | '+' | '-' | '@' | '\t' | '\r' | '\'')
}

/// `text` as a spreadsheet cell that cannot be a formula: a text beginning with `=`, `+`, `-`,
/// `@`, a tab, a carriage return or a single quote gets one single quote before it; any other
/// text is unchanged. [`spreadsheet_original`] undoes it.
pub fn spreadsheet_cell(text: &str) -> Cow<'_, str> {
    match text.chars().next() {
        Some(c) if spreadsheet_trigger(c) => Cow::Owned(format!("'{text}")),
        _ => Cow::Borrowed(text),
    }
}

/// The text a [`spreadsheet_cell`] was made from: the cell without its first character if that
/// is a single quote.
pub fn spreadsheet_original(cell: &str) -> &str {
    cell.strip_prefix('\'').unwrap_or(cell)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formula_starts_are_quoted_and_nothing_else_changes() {
        for hostile in ["=1+2", "@SUM(9)", "+1", "-2+3", "\t=x", "\r=x", "'=x", "'"] {
            let cell = spreadsheet_cell(hostile);
            assert_eq!(cell, format!("'{hostile}"));
            assert_eq!(spreadsheet_original(&cell), hostile);
        }
        for plain in ["", "BAC-1", "Mere Tūhoe", " =1", "1-2", "a=b", "監控"] {
            assert_eq!(spreadsheet_cell(plain), plain);
            assert_eq!(spreadsheet_original(&spreadsheet_cell(plain)), plain);
        }
    }

    #[test]
    fn bidi_controls_and_invisible_characters_are_shown() {
        assert_eq!(visible("abc\u{202e}fed"), "abc<U+202E>fed");
        assert_eq!(
            visible("\u{2066}x\u{2069}\u{200e}\u{200f}\u{061c}"),
            "<U+2066>x<U+2069><U+200E><U+200F><U+061C>"
        );
        assert_eq!(visible("al\u{200b}ice\u{feff}"), "al<U+200B>ice<U+FEFF>");
        assert_eq!(visible("tag\u{e0041}"), "tag<U+E0041>");
        assert_eq!(
            visible("a\u{2028}b\u{85}c\u{1b}d"),
            "a<U+2028>b<U+0085>c<U+001B>d"
        );
        // Line feeds, tabs, combining marks, astral letters and other scripts are kept.
        let kept = "Mere Tu\u{304}hoe\t王小明\n𝒜 😀 שלום";
        assert_eq!(visible(kept), kept);
        assert!(matches!(visible("plain"), Cow::Borrowed(_)));
    }

    #[test]
    fn every_bidi_control_is_hidden() {
        for c in ('\u{202A}'..='\u{202E}')
            .chain('\u{2066}'..='\u{2069}')
            .chain(['\u{200E}', '\u{200F}', '\u{061C}'])
        {
            assert!(is_hidden(c), "{:04X}", c as u32);
        }
        assert!(!is_hidden('\n'));
        assert!(!is_hidden('\t'));
        assert!(!is_hidden('ā'));
    }

    #[test]
    fn a_text_has_its_line_feeds_as_lines() {
        assert_eq!(lines("a\nb").collect::<Vec<_>>(), ["a", "b"]);
        assert_eq!(lines("").collect::<Vec<_>>(), [""]);
    }
}
