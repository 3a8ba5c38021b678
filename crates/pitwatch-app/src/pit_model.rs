//! The live pit model: one tile per table ([`Tile`], the model's own), folded from the monitor's
//! events (already on record) and the engines' own views; what the pit overview and each table
//! view show, made the window's `TableTile` only when sent. What a game puts on a tile (its
//! view, its completed rounds) is that game's fold in the boundary's registry
//! (`pitwatch_api::games::show_view_on`, `take_round`), so nothing here names a game.

use std::collections::HashMap;

use pitwatch_api::dto::{
    DeckCheckView, IncidentRow, IncidentStatus, LinkStatus, Severity, TableTile,
};
use pitwatch_games::GameView;
use pitwatch_model::{EventKind, TableEvent, Timestamp};
use pitwatch_recording::monitor::{LinkState, MonitorEvent};
use pitwatch_recording::pit::{DeviceRole, PitConfig};
use pitwatch_recording::recorder::Derived;
use pitwatch_rules::TableOutput as Output;
use pitwatch_store::OpenCount;

mod liveness;
use liveness::fold_liveness;
mod reload;
mod tile;
pub use tile::Tile;
use tile::{Counters, Counts, Link};

/// The live pit: one tile per table, from the monitor's events. The shoe state on a tile (the
/// shoe, the round being dealt, cards dealt and left, the burn, the cutting card) is the table's
/// engine's own view, published by the monitor after each recorded input; the desk folds only
/// what the engine does not keep: the link, frame counts, the shoe's completed rounds (the roads)
/// and the incident counts.
#[derive(Debug, Clone)]
pub struct PitModel {
    tables: Vec<Tile>,
    index: HashMap<String, usize>,
    /// Per table, the device errors its device has raised and not cleared, oldest first, as
    /// (code, what the tile says of it).
    device_errors: Vec<Vec<(String, String)>>,
    /// Per table, device errors the engine has open that this model never saw raised (raised
    /// before a restart: the engine carries them, their texts are in the record only).
    carried_errors: Vec<u32>,
}

impl PitModel {
    /// Tiles for every table of `pit`, nothing live yet.
    pub fn new(pit: &PitConfig) -> PitModel {
        let mut tables: Vec<Tile> = pit.tables.iter().map(Tile::new).collect();
        let mut index: HashMap<String, usize> = tables
            .iter()
            .enumerate()
            .map(|(i, t)| (t.name.clone(), i))
            .collect();
        // The tables whose sections are wrong, shown disabled with their problems after the
        // others (a name another table has keeps that table's events).
        for disabled in &pit.disabled {
            let tile = Tile::disabled(disabled);
            index.entry(tile.name.clone()).or_insert(tables.len());
            tables.push(tile);
        }
        let device_errors = vec![Vec::new(); tables.len()];
        let carried_errors = vec![0; tables.len()];
        PitModel {
            tables,
            index,
            device_errors,
            carried_errors,
        }
    }

    /// The tiles as the window shows them, in the pit definition's order.
    pub fn tables(&self) -> Vec<TableTile> {
        self.tables.iter().map(Tile::view).collect()
    }

    /// The tile of `name` as the window shows it.
    pub fn table(&self, name: &str) -> Option<TableTile> {
        self.tile(name).map(Tile::view)
    }

    /// The game dealt at `name`.
    pub fn game(&self, name: &str) -> Option<pitwatch_games::GameKind> {
        self.tile(name).map(|t| t.game)
    }

    /// `name`'s tile as the window shows it, to send it; the tile's events count as sent from
    /// now on (see [`TableTile::oldest_unsent_at_ms`]).
    pub fn take_unsent(&mut self, name: &str) -> Option<TableTile> {
        let tile = self.tables.get_mut(*self.index.get(name)?)?;
        let copy = tile.view();
        tile.oldest_unsent_at_ms = None;
        Some(copy)
    }

