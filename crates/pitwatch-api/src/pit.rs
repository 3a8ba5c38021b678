//! The pit definition: the site and, for each table, its game, rule book and device link.
//!
//! The same TOML file drives `pitwatch monitor` and the desktop app. Loading checks the whole file
//! and lists every problem at once, so an operator fixes a configuration in one pass.

use std::collections::BTreeSet;
use std::fmt;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// The built-in demo pit, used when no configuration is given.
const DEMO_PIT: &str = include_str!("demo-pit.toml");

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
}

/// The site.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SiteConfig {
    /// Name shown on screens and printed on reports.
    pub name: String,
}

/// One table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TableConfig {
    /// The table's name as the pit knows it (unique), e.g. `BAC-1`.
    pub name: String,
    /// The game dealt at the table.
    pub game: Game,
    /// The rule book the table is checked against, e.g. `nz-baccarat`.
    pub rules: String,
    /// The card-reading device and how it is reached.
    pub device: DeviceConfig,
}

/// A table game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum Game {
    /// Baccarat (Mini, Midi, Full).
    Baccarat,
    /// Blackjack.
    Blackjack,
    /// Pontoon (48-card decks).
    Pontoon,
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

/// A device and its link.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeviceConfig {
    /// The protocol it speaks.
    pub protocol: Protocol,
    /// A serial port, when connected by serial.
    pub serial: Option<SerialLink>,
    /// `host:port` of a serial-to-Ethernet device server, when connected by TCP.
    pub tcp: Option<String>,
    /// Simulated by Pitwatch itself (the demo pit).
    #[serde(default)]
    pub simulated: bool,
}

/// Serial line settings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SerialLink {
    /// The port's path, e.g. `/dev/ttyUSB0`.
    pub path: String,
    /// Line speed; the Angel Eye default is 4800.
    #[serde(default = "default_baud")]
    pub baud: u32,
}

fn default_baud() -> u32 {
    4800
}

impl fmt::Display for DeviceConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.simulated {
            return f.write_str("simulated");
        }
        match (&self.serial, &self.tcp) {
            (Some(serial), _) => write!(f, "{} @ {} baud", serial.path, serial.baud),
            (None, Some(address)) => write!(f, "tcp {address}"),
            (None, None) => f.write_str("no link"),
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
        let mut problems = Vec::new();
        if self.site.name.trim().is_empty() {
            problems.push("site.name is empty".to_owned());
        }
        if self.tables.is_empty() {
            problems.push("no [[table]] is defined".to_owned());
        }
        let mut seen = BTreeSet::new();
        for (i, table) in self.tables.iter().enumerate() {
            let label = format!("table {} ({:?})", i + 1, table.name);
            if table.name.trim().is_empty() {
                problems.push(format!("{label}: name is empty"));
            } else if !seen.insert(table.name.as_str()) {
                problems.push(format!("{label}: another table has the same name"));
            }
            if table.rules.trim().is_empty() {
                problems.push(format!("{label}: rules is empty"));
            }
            let device = &table.device;
            let links = usize::from(device.serial.is_some())
                + usize::from(device.tcp.is_some())
                + usize::from(device.simulated);
            if links != 1 {
                problems.push(format!(
                    "{label}: device needs exactly one of serial, tcp or simulated (found {links})"
                ));
            }
            if let Some(address) = &device.tcp {
                if address
                    .rsplit_once(':')
                    .and_then(|(_, p)| p.parse::<u16>().ok())
                    .is_none()
                {
                    problems.push(format!("{label}: device.tcp {address:?} is not host:port"));
                }
            }
            if let Some(serial) = &device.serial {
                if serial.path.trim().is_empty() {
                    problems.push(format!("{label}: device.serial.path is empty"));
                }
                if serial.baud == 0 {
                    problems.push(format!("{label}: device.serial.baud must be above 0"));
                }
            }
            if device.simulated && !self.demo {
                problems.push(format!(
                    "{label}: simulated devices are only allowed in a demo pit (demo = true)"
                ));
            }
        }
        problems
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn demo_pit_is_valid_and_has_six_tables() {
        let pit = PitConfig::from_toml(DEMO_PIT).unwrap();
        assert!(pit.demo);
        assert!(pit.tables.len() >= 6);
        assert!(pit
            .tables
            .iter()
            .any(|t| t.device.protocol == Protocol::Barcode));
    }

    #[test]
    fn every_problem_is_listed_at_once() {
        let text = r#"
            [site]
            name = ""
            [[table]]
            name = "BAC-1"
            game = "baccarat"
            rules = "nz-baccarat"
            device = { protocol = "angel-eye", tcp = "10.1.1.5" }
            [[table]]
            name = "BAC-1"
            game = "baccarat"
            rules = ""
            device = { protocol = "barcode", simulated = true, serial = { path = "/dev/ttyS0" } }
        "#;
        let PitConfigError::Invalid(problems) = PitConfig::from_toml(text).unwrap_err() else {
            panic!("expected a list of problems");
        };
        assert_eq!(
            problems,
            [
                "site.name is empty",
                "table 1 (\"BAC-1\"): device.tcp \"10.1.1.5\" is not host:port",
                "table 2 (\"BAC-1\"): another table has the same name",
                "table 2 (\"BAC-1\"): rules is empty",
                "table 2 (\"BAC-1\"): device needs exactly one of serial, tcp or simulated (found 2)",
                "table 2 (\"BAC-1\"): simulated devices are only allowed in a demo pit (demo = true)",
            ]
        );
    }

    #[test]
    fn syntax_errors_say_where() {
        let err = PitConfig::from_toml("[site]\nname = \"x\"\n[[table]]\ngame = \"craps\"\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("craps") || err.contains("line 4"), "{err}");
    }

    #[test]
    fn links_describe_themselves() {
        let serial = DeviceConfig {
            protocol: Protocol::AngelEye,
            serial: Some(SerialLink {
                path: "/dev/ttyUSB0".into(),
                baud: 4800,
            }),
            tcp: None,
            simulated: false,
        };
        assert_eq!(serial.to_string(), "/dev/ttyUSB0 @ 4800 baud");
    }
}
