//! The pit definition: the site and, for each table, its game, rule book and device link.
//!
//! The same TOML file drives `pitwatch monitor` and the desktop app. Loading checks the whole file
//! and lists every problem at once, so an operator fixes a configuration in one pass.

use std::collections::BTreeSet;

use pitwatch_protocols::ProtocolConfig;

use crate::liveness::{LivenessOverride, Thresholds};
use pitwatch_games::{rule_book_file_ok, GameBook, GameKind};
pub use pitwatch_transport::DeviceConfig as LinkConfig;
use pitwatch_transport::BACKOFF_FLOOR_MS;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// The built-in demo pit, used when no configuration is given.
const DEMO_PIT: &str = include_str!("demo-pit.toml");

/// The first character of `text` that a name must not hold (a control character: NUL, a line
/// break, an escape), if any. Names go into thread names, file names, logs and reports.
fn control_char(text: &str) -> Option<char> {
    text.chars().find(|c| c.is_control())
}

/// A whole pit: the site and its tables.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PitConfig {
    /// The site (casino, pit) this workstation watches.
    pub site: SiteConfig,
    /// Whether this is the simulated demo pit rather than real devices.
    #[serde(default)]
    pub demo: bool,
    /// The tables, in display order.
    #[serde(rename = "table", default)]
    pub tables: Vec<TableConfig>,
    /// Where the record is witnessed, how long it is kept, where it is archived (`[record]`).
    #[serde(default, skip_serializing_if = "RecordConfig::is_default")]
    pub record: RecordConfig,
    /// The central database the record is replicated to, if any (`[central]`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub central: Option<CentralConfig>,
    /// When the host clock is fit to match times by (`[clock]`).
    #[serde(default, skip_serializing_if = "ClockConfig::is_default")]
    pub clock: ClockConfig,
    /// What surveillance is alerted to (`[surveillance]`).
    #[serde(default, skip_serializing_if = "SurveillanceConfig::is_default")]
    pub surveillance: SurveillanceConfig,
    /// The tables whose sections are wrong, with their problems, when the definition was read
    /// table by table ([`PitConfig::load`]): shown disabled while the others run. Never written.
    #[serde(skip)]
    pub disabled: Vec<DisabledTable>,
}

/// Replication to the central database (`[central]`, issue 16). The URL (which may hold a
/// password) is never written here: it is read from an environment variable or from a file only
/// its owner may read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CentralConfig {
    /// Refused: a URL in the pit definition would keep credentials in plain text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The environment variable holding the central URL (`postgres://…`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url_env: Option<String>,
    /// A file, readable by its owner only, holding the central URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url_file: Option<std::path::PathBuf>,
    /// The site's id in the central database.
    pub site: String,
    /// This workstation's id within the site.
    pub workstation: String,
    /// Replication lag (time behind, or the link down) past which an alert is raised, seconds.
    #[serde(default = "default_alert_after_s")]
    pub alert_after_s: u64,
}

fn default_alert_after_s() -> u64 {
    60
}

impl CentralConfig {
    fn problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        if self.url.is_some() {
            problems.push(
                "central.url would keep the central database's credentials in the pit definition in \
                 plain text: give url_env (an environment variable) or url_file (a file only its \
                 owner may read)"
                    .to_owned(),
            );
        }
        match (&self.url_env, &self.url_file) {
            (None, None) if self.url.is_none() => {
                problems.push("central: give url_env or url_file".to_owned())
            }
            (Some(_), Some(_)) => {
                problems.push("central: give url_env or url_file, not both".to_owned())
            }
            _ => {}
        }
        for (what, value) in [("site", &self.site), ("workstation", &self.workstation)] {
            if value.trim().is_empty() {
                problems.push(format!("central.{what} is empty"));
            } else if value.contains('/') || control_char(value).is_some() {
                problems.push(format!(
                    "central.{what} {value:?} holds a '/' or a control character"
                ));
            }
        }
        if self.alert_after_s == 0 {
            problems.push("central.alert_after_s must be at least 1".to_owned());
        }
        problems
    }

    /// The central URL, from the environment variable or the owner-only file.
    pub fn url(&self) -> Result<String, String> {
        if let Some(name) = &self.url_env {
            return std::env::var(name).map_err(|_| {
                format!("the environment variable {name} (central.url_env) is not set")
            });
        }
        let Some(path) = &self.url_file else {
            return Err("central: give url_env or url_file".to_owned());
        };
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(path)
                .map_err(|e| format!("central.url_file {}: {e}", path.display()))?
                .permissions()
                .mode();
            if mode & 0o077 != 0 {
                return Err(format!(
                    "central.url_file {} may be read by others (mode {:o}): make it \
                     owner-only (chmod 600)",
                    path.display(),
                    mode & 0o777
                ));
            }
        }
        std::fs::read_to_string(path)
            .map(|t| t.trim().to_owned())
            .map_err(|e| format!("central.url_file {}: {e}", path.display()))
    }
}

