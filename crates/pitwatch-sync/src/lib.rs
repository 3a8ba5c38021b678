//! Replication of every workstation's record to a central PostgreSQL database (issue 16).
//!
//! The local record stays the ground truth. Each workstation's **outbox** ([`Central::sync_once`])
//! reads every chain of its record in order through the store ([`pitwatch_store::outbox`]: only
//! the store knows SQLite) and ships the rows the central database does not hold yet, keyed by
//! (site, workstation, chain, position):
//!
//! - each row is checked before it is sent with the store's own chain code (its hash over the
//!   previous row's hash and its content; its position the next one): a row that does not follow
//!   is **refused** and reported (`central_reports`), and nothing after it in its chain is sent;
//! - the server keeps each chain contiguous itself (a trigger in the central schema): a gap is
//!   never filled out of order, a row delivered twice is stored once, a different row at a
//!   position it holds is an error, and nothing is ever updated or deleted;
//! - before sending, the row the server holds last is compared with the record's row at that
//!   position: a record changed after replication (or cut short, or replaced) is refused;
//! - the signed chains go first and the checkpoints chain last, up to the checkpoint that was
//!   latest when the round began, so the central copy never holds a checkpoint before the rows it
//!   signs; the latest checkpoint delivered is kept per workstation (`latest_checkpoints`), so
//!   the server is an outside witness of every local record ([`Central::witness`]);
//! - a server that holds fewer rows than this process delivered earlier (restored from an older
//!   backup) is reported (`behind`) and refilled from where it stands.
//!
//! Reading back: [`Central::workstations`] lists what the server holds, and [`Central::rebuild`]
//! writes one workstation's record, as far as its latest delivered checkpoint, into a new SQLite
//! file through the store, which then verifies, lists and replays exactly as the original.
//!
//! The surveillance room reads incrementally instead ([`mirror`]): a local mirror per
//! workstation, refreshed by pulling only the rows past what it holds, each checked by the
//! store's chain code.
//!
//! Everything here is blocking from the caller's side (a current-thread tokio runtime inside
//! [`Central`]), so the CLI's and the monitor's threads use it as they use the store.

mod enrolment;
mod secret;
pub use secret::redact;
pub mod link;
pub mod mirror;
pub mod replicator;
mod schema;
pub mod test_server;

use std::collections::HashMap;
use std::path::Path;
use std::time::Duration;

use pitwatch_model::Timestamp;
use pitwatch_store::chain::{self, Chain, Hash, CHECKPOINTS, GENESIS, SIGNED};
use pitwatch_store::outbox::{self, ChainRow, Rebuild};
use pitwatch_store::{CheckpointText, PublicKey, Store, StoreError};
use tokio::runtime::Runtime;
use tokio_postgres::Client;

pub use mirror::{mirror_path, MirrorRefresh};
pub use replicator::{ReplicationStatus, Replicator};
pub use schema::{MIGRATIONS, SCHEMA_VERSION};

/// Rows read from the record and sent in one statement.
pub const BATCH: usize = 2000;

/// How long one round trip to the server may take before the link is taken for down.
pub const IO_TIMEOUT: Duration = Duration::from_secs(20);

/// What can go wrong talking to the central database.
#[derive(Debug, thiserror::Error)]
pub enum SyncError {
    /// The server refused or the link failed.
    #[error("central database: {}", with_causes(.0))]
    Postgres(#[from] tokio_postgres::Error),
    /// The server could not be reached (down, or the link cut).
    #[error("central database: cannot reach {0}")]
    Unreachable(String),
    /// The server did not answer in time.
    #[error("central database: no answer within {0:?} (is the server down or the link cut?)")]
    Timeout(Duration),
    /// The local record could not be read.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The central database is not set up, or set up by a newer Pitwatch.
    #[error("{0}")]
    Schema(String),
    /// The central database refused what was asked, saying why (a workstation not enrolled, a
    /// role acting for another workstation, a row whose hash does not match its content, …).
    #[error("the central database refused: {0}")]
    Refused(String),
    /// A request the central database cannot take (another record under the same name, …).
    #[error("{0}")]
    Invalid(String),
    /// What was asked for is not in the central database (a workstation never replicated).
    #[error("{0}")]
    NotFound(String),
    /// The async runtime could not start.
    #[error("cannot start the runtime: {0}")]
    Runtime(#[from] std::io::Error),
}

/// Which workstation a record is, in the central database.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Identity {
    /// The site (a casino).
    pub site: String,
    /// The workstation (a pit's Pitwatch), unique within its site.
    pub workstation: String,
}

impl std::fmt::Display for Identity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.site, self.workstation)
    }
}

