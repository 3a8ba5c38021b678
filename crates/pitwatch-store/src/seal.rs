//! Signed checkpoints: what makes the record prove itself to someone who does not trust the file.
//!
//! A hash chain alone proves nothing against someone who can write the database: they can edit a
//! row and recompute every hash after it. So every write transaction ends with a *checkpoint*, a
//! row of its own chain that records how many rows every other chain has and is signed, over
//! those chains' head hashes, with the installation's Ed25519 key. The key lives outside the
//! database (a file with owner-only permissions); without it nobody can sign a rewritten record.
//! Rows after the last checkpoint are signed by nothing, and are reported as such.
//!
//! A checkpoint also has a short text form (`pitwatch-checkpoint:1:…`), written to the checkpoint
//! journals outside the database (see [`crate::witness`]) and printed in reports, so that a record
//! cut short or replaced by an older copy is contradicted by what was written down elsewhere.

use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};

use ed25519_dalek::{Signer, Verifier};
use password_hash::rand_core::{OsRng, RngCore};
use sha2::{Digest, Sha256};

use crate::chain::Hash;

/// What can go wrong with the installation's signing key.
#[derive(Debug, thiserror::Error)]
pub enum KeyError {
    /// The record was signed before but the key file is gone: a new key would vouch for anything.
    #[error(
        "the signing key {path} is missing, but this record was signed before (by key {fingerprint}); \
         restore the key file from the installation's backup (a new key is never made for a signed record)"
    )]
    Missing {
        /// Where the key should be.
        path: PathBuf,
        /// The fingerprint of the key that signed the record last.
        fingerprint: String,
    },
    /// The key file cannot be read or does not hold a key.
    #[error("the signing key {path} cannot be used: {reason}")]
    Unreadable {
        /// The key file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// Others may read the key file.
    #[error(
        "the signing key {path} may be read by others (mode {mode:o}); it must be owner-only: chmod 600 {path}"
    )]
    TooOpen {
        /// The key file.
        path: PathBuf,
        /// Its permission bits.
        mode: u32,
    },
    /// The key file cannot be created.
    #[error("cannot create the signing key {path}: {reason}")]
    Create {
        /// The key file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
}

/// The installation's private signing key.
#[derive(Clone)]
pub struct SigningKey(ed25519_dalek::SigningKey);

impl fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never print the secret.
        write!(f, "SigningKey({})", self.public().fingerprint())
    }
}

/// A public key that checkpoints are checked against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PublicKey(ed25519_dalek::VerifyingKey);

const KEY_HEADER: &str =
    "# Pitwatch installation signing key (Ed25519). Private: keep it owner-only and backed up.";
const KEY_TAG: &str = "ed25519-secret ";

impl SigningKey {
    /// A new random key (kept in memory only; [`SigningKey::create`] writes one to a file).
    pub fn generate() -> SigningKey {
        let mut seed = [0u8; 32];
        OsRng.fill_bytes(&mut seed);
        SigningKey(ed25519_dalek::SigningKey::from_bytes(&seed))
    }

    /// The key with this 32-byte secret (for tests and tools that derive keys).
    pub fn from_secret(secret: [u8; 32]) -> SigningKey {
        SigningKey(ed25519_dalek::SigningKey::from_bytes(&secret))
    }

    /// Its public half.
    pub fn public(&self) -> PublicKey {
        PublicKey(self.0.verifying_key())
    }

    /// Signs `message`.
    pub(crate) fn sign(&self, message: &[u8]) -> [u8; 64] {
        self.0.sign(message).to_bytes()
    }

    /// Reads the key in `path`, refusing a file that others may read.
    pub fn load(path: &Path) -> Result<SigningKey, KeyError> {
        let unreadable = |reason: String| KeyError::Unreadable {
            path: path.to_owned(),
            reason,
        };
        let meta = std::fs::metadata(path).map_err(|e| unreadable(e.to_string()))?;
        if !meta.is_file() {
            return Err(unreadable("it is not a regular file".into()));
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = meta.permissions().mode() & 0o777;
            if mode & 0o077 != 0 {
                return Err(KeyError::TooOpen {
                    path: path.to_owned(),
                    mode,
                });
            }
        }
        if meta.len() > 4096 {
            return Err(unreadable("it is far too long to be a key file".into()));
        }
        let text = std::fs::read_to_string(path).map_err(|e| unreadable(e.to_string()))?;
        let line = text
            .lines()
            .map(str::trim)
            .find(|l| l.starts_with(KEY_TAG))
            .ok_or_else(|| unreadable(format!("no line starting {KEY_TAG:?}")))?;
        let bytes = hex::decode(line[KEY_TAG.len()..].trim())
            .map_err(|e| unreadable(format!("the secret is not hexadecimal: {e}")))?;
        let secret: [u8; 32] = bytes
            .try_into()
            .map_err(|_| unreadable("the secret is not 32 bytes".into()))?;
        Ok(SigningKey::from_secret(secret))
    }

