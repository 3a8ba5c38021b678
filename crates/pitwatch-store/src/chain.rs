//! The hash chains that make the record tamper-evident.
//!
//! Each chained table is a chain of rows in `id` order. A row's hash is SHA-256 over a domain tag,
//! the table's name, the previous row's hash (32 zero bytes for the first row) and the row's
//! content columns, each written as a type tag and its bytes with an explicit length. The `id` is
//! content, so rows cannot be reordered; the previous hash is included, so a row cannot be removed
//! or changed without breaking every hash after it.

use rusqlite::types::{Value, ValueRef};
use sha2::{Digest, Sha256};

/// A SHA-256 digest.
pub type Hash = [u8; 32];

/// The previous hash of the first row of every chain.
pub const GENESIS: Hash = [0; 32];

/// A chained (append-only, tamper-evident) table and the columns its hash covers, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Chain {
    /// The SQL table.
    pub table: &'static str,
    /// Content columns in hashing order (every column but `prev_hash` and `hash`).
    pub columns: &'static [&'static str],
}

/// Every chained table, in the order `verify` reports them: the signed chains, then the chain of
/// checkpoints that signs them.
pub const CHAINS: &[Chain] = &[
    RAW_CHUNKS,
    FRAMES,
    EVENTS,
    INCIDENTS,
    INCIDENT_CHANGES,
    INCIDENT_NOTES,
    AUDIT_LOG,
    FACTS,
    CHECKPOINTS,
];

/// The device record's chains: what an archive moves out of the live record (the archive step).
pub const DEVICE: [Chain; 3] = [RAW_CHUNKS, FRAMES, EVENTS];

/// The chains a checkpoint signs (every chain but its own), in the order its counts list them.
pub const SIGNED: &[Chain] = CHAINS.split_at(CHAINS.len() - 1).0;

/// The chains of a record from before signed checkpoints (schema version 2 and older).
pub const LEGACY_CHAINS: &[Chain] = &[
    RAW_CHUNKS,
    FRAMES,
    EVENTS,
    INCIDENT_CHANGES,
    INCIDENT_NOTES,
    AUDIT_LOG,
];

/// Bytes exactly as received.
pub const RAW_CHUNKS: Chain = Chain {
    table: "raw_chunks",
    columns: &["id", "session_id", "received_at_ms", "bytes"],
};
/// Decoded frames, accepted or rejected.
pub const FRAMES: Chain = Chain {
    table: "frames",
    columns: &[
        "id",
        "session_id",
        "chunk_id",
        "received_at_ms",
        "bytes",
        "accepted",
        "reason",
    ],
};
/// Canonical table events.
pub const EVENTS: Chain = Chain {
    table: "events",
    columns: &[
        "id",
        "table_id",
        "session_id",
        "frame_id",
        "seq",
        "kind",
        "at_ms",
        "body",
    ],
};
/// Incidents as opened: what the irregularity was, where, and the evidence.
pub const INCIDENTS: Chain = Chain {
    table: "incidents",
    columns: &[
        "id",
        "table_id",
        "code",
        "severity",
        "rule",
        "shoe",
        "round",
        "seq",
        "evidence",
        "message",
        "opened_at",
    ],
};
/// Incident status changes.
pub const INCIDENT_CHANGES: Chain = Chain {
    table: "incident_changes",
    columns: &[
        "id",
        "incident_id",
        "status",
        "user_name",
        "resolution",
        "at",
    ],
};
/// Incident notes.
pub const INCIDENT_NOTES: Chain = Chain {
    table: "incident_notes",
    columns: &["id", "incident_id", "user_name", "text", "at"],
};
/// User actions and device commands.
pub const AUDIT_LOG: Chain = Chain {
    table: "audit_log",
    columns: &["id", "user_name", "action", "subject", "detail", "at"],
};

/// Facts about the record's setup and derived state (see [`crate::facts`]).
pub const FACTS: Chain = Chain {
    table: "facts",
    columns: &["id", "kind", "subject", "body", "at"],
};
/// Signed checkpoints (see [`crate::seal`]).
pub const CHECKPOINTS: Chain = Chain {
    table: "checkpoints",
    columns: &["id", "at", "counts", "public_key", "signature"],
};

