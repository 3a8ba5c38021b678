//! Verifying an evidence pack with no database: every member's hash, the manifest's signature,
//! every row's hash and link up to a signed checkpoint, and each checkpoint's signature, all
//! against a key the verifier trusts. Every problem is listed; none stops the others from
//! being looked for.

use std::collections::{BTreeMap, BTreeSet};

use rusqlite::types::{Value, ValueRef};
use sha2::{Digest, Sha256};

use super::{
    manifest_message, tar, Manifest, Rows, FORMAT, MANIFEST, REPORT, ROWS, SIGNATURE, VERSION,
};
use crate::chain::{self, Chain, Hash, CHECKPOINTS, SIGNED};
use crate::seal::{self, CheckpointText, PublicKey, Signed};

/// The key a pack is checked against.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Trust {
    /// This public key (from the installation, or given to the verifier).
    Key(PublicKey),
    /// The key whose fingerprint this is (as `pitwatch verify` and every report print it).
    Fingerprint(String),
    /// Whatever key the pack names: the pack is then only shown to be consistent, not to come
    /// from any installation in particular.
    PackOwn,
}

impl Trust {
    /// A key as a verifier is given one: 64 hexadecimal digits, a fingerprint
    /// (`3f2a-91bc-…`), or the text of a file holding either (a key file's
    /// `# public key fingerprint:` line counts). `None` when nothing in `text` is a key.
    pub fn parse(text: &str) -> Option<Trust> {
        let text = text.trim();
        if let Some(key) = PublicKey::from_hex(text) {
            return Some(Trust::Key(key));
        }
        if is_fingerprint(text) {
            return Some(Trust::Fingerprint(text.to_ascii_lowercase()));
        }
        for line in text.lines() {
            let line = line.trim().trim_start_matches('#').trim();
            let value = line
                .rsplit_once(':')
                .map_or(line, |(_, value)| value)
                .trim();
            if let Some(key) = PublicKey::from_hex(value) {
                return Some(Trust::Key(key));
            }
            if is_fingerprint(value) {
                return Some(Trust::Fingerprint(value.to_ascii_lowercase()));
            }
        }
        None
    }

    fn admits(&self, key: &PublicKey) -> bool {
        match self {
            Trust::Key(trusted) => trusted == key,
            Trust::Fingerprint(fingerprint) => key.fingerprint() == *fingerprint,
            Trust::PackOwn => true,
        }
    }
}

fn is_fingerprint(text: &str) -> bool {
    let groups: Vec<&str> = text.split('-').collect();
    groups.len() == 8
        && groups
            .iter()
            .all(|g| g.len() == 4 && g.chars().all(|c| c.is_ascii_hexdigit()))
}

/// What checking a pack found.
#[derive(Debug, Clone, Default)]
pub struct PackReport {
    /// Everything wrong, each naming what and where. Empty: the pack verifies.
    pub problems: Vec<String>,
    /// The manifest, if it could be read (whether or not its signature holds).
    pub manifest: Option<Manifest>,
    /// Whether the key was given by the verifier (not only named by the pack itself).
    pub pinned: bool,
    /// The evidence rows verified, by chain: their ids.
    pub evidence: BTreeMap<String, Vec<i64>>,
    /// How many rows were checked only as links to a checkpoint.
    pub links: usize,
    /// The checkpoints the rows are linked to, as journals and reports print them, so they can
    /// be compared with a witness.
    pub checkpoints: Vec<CheckpointText>,
}

impl PackReport {
    /// Whether the pack verifies: no problem found.
    pub fn verifies(&self) -> bool {
        self.problems.is_empty()
    }
}

