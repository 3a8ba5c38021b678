//! Evidence packs (issue 32): one file per incident that a regulator verifies offline, with no
//! database and only the installation's public key.
//!
//! A pack is a plain `ustar` archive ([`tar`]) of four members:
//!
//! - `manifest.json` ([`Manifest`]): what the pack is (the incident, its table and shoe, when and
//!   by whom it was made, the record's id, the public key and its fingerprint, the surveillance
//!   log entered for the incident) and the SHA-256 of every other member;
//! - `manifest.sig`: the installation key's Ed25519 signature of `manifest.json`
//!   ([`manifest_message`]), so no member can be changed, added or removed unseen;
//! - `report.pdf`: the incident report, as `pitwatch export incident` writes it;
//! - `rows.json` ([`Rows`]): the record's rows for the incident, in a form that is checked again
//!   from scratch: each chain's rows with every column as stored, in *segments* that run from an
//!   evidence row to the end of the transaction that wrote it, and the signed checkpoint that
//!   transaction ended with.
//!
//! Why segments. A row's hash covers the previous row's hash and the row's own columns
//! ([`crate::chain`]), so a verifier can link a row to a signed head only through the full
//! content of every row after it up to that head: a row given by its hash alone cannot be
//! checked to follow the one before, so "rows represented by their hashes only" would prove
//! nothing. The pack therefore links each evidence row to the *earliest* checkpoint that covers
//! it (the one its own write transaction ended with) and holds every row between in full, marked
//! as a link, not evidence. That is usually a handful of rows; the monitor's group commits can
//! make it a few hundred. Of the chains a checkpoint signs but the pack holds no segment of, only
//! the head hash is given: the signature covers them, nothing in the pack depends on them.
//!
//! [`collect`] builds a pack from a store (SQL); [`check`] verifies one with no database.

pub mod check;
mod collect;
pub mod tar;

use serde::{Deserialize, Serialize};

pub use check::{check_pack, PackReport, Trust};
pub use collect::PackRequest;

/// What `manifest.json` says a pack is.
pub const FORMAT: &str = "pitwatch-evidence-pack";
/// The pack format this build writes and reads.
pub const VERSION: u32 = 1;
/// The manifest's member name.
pub const MANIFEST: &str = "manifest.json";
/// The manifest signature's member name.
pub const SIGNATURE: &str = "manifest.sig";
/// The incident report's member name.
pub const REPORT: &str = "report.pdf";
/// The rows' member name.
pub const ROWS: &str = "rows.json";

/// The bytes the manifest signature signs: a domain tag, then `manifest.json` exactly.
pub fn manifest_message(manifest: &[u8]) -> Vec<u8> {
    let mut message = b"pitwatch-evidence-pack-v1\0".to_vec();
    message.extend_from_slice(manifest);
    message
}

/// A pack's `manifest.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    /// Always [`FORMAT`].
    pub format: String,
    /// The pack format's version ([`VERSION`]).
    pub version: u32,
    /// The incident's number in the record.
    pub incident: i64,
    /// The incident's table.
    pub table: String,
    /// The incident's shoe, if it has one.
    pub shoe: Option<u32>,
    /// The incident's irregularity code.
    pub code: String,
    /// When the pack was made (the installation's clock, RFC 3339).
    pub created_at: String,
    /// Who made it.
    pub created_by: String,
    /// At which workstation.
    pub workstation: String,
    /// The record's id (32 hexadecimal digits), which every checkpoint signs.
    pub record: String,
    /// The installation's public key (64 hexadecimal digits).
    pub public_key: String,
    /// Its fingerprint, as `pitwatch verify` and every report print it.
    pub fingerprint: String,
    /// Every member but the manifest and its signature.
    pub members: Vec<MemberDigest>,
    /// How many evidence rows of each chain `rows.json` holds (links not counted).
    pub evidence: Vec<ChainCount>,
    /// The surveillance log entered for the incident, oldest first (each also a chained note).
    #[serde(default)]
    pub surveillance: Vec<SurveillanceEntry>,
}

/// A member's name, length and SHA-256.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemberDigest {
    /// The member's name.
    pub name: String,
    /// Its length in bytes.
    pub bytes: u64,
    /// Its SHA-256, hex.
    pub sha256: String,
}

/// A count of rows of one chain.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChainCount {
    /// The chained table.
    pub table: String,
    /// How many rows.
    pub rows: u64,
}

/// One surveillance-log entry of an incident, as its note holds it (the note itself is among the
/// pack's `incident_notes` rows, where its hash is checked).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SurveillanceEntry {
    /// Who entered it.
    pub user: String,
    /// When.
    pub at: String,
    /// The entry's fields, as entered.
    pub text: String,
}

/// A pack's `rows.json`: the rows of each chain it holds and the checkpoints that sign them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Rows {
    /// One entry per chain the pack holds rows of.
    pub chains: Vec<ChainRows>,
    /// The checkpoints the segments end at, by id.
    pub checkpoints: Vec<CheckpointProof>,
}

/// The rows a pack holds of one chain.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChainRows {
    /// The chained table.
    pub table: String,
    /// Runs of consecutive rows, each ending where a checkpoint's count for this chain ends.
    pub segments: Vec<Segment>,
}

/// Consecutive rows of a chain, from an evidence row to the head a checkpoint signed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Segment {
    /// The hash of the row before the first (hex; 64 zeros before a chain's first row).
    pub prev: String,
    /// The checkpoint whose count for this chain is the last row's id.
    pub checkpoint: i64,
    /// The rows, in id order.
    pub rows: Vec<PackRow>,
}

/// One row as stored: every column its hash covers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PackRow {
    /// Whether the row is evidence about the incident (`false`: a link to the checkpoint).
    pub evidence: bool,
    /// The columns, by name, in the chain's order: integers as numbers, text as strings, null as
    /// null, blobs as `{"hex": …}`, reals as `{"real_bits": …}` (their 64 bits, hex).
    pub columns: serde_json::Map<String, serde_json::Value>,
}

/// A signed checkpoint and what its signature covers beyond the pack's own rows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CheckpointProof {
    /// The hash of the checkpoint before it (hex).
    pub prev: String,
    /// Its row of the `checkpoints` chain (`id`, `at`, `counts`, `public_key`, `signature`).
    pub columns: serde_json::Map<String, serde_json::Value>,
    /// The head hash of every signed chain at this checkpoint (hex), in
    /// [`crate::chain::SIGNED`] order. For a chain with a segment ending here the verifier
    /// computes it and requires it to be this.
    pub heads: Vec<String>,
}
