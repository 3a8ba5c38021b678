//! The central administrator's enrolment of a workstation (its public key and its own role) and
//! what every reader checks against it: the key enrolled for a name, and whether the latest
//! checkpoint delivered under that name is signed by it (issue 25, docs/central.md).

#[allow(unused_imports)]
use super::*;

impl Central {
    /// The row of the latest checkpoint the server holds of `id`: the head of its checkpoints
    /// chain, which only the server's trigger moves.
    pub fn latest_checkpoint_row(&mut self, id: &Identity) -> Result<Option<ChainRow>, SyncError> {
        let (position, _) = self.central_head(id, &CHECKPOINTS)?;
        if position == 0 {
            return Ok(None);
        }
        Ok(self.fetch_rows(id, &CHECKPOINTS, position - 1, 1)?.pop())
    }

    /// The public key enrolled for workstation `id` (what its checkpoints must be signed with),
    /// if it is enrolled.
    pub fn enrolled_key(&mut self, id: &Identity) -> Result<Option<PublicKey>, SyncError> {
        let client = &self.client;
        let key: Option<Option<String>> = self.run(async {
            Ok(client
                .query_opt(
                    "SELECT public_key FROM workstations WHERE site = $1 AND workstation = $2",
                    &[&id.site, &id.workstation],
                )
                .await?
                .map(|r| r.get(0)))
        })?;
        key.flatten()
            .map(|hex| {
                PublicKey::from_hex(&hex).ok_or_else(|| {
                    SyncError::Invalid(format!("the key enrolled for {id} ({hex}) is not a key"))
                })
            })
            .transpose()
    }

    /// The latest checkpoint the server holds of workstation `id`, with its signature checked
    /// against the key enrolled for `id` over the rows the server holds (`problem`: why it is
    /// not such a signature). `None`: nothing signed delivered yet.
    pub fn latest_checkpoint(
        &mut self,
        id: &Identity,
    ) -> Result<Option<LatestCheckpoint>, SyncError> {
        let Some(record) = self.record_of(id)? else {
            return Ok(None);
        };
        let Some(row) = self.latest_checkpoint_row(id)? else {
            return Ok(None);
        };
        let text = outbox::checkpoint_text(&record, &row).ok_or_else(|| {
            SyncError::Invalid(format!(
                "checkpoint {} of {id} cannot be read",
                row.position
            ))
        })?;
        let problem = self.signature_problem(id, &record, &row)?;
        Ok(Some(LatestCheckpoint { text, problem }))
    }

    /// Why checkpoint `row` of workstation `id` (record `record`) is not signed by `id`'s
    /// enrolled key over the rows the server holds; `None`: it is.
    pub fn signature_problem(
        &mut self,
        id: &Identity,
        record: &str,
        row: &ChainRow,
    ) -> Result<Option<String>, SyncError> {
        let Some(key) = self.enrolled_key(id)? else {
            return Ok(Some(format!(
                "{id} has no enrolled key: its checkpoints cannot be checked (a central \
                 administrator enrols it with `pitwatch central enrol`)"
            )));
        };
        let Some(counts) = outbox::checkpoint_counts(row) else {
            return Ok(Some(format!(
                "checkpoint {} of {id} cannot be read",
                row.position
            )));
        };
        let mut tables = Vec::new();
        let mut positions = Vec::new();
        for (chain, count) in SIGNED.iter().zip(&counts) {
            if *count > 0 {
                tables.push(chain.table);
                positions.push(*count);
            }
        }
        let client = &self.client;
        let held: HashMap<String, Vec<u8>> = self.run(async {
            Ok(client
                .query(
                    "SELECT r.chain, r.hash FROM chain_rows r \
                     JOIN unnest($3::text[], $4::bigint[]) AS t(chain, position) \
                     ON r.chain = t.chain AND r.position = t.position \
                     WHERE r.site = $1 AND r.workstation = $2",
                    &[&id.site, &id.workstation, &tables, &positions],
                )
                .await?
                .into_iter()
                .map(|r| (r.get(0), r.get(1)))
                .collect())
        })?;
        let mut heads = Vec::with_capacity(counts.len());
        for (index, count) in counts.iter().enumerate() {
            let Some(chain) = SIGNED.get(index) else {
                heads.push((*count, GENESIS));
                continue;
            };
            if *count == 0 {
                heads.push((0, GENESIS));
                continue;
            }
            match held
                .get(chain.table)
                .and_then(|h| Hash::try_from(h.as_slice()).ok())
            {
                Some(hash) => heads.push((*count, hash)),
                None => {
                    return Ok(Some(format!(
                        "checkpoint {} of {id} signs {count} rows of {}, which the server does \
                         not hold",
                        row.position, chain.table
                    )))
                }
            }
        }
        Ok(outbox::checkpoint_not_signed_by(record, row, &heads, &key)
            .map(|problem| format!("{id}: {problem}")))
    }

