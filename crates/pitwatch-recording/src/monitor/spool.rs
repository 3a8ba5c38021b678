//! The writer's spool: every input waits here, in arrival order, until it is on record.
//!
//! Normally an input passes straight through (the writer takes what arrived, records it, and the
//! spool is empty again). While the database cannot be written, inputs pile up: first in memory,
//! up to [`SpoolLimits::memory`] bytes, then in a spool file beside the database, up to
//! [`SpoolLimits::file`] bytes, each entry with its own length and CRC-32 so a torn or damaged
//! tail is found rather than misread. While the file holds entries not yet given back, every new
//! input goes to the file (behind them), so the order never changes; once it has been read to its
//! end memory is used again, and once what was read from it is on record the file is emptied.
//!
//! Only when both are full are bytes dropped, and then exactly counted per device (how many
//! bytes, in how many reads, first and last receive time): the count becomes a [`Gap`] input,
//! placed where the device's stream resumes, which the recorder turns into an incident once it
//! is written. Connection changes are never dropped (they are few and small; they may take the
//! spool a little over its bound).
//!
//! File entries carry a number; the writer records the number of the last file entry it has
//! written in the same transaction as what it wrote (the `spool-mark:` installation fact), so
//! a spool file left behind by a monitor that was killed is read again at the next start without
//! repeating or losing an entry.

use std::collections::{HashMap, VecDeque};
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use pitwatch_model::Timestamp;
use pitwatch_transport::TransportEvent;

use super::Input;
use crate::recorder::Gap;

/// How much the spool may hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SpoolLimits {
    /// Bytes held in memory before the spool file is used.
    pub memory: usize,
    /// Bytes the spool file may grow to (0: no spool file).
    pub file: u64,
}

impl Default for SpoolLimits {
    fn default() -> Self {
        SpoolLimits {
            memory: 64 << 20,
            file: 1 << 30,
        }
    }
}

/// An input in the spool file, as it will be given back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Entry {
    Connected {
        table: String,
        at: Timestamp,
        description: String,
    },
    Chunk {
        table: String,
        at: Timestamp,
        bytes: Vec<u8>,
    },
    Disconnected {
        table: String,
        at: Timestamp,
        reason: String,
    },
    Gap {
        table: String,
        gap: Gap,
    },
}

/// What the spool holds for a table the caller knows by index.
pub(crate) type TableIndex<'a> = dyn Fn(&str) -> Option<usize> + 'a;

/// The spool.
pub(crate) struct Spool {
    limits: SpoolLimits,
    memory: VecDeque<(Input, usize)>,
    memory_bytes: usize,
    file: Option<SpoolFile>,
    /// Per device, bytes being dropped now (the spool is full).
    dropping: HashMap<usize, Gap>,
    /// Bytes dropped since the spool was last empty.
    dropped: u64,
    /// Table names by device index, for the file.
    names: Vec<String>,
}

/// The spool file and where reading and writing stand.
struct SpoolFile {
    path: PathBuf,
    file: File,
    writer: Option<BufWriter<File>>,
    /// Bytes written (the file's length as far as entries go).
    written: u64,
    /// Where the next entry to give back starts.
    read_at: u64,
    /// Entries written and not yet given back.
    entries: u64,
    /// The number the next entry gets.
    next_number: u64,
    /// Writing failed (the disk is full): the file takes nothing more until it is emptied.
    failed: bool,
}

/// The weight of an input in the spool, in bytes.
pub(crate) fn weight(input: &Input) -> usize {
    64 + match input {
        Input::Transport(_, TransportEvent::Chunk { bytes, .. }) => bytes.len(),
        Input::Transport(_, TransportEvent::Connected { description, .. }) => description.len(),
        Input::Transport(_, TransportEvent::Disconnected { reason, .. }) => reason.len(),
        _ => 64,
    }
}

impl Spool {
    /// A spool for the devices named `names` (by index), with no file.
    pub(crate) fn new(limits: SpoolLimits, names: Vec<String>) -> Spool {
        Spool {
            limits,
            memory: VecDeque::new(),
            memory_bytes: 0,
            file: None,
            dropping: HashMap::new(),
            dropped: 0,
            names,
        }
    }

