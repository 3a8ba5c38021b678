//! The record as the application opens it: with the installation's signing key, its witnesses,
//! and an integrity check that gates recording.
//!
//! The installation's key is a file outside the database (`PITWATCH_KEY`, or
//! `$XDG_CONFIG_HOME/pitwatch/signing.key`, else `~/.config/pitwatch/signing.key`), shared by the
//! desktop app and the CLI on one workstation. Its public half is what verification trusts.
//!
//! At start-up ([`open_for_recording`]) the record is verified quickly (everything but re-hashing
//! every row: see [`pitwatch_store::verify`]). A record that fails is never appended to: it is
//! kept as it is, as evidence, and recording goes on in a new segment beside it
//! (`pit.segment-2.db`, …); the failure is reported for as long as the broken segment is there.

use std::path::{Path, PathBuf};

use pitwatch_games::GameBook;
use pitwatch_store::{
    CheckpointText, Depth, PublicKey, Sealing, SigningKey, Store, StoreError, VerifyOptions,
    VerifyReport,
};

/// The installation: where its signing key is, and where its checkpoints are witnessed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Installation {
    /// The signing key file.
    pub key: PathBuf,
    /// Further witness folders (besides the journal beside each record).
    pub witness_dirs: Vec<PathBuf>,
}

impl Installation {
    /// The installation of this user account: `PITWATCH_KEY`, or the key in the user's
    /// configuration folder.
    pub fn from_env() -> Installation {
        Installation {
            key: default_key_path(),
            witness_dirs: Vec::new(),
        }
    }

    /// An installation whose key is `key`.
    pub fn with_key(key: impl Into<PathBuf>) -> Installation {
        Installation {
            key: key.into(),
            witness_dirs: Vec::new(),
        }
    }

    /// Also witnessed in `dirs`.
    pub fn witnessed_in(mut self, dirs: impl IntoIterator<Item = PathBuf>) -> Installation {
        self.witness_dirs.extend(dirs);
        self
    }

    /// How a writable store signs for this installation.
    pub fn sealing(&self) -> Sealing {
        let mut sealing = Sealing::key_file(&self.key);
        sealing.witness_dirs = self.witness_dirs.clone();
        sealing
    }

    /// The public key verification trusts: the installation key's, if the key file is there
    /// and readable.
    pub fn trusted(&self) -> Result<Vec<PublicKey>, StoreError> {
        if !self.key.exists() {
            return Ok(Vec::new());
        }
        Ok(vec![SigningKey::load(&self.key)?.public()])
    }

    /// The installation key's fingerprint, if it has a key yet.
    pub fn fingerprint(&self) -> Option<String> {
        self.trusted()
            .ok()
            .and_then(|keys| keys.first().map(PublicKey::fingerprint))
    }

    /// Opens `db` for writing (created if new), signed with this installation's key.
    pub fn open(&self, db: &Path) -> Result<Store, StoreError> {
        Store::open(db, &self.sealing())
    }

    /// Opens `db` read-only, trusting this installation's key when it verifies.
    pub fn open_read_only(&self, db: &Path) -> Result<Store, StoreError> {
        let mut store = Store::open_read_only(db)?;
        store.trust(self.trusted()?);
        Ok(store)
    }

    /// What verification of `db` checks against: the trusted keys, the journal beside it and
    /// one in each witness folder.
    pub fn verify_options(&self, store: &Store, depth: Depth) -> Result<VerifyOptions, StoreError> {
        let mut options = store.verify_options(depth);
        options.trusted = self.trusted()?;
        if let Some(record) = store.record_id()? {
            for dir in &self.witness_dirs {
                let path = pitwatch_store::witness::journal_in(dir, &record);
                if !options.journals.contains(&path) {
                    options.journals.push(path);
                }
            }
        }
        Ok(options)
    }
}

