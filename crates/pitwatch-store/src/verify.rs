//! Verification: does the record prove itself?
//!
//! In full ([`Depth::Full`]) every row of every chain is hashed again, SQLite's own integrity
//! check runs, the derived tables are rebuilt from the chained rows and compared, the schema is
//! compared with what the migrations create, the latest checkpoint's signature is checked against
//! the trusted keys and must cover every row, and every checkpoint written down outside the
//! record (journals, a checkpoint printed in a report) must be in the record, unchanged.
//!
//! [`Depth::Quick`] is what start-up runs on a record of any age: everything but re-hashing the
//! rows before the latest checkpoint and SQLite's page-level check. It still finds a record
//! rewritten with recomputed hashes (the signed heads no longer match), rows appended, removed
//! or cut off, an older copy put back (the journals), a derived table or the schema changed; it
//! does not find a row altered *without* recomputing hashes, which the full verification,
//! started in the background, does.

use std::collections::BTreeMap;
use std::path::PathBuf;

use rusqlite::Connection;

use sha2::Digest;

use crate::chain::{self, Chain, Hash, GENESIS};
use crate::facts::{self, DerivedProblem};
use crate::seal::{self, CheckpointText, PublicKey};
use crate::witness::{self, JournalSummary, Vouchable};
use crate::{migrate, StoreError};

/// How much to verify.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Depth {
    /// Every row hashed again, SQLite's integrity check, everything else.
    Full,
    /// Everything but re-hashing rows and SQLite's integrity check (start-up).
    Quick,
}

/// What to verify against.
#[derive(Debug, Clone)]
pub struct VerifyOptions {
    /// How much.
    pub depth: Depth,
    /// Keys whose signatures are trusted (the installation's, or given by whoever checks).
    pub trusted: Vec<PublicKey>,
    /// Checkpoint journals to check the record against (missing files are reported, not fatal).
    pub journals: Vec<PathBuf>,
    /// Checkpoints written down elsewhere (a report, paper) that the record must contain.
    pub checkpoints: Vec<CheckpointText>,
    /// Chains verified before up to these marks: only rows after them are hashed again.
    pub marks: Option<Vec<ChainMark>>,
    /// Threads that hash rows (and run SQLite's integrity check) on a record in a file, each
    /// with its own read-only connection: 0 for one per core when there are at least 50,000
    /// rows to hash, 1 for none besides the caller's. The report is the same whatever the
    /// number.
    pub threads: usize,
    /// The record is an archive (the archive step's file): its device chains may begin after row 1,
    /// where a checkpoint it holds signed the heads they carry on from. Off, rows missing from
    /// the start of a chain are missing, unless the record itself says they were archived.
    pub archive: bool,
}

impl VerifyOptions {
    /// Full verification against `trusted` keys and `journals`.
    pub fn full(trusted: Vec<PublicKey>, journals: Vec<PathBuf>) -> VerifyOptions {
        VerifyOptions {
            depth: Depth::Full,
            trusted,
            journals,
            checkpoints: Vec::new(),
            marks: None,
            threads: 0,
            archive: false,
        }
    }
}

/// How far a chain has been verified: rows 1 to `last_id`, the last with hash `hash`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChainMark {
    /// The chained table.
    pub table: &'static str,
    /// The last row verified (0: none).
    pub last_id: i64,
    /// Its hash.
    pub hash: Hash,
}

/// One row of the record that does not match its chain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChainProblem {
    /// The chained table.
    pub table: &'static str,
    /// The row's id.
    pub id: i64,
    /// What does not match.
    pub reason: String,
}

impl std::fmt::Display for ChainProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} row {}: {}", self.table, self.id, self.reason)
    }
}

/// The outcome of checking one chain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChainReport {
    /// The chained table.
    pub table: &'static str,
    /// Rows checked.
    pub rows: u64,
    /// Rows in the chain.
    pub length: i64,
    /// The hash of the last row (the chain's head), hex, or empty for an empty chain.
    pub head: String,
    /// The first row that does not match, if any.
    pub problem: Option<ChainProblem>,
    /// Rows up to this id were verified before and not read again (0: verified from the first).
    pub after: i64,
    /// Where the chain is verified up to now, when it is intact.
    pub mark: Option<ChainMark>,
}