/// What surveillance is alerted to (`[surveillance]`, issue 29).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SurveillanceConfig {
    /// How many rounds of one shoe a wager may be worth more than it costs (the house behind on
    /// it, from the cards left) before surveillance is alerted; once per table, shoe and wager.
    #[serde(default = "default_exposure_alert_rounds")]
    pub exposure_alert_rounds: u32,
}

/// Three rounds: one round with the house behind happens in most shoes' last rounds; a count
/// that stays positive is what a counter waits for.
fn default_exposure_alert_rounds() -> u32 {
    3
}

impl Default for SurveillanceConfig {
    fn default() -> Self {
        SurveillanceConfig {
            exposure_alert_rounds: default_exposure_alert_rounds(),
        }
    }
}

impl SurveillanceConfig {
    fn is_default(&self) -> bool {
        *self == SurveillanceConfig::default()
    }
}

/// When the host clock is fit to match event times to CCTV time by (`[clock]`, clock truth:
/// [`crate::clock`]): past this estimated error, or not synchronised at all, every screen shows
/// an alert.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClockConfig {
    /// The largest estimated error of the host clock accepted, in milliseconds.
    #[serde(default = "default_max_error_ms")]
    pub max_error_ms: u64,
}

fn default_max_error_ms() -> u64 {
    crate::clock::DEFAULT_MAX_ERROR_MS
}

impl Default for ClockConfig {
    fn default() -> Self {
        ClockConfig {
            max_error_ms: default_max_error_ms(),
        }
    }
}

impl ClockConfig {
    fn is_default(&self) -> bool {
        *self == ClockConfig::default()
    }

    /// The limits the monitor judges the host clock by.
    pub fn limits(&self) -> crate::clock::ClockLimits {
        crate::clock::ClockLimits {
            max_error_ms: self.max_error_ms,
        }
    }
}

/// The site.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SiteConfig {
    /// Name shown on screens and printed on reports.
    pub name: String,
    /// The site's time zone, an IANA name (`Pacific/Auckland`): reports print their times in it,
    /// with the zone's abbreviation. Without it they print UTC and say so.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_zone: Option<String>,
}

/// One table.
///
/// A table has one device or several (typically a card-reading shoe and an automatic shuffler),
/// each with its own protocol and link. In TOML, one device is `device = { protocol = … }` with
/// `link = { … }` beside it; several are a list:
///
/// ```toml
/// [[table.device]]
/// role = "shoe"
/// protocol = "angel-eye"
/// link = { kind = "serial", path = "/dev/ttyUSB0", baud = 9600 }
/// [[table.device]]
/// role = "shuffler"
/// protocol = "pitwatch"
/// link = { kind = "tcp", address = "10.0.0.5:4001" }
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "RawTable", into = "RawTable")]
pub struct TableConfig {
    /// The table's name as the pit knows it (unique), e.g. `BAC-1`.
    pub name: String,
    /// The game dealt at the table.
    pub game: GameKind,
    /// The rule book the table is checked against: a built-in name (`nz-baccarat`) or a path.
    pub rules: String,
    /// Decks in the table's shoe, for a device that does not report its deck count (a barcode
    /// or Angel Eye shoe): without it such a shoe is followed as the rule book's default. A
    /// shuffle that reports its deck count is followed as reported.
    pub decks: Option<u8>,
    /// The variant dealt at a poker table (`texas_holdem`, `draw`, `five_card_stud`,
    /// `seven_card_stud`); without it the rule book's default. Only poker tables have one.
    pub variant: Option<String>,
    /// The table's devices, at least one; the first is the table's main device (its shoe, or
    /// the only device). Every device's bytes are journaled in sessions of its own, and the
    /// rules engine sees one stream per table, in the order the host received them.
    pub devices: Vec<TableDevice>,
    /// Simulated by Pitwatch itself (only in the demo pit): each link is a pseudo-terminal the
    /// app creates at start-up.
    pub simulated: bool,
    /// The table's device liveness thresholds over the protocols' defaults
    /// (`liveness = { offline_s = 30 }`; [`crate::liveness`]).
    pub liveness: LivenessOverride,
    /// The rounds an hour of dealing this table is held to (`pace_target = 60`), over its
    /// game's default in `pitwatch_games::targets` (docs/pace.md); the alert thresholds stay
    /// the game's.
    pub pace_target: Option<u32>,
}