impl std::str::FromStr for Identity {
    type Err = String;

    fn from_str(text: &str) -> Result<Identity, String> {
        match text.split_once('/') {
            Some((site, workstation)) if !site.is_empty() && !workstation.is_empty() => {
                Ok(Identity {
                    site: site.to_owned(),
                    workstation: workstation.to_owned(),
                })
            }
            _ => Err(format!("{text:?} is not SITE/WORKSTATION")),
        }
    }
}

/// One chain's replication: how far the record and the server are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChainLag {
    /// The chained table.
    pub table: &'static str,
    /// Rows in the local record.
    pub local: i64,
    /// Rows the server holds.
    pub central: i64,
}

/// What one round of the outbox did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SyncReport {
    /// Rows sent and stored in this round.
    pub delivered: u64,
    /// Every chain, after the round.
    pub chains: Vec<ChainLag>,
    /// Rows refused (the chain, the position and why): nothing after them was sent.
    pub refused: Vec<String>,
    /// Chains the server held fewer rows of than were delivered before (then refilled).
    pub behind: Vec<String>,
    /// Rows the server still lacks.
    pub rows_behind: i64,
    /// How far the latest checkpoint delivered is behind the record's latest (ms of record time).
    pub ms_behind: i64,
}

/// What the central database holds of one workstation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Workstation {
    /// Its site and name.
    pub id: Identity,
    /// The record replicated (none before its first delivery).
    pub record_id: Option<String>,
    /// Rows held, over every chain.
    pub rows: i64,
    /// The latest checkpoint delivered, in its text form.
    pub checkpoint: Option<String>,
    /// Why that checkpoint is refused (not signed by the enrolled key), if it is.
    pub checkpoint_problem: Option<String>,
    /// The key enrolled for it (hex), if it is enrolled.
    pub public_key: Option<String>,
    /// When it last delivered (the server's clock, RFC 3339), if ever.
    pub last_delivery: Option<String>,
    /// Rows it still had to send at its last delivery.
    pub rows_behind: i64,
    /// Time its latest checkpoint delivered was behind its record, at its last delivery (ms).
    pub ms_behind: i64,
    /// Rows the server refused from it.
    pub refused: i64,
}

/// The latest checkpoint the server holds of a workstation, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LatestCheckpoint {
    /// Its text form.
    pub text: CheckpointText,
    /// Why it is not a signature by the workstation's enrolled key over the rows the server
    /// holds (`None`: it is).
    pub problem: Option<String>,
}

/// A report the central side wrote (a refused row, a server found behind).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CentralReport {
    /// Whose.
    pub id: Identity,
    /// `refused` or `behind`.
    pub kind: String,
    /// The chain.
    pub chain: String,
    /// The position.
    pub position: i64,
    /// What happened.
    pub message: String,
}

/// A connection to the central database.
pub struct Central {
    rt: Runtime,
    client: Client,
}

/// One workstation's outbox: who it is, and how far this process has delivered each chain (to
/// notice a server that went back, as after a restore from an older backup). It outlives
/// connections: keep one per record and pass it to every [`Central::sync_once`].
#[derive(Debug, Clone)]
pub struct Outbox {
    /// The workstation.
    pub id: Identity,
    delivered: HashMap<&'static str, i64>,
}

impl Outbox {
    /// An outbox for workstation `id`, nothing delivered yet by this process.
    pub fn new(id: Identity) -> Outbox {
        Outbox {
            id,
            delivered: HashMap::new(),
        }
    }
}

