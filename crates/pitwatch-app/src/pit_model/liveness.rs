//! A device's liveness alarm on the pit's tiles ([`pitwatch_recording::liveness`]): the device
//! and its table say since when it is gone (what the tile shows is stale until it is back), and a
//! raised alarm is an alert with its incident.

use pitwatch_api::dto::{IncidentRow, IncidentStatus, Severity};
use pitwatch_model::Timestamp;
use pitwatch_recording::liveness::{AlarmKind, Change};

use super::tile::{Alarm, Tile};
use pitwatch_recording::recorder::clock_time;
use pitwatch_store::IncidentId;

/// A device's liveness alarm raised or cleared: the device and the tile show it (the tile the
/// main device's first), and a raised one is an alert with its incident.
pub(super) fn fold_liveness(
    tile: &mut Tile,
    device: usize,
    change: &Change,
    incident: Option<IncidentId>,
    now: Timestamp,
) -> Option<IncidentRow> {
    match change {
        Change::Raised(alarm) => {
            let view = Alarm {
                kind: alarm.kind,
                since: alarm.since,
                device: u32::try_from(device).unwrap_or(u32::MAX),
                incident: incident.map(|id| id.0),
            };
            if let Some(shown) = tile.devices.get_mut(device) {
                shown.alarm = Some(view);
            }
            if tile.alarm.is_none_or(|a| a.device >= view.device) {
                tile.alarm = Some(view);
            }
            let id = incident?;
            tile.incidents.add(Severity::High, 1);
            let what = match alarm.kind {
                AlarmKind::NeverConnected => "has never connected since",
                AlarmKind::Offline => "has been offline since",
                AlarmKind::Silent => "has sent nothing since",
            };
            Some(IncidentRow {
                id: id.0,
                table: tile.name.clone(),
                code: alarm.kind.code().to_owned(),
                severity: Severity::High,
                rule: "device liveness (no Gazette rule)".to_owned(),
                shoe: Some(tile.shown.shoe),
                round: None,
                seq: 0,
                message: format!(
                    "device {} {what} {} UTC",
                    device + 1,
                    clock_time(alarm.since)
                ),
                opened_at: now.to_string(),
                status: IncidentStatus::Open,
            })
        }
        Change::Cleared { .. } => {
            if let Some(shown) = tile.devices.get_mut(device) {
                shown.alarm = None;
            }
            tile.alarm = tile.devices.iter().find_map(|d| d.alarm);
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::PitModel;
    use pitwatch_recording::liveness::{Alarm, AlarmKind, Change};
    use pitwatch_recording::monitor::MonitorEvent;
    use pitwatch_recording::pit::PitConfig;
    use pitwatch_recording::recorder::Derived;
    use pitwatch_store::IncidentId;

    #[test]
    fn an_offline_device_shows_since_when_raises_an_alert_and_clears_when_back() {
        let mut model = PitModel::new(&PitConfig::demo());
        let at = |ms| pitwatch_model::Timestamp::from_unix_millis(ms).unwrap();
        let alarm = Alarm {
            kind: AlarmKind::Offline,
            since: at(1_764_644_525_000),
            raised: at(1_764_644_535_000),
            threshold_ms: 10_000,
        };
        let event = |change| MonitorEvent::Derived {
            table: "MINI-1".into(),
            derived: Derived::Liveness {
                device: 0,
                change,
                incident: Some(IncidentId(7)),
            },
        };
        let (changed, raised) = model.apply(&event(Change::Raised(alarm)), alarm.raised);
        assert_eq!(changed.as_deref(), Some("MINI-1"));
        let raised = raised.expect("an alert");
        assert_eq!((raised.id, raised.code.as_str()), (7, "DEVICE_OFFLINE"));
        assert_eq!(
            raised.message,
            "device 1 has been offline since 03:02:05 UTC"
        );
        let tile = model.table("MINI-1").unwrap();
        let shown = tile.alarm.expect("the tile's alarm");
        assert_eq!(
            (shown.since_ms, shown.incident),
            (1_764_644_525_000, Some(7))
        );
        assert_eq!(tile.devices[0].alarm, Some(shown));
        let back = Change::Cleared {
            alarm,
            at: at(1_764_644_545_000),
            duration_ms: 20_000,
        };
        let (_, raised) = model.apply(&event(back), at(1_764_644_545_000));
        assert!(raised.is_none());
        let tile = model.table("MINI-1").unwrap();
        assert_eq!((tile.alarm, tile.devices[0].alarm), (None, None));
    }
}