    /// Enrols workstation `id` (the central administrator's step; refused on any other role):
    /// records `key` as the key its checkpoints are signed with and `role` as the PostgreSQL
    /// role it logs in as, creating that role (LOGIN, a member of `pitwatch_workstation` and
    /// nothing else) if it does not exist. With `password`, the role's password is set to it
    /// (sent as a SCRAM-SHA-256 verifier, never as the password itself). Enrolling again with
    /// the same key and role changes nothing but the password; another key or role for an
    /// enrolled workstation is refused.
    pub fn enrol(
        &mut self,
        id: &Identity,
        key: &PublicKey,
        role: &str,
        password: Option<&str>,
    ) -> Result<(), SyncError> {
        check_role_name(role)?;
        let verifier = password.map(|p| postgres_protocol::password::scram_sha_256(p.as_bytes()));
        let key_hex = key.to_hex();
        let Central { rt, client } = self;
        rt.block_on(async {
            let tx = client.transaction().await?;
            let existing = tx
                .query_opt("SELECT rolsuper FROM pg_roles WHERE rolname = $1", &[&role])
                .await?;
            match existing {
                Some(row) if row.get::<_, bool>(0) => {
                    return Err(SyncError::Invalid(format!(
                        "{role} is a superuser: a workstation's role must be an ordinary one"
                    )))
                }
                Some(_) => {}
                None => {
                    tx.batch_execute(&format!("CREATE ROLE \"{role}\" LOGIN"))
                        .await
                        .map_err(refusal)?;
                }
            }
            tx.batch_execute(&format!("GRANT pitwatch_workstation TO \"{role}\""))
                .await
                .map_err(refusal)?;
            if let Some(verifier) = &verifier {
                // A verifier is base64 and `$:`; it holds no quote.
                tx.batch_execute(&format!("ALTER ROLE \"{role}\" PASSWORD '{verifier}'"))
                    .await
                    .map_err(refusal)?;
            }
            if let Some(other) = tx
                .query_opt(
                    "SELECT site || '/' || workstation FROM workstations \
                     WHERE role_name = $1 AND (site, workstation) <> ($2, $3)",
                    &[&role, &id.site, &id.workstation],
                )
                .await?
            {
                return Err(SyncError::Invalid(format!(
                    "the role {role} is enrolled already as {}: each workstation logs in as a \
                     role of its own",
                    other.get::<_, String>(0)
                )));
            }
            let held = tx
                .query_opt(
                    "SELECT public_key, role_name FROM workstations \
                     WHERE site = $1 AND workstation = $2",
                    &[&id.site, &id.workstation],
                )
                .await?;
            match held {
                Some(row) => {
                    let (held_key, held_role): (Option<String>, Option<String>) =
                        (row.get(0), row.get(1));
                    match (held_key, held_role) {
                        (Some(k), Some(r)) if k == key_hex && r == role => {}
                        (Some(k), Some(r)) => {
                            return Err(SyncError::Invalid(format!(
                                "{id} is enrolled already, with key {} as role {r}: a \
                                 workstation keeps its key (a new key is a new record: enrol it \
                                 under a new name)",
                                PublicKey::from_hex(&k)
                                    .map(|k| k.fingerprint())
                                    .unwrap_or(k)
                            )))
                        }
                        _ => {
                            tx.execute(
                                "UPDATE workstations SET public_key = $3, role_name = $4, \
                                 enrolled_at = now() WHERE site = $1 AND workstation = $2",
                                &[&id.site, &id.workstation, &key_hex, &role],
                            )
                            .await
                            .map_err(refusal)?;
                        }
                    }
                }
                None => {
                    tx.execute(
                        "INSERT INTO workstations (site, workstation, public_key, role_name, \
                         enrolled_at) VALUES ($1, $2, $3, $4, now())",
                        &[&id.site, &id.workstation, &key_hex, &role],
                    )
                    .await
                    .map_err(refusal)?;
                }
            }
            tx.commit().await?;
            Ok(())
        })
    }
}
