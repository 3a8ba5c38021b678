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

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::chain::Hash;
use crate::seal::{CheckpointText, PublicKey, SigningKey};

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
    /// Lines written so far.
    written: u64,
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
            written: 0,
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
        self.written += 1;
    }

    /// Lines written so far (to each journal).
    pub(crate) fn written(&self) -> u64 {
        self.written
    }

    /// Writes each journal's marker again (see [`summarize_vouched`]), signed with `key`, so a
    /// process's first check reads only what was appended since; errors only mean it reads more.
    pub(crate) fn vouch(&self, key: &SigningKey) {
        let trusted = [key.public()];
        for journal in &self.journals {
            if let Ok((_, _, read)) = summarize_vouched(&journal.path, &trusted) {
                let _ = read.write(&journal.path, key);
            }
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

/// What verification needs from a journal, gathered line by line: for each record it names, how
/// many of its checkpoints the journal holds, the last of them in file order and the one with
/// the highest number (the first such); and how many lines are not checkpoints.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct JournalSummary {
    /// Per record id: (checkpoints, the last in file order, the highest-numbered).
    pub records: BTreeMap<String, (u64, CheckpointText, CheckpointText)>,
    /// Lines that are not checkpoints.
    pub unreadable: u64,
}

impl JournalSummary {
    /// Takes the lines of `text` in, as [`read_journal`] reads them.
    fn take(&mut self, text: &[u8]) {
        for line in String::from_utf8_lossy(text).lines() {
            if line.trim().is_empty() {
                continue;
            }
            match line.parse::<CheckpointText>() {
                Ok(checkpoint) => match self.records.get_mut(&checkpoint.record) {
                    Some((count, last, highest)) => {
                        *count += 1;
                        if checkpoint.id > highest.id {
                            *highest = checkpoint.clone();
                        }
                        *last = checkpoint;
                    }
                    None => {
                        self.records.insert(
                            checkpoint.record.clone(),
                            (1, checkpoint.clone(), checkpoint),
                        );
                    }
                },
                Err(_) => self.unreadable += 1,
            }
        }
    }
}

/// The summary of a whole journal, read from its first byte: what full verification uses.
pub(crate) fn summarize_journal(path: &Path) -> std::io::Result<JournalSummary> {
    Ok(Summarized::whole(&std::fs::read(path)?).current)
}

/// A journal summarized up to its end, and up to its last complete line (what a marker may
/// vouch for: a line being written is not yet final).
struct Summarized {
    current: JournalSummary,
    complete: JournalSummary,
    /// The bytes up to the end of the last complete line.
    length: u64,
    /// The hash of the (up to) [`TAIL`] bytes before `length`.
    tail: Hash,
}

/// How many bytes before the vouched position a marker's hash covers: the journal's end as the
/// marker saw it, so a journal cut short, replaced or rewritten there is read again in full.
const TAIL: u64 = 4096;

impl Summarized {
    /// A whole journal's bytes.
    fn whole(bytes: &[u8]) -> Summarized {
        Summarized::from_window(bytes, 0, 0, JournalSummary::default())
    }

    /// `bytes` read from offset `base` of a journal; the first `skip` of them (the window
    /// before a vouched position) are summarized already in `summary`.
    fn from_window(bytes: &[u8], base: u64, skip: usize, summary: JournalSummary) -> Summarized {
        let new = &bytes[skip..];
        let complete_len = new.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
        let mut complete = summary;
        complete.take(&new[..complete_len]);
        let mut current = complete.clone();
        current.take(&new[complete_len..]);
        let end = skip + complete_len;
        let start = end.saturating_sub(TAIL as usize);
        Summarized {
            current,
            complete,
            length: base + end as u64,
            tail: Sha256::digest(&bytes[start..end]).into(),
        }
    }
}

/// A signed statement of what a journal's first `length` bytes hold: kept beside the journal
/// (`<journal>.vouched`), so the write gate reads only what was appended since.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Marker {
    length: u64,
    tail: Hash,
    summary: JournalSummary,
    key: PublicKey,
    signature: Vec<u8>,
}

