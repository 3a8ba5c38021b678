//! The surveillance view (issue 16): the central PostgreSQL database opened **read-only**, every
//! workstation (pit) replicated into it, its tables, its incidents with the workstation's own
//! filters, an incident's evidence and history, and replay of any shoe, identical to replay on the
//! workstation.
//!
//! Each workstation is read through a local mirror of its record (see
//! [`pitwatch_sync::mirror`]), kept in a cache folder and refreshed before every read by pulling
//! only the rows past what it holds, each checked by the store's chain code; the mirror is then
//! read with the very functions the workstation's window uses ([`crate::incidents`],
//! [`crate::replay`]). The connection is read-only on the server's side too, and nothing here
//! writes: the workflow (acknowledge, note, resolve) is not offered, and an incident's detail says
//! on which workstation to work it.
//!
//! **Signing in.** Accounts and their roles are chained facts of each workstation's record, so
//! they are replicated with it: a surveillance officer signs in with the account a workstation's
//! record holds (`SITE/WORKSTATION`, name and password), checked against that workstation's
//! mirror by the store (`Store::authenticate`: one argon2 verification, as at the workstation).
//! The central copy takes no writes, so a failed or refused attempt cannot be audited in a
//! record: failures are counted here instead, and [`MAX_FAILURES`] in a row lock the name for
//! [`LOCKOUT`]. An account deactivated at its workstation is refused here once the deactivation
//! has been replicated.
//!
//! **Who may see what** ([`Watch::allowed`]):
//!
//! | role (at its workstation) | sees |
//! |---|---|
//! | surveillance | every workstation: pits, incidents, incident detail, replay |
//! | admin | every workstation, as surveillance |
//! | supervisor | their own workstation only (the one whose record holds their account) |
//!
//! A read of a workstation the viewer may not see is the error code `forbidden`; no one signed
//! in is `unauthorised`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use pitwatch_api::dto::{
    ApiError, CentralIncidentDetail, CentralIncidents, CentralPit, CentralTable, ErrorCode,
    IncidentQuery, Session, ShoePage, ShoeReplay, TableTile,
};
use pitwatch_api::games::game_round;
use pitwatch_api::games::GameRoundResult;
use pitwatch_games::GameKind;
use pitwatch_model::Timestamp;
use pitwatch_recording::pit::{CentralConfig, TableConfig};
use pitwatch_rules::TableOutput as Output;
use pitwatch_store::{Role, Store};
use pitwatch_sync::{mirror_path, redact, Central, Identity, SyncError};

use crate::access::{Command, Principal};
use crate::incidents::{incident_detail, incident_page};
use crate::live::lock;
use crate::replay::{shoe_page, shoe_replay};

/// Failed sign-ins in a row after which a name is locked.
pub const MAX_FAILURES: u32 = 5;

/// How long a name stays locked after [`MAX_FAILURES`] failures.
pub const LOCKOUT: Duration = Duration::from_secs(300);

/// The refusal of a locked name, saying how long is left in the main login's words
/// ([`crate::accounts::how_long`]): "locked for 4 minutes 59 seconds more".
fn locked_out(user: &str, left: Duration) -> ApiError {
    let millis = i64::try_from(left.as_millis()).unwrap_or(i64::MAX);
    ApiError::new(
        ErrorCode::Unauthorised,
        format!(
            "too many failed sign-ins for {user:?}: locked for {} more",
            crate::accounts::how_long(millis)
        ),
    )
}

/// The reads of the surveillance view, each checked against the viewer's role.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Watch {
    /// The workstations and their tables.
    Pits,
    /// The incident list.
    Incidents,
    /// One incident with its evidence and history.
    Incident,
    /// A shoe replayed from the central copy.
    Replay,
}

impl Watch {
    /// Every read, for tests and documentation.
    pub const ALL: [Watch; 4] = [
        Watch::Pits,
        Watch::Incidents,
        Watch::Incident,
        Watch::Replay,
    ];

