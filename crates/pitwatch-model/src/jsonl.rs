//! Reading and writing table event files (JSON Lines: one event object per line).
//!
//! A reader stops at the first bad line and says which line and why. Blank lines are allowed and
//! skipped (they still count for line numbers). An event without `seq` takes its line number, and
//! `seq` must increase strictly through a file, since replay and the store key events by it.

use std::io::{BufRead, Write};

use serde_json::Value;

use crate::event::{EventLineError, TableEvent};

/// Why an event file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum EventFileError {
    /// The bytes could not be read.
    #[error("cannot read: {0}")]
    Io(#[from] std::io::Error),
    /// A line is not a valid event.
    #[error("line {line}: {error}")]
    Line {
        /// 1-based line number.
        line: usize,
        /// What is wrong with it.
        error: EventLineError,
    },
}

/// Streams the events of a JSON Lines source, checking `seq` order as it goes.
pub struct EventReader<R> {
    source: R,
    line: usize,
    last_seq: Option<u64>,
    buffer: String,
    failed: bool,
}

impl<R: BufRead> EventReader<R> {
    /// A reader over `source`.
    pub fn new(source: R) -> Self {
        EventReader {
            source,
            line: 0,
            last_seq: None,
            buffer: String::new(),
            failed: false,
        }
    }

    fn next_event(&mut self) -> Option<Result<TableEvent, EventFileError>> {
        loop {
            self.buffer.clear();
            match self.source.read_line(&mut self.buffer) {
                Ok(0) => return None,
                Ok(_) => {}
                Err(e) => return Some(Err(EventFileError::Io(e))),
            }
            self.line += 1;
            let text = self.buffer.trim();
            if text.is_empty() {
                continue;
            }
            let line = self.line;
            let fail = |error| EventFileError::Line { line, error };
            let value: Value = match serde_json::from_str(text) {
                Ok(v) => v,
                Err(e) => return Some(Err(fail(EventLineError::NotJson(e.to_string())))),
            };
            let event = match TableEvent::from_json(value, Some(line as u64)) {
                Ok(e) => e,
                Err(e) => return Some(Err(fail(e))),
            };
            if let Some(last) = self.last_seq {
                if event.seq <= last {
                    return Some(Err(fail(EventLineError::BadSeq(format!(
                        "{} does not follow {last} (seq must increase)",
                        event.seq
                    )))));
                }
            }
            self.last_seq = Some(event.seq);
            return Some(Ok(event));
        }
    }
}

impl<R: BufRead> Iterator for EventReader<R> {
    type Item = Result<TableEvent, EventFileError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        let item = self.next_event();
        if matches!(item, Some(Err(_))) {
            self.failed = true;
        }
        item
    }
}

/// Reads a whole event file, or reports its first bad line.
pub fn read_events<R: BufRead>(source: R) -> Result<Vec<TableEvent>, EventFileError> {
    EventReader::new(source).collect()
}

/// Writes events as JSON Lines.
pub fn write_events<'a, W: Write>(
    mut sink: W,
    events: impl IntoIterator<Item = &'a TableEvent>,
) -> std::io::Result<()> {
    for event in events {
        writeln!(sink, "{}", event.to_json_line())?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<Vec<TableEvent>, EventFileError> {
        read_events(text.as_bytes())
    }

    #[test]
    fn seq_defaults_to_the_line_number() {
        let events =
            read("{\"event\":\"shuffled\"}\n\n{\"event\":\"cut\",\"position\":60}\n").unwrap();
        let seqs: Vec<u64> = events.iter().map(|e| e.seq).collect();
        assert_eq!(seqs, [1, 3]);
    }

    #[test]
    fn first_bad_line_is_reported_with_its_number() {
        let err = read("{\"event\":\"shuffled\"}\n{\"event\":\"cut\"}\n{oops\n").unwrap_err();
        assert_eq!(
            err.to_string(),
            "line 2: cut: missing \"position\" (required)"
        );
        let err = read("{\"event\":\"shuffled\"}\n{oops\n").unwrap_err();
        assert!(
            err.to_string().starts_with("line 2: not valid JSON"),
            "{err}"
        );
    }

    #[test]
    fn seq_must_increase() {
        let err =
            read("{\"event\":\"shuffled\",\"seq\":5}\n{\"event\":\"bets_closed\",\"seq\":5}\n")
                .unwrap_err();
        assert_eq!(
            err.to_string(),
            "line 2: bad \"seq\": 5 does not follow 5 (seq must increase)"
        );
    }

    #[test]
    fn written_files_read_back_identically() {
        let text = "{\"event\":\"shuffled\",\"seq\":1,\"decks\":8}\n{\"event\":\"card_drawn\",\"seq\":2,\"card\":\"9D\",\"target\":\"player\",\"index\":1,\"note\":\"x\"}\n";
        let events = read(text).unwrap();
        let mut out = Vec::new();
        write_events(&mut out, &events).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), text);
    }

    #[test]
    fn an_unknown_number_reads_back_the_same_after_it_is_written() {
        // Found by fuzz/event_file: a long literal used to land one bit away on the second read.
        let text = "{\"event\":\"shuffled\",\"ck\":2411000000000000000000000000000000000000292233575820485518}\n";
        let events = read(text).unwrap();
        let mut out = Vec::new();
        write_events(&mut out, &events).unwrap();
        let again = read(&String::from_utf8(out).unwrap()).unwrap();
        assert_eq!(again, events);
    }
}
