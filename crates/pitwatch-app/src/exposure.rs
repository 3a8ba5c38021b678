//! The house's exposure at a table, for surveillance only (issue 29): before each round of a
//! shoe, what every wager is worth from the cards left, as the game's own code computes it
//! (`pitwatch_games::exposure`): live for every table (the desk's [`ExposureWatch`]), and for any
//! recorded shoe from the record.
//!
//! Only the surveillance role and administrators may read it ([`Command::ViewExposure`]); a
//! supervisor's attempt is refused and audited like any other command. Every read is an audit row
//! ([`VIEWED`]: who, which table and shoe or the whole pit, their role and workstation): the
//! command line's every read, the window's each look (a screen that refreshes is audited once per
//! user and subject within `viewed::AGAIN_AFTER_MS`, as incidents and replays are). Who looked at
//! which table's exposure, and when, is what an inquiry into a shoe shuffled away asks first.
//! Every export is its own row too ([`EXPORTED`]).

use std::path::Path;

use pitwatch_api::dto::{
    ExposureAlert, ExposureRound, PitExposure, ReportFormat, ShoeExposure, TableExposure,
    WagerBehind,
};
use pitwatch_api::{ApiError, ErrorCode};
use pitwatch_games::exposure::{shoe_exposure as game_exposure, RoundExposure};
use pitwatch_games::GameKind;
use pitwatch_model::Timestamp;
use pitwatch_recording::replay::{self, Books};
use pitwatch_store::Store;

use crate::access::{detail, require, Command, Principal};
use crate::live::{internal, Desk};

pub use crate::state::exposure::{self as watch, ExposureWatch};

/// The audit action of a read of a table's exposure (the subject names the table and shoe, or
/// `pit` for the pit-wide list).
pub const VIEWED: &str = "exposure.view";

/// The subject of a look at the alerts of the shoes being dealt.
pub const ALERTS: &str = "alerts";

/// The audit action of an exposure report written to a file.
pub const EXPORTED: &str = "exposure.export";

/// The exposure before every round of shoe `shoe` of table `table`, for `who` (surveillance or an
/// administrator), read from `store` and audited there (every read its own row).
pub fn shoe_exposure(
    store: &mut Store,
    who: &Principal,
    table: &str,
    shoe: u32,
    now: Timestamp,
) -> Result<Vec<RoundExposure>, ApiError> {
    let subject = watch::subject(table, shoe);
    require(store, who, Command::ViewExposure, &subject, now)?;
    let (_, rounds) = recorded(store, table, shoe)?;
    let detail = detail(&who.workstation, &[("role", who.role.as_str())]);
    let mut batch = store.batch(now)?;
    batch.append_audit(&who.user, VIEWED, &subject, &detail, now)?;
    batch.commit()?;
    Ok(rounds)
}

/// Shoe `shoe` of `table` replayed from the record, and its exposure round by round.
fn recorded(
    store: &Store,
    table: &str,
    shoe: u32,
) -> Result<(GameKind, Vec<RoundExposure>), ApiError> {
    let run = replay::replay_shoe(store, table, shoe)?;
    let id = store
        .table_id(table)?
        .ok_or_else(|| ApiError::new(ErrorCode::NotFound, format!("no table {table:?}")))?;
    let first_seq = run.steps.first().map_or(0, |s| s.event.seq);
    let books = Books::read(store, id, &run.rule_book)?;
    let (book, _) = books.at(first_seq);
    let rounds = game_exposure(
        book,
        run.steps.iter().map(|s| (&s.event, s.outputs.as_slice())),
    )
    .ok_or_else(|| no_exposure(table, book.game()))?;
    Ok((book.kind(), rounds))
}

fn no_exposure(table: &str, game: &str) -> ApiError {
    ApiError::new(
        ErrorCode::InvalidInput,
        format!(
            "table {table} deals {game}, whose deck is shuffled for every hand: it has no exposure"
        ),
    )
}