    /// The read's name, as a refusal gives it.
    pub const fn name(self) -> &'static str {
        match self {
            Watch::Pits => "central_pits",
            Watch::Incidents => "central_incidents",
            Watch::Incident => "central_incident",
            Watch::Replay => "central_replay",
        }
    }

    /// Whether someone of `role` whose account is workstation `home`'s may read workstation
    /// `target` this way: surveillance, administrators and inspectors every workstation, a
    /// supervisor their own only.
    pub fn allowed(self, role: Role, home: &Identity, target: &Identity) -> bool {
        match role {
            Role::Surveillance | Role::Admin | Role::Inspector => true,
            Role::Supervisor => home == target,
        }
    }
}

/// Someone signed in to the surveillance view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Viewer {
    /// Who, with the role their workstation's record gives them.
    pub principal: Principal,
    /// The workstation whose record holds their account.
    pub home: Identity,
}

/// A table's current shoe's rounds as derived (by replay) at a checkpoint of its mirror: the
/// checkpoint, the shoe, the rounds.
type DerivedRounds = (i64, u32, Vec<GameRoundResult>);

/// The surveillance view's state: a read-only connection to the central database, the mirrors'
/// folder, and who is signed in.
pub struct Surveillance {
    url: String,
    cache: PathBuf,
    desk: String,
    central: Mutex<Option<Central>>,
    viewer: Mutex<Option<Viewer>>,
    failures: Mutex<HashMap<String, (u32, Instant)>>,
    /// Each table's current shoe's rounds, derived by replay, and the checkpoint the mirror
    /// stood at then: derived again only when the mirror moved.
    rounds: Mutex<HashMap<(Identity, String), DerivedRounds>>,
}

fn unavailable(url: &str, e: &SyncError) -> ApiError {
    ApiError::new(
        ErrorCode::Internal,
        format!("the central database {}: {e}", redact(url)),
    )
}

impl Surveillance {
    /// Opens the central database at `url` read-only (its schema checked), keeping the mirrors
    /// in `cache` (created if missing); `desk` names this surveillance desk in messages.
    pub fn open(url: &str, cache: &Path, desk: &str) -> Result<Surveillance, ApiError> {
        std::fs::create_dir_all(cache).map_err(|e| {
            ApiError::new(
                ErrorCode::Internal,
                format!("cannot make the mirrors' folder {}: {e}", cache.display()),
            )
        })?;
        let surveillance = Surveillance {
            url: url.to_owned(),
            cache: cache.to_owned(),
            desk: desk.to_owned(),
            central: Mutex::new(None),
            viewer: Mutex::new(None),
            failures: Mutex::new(HashMap::new()),
            rounds: Mutex::new(HashMap::new()),
        };
        surveillance.with_central(|_| Ok(()))?;
        Ok(surveillance)
    }

    /// The central database's URL with any password hidden, for the window and logs.
    pub fn describe(&self) -> String {
        redact(&self.url)
    }

    /// Runs `work` on the connection, connecting (read-only) first if there is none; a link
    /// that failed is dropped, so the next read reconnects.
    fn with_central<T>(
        &self,
        work: impl FnOnce(&mut Central) -> Result<T, SyncError>,
    ) -> Result<T, ApiError> {
        let mut slot = lock(&self.central);
        if slot.as_ref().is_none_or(Central::is_closed) {
            let mut central =
                Central::connect_read_only(&self.url).map_err(|e| unavailable(&self.url, &e))?;
            central
                .check_schema()
                .map_err(|e| unavailable(&self.url, &e))?;
            *slot = Some(central);
        }
        let Some(central) = slot.as_mut() else {
            return Err(ApiError::new(ErrorCode::Internal, "no connection"));
        };
        match work(central) {
            Ok(value) => Ok(value),
            Err(e) => {
                if matches!(
                    e,
                    SyncError::Postgres(_) | SyncError::Timeout(_) | SyncError::Unreachable(_)
                ) {
                    *slot = None;
                }
                Err(match e {
                    SyncError::Invalid(message) | SyncError::Refused(message) => {
                        ApiError::new(ErrorCode::Conflict, message)
                    }
                    SyncError::NotFound(message) => ApiError::new(ErrorCode::NotFound, message),
                    other => unavailable(&self.url, &other),
                })
            }
        }
    }

