//! A table's device liveness alarms rebuilt from the record: the same [`Watch`] the monitor's
//! writer ran, fed what the record holds (each device session's start and end, the receive time
//! of every chunk, and whether a shoe was in play after each event, from the replayed stream),
//! gives the alarms live raised and cleared ([`crate::liveness`]: an alarm is dated by its
//! deadline, never by the timer that noticed it).
//!
//! One monitor run at a time: the window `from`..`until` is the run's (the watch starts at
//! `from`, as live at the monitor's start; what is still standing at `until` is raised by then).

use pitwatch_model::Timestamp;
use pitwatch_store::{Store, StoreError};

use crate::liveness::{phase_in_play, Change, Watch};
use crate::pit::{DeviceRole, TableConfig};

/// What the record says happened, in the order it happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Seen {
    Connected,
    Bytes,
    Play(bool),
    Disconnected,
}

/// The liveness changes of `table`'s devices between `from` and `until`, as (device, change),
/// rebuilt from the record.
pub fn liveness(
    store: &Store,
    table: &TableConfig,
    from: Timestamp,
    until: Timestamp,
) -> Result<Vec<(usize, Change)>, StoreError> {
    let Some(id) = store.table_id(&table.name)? else {
        return Err(StoreError::Invalid(format!(
            "no table named {:?} in the record",
            table.name
        )));
    };
    let settings: Vec<String> = table
        .devices
        .iter()
        .map(|d| serde_json::to_string(&d.protocol).unwrap_or_default())
        .collect();
    let parse = |text: &str| -> Result<i64, StoreError> {
        text.parse::<Timestamp>()
            .map(Timestamp::unix_millis)
            .map_err(StoreError::Invalid)
    };
    let (lo, hi) = (from.unix_millis(), until.unix_millis());
    // (time, device, what, order of arrival)
    let mut seen: Vec<(i64, usize, Seen, usize)> = Vec::new();
    let mut order = 0usize;
    let mut push = |at: i64, device: usize, what: Seen, seen: &mut Vec<_>| {
        if (lo..=hi).contains(&at) {
            seen.push((at, device, what, order));
            order += 1;
        }
    };
    for session in store.sessions(id)? {
        let device = settings
            .iter()
            .position(|s| *s == session.device.settings)
            .unwrap_or(0);
        push(
            parse(&session.started_at)?,
            device,
            Seen::Connected,
            &mut seen,
        );
        for (at, _) in store.chunks(session.id)? {
            push(at, device, Seen::Bytes, &mut seen);
        }
        if let Some(end) = &session.ended_at {
            push(parse(end)?, device, Seen::Disconnected, &mut seen);
        }
    }
    // Whether a shoe is in play after each event, at the event's time, for every device (the
    // writer asks after each chunk and console entry).
    let replay = super::rebuild(store, &table.name)?;
    let mut playing = false;
    for step in &replay.steps {
        let now = step
            .view
            .compact_json()
            .get("phase")
            .and_then(|p| p.as_str())
            .is_some_and(phase_in_play);
        if now != playing {
            playing = now;
            if let Some(at) = step.event.at {
                for device in 0..table.devices.len() {
                    push(at.unix_millis(), device, Seen::Play(now), &mut seen);
                }
            }
        }
    }
    seen.sort_by_key(|&(at, device, what, order)| (at, what == Seen::Disconnected, device, order));
    let mut watches: Vec<Watch> = table
        .devices
        .iter()
        .enumerate()
        .map(|(k, d)| Watch::new(table.liveness(k), d.role == DeviceRole::Shoe, from))
        .collect();
    let at = |ms: i64| Timestamp::from_unix_millis(ms).unwrap_or(from);
    let mut out = Vec::new();
    let mut changes = Vec::new();
    for (ms, device, what, _) in seen {
        let Some(watch) = watches.get_mut(device) else {
            continue;
        };
        match what {
            Seen::Connected => watch.connected(at(ms), &mut changes),
            Seen::Bytes => watch.received(at(ms), &mut changes),
            Seen::Play(p) => watch.in_play(at(ms), p, &mut changes),
            Seen::Disconnected => watch.disconnected(at(ms), &mut changes),
        }
        out.extend(changes.drain(..).map(|c| (device, c)));
    }
    for (device, watch) in watches.iter_mut().enumerate() {
        out.extend(watch.advance(until).map(|c| (device, c)));
    }
    Ok(out)
}
