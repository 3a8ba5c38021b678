//! The window's TypeScript types, generated from the DTOs: `ui/src/lib/bindings.ts` is
//! [`typescript_bindings`], committed. The test `bindings_are_current` fails when the committed
//! file is stale; `make bindings` (or `UPDATE_BINDINGS=1 cargo test -p pitwatch-api`) rewrites it.

use ts_rs::TS;

use crate::dto::*;
use crate::games;
use pitwatch_games::GameKind;
use pitwatch_recording::pit::{DeviceRole, Protocol};
use pitwatch_report::words;

/// The TypeScript declarations of every DTO, for `ui/src/lib/bindings.ts`.
pub fn typescript_bindings() -> String {
    let cfg = ts_rs::Config::new().with_large_int("number");
    let mut decls = vec![
        PitOverview::decl(&cfg),
        BuildInfo::decl(&cfg),
        RecordStatus::decl(&cfg),
        ReplicationState::decl(&cfg),
        RecordAlert::decl(&cfg),
        UserRow::decl(&cfg),
        AuditRow::decl(&cfg),
        AccessUser::decl(&cfg),
        RoleAccess::decl(&cfg),
        AccessListing::decl(&cfg),
        ReviewRow::decl(&cfg),
        ReviewStatus::decl(&cfg),
        ReviewAlert::decl(&cfg),
        AccessReviewRequest::decl(&cfg),
        LogReviewRequest::decl(&cfg),
        TableTile::decl(&cfg),
        DisabledView::decl(&cfg),
        GameKind::decl(&cfg),
        Protocol::decl(&cfg),
        LinkStatus::decl(&cfg),
        DeviceTile::decl(&cfg),
        DeviceIdentityView::decl(&cfg),
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
        PitReload::decl(&cfg),
        ChangedTableView::decl(&cfg),
        SerialPortView::decl(&cfg),
        TableDraft::decl(&cfg),
        BookView::decl(&cfg),
        DeviceHealthBoard::decl(&cfg),
        DeviceHealthView::decl(&cfg),
        BookFieldView::decl(&cfg),
        BookSectionView::decl(&cfg),
        BookVariantView::decl(&cfg),
        BookParameterView::decl(&cfg),
        LinkDraft::decl(&cfg),
        SerialLine::decl(&cfg),
        LineParity::decl(&cfg),
        LineFlow::decl(&cfg),
        LinkTestRequest::decl(&cfg),
        LinkTestView::decl(&cfg),
        TestFrameView::decl(&cfg),
        ShoeReplay::decl(&cfg),
        ReplayStep::decl(&cfg),
    ]);
    decls.extend(games::step_decls(&cfg));
    decls.extend([
        ApiError::decl(&cfg),
        ErrorCode::decl(&cfg),
        ShiftQuery::decl(&cfg),
        ShiftReportFile::decl(&cfg),
        EvidencePackFile::decl(&cfg),
        SurveillanceLog::decl(&cfg),
        SignedOff::decl(&cfg),
        ResolutionKind::decl(&cfg),
        DeviceDown::decl(&cfg),
        TableDown::decl(&cfg),
        SignOffRow::decl(&cfg),
        HandoverSummary::decl(&cfg),
        SignOffRequest::decl(&cfg),
        CentralPit::decl(&cfg),
        CentralTable::decl(&cfg),
        CentralIncidents::decl(&cfg),
        CentralIncidentDetail::decl(&cfg),
        ExposureFigure::decl(&cfg),
        ExposureRound::decl(&cfg),
        WagerBehind::decl(&cfg),
        ShoeExposure::decl(&cfg),
        ExposureAlert::decl(&cfg),
        TableExposure::decl(&cfg),
        PitExposure::decl(&cfg),
        ReportFormat::decl(&cfg),
        PaceAlertView::decl(&cfg),
        PaceTargetView::decl(&cfg),
        StintView::decl(&cfg),
        CodeCount::decl(&cfg),
        DealerFiguresView::decl(&cfg),
        DealersView::decl(&cfg),
    ]);
    let mut out = String::from(
        "// Generated from the Rust DTOs in crates/pitwatch-api (src/dto.rs and src/games/).\n\
         // Do not edit: run `make bindings` after changing them.\n",
    );
    for decl in decls {
        out.push('\n');
        out.push_str("export ");
        out.push_str(decl.trim());
        out.push('\n');
    }
    out.push_str(&words_table(
        "IRREGULARITY_WORDS",
        "Every irregularity code's words (pitwatch-report's `words.rs`, the reports' too).",
        words::IRREGULARITIES,
    ));
    out.push_str(&words_table(
        "AUDIT_ACTION_WORDS",
        "Every audit action's words (pitwatch-report's `words.rs`, the reports' too).",
        words::AUDIT_ACTIONS,
    ));
    let resolutions: Vec<(&str, &str)> = ResolutionKind::ALL
        .iter()
        .map(|k| (k.name(), k.words()))
        .collect();
    out.push_str(&words_table(
        "RESOLUTION_WORDS",
        "Every resolution's words, as the record keeps them (`ResolutionKind::words`).",
        &resolutions,
    ));
    out
}

/// A table of words as a TypeScript constant, its keys and words as JSON strings.
fn words_table(name: &str, doc: &str, table: &[(&str, &str)]) -> String {
    let mut out = format!(
        "\n/**\n * {doc}\n */\nexport const {name}: Readonly<Record<string, string>> = {{\n"
    );
    for (code, words) in table {
        let (code, words) = (json(code), json(words));
        out.push_str(&format!("  {code}: {words},\n"));
    }
    out.push_str("};\n");
    out
}

fn json(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_else(|_| format!("{text:?}"))
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

    #[test]
    fn every_code_the_engine_and_the_recorder_can_raise_has_words() {
        let raised = pitwatch_rules::IrregularityCode::ALL
            .iter()
            .map(|c| c.as_str())
            .chain([
                pitwatch_recording::recorder::RECORDING_GAP,
                pitwatch_recording::liveness::DEVICE_OFFLINE,
                pitwatch_recording::liveness::DEVICE_SILENT,
                pitwatch_recording::recorder::DEVICE_SWAPPED,
                pitwatch_recording::recorder::DEVICE_FIRMWARE_CHANGED,
                pitwatch_recording::recorder::DEVICE_REENUMERATED,
            ]);
        for code in raised {
            assert!(
                words::irregularity(code).is_some(),
                "{code} has no words: add them to crates/pitwatch-report/src/words.rs"
            );
        }
        // And no words for a code nothing raises any more.
        for (code, _) in words::IRREGULARITIES {
            let known = pitwatch_rules::IrregularityCode::ALL
                .iter()
                .any(|c| c.as_str() == *code)
                || [
                    pitwatch_recording::recorder::RECORDING_GAP,
                    pitwatch_recording::liveness::DEVICE_OFFLINE,
                    pitwatch_recording::liveness::DEVICE_SILENT,
                    pitwatch_recording::recorder::DEVICE_SWAPPED,
                    pitwatch_recording::recorder::DEVICE_FIRMWARE_CHANGED,
                    pitwatch_recording::recorder::DEVICE_REENUMERATED,
                ]
                .contains(code);
            assert!(known, "{code} has words but no code raises it");
        }
    }

    #[test]
    fn every_severity_has_words() {
        for s in [
            Severity::Critical,
            Severity::High,
            Severity::Medium,
            Severity::Low,
        ] {
            let name = serde_json::to_value(s).unwrap();
            let name = name.as_str().unwrap();
            assert_ne!(words::severity(name), name, "{name}");
        }
    }
}