    /// Brings workstation `id`'s mirror up to date and opens it read-only.
    fn mirror(&self, id: &Identity) -> Result<Store, ApiError> {
        let path = mirror_path(&self.cache, id);
        self.with_central(|central| central.refresh_mirror(id, &path))?;
        Ok(Store::open_read_only(&path)?)
    }

    /// The mirror as it stands (after a refresh that failed, the copy as last read), if any.
    fn last_mirror(&self, id: &Identity) -> Option<Store> {
        let path = mirror_path(&self.cache, id);
        path.exists()
            .then(|| Store::open_read_only(&path).ok())
            .flatten()
    }

    /// Signs `user` in with `password` against the account workstation `home`'s record holds.
    pub fn login(&self, home: &str, user: &str, password: &str) -> Result<Session, ApiError> {
        let home: Identity = home
            .parse()
            .map_err(|e: String| ApiError::new(ErrorCode::InvalidInput, e))?;
        let key = format!("{home}\u{0}{user}");
        if let Some((count, since)) = lock(&self.failures).get(&key) {
            if *count >= MAX_FAILURES && since.elapsed() < LOCKOUT {
                return Err(locked_out(user, LOCKOUT - since.elapsed()));
            }
        }
        let store = self.mirror(&home)?;
        match store.authenticate(user, password) {
            Ok(role) => {
                lock(&self.failures).remove(&key);
                let principal = Principal {
                    user: user.to_owned(),
                    role,
                    workstation: self.desk.clone(),
                };
                let session = principal.session();
                *lock(&self.viewer) = Some(Viewer { principal, home });
                Ok(session)
            }
            Err(_) => {
                let mut failures = lock(&self.failures);
                let entry = failures.entry(key).or_insert((0, Instant::now()));
                entry.0 += 1;
                entry.1 = Instant::now();
                Err(ApiError::new(
                    ErrorCode::Unauthorised,
                    format!("wrong name or password for {home}"),
                ))
            }
        }
    }

    /// Signs the viewer out.
    pub fn logout(&self) {
        *lock(&self.viewer) = None;
    }

    /// Who is signed in, if anyone.
    pub fn viewer(&self) -> Option<Viewer> {
        lock(&self.viewer).clone()
    }

    /// The viewer, if they may read `target` by `read`.
    fn require(&self, read: Watch, target: &Identity) -> Result<Viewer, ApiError> {
        let viewer = self.viewer().ok_or_else(|| {
            ApiError::new(
                ErrorCode::Unauthorised,
                "sign in to the surveillance view first",
            )
        })?;
        if read.allowed(viewer.principal.role, &viewer.home, target) {
            Ok(viewer)
        } else {
            Err(ApiError::new(
                ErrorCode::Forbidden,
                format!(
                    "{} ({} at {}) may not read {target} here ({})",
                    viewer.principal.user,
                    viewer.principal.role.as_str(),
                    viewer.home,
                    read.name()
                ),
            ))
        }
    }

    /// Every workstation the viewer may see, with what the central database holds of it.
    fn visible(&self, read: Watch) -> Result<Vec<pitwatch_sync::Workstation>, ApiError> {
        let viewer = self.viewer().ok_or_else(|| {
            ApiError::new(
                ErrorCode::Unauthorised,
                "sign in to the surveillance view first",
            )
        })?;
        let all = self.with_central(Central::workstations)?;
        Ok(all
            .into_iter()
            .filter(|w| read.allowed(viewer.principal.role, &viewer.home, &w.id))
            .collect())
    }