    /// Creates a new key in `path` (owner-only; its folder is created owner-only if missing).
    /// Refuses to overwrite an existing file.
    pub fn create(path: &Path) -> Result<SigningKey, KeyError> {
        let failed = |reason: String| KeyError::Create {
            path: path.to_owned(),
            reason,
        };
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            if !dir.exists() {
                let mut builder = std::fs::DirBuilder::new();
                builder.recursive(true);
                #[cfg(unix)]
                {
                    use std::os::unix::fs::DirBuilderExt;
                    builder.mode(0o700);
                }
                builder.create(dir).map_err(|e| failed(e.to_string()))?;
            }
        }
        let key = SigningKey::generate();
        // Written whole under a name of its own, then linked into place: a key file is never
        // seen half-written, and of two processes creating it at once exactly one succeeds.
        let mut temporary = path.as_os_str().to_owned();
        temporary.push(format!(".{}.new", std::process::id()));
        let temporary = PathBuf::from(temporary);
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o600);
        }
        let written = (|| -> std::io::Result<()> {
            let mut file = options.open(&temporary)?;
            let text = format!(
                "{KEY_HEADER}\n# public key fingerprint: {}\n{KEY_TAG}{}\n",
                key.public().fingerprint(),
                hex::encode(key.0.to_bytes())
            );
            file.write_all(text.as_bytes())?;
            file.sync_all()?;
            std::fs::hard_link(&temporary, path)
        })();
        let _ = std::fs::remove_file(&temporary);
        written.map_err(|e| failed(e.to_string()))?;
        Ok(key)
    }
}

impl PublicKey {
    /// The key from its 32 bytes.
    pub fn from_bytes(bytes: &[u8]) -> Option<PublicKey> {
        let bytes: [u8; 32] = bytes.try_into().ok()?;
        ed25519_dalek::VerifyingKey::from_bytes(&bytes)
            .ok()
            .map(PublicKey)
    }

    /// The key from 64 hexadecimal digits.
    pub fn from_hex(text: &str) -> Option<PublicKey> {
        PublicKey::from_bytes(&hex::decode(text.trim()).ok()?)
    }

    /// Its 32 bytes.
    pub fn to_bytes(&self) -> [u8; 32] {
        self.0.to_bytes()
    }

    /// Its 64 hexadecimal digits.
    pub fn to_hex(&self) -> String {
        hex::encode(self.to_bytes())
    }

    /// A short form for people to compare: the first 16 bytes of the key's SHA-256, in groups
    /// of four hexadecimal digits (`3f2a-91bc-…`).
    pub fn fingerprint(&self) -> String {
        fingerprint(&self.to_bytes())
    }

    /// Whether `signature` is this key's signature of `message`.
    pub(crate) fn verifies(&self, message: &[u8], signature: &[u8]) -> bool {
        let Ok(signature) = ed25519_dalek::Signature::from_slice(signature) else {
            return false;
        };
        self.0.verify(message, &signature).is_ok()
    }
}

/// The fingerprint of a public key's bytes (see [`PublicKey::fingerprint`]).
pub fn fingerprint(public_key: &[u8]) -> String {
    let digest = Sha256::digest(public_key);
    digest[..16]
        .chunks(2)
        .map(hex::encode)
        .collect::<Vec<_>>()
        .join("-")
}

/// What a checkpoint signs: the record, the checkpoint's place in its own chain, and the length
/// and head of every other chain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signed<'a> {
    /// The record's id (16 random bytes chosen when the record was created).
    pub record: &'a [u8],
    /// The checkpoint's id.
    pub id: i64,
    /// When it was made (the writer's clock), as stored.
    pub at: &'a str,
    /// For each signed chain in [`crate::chain::SIGNED`] order: its row count and head hash.
    pub heads: &'a [(i64, Hash)],
    /// The hash of the checkpoint before (the chain's genesis for the first).
    pub prev: &'a Hash,
}

impl Signed<'_> {
    /// The exact bytes signed.
    pub fn message(&self) -> Vec<u8> {
        let mut m = Vec::with_capacity(64 + self.heads.len() * 40);
        m.extend_from_slice(b"pitwatch-checkpoint-v1\0");
        m.extend_from_slice(&(self.record.len() as u64).to_le_bytes());
        m.extend_from_slice(self.record);
        m.extend_from_slice(&self.id.to_le_bytes());
        m.extend_from_slice(&(self.at.len() as u64).to_le_bytes());
        m.extend_from_slice(self.at.as_bytes());
        m.extend_from_slice(&(self.heads.len() as u64).to_le_bytes());
        for (count, head) in self.heads {
            m.extend_from_slice(&count.to_le_bytes());
            m.extend_from_slice(head);
        }
        m.extend_from_slice(self.prev);
        m
    }
}