/// An error with the causes under it (tokio-postgres says "error performing TLS handshake" and
/// keeps why in its source: the certificate's issuer unknown, a name it does not hold, …).
fn with_causes(e: &tokio_postgres::Error) -> String {
    if let Some(db) = e.as_db_error() {
        return db.message().to_owned();
    }
    let mut text = e.to_string();
    let mut cause = std::error::Error::source(e);
    while let Some(c) = cause {
        let more = c.to_string();
        if !text.contains(&more) {
            text.push_str(": ");
            text.push_str(&more);
        }
        cause = c.source();
    }
    text
}

/// A server's refusal (an error it raised, or a privilege it denied) as [`SyncError::Refused`]
/// with its message; a failed link stays [`SyncError::Postgres`].
fn refusal(e: tokio_postgres::Error) -> SyncError {
    match e.as_db_error() {
        Some(db) => SyncError::Refused(
            db.message()
                .strip_prefix("pitwatch: ")
                .unwrap_or(db.message())
                .to_owned(),
        ),
        None => SyncError::Postgres(e),
    }
}

/// Refuses a role name that is not a plain lower-case identifier of PostgreSQL (so it needs no
/// quoting rules beyond double quotes), or one of the roles Pitwatch or PostgreSQL reserve.
fn check_role_name(role: &str) -> Result<(), SyncError> {
    let plain = role.len() <= 63
        && role.starts_with(|c: char| c.is_ascii_lowercase() || c == '_')
        && role
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if !plain || role.starts_with("pg_") || role.starts_with("pitwatch_") {
        return Err(SyncError::Invalid(format!(
            "{role:?} cannot be a workstation's role: give lower-case letters, digits and _ (up \
             to 63, not starting with pg_ or pitwatch_)"
        )));
    }
    Ok(())
}

/// The role a workstation is enrolled as unless the administrator names one: `pw_`, then its
/// site and name in lower case with anything but letters and digits as `_`.
pub fn default_role(id: &Identity) -> String {
    let clean = |text: &str| -> String {
        text.chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() {
                    c.to_ascii_lowercase()
                } else {
                    '_'
                }
            })
            .collect()
    };
    let mut role = format!("pw_{}_{}", clean(&id.site), clean(&id.workstation));
    role.truncate(63);
    role
}

fn pg_error_message(e: &tokio_postgres::Error) -> String {
    e.as_db_error()
        .map(|d| d.message().to_owned())
        .unwrap_or_else(|| e.to_string())
}

impl Central {
    /// Connects to the central database at `url` (`postgres://user@host:port/db`; the password,
    /// if any, from the URL or `PGPASSWORD` is the caller's business: see the CLI).
    pub fn connect(url: &str) -> Result<Central, SyncError> {
        Central::open(url, false)
    }

    /// Connects to the central database for reading only (the surveillance room): the session
    /// is read-only on the server's side too (`default_transaction_read_only`), so nothing done
    /// through it can write, whatever the account may.
    pub fn connect_read_only(url: &str) -> Result<Central, SyncError> {
        Central::open(url, true)
    }

    fn open(url: &str, read_only: bool) -> Result<Central, SyncError> {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let ca = std::env::var_os(link::CA_VARIABLE).map(std::path::PathBuf::from);
        let mut target = link::target(url, ca)?;
        let config = &mut target.config;
        if config.get_password().is_none() {
            if let Ok(password) = std::env::var("PGPASSWORD") {
                config.password(password);
            }
        }
        config.application_name("pitwatch");
        if read_only {
            let options = match config.get_options() {
                Some(given) => format!("{given} -c default_transaction_read_only=on"),
                None => "-c default_transaction_read_only=on".to_owned(),
            };
            config.options(options);
        }
        let client = rt.block_on(async {
            tokio::time::timeout(IO_TIMEOUT, link::connect(&target))
                .await
                .map_err(|_| SyncError::Timeout(IO_TIMEOUT))?
        })?;
        Ok(Central { rt, client })
    }

    fn run<T>(
        &self,
        work: impl std::future::Future<Output = Result<T, SyncError>>,
    ) -> Result<T, SyncError> {
        self.rt.block_on(async {
            tokio::time::timeout(IO_TIMEOUT, work)
                .await
                .map_err(|_| SyncError::Timeout(IO_TIMEOUT))?
        })
    }

    /// Whether the link is gone (the next call would fail): reconnect.
    pub fn is_closed(&self) -> bool {
        self.client.is_closed()
    }