    /// Names the devices a reload adds, numbered after those named so far.
    pub(crate) fn add_names(&mut self, names: impl IntoIterator<Item = String>) {
        self.names.extend(names);
    }

    /// Uses the spool file at `path` (the caller has claimed it for this process), numbering its entries after
    /// `mark`. Entries already in it (left by a monitor that stopped without writing them) are
    /// given back first, except those numbered up to `mark` (already on record); `known` maps
    /// their tables to device indices. Returns how many entries were recovered, and how many
    /// bytes at the file's end could not be read (a torn or damaged tail, cut off).
    pub(crate) fn attach_file(
        &mut self,
        path: &Path,
        mark: u64,
        known: &TableIndex<'_>,
    ) -> std::io::Result<(u64, u64)> {
        // Owner-only whatever the umask: a spool holds what devices sent, not yet on record.
        let file = pitwatch_store::files::private_options()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)?;
        let scan = scan_entries(&file, mark, known)?;
        if scan.foreign {
            return Err(std::io::Error::other(format!(
                "{} holds inputs of tables this monitor does not record; it is left as it is",
                path.display()
            )));
        }
        let length = file.metadata()?.len();
        // A torn tail is cut off, so new entries follow the last good one.
        file.set_len(scan.good)?;
        self.file = Some(SpoolFile {
            path: path.to_owned(),
            writer: None,
            file,
            written: scan.good,
            read_at: scan.first_unwritten,
            entries: scan.unwritten,
            next_number: scan.highest.max(mark) + 1,
            failed: false,
        });
        if scan.unwritten == 0 {
            if let Some(file) = self.file.as_mut() {
                file.reset()?;
            }
        }
        Ok((scan.unwritten, length - scan.good))
    }

    /// The spool file's path, if one is attached.
    pub(crate) fn file_path(&self) -> Option<&Path> {
        self.file.as_ref().map(|f| f.path.as_path())
    }

    /// Whether no input waits (bytes may still be being counted as dropped: see
    /// [`Spool::gaps_closable`]).
    pub(crate) fn is_empty(&self) -> bool {
        self.memory.is_empty() && self.file.as_ref().is_none_or(|f| f.entries == 0)
    }

    /// Whether bytes are being counted as dropped for some device.
    pub(crate) fn has_open_gaps(&self) -> bool {
        !self.dropping.is_empty()
    }

    /// Bytes waiting in memory.
    pub(crate) fn memory_bytes(&self) -> usize {
        self.memory_bytes
    }

    /// The spool file's length as written (entries given back included, until they are on
    /// record).
    #[cfg(test)]
    pub(crate) fn file_len(&self) -> u64 {
        self.file.as_ref().map_or(0, |f| f.written)
    }

    /// Bytes waiting in the file.
    pub(crate) fn file_bytes(&self) -> u64 {
        self.file
            .as_ref()
            .map_or(0, |f| f.written.saturating_sub(f.read_at))
    }

    /// Inputs waiting.
    pub(crate) fn len(&self) -> u64 {
        self.memory.len() as u64 + self.file.as_ref().map_or(0, |f| f.entries)
    }

    /// Bytes dropped since the spool was last empty (reset by [`Spool::take_dropped`]).
    pub(crate) fn take_dropped(&mut self) -> u64 {
        std::mem::take(&mut self.dropped)
    }

    /// Bytes dropped since the last [`Spool::take_dropped`].
    #[cfg(test)]
    pub(crate) fn dropped(&self) -> u64 {
        self.dropped
    }

    /// Adds an input at the end.
    pub(crate) fn push(&mut self, input: Input) {
        let device = match &input {
            Input::Transport(device, _) => Some(*device),
            _ => None,
        };
        let w = weight(&input);
        let is_chunk = matches!(input, Input::Transport(_, TransportEvent::Chunk { .. }));
        if is_chunk && !self.has_room(w) {
            if let (
                Some(device),
                Input::Transport(_, TransportEvent::Chunk { received_at, bytes }),
            ) = (device, &input)
            {
                let gap = self.dropping.entry(device).or_insert(Gap {
                    bytes: 0,
                    chunks: 0,
                    first: *received_at,
                    last: *received_at,
                });
                gap.bytes += bytes.len() as u64;
                gap.chunks += 1;
                gap.last = *received_at;
                self.dropped += bytes.len() as u64;
            }
            return;
        }
        // The device's stream resumes here: what was lost comes first.
        if let Some(device) = device {
            if let Some(gap) = self.dropping.remove(&device) {
                self.enqueue(Input::Gap(device, gap), 96);
            }
        }
        self.enqueue(input, w);
    }

    /// Every device still dropping gets its gap enqueued now (when stopping, or once the spool
    /// has room again, so the loss is recorded even if the device sends nothing more).
    pub(crate) fn close_gaps(&mut self) {
        let mut open: Vec<(usize, Gap)> = self.dropping.drain().collect();
        open.sort_by_key(|(device, _)| *device);
        for (device, gap) in open {
            self.enqueue(Input::Gap(device, gap), 96);
        }
    }

    /// Whether a gap is being counted and the spool has room for new inputs again (or is
    /// empty), so the loss can be recorded.
    pub(crate) fn gaps_closable(&self) -> bool {
        !self.dropping.is_empty() && (self.is_empty() || self.has_room(4096))
    }

    fn has_room(&self, w: usize) -> bool {
        match &self.file {
            Some(f) if f.entries > 0 || self.memory_bytes + w > self.limits.memory => {
                !f.failed && f.written + w as u64 <= self.limits.file
            }
            None => self.memory_bytes + w <= self.limits.memory,
            Some(_) => true,
        }
    }

    fn enqueue(&mut self, input: Input, w: usize) {
        let to_file = match &self.file {
            // While the file holds entries not yet given back, everything new goes behind them;
            // once it is read to its end (even before that is on record), memory is used again.
            Some(f) => !f.failed && (f.entries > 0 || self.memory_bytes + w > self.limits.memory),
            None => false,
        };
        if to_file && matches!(input, Input::Transport(..) | Input::Gap(..)) {
            if let Some(entry) = Entry::from_input(&input, &self.names) {
                if let Some(file) = self.file.as_mut() {
                    match file.append(&entry) {
                        Ok(()) => return,
                        Err(_) => {
                            // The disk is full too: the file takes nothing more; this input
                            // goes to memory (it is small or a connection change).
                            file.failed = true;
                        }
                    }
                }
            }
        }
        self.memory_bytes += w;
        self.memory.push_back((input, w));
    }

    /// Takes up to `max` inputs from the front, and the number of the last file entry among
    /// them (to be marked as written with them).
    pub(crate) fn take(&mut self, max: usize) -> (Vec<Input>, Option<u64>) {
        let mut out = Vec::new();
        while out.len() < max {
            match self.memory.pop_front() {
                Some((input, w)) => {
                    self.memory_bytes -= w;
                    out.push(input);
                }
                None => break,
            }
        }
        let mut mark = None;
        if out.len() < max {
            if let Some(file) = self.file.as_mut() {
                if file.entries > 0 {
                    match file.read(max - out.len()) {
                        Ok(entries) => {
                            for (number, entry) in entries {
                                mark = Some(number);
                                if let Some(input) = entry
                                    .into_input(&|t: &str| self.names.iter().position(|n| n == t))
                                {
                                    out.push(input);
                                }
                            }
                        }
                        Err(_) => {
                            // The file cannot be read back: what it held is lost; count it.
                            self.dropped += file.written.saturating_sub(file.read_at);
                            file.entries = 0;
                        }
                    }
                }
            }
        }
        (out, mark)
    }

    /// What was taken so far is on record: a spool file read to its end is emptied now (not
    /// when it was read: until the entries taken from it commit, a crash must find them there),
    /// and memory is used again.
    pub(crate) fn written(&mut self) {
        if let Some(file) = self.file.as_mut() {
            if file.entries == 0 && file.written > 0 {
                let _ = file.reset();
            }
        }
    }

    /// Puts `inputs` (taken earlier and not written) back in front of everything, and writes
    /// what is in memory to the file, so a monitor stopping while the database cannot be
    /// written leaves it all for the next start, numbered after `after_mark` (the last entry on
    /// record). Returns the bytes that could not be kept.
    pub(crate) fn persist(&mut self, inputs: Vec<Input>, after_mark: u64) -> u64 {
        self.close_gaps();
        let mut front: Vec<Input> = inputs;
        front.extend(self.memory.drain(..).map(|(input, _)| input));
        self.memory_bytes = 0;
        let all_lost = |front: &[Input]| front.iter().map(|i| weight(i) as u64).sum();
        let Some(file) = self.file.as_mut() else {
            return all_lost(&front);
        };
        match file.rewrite_with_front(&front, &self.names, after_mark) {
            Ok(lost) => lost,
            Err(_) => all_lost(&front),
        }
    }

    /// Flushes what was written to the file (called once per round of the writer).
    pub(crate) fn flush(&mut self) {
        if let Some(file) = self.file.as_mut() {
            if let Some(writer) = file.writer.as_mut() {
                if writer.flush().is_err() {
                    file.failed = true;
                }
            }
        }
    }
}

