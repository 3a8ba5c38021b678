//! Incremental reads of the central copy: a local, read-only **mirror** per workstation (the
//! surveillance room's copy of its record) that a refresh brings up to the latest checkpoint the
//! server holds by pulling only the rows past what it holds, in chain order.
//!
//! The mirror is a record file kept by the store ([`pitwatch_store::outbox::Mirror`]: only the
//! store knows SQLite); this module only reads PostgreSQL. Every row pulled is checked by the
//! store's chain code before it is written (its position the next one, its previous hash the hash
//! of the row the mirror holds last, its own hash over its content), so a row altered in the
//! central copy is refused, and the whole refresh with it: the mirror stays at the checkpoint it
//! stood at. Before pulling, the row the mirror holds last of every chain is compared with the
//! server's row at that position (one round trip), so a central copy changed under the mirror, or
//! replaced by another record, is found too.
//!
//! A refresh goes as far as the latest checkpoint delivered, like [`Central::rebuild`]: every row
//! in the mirror is signed, and the file always stands at a checkpoint, so
//! [`pitwatch_store::Store::open_read_only`] reads it as the workstation's own record (replay
//! equal to the workstation's).

use std::path::{Path, PathBuf};

use pitwatch_store::chain::{self, Chain, CHAINS, CHECKPOINTS, SIGNED};
use pitwatch_store::outbox::{self, Mirror};

use crate::{Central, Identity, SyncError};

/// Rows pulled in one query while refreshing.
const PULL: i64 = 5000;

/// What one refresh of a mirror did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MirrorRefresh {
    /// The checkpoint the mirror stands at after the refresh (0: nothing signed delivered yet).
    pub checkpoint: i64,
    /// Rows pulled and appended by this refresh.
    pub appended: u64,
    /// Whether the mirror was started anew (it held another record under this workstation's
    /// name, or nothing).
    pub started: bool,
    /// Whether the server holds fewer checkpoints than the mirror (restored from an older
    /// backup): the mirror is kept as it is, and nothing is pulled until the server is refilled.
    pub server_behind: bool,
}

/// The mirror's file for workstation `id` in folder `dir`: the site and name, with any character
/// but letters, digits, `-`, `_` and `.` written as `~` and its code (so names never collide).
pub fn mirror_path(dir: &Path, id: &Identity) -> PathBuf {
    let escape = |text: &str| -> String {
        text.chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                    c.to_string()
                } else {
                    format!("~{:x}~", u32::from(c))
                }
            })
            .collect()
    };
    dir.join(format!(
        "{}@{}.db",
        escape(&id.workstation),
        escape(&id.site)
    ))
}

fn remove_record_file(path: &Path) -> Result<(), SyncError> {
    for suffix in ["", "-journal", "-wal", "-shm"] {
        let mut name = path.as_os_str().to_owned();
        name.push(suffix);
        match std::fs::remove_file(&name) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(SyncError::Runtime(e)),
        }
    }
    Ok(())
}

impl Central {
    /// The record workstation `id` replicates (its id, hex), if the server holds it.
    pub fn record_of(&mut self, id: &Identity) -> Result<Option<String>, SyncError> {
        let client = &self.client;
        self.run(async {
            Ok(client
                .query_opt(
                    "SELECT record_id FROM workstations WHERE site = $1 AND workstation = $2",
                    &[&id.site, &id.workstation],
                )
                .await?
                .and_then(|r| r.get(0)))
        })
    }

    /// Brings the mirror of workstation `id` at `path` (created if missing) up to the latest
    /// checkpoint the server holds, pulling only the rows past what it holds. A row that does
    /// not follow (altered in the central copy) refuses the refresh with [`SyncError::Invalid`]
    /// naming it, and the mirror stays where it stood.
    pub fn refresh_mirror(
        &mut self,
        id: &Identity,
        path: &Path,
    ) -> Result<MirrorRefresh, SyncError> {
        let record = self.record_of(id)?.ok_or_else(|| {
            SyncError::NotFound(format!("the central database holds no workstation {id}"))
        })?;
        let (checkpoint, _) = self.central_head(id, &CHECKPOINTS)?;
        let mut refresh = MirrorRefresh::default();
        let mut mirror = Mirror::open(path)?;
        match mirror.record_id()? {
            Some(held) if held == record => {}
            Some(_) => {
                // The server now holds another record under this name (a new database): the
                // mirror of the old one is of no use to it.
                drop(mirror);
                remove_record_file(path)?;
                mirror = Mirror::open(path)?;
                refresh.started = true;
            }
            None => refresh.started = mirror.head(&CHECKPOINTS).0 == 0,
        }
        self.check_mirror_heads(id, &mirror)?;
        let held = mirror.head(&CHECKPOINTS).0;
        refresh.checkpoint = held;
        if checkpoint < held {
            refresh.server_behind = true;
            return Ok(refresh);
        }
        if checkpoint == held {
            return Ok(refresh);
        }
        let last = self
            .fetch_rows(id, &CHECKPOINTS, checkpoint - 1, 1)?
            .pop()
            .ok_or_else(|| {
                SyncError::Invalid(format!("checkpoint {checkpoint} of {id} is gone"))
            })?;
        let counts = outbox::checkpoint_counts(&last).ok_or_else(|| {
            SyncError::Invalid(format!("checkpoint {checkpoint} of {id} cannot be read"))
        })?;
        let limits: Vec<(&Chain, i64)> = SIGNED
            .iter()
            .zip(counts.iter().copied().chain(std::iter::repeat(0)))
            .chain(std::iter::once((&CHECKPOINTS, checkpoint)))
            .collect();
        // The checkpoint the mirror is brought to must be signed by the key enrolled for the
        // workstation (which only the central administrator sets), over the rows the server
        // holds: a checkpoint signed by any other key is refused, and the mirror stays.
        if let Some(problem) = self.signature_problem(id, &record, &last)? {
            return Err(SyncError::Invalid(format!(
                "the central copy of {id} is refused: {problem}"
            )));
        }
        mirror.begin()?;
        match self.pull(id, &mut mirror, &limits) {
            Ok(n) => {
                mirror.commit()?;
                refresh.appended = n;
                refresh.checkpoint = checkpoint;
                Ok(refresh)
            }
            Err(e) => {
                mirror.rollback()?;
                Err(e)
            }
        }
    }