/// The installation key's default place: `PITWATCH_KEY`, else `$XDG_CONFIG_HOME/pitwatch`, else
/// `~/.config/pitwatch`, `signing.key` there.
pub fn default_key_path() -> PathBuf {
    if let Some(path) = std::env::var_os("PITWATCH_KEY").filter(|p| !p.is_empty()) {
        return PathBuf::from(path);
    }
    let config = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))
        .unwrap_or_else(|| PathBuf::from("."));
    config.join("pitwatch").join("signing.key")
}

/// The rule book a table was judged by: the text kept in the record when there is one (with the
/// table's deck count from its reference), else the book of that reference as this Pitwatch has
/// it.
pub fn recorded_book(
    store: &Store,
    table: pitwatch_store::TableId,
    reference: &str,
) -> Result<GameBook, String> {
    match store.table_book(table).map_err(|e| e.to_string())? {
        None => GameBook::load(reference),
        Some(text) => GameBook::from_text(&text, reference),
    }
}

/// A record segment that did not verify at start-up, kept as it was.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SegmentFailure {
    /// The segment's file.
    pub path: PathBuf,
    /// What verification found.
    pub problems: Vec<String>,
}

impl SegmentFailure {
    /// The alert a supervisor reads.
    pub fn message(&self) -> String {
        format!(
            "The record {} failed verification: {}. It is kept unchanged as evidence; recording goes on in a new segment.",
            self.path.display(),
            self.problems.join("; ")
        )
    }
}

/// A record opened for recording.
pub struct Opened {
    /// The store, on the segment recording goes to.
    pub store: Store,
    /// That segment's file.
    pub path: PathBuf,
    /// Segments that failed verification (each a critical alert for as long as it is there).
    pub failures: Vec<SegmentFailure>,
}

/// The segments of the record `db` that exist, oldest first, with their numbers: `db` itself
/// (1), then `<stem>.segment-2.<ext>`, ….
pub fn segments(db: &Path) -> Vec<(u32, PathBuf)> {
    let mut out = Vec::new();
    if db.exists() {
        out.push((1, db.to_owned()));
    }
    for n in 2.. {
        let path = segment_path(db, n);
        if !path.exists() {
            break;
        }
        out.push((n, path));
    }
    out
}

/// Segment `n` (2 or more) of the record `db`.
pub fn segment_path(db: &Path, n: u32) -> PathBuf {
    let stem = db.file_stem().unwrap_or_default().to_string_lossy();
    let name = match db.extension() {
        Some(ext) => format!("{stem}.segment-{n}.{}", ext.to_string_lossy()),
        None => format!("{stem}.segment-{n}"),
    };
    db.with_file_name(name)
}

/// The marker beside a segment that a full verification found broken while it was in use (the
/// quick start-up check does not re-hash every row, so it would not find an altered row again).
pub fn failed_marker(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".failed");
    path.with_file_name(name)
}

/// Marks the segment at `path` as failed verification, with what was found: the next start
/// records into a new segment. Best effort: the alert is shown either way.
pub fn mark_failed(path: &Path, problem: &str) {
    let _ = pitwatch_store::files::private_options()
        .write(true)
        .create(true)
        .truncate(true)
        .open(failed_marker(path))
        .and_then(|mut f| std::io::Write::write_all(&mut f, format!("{problem}\n").as_bytes()));
}

/// Verifies the segment at `path` quickly, as start-up does: `Ok(None)` when it proves itself,
/// `Ok(Some(problems))` when it does not (an unreadable file among them).
fn check_segment(
    installation: &Installation,
    path: &Path,
) -> Result<Option<Vec<String>>, StoreError> {
    if let Ok(found) = std::fs::read_to_string(failed_marker(path)) {
        return Ok(Some(vec![format!(
            "a full verification found: {} (remove {} once it is dealt with)",
            found.trim(),
            failed_marker(path).display()
        )]));
    }
    let store = match installation.open_read_only(path) {
        Ok(store) => store,
        // Not a record (a damaged file, or not a database at all): kept, and a new segment.
        Err(e @ StoreError::NotADatabase(_)) => {
            return Ok(Some(vec![format!("it cannot be read: {e}")]))
        }
        // Anything else (a folder, no permission, a key that cannot be used) is a problem of
        // the installation, said at start-up rather than worked around.
        Err(e) => return Err(e),
    };
    let options = installation.verify_options(&store, Depth::Quick)?;
    match store.verify_with(&options) {
        Ok(report) if report.intact() => Ok(None),
        Ok(report) => Ok(Some(report.problems)),
        Err(e) => Ok(Some(vec![format!("it cannot be read: {e}")])),
    }
}