/// Checks the pack `bytes` against `trust` (see [`crate::pack`]).
pub fn check_pack(bytes: &[u8], trust: &Trust) -> PackReport {
    let mut report = PackReport {
        pinned: !matches!(trust, Trust::PackOwn),
        ..PackReport::default()
    };
    let members = match tar::read(bytes) {
        Ok(members) => members,
        Err(why) => {
            report
                .problems
                .push(format!("the file is not an evidence pack: {why}"));
            return report;
        }
    };
    let mut by_name: BTreeMap<&str, &[u8]> = BTreeMap::new();
    for member in &members {
        if by_name
            .insert(member.name.as_str(), &member.bytes)
            .is_some()
        {
            report
                .problems
                .push(format!("the pack holds {:?} twice", member.name));
        }
    }
    let Some(manifest_bytes) = by_name.get(MANIFEST).copied() else {
        report
            .problems
            .push(format!("the pack holds no {MANIFEST}"));
        return report;
    };
    let manifest: Manifest = match serde_json::from_slice(manifest_bytes) {
        Ok(m) => m,
        Err(e) => {
            report
                .problems
                .push(format!("{MANIFEST} is not a pack's manifest: {e}"));
            return report;
        }
    };
    if manifest.format != FORMAT || manifest.version != VERSION {
        report.problems.push(format!(
            "{MANIFEST} is {:?} version {}; this Pitwatch reads {FORMAT:?} version {VERSION}",
            manifest.format, manifest.version
        ));
    }
    // The key: the pack names it; the verifier's trust decides whether it counts.
    let key = PublicKey::from_hex(&manifest.public_key);
    match key {
        None => report.problems.push(format!(
            "the manifest's public key {:?} is not a key",
            manifest.public_key
        )),
        Some(key) => {
            if key.fingerprint() != manifest.fingerprint {
                report.problems.push(format!(
                    "the manifest gives fingerprint {} for a key whose fingerprint is {}",
                    manifest.fingerprint,
                    key.fingerprint()
                ));
            }
            if !trust.admits(&key) {
                report.problems.push(format!(
                    "the pack is signed by key {}, not the trusted one ({})",
                    key.fingerprint(),
                    match trust {
                        Trust::Key(k) => k.fingerprint(),
                        Trust::Fingerprint(f) => f.clone(),
                        Trust::PackOwn => String::new(),
                    }
                ));
            }
        }
    }
    // Exactly as written (lowercase hex and a line break): the signature member is the one
    // member no hash covers, so no other spelling of the same bytes is taken.
    let signature = by_name
        .get(SIGNATURE)
        .and_then(|s| std::str::from_utf8(s).ok())
        .and_then(|s| {
            let bytes = hex::decode(s.strip_suffix('\n')?).ok()?;
            (format!("{}\n", hex::encode(&bytes)) == s).then_some(bytes)
        });
    match (key, signature) {
        (_, None) => report.problems.push(format!(
            "the pack holds no readable {SIGNATURE} (64 bytes in lowercase hex, then a line break, as written)"
        )),
        (Some(key), Some(signature)) => {
            if !key.verifies(&manifest_message(manifest_bytes), &signature) {
                report.problems.push(format!(
                    "{SIGNATURE} is not key {}'s signature of {MANIFEST}: the manifest was changed or signed by another key",
                    key.fingerprint()
                ));
            }
        }
        (None, Some(_)) => {}
    }
    // Every member the manifest lists, by its hash; nothing else.
    let listed: BTreeSet<&str> = manifest.members.iter().map(|m| m.name.as_str()).collect();
    for required in [REPORT, ROWS] {
        if !listed.contains(required) {
            report
                .problems
                .push(format!("{MANIFEST} does not list {required}"));
        }
    }
    for member in &manifest.members {
        match by_name.get(member.name.as_str()) {
            None => report.problems.push(format!(
                "{} is listed in the manifest but missing from the pack",
                member.name
            )),
            Some(bytes) => {
                let sha = hex::encode(Sha256::digest(bytes));
                if sha != member.sha256 || bytes.len() as u64 != member.bytes {
                    report.problems.push(format!(
                        "{} was changed: its SHA-256 is {sha} ({} bytes), the signed manifest says {} ({} bytes)",
                        member.name,
                        bytes.len(),
                        member.sha256,
                        member.bytes
                    ));
                }
            }
        }
    }
    for name in by_name.keys() {
        if *name != MANIFEST && *name != SIGNATURE && !listed.contains(name) {
            report.problems.push(format!(
                "the pack holds {name:?}, which the signed manifest does not list"
            ));
        }
    }
    if let Some(rows) = by_name.get(ROWS) {
        match serde_json::from_slice::<Rows>(rows) {
            Ok(rows) => check_rows(&rows, &manifest, key, &mut report),
            Err(e) => report
                .problems
                .push(format!("{ROWS} is not a pack's rows: {e}")),
        }
    }
    report.manifest = Some(manifest);
    report
}