/// One device of a table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableDevice {
    /// What the device is at the table.
    pub role: DeviceRole,
    /// The device's protocol and its settings, e.g. `{ protocol = "angel-eye" }`.
    pub protocol: ProtocolConfig,
    /// How the device is reached: a serial port or a TCP device server, with timeouts and
    /// reconnect backoff, e.g. `{ kind = "serial", path = "/dev/ttyUSB0", baud = 4800 }`.
    pub link: Option<LinkConfig>,
    /// This device's liveness thresholds over the table's and the protocol's
    /// ([`crate::liveness`]).
    pub liveness: LivenessOverride,
}

/// What a device is at its table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum DeviceRole {
    /// A card-reading shoe (or any device that reports the cards dealt).
    Shoe,
    /// An automatic shuffler: shuffles, counts and deck checks, never cards.
    Shuffler,
    /// A dealer console or box sensor (decisions, actions, declared misdeals).
    Console,
}

impl DeviceRole {
    /// The role's name as written in configuration.
    pub const fn as_str(self) -> &'static str {
        match self {
            DeviceRole::Shoe => "shoe",
            DeviceRole::Shuffler => "shuffler",
            DeviceRole::Console => "console",
        }
    }

    /// The role a single `device = { … }` has: what its Pitwatch-protocol role says, else a shoe.
    fn of(protocol: &ProtocolConfig) -> DeviceRole {
        match protocol {
            ProtocolConfig::Pitwatch(config) => match config.role {
                Some(pitwatch_proto::Role::Shuffler) => DeviceRole::Shuffler,
                Some(pitwatch_proto::Role::Console) => DeviceRole::Console,
                _ => DeviceRole::Shoe,
            },
            _ => DeviceRole::Shoe,
        }
    }
}

impl TableConfig {
    /// A table with one device (`protocol`, reached by `link`), its deck count from the rule
    /// book, not simulated.
    pub fn new(
        name: impl Into<String>,
        game: GameKind,
        rules: impl Into<String>,
        protocol: ProtocolConfig,
        link: Option<LinkConfig>,
    ) -> TableConfig {
        TableConfig {
            name: name.into(),
            game,
            rules: rules.into(),
            decks: None,
            variant: None,
            devices: vec![TableDevice {
                role: DeviceRole::of(&protocol),
                protocol,
                link,
                liveness: LivenessOverride::default(),
            }],
            simulated: false,
            liveness: LivenessOverride::default(),
            pace_target: None,
        }
    }

    /// The liveness thresholds device `index` is held to: its protocol's defaults, under the
    /// table's `liveness`, under the device's own.
    pub fn liveness(&self, index: usize) -> Thresholds {
        match self.devices.get(index) {
            Some(d) => self
                .liveness
                .apply(&d.liveness, crate::liveness::defaults(d.protocol.name())),
            None => crate::liveness::defaults(""),
        }
    }

    /// The rule book as the table uses it: `rules`, with the table's deck count when it gives one
    /// (`nz-baccarat;decks=6`, see [`RuleBook::reference`]). The recorder keeps this reference
    /// with the table, so replay loads exactly the book the table was followed with.
    pub fn rules_reference(&self) -> String {
        let mut reference = match self.decks {
            Some(decks) => format!("{};decks={decks}", self.rules.trim()),
            None => self.rules.clone(),
        };
        if let Some(variant) = &self.variant {
            reference = format!("{};variant={}", reference.trim(), variant.trim());
        }
        reference
    }

    /// The table's rule book ([`TableConfig::rules_reference`]), of whatever game it is for:
    /// the engine the table runs is the book's.
    pub fn rule_book(&self) -> Result<GameBook, String> {
        GameBook::load(&self.rules_reference())
    }

