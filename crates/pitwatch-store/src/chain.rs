//! The hash chains that make the record tamper-evident.
//!
//! Each chained table is a chain of rows in `id` order. A row's hash is SHA-256 over a domain tag,
//! the table's name, the previous row's hash (32 zero bytes for the first row) and the row's
//! content columns, each written as a type tag and its bytes with an explicit length. The `id` is
//! content, so rows cannot be reordered; the previous hash is included, so a row cannot be removed
//! or changed without breaking every hash after it.

use rusqlite::types::ValueRef;
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
    for value in values {
        match value {
            ValueRef::Null => hasher.update([0]),
            ValueRef::Integer(i) => {
                hasher.update([1]);
                hasher.update(i.to_le_bytes());
            }
            ValueRef::Real(r) => {
                hasher.update([4]);
                hasher.update(r.to_bits().to_le_bytes());
            }
            ValueRef::Text(t) => {
                hasher.update([2]);
                hasher.update((t.len() as u64).to_le_bytes());
                hasher.update(t);
            }
            ValueRef::Blob(b) => {
                hasher.update([3]);
                hasher.update((b.len() as u64).to_le_bytes());
                hasher.update(b);
            }
        }
    }
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
}
