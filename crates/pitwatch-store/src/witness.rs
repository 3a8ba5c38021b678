//! Checkpoint journals: the record's outside witnesses.
//!
//! Signatures stop a record from being rewritten, but not from being cut short or replaced by an
//! older copy: an older state was itself signed. So checkpoints are also appended, as text lines
//! (see [`crate::seal::CheckpointText`]), to journals outside the database file: by default one
//! beside it (`<database>.checkpoints`), and one in each further witness folder configured (for
//! example on another disk or a network share, named `<record id>.checkpoints` there). Verification
//! reads them and fails when the record is shorter than, or differs from, any checkpoint written.
//!
//! A journal trails the record by at most [`Witness::interval_ms`] of checkpoint time (a line for
//! every transaction would grow by hundreds of megabytes a day on a busy pit), plus whatever a
//! crash cuts off; a line is written after its transaction commits, so a journal is never ahead of
//! the record it witnesses. A journal that cannot be written is reported, never a reason to stop
//! recording.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::seal::CheckpointText;

/// The default journal of a database file: `<database>.checkpoints` beside it.
pub fn journal_beside(db: &Path) -> PathBuf {
    let mut name = db.file_name().unwrap_or_default().to_os_string();
    name.push(".checkpoints");
    db.with_file_name(name)
}

/// The journal of record `record` (its id, hex) in a witness folder.
pub fn journal_in(dir: &Path, record: &str) -> PathBuf {
    dir.join(format!("{record}.checkpoints"))
}

/// One journal the store writes to, and what went wrong with it last.
#[derive(Debug, Clone)]
struct Journal {
    path: PathBuf,
    error: Option<String>,
}

/// The journals a store writes its checkpoints to.
#[derive(Debug, Clone)]
pub struct Witness {
    journals: Vec<Journal>,
    interval_ms: i64,
    last_written_ms: Option<i64>,
    pending: Option<CheckpointText>,
}

/// What a journal's state is, for the application to show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JournalStatus {
    /// The journal file.
    pub path: PathBuf,
    /// The last write's error, if it failed.
    pub error: Option<String>,
}

impl Witness {
    /// Journals at `paths`, written at most once per `interval_ms` of checkpoint time.
    pub fn new(paths: Vec<PathBuf>, interval_ms: i64) -> Witness {
        Witness {
            journals: paths
                .into_iter()
                .map(|path| Journal { path, error: None })
                .collect(),
            interval_ms: interval_ms.max(0),
            last_written_ms: None,
            pending: None,
        }
    }

    /// No journal (an in-memory record).
    pub fn none() -> Witness {
        Witness::new(Vec::new(), 0)
    }

    /// How far, in checkpoint time, a journal may trail the record.
    pub fn interval_ms(&self) -> i64 {
        self.interval_ms
    }

    /// The journals and their state.
    pub fn status(&self) -> Vec<JournalStatus> {
        self.journals
            .iter()
            .map(|j| JournalStatus {
                path: j.path.clone(),
                error: j.error.clone(),
            })
            .collect()
    }

    /// Takes a committed checkpoint made at `at_ms`: written now if the interval has passed (or
    /// `now` is asked for), otherwise kept until the next one or [`Witness::flush`].
    pub(crate) fn checkpoint(&mut self, text: CheckpointText, at_ms: i64, now: bool) {
        let due = now
            || self
                .last_written_ms
                .is_none_or(|last| at_ms.saturating_sub(last) >= self.interval_ms);
        self.pending = Some(text);
        if due {
            self.last_written_ms = Some(at_ms);
            self.flush();
        }
    }

    /// Writes the checkpoint kept back, if any.
    pub fn flush(&mut self) {
        let Some(text) = self.pending.take() else {
            return;
        };
        let line = format!("{text}\n");
        for journal in &mut self.journals {
            journal.error = append(&journal.path, line.as_bytes()).err();
        }
    }
}

impl Drop for Witness {
    fn drop(&mut self) {
        self.flush();
    }
}

fn append(path: &Path, line: &[u8]) -> Result<(), String> {
    let mut file = crate::files::private_options()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| format!("cannot open {}: {e}", path.display()))?;
    // One write of the whole line: with O_APPEND, lines from several processes never interleave.
    file.write_all(line)
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// A journal's lines as read back: the checkpoints it holds, and lines it could not read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct JournalRead {
    /// The journal file.
    pub path: PathBuf,
    /// Its checkpoints, with their line numbers, in file order.
    pub checkpoints: Vec<(usize, CheckpointText)>,
    /// Lines that are not checkpoints: (line number, why). The last line of a journal cut off
    /// by a crash is one.
    pub unreadable: Vec<(usize, String)>,
}

/// Reads a journal file.
pub fn read_journal(path: &Path) -> std::io::Result<JournalRead> {
    let text = std::fs::read(path)?;
    let text = String::from_utf8_lossy(&text);
    let mut read = JournalRead {
        path: path.to_owned(),
        ..JournalRead::default()
    };
    for (index, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match line.parse::<CheckpointText>() {
            Ok(checkpoint) => read.checkpoints.push((index + 1, checkpoint)),
            Err(why) => read.unreadable.push((index + 1, why)),
        }
    }
    Ok(read)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(id: i64) -> CheckpointText {
        CheckpointText {
            record: "00112233445566778899aabbccddeeff".into(),
            id,
            at: format!("2026-11-30T10:00:0{id}Z"),
            hash: [id as u8; 32],
            key: "k".into(),
        }
    }

    #[test]
    fn lines_are_written_at_most_once_per_interval_and_flushed_at_the_end() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.db.checkpoints");
        let mut witness = Witness::new(vec![path.clone()], 1000);
        witness.checkpoint(text(1), 0, false);
        witness.checkpoint(text(2), 400, false);
        witness.checkpoint(text(3), 999, false);
        let ids = |p: &Path| -> Vec<i64> {
            read_journal(p)
                .unwrap()
                .checkpoints
                .iter()
                .map(|(_, c)| c.id)
                .collect()
        };
        assert_eq!(ids(&path), vec![1]);
        witness.checkpoint(text(4), 1000, false);
        assert_eq!(ids(&path), vec![1, 4]);
        witness.checkpoint(text(5), 1001, false);
        drop(witness);
        assert_eq!(
            ids(&path),
            vec![1, 4, 5],
            "the kept-back checkpoint is written at the end"
        );
    }

    #[test]
    fn a_journal_that_cannot_be_written_is_reported_not_fatal() {
        let dir = tempfile::tempdir().unwrap();
        let good = dir.path().join("good.checkpoints");
        let bad = dir.path().join("no-such-folder").join("bad.checkpoints");
        let mut witness = Witness::new(vec![bad.clone(), good.clone()], 0);
        witness.checkpoint(text(1), 0, false);
        let status = witness.status();
        assert!(status[0]
            .error
            .as_deref()
            .unwrap()
            .contains("no-such-folder"));
        assert_eq!(status[1].error, None);
        assert_eq!(read_journal(&good).unwrap().checkpoints.len(), 1);
    }

    #[test]
    fn a_torn_last_line_is_unreadable_not_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j");
        std::fs::write(
            &path,
            format!("{}\n{}", text(1), &text(2).to_string()[..30]),
        )
        .unwrap();
        let read = read_journal(&path).unwrap();
        assert_eq!(read.checkpoints.len(), 1);
        assert_eq!(read.unreadable.len(), 1);
        assert_eq!(read.unreadable[0].0, 2);
    }
}
