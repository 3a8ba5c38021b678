//! Terminal safety: text that came from a device or a record (error texts, table and user
//! names, notes, messages) may hold control characters. Printed raw, an escape sequence could
//! recolour, move the cursor, retitle the window, hide a line behind a carriage return or, on
//! some terminals, answer back as if typed. Every line the CLI prints goes through [`text`]
//! (in `out.rs`), so no command can forget it. This is the terminal's side of the one rule for
//! untrusted text (`pitwatch_report::untrusted`): JSON is written by [`json`], and a line break
//! inside one printed line becomes a continuation line in `out.rs`.

use std::borrow::Cow;

use pitwatch_report::untrusted;

/// Whether `c` must not reach a terminal as it is: what the untrusted-text rule hides
/// ([`untrusted::is_hidden`]: C0 controls but the line feed and the tab, DEL, the C1 controls,
/// the bidirectional controls and every other format character, the line separators).
fn unsafe_char(c: char) -> bool {
    untrusted::is_hidden(c)
}

/// `text` with every unsafe character written visibly: a control as an escape (`\x1b`, `\r`,
/// `\0`), anything else as its marker (`<U+202E>`).
pub fn text(text: &str) -> Cow<'_, str> {
    if !text.chars().any(unsafe_char) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if !unsafe_char(c) {
            out.push(c);
            continue;
        }
        match c {
            '\r' => out.push_str("\\r"),
            '\0' => out.push_str("\\0"),
            c if (c as u32) < 0x100 => out.push_str(&format!("\\x{:02x}", c as u32)),
            c => out.push_str(&untrusted::marker(c)),
        }
    }
    Cow::Owned(out)
}

/// `text` (one entry's text, printed after `indent`) with each line break followed by `indent`
/// and the continuation marker, for commands that write whole blocks through [`Lines`].
pub fn continued<'t>(text: &'t str, indent: &str) -> Cow<'t, str> {
    untrusted::continued(text, indent)
}

/// `value` as JSON (one line, or `pretty`) that is safe for a terminal and still valid: serde_json
/// writes it, and every character the terminal must not get raw (which JSON can only hold inside
/// a string) is written as a JSON escape (`\u202e`, a surrogate pair beyond the first plane), so
/// the text parses back exactly.
pub fn json<T: serde::Serialize + ?Sized>(value: &T, pretty: bool) -> String {
    let raw = if pretty {
        serde_json::to_string_pretty(value)
    } else {
        serde_json::to_string(value)
    }
    // Serialising a value made of strings, numbers and maps cannot fail; a failure prints null.
    .unwrap_or_else(|_| "null".into());
    if !raw.chars().any(unsafe_char) {
        return raw;
    }
    let mut out = String::with_capacity(raw.len() + 16);
    for c in raw.chars() {
        if unsafe_char(c) {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{unit:04x}"));
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// A writer that passes each complete line through [`text`] (for commands that write through an
/// `io::Write`, like the replays). What is left without a line end is written when dropped.
pub struct Lines<W: std::io::Write> {
    inner: W,
    pending: Vec<u8>,
}

impl<W: std::io::Write> Lines<W> {
    /// Safe lines into `inner`.
    pub fn new(inner: W) -> Self {
        Lines {
            inner,
            pending: Vec::new(),
        }
    }

    fn emit(&mut self, line: &[u8]) -> std::io::Result<()> {
        let line = String::from_utf8_lossy(line);
        self.inner.write_all(text(&line).as_bytes())
    }
}

impl<W: std::io::Write> std::io::Write for Lines<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.pending.extend_from_slice(buf);
        while let Some(end) = self.pending.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = self.pending.drain(..=end).collect();
            self.emit(&line)?;
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        if !self.pending.is_empty() {
            let rest = std::mem::take(&mut self.pending);
            self.emit(&rest)?;
        }
        self.inner.flush()
    }
}

impl<W: std::io::Write> Drop for Lines<W> {
    fn drop(&mut self) {
        let _ = std::io::Write::flush(self);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_sequences_and_overrides_are_shown_not_obeyed() {
        assert_eq!(text("BAC-1 ok"), "BAC-1 ok");
        assert_eq!(
            text("E7 \u{1b}]0;owned\u{7}\u{1b}[2J"),
            "E7 \\x1b]0;owned\\x07\\x1b[2J"
        );
        assert_eq!(text("jam\rall clear"), "jam\\rall clear");
        assert_eq!(text("\u{9b}31m"), "\\x9b31m");
        assert_eq!(text("abc\u{202e}fed"), "abc<U+202E>fed");
        assert_eq!(text("al\u{200b}ice\u{2066}"), "al<U+200B>ice<U+2066>");
        assert_eq!(
            text("Mere Tūhoe 王小明\tnote\n"),
            "Mere Tūhoe 王小明\tnote\n"
        );
    }

    #[test]
    fn json_stays_valid_and_exact_with_hidden_characters() {
        let hostile = "E7\u{202e}dne\u{1b}[2J\u{7f}\u{85}\u{e0041}\n\"x\"";
        let value = serde_json::json!({ "message": hostile });
        for pretty in [false, true] {
            let json = json(&value, pretty);
            assert!(!json.chars().any(unsafe_char), "{json}");
            let back: serde_json::Value = serde_json::from_str(&json).unwrap();
            assert_eq!(back["message"], hostile);
            assert_eq!(text(&json), json);
        }
        assert!(json(&value, false).contains("\\u202e"));
    }

    #[test]
    fn a_line_writer_escapes_lines_split_across_writes() {
        use std::io::Write;
        let mut out = Vec::new();
        {
            let mut lines = Lines::new(&mut out);
            lines.write_all(b"device said \x1b[").unwrap();
            lines
                .write_all("31mjam\nTūhoe\n\x07tail".as_bytes())
                .unwrap();
        }
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "device said \\x1b[31mjam\nTūhoe\n\\x07tail"
        );
    }
}
