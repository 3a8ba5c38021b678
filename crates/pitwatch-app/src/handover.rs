//! The shift handover's accountable steps: what a shift hands over (open incidents by severity,
//! devices not connected, tables closed or disabled), shown before signing; the sign-off, with
//! the outgoing supervisor's password checked as a login's is; the incoming supervisor's
//! acceptance (another user, with their own password) recorded beside it; and the refusal of a
//! period already signed off at this workstation.
//!
//! The sign-off is the `shift.sign_off` audit row the shift report reads
//! (`pitwatch_recording::report::SignOff`), the acceptance a `shift.accept` row naming it, both
//! written in one transaction after the check that no sign-off of an overlapping period is on
//! record (checked again inside it).

use pitwatch_api::dto::{
    ApiError, DeviceDown, ErrorCode, HandoverSummary, LinkStatus, Severity, SeverityCounts,
    ShiftQuery, SignOffRequest, SignOffRow, SignedOff, TableDown, TableTile,
};
use pitwatch_model::Timestamp;
pub use pitwatch_recording::report::{Acceptance, SHIFT_ACCEPT};
use pitwatch_recording::report::{Shift, SignOff, SHIFT_SIGN_OFF};
use pitwatch_store::{AuditEntry, IncidentFilter, Status, Store};

use crate::access::{require, Command, Principal};
use crate::accounts::{confirm_password, Policy};
use crate::live::Desk;

/// A handover to sign off: the shift, the note for the next shift, and both passwords.
#[derive(Debug, Clone, Copy)]
pub struct Handover<'a> {
    /// The shift handed over.
    pub shift: &'a Shift,
    /// What the next shift should know.
    pub note: &'a str,
    /// The outgoing (signing) user's password.
    pub password: &'a str,
    /// The incoming supervisor's user name.
    pub incoming: &'a str,
    /// Their password.
    pub incoming_password: &'a str,
}

fn subject(shift: &Shift) -> String {
    format!("shift {} to {}", shift.from, shift.to)
}

/// Whether `signed` (a sign-off on record) covers part of `shift` at `workstation`: the periods
/// overlap, the tables meet (every table meets every one), and it was signed here (a sign-off
/// recorded before workstations were kept counts as here).
fn overlaps(signed: &SignOff, shift: &Shift, workstation: &str) -> bool {
    let period = signed.from < shift.to && signed.to > shift.from;
    let tables = match (&signed.table, &shift.table) {
        (Some(a), Some(b)) => a == b,
        _ => true,
    };
    let here = signed
        .workstation
        .as_deref()
        .is_none_or(|w| w == workstation);
    period && tables && here
}

/// The sign-offs among `entries` overlapping `shift` at `workstation`, each with its acceptance
/// from `accepted`, oldest first.
fn rows(
    entries: &[AuditEntry],
    accepted: &[AuditEntry],
    shift: &Shift,
    workstation: &str,
) -> Vec<SignOffRow> {
    let acceptances: Vec<(Acceptance, &AuditEntry)> = accepted
        .iter()
        .filter_map(|e| Some((serde_json::from_str(&e.detail).ok()?, e)))
        .collect();
    entries
        .iter()
        .filter_map(|entry| {
            let signed: SignOff = serde_json::from_str(&entry.detail).ok()?;
            if !overlaps(&signed, shift, workstation) {
                return None;
            }
            let acceptance = acceptances.iter().find(|(a, _)| a.sign_off == entry.id);
            Some(SignOffRow {
                user: entry.user.clone(),
                at: entry.at.clone(),
                from: signed.from.to_string(),
                to: signed.to.to_string(),
                table: signed.table,
                note: signed.note,
                workstation: signed.workstation,
                accepted_by: acceptance.map(|(_, e)| e.user.clone()),
                accepted_at: acceptance.map(|(_, e)| e.at.clone()),
            })
        })
        .collect()
}