    /// The main device's protocol (the shoe's, or the only device's).
    pub fn device(&self) -> ProtocolConfig {
        self.devices.first().map_or(
            ProtocolConfig::Pitwatch(pitwatch_proto::ProtoConfig::default()),
            |d| d.protocol,
        )
    }

    /// The main device's link, if it has one.
    pub fn link(&self) -> Option<&LinkConfig> {
        self.devices.first().and_then(|d| d.link.as_ref())
    }

    /// The name device `index` of this table goes by in the monitor's spool and messages: the
    /// table's own name for its main device, `NAME#2`, `NAME#3`, … for the others.
    pub fn stream_name(&self, index: usize) -> String {
        if index == 0 {
            self.name.clone()
        } else {
            format!("{}#{}", self.name, index + 1)
        }
    }

    /// How the main device is reached, for people (with the other devices after it).
    pub fn describe_link(&self) -> String {
        if self.simulated {
            return "simulated".to_owned();
        }
        let one = |d: &TableDevice| match &d.link {
            Some(link) => link.transport.describe(),
            None => "no link".to_owned(),
        };
        match self.devices.as_slice() {
            [] => "no link".to_owned(),
            [only] => one(only),
            many => many
                .iter()
                .map(|d| format!("{}: {}", d.role.as_str(), one(d)))
                .collect::<Vec<_>>()
                .join("; "),
        }
    }
}

/// The wire protocol a device speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "kebab-case")]
pub enum Protocol {
    /// The Angel Eye II-EX smart shoe.
    AngelEye,
    /// A barcode card-reader shoe.
    Barcode,
    /// The Pitwatch open protocol (shufflers, other shoes, dealer consoles).
    Pitwatch,
}

impl Protocol {
    /// The name the pit definition writes (`angel-eye`, `barcode`, `pitwatch`).
    pub const fn name(self) -> &'static str {
        match self {
            Protocol::AngelEye => "angel-eye",
            Protocol::Barcode => "barcode",
            Protocol::Pitwatch => "pitwatch",
        }
    }

    /// The protocol with its default settings (what a `device = { protocol = "…" }` with no
    /// settings gives); `None` only for a name this build's protocols crate does not know.
    pub fn config(self) -> Option<ProtocolConfig> {
        ProtocolConfig::by_name(self.name())
    }
}

impl From<&ProtocolConfig> for Protocol {
    fn from(config: &ProtocolConfig) -> Self {
        match config {
            ProtocolConfig::AngelEye(_) => Protocol::AngelEye,
            ProtocolConfig::Barcode(_) => Protocol::Barcode,
            ProtocolConfig::Pitwatch(_) => Protocol::Pitwatch,
        }
    }
}

/// Why a pit definition cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PitConfigError {
    /// The text is not a well-formed pit definition.
    #[error("the pit definition does not parse: {0}")]
    Syntax(String),
    /// The definition parses but is not usable; every problem is listed.
    #[error("the pit definition has {} problem(s):\n  - {}", .0.len(), .0.join("\n  - "))]
    Invalid(Vec<String>),
}

impl PitConfig {
    /// The built-in demo pit.
    pub fn demo() -> PitConfig {
        match PitConfig::from_toml(DEMO_PIT) {
            Ok(pit) => pit,
            // The demo file is part of the binary and checked by a unit test.
            Err(e) => unreachable!("built-in demo pit is invalid: {e}"),
        }
    }

    /// Reads and checks a pit definition.
    pub fn from_toml(text: &str) -> Result<PitConfig, PitConfigError> {
        let pit: PitConfig =
            toml::from_str(text).map_err(|e| PitConfigError::Syntax(e.to_string()))?;
        let problems = pit.problems();
        if problems.is_empty() {
            Ok(pit)
        } else {
            Err(PitConfigError::Invalid(problems))
        }
    }

    fn problems(&self) -> Vec<String> {
        let mut problems = self.pit_problems();
        let mut seen = BTreeSet::new();
        for (i, table) in self.tables.iter().enumerate() {
            problems.extend(self.table_problems(i, table, &mut seen));
        }
        problems
    }