    /// Sets every table's unresolved-incident counts (open or acknowledged, by severity) from
    /// the store's counts; a table the pit does not have is left out.
    pub fn set_incident_counts(&mut self, counts: &[OpenCount]) {
        for tile in &mut self.tables {
            tile.incidents = Counts::default();
        }
        for count in counts {
            if let Some(&i) = self.index.get(&count.table) {
                let n = u32::try_from(count.count).unwrap_or(u32::MAX);
                self.tables[i]
                    .incidents
                    .add(Severity::parse(&count.severity), n);
            }
        }
    }

    /// Folds one monitor event in, at `now`. Returns the table it changed (if any) and the
    /// incident it raised (if any).
    pub fn apply(
        &mut self,
        event: &MonitorEvent,
        now: Timestamp,
    ) -> (Option<String>, Option<IncidentRow>) {
        let (table, changed) = match event {
            MonitorEvent::Link {
                table,
                device,
                state,
                detail,
                ..
            } => {
                let Some(&i) = self.index.get(table) else {
                    return (None, None);
                };
                let tile = &mut self.tables[i];
                let status = match state {
                    LinkState::Connected => Link::Connected,
                    LinkState::Disconnected | LinkState::Retrying => Link::Reconnecting,
                };
                if let Some(shown) = tile.devices.get_mut(*device) {
                    shown.status = status;
                    shown.status_detail = detail.clone();
                }
                // The table's own state is its main device's.
                if *device != 0 {
                    return (Some(table.clone()), None);
                }
                tile.status = status;
                tile.status_detail = detail.clone();
                // A link back while the device still has an error open: the error shows again.
                show_device_errors(tile, &self.device_errors[i], self.carried_errors[i]);
                (table, None)
            }
            // Recording's state, the journals' and the host clock's are the whole pit's (the desk passes them on
            // as they come).
            MonitorEvent::Witness(_)
            | MonitorEvent::Recording(_)
            | MonitorEvent::Clock(_)
            | MonitorEvent::Missed { .. } => return (None, None),
            MonitorEvent::Failed { table, message } => {
                let Some(table) = table else {
                    return (None, None);
                };
                let Some(tile) = self.tile_mut(table) else {
                    return (None, None);
                };
                tile.status = Link::Error;
                tile.status_detail = message.clone();
                (table, None)
            }
            MonitorEvent::Derived { table, derived } => {
                let Some(&i) = self.index.get(table) else {
                    return (None, None);
                };
                let tile = &mut self.tables[i];
                let raised = fold_derived(tile, derived, now);
                let open = &mut self.device_errors[i];
                if let Derived::Event(event) = derived {
                    // A shuffler's state shows on the table's (first) shuffler: its deck check, whether
                    // it is shuffling, its counters.
                    if let Some(shuffler) = tile
                        .devices
                        .iter_mut()
                        .find(|d| d.role == DeviceRole::Shuffler)
                    {
                        if DeckCheckView::of(event).is_some() {
                            shuffler.last_check = Some(event.clone());
                        }
                        match event.kind {
                            EventKind::ShuffleStarted { .. } => shuffler.shuffling = true,
                            EventKind::DeckChecked { .. } | EventKind::Shuffled { .. } => {
                                shuffler.shuffling = false;
                            }
                            EventKind::ShufflerCounters {
                                cycles,
                                recognition_errors,
                                malfunctions,
                            } => {
                                shuffler.counters = Some(Counters {
                                    cycles,
                                    recognition_errors,
                                    malfunctions,
                                });
                            }
                            _ => {}
                        }
                    }
                    match &event.kind {
                        EventKind::DeviceError { code, text }
                            if !open.iter().any(|(c, _)| c == code) =>
                        {
                            open.push((code.clone(), device_error_detail(code, text)));
                        }
                        EventKind::DeviceErrorCleared { code } => open.retain(|(c, _)| c != code),
                        _ => {}
                    }
                }
                // Clearing one of two errors leaves the tile in error with the other.
                show_device_errors(tile, open, self.carried_errors[i]);
                (table, raised)
            }
            MonitorEvent::View { table, view } => {
                let Some(&i) = self.index.get(table) else {
                    return (None, None);
                };
                let tile = &mut self.tables[i];
                pitwatch_api::games::show_view_on(&mut tile.shown, view);
                let known = u32::try_from(self.device_errors[i].len()).unwrap_or(u32::MAX);
                let carried = view.open_device_errors().saturating_sub(known);
                if carried == 0 && self.carried_errors[i] > 0 && self.device_errors[i].is_empty() {
                    // The last error from before the restart was cleared.
                    if tile.status == Link::Error {
                        tile.status = Link::Connected;
                        tile.status_detail.clear();
                    }
                }
                self.carried_errors[i] = carried;
                show_device_errors(tile, &self.device_errors[i], carried);
                (table, None)
            }
        };
        (Some(table.clone()), changed)
    }

