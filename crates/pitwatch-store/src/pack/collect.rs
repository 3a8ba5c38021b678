//! Building an evidence pack from the record: which rows are the incident's evidence, the
//! segments and checkpoints that link them to a signature, and the signed archive.

use std::collections::{BTreeMap, BTreeSet};

use rusqlite::types::Value;
use rusqlite::{params, OptionalExtension};
use sha2::{Digest, Sha256};

use super::{
    manifest_message, tar, ChainCount, ChainRows, CheckpointProof, Manifest, MemberDigest, PackRow,
    Rows, Segment, SurveillanceEntry, FORMAT, MANIFEST, REPORT, ROWS, SIGNATURE, VERSION,
};
use crate::chain::{self, Chain, CHECKPOINTS, SIGNED};
use crate::{seal, IncidentId, Store, StoreError};

/// What the application gives to make a pack: the incident, who makes it, and its report.
#[derive(Debug, Clone)]
pub struct PackRequest<'a> {
    /// The incident.
    pub incident: IncidentId,
    /// When the pack is made (RFC 3339, the installation's clock).
    pub created_at: &'a str,
    /// The same moment in seconds since 1970 (the archive's file dates).
    pub created_unix: u64,
    /// Who makes it.
    pub created_by: &'a str,
    /// At which workstation.
    pub workstation: &'a str,
    /// The incident report, as a PDF.
    pub report_pdf: &'a [u8],
    /// The incident's surveillance log, oldest first.
    pub surveillance: Vec<SurveillanceEntry>,
}

impl Store {
    /// The evidence pack of `request.incident` (see [`crate::pack`]), signed with this store's
    /// key. Refused by a read-only store (it has no key), for an incident not on record, and for
    /// a row that no checkpoint signs yet.
    pub fn evidence_pack(&self, request: &PackRequest<'_>) -> Result<Vec<u8>, StoreError> {
        let seal = self.seal.as_ref().ok_or_else(|| {
            StoreError::Invalid("a read-only store cannot sign an evidence pack".into())
        })?;
        let incident = self.incident(request.incident)?;
        let record = self
            .record_id()?
            .ok_or_else(|| StoreError::Invalid("the record has no id yet".into()))?;
        let wanted = self.evidence_ids(request.incident)?;
        let rows = self.pack_rows(&wanted)?;
        let rows_json = serde_json::to_vec_pretty(&rows)
            .map_err(|e| StoreError::Invalid(format!("the rows cannot be written: {e}")))?;
        let digest = |name: &str, bytes: &[u8]| MemberDigest {
            name: name.to_owned(),
            bytes: bytes.len() as u64,
            sha256: hex::encode(Sha256::digest(bytes)),
        };
        let public = seal.key.public();
        let manifest = Manifest {
            format: FORMAT.to_owned(),
            version: VERSION,
            incident: request.incident.0,
            table: incident.table.clone(),
            shoe: incident.shoe,
            code: incident.code.clone(),
            created_at: request.created_at.to_owned(),
            created_by: request.created_by.to_owned(),
            workstation: request.workstation.to_owned(),
            record,
            public_key: public.to_hex(),
            fingerprint: public.fingerprint(),
            members: vec![digest(REPORT, request.report_pdf), digest(ROWS, &rows_json)],
            evidence: wanted
                .iter()
                .map(|(chain, ids)| ChainCount {
                    table: chain.table.to_owned(),
                    rows: ids.len() as u64,
                })
                .collect(),
            surveillance: request.surveillance.clone(),
        };
        let manifest_json = serde_json::to_vec_pretty(&manifest)
            .map_err(|e| StoreError::Invalid(format!("the manifest cannot be written: {e}")))?;
        let signature = seal.key.sign(&manifest_message(&manifest_json));
        let member = |name: &str, bytes: Vec<u8>| tar::Member {
            name: name.to_owned(),
            bytes,
        };
        tar::write(
            &[
                member(MANIFEST, manifest_json),
                member(
                    SIGNATURE,
                    format!("{}\n", hex::encode(signature)).into_bytes(),
                ),
                member(REPORT, request.report_pdf.to_vec()),
                member(ROWS, rows_json),
            ],
            request.created_unix,
        )
        .map_err(StoreError::Invalid)
    }