const MARKER_HEADER: &str = "pitwatch-journal-marker:1";

/// The marker file of `journal`.
pub fn marker_of(journal: &Path) -> PathBuf {
    let mut name = journal.file_name().unwrap_or_default().to_os_string();
    name.push(".vouched");
    journal.with_file_name(name)
}

impl Marker {
    /// The lines the signature covers.
    fn body(length: u64, tail: &Hash, summary: &JournalSummary, key: &PublicKey) -> String {
        let mut body = format!(
            "{MARKER_HEADER}\nlength\t{length}\ntail\t{}\nunreadable\t{}\n",
            hex::encode(tail),
            summary.unreadable
        );
        for (count, last, highest) in summary.records.values() {
            body.push_str(&format!("record\t{count}\t{last}\t{highest}\n"));
        }
        body.push_str(&format!("key\t{}\n", key.to_hex()));
        body
    }

    /// What is signed: the journal's file name and the body.
    fn message(journal: &Path, body: &str) -> Vec<u8> {
        let mut message = b"pitwatch-journal-marker\0".to_vec();
        message.extend_from_slice(
            journal
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .as_bytes(),
        );
        message.push(0);
        message.extend_from_slice(body.as_bytes());
        message
    }

    fn parse(text: &str) -> Option<Marker> {
        let (body, signature) = text.rsplit_once("signature\t")?;
        let signature = hex::decode(signature.trim()).ok()?;
        let mut lines = body.lines();
        if lines.next()? != MARKER_HEADER {
            return None;
        }
        let mut field = |name: &str| -> Option<String> {
            let line = lines.next()?;
            line.strip_prefix(name)?
                .strip_prefix('\t')
                .map(str::to_owned)
        };
        let length = field("length")?.parse().ok()?;
        let tail = hex::decode(field("tail")?).ok()?.try_into().ok()?;
        let unreadable = field("unreadable")?.parse().ok()?;
        let mut summary = JournalSummary {
            records: BTreeMap::new(),
            unreadable,
        };
        let mut key = None;
        for line in lines {
            if let Some(hex_key) = line.strip_prefix("key\t") {
                key = PublicKey::from_hex(hex_key);
                break;
            }
            let mut parts = line.strip_prefix("record\t")?.split('\t');
            let count = parts.next()?.parse().ok()?;
            let last: CheckpointText = parts.next()?.parse().ok()?;
            let highest: CheckpointText = parts.next()?.parse().ok()?;
            summary
                .records
                .insert(last.record.clone(), (count, last, highest));
        }
        let marker = Marker {
            length,
            tail,
            summary,
            key: key?,
            signature,
        };
        // What was parsed must be what was signed, byte for byte.
        (Marker::body(marker.length, &marker.tail, &marker.summary, &marker.key) == body)
            .then_some(marker)
    }
}

/// Reads `journal` from the position its marker vouches for, when the marker is signed by one
/// of `trusted` and the journal still ends, at that position, as it did when the marker was
/// written (the [`TAIL`] bytes before it hash alike); otherwise from its first byte. The summary
/// is the one reading the whole journal gives unless lines before that window were changed
/// since the marker was written, which only full verification (which reads every line) finds.
/// Also returns whether the marker was used, and the marker to write now (when signed again).
pub(crate) fn summarize_vouched(
    journal: &Path,
    trusted: &[PublicKey],
) -> std::io::Result<(JournalSummary, bool, Vouchable)> {
    use std::io::{Read, Seek};
    let marker = std::fs::read_to_string(marker_of(journal))
        .ok()
        .and_then(|text| Marker::parse(&text))
        .filter(|m| {
            trusted.contains(&m.key) && {
                let body = Marker::body(m.length, &m.tail, &m.summary, &m.key);
                m.key
                    .verifies(&Marker::message(journal, &body), &m.signature)
            }
        });
    let mut file = std::fs::File::open(journal)?;
    if let Some(marker) = marker {
        let size = file.metadata()?.len();
        if size >= marker.length {
            let base = marker.length.saturating_sub(TAIL);
            file.seek(std::io::SeekFrom::Start(base))?;
            let mut bytes = Vec::new();
            file.read_to_end(&mut bytes)?;
            let skip = (marker.length - base) as usize;
            if bytes.len() >= skip && Sha256::digest(&bytes[..skip]).as_slice() == marker.tail {
                let read = Summarized::from_window(&bytes, base, skip, marker.summary);
                return Ok((read.current.clone(), true, Vouchable(read)));
            }
        }
        file.seek(std::io::SeekFrom::Start(0))?;
    }
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)?;
    let read = Summarized::whole(&bytes);
    Ok((read.current.clone(), false, Vouchable(read)))
}

