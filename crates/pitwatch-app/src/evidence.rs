//! Evidence packs (issue 32): one file per incident that a regulator verifies offline with
//! `pitwatch verify --pack FILE --key KEY` (the pack's format and what it proves:
//! `pitwatch_store::pack`, docs/evidence.md). The same role rule as the incident report (every
//! role may export it; nobody logged in may not), the same vouching (a record that failed
//! verification makes no pack), and an audit row, `incident.export_pack`, written *before* the
//! pack is built so the pack holds its own export among the incident's audit rows. The
//! incident's surveillance log ([`crate::incidents::add_surveillance_log`]) is listed in the
//! manifest.

use std::path::Path;

use pitwatch_api::dto::{ApiError, ErrorCode, EvidencePackFile};
use pitwatch_model::Timestamp;
use pitwatch_store::pack::{PackRequest, SurveillanceEntry};
use pitwatch_store::{IncidentId, Store};

use crate::access::{detail, Command, Principal};
use crate::live::{internal, Desk};

/// The audit action of a pack's export.
pub const EXPORT_PACK: &str = "incident.export_pack";

/// The pack's file name by default: `incident-N.pwpack`.
pub fn pack_file_name(id: i64) -> String {
    format!("incident-{id}.pwpack")
}

/// The incident report that goes into incident `id`'s pack, as a PDF, built from `reader` (a
/// record named `db_name`) and stamped with who makes the pack and when.
pub fn pack_report(
    reader: &Store,
    who: &Principal,
    id: i64,
    db_name: &str,
    now: Timestamp,
) -> Result<Vec<u8>, ApiError> {
    let document = pitwatch_recording::report::incident_report(reader, IncidentId(id), db_name)?;
    Ok(pitwatch_report::render_pdf(&document.stamped(&who.user, now.as_datetime()))?.bytes)
}

/// Audits that `who` exports incident `id`'s pack to `path`, then builds the pack, signed with
/// `store`'s key, around `report_pdf`, and writes it to `path`. A path that is a folder is
/// refused before anything is audited; a file that then cannot be written leaves the audit row
/// (an attempt to take the evidence out) and answers the error.
pub fn write_pack(
    store: &mut Store,
    who: &Principal,
    id: i64,
    report_pdf: &[u8],
    path: &Path,
    now: Timestamp,
) -> Result<EvidencePackFile, ApiError> {
    if path.as_os_str().is_empty() || path.is_dir() {
        return Err(ApiError::new(
            ErrorCode::InvalidInput,
            format!(
                "{:?} is a folder, not a file to save the evidence pack as: give a file name",
                path.display().to_string()
            ),
        ));
    }
    let shown = path.display().to_string();
    let subject = format!("incident {id}");
    let mut batch = store.batch(now)?;
    batch.append_audit(
        &who.user,
        EXPORT_PACK,
        &subject,
        &detail(&who.workstation, &[("written", &shown)]),
        now,
    )?;
    batch.commit()?;
    let surveillance = store
        .incident_history(IncidentId(id))?
        .into_iter()
        .filter(|step| step.what == "note")
        .filter_map(|step| {
            let text = step.text?;
            crate::incidents::is_surveillance_note(&text).then(|| SurveillanceEntry {
                user: step.user.unwrap_or_default(),
                at: step.at,
                text,
            })
        })
        .collect();
    let bytes = store.evidence_pack(&PackRequest {
        incident: IncidentId(id),
        created_at: &now.to_string(),
        created_unix: u64::try_from(now.unix_millis() / 1000).unwrap_or(0),
        created_by: &who.user,
        workstation: &who.workstation,
        report_pdf,
        surveillance,
    })?;
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
    dir.map_or(Ok(()), std::fs::create_dir_all)
        .and_then(|()| std::fs::write(path, &bytes))
        .map_err(|e| internal(format!("cannot write {shown}: {e}")))?;
    let fingerprint = store
        .public_key()
        .map(|k| k.fingerprint())
        .unwrap_or_default();
    Ok(EvidencePackFile {
        path: shown,
        fingerprint,
        bytes: bytes.len() as u64,
    })
}

impl Desk {
    /// The logged-in user exports incident `id`'s evidence pack to `path` (a file the user
    /// chose; an existing one is replaced), audited as [`EXPORT_PACK`].
    pub fn export_evidence_pack_to(
        &self,
        id: i64,
        path: &Path,
    ) -> Result<EvidencePackFile, ApiError> {
        let who = self.exporter(Command::ExportIncident, &format!("incident {id}"))?;
        // The report verifies every chain, on a connection of its own (as the report's export).
        let pdf = self.read_verified(|reader| {
            pack_report(reader, &who, id, &self.db_name(), self.clock.now())
        })?;
        write_pack(
            &mut self.record.store(),
            &who,
            id,
            &pdf,
            path,
            self.clock.now(),
        )
    }

    /// As [`Desk::export_evidence_pack_to`], written next to the database in `reports/`.
    pub fn export_evidence_pack(&self, id: i64) -> Result<EvidencePackFile, ApiError> {
        self.export_evidence_pack_to(id, &self.reports_dir().join(pack_file_name(id)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::setup::{DeskOptions, DEMO_PASSWORD, DEMO_USER};

    #[test]
    fn the_desk_makes_no_pack_for_nobody_nor_of_an_incident_not_on_record() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let (desk, updates) =
            Desk::start(DeskOptions::demo(dir.path().join("p.db"))).expect("the desk starts");
        drop(updates);
        let out = dir.path().join("incident-99.pwpack");
        let nobody = desk
            .export_evidence_pack_to(99, &out)
            .expect_err("nobody is logged in");
        assert_eq!(nobody.code, ErrorCode::Unauthorised);
        desk.login(DEMO_USER, DEMO_PASSWORD).expect("logged in");
        let missing = desk
            .export_evidence_pack_to(99, &out)
            .expect_err("no incident 99");
        assert_eq!(missing.code, ErrorCode::NotFound, "{missing}");
        assert!(!out.exists(), "no file written");
        assert!(
            desk.record
                .store()
                .audit_entries(EXPORT_PACK)
                .expect("audit")
                .is_empty(),
            "nothing audited as exported"
        );
        assert_eq!(pack_file_name(7), "incident-7.pwpack");
        desk.stop();
    }
}
