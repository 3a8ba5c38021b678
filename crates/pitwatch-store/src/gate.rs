//! The write gate: nothing extends a record it has not checked. A store's first batch checks the
//! record as start-up does, a later one what another connection appended since; a record that
//! fails is refused from then on ([`Refusal`], [`Store::refuse_writes`]). Verification through the
//! store keeps what it found wrong.

use pitwatch_model::Timestamp;

use crate::batch::load_heads;
use crate::verify::{self, ChainMark, Depth, VerifyOptions, VerifyReport};
use crate::{facts, Batch, Store, StoreError, RECORD_ID};

/// A way to stop a store extending the record from elsewhere (a verification running on
/// another connection that finds the record failed): every later batch of that store is refused.
#[derive(Debug, Clone, Default)]
pub struct Refusal(std::sync::Arc<std::sync::Mutex<Option<String>>>);

impl Refusal {
    /// Refuses every later batch of the store this came from, saying `why`.
    pub fn refuse(&self, why: impl Into<String>) {
        let mut slot = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        slot.get_or_insert_with(|| why.into());
    }

    fn reason(&self) -> Option<String> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }
}

/// The write gate: nothing extends a record it has not checked.
#[derive(Debug, Clone)]
pub(crate) enum Gate {
    /// Not checked yet: the first batch checks the record as start-up does.
    Unchecked,
    /// Checked (or written by this store) up to [`Store::heads`].
    Trusted,
    /// The record failed: nothing more is appended through this store.
    Refused(String),
}

impl Store {
    /// Starts a batch of appends at `now`: one transaction, committed (and signed) by
    /// [`Batch::commit`].
    pub fn batch(&mut self, now: Timestamp) -> Result<Batch<'_>, StoreError> {
        if let Some(why) = self.poisoned.reason() {
            self.gate = Gate::Refused(why);
        }
        if let Gate::Refused(why) = &self.gate {
            return Err(StoreError::Unverified(why.clone()));
        }
        let journals = match self.gate {
            Gate::Unchecked => self.journals(),
            _ => Vec::new(),
        };
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        // The chain heads are read inside the write transaction, so several connections (the
        // monitor's writer and the desktop's incident actions) can append to the same chains
        // without forking them: SQLite lets one writer in at a time, and each sees the last head.
        let heads = load_heads(&tx)?;
        // Nothing extends a record it has not checked: the first batch checks the record as
        // start-up does (signature, heads, journals, schema); later ones, if another connection
        // appended meanwhile, hash every row since what this store checked or wrote last.
        match self.gate {
            Gate::Trusted if heads == self.heads => {}
            _ => {
                let marks = matches!(self.gate, Gate::Trusted).then(|| {
                    self.heads
                        .iter()
                        .map(|(table, head)| ChainMark {
                            table,
                            last_id: head.last_id,
                            hash: head.hash,
                        })
                        .collect()
                });
                let trusted = self
                    .seal
                    .iter()
                    .map(|s| s.key.public())
                    .chain(self.trusted.iter().copied())
                    .collect();
                let (report, vouchable) = verify::gate_check(&tx, trusted, &journals, marks)?;
                if !report.intact() {
                    let why = report.problems.join("; ");
                    drop(tx);
                    self.gate = Gate::Refused(why.clone());
                    return Err(StoreError::Unverified(why));
                }
                // The journals hold nothing the record lacks: vouch for what was read of them,
                // so the next process's first check reads only what is appended after it. A
                // marker that cannot be written only means that check reads more.
                if let Some(seal) = &self.seal {
                    for (path, read) in &vouchable {
                        let _ = read.write(path, &seal.key);
                    }
                }
                self.gate = Gate::Trusted;
                self.heads = heads.clone();
            }
        }
        let mut batch = Batch {
            start: heads.clone(),
            heads,
            tx,
            store_heads: &mut self.heads,
            seal: self.seal.as_mut(),
            now,
        };
        let pending = batch.seal.as_ref().is_some_and(|s| !s.record_written);
        if pending {
            // Another connection may have given the record its id since this one opened.
            let (written, _) = verify::record_meta(&batch.tx)?;
            match written.and_then(|w| <[u8; 16]>::try_from(hex::decode(w).ok()?).ok()) {
                Some(id) => {
                    if let Some(seal) = batch.seal.as_deref_mut() {
                        seal.record = id;
                        seal.record_written = true;
                    }
                }
                None => {
                    let id = batch.seal.as_ref().map(|s| hex::encode(s.record));
                    let at = now.to_string();
                    batch.put_fact(
                        &facts::META,
                        &[
                            ("key", RECORD_ID.into()),
                            ("value", id.unwrap_or_default().into()),
                        ],
                        &at,
                    )?;
                }
            }
        }
        Ok(batch)
    }

    /// Verifies the record in full against this store's own key and journals (see
    /// [`verify::verify`]). A read-only store has no key: use [`Store::verify_with`].
    pub fn verify(&self) -> Result<VerifyReport, StoreError> {
        self.verify_with(&self.verify_options(Depth::Full))
    }

    /// Verifies only what was appended since `marks` (each chain's rows up to a mark were
    /// verified before): checks that each mark's row still has the hash it had, then recomputes
    /// every row after it, and everything but the rows themselves as in full. SQLite's own
    /// integrity check is not run: `integrity` says so.
    pub fn verify_after(&self, marks: &[ChainMark]) -> Result<VerifyReport, StoreError> {
        let mut options = self.verify_options(Depth::Full);
        options.marks = Some(marks.to_vec());
        self.verify_with(&options)
    }

    /// What this store verifies against: its own key (none for a read-only store) and
    /// journals.
    pub fn verify_options(&self, depth: Depth) -> VerifyOptions {
        VerifyOptions {
            depth,
            trusted: self
                .seal
                .iter()
                .map(|s| s.key.public())
                .chain(self.trusted.iter().copied())
                .collect(),
            journals: self.journals(),
            checkpoints: Vec::new(),
            marks: None,
            threads: 0,
            archive: false,
        }
    }

    /// Verifies the record as `options` say. What a verification finds wrong is kept
    /// ([`Store::failed_verification`]).
    pub fn verify_with(&self, options: &VerifyOptions) -> Result<VerifyReport, StoreError> {
        let report = verify::verify(&self.conn, options)?;
        *self.failed.borrow_mut() = (!report.intact()).then(|| report.problems.join("; "));
        Ok(report)
    }

    /// What the latest verification through this store found wrong (`None` if it found the
    /// record intact, or none ran): a report built from a record that failed must not be
    /// followed by an audit row that extends it.
    pub fn failed_verification(&self) -> Option<String> {
        self.failed.borrow().clone()
    }

    /// Refuses every further append through this store: the record failed verification
    /// (`why`) elsewhere, so it is kept unchanged as evidence.
    pub fn refuse_writes(&mut self, why: impl Into<String>) {
        self.gate = Gate::Refused(why.into());
    }

    /// A handle that refuses every later batch of this store (see [`Refusal`]).
    pub fn refusal_handle(&self) -> Refusal {
        self.poisoned.clone()
    }

    /// Why this store refuses to extend the record, if it does (checked at its first batch).
    pub fn refusal(&self) -> Option<&str> {
        match &self.gate {
            Gate::Refused(why) => Some(why),
            _ => None,
        }
    }
}