    /// Sets `name`'s last finished shoe's shuffle quality (from the record at start-up).
    pub fn set_last_shuffle(
        &mut self,
        name: &str,
        shuffle: Option<&pitwatch_shuffle::ShoeShuffle>,
    ) {
        if let Some(tile) = self.tile_mut(name) {
            tile.last_shuffle = shuffle.cloned();
        }
    }

    fn tile(&self, name: &str) -> Option<&Tile> {
        self.index.get(name).map(|&i| &self.tables[i])
    }

    fn tile_mut(&mut self, name: &str) -> Option<&mut Tile> {
        self.index.get(name).map(|&i| &mut self.tables[i])
    }
}

/// Puts the engine's view of the table on a replay step's tile (the game's own fold, through the
/// boundary's registry of games).
pub(crate) fn show_view(tile: &mut TableTile, view: &GameView) {
    pitwatch_api::games::show_view(tile, view);
}

fn fold_derived(tile: &mut Tile, derived: &Derived, now: Timestamp) -> Option<IncidentRow> {
    match derived {
        Derived::Frame { accepted, .. } => {
            if *accepted {
                tile.frames_accepted += 1;
            } else {
                tile.frames_rejected += 1;
            }
            tile.last_frame_ms = Some(now.unix_millis());
            None
        }
        Derived::Event(event) => {
            if let Some(at) = event.at {
                tile.last_event_at_ms = Some(at.unix_millis());
                tile.oldest_unsent_at_ms.get_or_insert(at.unix_millis());
            }
            if let Some((status, detail)) = device_report(event, tile.status == Link::Error) {
                tile.status = status;
                tile.status_detail = detail;
            }
            None
        }
        Derived::Output { output, incident } => match output {
            Output::Round(round) => {
                pitwatch_api::games::take_round(&mut tile.shown.play, round);
                None
            }
            Output::Irregularity(irregularity) => {
                let id = (*incident)?;
                let severity = Severity::parse(irregularity.severity.name());
                tile.incidents.add(severity, 1);
                Some(IncidentRow {
                    id: id.0,
                    table: tile.name.clone(),
                    code: irregularity.code.as_str().to_owned(),
                    severity,
                    rule: irregularity.rule.clone(),
                    shoe: Some(irregularity.shoe),
                    round: irregularity.round,
                    seq: irregularity.seq,
                    message: irregularity.message.clone(),
                    opened_at: now.to_string(),
                    status: IncidentStatus::Open,
                })
            }
            Output::DeviceErrorCleared(_) => {
                if tile.status == Link::Error {
                    tile.status = Link::Connected;
                }
                None
            }
            Output::Shoe(_) => None,
        },
        Derived::Shuffle(shuffle) => {
            tile.last_shuffle = Some(shuffle.clone());
            None
        }
        // Counted on an incident already raised: no new alert.
        Derived::Repeated { .. } => None,
        Derived::DeviceIdentified { device, hello, usb } => {
            if let Some(shown) = tile.devices.get_mut(*device) {
                shown.identity = Some((hello.clone(), usb.clone()));
            }
            None
        }
        Derived::Liveness {
            device,
            change,
            incident,
        } => fold_liveness(tile, *device, change, *incident, now),
        Derived::Gap { bytes, incident } => {
            let id = (*incident)?;
            tile.incidents.add(Severity::Critical, 1);
            Some(IncidentRow {
                id: id.0,
                table: tile.name.clone(),
                code: pitwatch_recording::recorder::RECORDING_GAP.to_owned(),
                severity: Severity::Critical,
                rule: "recording (no Gazette rule)".to_owned(),
                shoe: None,
                round: None,
                seq: 0,
                message: format!(
                    "{bytes} bytes from this table's device could not be recorded (the spool was full)"
                ),
                opened_at: now.to_string(),
                status: IncidentStatus::Open,
            })
        }
        Derived::DeviceChanged {
            code,
            severity,
            message,
            incident,
            ..
        } => {
            let id = (*incident)?;
            let severity = Severity::parse(severity);
            tile.incidents.add(severity, 1);
            Some(IncidentRow {
                id: id.0,
                table: tile.name.clone(),
                code: (*code).to_owned(),
                severity,
                rule: "device identity (no Gazette rule)".to_owned(),
                shoe: None,
                round: None,
                seq: 0,
                message: message.clone(),
                opened_at: now.to_string(),
                status: IncidentStatus::Open,
            })
        }
    }
}