impl SpoolFile {
    fn append(&mut self, entry: &Entry) -> std::io::Result<()> {
        if self.writer.is_none() {
            let mut handle = self.file.try_clone()?;
            handle.seek(SeekFrom::Start(self.written))?;
            self.writer = Some(BufWriter::with_capacity(64 * 1024, handle));
        }
        let payload = entry.encode(self.next_number);
        let mut record = Vec::with_capacity(payload.len() + 8);
        record.extend_from_slice(&(payload.len() as u32).to_le_bytes());
        record.extend_from_slice(&crc32(&payload).to_le_bytes());
        record.extend_from_slice(&payload);
        if let Some(writer) = self.writer.as_mut() {
            writer.write_all(&record)?;
        }
        self.written += record.len() as u64;
        self.entries += 1;
        self.next_number += 1;
        Ok(())
    }

    fn read(&mut self, max: usize) -> std::io::Result<Vec<(u64, Entry)>> {
        if let Some(writer) = self.writer.as_mut() {
            writer.flush()?;
        }
        let mut handle = self.file.try_clone()?;
        handle.seek(SeekFrom::Start(self.read_at))?;
        let mut reader = BufReader::new(handle.take(self.written - self.read_at));
        let mut out = Vec::new();
        while out.len() < max && self.entries > 0 {
            match read_entry(&mut reader)? {
                Some((size, number, entry)) => {
                    self.read_at += size;
                    self.entries -= 1;
                    out.push((number, entry));
                }
                None => {
                    self.entries = 0;
                }
            }
        }
        Ok(out)
    }

