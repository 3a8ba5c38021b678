//! Reports: who may export which (every role), and the audit of each export with its actor and
//! workstation. Rendering is `pitwatch_recording::report`'s. The desk writes a report where it
//! is told (`*_to`: the path the shell's save dialog gave) or, without one, in `reports/` next to
//! the database; the path written is audited.
//! The shift's sign-off is [`crate::handover`]'s.

use std::path::{Path, PathBuf};

use pitwatch_api::dto::{ApiError, ErrorCode, ShiftQuery, ShiftReportFile};
use pitwatch_model::Timestamp;
use pitwatch_store::{IncidentId, Store};

use crate::access::{detail, require, Command, Principal};
use crate::live::{internal, Desk};

/// Checks that `who` may run `command` (an export) on `subject` before the report is built.
pub fn may_export(
    store: &mut Store,
    who: &Principal,
    command: Command,
    subject: &str,
    now: Timestamp,
) -> Result<(), ApiError> {
    require(store, who, command, subject, now)
}

/// A report built from `reader` vouches for the record only as far as its own verification
/// found it intact: if that verification failed, the export is refused, and `audit` (the store
/// the export's audit row would go through) appends nothing more to the record, which is kept
/// unchanged as evidence.
pub fn vouch(reader: &Store, audit: &mut Store) -> Result<(), ApiError> {
    match reader.failed_verification() {
        Some(why) => {
            audit.refuse_writes(why.clone());
            Err(pitwatch_store::StoreError::Unverified(why).into())
        }
        None => Ok(()),
    }
}

/// Audits that `who` exported `subject` to `written` (`incident.export`, `shoe.export`,
/// `shift.export` by `command`).
pub fn exported(
    store: &mut Store,
    who: &Principal,
    command: Command,
    subject: &str,
    written: &str,
    now: Timestamp,
) -> Result<(), ApiError> {
    let action = match command {
        Command::ExportShoe => "shoe.export",
        Command::ExportShift => "shift.export",
        _ => "incident.export",
    };
    let detail = detail(&who.workstation, &[("written", written)]);
    let mut batch = store.batch(now)?;
    batch.append_audit(&who.user, action, subject, &detail, now)?;
    batch.commit()?;
    Ok(())
}

impl Desk {
    /// The logged-in user exports incident `id`'s report as a PDF, next to the database in
    /// `reports/`; the export is audited. Returns the file's path.
    pub fn export_incident_pdf(&self, id: i64) -> Result<String, ApiError> {
        self.export_incident_pdf_to(id, &self.reports_dir().join(format!("incident-{id}.pdf")))
    }

    /// As [`Desk::export_incident_pdf`], written to `path` (a file the user chose; an existing
    /// one is replaced). Returns the path written.
    pub fn export_incident_pdf_to(&self, id: i64, path: &Path) -> Result<String, ApiError> {
        let subject = format!("incident {id}");
        let who = self.exporter(Command::ExportIncident, &subject)?;
        let document = self.read_verified(|reader| {
            Ok(pitwatch_recording::report::incident_report(
                reader,
                IncidentId(id),
                &self.db_name(),
            )?)
        })?;
        let (written, _) =
            self.write_report(&who, path, document, Command::ExportIncident, &subject)?;
        Ok(written)
    }

    /// Whoever is logged in, if they may run the export `command` of `subject` (a refusal is
    /// audited, see [`may_export`]).
    pub(crate) fn exporter(&self, command: Command, subject: &str) -> Result<Principal, ApiError> {
        let who = self.principal()?;
        may_export(
            &mut self.record.store(),
            &who,
            command,
            subject,
            self.clock.now(),
        )?;
        Ok(who)
    }

    /// What `build` makes of the record read on a connection of its own (a report verifies
    /// every chain, and says so: the incident list and the workflow are not held up meanwhile),
    /// once the record it read is vouched for ([`vouch`]: a record that failed verification
    /// refuses writes and makes nothing).
    pub(crate) fn read_verified<T>(
        &self,
        build: impl FnOnce(&Store) -> Result<T, ApiError>,
    ) -> Result<T, ApiError> {
        let reader = self
            .record
            .installation()
            .open_read_only(self.record.db())?;
        let made = build(&reader)?;
        vouch(&reader, &mut self.record.store())?;
        Ok(made)
    }

    /// The database file's name, as reports print it.
    pub(crate) fn db_name(&self) -> String {
        self.record
            .db()
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    }

    /// `reports/` next to the database: where a report goes when no path is given.
    pub(crate) fn reports_dir(&self) -> PathBuf {
        self.record
            .db()
            .parent()
            .map_or_else(|| PathBuf::from("reports"), |d| d.join("reports"))
    }