    /// Every workstation (pit) the viewer may see, with its tables as its replicated record
    /// stands and how far behind its copy is.
    pub fn pits(&self) -> Result<Vec<CentralPit>, ApiError> {
        let mut pits = Vec::new();
        for w in self.visible(Watch::Pits)? {
            let (store, mut problem) = match self.mirror(&w.id) {
                Ok(store) => (Some(store), None),
                Err(e) => (self.last_mirror(&w.id), Some(e.message)),
            };
            // A checkpoint not signed by the key enrolled for the workstation is refused (the
            // mirror stays where it stood) and said first.
            if let Some(refused) = &w.checkpoint_problem {
                problem = Some(format!("latest checkpoint REFUSED: {refused}"));
            } else if w.public_key.is_none() {
                problem.get_or_insert_with(|| {
                    "not enrolled in the central database: its checkpoints cannot be checked"
                        .to_owned()
                });
            }
            let mut pit = CentralPit {
                site: w.id.site.clone(),
                workstation: w.id.to_string(),
                site_name: None,
                checkpoint: 0,
                checkpoint_at: None,
                last_delivery: w.last_delivery.clone(),
                rows_behind: w.rows_behind,
                ms_behind: w.ms_behind,
                refused: w.refused,
                problem,
                open_incidents: 0,
                tables: Vec::new(),
            };
            if let Some(store) = store {
                if let Err(e) = self.fill_pit(&w.id, &store, &mut pit) {
                    pit.problem.get_or_insert(e.message);
                }
            }
            pits.push(pit);
        }
        Ok(pits)
    }

    /// The incidents matching `query` (the workstation's own filters and pages), of
    /// `workstation` (`SITE/WORKSTATION`) or of every workstation the viewer may see.
    pub fn incidents(
        &self,
        workstation: Option<&str>,
        query: &IncidentQuery,
    ) -> Result<Vec<CentralIncidents>, ApiError> {
        let targets: Vec<Identity> = match workstation {
            Some(one) => {
                let id = parse_id(one)?;
                self.require(Watch::Incidents, &id)?;
                vec![id]
            }
            None => self
                .visible(Watch::Incidents)?
                .into_iter()
                .map(|w| w.id)
                .collect(),
        };
        let mut out = Vec::new();
        for id in targets {
            let store = self.mirror(&id)?;
            out.push(CentralIncidents {
                workstation: id.to_string(),
                page: incident_page(&store, query)?,
            });
        }
        Ok(out)
    }

    /// Incident `id` of `workstation` with its evidence and history, and where to work it.
    pub fn incident(&self, workstation: &str, id: i64) -> Result<CentralIncidentDetail, ApiError> {
        let ws = parse_id(workstation)?;
        self.require(Watch::Incident, &ws)?;
        let store = self.mirror(&ws)?;
        let books: HashMap<String, String> = store
            .tables()?
            .into_iter()
            .map(|t| (t.name, t.rule_book))
            .collect();
        let mut detail = incident_detail(&store, id, |table| {
            books.get(table).cloned().unwrap_or_default()
        })?;
        // The round as recorded live is a derived row, not replicated: derived again from the
        // replicated events.
        if detail.round.is_none() {
            if let (Some(shoe), Some(round)) = (detail.incident.shoe, detail.incident.round) {
                detail.round = shoe_rounds(&store, &detail.incident.table, shoe)?
                    .into_iter()
                    .find(|r| r.round() == round);
            }
        }
        Ok(CentralIncidentDetail {
            workstation: ws.to_string(),
            work_it_at: format!(
                "at workstation {} of site {} (the surveillance view is read-only: acknowledge, \
                 note and resolve there)",
                ws.workstation, ws.site
            ),
            detail,
        })
    }