    /// Rewrites the file as `front` followed by the entries not yet given back, numbered from
    /// `after_mark + 1`, streaming (the file may be large). Returns the bytes of `front` that
    /// could not be written.
    fn rewrite_with_front(
        &mut self,
        front: &[Input],
        names: &[String],
        after_mark: u64,
    ) -> std::io::Result<u64> {
        if let Some(writer) = self.writer.as_mut() {
            writer.flush()?;
        }
        self.writer = None;
        let fresh_path = self.path.with_extension("rewrite");
        let fresh = pitwatch_store::files::private_options()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(&fresh_path)?;
        let mut out = SpoolFile {
            path: fresh_path.clone(),
            file: fresh.try_clone()?,
            writer: None,
            written: 0,
            read_at: 0,
            entries: 0,
            next_number: after_mark + 1,
            failed: false,
        };
        let mut lost = 0;
        for input in front {
            match Entry::from_input(input, names) {
                Some(entry) if out.append(&entry).is_ok() => {}
                _ => lost += weight(input) as u64,
            }
        }
        let mut handle = self.file.try_clone()?;
        handle.seek(SeekFrom::Start(self.read_at))?;
        let mut reader = BufReader::new(handle.take(self.written - self.read_at));
        while let Some((_, _, entry)) = read_entry(&mut reader)? {
            out.append(&entry)?;
        }
        if let Some(writer) = out.writer.as_mut() {
            writer.flush()?;
        }
        fresh.sync_all()?;
        std::fs::rename(&fresh_path, &self.path)?;
        out.path = self.path.clone();
        *self = out;
        Ok(lost)
    }