/// Checks every segment's rows and links, and every checkpoint they end at.
fn check_rows(rows: &Rows, manifest: &Manifest, key: Option<PublicKey>, report: &mut PackReport) {
    // The heads each segment reaches, by checkpoint and chain index, to compare with what the
    // checkpoint's signature covers.
    let mut reached: BTreeMap<(i64, usize), (i64, Hash)> = BTreeMap::new();
    for chain_rows in &rows.chains {
        let Some(index) = SIGNED.iter().position(|c| c.table == chain_rows.table) else {
            report.problems.push(format!(
                "{ROWS} holds rows of {:?}, which is not a signed chain",
                chain_rows.table
            ));
            continue;
        };
        let chain = &SIGNED[index];
        let mut last_id = 0;
        for segment in &chain_rows.segments {
            let Some(mut prev) = hash_hex(&segment.prev) else {
                report.problems.push(format!(
                    "a segment of {} has a previous hash {:?} that is not a hash",
                    chain.table, segment.prev
                ));
                continue;
            };
            // The last row of this segment so far (ids come from the pack: no arithmetic on them
            // may overflow).
            let mut last_here: Option<i64> = None;
            for row in &segment.rows {
                let values = match row_values(chain, &row.columns) {
                    Ok(values) => values,
                    Err(why) => {
                        report
                            .problems
                            .push(format!("a row of {}: {why}", chain.table));
                        break;
                    }
                };
                let id = match values.first() {
                    Some(Value::Integer(id)) => *id,
                    _ => {
                        report
                            .problems
                            .push(format!("a row of {} has no integer id", chain.table));
                        break;
                    }
                };
                if id <= last_id || last_here.is_some_and(|l| l.checked_add(1) != Some(id)) {
                    report.problems.push(format!(
                        "{} row {id} does not follow the row before it in the pack (a row was removed or moved)",
                        chain.table
                    ));
                }
                last_here = Some(id);
                last_id = id;
                let refs: Vec<ValueRef<'_>> = values.iter().map(ValueRef::from).collect();
                prev = chain::row_hash(chain, &prev, &refs);
                if row.evidence {
                    report
                        .evidence
                        .entry(chain.table.to_owned())
                        .or_default()
                        .push(id);
                } else {
                    report.links += 1;
                }
            }
            if let Some(last) = last_here {
                // One segment per chain and checkpoint: a second would not be linked to it.
                if reached
                    .insert((segment.checkpoint, index), (last, prev))
                    .is_some()
                {
                    report.problems.push(format!(
                        "two segments of {} end at checkpoint {}: only one can reach its head",
                        chain.table, segment.checkpoint
                    ));
                }
            }
        }
    }
    // Each checkpoint: its signature over the heads, with the heads the segments reached.
    let record = hex::decode(&manifest.record).ok().filter(|r| r.len() == 16);
    if record.is_none() {
        report.problems.push(format!(
            "the manifest's record id {:?} is not 32 hexadecimal digits",
            manifest.record
        ));
    }
    let mut proven = BTreeSet::new();
    for proof in &rows.checkpoints {
        let values = match row_values(&CHECKPOINTS, &proof.columns) {
            Ok(values) => values,
            Err(why) => {
                report.problems.push(format!("a checkpoint: {why}"));
                continue;
            }
        };
        let (id, at, counts, public_key, signature) = match values.as_slice() {
            [Value::Integer(id), Value::Text(at), Value::Text(counts), Value::Blob(key), Value::Blob(sig)] => {
                (*id, at, counts, key, sig)
            }
            _ => {
                report
                    .problems
                    .push("a checkpoint's columns are not of their types".to_owned());
                continue;
            }
        };
        let Some(counts) = seal::parse_counts(counts).filter(|c| c.len() == SIGNED.len()) else {
            report
                .problems
                .push(format!("checkpoint {id}'s counts {counts:?} are malformed"));
            continue;
        };
        let heads: Option<Vec<Hash>> = proof.heads.iter().map(|h| hash_hex(h)).collect();
        let (Some(heads), Some(prev)) = (
            heads.filter(|h| h.len() == SIGNED.len()),
            hash_hex(&proof.prev),
        ) else {
            report.problems.push(format!(
                "checkpoint {id}'s heads or previous hash are malformed"
            ));
            continue;
        };
        let mut signed_heads = Vec::with_capacity(SIGNED.len());
        for (index, (count, head)) in counts.iter().zip(&heads).enumerate() {
            if let Some((last, reached_hash)) = reached.get(&(id, index)) {
                if last != count {
                    report.problems.push(format!(
                        "the rows of {} linked to checkpoint {id} end at row {last}, but the checkpoint signs {count} rows",
                        SIGNED[index].table
                    ));
                } else if reached_hash != head {
                    report.problems.push(format!(
                        "the rows of {} linked to checkpoint {id} do not hash to the head it signs: a row was changed, added or removed",
                        SIGNED[index].table
                    ));
                }
            }
            signed_heads.push((*count, *head));
        }
        let signer = PublicKey::from_bytes(public_key);
        if signer.is_none() || signer != key {
            report.problems.push(format!(
                "checkpoint {id} is signed by key {}, not the pack's",
                seal::fingerprint(public_key)
            ));
        }
        let valid = signer.is_some_and(|signer| {
            record.as_deref().is_some_and(|record| {
                let signed = Signed {
                    record,
                    id,
                    at,
                    heads: &signed_heads,
                    prev: &prev,
                };
                signer.verifies(&signed.message(), signature)
            })
        });
        if !valid {
            report.problems.push(format!(
                "checkpoint {id} is not a valid signature of the heads, record and time the pack gives"
            ));
        }
        let refs: Vec<ValueRef<'_>> = values.iter().map(ValueRef::from).collect();
        report.checkpoints.push(CheckpointText {
            record: manifest.record.clone(),
            id,
            at: at.clone(),
            hash: chain::row_hash(&CHECKPOINTS, &prev, &refs),
            key: seal::fingerprint(public_key),
        });
        proven.insert(id);
    }
    for (checkpoint, index) in reached.keys() {
        if !proven.contains(checkpoint) {
            report.problems.push(format!(
                "rows of {} are linked to checkpoint {checkpoint}, which the pack does not hold",
                SIGNED[*index].table
            ));
        }
    }
    // The evidence is the manifest's incident's, and as much of it as the manifest says.
    let incident_rows = report
        .evidence
        .get("incidents")
        .cloned()
        .unwrap_or_default();
    if incident_rows != [manifest.incident] {
        report.problems.push(format!(
            "the pack's evidence holds incident rows {incident_rows:?}, not the manifest's incident {}",
            manifest.incident
        ));
    }
    for count in &manifest.evidence {
        let held = report.evidence.get(&count.table).map_or(0, Vec::len) as u64;
        if held != count.rows {
            report.problems.push(format!(
                "the manifest says {} evidence rows of {}, the pack holds {held}",
                count.rows, count.table
            ));
        }
    }
    // Each surveillance-log entry the manifest lists is one of the incident's notes, as chained.
    let notes: Vec<(Option<&str>, Option<&str>, Option<&str>)> = rows
        .chains
        .iter()
        .filter(|c| c.table == "incident_notes")
        .flat_map(|c| &c.segments)
        .flat_map(|s| &s.rows)
        .filter(|r| r.evidence)
        .map(|r| {
            let text = |column: &str| r.columns.get(column).and_then(serde_json::Value::as_str);
            (text("user_name"), text("text"), text("at"))
        })
        .collect();
    for entry in &manifest.surveillance {
        let held = (
            Some(entry.user.as_str()),
            Some(entry.text.as_str()),
            Some(entry.at.as_str()),
        );
        if !notes.contains(&held) {
            report.problems.push(format!(
                "the manifest's surveillance log entry by {} at {} is not among the incident's notes",
                entry.user, entry.at
            ));
        }
    }
    // The incident's table, as its own chained row gives it: the shoe's events are that table's.
    let incident_table = rows
        .chains
        .iter()
        .filter(|c| c.table == "incidents")
        .flat_map(|c| &c.segments)
        .flat_map(|s| &s.rows)
        .find(|r| r.evidence)
        .and_then(|r| r.columns.get("table_id"))
        .and_then(serde_json::Value::as_i64);
    let subject = format!("incident {}", manifest.incident);
    for chain_rows in &rows.chains {
        for segment in &chain_rows.segments {
            for row in segment.rows.iter().filter(|r| r.evidence) {
                let text =
                    |column: &str| row.columns.get(column).and_then(serde_json::Value::as_str);
                let about_it = match chain_rows.table.as_str() {
                    "audit_log" => {
                        text("subject") == Some(subject.as_str())
                            || text("detail")
                                .and_then(|d| serde_json::from_str::<serde_json::Value>(d).ok())
                                .is_some_and(|d| d["target"] == subject.as_str())
                    }
                    "events" => {
                        row.columns
                            .get("table_id")
                            .and_then(serde_json::Value::as_i64)
                            == incident_table
                    }
                    _ => true,
                };
                if !about_it {
                    report.problems.push(format!(
                        "an evidence row of {} is not about incident {} or its table",
                        chain_rows.table, manifest.incident
                    ));
                }
                let names_other = |column: &str| {
                    row.columns
                        .get(column)
                        .and_then(serde_json::Value::as_i64)
                        .is_some_and(|i| i != manifest.incident)
                };
                if (chain_rows.table == "incident_changes" || chain_rows.table == "incident_notes")
                    && names_other("incident_id")
                {
                    report.problems.push(format!(
                        "an evidence row of {} is about another incident",
                        chain_rows.table
                    ));
                }
            }
        }
    }
}