    /// The ids of the rows that are evidence about `incident`, chain by chain: its own row, its
    /// changes and notes, the audit rows naming it (looks, exports, refusals), and its shoe's
    /// events with the device frames and bytes they came from (the frames rejected among them
    /// too). Without a shoe on record, the events the incident cites.
    fn evidence_ids(
        &self,
        incident: IncidentId,
    ) -> Result<Vec<(&'static Chain, BTreeSet<i64>)>, StoreError> {
        let ids = |sql: &str, args: &[&dyn rusqlite::ToSql]| -> Result<BTreeSet<i64>, StoreError> {
            let mut statement = self.conn.prepare(sql)?;
            let found = statement
                .query_map(args, |r| r.get::<_, i64>(0))?
                .collect::<Result<BTreeSet<_>, _>>()?;
            Ok(found)
        };
        let (table, shoe, seq, cited): (i64, Option<i64>, i64, String) = self
            .conn
            .query_row(
                "SELECT table_id, shoe, seq, evidence FROM incidents WHERE id = ?1",
                [incident.0],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
            )
            .optional()?
            .ok_or_else(|| StoreError::NotFound(format!("no incident {}", incident.0)))?;
        let subject = format!("incident {}", incident.0);
        let shoe_span: Option<(i64, Option<i64>)> = match shoe {
            Some(shoe) => self
                .conn
                .query_row(
                    "SELECT first_seq, (SELECT MIN(n.first_seq) FROM shoes n \
                     WHERE n.table_id = s.table_id AND n.shoe > s.shoe) \
                     FROM shoes s WHERE table_id = ?1 AND shoe = ?2",
                    params![table, shoe],
                    |r| Ok((r.get(0)?, r.get(1)?)),
                )
                .optional()?,
            None => None,
        };
        let events = match shoe_span {
            Some((first, next)) => ids(
                "SELECT id FROM events WHERE table_id = ?1 AND seq >= ?2 AND seq < ?3",
                &[&table, &first, &next.unwrap_or(i64::MAX)],
            )?,
            None => {
                let mut seqs: Vec<i64> = serde_json::from_str(&cited).unwrap_or_default();
                seqs.push(seq);
                let mut found = BTreeSet::new();
                for seq in seqs {
                    found.extend(ids(
                        "SELECT id FROM events WHERE table_id = ?1 AND seq = ?2",
                        &[&table, &seq],
                    )?);
                }
                found
            }
        };
        // The frames the events came from, and every frame of the same devices between the
        // first and the last of them (what was rejected in the shoe is evidence too).
        let mut frames = BTreeSet::new();
        let mut sessions = BTreeSet::new();
        {
            let mut statement = self
                .conn
                .prepare("SELECT frame_id, session_id FROM events WHERE id = ?1")?;
            for id in &events {
                let (frame, session): (Option<i64>, Option<i64>) =
                    statement.query_row([id], |r| Ok((r.get(0)?, r.get(1)?)))?;
                frames.extend(frame);
                sessions.extend(session);
            }
        }
        if let (Some(&first), Some(&last)) = (frames.first(), frames.last()) {
            for session in &sessions {
                frames.extend(ids(
                    "SELECT id FROM frames WHERE session_id = ?1 AND id BETWEEN ?2 AND ?3",
                    &[session, &first, &last],
                )?);
            }
        }
        let mut chunks = BTreeSet::new();
        {
            let mut statement = self
                .conn
                .prepare("SELECT chunk_id FROM frames WHERE id = ?1")?;
            for id in &frames {
                let chunk: Option<i64> = statement.query_row([id], |r| r.get(0))?;
                chunks.extend(chunk);
            }
        }
        Ok(vec![
            (&chain::RAW_CHUNKS, chunks),
            (&chain::FRAMES, frames),
            (&chain::EVENTS, events),
            (
                &chain::INCIDENTS,
                ids("SELECT id FROM incidents WHERE id = ?1", &[&incident.0])?,
            ),
            (
                &chain::INCIDENT_CHANGES,
                ids(
                    "SELECT id FROM incident_changes WHERE incident_id = ?1",
                    &[&incident.0],
                )?,
            ),
            (
                &chain::INCIDENT_NOTES,
                ids(
                    "SELECT id FROM incident_notes WHERE incident_id = ?1",
                    &[&incident.0],
                )?,
            ),
            (
                &chain::AUDIT_LOG,
                ids(
                    "SELECT id FROM audit_log WHERE subject = ?1 \
                     OR (json_valid(detail) AND json_extract(detail, '$.target') = ?1)",
                    &[&subject],
                )?,
            ),
        ])
    }