    /// Creates or updates the central schema (applies every pending migration, each in one
    /// transaction). Returns the versions applied.
    pub fn init(&mut self) -> Result<Vec<u32>, SyncError> {
        let Central { rt, client, .. } = self;
        rt.block_on(schema::migrate(client))
    }

    /// Refuses a central database whose schema is missing or newer than this Pitwatch knows.
    pub fn check_schema(&mut self) -> Result<(), SyncError> {
        let client = &self.client;
        let version = self.rt.block_on(schema::version(client))?;
        match version {
            None | Some(0) => Err(SyncError::Schema(
                "the central database has no Pitwatch schema: run `pitwatch central init URL` first"
                    .into(),
            )),
            Some(v) if v > SCHEMA_VERSION => Err(SyncError::Schema(format!(
                "the central database has schema version {v}, newer than this Pitwatch supports \
                 ({SCHEMA_VERSION}); use a newer Pitwatch"
            ))),
            Some(_) => Ok(()),
        }
    }

    /// One round of the outbox: ships every row of `store` the server lacks, in chain order, as
    /// workstation `id`. A record with nothing written yet has nothing to ship.
    pub fn sync_once(
        &mut self,
        store: &Store,
        outbox: &mut Outbox,
    ) -> Result<SyncReport, SyncError> {
        let id = &outbox.id.clone();
        let mut report = SyncReport::default();
        let Some(record) = store.record_id()? else {
            return Ok(report);
        };
        self.register(id, &record)?;
        // The checkpoints chain is shipped last, and only up to the checkpoint that was latest
        // now: every row it signs is on record already, so it is shipped first.
        let checkpoint_target = store.chain_length(&CHECKPOINTS)?;
        let mut heads = self.central_heads(id)?;
        for chain in SIGNED {
            let head = heads.remove(chain.table).unwrap_or((0, GENESIS));
            self.deliver_chain(store, outbox, chain, head, None, &mut report)?;
        }
        let head = heads.remove(CHECKPOINTS.table).unwrap_or((0, GENESIS));
        self.deliver_chain(
            store,
            outbox,
            &CHECKPOINTS,
            head,
            Some(checkpoint_target),
            &mut report,
        )?;
        report.rows_behind = report
            .chains
            .iter()
            .map(|c| (c.local - c.central).max(0))
            .sum();
        let local_at = store.latest_checkpoint()?.map(|c| c.at);
        let central_at = self
            .latest_checkpoint_row(id)?
            .and_then(|row| outbox::checkpoint_text(&record, &row))
            .map(|text| text.at);
        report.ms_behind = match (local_at, central_at) {
            (Some(local), Some(central)) => ms_between(&central, &local),
            (Some(_), None) => i64::MAX,
            _ => 0,
        };
        let (rows_behind, ms_behind) = (report.rows_behind, report.ms_behind);
        let client = &self.client;
        self.run(async {
            client
                .execute(
                    "SELECT pitwatch_report_lag($1, $2, $3, $4)",
                    &[&id.site, &id.workstation, &rows_behind, &ms_behind],
                )
                .await
                .map_err(refusal)?;
            Ok(())
        })?;
        Ok(report)
    }

    /// Names the record this workstation replicates, as the server's own function does it
    /// (`pitwatch_claim_record`): the workstation must be enrolled, the session's role must be
    /// the one enrolled for it (or the administrator's), and the record id is taken at the
    /// first delivery only.
    fn register(&mut self, id: &Identity, record: &str) -> Result<(), SyncError> {
        let client = &self.client;
        self.run(async {
            client
                .execute(
                    "SELECT pitwatch_claim_record($1, $2, $3)",
                    &[&id.site, &id.workstation, &record],
                )
                .await
                .map_err(refusal)?;
            Ok(())
        })
    }

    /// Every chain head the server holds of `id`, in one round trip.
    fn central_heads(&mut self, id: &Identity) -> Result<HashMap<String, (i64, Hash)>, SyncError> {
        let client = &self.client;
        let rows = self.run(async {
            Ok(client
                .query(
                    "SELECT chain, position, hash FROM chain_heads \
                     WHERE site = $1 AND workstation = $2",
                    &[&id.site, &id.workstation],
                )
                .await?)
        })?;
        Ok(rows
            .into_iter()
            .map(|row| {
                let hash: Vec<u8> = row.get(2);
                (row.get(0), (row.get(1), hash.try_into().unwrap_or(GENESIS)))
            })
            .collect())
    }

