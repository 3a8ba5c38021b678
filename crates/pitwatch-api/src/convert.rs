//! Conversions from the core's types (events, stored incidents, frames) to what the window and
//! the CLI show: one place, so every front end says the same thing. A game's rounds are converted
//! in its own module of [`crate::games`].

use pitwatch_store::Status;

use crate::dto::{IncidentRow, IncidentStatus, Severity};

pub use pitwatch_games::report::pays;
/// An event in words, for timelines (the reports' words, the same in the window).
pub use pitwatch_recording::report::describe;

/// An incident's status as the window shows it.
pub fn status_dto(status: Status) -> IncidentStatus {
    match status {
        Status::Open => IncidentStatus::Open,
        Status::Acknowledged => IncidentStatus::Acknowledged,
        Status::Resolved => IncidentStatus::Resolved,
    }
}

/// The store's status for the window's.
pub fn status_store(status: IncidentStatus) -> Status {
    match status {
        IncidentStatus::Open => Status::Open,
        IncidentStatus::Acknowledged => Status::Acknowledged,
        IncidentStatus::Resolved => Status::Resolved,
    }
}

/// A stored incident as a row of the incident list.
pub fn incident_row(incident: &pitwatch_store::Incident) -> IncidentRow {
    IncidentRow {
        id: incident.id.0,
        table: incident.table.clone(),
        code: incident.code.clone(),
        severity: Severity::parse(&incident.severity),
        rule: incident.rule.clone(),
        shoe: incident.shoe,
        round: incident.round,
        seq: incident.seq,
        message: incident.message.clone(),
        opened_at: incident.opened_at.clone(),
        status: status_dto(incident.status),
    }
}

/// Frame bytes for people: printable ASCII as is, anything else as `<hex>`.
pub fn printable(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for &b in bytes {
        if (0x20..0x7f).contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("<{b:02X}>"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_print_their_control_bytes_as_hex() {
        assert_eq!(printable(b"\x02P1 9S\x03"), "<02>P1 9S<03>");
        assert_eq!(printable(&[0xFF, b'a']), "<FF>a");
    }

    #[test]
    fn a_payout_reads_with_its_sign() {
        assert_eq!(pays(1.5), "+1.5");
        assert_eq!(pays(-2.0), "-2");
        assert_eq!(pays(0.0), "0");
    }
}