/// The row counts of the signed chains as stored in a checkpoint (`12,0,7,…`).
pub(crate) fn counts_text(counts: &[i64]) -> String {
    counts
        .iter()
        .map(i64::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

/// The counts stored in a checkpoint, if well formed.
pub fn parse_counts(text: &str) -> Option<Vec<i64>> {
    if text.is_empty() {
        return Some(Vec::new());
    }
    text.split(',')
        .map(|n| n.parse::<i64>().ok().filter(|n| *n >= 0))
        .collect()
}

/// A checkpoint as written down outside the record: in a journal line, or printed in a report.
/// It names the record, the checkpoint and the checkpoint row's hash, which covers its signature
/// and, through the signature, every chain's length and head at that moment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckpointText {
    /// The record's id, hex.
    pub record: String,
    /// The checkpoint's id.
    pub id: i64,
    /// When it was made, as stored.
    pub at: String,
    /// The checkpoint row's hash.
    pub hash: Hash,
    /// The fingerprint of the key that signed it.
    pub key: String,
}

const TEXT_PREFIX: &str = "pitwatch-checkpoint:1:";

impl fmt::Display for CheckpointText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{TEXT_PREFIX}{}:{}:{}:{}:{}",
            self.record,
            self.id,
            self.at,
            hex::encode(self.hash),
            self.key
        )
    }
}

impl std::str::FromStr for CheckpointText {
    type Err = String;

    fn from_str(text: &str) -> Result<CheckpointText, String> {
        let text = text.trim();
        let rest = text.strip_prefix(TEXT_PREFIX).ok_or_else(|| {
            format!("a checkpoint starts {TEXT_PREFIX:?} (as printed in reports and journals)")
        })?;
        // The time holds colons itself, so take the fixed fields from both ends.
        let (record, rest) = rest
            .split_once(':')
            .ok_or("the record id is missing".to_owned())?;
        let (id, rest) = rest
            .split_once(':')
            .ok_or("the checkpoint number is missing".to_owned())?;
        let (rest, key) = rest
            .rsplit_once(':')
            .ok_or("the key fingerprint is missing".to_owned())?;
        let (at, hash) = rest
            .rsplit_once(':')
            .ok_or("the checkpoint hash is missing".to_owned())?;
        if record.len() != 32 || hex::decode(record).is_err() {
            return Err(format!(
                "{record:?} is not a record id (32 hexadecimal digits)"
            ));
        }
        let id: i64 = id
            .parse()
            .ok()
            .filter(|n| *n > 0)
            .ok_or_else(|| format!("{id:?} is not a checkpoint number"))?;
        let hash: Hash = hex::decode(hash)
            .ok()
            .and_then(|b| b.try_into().ok())
            .ok_or_else(|| format!("{hash:?} is not a checkpoint hash (64 hexadecimal digits)"))?;
        Ok(CheckpointText {
            record: record.to_owned(),
            id,
            at: at.to_owned(),
            hash,
            key: key.to_owned(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signature_covers_every_field() {
        let key = SigningKey::from_secret([7; 32]);
        let heads = [(3, [1; 32]), (0, [0; 32])];
        let signed = Signed {
            record: &[9; 16],
            id: 4,
            at: "2026-11-30T10:00:00Z",
            heads: &heads,
            prev: &[2; 32],
        };
        let signature = key.sign(&signed.message());
        assert!(key.public().verifies(&signed.message(), &signature));
        let other_heads = [(4, [1; 32]), (0, [0; 32])];
        let variants = [
            Signed {
                id: 5,
                ..signed.clone()
            },
            Signed {
                record: &[8; 16],
                ..signed.clone()
            },
            Signed {
                at: "2026-11-30T10:00:01Z",
                ..signed.clone()
            },
            Signed {
                heads: &other_heads,
                ..signed.clone()
            },
            Signed {
                prev: &[3; 32],
                ..signed.clone()
            },
        ];
        for variant in variants {
            assert!(
                !key.public().verifies(&variant.message(), &signature),
                "{variant:?}"
            );
        }
        let stranger = SigningKey::from_secret([8; 32]);
        assert!(!stranger.public().verifies(&signed.message(), &signature));
    }

    #[test]
    fn checkpoint_text_round_trips_and_names_what_is_wrong() {
        let text = CheckpointText {
            record: "00112233445566778899aabbccddeeff".into(),
            id: 42,
            at: "2026-11-30T10:00:00.250Z".into(),
            hash: [0xab; 32],
            key: "3f2a-91bc-0000-1111-2222-3333-4444-5555".into(),
        };
        let printed = text.to_string();
        assert_eq!(printed.parse::<CheckpointText>().unwrap(), text);
        assert!("nonsense"
            .parse::<CheckpointText>()
            .unwrap_err()
            .contains("pitwatch-checkpoint"));
        let bad = printed.replace(":42:", ":x:");
        assert!(bad
            .parse::<CheckpointText>()
            .unwrap_err()
            .contains("checkpoint number"));
    }

    #[test]
    fn key_files_are_owner_only_and_never_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("keys").join("signing.key");
        let key = SigningKey::create(&path).unwrap();
        assert_eq!(SigningKey::load(&path).unwrap().public(), key.public());
        assert!(matches!(
            SigningKey::create(&path),
            Err(KeyError::Create { .. })
        ));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o600);
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
            let err = SigningKey::load(&path).unwrap_err();
            assert!(err.to_string().contains("chmod 600"), "{err}");
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        }
        std::fs::write(&path, "garbage").unwrap();
        let err = SigningKey::load(&path).unwrap_err();
        assert!(
            err.to_string().contains(&path.display().to_string()),
            "{err}"
        );
    }
}