    /// Shoe `shoe` (the last if `None`) of `table` at `workstation`, replayed from the central
    /// copy exactly as the workstation replays it from its record.
    pub fn replay(
        &self,
        workstation: &str,
        table: &str,
        shoe: Option<u32>,
    ) -> Result<ShoeReplay, ApiError> {
        let ws = parse_id(workstation)?;
        self.require(Watch::Replay, &ws)?;
        let store = self.mirror(&ws)?;
        let row = store
            .tables()?
            .into_iter()
            .find(|t| t.name == table)
            .ok_or_else(|| {
                ApiError::new(ErrorCode::NotFound, format!("no table {table} at {ws}"))
            })?;
        shoe_replay(
            &store,
            table,
            shoe,
            |store| Ok(mirror_verdict(store, &ws)),
            || tile_of(&row),
        )
    }

    /// The shoes of `table` at `workstation` for the replay picker, as the workstation lists
    /// them (rounds counted from the results its replicated events declare).
    pub fn shoes(
        &self,
        workstation: &str,
        table: &str,
        before: Option<u32>,
        limit: Option<u32>,
    ) -> Result<ShoePage, ApiError> {
        let ws = parse_id(workstation)?;
        self.require(Watch::Replay, &ws)?;
        let store = self.mirror(&ws)?;
        shoe_page(&store, table, before, limit, true)
    }

    /// The pit's tables and counts as its mirror stands.
    fn fill_pit(&self, id: &Identity, store: &Store, pit: &mut CentralPit) -> Result<(), ApiError> {
        pit.site_name = store.meta("site")?;
        if let Some(cp) = store.latest_checkpoint()? {
            pit.checkpoint = cp.id;
            pit.checkpoint_at = Some(cp.at);
        }
        let counts = store.open_counts()?;
        let open_at = |table: &str| -> u32 {
            counts
                .iter()
                .filter(|c| c.table == table)
                .map(|c| u32::try_from(c.count).unwrap_or(u32::MAX))
                .sum()
        };
        for row in store.tables()? {
            let last = store.shoe_listing(row.id, None, 1)?.pop();
            let (shoe, ended) = last.as_ref().map_or((0, None), |s| (s.shoe, s.ended_ms));
            // Rounds are derived rows the record does not chain (so not replicated): the current
            // shoe's are derived again here from its replicated events, by replaying it.
            let key = (id.clone(), row.name.clone());
            let cached = lock(&self.rounds)
                .get(&key)
                .filter(|(at, at_shoe, _)| *at == pit.checkpoint && *at_shoe == shoe)
                .map(|(_, _, rounds)| rounds.clone());
            let rounds: Vec<GameRoundResult> = match cached {
                Some(rounds) => rounds,
                None if shoe > 0 => {
                    let rounds = shoe_rounds(store, &row.name, shoe)?;
                    lock(&self.rounds).insert(key, (pit.checkpoint, shoe, rounds.clone()));
                    rounds
                }
                None => Vec::new(),
            };
            let open = open_at(&row.name);
            pit.open_incidents += open;
            pit.tables.push(CentralTable {
                name: row.name,
                game: row.game,
                rule_book: row.rule_book,
                shoe,
                rounds: u32::try_from(rounds.len()).unwrap_or(u32::MAX),
                last_event_at: ended
                    .and_then(Timestamp::from_unix_millis)
                    .map(|t| t.to_string()),
                last_result: rounds.iter().rev().find_map(|r| r.result_label().cloned()),
                open_incidents: open,
            });
        }
        Ok(())
    }
}

/// The environment variable that makes the desktop the surveillance view: `env:NAME` (the
/// central URL is in variable NAME) or `file:PATH` (in a file only its owner may read).
pub const CENTRAL_ENV: &str = "PITWATCH_CENTRAL";