    fn central_head(&mut self, id: &Identity, chain: &Chain) -> Result<(i64, Hash), SyncError> {
        let client = &self.client;
        let row = self.run(async {
            Ok(client
                .query_opt(
                    "SELECT position, hash FROM chain_heads \
                     WHERE site = $1 AND workstation = $2 AND chain = $3",
                    &[&id.site, &id.workstation, &chain.table],
                )
                .await?)
        })?;
        Ok(match row {
            None => (0, GENESIS),
            Some(row) => {
                let hash: Vec<u8> = row.get(1);
                (row.get(0), hash.try_into().unwrap_or(GENESIS))
            }
        })
    }

    fn report(
        &mut self,
        id: &Identity,
        kind: &str,
        chain: &Chain,
        position: i64,
        message: &str,
    ) -> Result<(), SyncError> {
        let client = &self.client;
        self.run(async {
            // Once per row and kind: a refusal met again every round is not a new report.
            client
                .execute(
                    "SELECT pitwatch_report($1, $2, $3, $4, $5, $6)",
                    &[
                        &id.site,
                        &id.workstation,
                        &kind,
                        &chain.table,
                        &position,
                        &message,
                    ],
                )
                .await?;
            Ok(())
        })
    }

    fn deliver_chain(
        &mut self,
        store: &Store,
        outbox: &mut Outbox,
        chain: &'static Chain,
        (mut position, mut head): (i64, Hash),
        limit: Option<i64>,
        report: &mut SyncReport,
    ) -> Result<i64, SyncError> {
        let id = &outbox.id.clone();
        let local = store.chain_length(chain)?;
        let key = chain.table;
        if let Some(&delivered) = outbox.delivered.get(&key) {
            if delivered > position {
                let message = format!(
                    "the server holds {position} rows of {}, but {delivered} were delivered \
                     before: it was restored from an older backup (or rows were removed); \
                     refilling from row {}",
                    chain.table,
                    position + 1
                );
                self.report(id, "behind", chain, position, &message)?;
                report.behind.push(message);
            }
        }
        let mut refused = false;
        if position > 0 {
            let problem = match store.chain_row_hash(chain, position)? {
                None => Some(format!(
                    "the server holds {position} rows of {}, and the record only {local}: the \
                     record was cut short or replaced",
                    chain.table
                )),
                Some(hash) if hash != head => Some(format!(
                    "{} row {position} of the record differs from the row the server received: \
                     the record was changed after replication",
                    chain.table
                )),
                Some(_) => None,
            };
            if let Some(problem) = problem {
                self.report(id, "refused", chain, position, &problem)?;
                report.refused.push(problem);
                refused = true;
            }
        }
        let end = limit.map_or(local, |l| l.min(local));
        while !refused && position < end {
            let want = usize::try_from(end - position).unwrap_or(BATCH).min(BATCH);
            let rows = store.chain_rows(chain, position, want)?;
            if rows.is_empty() {
                break;
            }
            let mut good: Vec<&ChainRow> = Vec::with_capacity(rows.len());
            let mut problem = None;
            let (mut expect, mut prev) = (position + 1, head);
            for row in &rows {
                let reason = if row.position != expect {
                    Some(format!("comes where row {expect} should"))
                } else if row.prev_hash != prev {
                    Some("does not follow the row before it (its previous hash differs)".into())
                } else if chain::row_hash_encoded(chain, &row.prev_hash, &row.content) != row.hash {
                    Some("its content does not match its hash".into())
                } else {
                    None
                };
                if let Some(reason) = reason {
                    problem = Some((
                        row.position,
                        format!("{} row {}: {reason}", chain.table, row.position),
                    ));
                    break;
                }
                good.push(row);
                expect += 1;
                prev = row.hash;
            }
            if !good.is_empty() {
                match self.insert_rows(id, chain, &good) {
                    Ok(n) => report.delivered += n,
                    Err(SyncError::Postgres(e))
                        if e.code() == Some(&tokio_postgres::error::SqlState::UNIQUE_VIOLATION) =>
                    {
                        // Another process delivered these rows first: they are held once. The
                        // next round starts from the head as it then stands.
                        break;
                    }
                    Err(SyncError::Postgres(e)) if e.as_db_error().is_some() => {
                        // The server's own check (the chain_rows trigger) refused the batch.
                        let message = pg_error_message(&e);
                        self.report(id, "refused", chain, good[0].position, &message)?;
                        report.refused.push(message);
                        break;
                    }
                    Err(e) => return Err(e),
                }
                position = expect - 1;
                head = prev;
                outbox.delivered.insert(key, position);
            }
            if let Some((at, message)) = problem {
                self.report(id, "refused", chain, at, &message)?;
                report.refused.push(message);
                refused = true;
            }
        }
        outbox
            .delivered
            .entry(key)
            .and_modify(|d| *d = (*d).max(position))
            .or_insert(position);
        report.chains.push(ChainLag {
            table: chain.table,
            local,
            central: position,
        });
        Ok(position)
    }

