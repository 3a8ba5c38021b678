//! The archive step: old device records moved out of the live record into archive files kept at
//! the venue, only once verified, with nothing lost to proof (issue 32).
//!
//! **What moves.** The device record (raw chunks, frames, events: nearly all of a record's size)
//! up to a signed checkpoint `C` older than the cut-off. Incidents, notes, the audit log, the
//! chained facts (devices, sessions, shoes, users) and every checkpoint stay in the live record,
//! so every incident, shoe listing and report heading still reads there.
//!
//! **The archive file** is a Pitwatch record of its own, built from the live record's rows as
//! they are ([`crate::outbox::Rebuild`]): the device rows since the previous archive's end, up to
//! the checkpoint `C'` that follows the end of every shoe in progress at `C` (so each shoe is
//! whole in one file: a shoe that began before `C` in this archive, a later one in the live record
//! or the next archive), and every other chain from its first row to `C'`. It verifies like any
//! record ([`crate::verify::VerifyOptions::archive`]: its device chains begin where the previous
//! archive's checkpoint signed them) and replays like any record. It is marked as an archive
//! (SQLite's application id [`APPLICATION_ID`]), so nothing records into it.
//!
//! **The order of the step** ([`Store::archive`]): the live record is verified in full; the file
//! is written beside its final name, verified on its own against the installation's key (its
//! latest checkpoint must be the live record's `C'`, hash for hash), flushed to disk and renamed;
//! then, in one transaction of the live record, an entry naming the file, its SHA-256, the rows
//! it holds and the heads at `C` is added as a chained fact ([`ENTRY_PREFIX`]), the step is
//! audited, and the device rows up to `C` are deleted. From then on verification carries the
//! device chains on from the heads the entry names, which `C`'s signature must cover
//! (`verify::anchor`). Rows missing from the start of a chain that no entry names are missing.
//!
//! **Retention.** Each entry carries the site's retention terms ([`Retention`]) and the date the
//! archive must be kept until. Nothing here deletes an archive, or anything else.

use std::io::Read;
use std::path::{Path, PathBuf};

use rusqlite::OptionalExtension;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::chain::{self, Chain};
use crate::facts::{self, FactValue};
use crate::outbox::Rebuild;
use crate::verify::{self, Depth};
use crate::{Actor, Store, StoreError};
use pitwatch_model::Timestamp;

pub use crate::chain::DEVICE;
pub use crate::verify::anchor::ENTRY_PREFIX;

/// SQLite's application id of an archive file ("PWAR").
pub const APPLICATION_ID: i32 = 0x5057_4152;

/// The shoes before a shoe that its reading needs whole in the same file: the shoe before (its
/// replay runs through it) and the shoes its shuffle is compared with (two, the shuffle
/// analysis's `previous_shoes` by default).
pub const SHOES_BEFORE: u32 = 2;

/// The audit action of the archive step.
pub const ARCHIVED: &str = "record.archive";

/// How long the site must keep its records, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Retention {
    /// The jurisdiction's id (`nz`).
    pub jurisdiction: String,
    /// Years every record is kept.
    pub years: u32,
    /// The law that says so.
    pub cite: String,
}

/// One chain's rows in an archive.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChainSpan {
    /// The chained table.
    pub chain: String,
    /// The first row the archive holds.
    pub first: i64,
    /// The last row that left the live record (the anchor checkpoint's count).
    pub last: i64,
    /// That row's hash, hex.
    pub hash: String,
    /// The last row the archive holds (at or after `last`: the shoes in progress at the anchor
    /// are held whole).
    pub held_to: i64,
}

/// A table's events that left the live record: up to `last_seq`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableSpan {
    /// The table's id.
    pub table_id: i64,
    /// Its last event (by sequence) that left the live record.
    pub last_seq: i64,
    /// Its last event the archive holds (at or after the end of the shoe in progress at
    /// `last_seq`).
    pub held_to_seq: i64,
}

