//! The window's TypeScript types, generated from the DTOs: `ui/src/lib/bindings.ts` is
//! [`typescript_bindings`], committed. The test `bindings_are_current` fails when the committed
//! file is stale; `make bindings` (or `UPDATE_BINDINGS=1 cargo test -p pitwatch-api`) rewrites it.

use ts_rs::TS;

use crate::dto::*;
use crate::games;
use pitwatch_games::GameKind;
use pitwatch_recording::pit::{DeviceRole, Protocol};

/// The TypeScript declarations of every DTO, for `ui/src/lib/bindings.ts`.
pub fn typescript_bindings() -> String {
    let cfg = ts_rs::Config::new().with_large_int("number");
    let mut decls = vec![
        PitOverview::decl(&cfg),
        RecordStatus::decl(&cfg),
        ReplicationState::decl(&cfg),
        RecordAlert::decl(&cfg),
        UserRow::decl(&cfg),
        AuditRow::decl(&cfg),
        TableTile::decl(&cfg),
        DisabledView::decl(&cfg),
        GameKind::decl(&cfg),
        Protocol::decl(&cfg),
        LinkStatus::decl(&cfg),
        DeviceTile::decl(&cfg),
        DeviceRole::decl(&cfg),
        DeckCheckView::decl(&cfg),
        ShufflerCountersView::decl(&cfg),
        DeviceAlarmView::decl(&cfg),
        DeviceAlarmKind::decl(&cfg),
    ];
    decls.extend(games::play_decls(&cfg));
    decls.extend([
        SeverityCounts::decl(&cfg),
        Severity::decl(&cfg),
        IncidentStatus::decl(&cfg),
        IncidentRow::decl(&cfg),
        IncidentQuery::decl(&cfg),
        IncidentPage::decl(&cfg),
        ShoeRow::decl(&cfg),
        ShuffleQuality::decl(&cfg),
        ShuffleVerdict::decl(&cfg),
        ShoePage::decl(&cfg),
        IncidentDetail::decl(&cfg),
        RuleText::decl(&cfg),
        TimelineEntry::decl(&cfg),
        HistoryEntry::decl(&cfg),
        Session::decl(&cfg),
        DemoLogin::decl(&cfg),
        ConsoleEntry::decl(&cfg),
        PitUpdate::decl(&cfg),
        RecordingStatus::decl(&cfg),
        ShoeReplay::decl(&cfg),
        ReplayStep::decl(&cfg),
    ]);
    decls.extend(games::step_decls(&cfg));
    decls.extend([
        ApiError::decl(&cfg),
        ErrorCode::decl(&cfg),
        ShiftQuery::decl(&cfg),
        ShiftReportFile::decl(&cfg),
        SignedOff::decl(&cfg),
        CentralPit::decl(&cfg),
        CentralTable::decl(&cfg),
        CentralIncidents::decl(&cfg),
        CentralIncidentDetail::decl(&cfg),
    ]);
    // The header names dto.rs, where the DTOs began; it is kept so the file stays byte-identical.
    let mut out = String::from(
        "// Generated from the Rust DTOs in crates/pitwatch-api/src/dto.rs. Do not edit:\n\
         // run `make bindings` after changing them.\n",
    );
    for decl in decls {
        out.push('\n');
        out.push_str("export ");
        out.push_str(decl.trim());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn bindings_are_current() {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../ui/src/lib/bindings.ts");
        let generated = typescript_bindings();
        if std::env::var_os("UPDATE_BINDINGS").is_some() {
            std::fs::write(&path, &generated).unwrap();
        }
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            committed == generated,
            "{} is stale: run `make bindings` and commit it",
            path.display()
        );
    }
}