    /// The segments holding `wanted` and the checkpoints they end at.
    fn pack_rows(&self, wanted: &[(&'static Chain, BTreeSet<i64>)]) -> Result<Rows, StoreError> {
        let mut checkpoints: BTreeMap<i64, Vec<i64>> = BTreeMap::new();
        let mut chains = Vec::new();
        for (chain, ids) in wanted {
            let index = SIGNED
                .iter()
                .position(|c| c.table == chain.table)
                .ok_or_else(|| StoreError::Invalid(format!("{} is not signed", chain.table)))?;
            let mut segments: Vec<Segment> = Vec::new();
            let mut end = 0i64;
            for &id in ids {
                if id <= end {
                    continue;
                }
                let (checkpoint, counts) = self.covering_checkpoint(index, id)?;
                end = counts[index];
                let mut segment = Segment {
                    prev: String::new(),
                    checkpoint,
                    rows: Vec::new(),
                };
                let columns = chain.columns.join(", ");
                let mut statement = self.conn.prepare(&format!(
                    "SELECT {columns}, prev_hash FROM {} WHERE id BETWEEN ?1 AND ?2 ORDER BY id",
                    chain.table
                ))?;
                let mut rows = statement.query(params![id, end])?;
                while let Some(row) = rows.next()? {
                    let (values, prev) = row_values(row, chain.columns.len())?;
                    if segment.rows.is_empty() {
                        segment.prev = hex::encode(prev);
                    }
                    let row_id = match values.first() {
                        Some(Value::Integer(i)) => *i,
                        _ => -1,
                    };
                    segment.rows.push(PackRow {
                        evidence: ids.contains(&row_id),
                        columns: columns_json(chain, &values),
                    });
                }
                checkpoints.insert(checkpoint, counts);
                segments.push(segment);
            }
            if !segments.is_empty() {
                chains.push(ChainRows {
                    table: chain.table.to_owned(),
                    segments,
                });
            }
        }
        let mut proofs = Vec::new();
        for (id, counts) in checkpoints {
            let columns = CHECKPOINTS.columns.join(", ");
            let (values, prev) = self.conn.query_row(
                &format!("SELECT {columns}, prev_hash FROM checkpoints WHERE id = ?1"),
                [id],
                |r| row_values(r, CHECKPOINTS.columns.len()),
            )?;
            let mut heads = Vec::with_capacity(SIGNED.len());
            for (chain, count) in SIGNED.iter().zip(&counts) {
                let head =
                    crate::verify::stored_hash(&self.conn, chain, *count)?.ok_or_else(|| {
                        StoreError::Invalid(format!(
                            "{} has no row {count}, which checkpoint {id} counts",
                            chain.table
                        ))
                    })?;
                heads.push(hex::encode(head));
            }
            proofs.push(CheckpointProof {
                prev: hex::encode(prev),
                columns: columns_json(&CHECKPOINTS, &values),
                heads,
            });
        }
        Ok(Rows {
            chains,
            checkpoints: proofs,
        })
    }

    /// The earliest checkpoint whose count for signed chain `index` reaches row `id`, with its
    /// counts: the one the row's own write transaction ended with. Checkpoints only ever count
    /// more rows, so this is a binary search over their ids.
    fn covering_checkpoint(&self, index: usize, id: i64) -> Result<(i64, Vec<i64>), StoreError> {
        let counts_of = |checkpoint: i64| -> Result<Vec<i64>, StoreError> {
            let text: String = self
                .conn
                .query_row(
                    "SELECT counts FROM checkpoints WHERE id = ?1",
                    [checkpoint],
                    |r| r.get(0),
                )
                .optional()?
                .ok_or_else(|| {
                    StoreError::Invalid(format!("checkpoint {checkpoint} is missing"))
                })?;
            seal::parse_counts(&text)
                .filter(|c| c.len() == SIGNED.len())
                .ok_or_else(|| {
                    StoreError::Invalid(format!("checkpoint {checkpoint}'s counts are malformed"))
                })
        };
        let (low, high): (Option<i64>, Option<i64>) =
            self.conn
                .query_row("SELECT MIN(id), MAX(id) FROM checkpoints", [], |r| {
                    Ok((r.get(0)?, r.get(1)?))
                })?;
        let not_signed = || {
            StoreError::Invalid(format!(
                "{} row {id} is signed by no checkpoint yet",
                SIGNED[index].table
            ))
        };
        let (Some(mut low), Some(mut high)) = (low, high) else {
            return Err(not_signed());
        };
        if counts_of(high)?[index] < id {
            return Err(not_signed());
        }
        while low < high {
            let middle = low + (high - low) / 2;
            if counts_of(middle)?[index] >= id {
                high = middle;
            } else {
                low = middle + 1;
            }
        }
        Ok((low, counts_of(low)?))
    }
}

/// The first `n` columns of `row` and the `prev_hash` after them.
fn row_values(row: &rusqlite::Row<'_>, n: usize) -> rusqlite::Result<(Vec<Value>, Vec<u8>)> {
    let mut values = Vec::with_capacity(n);
    for i in 0..n {
        values.push(row.get::<_, Value>(i)?);
    }
    Ok((values, row.get(n)?))
}

/// A row's columns as `rows.json` writes them (see [`PackRow::columns`]).
fn columns_json(chain: &Chain, values: &[Value]) -> serde_json::Map<String, serde_json::Value> {
    chain
        .columns
        .iter()
        .zip(values)
        .map(|(name, value)| {
            let json = match value {
                Value::Null => serde_json::Value::Null,
                Value::Integer(i) => serde_json::Value::from(*i),
                Value::Real(r) => {
                    serde_json::json!({ "real_bits": format!("{:016x}", r.to_bits()) })
                }
                Value::Text(t) => serde_json::Value::from(t.as_str()),
                Value::Blob(b) => serde_json::json!({ "hex": hex::encode(b) }),
            };
            ((*name).to_owned(), json)
        })
        .collect()
}