    fn reset(&mut self) -> std::io::Result<()> {
        self.writer = None;
        self.file.set_len(0)?;
        self.written = 0;
        self.read_at = 0;
        self.entries = 0;
        self.failed = false;
        Ok(())
    }
}

/// What a spool file holds.
struct Scan {
    /// Bytes of whole, intact entries from the start.
    good: u64,
    /// Where the first entry not yet on record starts.
    first_unwritten: u64,
    /// Entries not yet on record.
    unwritten: u64,
    /// The highest entry number.
    highest: u64,
    /// Whether an entry not yet on record is of a table `known` does not know.
    foreign: bool,
}

/// Reads a spool file's entries (without keeping them): which are on record (numbered up to
/// `mark`), where the rest start, and where the intact part ends.
fn scan_entries(file: &File, mark: u64, known: &TableIndex<'_>) -> std::io::Result<Scan> {
    let mut handle = file.try_clone()?;
    handle.seek(SeekFrom::Start(0))?;
    let mut reader = BufReader::new(handle);
    let mut scan = Scan {
        good: 0,
        first_unwritten: 0,
        unwritten: 0,
        highest: 0,
        foreign: false,
    };
    while let Some((size, number, entry)) = read_entry(&mut reader)? {
        if number <= mark {
            scan.first_unwritten = scan.good + size;
        } else {
            scan.unwritten += 1;
            scan.foreign |= known(entry.table()).is_none();
        }
        scan.good += size;
        scan.highest = scan.highest.max(number);
    }
    Ok(scan)
}

/// One entry: `None` at the end, or where the file is torn or damaged (nothing after that is
/// trusted).
fn read_entry(reader: &mut impl Read) -> std::io::Result<Option<(u64, u64, Entry)>> {
    let mut header = [0u8; 8];
    if read_full(reader, &mut header)? < 8 {
        return Ok(None);
    }
    let len = u32::from_le_bytes([header[0], header[1], header[2], header[3]]) as usize;
    let crc = u32::from_le_bytes([header[4], header[5], header[6], header[7]]);
    if len > 64 << 20 {
        return Ok(None);
    }
    let mut payload = vec![0u8; len];
    if read_full(reader, &mut payload)? < len || crc32(&payload) != crc {
        return Ok(None);
    }
    Ok(Entry::decode(&payload).map(|(number, entry)| (8 + len as u64, number, entry)))
}