    /// What is wrong with the pit as a whole (the site, the record, the central copy; no table
    /// at all).
    pub(crate) fn pit_problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        if self.site.name.trim().is_empty() {
            problems.push("site.name is empty".to_owned());
        }
        if let Some(c) = control_char(&self.site.name) {
            problems.push(format!("site.name holds the control character {:?}", c));
        }
        if let Some(zone) = &self.site.time_zone {
            if jiff::tz::TimeZone::get(zone).is_err() {
                problems.push(format!(
                    "site.time_zone {zone:?} is not a time zone (give an IANA name such as \
                     \"Pacific/Auckland\")"
                ));
            }
        }
        if self.tables.is_empty() {
            problems.push("no [[table]] is defined".to_owned());
        }
        if let Some(central) = &self.central {
            problems.extend(central.problems());
        }
        if self.clock.max_error_ms == 0 {
            problems.push(
                "clock.max_error_ms must be at least 1 (no clock is exact; the default is 1000)"
                    .to_owned(),
            );
        }
        if let Err(e) = self.record.retention() {
            problems.push(e);
        }
        if self.record.archive_after_days < 7 {
            problems.push(format!(
                "record.archive_after_days {} is less than 7: the live record keeps at least a \
                 week for disputes",
                self.record.archive_after_days
            ));
        }
        for dir in &self.record.witness {
            if !dir.is_dir() {
                problems.push(format!(
                    "record.witness {:?} is not a folder (create it, or mount the disk or share)",
                    dir.display().to_string()
                ));
            }
        }
        problems
    }

    /// What is wrong with table `i` (`seen`: the names of the tables before it).
    pub(crate) fn table_problems<'a>(
        &self,
        i: usize,
        table: &'a TableConfig,
        seen: &mut BTreeSet<&'a str>,
    ) -> Vec<String> {
        let mut problems = Vec::new();
        let label = format!("table {} ({:?})", i + 1, table.name);
        if table.name.trim().is_empty() {
            problems.push(format!("{label}: name is empty"));
        } else if let Some(c) = control_char(&table.name) {
            problems.push(format!(
                "{label}: name holds the control character {c:?} (names are shown, logged \
                 and printed)"
            ));
        } else if !seen.insert(table.name.as_str()) {
            problems.push(format!("{label}: another table has the same name"));
        }
        if table.rules.trim().is_empty() {
            problems.push(format!("{label}: rules is empty"));
        } else if control_char(&table.rules).is_some() {
            problems.push(format!("{label}: rules holds a control character"));
        } else if let Err(e) = rule_book_file_ok(table.rules.trim()) {
            problems.push(format!("{label}: rules {:?}: {e}", table.rules));
        } else {
            match table.rule_book() {
                Err(e) => {
                    problems.push(format!("{label}: rules {:?}: {e}", table.rules_reference()))
                }
                // The engine is the book's: a table must say the game its book is for.
                Ok(book) if book.kind() != table.game => problems.push(format!(
                    "{label}: game {:?} but rule book {} is for {:?} (use a {} book, or \
                     game = {:?})",
                    table.game.as_str(),
                    book.id(),
                    book.game(),
                    table.game.as_str(),
                    book.game()
                )),
                Ok(_) => {}
            }
        }
        let shoes = table
            .devices
            .iter()
            .filter(|d| d.role == DeviceRole::Shoe)
            .count();
        if shoes > 1 {
            problems.push(format!(
                "{label}: {shoes} devices are shoes; a table has at most one card-reading shoe"
            ));
        }
        for p in table.liveness.problems() {
            problems.push(format!("{label}: {p}"));
        }
        if table.pace_target == Some(0) {
            problems.push(format!(
                "{label}: pace_target must be 1 or more rounds an hour"
            ));
        }
        let several = table.devices.len() > 1;
        for (k, device) in table.devices.iter().enumerate() {
            let label = if several {
                format!("{label} device {} ({})", k + 1, device.role.as_str())
            } else {
                label.clone()
            };
            if device.role == DeviceRole::Shuffler
                && !matches!(device.protocol, ProtocolConfig::Pitwatch(_))
            {
                problems.push(format!(
                    "{label}: a shuffler speaks the Pitwatch protocol (protocol = \"pitwatch\"), not {}",
                    device.protocol.name()
                ));
            }
            for p in device.liveness.problems() {
                problems.push(format!("{label}: {p}"));
            }
            link_problems(
                &label,
                device.link.as_ref(),
                table.simulated,
                self.demo,
                &mut problems,
            );
        }
        if table.simulated
            && !table.game.simulated_over_any_protocol()
            && !matches!(table.device(), ProtocolConfig::Pitwatch(_))
        {
            problems.push(format!(
                "{label}: a simulated {} table deals over the pitwatch protocol (the only one \
                 with box targets and decisions), not {}",
                table.game.as_str(),
                table.device().name()
            ));
        }
        if table.simulated && !self.demo {
            problems.push(format!(
                "{label}: simulated devices are only allowed in a demo pit (demo = true)"
            ));
        }
        problems
    }
}