/// Each wager the house was behind on in `rounds`, with how many rounds, most first.
fn behind(rounds: &[RoundExposure]) -> Vec<WagerBehind> {
    pitwatch_recording::report::wagers_behind(rounds)
        .into_iter()
        .map(|(wager, (rounds, _))| WagerBehind { wager, rounds })
        .collect()
}

impl Desk {
    /// Every table's exposure now, the tables most against the house first, with the alerts
    /// raised (surveillance and administrators; the look audited).
    pub fn pit_exposure(&self) -> Result<PitExposure, ApiError> {
        let who = self.principal()?;
        let now = self.clock.now();
        require(
            &mut self.record.store(),
            &who,
            Command::ViewExposure,
            "pit",
            now,
        )?;
        let names: Vec<String> = self
            .live
            .running()
            .tables
            .iter()
            .map(|t| t.name.clone())
            .collect();
        let (mut tables, alerts) = self.exposure.with(|watched| {
            let tables: Vec<TableExposure> = names
                .iter()
                .filter_map(|name| match watched.tables.get(name) {
                    // A game with no exposure (poker).
                    Some(t) if !t.follows() && t.problem.is_none() => None,
                    Some(t) => Some(table_exposure(name, t)),
                    // Not dealt yet, or being read from the record.
                    None => Some(TableExposure {
                        table: name.clone(),
                        game: None,
                        shoe: 0,
                        next: None,
                        worst: None,
                        rounds_behind: 0,
                        problem: None,
                    }),
                })
                .collect();
            let alerts: Vec<ExposureAlert> = watched.alerts.iter().rev().map(alert).collect();
            (tables, alerts)
        });
        // The worst edge first; tables without figures last, by name.
        tables.sort_by(|a, b| {
            let edge = |t: &TableExposure| t.worst.as_ref().map_or(f64::INFINITY, |w| w.value);
            edge(a)
                .total_cmp(&edge(b))
                .then_with(|| a.table.cmp(&b.table))
        });
        self.audit_view(VIEWED, "pit")?;
        Ok(PitExposure {
            tables,
            alerts,
            alert_after_rounds: self.pit.surveillance.exposure_alert_rounds,
        })
    }

    /// The alerts of the shoes being dealt now, the newest first: what the window raises on
    /// every screen for surveillance and administrators, and refuses (audited) to anyone else.
    /// A look that shows alerts is audited as a view of `alerts` (once per user in
    /// `viewed::AGAIN_AFTER_MS`, as the window asks every few seconds); an empty answer reveals
    /// nothing of any table and is not.
    pub fn exposure_alerts(&self) -> Result<Vec<ExposureAlert>, ApiError> {
        let who = self.principal()?;
        let now = self.clock.now();
        require(
            &mut self.record.store(),
            &who,
            Command::ViewExposure,
            ALERTS,
            now,
        )?;
        let alerts: Vec<ExposureAlert> = self.exposure.with(|watched| {
            watched
                .alerts
                .iter()
                .rev()
                .filter(|a| {
                    watched
                        .tables
                        .get(&a.table)
                        .is_some_and(|t| t.shoe == a.shoe)
                })
                .map(alert)
                .collect()
        });
        if !alerts.is_empty() {
            self.audit_view(VIEWED, ALERTS)?;
        }
        Ok(alerts)
    }