/// The sign-offs on record at `workstation` whose period overlaps `shift`, with their
/// acceptances.
pub fn signed_off(
    store: &Store,
    shift: &Shift,
    workstation: &str,
) -> Result<Vec<SignOffRow>, ApiError> {
    Ok(rows(
        &store.audit_entries(SHIFT_SIGN_OFF)?,
        &store.audit_entries(SHIFT_ACCEPT)?,
        shift,
        workstation,
    ))
}

/// The refusal of a period already signed off (by `done`, the first on record).
fn already_signed(done: &SignOffRow) -> ApiError {
    ApiError::new(
        ErrorCode::Conflict,
        format!(
            "this period is already signed off: {} signed off {} to {} ({}) at {}{}; a period is \
             signed off once",
            done.user,
            done.from,
            done.to,
            done.table
                .as_deref()
                .map_or_else(|| "every table".to_owned(), |t| format!("table {t}")),
            done.at,
            done.workstation
                .as_deref()
                .map_or_else(String::new, |w| format!(" at {w}")),
        ),
    )
}

/// `who` signs off the handover of `handover.shift`, confirming with their password, and the
/// incoming supervisor accepts it with theirs; both passwords are checked as a login's are
/// (under `policy`; throttled, failures audited), the incoming supervisor must be another user
/// whose role may sign off, and a period that overlaps one already signed off at `who`'s
/// workstation is refused (`conflict`) before any password is tried.
pub fn sign_off(
    policy: &Policy,
    store: &mut Store,
    who: &Principal,
    handover: &Handover<'_>,
    now: Timestamp,
) -> Result<SignedOff, ApiError> {
    let shift = handover.shift;
    let subject = subject(shift);
    require(store, who, Command::SignOffShift, &subject, now)?;
    let incoming = handover.incoming.trim();
    if incoming.is_empty() {
        return Err(ApiError::new(
            ErrorCode::InvalidInput,
            "the incoming supervisor accepts the handover: give their user name and password",
        ));
    }
    if incoming == who.user {
        return Err(ApiError::new(
            ErrorCode::InvalidInput,
            format!(
                "the incoming supervisor must be someone other than {}, who signs off",
                who.user
            ),
        ));
    }
    if let Some(done) = signed_off(store, shift, &who.workstation)?.first() {
        return Err(already_signed(done));
    }
    let password = |store: &mut Store, name: &str, secret: &str, purpose: &str| {
        confirm_password(policy, store, name, secret, &who.workstation, purpose, now).map_err(|e| {
            ApiError::new(
                e.code,
                format!("the password of {name:?} was not accepted: {e}"),
            )
        })
    };
    password(store, &who.user, handover.password, SHIFT_SIGN_OFF)?;
    let role = password(store, incoming, handover.incoming_password, SHIFT_ACCEPT)?;
    let accepting = Principal {
        user: incoming.to_owned(),
        role,
        workstation: who.workstation.clone(),
    };
    require(store, &accepting, Command::SignOffShift, &subject, now)?;

    let sign_off = SignOff {
        from: shift.from,
        to: shift.to,
        table: shift.table.clone(),
        note: handover.note.trim().to_owned(),
        workstation: Some(who.workstation.clone()),
    };
    let mut batch = store.batch(now)?;
    // Checked again where it is written: no other sign-off can come between.
    let on_record = rows(
        &batch.audit_entries(SHIFT_SIGN_OFF)?,
        &[],
        shift,
        &who.workstation,
    );
    if let Some(done) = on_record.first() {
        return Err(already_signed(done));
    }
    let id = batch.append_audit(&who.user, SHIFT_SIGN_OFF, &subject, &json(&sign_off)?, now)?;
    let acceptance = Acceptance {
        sign_off: id,
        signed_off_by: who.user.clone(),
        from: shift.from,
        to: shift.to,
        table: shift.table.clone(),
        workstation: who.workstation.clone(),
    };
    batch.append_audit(incoming, SHIFT_ACCEPT, &subject, &json(&acceptance)?, now)?;
    batch.commit()?;
    Ok(SignedOff {
        user: who.user.clone(),
        at: now.to_string(),
        accepted_by: incoming.to_owned(),
    })
}