/// The device's own reports about itself: an error shows on the tile until it clears. The
/// link's state and detail `event` gives a tile (`in_error`: whether it shows an error now).
fn device_report(event: &TableEvent, in_error: bool) -> Option<(Link, String)> {
    match &event.kind {
        EventKind::DeviceError { code, text } => {
            Some((Link::Error, device_error_detail(code, text)))
        }
        EventKind::DeviceErrorCleared { code } if in_error => {
            Some((Link::Connected, format!("device error {code} cleared")))
        }
        _ => None,
    }
}

/// [`device_report`] on a replay step's tile.
pub(crate) fn fold_event(tile: &mut TableTile, event: &TableEvent) {
    if let Some((status, detail)) = device_report(event, tile.status == LinkStatus::Error) {
        tile.status = match status {
            Link::Error => LinkStatus::Error,
            _ => LinkStatus::Connected,
        };
        tile.status_detail = detail;
    }
}

/// Puts the device errors still open on a tile whose link is up: the latest first, then those
/// raised before a restart (`carried`, known by number only).
fn show_device_errors(tile: &mut Tile, open: &[(String, String)], carried: u32) {
    if (open.is_empty() && carried == 0) || tile.status == Link::Reconnecting {
        return;
    }
    tile.status = Link::Error;
    let mut details: Vec<String> = open.iter().rev().map(|(_, d)| d.clone()).collect();
    match carried {
        0 => {}
        1 => details.push("a device error raised before the restart is not cleared yet".into()),
        n => details.push(format!(
            "{n} device errors raised before the restart are not cleared yet"
        )),
    }
    tile.status_detail = details.join("; ");
}

/// A device error for people at the pit: what the device says first, then its own code (the
/// code alone when the device sends no text).
fn device_error_detail(code: &str, text: &str) -> String {
    match text.trim() {
        "" => format!("device error {code}"),
        text => format!("{text} (device error {code})"),
    }
}

#[cfg(test)]
mod tests;

/// What the device panel shows of a device's identity (nothing when neither says anything).
fn identity_view(
    hello: Option<&pitwatch_recording::recorder::Hello>,
    usb: Option<&pitwatch_recording::recorder::Usb>,
) -> Option<pitwatch_api::dto::DeviceIdentityView> {
    let usb = usb
        .filter(|u| !u.model.trim().is_empty() || !u.serial.trim().is_empty())
        .map(|u| {
            let serial = Some(u.serial.trim())
                .filter(|s| !s.is_empty())
                .map(|s| format!(" serial number {s}"))
                .unwrap_or_default();
            format!("{}{serial} on {}", u.model.trim(), u.port)
                .trim()
                .to_owned()
        })
        .unwrap_or_default();
    if hello.is_none() && usb.is_empty() {
        return None;
    }
    let hello = hello.cloned().unwrap_or_default();
    Some(pitwatch_api::dto::DeviceIdentityView {
        said_at: Some(hello.at.clone()).filter(|a| !a.is_empty()),
        make: hello.make,
        model: hello.model,
        serial: hello.serial,
        firmware: hello.firmware,
        usb,
    })
}