    fn insert_rows(
        &mut self,
        id: &Identity,
        chain: &Chain,
        rows: &[&ChainRow],
    ) -> Result<u64, SyncError> {
        let positions: Vec<i64> = rows.iter().map(|r| r.position).collect();
        let contents: Vec<&[u8]> = rows.iter().map(|r| r.content.as_slice()).collect();
        let prevs: Vec<&[u8]> = rows.iter().map(|r| r.prev_hash.as_slice()).collect();
        let hashes: Vec<&[u8]> = rows.iter().map(|r| r.hash.as_slice()).collect();
        let client = &self.client;
        self.run(async {
            // One statement: all of the batch or none of it. Rows go in position order, which
            // the server's trigger requires.
            Ok(client
                .execute(
                    "INSERT INTO chain_rows (site, workstation, chain, position, content, \
                     prev_hash, hash) \
                     SELECT $1, $2, $3, p, c, v, h \
                     FROM unnest($4::bigint[], $5::bytea[], $6::bytea[], $7::bytea[]) \
                     WITH ORDINALITY AS t(p, c, v, h, n) ORDER BY n",
                    &[
                        &id.site,
                        &id.workstation,
                        &chain.table,
                        &positions,
                        &contents,
                        &prevs,
                        &hashes,
                    ],
                )
                .await?)
        })
    }

    /// Up to `limit` rows of `chain` of workstation `id` the server holds after `after`.
    pub fn fetch_rows(
        &mut self,
        id: &Identity,
        chain: &Chain,
        after: i64,
        limit: i64,
    ) -> Result<Vec<ChainRow>, SyncError> {
        let client = &self.client;
        let rows = self.run(async {
            Ok(client
                .query(
                    "SELECT position, content, prev_hash, hash FROM chain_rows \
                     WHERE site = $1 AND workstation = $2 AND chain = $3 AND position > $4 \
                     ORDER BY position LIMIT $5",
                    &[&id.site, &id.workstation, &chain.table, &after, &limit],
                )
                .await?)
        })?;
        Ok(rows
            .into_iter()
            .map(|r| {
                let prev: Vec<u8> = r.get(2);
                let hash: Vec<u8> = r.get(3);
                ChainRow {
                    position: r.get(0),
                    content: r.get(1),
                    prev_hash: prev.try_into().unwrap_or(GENESIS),
                    hash: hash.try_into().unwrap_or(GENESIS),
                }
            })
            .collect())
    }