    /// Shoe `shoe` of `table` round by round (its last shoe when `None`), for surveillance and
    /// administrators; the look audited. The table's current shoe comes from the live watch,
    /// any other from the record.
    pub fn shoe_exposure(&self, table: &str, shoe: Option<u32>) -> Result<ShoeExposure, ApiError> {
        let who = self.principal()?;
        let now = self.clock.now();
        let store = self
            .record
            .installation()
            .open_read_only(self.record.db())?;
        let shoe = match shoe {
            Some(shoe) => shoe,
            None => {
                let id = store.table_id(table)?.ok_or_else(|| {
                    ApiError::new(ErrorCode::NotFound, format!("no table {table:?}"))
                })?;
                store.last_shoe(id)?.ok_or_else(|| {
                    ApiError::new(ErrorCode::NotFound, format!("{table} has dealt no shoe"))
                })?
            }
        };
        let subject = watch::subject(table, shoe);
        require(
            &mut self.record.store(),
            &who,
            Command::ViewExposure,
            &subject,
            now,
        )?;
        let live = self.exposure.with(|watched| {
            watched
                .tables
                .get(table)
                .filter(|t| t.follows() && t.shoe == shoe)
                .and_then(|t| Some((t.game?, t.rounds.clone())))
        });
        let (game, rounds) = match live {
            Some(live) => live,
            None => recorded(&store, table, shoe)?,
        };
        self.audit_view(VIEWED, &subject)?;
        Ok(ShoeExposure {
            table: table.to_owned(),
            game,
            shoe,
            behind: behind(&rounds),
            rounds: rounds.iter().map(ExposureRound::from).collect(),
        })
    }

    /// Writes shoe `shoe` of `table`'s exposure report to `path` as `format` (surveillance and
    /// administrators; audited as [`EXPORTED`] with the file written). Returns the path.
    pub fn export_exposure_report_to(
        &self,
        table: &str,
        shoe: u32,
        format: ReportFormat,
        path: &Path,
    ) -> Result<String, ApiError> {
        let who = self.principal()?;
        let now = self.clock.now();
        let subject = watch::subject(table, shoe);
        require(
            &mut self.record.store(),
            &who,
            Command::ViewExposure,
            &subject,
            now,
        )?;
        if path.as_os_str().is_empty() || path.is_dir() {
            return Err(ApiError::new(
                ErrorCode::InvalidInput,
                format!(
                    "{:?} is a folder, not a file to save the report as: give a file name",
                    path.display().to_string()
                ),
            ));
        }
        let store = self
            .record
            .installation()
            .open_read_only(self.record.db())?;
        let (_, rounds) = recorded(&store, table, shoe)?;
        let bytes = match format {
            ReportFormat::Csv => {
                pitwatch_recording::report::exposure_csv(table, shoe, &rounds).into_bytes()
            }
            ReportFormat::Pdf => {
                let document =
                    pitwatch_recording::report::exposure_report(&store, table, shoe, &rounds)?;
                pitwatch_report::render_pdf(&document.stamped(&who.user, now.as_datetime()))?.bytes
            }
        };
        drop(store);
        let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
        dir.map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| std::fs::write(path, &bytes))
            .map_err(|e| internal(format!("cannot write {}: {e}", path.display())))?;
        let shown = path.display().to_string();
        let detail = detail(
            &who.workstation,
            &[("role", who.role.as_str()), ("written", &shown)],
        );
        let mut store = self.record.store();
        let mut batch = store.batch(now)?;
        batch.append_audit(&who.user, EXPORTED, &subject, &detail, now)?;
        batch.commit()?;
        Ok(shown)
    }
}

/// One row of the pit-wide list.
fn table_exposure(name: &str, t: &watch::TableWatch) -> TableExposure {
    let next = t.rounds.last().map(ExposureRound::from);
    let worst = next.as_ref().and_then(|n| {
        n.figures
            .iter()
            .filter(|f| f.wager)
            .min_by(|a, b| a.value.total_cmp(&b.value))
            .cloned()
    });
    TableExposure {
        table: name.to_owned(),
        game: t.game,
        shoe: t.shoe,
        next,
        worst,
        rounds_behind: t
            .rounds
            .iter()
            .filter(|r| r.figures.iter().any(|f| f.wager && f.house_behind))
            .count() as u32,
        problem: t.problem.clone(),
    }
}

fn alert(a: &watch::Alert) -> ExposureAlert {
    ExposureAlert {
        table: a.table.clone(),
        shoe: a.shoe,
        round: a.round,
        wager: a.wager.clone(),
        rounds_behind: a.rounds_behind,
        house_edge: a.house_edge,
        at_ms: a.at.unix_millis(),
    }
}

#[cfg(test)]
mod tests;
