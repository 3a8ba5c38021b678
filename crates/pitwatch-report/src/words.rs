//! The words a person reads for the codes the record keeps: irregularity codes, audit actions,
//! severities, and an incident's statuses and steps. Written once, here, for the reports and
//! (the codes, actions and severities generated into `ui/src/lib/bindings.ts` by
//! `pitwatch-api`) the window alike; the code stays beside the words wherever both fit, so a
//! search for `MISSING_THIRD_CARD` still finds "Missing third card (MISSING_THIRD_CARD)".
//!
//! `pitwatch-api`'s tests check that every code the engine and the recorder can raise has words
//! here, so a new code without them fails the build's tests.

/// Every irregularity code with its words, in the order of `docs/irregularities.md`.
pub const IRREGULARITIES: &[(&str, &str)] = &[
    ("BURN_MISSING", "Burn missing"),
    ("BURN_COUNT_MISMATCH", "Wrong number of burn cards"),
    ("DEAL_OUT_OF_ORDER", "Card dealt out of order"),
    ("UNAUTHORISED_THIRD_CARD", "Third card not allowed"),
    ("MISSING_THIRD_CARD", "Missing third card"),
    ("RESULT_MISMATCH", "Declared result differs from the cards"),
    ("EXCESS_CARD", "Foreign or duplicate card"),
    ("UNREADABLE_CARD", "Card not read"),
    ("CUTTING_CARD_MISPLACED", "Cutting card misplaced"),
    ("CUT_TOO_CLOSE_TO_END", "Cut too close to the end"),
    ("DEALT_PAST_LAST_COUP", "Card dealt after the last coup"),
    ("NOT_SHUFFLED", "Cards not shuffled"),
    ("CARD_EXPOSED", "Card exposed"),
    (
        "SHUFFLE_COUNT_MISMATCH",
        "Shuffler's count differs from the shoe",
    ),
    ("DEVICE_ERROR", "Device error"),
    ("SHUFFLE_SUSPECT", "Suspect shuffle"),
    ("CARD_TO_FINISHED_HAND", "Card to a finished hand"),
    (
        "DEALER_DRAW_WRONG",
        "Dealer drew or stood against the rules",
    ),
    ("WRONG_CARD_COUNT", "Wrong number of cards in a hand"),
    ("DECISION_NOT_ALLOWED", "Decision not allowed"),
    ("MISDEAL", "Misdeal"),
    ("MISDEAL_DECLARED", "Misdeal declared"),
    ("MISDEAL_AFTER_ACTION", "Misdeal after substantial action"),
    ("ORDER_DISCLOSED", "Card order disclosed by a device"),
    ("RECORDING_GAP", "Gap in recording"),
    ("DEVICE_OFFLINE", "Device offline"),
    ("DEVICE_SILENT", "Device silent"),
    ("DEVICE_SWAPPED", "Device swapped"),
    ("DEVICE_FIRMWARE_CHANGED", "Device firmware changed"),
    ("DEVICE_REENUMERATED", "Device came up on another port"),
];

/// Every audit action with its words.
pub const AUDIT_ACTIONS: &[(&str, &str)] = &[
    ("login.attempt", "Login attempt"),
    ("login.failed", "Failed login"),
    ("login.throttled", "Login refused (too many failures)"),
    ("login.locked", "Account locked"),
    ("login.refused", "Login refused by the access policy"),
    ("login.confirmed", "Password confirmed"),
    ("session.login", "Logged in"),
    ("session.logout", "Logged out"),
    (
        "session.ended",
        "Session ended by the same user's login elsewhere",
    ),
    ("access.forbidden", "Refused: not allowed"),
    ("access.inspected", "Read by an inspector"),
    ("incidents.list", "Incident list read (inspector)"),
    ("access_listing.export", "Access listing exported"),
    ("review.access", "Access review signed"),
    ("review.log", "Audit log review signed"),
    ("user.first_admin", "First administrator created"),
    ("user.add", "User added"),
    ("user.role", "Role changed"),
    ("user.password", "Password set"),
    ("user.active", "Account activated or deactivated"),
    ("incident.acknowledge", "Incident acknowledged"),
    ("incident.note", "Note added"),
    ("incident.resolve", "Incident resolved"),
    ("incident.reopen", "Incident reopened"),
    ("incident.export", "Incident report exported"),
    ("incident.export_pack", "Incident evidence pack exported"),
    ("incident.view", "Incident looked at"),
    ("replay.view", "Shoe replayed"),
    ("exposure.view", "House exposure looked at (surveillance)"),
    (
        "exposure.export",
        "House exposure report exported (surveillance)",
    ),
    (
        "exposure.alert",
        "A wager in the players' favour round after round (surveillance's alert)",
    ),
    ("console.event", "Console entry recorded"),
    (
        "dealers.view",
        "A dealer's figures looked at (supervisors and administrators)",
    ),
    ("dealers.export", "Dealers' report exported"),
    ("shoe.export", "Shoe report exported"),
    ("shift.export", "Shift report exported"),
    ("report.print", "Report sent to a printer"),
    ("shift.sign_off", "Shift signed off"),
    ("shift.accept", "Shift accepted by the incoming supervisor"),
    ("device.back", "Device back"),
    ("monitor.resumed", "Recording resumed after a restart"),
    ("pit.reload", "Pit definition reloaded"),
    ("alarm.mute", "Alarm sound muted"),
    ("alarm.unmute", "Alarm sound back on"),
];