/// What the live record keeps about one archive (a chained fact: `meta` key `archive.<n>`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArchiveEntry {
    /// The archive's number (1 for the first).
    pub number: u32,
    /// Its file's name (in the archive folder).
    pub file: String,
    /// The folder it was written to.
    pub folder: String,
    /// Its file's SHA-256, hex.
    pub sha256: String,
    /// Its file's size in bytes.
    pub bytes: u64,
    /// The checkpoint up to whose counts the device record left the live record.
    pub checkpoint: i64,
    /// When that checkpoint was made.
    pub checkpoint_at: String,
    /// The archive's own latest checkpoint (a checkpoint of the live record too).
    pub end_checkpoint: i64,
    /// That checkpoint's hash, hex: the archive file must end at exactly it.
    pub end_hash: String,
    /// Each device chain's rows.
    pub chains: Vec<ChainSpan>,
    /// Each table's events.
    pub tables: Vec<TableSpan>,
    /// The time of the first and of the last event archived, when events say.
    pub first_at: Option<String>,
    /// See `first_at`.
    pub last_at: Option<String>,
    /// The retention terms the archive was made under.
    pub retention: Retention,
    /// The day (UTC) until which the archive must be kept: its last record's, `years` later.
    pub keep_until: String,
    /// When the step was taken, and by whom.
    pub made_at: String,
    /// See `made_at`.
    pub made_by: String,
}

impl ArchiveEntry {
    /// The archive's path.
    pub fn path(&self) -> PathBuf {
        Path::new(&self.folder).join(&self.file)
    }

    /// Rows the archive holds.
    pub fn rows(&self) -> i64 {
        self.chains.iter().map(|c| c.held_to - c.first + 1).sum()
    }
}

/// What an archive step would do: chosen by [`Store::plan_archive`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArchivePlan {
    /// The archive's number.
    pub number: u32,
    /// The checkpoint up to whose counts the device record leaves the live record.
    pub checkpoint: i64,
    /// When it was made.
    pub checkpoint_at: Timestamp,
    /// The archive's latest checkpoint.
    pub end_checkpoint: i64,
    /// For each device chain: the first row to hold, the last to leave, the last to hold.
    pub chains: Vec<(Chain, i64, i64, i64)>,
    /// For every other signed chain: the last row to hold (from its first).
    pub others: Vec<(Chain, i64)>,
    /// Each table's events.
    pub tables: Vec<TableSpan>,
    /// Device rows that leave the live record.
    pub leaving: i64,
}

/// Why there is nothing to archive, in words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NothingToArchive(pub String);

impl Store {
    /// Every archive the record names, oldest first.
    pub fn archives(&self) -> Result<Vec<ArchiveEntry>, StoreError> {
        let mut statement = self.conn.prepare(
            "SELECT value FROM meta WHERE key LIKE ?1 ORDER BY CAST(substr(key, ?2) AS INTEGER)",
        )?;
        let rows = statement.query_map(
            rusqlite::params![
                format!("{ENTRY_PREFIX}%"),
                i64::try_from(ENTRY_PREFIX.len() + 1).unwrap_or(0)
            ],
            |r| r.get::<_, String>(0),
        )?;
        let mut entries = Vec::new();
        for value in rows {
            let value = value?;
            entries.push(serde_json::from_str(&value).map_err(|e| {
                StoreError::Invalid(format!("an archive entry cannot be read: {e}"))
            })?);
        }
        Ok(entries)
    }

