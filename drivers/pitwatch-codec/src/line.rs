//! Framing for line-based protocols (the barcode shoe, the Pitwatch protocol): bytes in any
//! chunking become whole lines, each handed over once with its terminator, or a run of
//! `max` bytes with no terminator. A line that fits in one chunk is handed over without copying.

/// A piece of the stream, as the framer hands it over.
#[derive(Debug, PartialEq, Eq)]
pub enum LinePiece<'a> {
    /// A whole line, its terminator included.
    Line(&'a [u8]),
    /// `max` bytes without a terminator: the start of a line that is too long.
    TooLong(&'a [u8]),
}

/// Splits a byte stream into lines of at most `max` bytes (terminator included).
#[derive(Debug, Clone)]
pub struct LineFramer {
    line: Vec<u8>,
    max: usize,
    terminators: &'static [u8],
}

impl Default for LineFramer {
    /// An empty framer that allocates nothing, for `std::mem::take` while a decoder hands the
    /// pieces of its own framer to its own methods.
    fn default() -> Self {
        LineFramer {
            line: Vec::new(),
            max: 1,
            terminators: b"",
        }
    }
}

impl LineFramer {
    /// A framer for lines ending in any of `terminators`, at most `max` bytes long (at least 1).
    pub fn new(max: usize, terminators: &'static [u8]) -> Self {
        let max = max.max(1);
        LineFramer {
            line: Vec::with_capacity(max),
            max,
            terminators,
        }
    }

    /// Feeds `bytes`, handing every completed piece to `each` in stream order; bytes of an
    /// unfinished line are kept for the next call.
    pub fn push(&mut self, bytes: &[u8], mut each: impl FnMut(LinePiece<'_>)) {
        let mut rest = bytes;
        while !rest.is_empty() {
            let room = self.max - self.line.len();
            // A line may hold `max` bytes with its terminator, whatever the chunking.
            let end = rest
                .iter()
                .take(room)
                .position(|b| self.terminators.contains(b));
            match end {
                Some(k) => {
                    if self.line.is_empty() {
                        // Whole line inside this chunk: no copy into the line buffer.
                        each(LinePiece::Line(&rest[..=k]));
                    } else {
                        self.line.extend_from_slice(&rest[..=k]);
                        each(LinePiece::Line(&self.line));
                        self.line.clear();
                    }
                    rest = &rest[k + 1..];
                }
                None => {
                    let take = rest.len().min(room);
                    self.line.extend_from_slice(&rest[..take]);
                    rest = &rest[take..];
                    if self.line.len() == self.max {
                        each(LinePiece::TooLong(&self.line));
                        self.line.clear();
                    }
                }
            }
        }
    }

    /// The stream ended: the bytes of an unfinished line, if any (the framer starts afresh).
    pub fn finish(&mut self) -> Option<Vec<u8>> {
        if self.line.is_empty() {
            None
        } else {
            Some(std::mem::replace(
                &mut self.line,
                Vec::with_capacity(self.max),
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(chunks: &[&[u8]], max: usize) -> (Vec<String>, Option<Vec<u8>>) {
        let mut framer = LineFramer::new(max, b"\r\n");
        let mut pieces = Vec::new();
        for chunk in chunks {
            framer.push(chunk, |piece| {
                pieces.push(match piece {
                    LinePiece::Line(l) => {
                        format!("line {}", String::from_utf8_lossy(l).escape_debug())
                    }
                    LinePiece::TooLong(l) => format!("long {}", String::from_utf8_lossy(l)),
                })
            });
        }
        (pieces, framer.finish())
    }

    #[test]
    fn lines_come_whole_whatever_the_chunking() {
        let whole = frame(&[b"001\r052\r511\r"], 16);
        let split = frame(&[b"0", b"01\r05", b"2\r511", b"\r"], 16);
        assert_eq!(whole, split);
        assert_eq!(whole.0, ["line 001\\r", "line 052\\r", "line 511\\r"]);
        assert_eq!(whole.1, None);
    }

    #[test]
    fn a_line_without_an_end_is_cut_at_max_and_the_rest_kept() {
        let (pieces, rest) = frame(&[b"abcdefgh", b"ij\rxy"], 4);
        assert_eq!(pieces, ["long abcd", "long efgh", "line ij\\r"]);
        assert_eq!(rest, Some(b"xy".to_vec()));
        // `max` counts the terminator: "abc\r" fits in 4, "abcd\r" does not.
        assert_eq!(frame(&[b"abc\r"], 4).0, ["line abc\\r"]);
        assert_eq!(frame(&[b"abcd\r"], 4).0, ["long abcd", "line \\r"]);
    }
}