/// Opens the record `db` for recording: the latest segment if it verifies (quickly), else a new
/// segment. A missing or unusable key is an error (never a new key for a signed record).
pub fn open_for_recording(installation: &Installation, db: &Path) -> Result<Opened, StoreError> {
    if let Some(dir) = db.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| StoreError::Invalid(format!("cannot create {}: {e}", dir.display())))?;
    }
    if db.exists() && !db.is_file() {
        // Not a file at all (a folder): SQLite says why it cannot be opened.
        installation.open(db)?;
    }
    if db.is_file() {
        if let Ok(store) = Store::open_read_only(db) {
            if store.is_archive()? {
                return Err(StoreError::Invalid(format!(
                    "{} is an archive (`pitwatch archive`): nothing is recorded into it; open the \
                     live record",
                    db.display()
                )));
            }
        }
    }
    let existing = segments(db);
    // A record that was signed and whose key is gone is refused: a new key (for it, or for a new
    // segment beside it) would vouch for anything.
    if !installation.key.exists() {
        for (_, path) in &existing {
            let signer = Store::open_read_only(path)
                .ok()
                .and_then(|store| store.latest_checkpoint().ok().flatten());
            if let Some(checkpoint) = signer {
                return Err(StoreError::Key(pitwatch_store::KeyError::Missing {
                    path: installation.key.clone(),
                    fingerprint: checkpoint.key,
                }));
            }
        }
    }
    let mut failures = Vec::new();
    for (_, path) in &existing {
        if let Some(problems) = check_segment(installation, path)? {
            failures.push(SegmentFailure {
                path: path.clone(),
                problems,
            });
        }
    }
    let (number, latest) = existing.last().cloned().unwrap_or((1, db.to_owned()));
    let broken = failures.iter().any(|f| f.path == latest);
    let path = if broken {
        segment_path(db, number + 1)
    } else {
        latest
    };
    let store = installation.open(&path)?;
    Ok(Opened {
        store,
        path,
        failures,
    })
}

impl Opened {
    /// The record's files that people other than their owner may read (the database, its WAL
    /// and shared memory, its journals), each as a warning to show at start-up.
    pub fn exposed(&self) -> Vec<String> {
        pitwatch_store::files::exposed(&self.path, &self.store.journals())
    }
}

/// Verifies `db` as `pitwatch verify` does: in full (or quickly), against the installation's
/// key and any `trusted` keys given, the journal beside it, the installation's witness folders,
/// any `journals` given, and `checkpoints` written down elsewhere.
pub fn verify(
    installation: &Installation,
    db: &Path,
    depth: Depth,
    trusted: &[PublicKey],
    journals: &[PathBuf],
    checkpoints: &[CheckpointText],
) -> Result<VerifyReport, StoreError> {
    let store = installation.open_read_only(db)?;
    let mut options = installation.verify_options(&store, depth)?;
    options.trusted.extend(trusted.iter().copied());
    options.journals.extend(journals.iter().cloned());
    options.checkpoints = checkpoints.to_vec();
    if store.is_archive()? {
        // An archive ends at a checkpoint the journals carry on past: it is checked against
        // its own signatures (and the live record's entry for it: `pitwatch archive check`).
        options.archive = true;
        options.journals.clear();
    }
    store.verify_with(&options)
}