    /// Opens the archive `entry` names, read-only, trusting this record's keys: refused unless
    /// it is an archive of this record ending at the checkpoint the entry names, hash for hash
    /// (what `pitwatch archive check` does in full: its SHA-256 and a full verification).
    pub fn open_archive(&self, entry: &ArchiveEntry) -> Result<Store, StoreError> {
        let path = entry.path();
        let unlike = |what: &str| {
            StoreError::Invalid(format!(
                "{} is not archive {} of this record: {what}",
                path.display(),
                entry.number
            ))
        };
        if !path.exists() {
            return Err(StoreError::NotFound(format!(
                "archive {} of this record, {}, is not there: put it back from where the archives \
                 are kept",
                entry.number,
                path.display()
            )));
        }
        let mut archive = Store::open_read_only(&path)?;
        if !archive.is_archive()? {
            return Err(unlike("it is not an archive"));
        }
        if archive.record_id()? != self.record_id()? {
            return Err(unlike("it is another record's"));
        }
        match verify::latest_checkpoint(&archive.conn)? {
            Some(latest)
                if latest.id == entry.end_checkpoint
                    && hex::encode(&latest.hash) == entry.end_hash => {}
            _ => return Err(unlike("it does not end at the checkpoint the record names")),
        }
        archive.trust(self.trusted_keys());
        Ok(archive)
    }

    /// The archive that holds `table`'s events from `seq` on (with the shoe they begin, whole),
    /// if they left this record: the first whose events of the table reach `seq`.
    pub fn archive_holding(
        &self,
        table: crate::TableId,
        seq: u64,
    ) -> Result<Option<ArchiveEntry>, StoreError> {
        let seq = i64::try_from(seq).unwrap_or(i64::MAX);
        Ok(self.archives()?.into_iter().find(|entry| {
            entry
                .tables
                .iter()
                .any(|t| t.table_id == table.0 && seq <= t.last_seq)
        }))
    }

    /// Whether this record is an archive file (see the module's documentation).
    pub fn is_archive(&self) -> Result<bool, StoreError> {
        let id: i32 = self
            .conn
            .query_row("PRAGMA application_id", [], |r| r.get(0))?;
        Ok(id == APPLICATION_ID)
    }