/// The rates a serial port accepts (the POSIX and Linux termios rates; a device server's
/// serial side offers the same).
pub const STANDARD_BAUDS: &[u32] = &[
    50, 75, 110, 134, 150, 200, 300, 600, 1200, 1800, 2400, 4800, 9600, 19200, 38400, 57600,
    115200, 230400, 460800, 500000, 576000, 921600, 1000000, 1152000, 1500000, 2000000, 2500000,
    3000000, 3500000, 4000000,
];

/// What the pit definition would refuse in `link` (a port path, a baud rate serial ports do not
/// accept, a backoff, an address that is not `host:port`), in its words.
pub fn check_link(link: &LinkConfig) -> Vec<String> {
    let mut problems = Vec::new();
    link_problems("the link", Some(link), false, false, &mut problems);
    problems
}

/// What is wrong with one device's link (or its lack of one).
fn link_problems(
    label: &str,
    link: Option<&LinkConfig>,
    simulated: bool,
    demo: bool,
    problems: &mut Vec<String>,
) {
    match (link, simulated) {
        (Some(_), true) => problems.push(format!(
            "{label}: a table has either a link or simulated = true, not both"
        )),
        (None, false) => problems.push(format!(
            "{label}: no link (add link = {{ kind = \"serial\", path = ..., baud = ... }} or {{ kind = \"tcp\", address = \"host:port\" }})"
        )),
        _ => {}
    }
    let Some(link) = link else {
        return;
    };
    if link.backoff.initial_ms < BACKOFF_FLOOR_MS {
        problems.push(format!(
            "{label}: link backoff.initial_ms must be at least {BACKOFF_FLOOR_MS} (a \
             port that is not there would be retried without pause)"
        ));
    }
    if link.backoff.max_ms < link.backoff.initial_ms {
        problems.push(format!(
            "{label}: link backoff.max_ms must be at least backoff.initial_ms"
        ));
    }
    match &link.transport {
        pitwatch_transport::TransportConfig::Tcp(tcp) => {
            if tcp
                .address
                .rsplit_once(':')
                .and_then(|(_, p)| p.parse::<u16>().ok())
                .is_none()
            {
                problems.push(format!(
                    "{label}: link address {:?} is not host:port",
                    tcp.address
                ));
            }
        }
        pitwatch_transport::TransportConfig::Serial(serial) => {
            if serial.path.trim().is_empty() {
                problems.push(format!("{label}: link path is empty"));
            } else if control_char(&serial.path).is_some() {
                problems.push(format!("{label}: link path holds a control character"));
            }
            if serial.baud == 0 {
                problems.push(format!("{label}: link baud must be above 0"));
            } else if !STANDARD_BAUDS.contains(&serial.baud) {
                problems.push(format!(
                    "{label}: link baud {} is not a rate serial ports accept: give one of {}",
                    serial.baud,
                    STANDARD_BAUDS
                        .iter()
                        .map(u32::to_string)
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
            if !(5..=8).contains(&serial.data_bits) {
                problems.push(format!("{label}: link data_bits must be 5 to 8"));
            }
            if !(1..=2).contains(&serial.stop_bits) {
                problems.push(format!("{label}: link stop_bits must be 1 or 2"));
            }
        }
    }
    // A demo records simulated rounds and has a supervisor with a published password: it must
    // never sit beside a real device in one record.
    if demo {
        problems.push(format!(
            "{label}: a demo pit (demo = true) cannot have a real link; remove demo = true to watch real devices"
        ));
    }
}

mod diff;
mod load;
mod raw;
mod record;
pub use diff::{diff, ChangedTable, PitDiff};
pub use load::DisabledTable;
use raw::RawTable;
pub use record::RecordConfig;

#[cfg(test)]
mod tests;
