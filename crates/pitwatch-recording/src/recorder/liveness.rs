//! What a device's liveness alarm puts on record ([`crate::liveness`]): an incident when it is
//! raised (`DEVICE_OFFLINE`, `DEVICE_SILENT`, with the device, since when and the threshold in
//! plain words), and, when the device is back, a chained audit row on that incident with how
//! long it was gone (`device.back`).

use super::*;
use crate::liveness::{duration_words, AlarmKind, Change};

/// The incident a device's standing alarm was recorded on: on record, or opened in writes not
/// yet committed (its place in them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AlarmIncident {
    /// On record.
    Known(IncidentId),
    /// Planned in the writes at this place.
    Planned(usize),
}

/// Whether a table whose engine shows `view` has a shoe in play
/// ([`crate::liveness::phase_in_play`]).
pub fn view_in_play(view: &GameView) -> bool {
    view.compact_json()
        .get("phase")
        .and_then(|p| p.as_str())
        .is_some_and(crate::liveness::phase_in_play)
}

/// A `device.back` audit row's detail read back: how long the device was gone (milliseconds),
/// when it was back, and the words after them.
pub fn parse_back(detail: &str) -> Option<(u64, Timestamp, &str)> {
    let (head, words) = detail.split_once(": ")?;
    let (ms, at) = head.split_once(" ms, back at ")?;
    Some((ms.parse().ok()?, at.parse().ok()?, words))
}

/// The time of day of `at`, `HH:MM:SS` (UTC).
pub fn clock_time(at: Timestamp) -> String {
    at.as_datetime().format("%H:%M:%S").to_string()
}

impl TableRecorder {
    /// The device as people name it: `the shoe (angel-eye on /dev/ttyUSB7)`.
    pub(super) fn device_words(&self, device: usize) -> String {
        let Some(stream) = self.devices.get(device) else {
            return format!("device {}", device + 1);
        };
        let protocol = stream.protocol.as_ref().map_or("events", |p| p.name());
        let what = if self.devices.len() > 1 {
            format!("device {}", device + 1)
        } else {
            "the device".to_owned()
        };
        if stream.port.is_empty() {
            format!("{what} ({protocol})")
        } else {
            format!("{what} ({protocol} on {})", stream.port)
        }
    }

    /// Whether the table's engine has a shoe in play ([`crate::liveness::phase_in_play`]).
    pub fn shoe_in_play(&self) -> bool {
        view_in_play(&self.engine.view())
    }

    /// Plans what a liveness change of `device` puts on record; `standing` is the incident of
    /// the alarm standing (updated here: set when one is raised, taken when it clears).
    pub fn plan_liveness(
        &mut self,
        device: usize,
        writes: &mut Writes,
        change: Change,
        standing: &mut Option<AlarmIncident>,
        derived: &mut Vec<PlannedDerived>,
    ) {
        let who = self.device_words(device);
        match change {
            Change::Raised(alarm) => {
                let since = clock_time(alarm.since);
                let threshold = duration_words(alarm.threshold_ms);
                let message = match alarm.kind {
                    AlarmKind::NeverConnected => format!(
                        "Table {}: {who} has never connected since the monitor started at \
                         {since} UTC (not connected within {threshold}). Nothing it deals is \
                         recorded until it connects: check the device, its cable and its port.",
                        self.name
                    ),
                    AlarmKind::Offline => format!(
                        "Table {}: {who} has been offline since {since} UTC (disconnected and \
                         not back within {threshold}). Nothing it deals is recorded until it is \
                         back: check the device, its cable and its port.",
                        self.name
                    ),
                    AlarmKind::Silent => format!(
                        "Table {}: {who} is connected but has sent nothing since {since} UTC \
                         (more than {threshold}{}). Check the device: what is dealt may not be \
                         read.",
                        self.name,
                        if self.shoe_in_play() {
                            " with a shoe in play"
                        } else {
                            ""
                        }
                    ),
                };
                let code = alarm.kind.code();
                let slot = writes.push(Op::Incident {
                    incident: NewIncident {
                        table: self.table,
                        code: code.into(),
                        severity: "high".into(),
                        rule: "device liveness (no Gazette rule)".into(),
                        shoe: Some(self.engine.shoe()),
                        round: None,
                        seq: self.next_seq,
                        evidence: Vec::new(),
                        message,
                    },
                    // A device that drops again before its incident is resolved counts on it.
                    group: Some(GroupRule {
                        key: format!("{code}:{}", device + 1),
                        family: format!("{code}:"),
                        limit: u64::MAX,
                        overflow: format!("{code}:*"),
                    }),
                    now: alarm.raised,
                });
                *standing = Some(AlarmIncident::Planned(slot));
                derived.push(PlannedDerived {
                    derived: Derived::Liveness {
                        device,
                        change,
                        incident: None,
                    },
                    incident: Some(slot),
                });
            }
            Change::Cleared {
                alarm,
                at,
                duration_ms,
            } => {
                let detail = format!(
                    "{duration_ms} ms, back at {at}: {who} is back after {} ({} since {} UTC)",
                    duration_words(duration_ms),
                    match alarm.kind {
                        AlarmKind::Silent => "silent",
                        AlarmKind::NeverConnected => "never connected",
                        AlarmKind::Offline => "offline",
                    },
                    clock_time(alarm.since)
                );
                let (incident, slot, known) = match standing.take() {
                    Some(AlarmIncident::Known(id)) => (RowRef::Known(id), None, Some(id)),
                    Some(AlarmIncident::Planned(slot)) => (RowRef::New(slot), Some(slot), None),
                    None => {
                        derived.push(PlannedDerived::now(Derived::Liveness {
                            device,
                            change,
                            incident: None,
                        }));
                        return;
                    }
                };
                writes.push(Op::Back {
                    incident,
                    detail,
                    now: at,
                });
                derived.push(PlannedDerived {
                    derived: Derived::Liveness {
                        device,
                        change,
                        incident: known,
                    },
                    incident: slot,
                });
            }
        }
    }
}