    /// What archiving the device record before `before` would move (see the module's
    /// documentation): `Ok(Err(why))` when there is nothing to archive.
    ///
    /// The *cut-off checkpoint* `C` is the latest made before `before`. The shoe in progress at
    /// `C` at each table, and the `shoes_before` shoes before it, stay whole in the live record
    /// (a shoe's replay runs through the shoe before it; its shuffle analysis compares it with
    /// the shoes before it: [`SHOES_BEFORE`]), so the device record leaves it only up to the
    /// latest checkpoint `A` (also before `before`) before the first of those shoes began, and only if that takes at least one row of each device chain since the previous
    /// archive and leaves at least one. The archive holds everything from the previous archive's
    /// end to the checkpoint `C'` that counts the first event of the shoe after each shoe in
    /// progress at `C`: so for every shoe, one file holds it and the shoe before it whole (what
    /// a shoe's replay runs through), the live record for the shoes after `A`'s.
    pub fn plan_archive(
        &self,
        before: Timestamp,
        shoes_before: u32,
    ) -> Result<Result<ArchivePlan, NothingToArchive>, StoreError> {
        let previous = self.archives()?;
        let done: Vec<i64> = DEVICE
            .iter()
            .map(|c| {
                previous
                    .last()
                    .and_then(|e| e.chains.iter().find(|s| s.chain == c.table))
                    .map_or(0, |s| s.last)
            })
            .collect();
        let lengths: Vec<i64> = DEVICE
            .iter()
            .map(|c| verify::chain_length(&self.conn, c))
            .collect::<Result<_, _>>()?;
        let nothing = |why: &str| {
            Ok(Err(NothingToArchive(format!(
                "nothing made before {before} can be archived: {why}"
            ))))
        };
        // The cut-off checkpoint: the latest before `before` with events since the last archive.
        let Some((_, _, cut)) =
            self.latest_checkpoint_where(|at, device| at < before && device[2] > done[2])?
        else {
            return nothing("no checkpoint before then counts events since the last archive");
        };
        // Each table's shoe in progress at the cut-off: where it began, and where the shoe after
        // it begins (or the table's last event, if none has yet).
        let (mut limit, mut frame_limit, mut chunk_limit) = (i64::MAX, i64::MAX, i64::MAX);
        let mut held_events = cut[2];
        {
            let mut statement = self.conn.prepare(
                "SELECT table_id, MAX(seq) FROM events WHERE id > ?1 AND id <= ?2 GROUP BY table_id",
            )?;
            let spans: Vec<(i64, i64)> = statement
                .query_map([done[2], cut[2]], |r| Ok((r.get(0)?, r.get(1)?)))?
                .collect::<Result<_, _>>()?;
            for (table_id, last_seq) in spans {
                // The shoe in progress, and the `shoes_before` shoes before it, stay whole.
                let in_progress: Option<i64> = self.conn.query_row(
                    "SELECT MAX(shoe) FROM shoes WHERE table_id = ?1 AND first_seq <= ?2",
                    [table_id, last_seq],
                    |r| r.get(0),
                )?;
                let shoe_start: Option<i64> = match in_progress {
                    Some(shoe) => self.conn.query_row(
                        "SELECT MIN(first_seq) FROM shoes WHERE table_id = ?1 AND shoe >= ?2",
                        [table_id, shoe - i64::from(shoes_before)],
                        |r| r.get(0),
                    )?,
                    None => None,
                };
                let started = match shoe_start {
                    Some(seq) => self.event_id(table_id, seq)?.unwrap_or(0),
                    // No shoe started yet: the table's events are kept whole too.
                    None => self
                        .conn
                        .query_row(
                            "SELECT MIN(id) FROM events WHERE table_id = ?1",
                            [table_id],
                            |r| r.get::<_, Option<i64>>(0),
                        )?
                        .unwrap_or(0),
                };
                limit = limit.min(started);
                // The bytes of the frame that event came from stay too, all of them: they begin
                // at the earliest after the chunk that completed the session's frame before it.
                let frame: Option<(i64, i64)> = self
                    .conn
                    .query_row(
                        "SELECT frame_id, session_id FROM events WHERE id = ?1 \
                         AND frame_id IS NOT NULL AND session_id IS NOT NULL",
                        [started],
                        |r| Ok((r.get(0)?, r.get(1)?)),
                    )
                    .optional()?;
                if let Some((frame, session)) = frame {
                    frame_limit = frame_limit.min(frame);
                    let before: Option<i64> = self
                        .conn
                        .query_row(
                            "SELECT chunk_id FROM frames WHERE session_id = ?1 AND id < ?2 \
                         ORDER BY id DESC LIMIT 1",
                            [session, frame],
                            |r| r.get(0),
                        )
                        .optional()?;
                    let from = match before {
                        Some(chunk) => Some(chunk),
                        None => self.conn.query_row(
                            "SELECT MIN(id) FROM raw_chunks WHERE session_id = ?1",
                            [session],
                            |r| r.get(0),
                        )?,
                    };
                    chunk_limit = chunk_limit.min(from.unwrap_or(0));
                }
                let next_shoe: Option<i64> = self.conn.query_row(
                    "SELECT MIN(first_seq) FROM shoes WHERE table_id = ?1 AND first_seq > ?2",
                    [table_id, last_seq],
                    |r| r.get(0),
                )?;
                let held = match next_shoe {
                    Some(seq) => self.event_id(table_id, seq)?,
                    None => None,
                };
                let held = match held {
                    Some(id) => id,
                    None => self.conn.query_row(
                        "SELECT COALESCE(MAX(id), 0) FROM events WHERE table_id = ?1",
                        [table_id],
                        |r| r.get(0),
                    )?,
                };
                held_events = held_events.max(held);
            }
        }
        // The anchor: the latest checkpoint before every one of those shoes began that moves
        // something and keeps something.
        let Some((checkpoint, checkpoint_at, device)) =
            self.latest_checkpoint_where(|at, device| {
                at < before
                    && device[0] < chunk_limit
                    && device[1] < frame_limit
                    && device[2] < limit
                    && device.iter().zip(&done).all(|(n, d)| n > d)
                    && device.iter().zip(&lengths).all(|(n, l)| n < l)
            })?
        else {
            return nothing(
                "no checkpoint before the shoes then in progress began takes at least one row \
                 of each device chain since the last archive and leaves one in the live record",
            );
        };
        // The archive's end: the first checkpoint from the anchor on that counts every event held.
        let mut end = None;
        {
            let events_index = index_of(&chain::EVENTS);
            let mut statement = self
                .conn
                .prepare("SELECT id, counts FROM checkpoints WHERE id >= ?1 ORDER BY id")?;
            let mut rows = statement.query([checkpoint])?;
            while let Some(row) = rows.next()? {
                let counts =
                    crate::seal::parse_counts(&row.get::<_, String>(1)?).unwrap_or_default();
                if counts.get(events_index).copied().unwrap_or(0) >= held_events {
                    end = Some((row.get::<_, i64>(0)?, counts));
                    break;
                }
            }
        }
        let Some((end_checkpoint, end_counts)) = end else {
            return nothing("the shoes in progress then are not yet covered by a checkpoint");
        };
        let count_at = |counts: &[i64], c: &Chain| counts.get(index_of(c)).copied().unwrap_or(0);
        let held_events = count_at(&end_counts, &chain::EVENTS);
        // Each table's events that leave, and what the archive holds of it.
        let mut tables = Vec::new();
        {
            let mut statement = self.conn.prepare(
                "SELECT table_id, MAX(seq) FROM events WHERE id > ?1 AND id <= ?2 GROUP BY table_id \
                 ORDER BY table_id",
            )?;
            let spans: Vec<(i64, i64)> = statement
                .query_map([done[2], device[2]], |r| Ok((r.get(0)?, r.get(1)?)))?
                .collect::<Result<_, _>>()?;
            for (table_id, last_seq) in spans {
                let held_to_seq = self.conn.query_row(
                    "SELECT COALESCE(MAX(seq), 0) FROM events WHERE table_id = ?1 AND id <= ?2",
                    [table_id, held_events],
                    |r| r.get(0),
                )?;
                tables.push(TableSpan {
                    table_id,
                    last_seq,
                    held_to_seq,
                });
            }
        }
        let chains = DEVICE
            .iter()
            .zip(&done)
            .zip(&device)
            .map(|((c, d), n)| (*c, d + 1, *n, count_at(&end_counts, c).max(*n)))
            .collect();
        let others = chain::SIGNED
            .iter()
            .filter(|c| !DEVICE.iter().any(|d| d.table == c.table))
            .map(|c| (*c, count_at(&end_counts, c)))
            .collect();
        Ok(Ok(ArchivePlan {
            number: u32::try_from(previous.len())
                .unwrap_or(u32::MAX)
                .saturating_add(1),
            checkpoint,
            checkpoint_at,
            end_checkpoint,
            chains,
            others,
            tables,
            leaving: device.iter().zip(&done).map(|(n, d)| n - d).sum(),
        }))
    }