/// The severities with their words, most severe first.
pub const SEVERITIES: &[(&str, &str)] = &[
    ("critical", "Critical"),
    ("high", "High"),
    ("medium", "Medium"),
    ("low", "Low"),
];

/// An incident's statuses and the steps of its history, with their words.
pub const INCIDENT_STEPS: &[(&str, &str)] = &[
    ("open", "Open"),
    ("opened", "Opened"),
    ("acknowledged", "Acknowledged"),
    ("resolved", "Resolved"),
    ("reopened", "Reopened"),
    ("note", "Note"),
];

fn find(table: &[(&'static str, &'static str)], code: &str) -> Option<&'static str> {
    table.iter().find(|(c, _)| *c == code).map(|(_, w)| *w)
}

/// An irregularity code's words ("Missing third card"), if it has any.
pub fn irregularity(code: &str) -> Option<&'static str> {
    find(IRREGULARITIES, code)
}

/// An irregularity code as a person reads it, the code kept for search: "Missing third card
/// (MISSING_THIRD_CARD)". A code without words (from a newer workstation) is shown as it is.
pub fn irregularity_label(code: &str) -> String {
    match irregularity(code) {
        Some(words) => format!("{words} ({code})"),
        None => code.to_owned(),
    }
}

/// An audit action's words ("User added"); an action without words is shown as it is.
pub fn audit_action(action: &str) -> &str {
    find(AUDIT_ACTIONS, action).unwrap_or(action)
}

/// A severity capitalised ("Critical"); an unknown one is shown as it is.
pub fn severity(name: &str) -> &str {
    find(SEVERITIES, name).unwrap_or(name)
}

/// An incident's status or history step capitalised ("Acknowledged"); an unknown one is shown
/// as it is.
pub fn incident_step(step: &str) -> &str {
    find(INCIDENT_STEPS, step).unwrap_or(step)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_read_as_words_with_the_code_beside_them() {
        assert_eq!(
            irregularity_label("MISSING_THIRD_CARD"),
            "Missing third card (MISSING_THIRD_CARD)"
        );
        assert_eq!(irregularity_label("SOMETHING_NEW"), "SOMETHING_NEW");
        assert_eq!(audit_action("user.add"), "User added");
        assert_eq!(audit_action("user.unknown"), "user.unknown");
        assert_eq!(severity("critical"), "Critical");
        assert_eq!(severity("odd"), "odd");
        assert_eq!(incident_step("acknowledged"), "Acknowledged");
        assert_eq!(incident_step("reopened"), "Reopened");
        assert_eq!(incident_step("escalated"), "escalated");
    }

    #[test]
    fn every_code_has_one_entry_and_words_that_are_not_the_code() {
        for table in [IRREGULARITIES, AUDIT_ACTIONS, SEVERITIES, INCIDENT_STEPS] {
            let mut codes: Vec<&str> = table.iter().map(|(c, _)| *c).collect();
            codes.sort_unstable();
            codes.dedup();
            assert_eq!(codes.len(), table.len(), "a code listed twice");
            for (code, words) in table {
                assert!(!words.is_empty() && words != code, "{code}: {words:?}");
                assert!(
                    words.starts_with(|c: char| c.is_uppercase()),
                    "{code}: {words:?} starts with a capital"
                );
            }
        }
    }
}