    fn pull(
        &mut self,
        id: &Identity,
        mirror: &mut Mirror,
        limits: &[(&Chain, i64)],
    ) -> Result<u64, SyncError> {
        let mut appended = 0;
        for &(chain, end) in limits {
            let mut after = mirror.head(chain).0;
            while after < end {
                let rows = self.fetch_rows(id, chain, after, (end - after).min(PULL))?;
                let Some(last) = rows.last() else {
                    return Err(SyncError::Invalid(format!(
                        "the central copy of {id} holds {after} rows of {}, where its checkpoint \
                         signs {end}",
                        chain.table
                    )));
                };
                after = last.position;
                for row in &rows {
                    mirror.append(chain, row).map_err(|e| {
                        SyncError::Invalid(format!("the central copy of {id} is refused: {e}"))
                    })?;
                    appended += 1;
                }
            }
        }
        Ok(appended)
    }

    /// The row the mirror holds last of every chain must be the server's row at that position.
    fn check_mirror_heads(&mut self, id: &Identity, mirror: &Mirror) -> Result<(), SyncError> {
        let held: Vec<(&Chain, (i64, [u8; 32]))> = CHAINS
            .iter()
            .map(|c| (c, mirror.head(c)))
            .filter(|(_, (position, _))| *position > 0)
            .collect();
        if held.is_empty() {
            return Ok(());
        }
        let client = &self.client;
        let rows = self.run(async {
            // One primary-key lookup per chain on one prepared statement (a join of the heads
            // with chain_rows was planned as a scan of every row of the workstation).
            let statement = client
                .prepare(
                    "SELECT chain, prev_hash, content, hash FROM chain_rows \
                     WHERE site = $1 AND workstation = $2 AND chain = $3 AND position = $4",
                )
                .await?;
            let mut rows = Vec::with_capacity(held.len());
            for (chain, (position, _)) in &held {
                if let Some(row) = client
                    .query_opt(
                        &statement,
                        &[&id.site, &id.workstation, &chain.table, position],
                    )
                    .await?
                {
                    rows.push(row);
                }
            }
            Ok(rows)
        })?;
        let found: Vec<String> = rows.iter().map(|r| r.get::<_, String>(0)).collect();
        if let Some((chain, (position, _))) = held
            .iter()
            .find(|(c, _)| !found.iter().any(|f| f == c.table))
        {
            return Err(SyncError::Invalid(format!(
                "the central copy of {id} no longer holds {} row {position}, which the local \
                 mirror holds: the server was restored from an older backup or changed",
                chain.table
            )));
        }
        for row in rows {
            let table: String = row.get(0);
            let prev: Option<Vec<u8>> = row.get(1);
            let content: Option<Vec<u8>> = row.get(2);
            let hash: Option<Vec<u8>> = row.get(3);
            let Some((chain, (position, mine))) = held.iter().find(|(c, _)| c.table == table)
            else {
                continue;
            };
            // The server's row must be the mirror's: its hash the same, and over its content as
            // the server holds it now (a changed content, or previous hash, under the old hash is
            // a changed row too).
            let same = |h: &[u8], prev: Option<Vec<u8>>, content: Option<Vec<u8>>| {
                let prev: Option<[u8; 32]> = prev.and_then(|p| p.try_into().ok());
                h == mine.as_slice()
                    && prev.is_some_and(|p| {
                        chain::row_hash_encoded(chain, &p, content.as_deref().unwrap_or_default())
                            == *mine
                    })
            };
            match hash {
                None => {
                    return Err(SyncError::Invalid(format!(
                        "the central copy of {id} no longer holds {} row {position}, which the \
                         local mirror holds: the server was restored from an older backup or \
                         changed",
                        chain.table
                    )))
                }
                Some(h) if !same(&h, prev, content) => {
                    return Err(SyncError::Invalid(format!(
                        "the central copy of {id} is refused: {} row {position} differs from the \
                         copy the local mirror took of it (the central copy was changed)",
                        chain.table
                    )))
                }
                Some(_) => {}
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mirror_names_never_collide() {
        let dir = Path::new("/m");
        let a = mirror_path(dir, &"sky/pit-3".parse().expect("id"));
        assert_eq!(a, Path::new("/m/pit-3@sky.db"));
        let b = mirror_path(dir, &"sky/pit/3".parse().expect("id"));
        let c = mirror_path(dir, &"sky/pit~2f~3".parse().expect("id"));
        assert_ne!(b, c);
        assert!(!b.to_string_lossy()["/m/".len()..].contains('/'));
    }
}