    /// The id of `table_id`'s event `seq`, if the record holds it.
    fn event_id(&self, table_id: i64, seq: i64) -> Result<Option<i64>, StoreError> {
        Ok(self
            .conn
            .query_row(
                "SELECT id FROM events WHERE table_id = ?1 AND seq = ?2",
                [table_id, seq],
                |r| r.get(0),
            )
            .optional()?)
    }

    /// The latest checkpoint whose time and device counts ([`DEVICE`] order) satisfy `wanted`:
    /// its id, time and those counts.
    fn latest_checkpoint_where(
        &self,
        wanted: impl Fn(Timestamp, &[i64]) -> bool,
    ) -> Result<Option<(i64, Timestamp, Vec<i64>)>, StoreError> {
        let mut statement = self
            .conn
            .prepare("SELECT id, at, counts FROM checkpoints ORDER BY id DESC")?;
        let mut rows = statement.query([])?;
        while let Some(row) = rows.next()? {
            let Ok(at) = row.get::<_, String>(1)?.parse::<Timestamp>() else {
                continue;
            };
            let counts = crate::seal::parse_counts(&row.get::<_, String>(2)?).unwrap_or_default();
            let device: Vec<i64> = DEVICE
                .iter()
                .map(|c| counts.get(index_of(c)).copied().unwrap_or(0))
                .collect();
            if wanted(at, &device) {
                return Ok(Some((row.get(0)?, at, device)));
            }
        }
        Ok(None)
    }