/// A journal as read by [`summarize_vouched`], for a marker to vouch for once the record has
/// been checked against it.
pub(crate) struct Vouchable(Summarized);

impl Vouchable {
    /// Writes the marker of `journal`, signed with `key`, vouching for the complete lines read
    /// (written to a temporary file and renamed, so a marker is whole or absent).
    pub(crate) fn write(&self, journal: &Path, key: &SigningKey) -> std::io::Result<()> {
        let read = &self.0;
        let public = key.public();
        let body = Marker::body(read.length, &read.tail, &read.complete, &public);
        let signature = key.sign(&Marker::message(journal, &body));
        let text = format!("{body}signature\t{}\n", hex::encode(signature));
        let path = marker_of(journal);
        let mut temporary = path.clone().into_os_string();
        temporary.push(".tmp");
        let temporary = PathBuf::from(temporary);
        {
            let mut file = crate::files::private_options()
                .create(true)
                .write(true)
                .truncate(true)
                .open(&temporary)?;
            file.write_all(text.as_bytes())?;
        }
        std::fs::rename(&temporary, &path)
    }
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

    /// The summary read on from a marker is the one reading the whole journal gives, whatever
    /// was appended since (other records' lines, unreadable lines, a line cut off), and a marker
    /// is used only when its key is trusted and the journal's end before it is unchanged.
    #[test]
    fn reading_on_from_a_marker_gives_what_reading_the_whole_journal_gives() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.db.checkpoints");
        let key = SigningKey::generate();
        let other = SigningKey::generate();
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut roll = |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        let mut journal = Vec::new();
        for round in 0..40 {
            for _ in 0..roll(200) {
                let mut line = text(1 + roll(900) as i64);
                match roll(10) {
                    0 => line.record = "ffeeddccbbaa99887766554433221100".into(),
                    1 => {
                        journal.extend_from_slice(b"not a checkpoint\n");
                        continue;
                    }
                    _ => {}
                }
                journal.extend_from_slice(format!("{line}\n").as_bytes());
            }
            // Now and then a line cut off by a crash, finished or not by the next write.
            if roll(4) == 0 {
                journal.extend_from_slice(b"pitwatch-checkpoint:1:0011");
            }
            std::fs::write(&path, &journal).unwrap();
            let whole = summarize_journal(&path).unwrap();
            let (summary, used, read) = summarize_vouched(&path, &[key.public()]).unwrap();
            assert_eq!(summary, whole, "round {round}");
            assert_eq!(used, round > 0, "round {round}");
            read.write(&path, &key).unwrap();
            // Another key's marker, or none, is not used; the summary is the same.
            let (summary, used, _) = summarize_vouched(&path, &[other.public()]).unwrap();
            assert!(!used);
            assert_eq!(summary, whole);
        }
        // The end before the marker's position changed (same length): read from the start.
        let at = journal.len() - 100;
        journal[at] ^= 1;
        std::fs::write(&path, &journal).unwrap();
        let (summary, used, _) = summarize_vouched(&path, &[key.public()]).unwrap();
        assert!(!used);
        assert_eq!(summary, summarize_journal(&path).unwrap());
        // Cut short before it: read from the start too.
        journal.truncate(journal.len() / 2);
        std::fs::write(&path, &journal).unwrap();
        let (summary, used, _) = summarize_vouched(&path, &[key.public()]).unwrap();
        assert!(!used);
        assert_eq!(summary, summarize_journal(&path).unwrap());
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