/// A checkpoint as verification found it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckpointInfo {
    /// Its text form (as in journals and reports).
    pub text: CheckpointText,
    /// The fingerprint of the key that signed it.
    pub key: String,
    /// Whether that key is one of the trusted ones.
    pub trusted: bool,
    /// Whether its signature is that key's signature of the chains' heads as stored.
    pub signature_valid: bool,
}

/// Rows of one chain in a range of ids.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowRange {
    /// The chained table.
    pub table: &'static str,
    /// The first id.
    pub first: i64,
    /// The last id.
    pub last: i64,
}

impl std::fmt::Display for RowRange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.first == self.last {
            write!(f, "{} row {}", self.table, self.first)
        } else {
            write!(f, "{} rows {}–{}", self.table, self.first, self.last)
        }
    }
}

/// Rows at the start of the device chains that are not in this file: archived (a live record
/// names its archives) or in an earlier archive (an archive's own file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArchivedRows {
    /// The checkpoint whose signed heads the chains carry on from.
    pub checkpoint: i64,
    /// The rows not here, chain by chain.
    pub rows: Vec<RowRange>,
    /// Whether that checkpoint is a trusted key's valid signature of those heads.
    pub authentic: bool,
}

/// What a journal said about the record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JournalReport {
    /// The journal file.
    pub path: PathBuf,
    /// Whether it could be read (a missing journal is not tampering, but witnesses nothing).
    pub read: Result<(), String>,
    /// Checkpoints of this record it holds.
    pub checkpoints: u64,
    /// The latest of them.
    pub latest: Option<CheckpointText>,
    /// Checkpoints of other records it holds.
    pub other_records: u64,
    /// Lines that are not checkpoints.
    pub unreadable: u64,
}

/// The outcome of a verification.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifyReport {
    /// How much was verified.
    pub depth: Depth,
    /// SQLite's `PRAGMA integrity_check` answer (`ok` when sound), or why it was not run.
    pub integrity: String,
    /// Every chain, in [`chain::CHAINS`] order.
    pub chains: Vec<ChainReport>,
    /// The first row, in chain order, that does not match its chain.
    pub first_problem: Option<ChainProblem>,
    /// The record's id, hex, once it has one.
    pub record: Option<String>,
    /// Checkpoints in the record.
    pub checkpoints: i64,
    /// The latest checkpoint, if any.
    pub latest: Option<CheckpointInfo>,
    /// Rows written before the record was signed (an upgraded record): vouched for by nothing
    /// but their chain from then on.
    pub predating: Vec<RowRange>,
    /// The journals checked.
    pub journals: Vec<JournalReport>,
    /// The device record's rows kept elsewhere (archived by the archive step): the chains
    /// carry on from heads a signed checkpoint holds.
    pub archived: Option<ArchivedRows>,
    /// Every problem found, in plain words, most fundamental first. Empty when intact.
    pub problems: Vec<String>,
}

impl VerifyReport {
    /// Whether the record proves itself: sound, every chain intact, every row signed (or
    /// predating signing), nothing contradicted.
    pub fn intact(&self) -> bool {
        self.problems.is_empty()
    }

    /// Whether every chain checked is intact (all else aside).
    pub fn chains_intact(&self) -> bool {
        self.first_problem.is_none()
    }

    /// Where each chain is verified up to, for verifying only what is appended later; `None`
    /// unless every chain is intact.
    pub fn marks(&self) -> Option<Vec<ChainMark>> {
        self.chains.iter().map(|c| c.mark).collect()
    }

    /// Rows hashed again by this verification, over every chain.
    pub fn rows_checked(&self) -> u64 {
        self.chains.iter().map(|c| c.rows).sum()
    }
}