    /// Takes the archive step `plan` (see the module's documentation): writes and verifies the
    /// archive file in `folder`, then records it and removes the device rows it took, audited
    /// as `actor`'s. Nothing is removed unless the live record verified in full first and the
    /// file verified on its own.
    pub fn archive(
        &mut self,
        plan: &ArchivePlan,
        folder: &Path,
        retention: &Retention,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<ArchiveEntry, StoreError> {
        let Some(record) = self.record_id()? else {
            return Err(StoreError::Invalid("the record has no id yet".into()));
        };
        let report = self.verify()?;
        if !report.intact() {
            return Err(StoreError::Unverified(format!(
                "nothing is archived from a record that does not verify: {}",
                report.problems.join("; ")
            )));
        }
        // The plan must still be this record's next step.
        let previous = self.archives()?;
        if plan.number as usize != previous.len() + 1 {
            return Err(StoreError::Invalid(format!(
                "archive {} was planned, but the record names {} archives now",
                plan.number,
                previous.len()
            )));
        }
        std::fs::create_dir_all(folder)
            .map_err(|e| StoreError::Invalid(format!("cannot create {}: {e}", folder.display())))?;
        let file = format!("{record}.archive-{}.db", plan.number);
        let path = folder.join(&file);
        if path.exists() {
            return Err(StoreError::Invalid(format!(
                "{} exists already; an archive is never overwritten",
                path.display()
            )));
        }
        let partial = folder.join(format!("{file}.partial"));
        let _ = std::fs::remove_file(&partial);
        self.write_archive_file(plan, &partial)?;
        // The file on its own: intact, against this installation's key, ending at `C'`.
        let end = verify::checkpoint_row(&self.conn, plan.end_checkpoint)?.ok_or_else(|| {
            StoreError::Invalid(format!("checkpoint {} is gone", plan.end_checkpoint))
        })?;
        let check = (|| -> Result<(), StoreError> {
            let archive = Store::open_read_only(&partial)?;
            let mut options = self.verify_options(Depth::Full);
            options.journals.clear();
            options.archive = true;
            let report = archive.verify_with(&options)?;
            if !report.intact() {
                return Err(StoreError::Unverified(format!(
                    "the archive written to {} does not verify: {}",
                    partial.display(),
                    report.problems.join("; ")
                )));
            }
            match &report.latest {
                Some(latest)
                    if latest.text.id == end.id && latest.text.hash.as_slice() == end.hash =>
                {
                    Ok(())
                }
                _ => Err(StoreError::Invalid(format!(
                    "the archive written to {} does not end at checkpoint {}",
                    partial.display(),
                    end.id
                ))),
            }
        })();
        if let Err(e) = check {
            let _ = std::fs::remove_file(&partial);
            return Err(e);
        }
        sync_file(&partial)?;
        std::fs::rename(&partial, &path).map_err(|e| {
            StoreError::Invalid(format!("cannot rename {}: {e}", partial.display()))
        })?;
        if let Ok(dir) = std::fs::File::open(folder) {
            let _ = dir.sync_all();
        }
        let (sha256, bytes) = file_digest(&path)?;
        let events = DEVICE.len() - 1;
        let (first_at, last_at) = self.event_times(plan.chains[events].1, plan.chains[events].2)?;
        let keep_from = last_at
            .as_deref()
            .and_then(|t| t.parse::<Timestamp>().ok())
            .unwrap_or(plan.checkpoint_at);
        let mut spans = Vec::with_capacity(DEVICE.len());
        for (chain, first, last, held_to) in &plan.chains {
            let hash = verify::stored_hash(&self.conn, chain, *last)?.ok_or_else(|| {
                StoreError::Invalid(format!("{} row {last} is gone", chain.table))
            })?;
            spans.push(ChainSpan {
                chain: chain.table.to_owned(),
                first: *first,
                last: *last,
                hash: hex::encode(hash),
                held_to: *held_to,
            });
        }
        let entry = ArchiveEntry {
            number: plan.number,
            file,
            folder: folder.display().to_string(),
            sha256,
            bytes,
            checkpoint: plan.checkpoint,
            checkpoint_at: plan.checkpoint_at.to_string(),
            end_checkpoint: end.id,
            end_hash: hex::encode(&end.hash),
            chains: spans,
            tables: plan.tables.clone(),
            first_at,
            last_at,
            retention: retention.clone(),
            keep_until: keep_until(keep_from, retention.years),
            made_at: now.to_string(),
            made_by: actor.user.clone(),
        };
        self.remove_archived(&entry, actor, now)?;
        Ok(entry)
    }

    /// Writes the archive file of `plan` at `path` from this record's rows, as they are.
    fn write_archive_file(&self, plan: &ArchivePlan, path: &Path) -> Result<(), StoreError> {
        let mut rebuild = Rebuild::create_marked(path, APPLICATION_ID)?;
        const PAGE: usize = 20_000;
        let mut copy = |chain: &Chain, first: i64, last: i64| -> Result<(), StoreError> {
            let mut after = first - 1;
            while after < last {
                let rows = self.chain_rows(chain, after, PAGE)?;
                if rows.is_empty() {
                    break;
                }
                for row in rows.iter().take_while(|r| r.position <= last) {
                    rebuild.append(chain, row)?;
                    after = row.position;
                }
                if rows.last().is_some_and(|r| r.position > last) {
                    break;
                }
            }
            if after < last {
                return Err(StoreError::Invalid(format!(
                    "{} ends at row {after}, short of {last}",
                    chain.table
                )));
            }
            Ok(())
        };
        // Facts first: the derived tables (devices, sessions) device rows refer to.
        for (chain, last) in &plan.others {
            copy(chain, 1, *last)?;
        }
        for (chain, first, _, held_to) in &plan.chains {
            copy(chain, *first, *held_to)?;
        }
        copy(&chain::CHECKPOINTS, 1, plan.end_checkpoint)?;
        // The rounds the engine recorded live for the shoes held (derived, as in the record).
        for table in &plan.tables {
            let mut statement = self.conn.prepare(
                "SELECT r.shoe, r.round, r.first_seq, r.last_seq, r.body FROM rounds r \
                 JOIN shoes s ON s.table_id = r.table_id AND s.shoe = r.shoe \
                 WHERE r.table_id = ?1 AND r.last_seq <= ?2",
            )?;
            let rounds = statement.query_map([table.table_id, table.held_to_seq], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, i64>(1)?,
                    r.get::<_, i64>(2)?,
                    r.get::<_, i64>(3)?,
                    r.get::<_, String>(4)?,
                ))
            })?;
            for round in rounds {
                rebuild.put_round(table.table_id, round?)?;
            }
        }
        rebuild.finish()
    }

    /// The times of the first and the last event with ids `first..=last`.
    fn event_times(
        &self,
        first: i64,
        last: i64,
    ) -> Result<(Option<String>, Option<String>), StoreError> {
        let (min, max): (Option<i64>, Option<i64>) = self.conn.query_row(
            "SELECT MIN(at_ms), MAX(at_ms) FROM events WHERE id >= ?1 AND id <= ?2",
            [first, last],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )?;
        let text = |ms: Option<i64>| {
            ms.and_then(Timestamp::from_unix_millis)
                .map(|t| t.to_string())
        };
        Ok((text(min), text(max)))
    }

    /// Records `entry` and removes the device rows it took, in one transaction: the entry as a
    /// chained fact, the step audited, the rows deleted past the append-only triggers (which are
    /// put back as they were), then signed.
    fn remove_archived(
        &mut self,
        entry: &ArchiveEntry,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        // The file is what was verified, byte for byte.
        let (sha256, _) = file_digest(&entry.path())?;
        if sha256 != entry.sha256 {
            return Err(StoreError::Invalid(format!(
                "{} changed after it was verified",
                entry.path().display()
            )));
        }
        let value = serde_json::to_string(entry)
            .map_err(|e| StoreError::Invalid(format!("an archive entry: {e}")))?;
        let key = format!("{ENTRY_PREFIX}{}", entry.number);
        // Frames refer to chunks, events to frames: rows kept may refer to rows archived.
        self.conn.pragma_update(None, "foreign_keys", false)?;
        let result = (|| -> Result<(), StoreError> {
            let mut batch = self.batch(now)?;
            let at = now.to_string();
            batch.put_fact(
                &facts::META,
                &[
                    ("key", FactValue::from(key.as_str())),
                    ("value", FactValue::from(value.as_str())),
                ],
                &at,
            )?;
            let rows = entry
                .chains
                .iter()
                .map(|c| format!("{} rows {}–{}", c.chain, c.first, c.last))
                .collect::<Vec<_>>()
                .join(", ");
            let detail = actor.detail(&[
                ("archive", &entry.number.to_string()),
                ("file", &entry.path().display().to_string()),
                ("sha256", &entry.sha256),
                ("checkpoint", &entry.checkpoint.to_string()),
                ("rows", &rows),
                ("keep_until", &entry.keep_until),
            ]);
            batch.append_audit(
                &actor.user,
                ARCHIVED,
                &format!("archive {}", entry.number),
                &detail,
                now,
            )?;
            for chain in DEVICE.iter().rev() {
                let span = entry
                    .chains
                    .iter()
                    .find(|c| c.chain == chain.table)
                    .ok_or_else(|| StoreError::Invalid(format!("no span of {}", chain.table)))?;
                let trigger = format!("{}_append_only_d", chain.table);
                let sql: String = batch.tx.query_row(
                    "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = ?1",
                    [&trigger],
                    |r| r.get(0),
                )?;
                batch.tx.execute_batch(&format!("DROP TRIGGER {trigger}"))?;
                batch.tx.execute(
                    &format!("DELETE FROM {} WHERE id <= ?1", chain.table),
                    [span.last],
                )?;
                batch.tx.execute_batch(&sql)?;
            }
            batch.commit()
        })();
        self.conn.pragma_update(None, "foreign_keys", true)?;
        result
    }
}