/// `value` as the JSON an audit row's detail holds.
fn json<T: serde::Serialize>(value: &T) -> Result<String, ApiError> {
    serde_json::to_string(value)
        .map_err(|e| ApiError::new(ErrorCode::Internal, format!("cannot record it: {e}")))
}

/// What `shift` hands over now: the unresolved incidents at its tables by severity (and how many
/// nobody acknowledged), from `store`; the devices not connected and the tables disabled, from
/// `tiles`; the tables whose last recorded state is closed; and the sign-offs of an overlapping
/// period already on record at `workstation`.
pub fn summary(
    store: &Store,
    tiles: &[TableTile],
    shift: &Shift,
    workstation: &str,
) -> Result<HandoverSummary, ApiError> {
    let covers = |table: &str| shift.table.as_deref().is_none_or(|t| t == table);
    let mut open_incidents = SeverityCounts::default();
    for count in store.open_counts()?.iter().filter(|c| covers(&c.table)) {
        for _ in 0..count.count.min(u64::from(u32::MAX)) {
            open_incidents.add(Severity::parse(&count.severity));
        }
    }
    let unacknowledged = store
        .incident_page(
            &IncidentFilter {
                table: shift.table.clone(),
                status: Some(Status::Open),
                ..Default::default()
            },
            None,
            1,
        )?
        .total;
    let mut devices_down = Vec::new();
    let mut tables_down = Vec::new();
    for tile in tiles.iter().filter(|t| covers(&t.name)) {
        if let Some(disabled) = &tile.disabled {
            tables_down.push(TableDown {
                table: tile.name.clone(),
                state: "disabled".into(),
                why: format!(
                    "disabled: its section of the pit definition (line {}) is wrong: {}",
                    disabled.line,
                    disabled.problems.join("; ")
                ),
            });
            continue;
        }
        for device in tile
            .devices
            .iter()
            .filter(|d| d.status != LinkStatus::Connected)
        {
            devices_down.push(DeviceDown {
                table: tile.name.clone(),
                device: device.role.as_str().to_owned(),
                status: device.status,
                detail: device.status_detail.clone(),
            });
        }
    }
    for (table, state) in store.table_states()? {
        let in_pit = tiles
            .iter()
            .any(|t| t.name == table && t.disabled.is_none());
        if state == "closed" && in_pit && covers(&table) {
            tables_down.push(TableDown {
                table,
                state,
                why: "closed (its last recorded state)".into(),
            });
        }
    }
    Ok(HandoverSummary {
        open_incidents,
        unacknowledged: u32::try_from(unacknowledged).unwrap_or(u32::MAX),
        devices_down,
        tables_down,
        signed: signed_off(store, shift, workstation)?,
    })
}

impl Desk {
    /// What the shift `query` hands over now (see [`summary`]).
    pub fn handover_summary(&self, query: &ShiftQuery) -> Result<HandoverSummary, ApiError> {
        let shift = Desk::shift(query)?;
        let tiles = self.live.model().tables();
        summary(
            &self.record.store(),
            &tiles,
            &shift,
            self.workstation.name(),
        )
    }

    /// The logged-in user signs off the handover of the shift `query`, accepted by the incoming
    /// supervisor (see [`sign_off`]); later shift reports of that period show it.
    pub fn sign_off_shift(
        &self,
        query: &ShiftQuery,
        request: &SignOffRequest,
    ) -> Result<SignedOff, ApiError> {
        let who = self.principal()?;
        let shift = Desk::shift(query)?;
        let handover = Handover {
            shift: &shift,
            note: &request.note,
            password: &request.password,
            incoming: &request.incoming,
            incoming_password: &request.incoming_password,
        };
        sign_off(
            &self.policy(),
            &mut self.record.store(),
            &who,
            &handover,
            self.clock.now(),
        )
    }
}
