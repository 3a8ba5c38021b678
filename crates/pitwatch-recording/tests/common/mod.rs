//! Helpers the monitor's integration tests share: a barcode card's bytes, and waiting for what
//! the monitor publishes.

#![allow(dead_code, reason = "each test file uses the helpers it needs")]

use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

use pitwatch_recording::monitor::{LinkState, MonitorEvent};

/// The bytes a barcode shoe sends for `text` (`AS`, `TD`, …).
pub fn card(text: &str) -> Vec<u8> {
    pitwatch_barcode::encode_card(text.parse().unwrap())
}

/// Everything the monitor publishes until `matches` holds (that event included), waiting at
/// most 10 s.
pub fn wait_for(
    events: &Receiver<MonitorEvent>,
    what: &str,
    matches: impl FnMut(&MonitorEvent) -> bool,
) -> Vec<MonitorEvent> {
    wait_for_within(events, what, Duration::from_secs(10), matches)
}

/// [`wait_for`], waiting at most `limit`; on a timeout the panic shows the last 20 events seen.
pub fn wait_for_within(
    events: &Receiver<MonitorEvent>,
    what: &str,
    limit: Duration,
    mut matches: impl FnMut(&MonitorEvent) -> bool,
) -> Vec<MonitorEvent> {
    let deadline = Instant::now() + limit;
    let mut seen = Vec::new();
    while Instant::now() < deadline {
        if let Ok(event) = events.recv_timeout(Duration::from_millis(50)) {
            let hit = matches(&event);
            seen.push(event);
            if hit {
                return seen;
            }
        }
    }
    let tail: Vec<_> = seen.iter().rev().take(20).collect();
    panic!("timed out waiting for {what}; last seen {tail:#?}");
}

/// Waits until both devices of a two-device table have their links up (each its own, in either
/// order).
pub fn both_links_up(events: &Receiver<MonitorEvent>) {
    let mut up = [false, false];
    wait_for(events, "both links", |e| {
        if let MonitorEvent::Link {
            device,
            state: LinkState::Connected,
            ..
        } = e
        {
            if let Some(slot) = up.get_mut(*device) {
                *slot = true;
            }
        }
        up == [true, true]
    });
}