/// Where `chain` is among the signed chains (a checkpoint's counts are in that order).
fn index_of(chain: &Chain) -> usize {
    chain::SIGNED
        .iter()
        .position(|c| c.table == chain.table)
        .unwrap_or(usize::MAX)
}

/// The day `years` after `from` (29 February becoming 28 February), as `YYYY-MM-DD`.
pub fn keep_until(from: Timestamp, years: u32) -> String {
    use chrono::Datelike;
    let date = from.as_datetime().date_naive();
    let year = date.year() + i32::try_from(years).unwrap_or(i32::MAX / 2);
    let until = date
        .with_year(year)
        .or_else(|| date.with_day(28).and_then(|d| d.with_year(year)))
        .unwrap_or(date);
    until.format("%Y-%m-%d").to_string()
}

/// A file's SHA-256 (hex) and size.
pub fn file_digest(path: &Path) -> Result<(String, u64), StoreError> {
    let mut file = std::fs::File::open(path)
        .map_err(|e| StoreError::Invalid(format!("cannot read {}: {e}", path.display())))?;
    let mut hasher = Sha256::new();
    let mut buffer = vec![0u8; 1 << 16];
    let mut bytes = 0u64;
    loop {
        let n = file
            .read(&mut buffer)
            .map_err(|e| StoreError::Invalid(format!("cannot read {}: {e}", path.display())))?;
        if n == 0 {
            break;
        }
        bytes += n as u64;
        hasher.update(&buffer[..n]);
    }
    Ok((hex::encode(hasher.finalize()), bytes))
}

fn sync_file(path: &Path) -> Result<(), StoreError> {
    std::fs::File::open(path)
        .and_then(|f| f.sync_all())
        .map_err(|e| StoreError::Invalid(format!("cannot flush {}: {e}", path.display())))
}