/// The schema the migrations create, as `sqlite_master` lists it: (type, name) → SQL.
fn expected_schema() -> &'static BTreeMap<(String, String), String> {
    static SCHEMA: std::sync::OnceLock<BTreeMap<(String, String), String>> =
        std::sync::OnceLock::new();
    SCHEMA.get_or_init(|| {
        let mut conn = Connection::open_in_memory().expect("an in-memory database opens");
        migrate::migrate(&mut conn).expect("the migrations apply to an empty database");
        schema_of(&conn).expect("an in-memory schema reads")
    })
}

fn schema_of(conn: &Connection) -> Result<BTreeMap<(String, String), String>, StoreError> {
    let mut statement = conn.prepare(
        "SELECT type, name, COALESCE(sql, '') FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'",
    )?;
    let rows = statement.query_map([], |r| Ok(((r.get(0)?, r.get(1)?), r.get(2)?)))?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// How the database's schema differs from what the migrations create.
pub fn schema_problems(conn: &Connection) -> Result<Vec<String>, StoreError> {
    let expected = expected_schema();
    let found = schema_of(conn)?;
    let mut problems = Vec::new();
    for ((kind, name), sql) in &found {
        match expected.get(&(kind.clone(), name.clone())) {
            None => problems.push(format!(
                "the schema has a {kind} {name:?} that no migration creates: {sql}"
            )),
            Some(want) if want != sql => problems.push(format!(
                "the schema's {kind} {name:?} differs from what the migrations create: {sql}"
            )),
            Some(_) => {}
        }
    }
    for (kind, name) in expected.keys() {
        if !found.contains_key(&(kind.clone(), name.clone())) {
            problems.push(format!("the schema lacks the {kind} {name:?}"));
        }
    }
    Ok(problems)
}

/// Verifies the record on `conn` (see the module's documentation), as of one moment: every
/// read is in one read transaction, so rows committed meanwhile by a writer are not half seen.
pub fn verify(conn: &Connection, options: &VerifyOptions) -> Result<VerifyReport, StoreError> {
    // The journals first, then the record: a journal line is written after its transaction
    // commits, so every line read now is of a transaction the snapshot below will see. Read the
    // other way round, a record being written would look cut short by the lines of transactions
    // committed in between.
    let journals: ReadJournals = options
        .journals
        .iter()
        .map(|path| (path.clone(), witness::summarize_journal(path)))
        .collect();
    let snapshot = conn.unchecked_transaction()?;
    let report = verify_snapshot(&snapshot, options, journals, true)?;
    snapshot.finish()?;
    Ok(report)
}

/// What a writer checks before it extends the record (the write gate, see `Store::batch`), on
/// the write transaction it will append in: the schema, the latest checkpoint a valid signature
/// by a trusted key of every chain's head with no row after it, the journals (when given: the
/// first check of a process) holding nothing the record lacks, and, from `marks` (what this
/// process verified or wrote itself last), every row appended since hashed again. The derived
/// tables are left to verification: a writer does not vouch for them, and a change to one is
/// found by the next verification whatever is appended after it.
pub(crate) fn gate_check(
    conn: &Connection,
    trusted: Vec<PublicKey>,
    journals: &[PathBuf],
    marks: Option<Vec<ChainMark>>,
) -> Result<(VerifyReport, Vec<(PathBuf, Vouchable)>), StoreError> {
    // Each journal from the position its marker vouches for (see `witness::summarize_vouched`),
    // or from its first line when there is no marker this store trusts.
    let mut read = Vec::with_capacity(journals.len());
    let mut vouchable = Vec::new();
    for path in journals {
        match witness::summarize_vouched(path, &trusted) {
            Ok((summary, _, marker)) => {
                read.push((path.clone(), Ok(summary)));
                vouchable.push((path.clone(), marker));
            }
            Err(e) => read.push((path.clone(), Err(e))),
        }
    }
    let options = VerifyOptions {
        depth: Depth::Quick,
        trusted,
        journals: journals.to_vec(),
        checkpoints: Vec::new(),
        marks,
        threads: 1,
        archive: false,
    };
    Ok((verify_snapshot(conn, &options, read, false)?, vouchable))
}

/// The journals as read before the snapshot.
type ReadJournals = Vec<(PathBuf, std::io::Result<JournalSummary>)>;

fn verify_snapshot(
    conn: &Connection,
    options: &VerifyOptions,
    journals: ReadJournals,
    derived: bool,
) -> Result<VerifyReport, StoreError> {
    let version = migrate::version(conn)?;
    let sealed = version >= migrate::SEALED;
    let chains: &[Chain] = if sealed {
        chain::CHAINS
    } else {
        chain::LEGACY_CHAINS
    };
    let mut report = VerifyReport {
        depth: options.depth,
        integrity: String::new(),
        chains: Vec::new(),
        first_problem: None,
        record: None,
        checkpoints: 0,
        latest: None,
        predating: Vec::new(),
        journals: Vec::new(),
        archived: None,
        problems: Vec::new(),
    };
    // Rows archived from the start of the device chains: where those chains carry on from.
    let anchor = if sealed {
        match anchor::find(conn, options.archive)? {
            Ok(anchor) => anchor,
            Err(problem) => {
                report.problems.push(problem);
                None
            }
        }
    } else {
        None
    };
    // What the chains need hashed: every row (from the marks, if any), or, quick, only the rows
    // after the latest checkpoint (which the signature does not cover and must not exist).
    let latest = if sealed {
        latest_checkpoint(conn)?
    } else {
        None
    };
    let mut plans = Vec::with_capacity(chains.len());
    for (index, chain) in chains.iter().enumerate() {
        let length = chain_length(conn, chain)?;
        let (after, hash) = match (options.depth, &options.marks) {
            (_, Some(marks)) => marks
                .iter()
                .find(|m| m.table == chain.table)
                .map_or((0, GENESIS), |m| (m.last_id, m.hash)),
            (Depth::Quick, None) => {
                let signed = match (&latest, chain.table) {
                    (Some(c), "checkpoints") => c.id,
                    (Some(c), _) => c.counts.get(index).copied().unwrap_or(0),
                    (None, _) => length,
                };
                let from = signed.min(length);
                (from, stored_hash(conn, chain, from)?.unwrap_or(GENESIS))
            }
            (Depth::Full, None) => (0, GENESIS),
        };
        // Rows up to an anchor are not here to hash: the chain carries on from its signed head.
        let end = anchor
            .as_ref()
            .and_then(|a| a.ends.iter().find(|m| m.table == chain.table));
        let (after, hash, anchored) = match end {
            Some(end) if after <= end.last_id => (end.last_id, end.hash, true),
            _ => (after, hash, false),
        };
        plans.push(Plan {
            chain,
            after,
            hash,
            length,
            anchored,
        });
    }
    let integrity_wanted = options.marks.is_none() && options.depth == Depth::Full;
    // The rows (and SQLite's check) on several threads where the record is a file and the work
    // is worth it; each thread reads with its own connection, only rows up to the lengths this
    // snapshot counts, and this snapshot checks every part it hashed links up (see
    // `verify_chain`), so the report is the one hashing here alone gives.
    let (integrity, segments) = match parallel::run(conn, options, &plans, integrity_wanted) {
        Some(done) => done,
        None => {
            let integrity = if integrity_wanted {
                Some(conn.query_row("PRAGMA integrity_check", [], |r| r.get(0))?)
            } else {
                None
            };
            (integrity, vec![Vec::new(); plans.len()])
        }
    };
    if options.marks.is_some() {
        report.integrity = "not checked (incremental verification)".into();
    } else if let Some(integrity) = integrity {
        report.integrity = integrity;
        if report.integrity != "ok" {
            report
                .problems
                .push(format!("SQLite's integrity check: {}", report.integrity));
        }
    } else {
        report.integrity = "not checked (quick verification)".into();
    }
    if version == migrate::LATEST {
        for problem in schema_problems(conn)? {
            report.problems.push(problem);
        }
    }
    for (plan, segments) in plans.iter().zip(&segments) {
        let outcome = verify_chain(conn, plan, segments)?;
        if report.first_problem.is_none() {
            report.first_problem = outcome.problem.clone();
        }
        report.chains.push(outcome);
    }
    if let Some(problem) = &report.first_problem {
        report.problems.push(problem.to_string());
    }
    // Rows not hashed here (quick, or verified before) must still begin where the chain begins:
    // rows removed from its start are missing, not merely unread.
    for plan in &plans {
        let first_expected = anchor
            .as_ref()
            .and_then(|a| a.ends.iter().find(|m| m.table == plan.chain.table))
            .map_or(1, |m| m.last_id + 1);
        if plan.length == 0 || plan.after < first_expected {
            continue;
        }
        let first: i64 = conn.query_row(
            &format!("SELECT COALESCE(MIN(id), 0) FROM {}", plan.chain.table),
            [],
            |r| r.get(0),
        )?;
        if first > first_expected {
            report.problems.push(format!(
                "{} are missing: removed from the start of the chain",
                RowRange {
                    table: plan.chain.table,
                    first: first_expected,
                    last: first - 1,
                }
            ));
        }
    }
    if !sealed {
        report.predating = chains
            .iter()
            .zip(&report.chains)
            .filter(|(_, c)| c.length > 0)
            .map(|(chain, c)| RowRange {
                table: chain.table,
                first: 1,
                last: c.length,
            })
            .collect();
        check_journals(conn, options, journals, None, &mut report)?;
        return Ok(report);
    }

    // The anchor: the heads the device chains carry on from must be what a checkpoint signed.
    if let Some(anchor) = &anchor {
        let (authentic, problems) = anchor::authenticate(conn, anchor, &options.trusted)?;
        report.problems.extend(problems);
        report.archived = Some(ArchivedRows {
            checkpoint: anchor.checkpoint,
            rows: anchor
                .ends
                .iter()
                .filter(|m| m.last_id >= 1)
                .map(|m| RowRange {
                    table: m.table,
                    first: 1,
                    last: m.last_id,
                })
                .collect(),
            authentic,
        });
    }

    // The derived tables.
    if derived {
        for DerivedProblem { table, key, reason } in facts::derived_problems(conn)? {
            report.problems.push(format!("{table} row {key}: {reason}"));
        }
    }

    // The signature: the latest checkpoint must be a trusted key's signature of every chain's
    // head as stored, and cover every row.
    let (record, unsigned_before) = record_meta(conn)?;
    report.record = record.clone();
    report.checkpoints = chain_length(conn, &chain::CHECKPOINTS)?;
    let signed_chains = chain::SIGNED;
    let unsigned_before = unsigned_before.unwrap_or_default();
    for (index, chain) in signed_chains.iter().enumerate() {
        let legacy = unsigned_before.get(index).copied().unwrap_or(0);
        if legacy > 0 {
            report.predating.push(RowRange {
                table: chain.table,
                first: 1,
                last: legacy,
            });
        }
    }
    match &latest {
        None => {
            for (index, chain) in signed_chains.iter().enumerate() {
                let length = chain_length(conn, chain)?;
                let legacy = unsigned_before.get(index).copied().unwrap_or(0);
                if length > legacy {
                    report.problems.push(format!(
                        "{} are covered by no signature (the record has no checkpoint)",
                        RowRange {
                            table: chain.table,
                            first: legacy + 1,
                            last: length
                        }
                    ));
                }
            }
        }
        Some(row) => {
            let record_bytes = record.as_deref().and_then(|r| hex::decode(r).ok());
            let mut heads = Vec::with_capacity(signed_chains.len());
            let mut heads_found = row.counts.len() == signed_chains.len();
            if !heads_found {
                report.problems.push(format!(
                    "checkpoint {} counts {} chains, not {}",
                    row.id,
                    row.counts.len(),
                    signed_chains.len()
                ));
            }
            for (index, chain) in signed_chains.iter().enumerate() {
                let count = row.counts.get(index).copied().unwrap_or(0);
                let length = chain_length(conn, chain)?;
                if length > count {
                    report.problems.push(format!(
                        "{} are covered by no signature (added after checkpoint {}, the latest)",
                        RowRange {
                            table: chain.table,
                            first: count + 1,
                            last: length
                        },
                        row.id
                    ));
                } else if length < count {
                    report.problems.push(format!(
                        "{} had {count} rows at checkpoint {} but has {length}: rows were removed",
                        chain.table, row.id
                    ));
                }
                match head_at(conn, chain, count, anchor.as_ref())? {
                    Some(hash) => heads.push((count, hash)),
                    None => heads_found = false,
                }
            }
            let public_key = PublicKey::from_bytes(&row.public_key);
            let key_fingerprint = seal::fingerprint(&row.public_key);
            let trusted = public_key.is_some_and(|k| options.trusted.contains(&k));
            let signature_valid = heads_found
                && record_bytes
                    .as_deref()
                    .is_some_and(|record| row.signs(record, &heads));
            if !signature_valid {
                report.problems.push(format!(
                    "checkpoint {} (the latest) is not a valid signature of the record as it \
                     stands: the chains' heads, the record's id or the checkpoint were changed",
                    row.id
                ));
            } else if !trusted {
                report.problems.push(format!(
                    "checkpoint {} (the latest) is signed by key {key_fingerprint}, which is not \
                     a trusted key{}",
                    row.id,
                    if options.trusted.is_empty() {
                        " (none was given)".to_owned()
                    } else {
                        format!(
                            " (trusted: {})",
                            options
                                .trusted
                                .iter()
                                .map(PublicKey::fingerprint)
                                .collect::<Vec<_>>()
                                .join(", ")
                        )
                    }
                ));
            }
            report.latest = Some(CheckpointInfo {
                text: CheckpointText {
                    record: record.clone().unwrap_or_default(),
                    id: row.id,
                    at: row.at.clone(),
                    hash: row.hash.clone().try_into().unwrap_or(GENESIS),
                    key: key_fingerprint.clone(),
                },
                key: key_fingerprint,
                trusted,
                signature_valid,
            });
        }
    }
    check_journals(conn, options, journals, record.as_deref(), &mut report)?;
    Ok(report)
}

/// Checks the record against every checkpoint written down elsewhere.
fn check_journals(
    conn: &Connection,
    options: &VerifyOptions,
    journals: ReadJournals,
    record: Option<&str>,
    report: &mut VerifyReport,
) -> Result<(), StoreError> {
    let sealed = migrate::version(conn)? >= migrate::SEALED;
    let check = |text: &CheckpointText, source: &str, problems: &mut Vec<String>| {
        if !sealed {
            problems.push(format!(
                "{source} holds checkpoint {} of record {}, but this record has no checkpoints \
                 (its checkpoints were removed, or it is another record)",
                text.id, text.record
            ));
            return Ok::<(), StoreError>(());
        }
        if Some(text.record.as_str()) != record {
            return Ok(());
        }
        match stored_hash(conn, &chain::CHECKPOINTS, text.id)? {
            None => problems.push(format!(
                "{source}: checkpoint {} (at {}) is not in the record, which ends at checkpoint \
                 {}: the record was cut short or an older copy was put back",
                text.id, text.at, report.checkpoints
            )),
            Some(hash) if hash != text.hash => problems.push(format!(
                "{source}: checkpoint {} (at {}) differs from the record's checkpoint {}: the \
                 record was rewritten or replaced",
                text.id, text.at, text.id
            )),
            Some(_) => {}
        }
        Ok(())
    };
    for (path, read) in journals {
        let mut journal = JournalReport {
            path: path.clone(),
            read: Ok(()),
            checkpoints: 0,
            latest: None,
            other_records: 0,
            unreadable: 0,
        };
        match read {
            Err(e) => journal.read = Err(e.to_string()),
            Ok(JournalSummary {
                records,
                unreadable,
            }) => {
                journal.unreadable = unreadable;
                let source = format!("journal {}", path.display());
                // Only the latest checkpoint of each record matters: the record's chain of
                // checkpoints vouches for the ones before it.
                for (id, (count, last, _)) in &records {
                    if Some(id.as_str()) == record {
                        journal.checkpoints += count;
                        journal.latest = Some(last.clone());
                    } else {
                        journal.other_records += count;
                    }
                }
                for (_, _, highest) in records.values() {
                    check(highest, &source, &mut report.problems)?;
                }
                if journal.checkpoints == 0 && journal.other_records > 0 && sealed {
                    report.problems.push(format!(
                        "{source} holds checkpoints of record{} {}, none of this record ({}): \
                         the database file was replaced by another record",
                        if records.len() > 1 { "s" } else { "" },
                        records
                            .keys()
                            .map(String::as_str)
                            .collect::<Vec<_>>()
                            .join(", "),
                        record.unwrap_or("with no id")
                    ));
                }
            }
        }
        report.journals.push(journal);
    }
    for text in &options.checkpoints {
        if sealed && Some(text.record.as_str()) != record {
            report.problems.push(format!(
                "the checkpoint given is of record {}, not of this record ({})",
                text.record,
                record.unwrap_or("with no id")
            ));
            continue;
        }
        check(text, "the checkpoint given", &mut report.problems)?;
    }
    Ok(())
}

/// Hashes every row of `chain` after row `after` (whose stored hash is `after_hash`) again, to
/// the end of the table: the first row that does not follow, if any.
pub(crate) fn rehash_from(
    conn: &Connection,
    chain: &'static Chain,
    after: i64,
    after_hash: Hash,
    length: i64,
) -> Result<Option<ChainProblem>, StoreError> {
    let plan = Plan {
        chain,
        after,
        hash: after_hash,
        length,
        anchored: false,
    };
    Ok(verify_chain(conn, &plan, &[])?.problem)
}

/// One chain's share of a verification: rows `after + 1` to `length`, after a row whose hash is
/// `hash`.
#[derive(Debug, Clone, Copy)]
struct Plan {
    chain: &'static Chain,
    after: i64,
    hash: Hash,
    length: i64,
    /// Row `after` is not in the record (archived): `hash` is the head a checkpoint signed.
    anchored: bool,
}

/// Rows `after + 1` to `last` of a chain hashed again on another connection.
#[derive(Debug, Clone)]
struct Segment {
    after: i64,
    last: i64,
    /// The stored hash of row `after` as that connection read it (`None`: no such row).
    start: Option<Hash>,
    run: Run,
}

impl Segment {
    /// Whether the segment carries the chain from `prev` (the hash of row `after`, as hashed
    /// here) on to row `last` with nothing wrong: then the rows in it are what hashing them here
    /// would have found, and the chain goes on from `run.head`.
    fn continues(&self, after: i64, prev: &Hash) -> bool {
        self.after == after
            && self.start.as_ref() == Some(prev)
            && self.run.problem.is_none()
            && self.run.next_id == self.last + 1
    }
}

/// The outcome of hashing consecutive rows of a chain.
#[derive(Debug, Clone)]
struct Run {
    /// Rows read.
    count: u64,
    /// The hash of the last row that followed (the start's, if none did).
    head: Hash,
    /// The id the next row must have.
    next_id: i64,
    /// The first row that does not follow, if any (reading stops there).
    problem: Option<ChainProblem>,
}

/// Hashes the rows of `chain` after row `after` (whose hash is `after_hash`), up to row `upper`
/// or the end of the table, in id order: one prepared statement, one reused buffer for a row's
/// encoded columns, and a hasher cloned from one fed the chain's prefix.
fn hash_rows(
    conn: &Connection,
    chain: &'static Chain,
    after: i64,
    after_hash: Hash,
    upper: Option<i64>,
) -> Result<Run, StoreError> {
    let sql = format!(
        "SELECT {}, prev_hash, hash FROM {} WHERE id > ?1{} ORDER BY id",
        chain.columns.join(", "),
        chain.table,
        if upper.is_some() { " AND id <= ?2" } else { "" }
    );
    let mut statement = conn.prepare(&sql)?;
    let mut rows = match upper {
        Some(upper) => statement.query([after, upper])?,
        None => statement.query([after])?,
    };
    let n = chain.columns.len();
    let prefix = chain::prefix(chain);
    let mut content = Vec::with_capacity(256);
    let mut run = Run {
        count: 0,
        head: after_hash,
        next_id: after + 1,
        problem: None,
    };
    while let Some(row) = rows.next()? {
        content.clear();
        let mut id = -1;
        for i in 0..n {
            let value = row.get_ref(i)?;
            if i == 0 {
                id = value.as_i64().unwrap_or(-1);
            }
            chain::encode_value_into(value, &mut content);
        }
        let prev = row.get_ref(n)?.as_blob().unwrap_or(&[]);
        let stored = row.get_ref(n + 1)?.as_blob().unwrap_or(&[]);
        run.count += 1;
        let fail = |reason: String| ChainProblem {
            table: chain.table,
            id,
            reason,
        };
        if id != run.next_id {
            let expected_id = run.next_id;
            run.problem = Some(fail(format!(
                "expected row {expected_id} here: a row is missing"
            )));
            break;
        }
        if prev != run.head {
            run.problem = Some(fail(
                "prev_hash does not match the previous row's hash".into(),
            ));
            break;
        }
        let mut hasher = prefix.clone();
        hasher.update(run.head);
        hasher.update(&content);
        let computed: Hash = hasher.finalize().into();
        if stored != computed {
            run.problem = Some(fail(
                "its content does not match its hash (the row was altered)".into(),
            ));
            break;
        }
        run.head = computed;
        run.next_id += 1;
    }
    Ok(run)
}

/// Verifies `chain` after row `after` (whose hash, verified earlier, is `after_hash`) to its
/// `length`. `segments` are parts of it hashed already on other connections, in order: as long
/// as each carries on from where the chain stands, its rows count as hashed; from the first
/// that does not (a problem in it, a row missing at its end, or a different start), the rest is
/// hashed here, so what is reported is what hashing every row here gives.
fn verify_chain(
    conn: &Connection,
    plan: &Plan,
    segments: &[Segment],
) -> Result<ChainReport, StoreError> {
    let Plan {
        chain,
        after,
        hash: after_hash,
        length,
        anchored,
    } = *plan;
    let report = |rows: u64, head: Option<Hash>, last_id: i64, problem: Option<ChainProblem>| {
        let mark = match (&problem, head) {
            (None, Some(hash)) => Some(ChainMark {
                table: chain.table,
                last_id,
                hash,
            }),
            (None, None) => Some(ChainMark {
                table: chain.table,
                last_id: after,
                hash: after_hash,
            }),
            _ => None,
        };
        ChainReport {
            table: chain.table,
            rows,
            length,
            head: head.map(hex::encode).unwrap_or_default(),
            problem,
            after,
            mark,
        }
    };
    if after > 0 && !anchored {
        // The row verified last must still be there with the hash it had then.
        let stored = stored_hash(conn, chain, after)?;
        if stored != Some(after_hash) {
            let problem = ChainProblem {
                table: chain.table,
                id: after,
                reason: "it no longer has the hash it had when verified earlier (the row or one \
                         before it was changed or removed)"
                    .into(),
            };
            return Ok(report(0, None, after, Some(problem)));
        }
    }
    let mut count = 0u64;
    let mut head = after_hash;
    let mut next_id = after + 1;
    let mut covered = false;
    for (index, segment) in segments.iter().enumerate() {
        if !segment.continues(next_id - 1, &head) {
            break;
        }
        count += segment.run.count;
        head = segment.run.head;
        next_id = segment.run.next_id;
        covered = index + 1 == segments.len() && segment.last >= length;
    }
    let mut problem = None;
    if !covered {
        let rest = hash_rows(conn, chain, next_id - 1, head, None)?;
        count += rest.count;
        head = rest.head;
        next_id = rest.next_id;
        problem = rest.problem;
    }
    let head = (count > 0 || after > 0).then_some(head);
    Ok(report(count, head, next_id - 1, problem))
}

pub(crate) mod anchor;
mod parallel;
mod read;
pub(crate) use read::{
    chain_length, checkpoint_row, head_at, latest_checkpoint, record_meta, stored_hash,
};