/// The hash of one row of `chain` whose content columns hold `values` (in `chain.columns` order).
pub fn row_hash(chain: &Chain, prev: &Hash, values: &[ValueRef<'_>]) -> Hash {
    let mut hasher = Sha256::new();
    hasher.update(b"pitwatch-chain-v1\0");
    hasher.update(chain.table.as_bytes());
    hasher.update([0]);
    hasher.update(prev);
    hash_values(&mut hasher, values);
    hasher.finalize().into()
}

/// Feeds `values` to `hasher` in the chains' encoding: a type tag, then the value (integers and
/// reals as 8 little-endian bytes, text and blobs with their length first), so no two different
/// rows encode alike. Derived rows are digested the same way.
pub(crate) fn hash_values(hasher: &mut Sha256, values: &[ValueRef<'_>]) {
    write_values(values, |bytes| hasher.update(bytes));
}

/// Appends `value` in the chains' encoding (see [`hash_values`]) to `out`: what verification
/// hashes, one row's columns into one reused buffer.
pub(crate) fn encode_value_into(value: ValueRef<'_>, out: &mut Vec<u8>) {
    write_values(&[value], |bytes| out.extend_from_slice(bytes));
}

/// A hasher already fed what every row hash of `chain` starts with (the domain tag and the
/// table's name), to be cloned for each row: `row_hash` is `prefix(chain)`, then the previous
/// hash, then the encoded columns.
pub(crate) fn prefix(chain: &Chain) -> Sha256 {
    let mut hasher = Sha256::new();
    hasher.update(b"pitwatch-chain-v1\0");
    hasher.update(chain.table.as_bytes());
    hasher.update([0]);
    hasher
}

/// Writes `values` in the chains' encoding (see [`hash_values`]) piece by piece to `put`.
fn write_values(values: &[ValueRef<'_>], mut put: impl FnMut(&[u8])) {
    for value in values {
        match value {
            ValueRef::Null => put(&[0]),
            ValueRef::Integer(i) => {
                put(&[1]);
                put(&i.to_le_bytes());
            }
            ValueRef::Real(r) => {
                put(&[4]);
                put(&r.to_bits().to_le_bytes());
            }
            ValueRef::Text(t) => {
                put(&[2]);
                put(&(t.len() as u64).to_le_bytes());
                put(t);
            }
            ValueRef::Blob(b) => {
                put(&[3]);
                put(&(b.len() as u64).to_le_bytes());
                put(b);
            }
        }
    }
}

/// A row's content columns in the chains' encoding: exactly the bytes its hash covers after the
/// previous hash. This is how a row travels outside SQLite (the central record, issue 16): the
/// receiver checks it with [`row_hash_encoded`] and gets the columns back, types and all, with
/// [`decode_values`].
pub fn encode_values(values: &[ValueRef<'_>]) -> Vec<u8> {
    let mut out = Vec::new();
    write_values(values, |bytes| out.extend_from_slice(bytes));
    out
}

/// The columns [`encode_values`] wrote, or why `bytes` are not such an encoding.
pub fn decode_values(mut bytes: &[u8]) -> Result<Vec<Value>, String> {
    fn take<'a>(bytes: &mut &'a [u8], n: usize) -> Result<&'a [u8], String> {
        if bytes.len() < n {
            return Err(format!("cut short: {n} bytes wanted, {} left", bytes.len()));
        }
        let (head, rest) = bytes.split_at(n);
        *bytes = rest;
        Ok(head)
    }
    fn eight(bytes: &mut &[u8]) -> Result<[u8; 8], String> {
        Ok(take(bytes, 8)?.try_into().unwrap_or([0; 8]))
    }
    let mut values = Vec::new();
    while let Some((&tag, rest)) = bytes.split_first() {
        bytes = rest;
        values.push(match tag {
            0 => Value::Null,
            1 => Value::Integer(i64::from_le_bytes(eight(&mut bytes)?)),
            4 => Value::Real(f64::from_bits(u64::from_le_bytes(eight(&mut bytes)?))),
            2 | 3 => {
                let len = u64::from_le_bytes(eight(&mut bytes)?);
                let len = usize::try_from(len).map_err(|_| "a length too large".to_owned())?;
                let data = take(&mut bytes, len)?;
                if tag == 2 {
                    Value::Text(
                        String::from_utf8(data.to_vec())
                            .map_err(|_| "a text that is not UTF-8".to_owned())?,
                    )
                } else {
                    Value::Blob(data.to_vec())
                }
            }
            other => return Err(format!("an unknown type tag {other}")),
        });
    }
    Ok(values)
}

/// The hash of a row of `chain` whose content is `content` in the chains' encoding
/// ([`encode_values`]): the same as [`row_hash`] over the decoded columns.
pub fn row_hash_encoded(chain: &Chain, prev: &Hash, content: &[u8]) -> Hash {
    let mut hasher = Sha256::new();
    hasher.update(b"pitwatch-chain-v1\0");
    hasher.update(chain.table.as_bytes());
    hasher.update([0]);
    hasher.update(prev);
    hasher.update(content);
    hasher.finalize().into()
}

/// The chained table named `table`.
pub fn chain_named(table: &str) -> Option<&'static Chain> {
    CHAINS.iter().find(|c| c.table == table)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_content_byte_and_the_previous_hash_matter() {
        let values = [
            ValueRef::Integer(1),
            ValueRef::Integer(7),
            ValueRef::Integer(1000),
            ValueRef::Blob(b"\x05A"),
        ];
        let base = row_hash(&RAW_CHUNKS, &GENESIS, &values);
        let mut other = values;
        other[3] = ValueRef::Blob(b"\x05B");
        assert_ne!(base, row_hash(&RAW_CHUNKS, &GENESIS, &other));
        assert_ne!(base, row_hash(&RAW_CHUNKS, &[1; 32], &values));
        assert_ne!(base, row_hash(&FRAMES, &GENESIS, &values));
        // A text and a blob with the same bytes are different content.
        let text = [ValueRef::Text(b"ab")];
        let blob = [ValueRef::Blob(b"ab")];
        assert_ne!(
            row_hash(&AUDIT_LOG, &GENESIS, &text),
            row_hash(&AUDIT_LOG, &GENESIS, &blob)
        );
        assert_eq!(
            base,
            row_hash(&RAW_CHUNKS, &GENESIS, &values),
            "deterministic"
        );
    }

    #[test]
    fn the_encoding_round_trips_and_hashes_alike() {
        let values = [
            ValueRef::Integer(-3),
            ValueRef::Null,
            ValueRef::Real(1.5),
            ValueRef::Text("é\0x".as_bytes()),
            ValueRef::Blob(b""),
        ];
        let content = encode_values(&values);
        let back = decode_values(&content).expect("decodes");
        let refs: Vec<ValueRef<'_>> = back.iter().map(ValueRef::from).collect();
        assert_eq!(refs, values);
        assert_eq!(
            row_hash_encoded(&AUDIT_LOG, &[7; 32], &content),
            row_hash(&AUDIT_LOG, &[7; 32], &values)
        );
        assert!(
            decode_values(&content[..content.len() - 1]).is_err(),
            "cut short"
        );
        assert!(
            decode_values(&[2, 9, 0, 0, 0, 0, 0, 0, 0]).is_err(),
            "length past the end"
        );
        assert!(decode_values(&[9]).is_err(), "unknown tag");
        // What verification hashes: the prefix cloned, the previous hash, the columns encoded
        // one by one into a buffer.
        let mut buffer = Vec::new();
        for value in values {
            encode_value_into(value, &mut buffer);
        }
        assert_eq!(buffer, content);
        let mut hasher = prefix(&AUDIT_LOG);
        hasher.update([7; 32]);
        hasher.update(&buffer);
        let hash: Hash = hasher.finalize().into();
        assert_eq!(hash, row_hash(&AUDIT_LOG, &[7; 32], &values));
        assert!(
            decode_values(&[2, 1, 0, 0, 0, 0, 0, 0, 0, 0xff]).is_err(),
            "not UTF-8"
        );
    }
}