    /// Every workstation the server holds, by site and name.
    pub fn workstations(&mut self) -> Result<Vec<Workstation>, SyncError> {
        let client = &self.client;
        let rows = self.run(async {
            Ok(client
                .query(
                    "SELECT w.site, w.workstation, w.record_id, \
                       COALESCE((SELECT sum(position) FROM chain_heads h \
                                 WHERE h.site = w.site AND h.workstation = w.workstation), 0)::bigint, \
                       w.public_key, \
                       to_char(w.last_delivery AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'), \
                       w.rows_behind, w.ms_behind, \
                       (SELECT count(*) FROM central_reports r WHERE r.site = w.site \
                        AND r.workstation = w.workstation AND r.kind = 'refused') \
                     FROM workstations w ORDER BY w.site, w.workstation",
                    &[],
                )
                .await?)
        })?;
        let mut listed: Vec<Workstation> = rows
            .into_iter()
            .map(|r| Workstation {
                id: Identity {
                    site: r.get(0),
                    workstation: r.get(1),
                },
                record_id: r.get(2),
                rows: r.get(3),
                public_key: r.get(4),
                checkpoint: None,
                checkpoint_problem: None,
                last_delivery: r.get(5),
                rows_behind: r.get(6),
                ms_behind: r.get(7),
                refused: r.get(8),
            })
            .collect();
        for w in &mut listed {
            if let Some(latest) = self.latest_checkpoint(&w.id)? {
                w.checkpoint = Some(latest.text.to_string());
                w.checkpoint_problem = latest.problem;
            }
        }
        Ok(listed)
    }

    /// What the central side reported (refused rows, a server found behind), oldest first.
    pub fn reports(&mut self) -> Result<Vec<CentralReport>, SyncError> {
        let client = &self.client;
        let rows = self.run(async {
            Ok(client
                .query(
                    "SELECT site, workstation, kind, chain, position, message \
                     FROM central_reports ORDER BY id",
                    &[],
                )
                .await?)
        })?;
        Ok(rows
            .into_iter()
            .map(|r| CentralReport {
                id: Identity {
                    site: r.get(0),
                    workstation: r.get(1),
                },
                kind: r.get(2),
                chain: r.get(3),
                position: r.get(4),
                message: r.get(5),
            })
            .collect())
    }

    /// The workstations whose record is `record_id` (hex): one, unless an older Pitwatch let a
    /// record be registered under two names.
    fn holders(&mut self, record_id: &str) -> Result<Vec<Identity>, SyncError> {
        let client = &self.client;
        self.run(async {
            Ok(client
                .query(
                    "SELECT site, workstation FROM workstations WHERE record_id = $1 \
                     ORDER BY site, workstation",
                    &[&record_id],
                )
                .await?
                .into_iter()
                .map(|r| Identity {
                    site: r.get(0),
                    workstation: r.get(1),
                })
                .collect())
        })
    }

    /// The latest checkpoint the server holds of record `record_id` (hex), whichever workstation
    /// delivered it: what `pitwatch verify --witness postgres://…` checks the record against.
    /// Its signature is checked by [`Central::witness_problems`].
    pub fn witness(&mut self, record_id: &str) -> Result<Option<CheckpointText>, SyncError> {
        for id in self.holders(record_id)? {
            if let Some(latest) = self.latest_checkpoint(&id)? {
                return Ok(Some(latest.text));
            }
        }
        Ok(None)
    }

    /// Problems between the record and what the server holds of it: for every chain, the row
    /// the server holds last must be in the record, unchanged. Empty when the server holds
    /// nothing of the record.
    pub fn witness_problems(&mut self, store: &Store) -> Result<Vec<String>, SyncError> {
        let Some(record) = store.record_id()? else {
            return Ok(Vec::new());
        };
        let client = &self.client;
        let heads = self.run(async {
            Ok(client
                .query(
                    "SELECT h.site, h.workstation, h.chain, h.position, h.hash FROM chain_heads h \
                     JOIN workstations w USING (site, workstation) WHERE w.record_id = $1 \
                     ORDER BY h.site, h.workstation, h.chain",
                    &[&record],
                )
                .await?)
        })?;
        let mut problems = Vec::new();
        for id in self.holders(&record)? {
            if let Some(problem) = self.latest_checkpoint(&id)?.and_then(|l| l.problem) {
                problems.push(format!(
                    "the central server's latest checkpoint of {id} is refused: {problem}"
                ));
            }
        }
        for row in heads {
            let (site, workstation, table): (String, String, String) =
                (row.get(0), row.get(1), row.get(2));
            let position: i64 = row.get(3);
            let hash: Vec<u8> = row.get(4);
            let Some(chain) = chain::chain_named(&table) else {
                continue;
            };
            match store.chain_row_hash(chain, position)? {
                None => problems.push(format!(
                    "the central server ({site}/{workstation}) holds {position} rows of {table}; \
                     the record has fewer: it was cut short or an older copy was put back"
                )),
                Some(h) if h.as_slice() != hash.as_slice() => problems.push(format!(
                    "{table} row {position} differs from the copy the central server \
                     ({site}/{workstation}) received: the record was changed after replication"
                )),
                Some(_) => {}
            }
        }
        Ok(problems)
    }

