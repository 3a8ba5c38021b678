//! A table as the live pit knows it ([`Tile`]): what the pit definition says of it, its devices'
//! links, frames and alarms, the incidents open there, the last shuffle judged, and what its
//! engine shows of the shoe and play (the game's part, [`Shown`], folded by the boundary's
//! registry). The window's `TableTile` is made from it only when it is sent ([`Tile::view`]).

use pitwatch_api::dto::{
    DeckCheckView, DeviceAlarmKind, DeviceAlarmView, DeviceTile, DisabledView, LinkStatus,
    Severity, SeverityCounts, ShuffleQuality, ShufflerCountersView, TableTile,
};
use pitwatch_api::games::{initial_play, Shown};
use pitwatch_games::GameKind;
use pitwatch_model::{TableEvent, Timestamp};
use pitwatch_recording::liveness::AlarmKind;
use pitwatch_recording::pit::{DeviceRole, DisabledTable, Protocol, TableConfig, TableDevice};
use pitwatch_recording::recorder::{Hello, Usb};
use pitwatch_shuffle::ShoeShuffle;

/// A link's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Link {
    /// Not monitored (yet).
    NotMonitored,
    /// Up.
    Connected,
    /// Down, being retried.
    Reconnecting,
    /// The device reports an error (or the table failed).
    Error,
}

impl Link {
    fn view(self) -> LinkStatus {
        match self {
            Link::NotMonitored => LinkStatus::NotMonitored,
            Link::Connected => LinkStatus::Connected,
            Link::Reconnecting => LinkStatus::Reconnecting,
            Link::Error => LinkStatus::Error,
        }
    }
}

/// A device's liveness alarm standing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Alarm {
    pub(crate) kind: AlarmKind,
    /// Since when the device is gone.
    pub(crate) since: Timestamp,
    /// The device, numbered in the table from 0.
    pub(crate) device: u32,
    /// Its incident, when it was recorded as one.
    pub(crate) incident: Option<i64>,
}

impl Alarm {
    fn view(self) -> DeviceAlarmView {
        DeviceAlarmView {
            kind: match self.kind {
                AlarmKind::NeverConnected => DeviceAlarmKind::NeverConnected,
                AlarmKind::Offline => DeviceAlarmKind::Offline,
                AlarmKind::Silent => DeviceAlarmKind::Silent,
            },
            since_ms: self.since.unix_millis(),
            device: self.device,
            incident: self.incident,
        }
    }
}

/// A shuffler's counters as it last reported them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Counters {
    pub(crate) cycles: u32,
    pub(crate) recognition_errors: Option<u32>,
    pub(crate) malfunctions: Option<u32>,
}

/// One device of a table.
#[derive(Debug, Clone)]
pub(crate) struct Device {
    pub(crate) role: DeviceRole,
    protocol: Protocol,
    link: String,
    pub(crate) status: Link,
    pub(crate) status_detail: String,
    /// A shuffler's last completed shuffle (its deck check), since start-up.
    pub(crate) last_check: Option<TableEvent>,
    /// A shuffler is shuffling.
    pub(crate) shuffling: bool,
    pub(crate) counters: Option<Counters>,
    pub(crate) alarm: Option<Alarm>,
    /// What the device says it is and the USB adapter it is reached through, as last known.
    pub(crate) identity: Option<(Option<Hello>, Option<Usb>)>,
}

impl Device {
    fn new(device: &TableDevice) -> Device {
        Device {
            role: device.role,
            protocol: Protocol::from(&device.protocol),
            link: device
                .link
                .as_ref()
                .map_or_else(|| "simulated".to_owned(), |l| l.transport.describe()),
            status: Link::NotMonitored,
            status_detail: String::new(),
            last_check: None,
            shuffling: false,
            counters: None,
            alarm: None,
            identity: None,
        }
    }

    fn view(&self) -> DeviceTile {
        DeviceTile {
            role: self.role,
            protocol: self.protocol,
            link: self.link.clone(),
            status: self.status.view(),
            status_detail: self.status_detail.clone(),
            last_check: self.last_check.as_ref().and_then(DeckCheckView::of),
            shuffling: self.shuffling,
            counters: self.counters.map(|c| ShufflerCountersView {
                cycles: c.cycles,
                recognition_errors: c.recognition_errors,
                malfunctions: c.malfunctions,
            }),
            alarm: self.alarm.map(Alarm::view),
            identity: self
                .identity
                .as_ref()
                .and_then(|(hello, usb)| super::identity_view(hello.as_ref(), usb.as_ref())),
        }
    }
}

/// Incidents not yet resolved at a table, by severity.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Counts {
    pub(crate) critical: u32,
    pub(crate) high: u32,
    pub(crate) medium: u32,
    pub(crate) low: u32,
}

