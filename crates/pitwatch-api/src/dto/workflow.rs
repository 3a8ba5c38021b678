//! The accountable steps as the window sees them: how an incident was resolved (chosen from a
//! list, with written text), and a shift's handover (what is handed over, the sign-off and the
//! incoming supervisor's acceptance).

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::{LinkStatus, SeverityCounts};

/// How an incident was resolved, chosen from a list; written text goes beside it (required for
/// [`ResolutionKind::Other`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ResolutionKind {
    /// The irregularity happened and was handled as the procedure says.
    Confirmed,
    /// Nothing happened at the table: the device misread.
    FalseAlarm,
    /// The same irregularity as another incident.
    Duplicate,
    /// Something else, said in the written text.
    Other,
}

impl ResolutionKind {
    /// Every resolution, in the order the window lists them.
    pub const ALL: [ResolutionKind; 4] = [
        ResolutionKind::Confirmed,
        ResolutionKind::FalseAlarm,
        ResolutionKind::Duplicate,
        ResolutionKind::Other,
    ];

    /// Its name as sent and typed (`false_alarm`).
    pub const fn name(self) -> &'static str {
        match self {
            ResolutionKind::Confirmed => "confirmed",
            ResolutionKind::FalseAlarm => "false_alarm",
            ResolutionKind::Duplicate => "duplicate",
            ResolutionKind::Other => "other",
        }
    }

    /// The resolution named `name` (`false_alarm` or `false-alarm`).
    pub fn parse(name: &str) -> Option<ResolutionKind> {
        let name = name.trim().replace('-', "_");
        ResolutionKind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// Its words, as the incident's history, its report and the audit trail keep them.
    pub const fn words(self) -> &'static str {
        match self {
            ResolutionKind::Confirmed => "Confirmed irregularity — handled per procedure",
            ResolutionKind::FalseAlarm => "False alarm — device misread",
            ResolutionKind::Duplicate => "Duplicate",
            ResolutionKind::Other => "Other",
        }
    }

    /// The resolution as recorded: the words, then the written text after a colon; for
    /// [`ResolutionKind::Other`] the written text alone, which it requires. `None` when the text
    /// a resolution requires is missing.
    pub fn recorded(self, text: &str) -> Option<String> {
        let text = text.trim();
        match (self, text.is_empty()) {
            (ResolutionKind::Other, true) => None,
            (ResolutionKind::Other, false) => Some(text.to_owned()),
            (_, true) => Some(self.words().to_owned()),
            (_, false) => Some(format!("{}: {text}", self.words())),
        }
    }
}

/// A device of a table that is not connected, as the handover lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct DeviceDown {
    /// The table.
    pub table: String,
    /// What the device is at the table (`shoe`, `shuffler`, `console`).
    pub device: String,
    /// Its link's state.
    pub status: LinkStatus,
    /// What its link last said.
    pub detail: String,
}

/// A table that is not in play, as the handover lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct TableDown {
    /// The table.
    pub table: String,
    /// `closed` (its last recorded state) or `disabled` (its section of the pit definition is
    /// wrong).
    pub state: String,
    /// Why, in words.
    pub why: String,
}

/// A hand-over sign-off on record, with the incoming supervisor's acceptance beside it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SignOffRow {
    /// Who signed off.
    pub user: String,
    /// When (RFC 3339).
    pub at: String,
    /// The period's start (RFC 3339).
    pub from: String,
    /// The period's end (RFC 3339).
    pub to: String,
    /// The table signed off, or every table.
    pub table: Option<String>,
    /// What the outgoing supervisor wrote for the next shift.
    pub note: String,
    /// Where it was signed off, when known.
    pub workstation: Option<String>,
    /// The incoming supervisor who accepted the handover (sign-offs recorded before acceptance
    /// was asked for have none).
    pub accepted_by: Option<String>,
    /// When they accepted it (RFC 3339).
    pub accepted_at: Option<String>,
}

/// What a shift hands over, shown before it is signed off.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct HandoverSummary {
    /// Incidents not resolved now (open or acknowledged), by severity, at the tables signed off.
    pub open_incidents: SeverityCounts,
    /// How many of them nobody has acknowledged.
    pub unacknowledged: u32,
    /// Devices not connected now.
    pub devices_down: Vec<DeviceDown>,
    /// Tables closed or disabled now.
    pub tables_down: Vec<TableDown>,
    /// Sign-offs on record at this workstation whose period overlaps this one: signing off
    /// again is refused while there is one.
    pub signed: Vec<SignOffRow>,
}

/// A handover to sign off: the outgoing supervisor (logged in) confirms with their password, and
/// the incoming supervisor accepts with theirs.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SignOffRequest {
    /// What the next shift should know.
    pub note: String,
    /// The password of the user signing off (checked as a login's is).
    pub password: String,
    /// The incoming supervisor's user name (someone else).
    pub incoming: String,
    /// The incoming supervisor's password (checked as a login's is).
    pub incoming_password: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_resolution_is_recorded_as_its_words_and_the_text_and_other_needs_text() {
        assert_eq!(
            ResolutionKind::FalseAlarm.recorded("  "),
            Some("False alarm — device misread".into())
        );
        assert_eq!(
            ResolutionKind::Confirmed.recorded(" reshuffled "),
            Some("Confirmed irregularity — handled per procedure: reshuffled".into())
        );
        assert_eq!(ResolutionKind::Other.recorded(" "), None);
        assert_eq!(
            ResolutionKind::Other.recorded("Shoe reshuffled"),
            Some("Shoe reshuffled".into())
        );
        for kind in ResolutionKind::ALL {
            assert_eq!(ResolutionKind::parse(kind.name()), Some(kind));
        }
        assert_eq!(
            ResolutionKind::parse("false-alarm"),
            Some(ResolutionKind::FalseAlarm)
        );
        assert_eq!(ResolutionKind::parse("fixed"), None);
    }
}