fn read_full(reader: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match reader.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

impl Entry {
    fn table(&self) -> &str {
        match self {
            Entry::Connected { table, .. }
            | Entry::Chunk { table, .. }
            | Entry::Disconnected { table, .. }
            | Entry::Gap { table, .. } => table,
        }
    }

    fn from_input(input: &Input, names: &[String]) -> Option<Entry> {
        let name = |device: &usize| names.get(*device).cloned();
        Some(match input {
            Input::Transport(
                device,
                TransportEvent::Connected {
                    at, description, ..
                },
            ) => Entry::Connected {
                table: name(device)?,
                at: *at,
                description: description.clone(),
            },
            Input::Transport(device, TransportEvent::Chunk { received_at, bytes }) => {
                Entry::Chunk {
                    table: name(device)?,
                    at: *received_at,
                    bytes: bytes.clone(),
                }
            }
            Input::Transport(device, TransportEvent::Disconnected { at, reason }) => {
                Entry::Disconnected {
                    table: name(device)?,
                    at: *at,
                    reason: reason.clone(),
                }
            }
            Input::Gap(device, gap) => Entry::Gap {
                table: name(device)?,
                gap: *gap,
            },
            _ => return None,
        })
    }

    fn into_input(self, known: &TableIndex<'_>) -> Option<Input> {
        let device = known(self.table())?;
        Some(match self {
            Entry::Connected {
                at, description, ..
            } => Input::Transport(
                device,
                TransportEvent::Connected {
                    at,
                    description,
                    usb: None,
                },
            ),
            Entry::Chunk { at, bytes, .. } => Input::Transport(
                device,
                TransportEvent::Chunk {
                    received_at: at,
                    bytes,
                },
            ),
            Entry::Disconnected { at, reason, .. } => {
                Input::Transport(device, TransportEvent::Disconnected { at, reason })
            }
            Entry::Gap { gap, .. } => Input::Gap(device, gap),
        })
    }

    fn encode(&self, number: u64) -> Vec<u8> {
        let mut out = Vec::with_capacity(64);
        out.extend_from_slice(&number.to_le_bytes());
        let (kind, table, at) = match self {
            Entry::Connected { table, at, .. } => (1u8, table, *at),
            Entry::Chunk { table, at, .. } => (2, table, *at),
            Entry::Disconnected { table, at, .. } => (3, table, *at),
            Entry::Gap { table, gap } => (4, table, gap.first),
        };
        out.push(kind);
        put_bytes(&mut out, table.as_bytes());
        out.extend_from_slice(&at.unix_millis().to_le_bytes());
        match self {
            Entry::Connected { description, .. } => put_bytes(&mut out, description.as_bytes()),
            Entry::Chunk { bytes, .. } => put_bytes(&mut out, bytes),
            Entry::Disconnected { reason, .. } => put_bytes(&mut out, reason.as_bytes()),
            Entry::Gap { gap, .. } => {
                out.extend_from_slice(&gap.bytes.to_le_bytes());
                out.extend_from_slice(&gap.chunks.to_le_bytes());
                out.extend_from_slice(&gap.last.unix_millis().to_le_bytes());
            }
        }
        out
    }

    fn decode(payload: &[u8]) -> Option<(u64, Entry)> {
        let mut r = Cursor { bytes: payload };
        let number = r.u64()?;
        let kind = r.take(1)?[0];
        let table = String::from_utf8(r.bytes()?.to_vec()).ok()?;
        let at = Timestamp::from_unix_millis(r.u64()? as i64)?;
        let text =
            |r: &mut Cursor<'_>| -> Option<String> { String::from_utf8(r.bytes()?.to_vec()).ok() };
        let entry = match kind {
            1 => Entry::Connected {
                table,
                at,
                description: text(&mut r)?,
            },
            2 => Entry::Chunk {
                table,
                at,
                bytes: r.bytes()?.to_vec(),
            },
            3 => Entry::Disconnected {
                table,
                at,
                reason: text(&mut r)?,
            },
            4 => {
                let bytes = r.u64()?;
                let chunks = r.u64()?;
                let last = Timestamp::from_unix_millis(r.u64()? as i64)?;
                Entry::Gap {
                    table,
                    gap: Gap {
                        bytes,
                        chunks,
                        first: at,
                        last,
                    },
                }
            }
            _ => return None,
        };
        Some((number, entry))
    }
}

fn put_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
    out.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
    out.extend_from_slice(bytes);
}

struct Cursor<'a> {
    bytes: &'a [u8],
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if self.bytes.len() < n {
            return None;
        }
        let (head, rest) = self.bytes.split_at(n);
        self.bytes = rest;
        Some(head)
    }

    fn u64(&mut self) -> Option<u64> {
        let b = self.take(8)?;
        Some(u64::from_le_bytes(b.try_into().ok()?))
    }

    fn bytes(&mut self) -> Option<&'a [u8]> {
        let b = self.take(4)?;
        let n = u32::from_le_bytes(b.try_into().ok()?) as usize;
        self.take(n)
    }
}

/// CRC-32 (IEEE 802.3, the zlib one), table-driven.
pub(crate) fn crc32(bytes: &[u8]) -> u32 {
    const TABLE: [u32; 256] = {
        let mut table = [0u32; 256];
        let mut i = 0;
        while i < 256 {
            let mut c = i as u32;
            let mut k = 0;
            while k < 8 {
                c = if c & 1 != 0 {
                    0xEDB8_8320 ^ (c >> 1)
                } else {
                    c >> 1
                };
                k += 1;
            }
            table[i] = c;
            i += 1;
        }
        table
    };
    let mut crc = 0xFFFF_FFFFu32;
    for &b in bytes {
        crc = TABLE[((crc ^ u32::from(b)) & 0xFF) as usize] ^ (crc >> 8);
    }
    !crc
}

#[cfg(test)]
mod tests;