impl Counts {
    /// Adds `n` incidents of `severity`.
    pub(crate) fn add(&mut self, severity: Severity, n: u32) {
        let count = match severity {
            Severity::Critical => &mut self.critical,
            Severity::High => &mut self.high,
            Severity::Medium => &mut self.medium,
            Severity::Low => &mut self.low,
        };
        *count = count.saturating_add(n);
    }
}

/// A table as the live pit knows it.
#[derive(Debug, Clone)]
pub struct Tile {
    pub(crate) name: String,
    pub(crate) game: GameKind,
    rule_book: String,
    protocol: Protocol,
    link: String,
    pub(crate) status: Link,
    pub(crate) status_detail: String,
    pub(crate) devices: Vec<Device>,
    pub(crate) last_frame_ms: Option<i64>,
    pub(crate) frames_accepted: u64,
    pub(crate) frames_rejected: u64,
    pub(crate) last_event_at_ms: Option<i64>,
    /// When the host received the oldest event not yet sent to the window.
    pub(crate) oldest_unsent_at_ms: Option<i64>,
    /// What the engine shows of the shoe and the play (the game's part).
    pub(crate) shown: Shown,
    pub(crate) incidents: Counts,
    pub(crate) last_shuffle: Option<ShoeShuffle>,
    shuffle_steps: Vec<String>,
    pub(crate) alarm: Option<Alarm>,
    /// Why the table does not run (the line its section starts on, its problems).
    pub(crate) disabled: Option<(u32, Vec<String>)>,
}

impl Tile {
    /// The tile of `table`, nothing live yet.
    pub(crate) fn new(table: &TableConfig) -> Tile {
        // What the tile shows before any event that only the book says (a poker table's
        // variant, the preparation steps a book requires).
        let book = table.rule_book().ok();
        Tile {
            name: table.name.clone(),
            game: table.game,
            rule_book: table.rules.clone(),
            protocol: Protocol::from(&table.device()),
            link: table.describe_link(),
            status: Link::NotMonitored,
            status_detail: String::new(),
            devices: table.devices.iter().map(Device::new).collect(),
            last_frame_ms: None,
            frames_accepted: 0,
            frames_rejected: 0,
            last_event_at_ms: None,
            oldest_unsent_at_ms: None,
            shown: Shown {
                shoe: 0,
                cards_dealt: 0,
                cards_left: None,
                cutting_card_out: false,
                play: initial_play(table.game, book.as_ref()),
            },
            incidents: Counts::default(),
            last_shuffle: None,
            // Any game's book may list them (the built-in Baccarat books list none).
            shuffle_steps: book
                .as_ref()
                .map(|book| {
                    book.shuffle_steps()
                        .iter()
                        .map(|s| s.as_str().to_owned())
                        .collect()
                })
                .unwrap_or_default(),
            alarm: None,
            disabled: None,
        }
    }

    /// The tile of a table whose section of the pit definition is wrong: shown disabled, with
    /// its problems.
    pub(crate) fn disabled(table: &DisabledTable) -> Tile {
        let config = table.shown();
        let mut tile = Tile::new(&config);
        tile.status_detail = "disabled: its section of the pit definition is wrong".into();
        tile.disabled = Some((
            u32::try_from(table.line).unwrap_or(u32::MAX),
            table.problems.clone(),
        ));
        tile
    }

    /// The tile as the window shows it.
    pub(crate) fn view(&self) -> TableTile {
        TableTile {
            name: self.name.clone(),
            game: self.game,
            rule_book: self.rule_book.clone(),
            protocol: self.protocol,
            link: self.link.clone(),
            status: self.status.view(),
            status_detail: self.status_detail.clone(),
            devices: self.devices.iter().map(Device::view).collect(),
            last_frame_ms: self.last_frame_ms,
            frames_accepted: self.frames_accepted,
            frames_rejected: self.frames_rejected,
            last_event_at_ms: self.last_event_at_ms,
            oldest_unsent_at_ms: self.oldest_unsent_at_ms,
            shoe: self.shown.shoe,
            cards_dealt: self.shown.cards_dealt,
            cards_left: self.shown.cards_left,
            cutting_card_out: self.shown.cutting_card_out,
            play: self.shown.play.clone(),
            incidents: SeverityCounts {
                critical: self.incidents.critical,
                high: self.incidents.high,
                medium: self.incidents.medium,
                low: self.incidents.low,
            },
            last_shuffle: self.last_shuffle.as_ref().map(ShuffleQuality::from),
            shuffle_steps: self.shuffle_steps.clone(),
            alarm: self.alarm.map(Alarm::view),
            disabled: self.disabled.as_ref().map(|(line, problems)| DisabledView {
                line: *line,
                problems: problems.clone(),
            }),
        }
    }
}
