//! Dealers on the table (issue 30): a supervisor signs a dealer in at a table or out of it, and
//! the sign-in is an event of the table's own stream (`dealer_signed_in`, `dealer_signed_out`),
//! so who dealt each round is read from the record alone (`pitwatch_games::dealers`).
//!
//! From the window, a sign-in is a console entry (`console.rs`: the desk's monitor records it
//! beside the devices' events); from the command line, [`sign`] records it the same way through a
//! table's recorder, holding the table's lease for the moment it writes, so a table a monitor is
//! recording is refused, naming the monitor (sign in at its window, or at the dealer console).
//! Either way the caller's role is checked first (`record_console`, a supervisor's or an
//! administrator's) and the entry is audited (`console.event`, with the event as recorded).
//!
//! A dealer's figures ([`shift`]: the dealers' report of a table) are for supervisors and
//! administrators only (`view_dealers`), and every look is its own audit row ([`VIEWED`]). At
//! the desk the same for the window: the pace alerts of the tables running
//! ([`Desk::pace_alerts`], followed live by `state::pace`), a table's dealers
//! ([`Desk::table_dealers`]) and their report written to a file
//! ([`Desk::export_dealers_report_to`], audited as [`EXPORTED`]); a table is held there to the
//! pit definition's `pace_target` where it has one.

use std::path::Path;

use pitwatch_api::dto::{
    ApiError, DealerFiguresView, DealersView, ErrorCode, PaceAlertView, PaceTargetView,
    ReportFormat, StintView,
};
use pitwatch_games::pace::BREAK_AFTER_MS;
use pitwatch_games::targets::PaceTargets;
use pitwatch_model::{EventKind, Timestamp};
use pitwatch_recording::lease::Holder;
use pitwatch_recording::record::recorded_book;
use pitwatch_recording::recorder::TableRecorder;
use pitwatch_recording::report::{DealerQuery, DealerShift};
use pitwatch_store::Store;

use crate::access::{self, detail, Command, Principal};
use crate::live::{internal, Desk};

/// The audit action of a look at a table's dealers (the subject names the table, and the dealer
/// and period when the look named them).
pub const VIEWED: &str = "dealers.view";

/// The audit action of the dealers' report written to a file.
pub const EXPORTED: &str = "dealers.export";

/// The subject of a look at the pace alerts of the tables running.
pub const ALERTS: &str = "pace alerts";

/// A dealer's name as typed, checked by the event's own rule (`pitwatch_model::check_dealer_name`:
/// not blank, at most 80 characters) and kept exactly as given, as untrusted text is.
pub fn checked_name(dealer: &str) -> Result<String, ApiError> {
    pitwatch_model::check_dealer_name(dealer)
        .map_err(|reason| ApiError::new(ErrorCode::InvalidInput, reason))?;
    Ok(dealer.to_owned())
}

/// `who` signs `dealer` in at `table` (`signed_in`) or out of it, from the command line. Returns
/// the event's `seq` once it is on record. Refused: a role other than a supervisor's or an
/// administrator's (audited), a name that is blank or too long, a table not in the record, a
/// table another process records (its lease, named).
pub fn sign(
    store: &mut Store,
    who: &Principal,
    table: &str,
    dealer: &str,
    signed_in: bool,
    now: Timestamp,
) -> Result<u64, ApiError> {
    access::require(
        store,
        who,
        Command::RecordConsole,
        &format!("table {table}"),
        now,
    )?;
    let dealer = checked_name(dealer)?;
    let Some(row) = store.tables()?.into_iter().find(|t| t.name == table) else {
        return Err(ApiError::new(
            ErrorCode::NotFound,
            format!("no table {table} in the record"),
        ));
    };
    let book = recorded_book(store, row.id, &row.rule_book)
        .map_err(|e| ApiError::new(ErrorCode::Internal, format!("table {table}: {e}")))?;
    let text = store.table_book(row.id)?;
    let kind = if signed_in {
        EventKind::DealerSignedIn { dealer }
    } else {
        EventKind::DealerSignedOut { dealer }
    };
    // One writer per table: while a monitor records the table, it is refused here, naming it.
    let holder = Holder::this_process("pitwatch dealer");
    holder.acquire(store, std::slice::from_ref(&row.name), now)?;
    let outcome = (|| {
        let mut recorder = TableRecorder::resume(
            store,
            &row.name,
            &row.game,
            book,
            text.as_deref(),
            None,
            now,
        )?;
        let mut batch = store.batch(now)?;
        let seq = recorder.console(&mut batch, kind, who.actor(), now, &mut Vec::new())?;
        batch.commit()?;
        Ok::<u64, pitwatch_store::StoreError>(seq)
    })();
    let _ = store.release_leases(&holder.process);
    holder.retire();
    Ok(outcome?)
}