/// The central URL `spec` (`env:NAME` or `file:PATH`) names, by the same rules as a pit
/// definition's `[central]` (`url_env`, `url_file`: owner-only). A plain URL is refused: the
/// password it may hold would sit in the desktop's environment and launch scripts.
pub fn central_url(spec: &str) -> Result<String, ApiError> {
    let invalid = |m: String| ApiError::new(ErrorCode::InvalidInput, m);
    let config = |url_env: Option<String>, url_file: Option<PathBuf>| CentralConfig {
        url: None,
        url_env,
        url_file,
        site: String::new(),
        workstation: String::new(),
        alert_after_s: 60,
    };
    let spec = spec.trim();
    let config = if let Some(name) = spec.strip_prefix("env:") {
        config(Some(name.to_owned()), None)
    } else if let Some(path) = spec.strip_prefix("file:") {
        config(None, Some(PathBuf::from(path)))
    } else {
        return Err(invalid(format!(
            "{CENTRAL_ENV} must be env:NAME (the URL in variable NAME) or file:PATH (in a file \
             only its owner may read), not the URL itself"
        )));
    };
    config
        .url()
        .map_err(|e| invalid(format!("{CENTRAL_ENV}: {e}")))
}

/// Who exports a report from a central copy (`pitwatch export --central`): `user`, signed in
/// with `password` against the accounts the copy holds (read-only, as the surveillance view
/// signs in), whose role may run `command` (see [`crate::access`]). The central copy takes no
/// writes, so neither the export nor a refusal is audited in a record: the report names its
/// exporter and the copy it was made from instead (see the CLI).
pub fn central_exporter(
    copy: &Store,
    user: &str,
    password: &str,
    command: Command,
    desk: &str,
) -> Result<Principal, ApiError> {
    let role = copy
        .authenticate(user, password)
        .map_err(|_| ApiError::new(ErrorCode::Unauthorised, "wrong name or password"))?;
    if !command.allowed(role) {
        return Err(ApiError::new(
            ErrorCode::Forbidden,
            format!(
                "{user} ({}) may not run {} on the central copy",
                role.as_str(),
                command.name()
            ),
        ));
    }
    Ok(Principal {
        user: user.to_owned(),
        role,
        workstation: desk.to_owned(),
    })
}

fn parse_id(text: &str) -> Result<Identity, ApiError> {
    text.parse()
        .map_err(|e: String| ApiError::new(ErrorCode::InvalidInput, e))
}

/// What a replay from the central copy can say of the record: every row was checked against its
/// chain as it was pulled, up to a checkpoint whose signature was checked against the key enrolled
/// for the workstation in the central database (a mirror is never brought to any other).
fn mirror_verdict(store: &Store, ws: &Identity) -> (bool, String) {
    match store.latest_checkpoint() {
        Ok(Some(cp)) => (
            true,
            format!(
                "the central copy of {ws}: every row checked against its chain as it was pulled, \
                 up to checkpoint {} ({}), signed by the key enrolled for {ws} ({})",
                cp.id, cp.at, cp.key
            ),
        ),
        Ok(None) => (
            false,
            format!("the central copy of {ws} holds no signed checkpoint yet"),
        ),
        Err(e) => (false, format!("the central copy of {ws}: {e}")),
    }
}

/// A tile to fold a replay into, for a table as a replicated record names it (no pit definition
/// at the surveillance desk: the game and rule book are the record's).
fn tile_of(row: &pitwatch_store::TableRow) -> Result<TableTile, ApiError> {
    let game = GameKind::recorded(&row.game);
    // No devices: a replay folds recorded events, whatever device sent them.
    Ok(TableTile::from(&TableConfig {
        name: row.name.clone(),
        game,
        rules: row.rule_book.clone(),
        decks: None,
        variant: None,
        devices: Vec::new(),
        simulated: false,
        liveness: Default::default(),
        pace_target: None,
    }))
}

/// The rounds of shoe `shoe` of `table`, derived from the record's events by replaying the shoe.
fn shoe_rounds(store: &Store, table: &str, shoe: u32) -> Result<Vec<GameRoundResult>, ApiError> {
    let run = pitwatch_recording::replay::replay_shoe(store, table, shoe)?;
    Ok(run
        .steps
        .iter()
        .flat_map(|step| &step.outputs)
        .filter_map(|output| match output {
            Output::Round(record) => Some(game_round(record)),
            _ => None,
        })
        .filter(|r| r.shoe() == shoe)
        .collect())
}

#[cfg(test)]
mod tests;