    /// Writes workstation `id`'s record as the server holds it, up to its latest checkpoint
    /// delivered (so every row is signed), into a new SQLite file at `path`. Returns that
    /// checkpoint's position (0: nothing signed delivered yet, and nothing written but the
    /// schema).
    pub fn rebuild(&mut self, id: &Identity, path: &Path) -> Result<i64, SyncError> {
        let (checkpoint, _) = self.central_head(id, &CHECKPOINTS)?;
        let mut rebuild = Rebuild::create(path)?;
        if checkpoint == 0 {
            rebuild.finish()?;
            return Ok(0);
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
        let limits = SIGNED
            .iter()
            .zip(counts.iter().copied().chain(std::iter::repeat(0)))
            .chain(std::iter::once((&CHECKPOINTS, checkpoint)));
        for (chain, end) in limits {
            let mut after = 0;
            while after < end {
                let rows = self.fetch_rows(id, chain, after, (end - after).min(5000))?;
                let Some(last) = rows.last() else { break };
                after = last.position;
                for row in &rows {
                    rebuild.append(chain, row)?;
                }
            }
        }
        rebuild.finish()?;
        Ok(checkpoint)
    }
}

/// Milliseconds from record time `from` to `to` (0 if either cannot be read or `to` is earlier).
fn ms_between(from: &str, to: &str) -> i64 {
    match (from.parse::<Timestamp>(), to.parse::<Timestamp>()) {
        (Ok(from), Ok(to)) => (to.unix_millis() - from.unix_millis()).max(0),
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identities_and_redaction() {
        let id: Identity = "sky/pit-3".parse().expect("identity");
        assert_eq!(id.to_string(), "sky/pit-3");
        assert!("nosite".parse::<Identity>().is_err());
        assert!("/ws".parse::<Identity>().is_err());
        assert_eq!(
            redact("postgres://ana:secret@db:5432/pit"),
            "postgres://ana:***@db:5432/pit"
        );
        assert_eq!(redact("postgres://ana@db/pit"), "postgres://ana@db/pit");
        assert_eq!(
            redact("postgres://ana@db/pit?sslmode=disable&password=secret&x=1"),
            "postgres://ana@db/pit?sslmode=disable&password=***&x=1"
        );
        assert_eq!(
            redact("postgresql://ana:s%40cret@db:5/pit?password=again"),
            "postgresql://ana:***@db:5/pit?password=***"
        );
        assert_eq!(
            redact("host=db password=secret user=ana"),
            "host=db password=*** user=ana"
        );
        assert_eq!(
            redact(r"host=db PASSWORD = 'se cret\' x' user=ana"),
            "host=db PASSWORD = *** user=ana"
        );
        assert_eq!(redact("host=db user=ana"), "host=db user=ana");
        assert_eq!(redact("host=db mypassword=x"), "host=db mypassword=x");
        for url in [
            "postgres://ana:secret@db/pit",
            "postgres://ana@db/pit?password=secret",
            "host=db password=secret",
            "password='secret' host=db",
        ] {
            assert!(!redact(url).contains("secret"), "{url}");
        }
        assert_eq!(
            default_role(&"Sky City/pit-3".parse().expect("id")),
            "pw_sky_city_pit_3"
        );
        assert!(check_role_name("pw_sky_pit_3").is_ok());
        for bad in ["Pw", "pg_x", "pitwatch_workstation", "a\"b", "", "1x"] {
            assert!(check_role_name(bad).is_err(), "{bad}");
        }
        assert_eq!(
            ms_between("2026-01-01T00:00:00Z", "2026-01-01T00:00:01.500Z"),
            1500
        );
        assert_eq!(ms_between("x", "2026-01-01T00:00:01Z"), 0);
    }
}