/// A row's columns from `rows.json`, in `chain`'s order, or why they are not.
fn row_values(
    chain: &Chain,
    columns: &serde_json::Map<String, serde_json::Value>,
) -> Result<Vec<Value>, String> {
    if columns.len() != chain.columns.len() {
        return Err(format!(
            "{} columns, where {} has {}",
            columns.len(),
            chain.table,
            chain.columns.len()
        ));
    }
    chain
        .columns
        .iter()
        .map(|name| {
            let value = columns
                .get(*name)
                .ok_or_else(|| format!("column {name} is missing"))?;
            json_value(value)
                .ok_or_else(|| format!("column {name} holds {value}, not a stored value"))
        })
        .collect()
}

fn json_value(value: &serde_json::Value) -> Option<Value> {
    use serde_json::Value as J;
    Some(match value {
        J::Null => Value::Null,
        J::Number(n) => Value::Integer(n.as_i64()?),
        J::String(s) => Value::Text(s.clone()),
        J::Object(o) if o.len() == 1 => {
            if let Some(hex_text) = o.get("hex").and_then(J::as_str) {
                Value::Blob(hex::decode(hex_text).ok()?)
            } else {
                let bits = o.get("real_bits").and_then(J::as_str)?;
                Value::Real(f64::from_bits(u64::from_str_radix(bits, 16).ok()?))
            }
        }
        _ => return None,
    })
}

fn hash_hex(text: &str) -> Option<Hash> {
    hex::decode(text).ok()?.try_into().ok()
}
