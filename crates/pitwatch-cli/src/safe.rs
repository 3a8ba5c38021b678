//! Terminal safety: text that came from a device or a record (error texts, table and user
//! names, notes, messages) may hold control characters. Printed raw, an escape sequence could
//! recolour, move the cursor, retitle the window, hide a line behind a carriage return or, on
//! some terminals, answer back as if typed. Every line the CLI prints goes through [`text`]
//! (in `out.rs`), so no command can forget it.

use std::borrow::Cow;

/// Whether `c` must not reach a terminal as it is: C0 controls but the line feed and the tab
/// (lines are the CLI's own, and columns use tabs nowhere but where we put them), DEL, the C1
/// controls, and the bidirectional overrides and isolates that reorder what is shown.
fn unsafe_char(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}')
}

/// `text` with every unsafe character written as a visible escape (`\x1b`, `\r`, `\u{202e}`).
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
            c => out.push_str(&format!("\\u{{{:04x}}}", c as u32)),
        }
    }
    Cow::Owned(out)
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
        assert_eq!(text("abc\u{202e}fed"), "abc\\u{202e}fed");
        assert_eq!(
            text("Mere Tūhoe 王小明\tnote\n"),
            "Mere Tūhoe 王小明\tnote\n"
        );
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
