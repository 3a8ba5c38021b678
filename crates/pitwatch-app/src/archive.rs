//! Retention and the archive step at the application layer (issue 32): who may archive, with
//! what cut-off, where to, under which retention; the listing of a record's archives; and the
//! check that every archive the record names is still where it was put, byte for byte, and
//! verifies on its own.
//!
//! - **Archiving** is an administrator's step ([`Command::ArchiveRecord`]; any other role is
//!   refused and audited). The cut-off is at least [`RecordConfig::archive_after_days`] old (90
//!   days unless configured): the live record keeps that much for disputes, reports and reviews.
//!   What moves, and why nothing is lost to proof, is [`pitwatch_store::archive`]'s.
//! - **Retention** is the site's jurisdiction's ([`RecordConfig::retention`]: seven years for
//!   New Zealand), printed on every archive entry with the day it must be kept until. Nothing
//!   here deletes anything: an archive past its day is listed as such, for a person to decide.
//! - **Listing and checking** read the record and the archive files: the roles that read the
//!   audit log (administrators, surveillance, inspectors; an inspector's every look audited).

use std::path::Path;

use pitwatch_api::dto::{ApiError, ErrorCode};
use pitwatch_model::Timestamp;
use pitwatch_recording::pit::RecordConfig;
use pitwatch_store::archive::{self, ArchiveEntry};
use pitwatch_store::{Depth, Store};

use crate::access::{require, Command, Principal};

/// The subject archive steps and checks are audited under.
const SUBJECT: &str = "record";

/// The cut-off of an archive step taken at `now` when none is asked for: as old as the site
/// lets the live record be.
pub fn default_cutoff(config: &RecordConfig, now: Timestamp) -> Timestamp {
    let days = i64::from(config.archive_after_days);
    Timestamp::from_unix_millis(now.unix_millis() - days * 86_400_000).unwrap_or(now)
}

/// `who` (an administrator) archives the device record of `store` (the live record at `db`)
/// made before `before` (the latest the site allows when `None`), into the site's archive
/// folder under its retention. Refused, and audited, for any other role; refused for a
/// cut-off more recent than the site allows, and when there is nothing to archive.
pub fn archive(
    store: &mut Store,
    who: &Principal,
    config: &RecordConfig,
    db: &Path,
    before: Option<Timestamp>,
    now: Timestamp,
) -> Result<ArchiveEntry, ApiError> {
    require(store, who, Command::ArchiveRecord, SUBJECT, now)?;
    let latest = default_cutoff(config, now);
    let before = before.unwrap_or(latest);
    if before > latest {
        return Err(ApiError::new(
            ErrorCode::InvalidInput,
            format!(
                "the cut-off {before} is more recent than the site allows: the live record keeps \
                 {} days (record.archive_after_days), so the latest cut-off now is {latest}",
                config.archive_after_days
            ),
        ));
    }
    let retention = config
        .retention()
        .map_err(|e| ApiError::new(ErrorCode::InvalidInput, e))?;
    if store.is_archive()? {
        return Err(ApiError::new(
            ErrorCode::InvalidInput,
            "this is an archive: archive from the live record",
        ));
    }
    let plan = match store.plan_archive(before, pitwatch_store::archive::SHOES_BEFORE)? {
        Ok(plan) => plan,
        Err(nothing) => return Err(ApiError::new(ErrorCode::NotFound, nothing.0)),
    };
    let folder = config.archive_folder(db);
    Ok(store.archive(&plan, &folder, &retention, &who.actor(), now)?)
}

/// The archives `store` names, oldest first, for `who` (administrators, surveillance and
/// inspectors: the roles that read the audit log).
pub fn list(
    store: &mut Store,
    who: &Principal,
    now: Timestamp,
) -> Result<Vec<ArchiveEntry>, ApiError> {
    require(store, who, Command::ViewAudit, "archives", now)?;
    Ok(store.archives()?)
}

/// What checking one archive found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArchiveCheck {
    /// The archive as the record names it.
    pub entry: ArchiveEntry,
    /// Problems found, in words; empty when the archive is there, unchanged and verifies.
    pub problems: Vec<String>,
    /// Whether `now` is past the day it must be kept until (it may then be disposed of under
    /// the site's procedure; Pitwatch never does).
    pub past_retention: bool,
}

/// Checks every archive `store` names, for `who` (as [`list`]): the file is where it was put,
/// has the SHA-256 on record, and verifies in full on its own against the record's keys, ending
/// at the checkpoint on record and beginning where the archive before it ended.
pub fn check(
    store: &mut Store,
    who: &Principal,
    now: Timestamp,
) -> Result<Vec<ArchiveCheck>, ApiError> {
    let entries = list(store, who, now)?;
    let today = now.to_string();
    let mut checks = Vec::with_capacity(entries.len());
    let mut previous: Option<ArchiveEntry> = None;
    for entry in entries {
        let mut problems = Vec::new();
        let path = entry.path();
        match archive::file_digest(&path) {
            Err(_) if !path.exists() => problems.push(format!("{} is missing", path.display())),
            Err(e) => problems.push(e.to_string()),
            Ok((sha256, _)) if sha256 != entry.sha256 => problems.push(format!(
                "{} has changed: its SHA-256 is {sha256}, the record has {}",
                path.display(),
                entry.sha256
            )),
            Ok(_) => match store.open_archive(&entry) {
                Err(e) => problems.push(e.to_string()),
                Ok(file) => {
                    let mut options = file.verify_options(Depth::Full);
                    options.trusted = store.trusted_keys();
                    options.journals.clear();
                    options.archive = true;
                    let report = file.verify_with(&options)?;
                    problems.extend(report.problems.iter().cloned());
                    let began = report.archived.as_ref().map(|a| a.checkpoint);
                    let expected = previous.as_ref().map(|p| p.checkpoint);
                    if report.intact() && began != expected {
                        problems.push(format!(
                            "it begins after checkpoint {}, where archive {} ended at {}",
                            began.map_or("none".into(), |c| c.to_string()),
                            entry.number.saturating_sub(1),
                            expected.map_or("none".into(), |c| c.to_string()),
                        ));
                    }
                }
            },
        }
        let past_retention = today
            .get(..10)
            .is_some_and(|day| day > entry.keep_until.as_str());
        previous = Some(entry.clone());
        checks.push(ArchiveCheck {
            entry,
            problems,
            past_retention,
        });
    }
    Ok(checks)
}