/// The dealers of `query.table` (one dealer's, over a period, when the query names them) as the
/// record gives them, held to the built-in targets, for `who` (a supervisor or an
/// administrator), read from `store` and audited there: every look is its own row.
pub fn shift(
    store: &mut Store,
    who: &Principal,
    query: DealerQuery<'_>,
    now: Timestamp,
) -> Result<DealerShift, ApiError> {
    let subject = subject(query);
    access::require(store, who, Command::ViewDealers, &subject, now)?;
    let shift = DealerShift::of(
        store,
        query,
        &pitwatch_games::targets::PaceTargets::defaults(),
    )?;
    let detail = detail(&who.workstation, &[("role", who.role.as_str())]);
    let mut batch = store.batch(now)?;
    batch.append_audit(&who.user, VIEWED, &subject, &detail, now)?;
    batch.commit()?;
    Ok(shift)
}

/// What a look at the dealers is audited as: `table BAC-1`, `table BAC-1 dealer Mere from … to …`.
pub fn subject(query: DealerQuery<'_>) -> String {
    let mut subject = format!("table {}", query.table);
    if let Some(dealer) = query.dealer {
        subject.push_str(&format!(" dealer {dealer}"));
    }
    if let Some((from, to)) = query.period {
        subject.push_str(&format!(" from {from} to {to}"));
    }
    subject
}

impl Desk {
    /// The pace alerts that hold now at the tables running, the newest first: what the window
    /// shows supervisors and administrators on every screen, and refuses (audited) to anyone
    /// else. A look that shows alerts is audited as a view of [`ALERTS`] (once per user in
    /// `viewed::AGAIN_AFTER_MS`, as the window asks every few seconds); an empty answer is not.
    pub fn pace_alerts(&self) -> Result<Vec<PaceAlertView>, ApiError> {
        let who = self.principal()?;
        let now = self.clock.now();
        access::require(
            &mut self.record.store(),
            &who,
            Command::ViewDealers,
            ALERTS,
            now,
        )?;
        let running: Vec<String> = self
            .live
            .running()
            .tables
            .iter()
            .map(|t| t.name.clone())
            .collect();
        let mut alerts: Vec<PaceAlertView> = self.pace.with(|paced| {
            paced
                .active()
                .into_iter()
                .filter(|(table, _)| running.iter().any(|r| r == table))
                .map(|(table, alert)| PaceAlertView::of(table, alert))
                .collect()
        });
        alerts.sort_by(|a, b| b.at_ms.cmp(&a.at_ms).then_with(|| a.table.cmp(&b.table)));
        if !alerts.is_empty() {
            self.audit_view(VIEWED, ALERTS)?;
        }
        Ok(alerts)
    }

    /// `table`'s dealers over its whole record, held to its target (supervisors and
    /// administrators; every look audited as [`VIEWED`], once per user and table in
    /// `viewed::AGAIN_AFTER_MS`, as the window may ask again).
    pub fn table_dealers(&self, table: &str) -> Result<DealersView, ApiError> {
        let who = self.principal()?;
        let now = self.clock.now();
        let query = DealerQuery {
            table,
            dealer: None,
            period: None,
        };
        let subject = subject(query);
        access::require(
            &mut self.record.store(),
            &who,
            Command::ViewDealers,
            &subject,
            now,
        )?;
        let shift = self.dealer_shift(query)?;
        self.audit_view(VIEWED, &subject)?;
        Ok(DealersView {
            table: shift.table.clone(),
            game: shift.game,
            target: shift.target.as_ref().map(PaceTargetView::from),
            rounds_per_hour: shift.pace.rounds_per_hour(BREAK_AFTER_MS),
            rota: shift
                .attribution
                .stints
                .iter()
                .map(StintView::from)
                .collect(),
            figures: shift.figures.iter().map(DealerFiguresView::from).collect(),
            alerts: shift
                .alerts
                .iter()
                .map(|a| PaceAlertView::of(table, a))
                .collect(),
        })
    }

    /// Writes `table`'s dealers' report to `path` as `format` (supervisors and
    /// administrators; audited as [`EXPORTED`] with the file written). Returns the path.
    pub fn export_dealers_report_to(
        &self,
        table: &str,
        format: ReportFormat,
        path: &Path,
    ) -> Result<String, ApiError> {
        let who = self.principal()?;
        let now = self.clock.now();
        let query = DealerQuery {
            table,
            dealer: None,
            period: None,
        };
        let subject = subject(query);
        access::require(
            &mut self.record.store(),
            &who,
            Command::ViewDealers,
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
        let shift = self.dealer_shift(query)?;
        let bytes = match format {
            ReportFormat::Csv => pitwatch_recording::report::dealer_csv(&shift).into_bytes(),
            ReportFormat::Pdf => {
                let store = self
                    .record
                    .installation()
                    .open_read_only(self.record.db())?;
                let document = pitwatch_recording::report::dealer_report(&store, &shift, query)?;
                pitwatch_report::render_pdf(&document.stamped(&who.user, now.as_datetime()))?.bytes
            }
        };
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

    /// `query`'s dealers from the record, the table held to the pit definition's target.
    fn dealer_shift(&self, query: DealerQuery<'_>) -> Result<DealerShift, ApiError> {
        let own = self
            .live
            .running()
            .tables
            .iter()
            .find(|t| t.name == query.table)
            .and_then(|t| t.pace_target);
        let store = self
            .record
            .installation()
            .open_read_only(self.record.db())?;
        Ok(DealerShift::held_to(
            &store,
            query,
            &PaceTargets::defaults(),
            own,
        )?)
    }
}

#[cfg(test)]
mod tests;