    /// Renders `document` (by `user`, now) as a PDF written to `path`, and audits the export as
    /// `action` on `subject`. Returns the path and the pages. A path that is a folder, or whose
    /// folder cannot be written, is refused saying so, with nothing audited as exported.
    fn write_report(
        &self,
        who: &Principal,
        path: &Path,
        document: pitwatch_report::Document,
        command: Command,
        subject: &str,
    ) -> Result<(String, usize), ApiError> {
        let now = self.clock.now();
        if path.as_os_str().is_empty() || path.is_dir() {
            return Err(ApiError::new(
                ErrorCode::InvalidInput,
                format!(
                    "{:?} is a folder, not a file to save the report as: give a file name",
                    path.display().to_string()
                ),
            ));
        }
        let pdf = pitwatch_report::render_pdf(&document.stamped(&who.user, now.as_datetime()))?;
        let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
        dir.map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| std::fs::write(path, &pdf.bytes))
            .map_err(|e| internal(format!("cannot write {}: {e}", path.display())))?;
        let shown = path.display().to_string();
        exported(&mut self.record.store(), who, command, subject, &shown, now)?;
        Ok((shown, pdf.pages))
    }

    /// The logged-in user sends the report written at `path` to a printer through `print`
    /// (the shell's, which answers what the print system said); a print that went is audited
    /// as `report.print` with that answer (a copy of a report leaves the pit too). Nobody
    /// logged in: refused before anything is printed.
    pub fn print_report(
        &self,
        path: &str,
        print: impl FnOnce() -> Result<String, ApiError>,
    ) -> Result<String, ApiError> {
        let who = self.principal()?;
        let answer = print()?;
        let now = self.clock.now();
        let detail = detail(&who.workstation, &[("printed", path), ("answer", &answer)]);
        let mut store = self.record.store();
        let mut batch = store.batch(now)?;
        batch.append_audit(&who.user, "report.print", path, &detail, now)?;
        batch.commit()?;
        Ok(answer)
    }

    /// The shift `query` asks for, checked.
    pub fn shift(query: &ShiftQuery) -> Result<pitwatch_recording::report::Shift, ApiError> {
        let time = |field: &str, text: &str| {
            text.trim().parse::<Timestamp>().map_err(|e| {
                ApiError::new(
                    ErrorCode::InvalidInput,
                    format!("the shift's {field} {text:?} is not a time: {e}"),
                )
            })
        };
        let table = query
            .table
            .as_deref()
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .map(str::to_owned);
        Ok(pitwatch_recording::report::Shift::new(
            time("start", &query.from)?,
            time("end", &query.to)?,
            table,
        )?)
    }

    /// The logged-in user exports the handover report of the shift `query` as a PDF in
    /// `reports/` (audited as `shift.export`).
    pub fn export_shift_report(&self, query: &ShiftQuery) -> Result<ShiftReportFile, ApiError> {
        let shift = Desk::shift(query)?;
        self.export_shift_report_to(query, &self.reports_dir().join(shift_file_name(&shift)))
    }

    /// As [`Desk::export_shift_report`], written to `path` (a file the user chose).
    pub fn export_shift_report_to(
        &self,
        query: &ShiftQuery,
        path: &Path,
    ) -> Result<ShiftReportFile, ApiError> {
        let shift = Desk::shift(query)?;
        let subject = format!("shift {} to {}", shift.from, shift.to);
        let who = self.exporter(Command::ExportShift, &subject)?;
        // The dealers' section is for those who may read the dealers' figures, each table held
        // to the pit definition's target where it gives one.
        let own: std::collections::BTreeMap<String, u32> = self
            .live
            .running()
            .tables
            .iter()
            .filter_map(|t| Some((t.name.clone(), t.pace_target?)))
            .collect();
        let dealers = Command::ViewDealers.allowed(who.role).then_some(&own);
        let document = self.read_verified(|reader| {
            Ok(pitwatch_recording::report::shift_report_with(
                reader,
                &shift,
                &self.db_name(),
                dealers,
            )?)
        })?;
        let (written, pages) =
            self.write_report(&who, path, document, Command::ExportShift, &subject)?;
        Ok(ShiftReportFile {
            path: written,
            pages: u32::try_from(pages).unwrap_or(u32::MAX),
        })
    }
}

/// The shift report's file name: `shift-20261130T060000Z-20261130T180000Z[-TABLE].pdf`.
pub fn shift_file_name(shift: &pitwatch_recording::report::Shift) -> String {
    let stamp = |t: Timestamp| t.as_datetime().format("%Y%m%dT%H%M%SZ").to_string();
    format!(
        "shift-{}-{}{}.pdf",
        stamp(shift.from),
        stamp(shift.to),
        shift
            .table
            .as_deref()
            .map_or_else(String::new, |t| format!("-{t}"))
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::setup::{DeskOptions, DEMO_PASSWORD, DEMO_USER};

    #[test]
    fn a_print_is_refused_before_printing_without_a_login_and_audited_with_the_answer() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let (desk, updates) =
            Desk::start(DeskOptions::demo(dir.path().join("p.db"))).expect("the desk starts");
        drop(updates);
        let mut printed = false;
        let refused = desk
            .print_report("/r/incident-1.pdf", || {
                printed = true;
                Ok("request id is pit-1".into())
            })
            .expect_err("nobody is logged in");
        assert_eq!(refused.code, ErrorCode::Unauthorised);
        assert!(!printed, "nothing is printed for nobody");
        desk.login(DEMO_USER, DEMO_PASSWORD).expect("logged in");
        // A printer that refuses: nothing audited as printed.
        let failed = desk
            .print_report("/r/incident-1.pdf", || {
                Err(ApiError::new(ErrorCode::Conflict, "no default destination"))
            })
            .expect_err("the printer refused");
        assert_eq!(failed.message, "no default destination");
        assert!(desk
            .record
            .store()
            .audit_entries("report.print")
            .expect("audit")
            .is_empty());
        let answer = desk
            .print_report("/r/incident-1.pdf", || Ok("request id is pit-1".into()))
            .expect("printed");
        assert_eq!(answer, "request id is pit-1");
        let rows = desk
            .record
            .store()
            .audit_entries("report.print")
            .expect("audit");
        assert_eq!(rows.len(), 1);
        assert_eq!(
            (rows[0].user.as_str(), rows[0].subject.as_str()),
            (DEMO_USER, "/r/incident-1.pdf")
        );
        let detail: serde_json::Value = serde_json::from_str(&rows[0].detail).expect("JSON");
        assert_eq!(detail["answer"], "request id is pit-1");
        assert!(detail["workstation"].is_string(), "{detail}");
        desk.stop();
    }
}
