//! How a device is reached, as written in the site configuration: the link (a serial port with
//! its line settings, or a TCP device server) plus timeouts and the reconnect backoff.

use std::time::Duration;

use serde::{Deserialize, Serialize};

/// One device connection, e.g. in TOML:
///
/// ```toml
/// kind = "serial"
/// path = "/dev/ttyUSB0"
/// baud = 4800
/// read_timeout_ms = 100
/// backoff = { initial_ms = 250, max_ms = 10000 }
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeviceConfig {
    /// The link.
    #[serde(flatten)]
    pub transport: TransportConfig,
    /// How long one read waits for bytes before the reader loop looks at commands and at the
    /// stop flag again. Short enough that stopping and sending stay prompt.
    #[serde(default = "default_read_timeout_ms")]
    pub read_timeout_ms: u64,
    /// How long a TCP connection attempt may take.
    #[serde(default = "default_connect_timeout_ms")]
    pub connect_timeout_ms: u64,
    /// Reconnect when no byte has arrived for this long (catches half-open TCP connections to a
    /// device server that rebooted). `None`: a silent device is never presumed gone; devices
    /// may legitimately be quiet for a long time between shoes.
    #[serde(default)]
    pub idle_reconnect_ms: Option<u64>,
    /// Delays between reconnect attempts.
    #[serde(default)]
    pub backoff: Backoff,
}

fn default_read_timeout_ms() -> u64 {
    100
}

fn default_connect_timeout_ms() -> u64 {
    3000
}

impl DeviceConfig {
    /// A configuration for `transport` with the default timeouts and backoff.
    pub fn new(transport: TransportConfig) -> Self {
        DeviceConfig {
            transport,
            read_timeout_ms: default_read_timeout_ms(),
            connect_timeout_ms: default_connect_timeout_ms(),
            idle_reconnect_ms: None,
            backoff: Backoff::default(),
        }
    }

    /// The read timeout (at least 1 ms).
    pub fn read_timeout(&self) -> Duration {
        Duration::from_millis(self.read_timeout_ms.max(1))
    }

    /// The connect timeout (at least 1 ms).
    pub fn connect_timeout(&self) -> Duration {
        Duration::from_millis(self.connect_timeout_ms.max(1))
    }
}

/// The link to a device.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TransportConfig {
    /// A local serial port (RS-232, USB serial).
    Serial(SerialConfig),
    /// A TCP client to a serial-to-Ethernet device server in "TCP server" mode.
    Tcp(TcpConfig),
}

impl TransportConfig {
    /// A short description for logs and events (`serial /dev/ttyUSB0 4800 8N1`, `tcp 10.0.0.5:4001`).
    pub fn describe(&self) -> String {
        match self {
            TransportConfig::Serial(s) => format!(
                "serial {} {} {}{}{}{}",
                s.path,
                s.baud,
                s.data_bits,
                match s.parity {
                    Parity::None => 'N',
                    Parity::Odd => 'O',
                    Parity::Even => 'E',
                },
                s.stop_bits,
                match s.flow_control {
                    FlowControl::None => "",
                    FlowControl::Software => " xon/xoff",
                    FlowControl::Hardware => " rts/cts",
                }
            ),
            TransportConfig::Tcp(t) => format!("tcp {}", t.address),
        }
    }
}

/// A serial port and its line settings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SerialConfig {
    /// The port (`/dev/ttyUSB0`, `/dev/serial/by-id/...`, `COM3`).
    pub path: String,
    /// Bits per second (the Angel Eye default is 4800; some sites run 9600).
    pub baud: u32,
    /// Data bits, 5 to 8.
    #[serde(default = "default_data_bits")]
    pub data_bits: u8,
    /// Parity.
    #[serde(default)]
    pub parity: Parity,
    /// Stop bits, 1 or 2.
    #[serde(default = "default_stop_bits")]
    pub stop_bits: u8,
    /// Flow control.
    #[serde(default)]
    pub flow_control: FlowControl,
}

fn default_data_bits() -> u8 {
    8
}

fn default_stop_bits() -> u8 {
    1
}

impl SerialConfig {
    /// 8N1 without flow control at `baud`.
    pub fn new(path: impl Into<String>, baud: u32) -> Self {
        SerialConfig {
            path: path.into(),
            baud,
            data_bits: 8,
            parity: Parity::None,
            stop_bits: 1,
            flow_control: FlowControl::None,
        }
    }
}

/// Serial parity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Parity {
    /// No parity bit.
    #[default]
    None,
    /// Odd parity.
    Odd,
    /// Even parity.
    Even,
}

/// Serial flow control.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FlowControl {
    /// None.
    #[default]
    None,
    /// XON/XOFF.
    Software,
    /// RTS/CTS.
    Hardware,
}

/// A TCP device server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TcpConfig {
    /// `host:port`.
    pub address: String,
}

/// The shortest delay between two connection attempts, whatever the configuration says: a
/// backoff of 0 would retry tens of thousands of times a second against a port that is not there.
pub const BACKOFF_FLOOR_MS: u64 = 50;

/// Exponential backoff between reconnect attempts: `initial_ms`, then multiplied by `factor`
/// after each failed attempt, never above `max_ms`, never below [`BACKOFF_FLOOR_MS`]. A
/// successful connection starts it afresh.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Backoff {
    /// First delay.
    pub initial_ms: u64,
    /// Longest delay.
    pub max_ms: u64,
    /// Growth per failed attempt (at least 1).
    pub factor: u32,
}

impl Default for Backoff {
    fn default() -> Self {
        Backoff {
            initial_ms: 250,
            max_ms: 10_000,
            factor: 2,
        }
    }
}

impl Backoff {
    /// The longest delay, never below the floor.
    fn longest(&self) -> Duration {
        Duration::from_millis(self.max_ms.max(BACKOFF_FLOOR_MS))
    }

    /// The first delay.
    pub fn first(&self) -> Duration {
        Duration::from_millis(self.initial_ms.max(BACKOFF_FLOOR_MS)).min(self.longest())
    }

    /// The delay after `current`.
    pub fn after(&self, current: Duration) -> Duration {
        let next = current
            .max(Duration::from_millis(BACKOFF_FLOOR_MS))
            .saturating_mul(self.factor.max(1));
        next.min(self.longest())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serial_config_reads_with_defaults() {
        let config: DeviceConfig =
            serde_json::from_str(r#"{"kind":"serial","path":"/dev/ttyS0","baud":4800}"#).unwrap();
        assert_eq!(
            config,
            DeviceConfig::new(TransportConfig::Serial(SerialConfig::new(
                "/dev/ttyS0",
                4800
            )))
        );
        assert_eq!(config.transport.describe(), "serial /dev/ttyS0 4800 8N1");
    }

    #[test]
    fn every_setting_can_be_given() {
        let config: DeviceConfig = serde_json::from_str(
            r#"{"kind":"serial","path":"COM3","baud":9600,"data_bits":7,"parity":"even",
                "stop_bits":2,"flow_control":"hardware","read_timeout_ms":50,
                "connect_timeout_ms":900,"idle_reconnect_ms":60000,
                "backoff":{"initial_ms":10,"max_ms":80,"factor":3}}"#,
        )
        .unwrap();
        assert_eq!(config.transport.describe(), "serial COM3 9600 7E2 rts/cts");
        assert_eq!(config.read_timeout(), Duration::from_millis(50));
        assert_eq!(config.idle_reconnect_ms, Some(60000));
        let tcp: DeviceConfig =
            serde_json::from_str(r#"{"kind":"tcp","address":"10.0.0.5:4001"}"#).unwrap();
        assert_eq!(tcp.transport.describe(), "tcp 10.0.0.5:4001");
        assert!(serde_json::from_str::<DeviceConfig>(r#"{"kind":"usb"}"#).is_err());
    }

    #[test]
    fn backoff_grows_to_its_bound() {
        let backoff = Backoff {
            initial_ms: 10,
            max_ms: 80,
            factor: 3,
        };
        let mut delay = backoff.first();
        let mut seen = vec![delay.as_millis()];
        for _ in 0..4 {
            delay = backoff.after(delay);
            seen.push(delay.as_millis());
        }
        assert_eq!(seen, [50, 80, 80, 80, 80]);
        let backoff = Backoff {
            initial_ms: 100,
            max_ms: 1000,
            factor: 3,
        };
        let mut delay = backoff.first();
        let mut seen = vec![delay.as_millis()];
        for _ in 0..4 {
            delay = backoff.after(delay);
            seen.push(delay.as_millis());
        }
        assert_eq!(seen, [100, 300, 900, 1000, 1000]);
    }

    #[test]
    fn a_zero_backoff_still_waits_the_floor() {
        let backoff = Backoff {
            initial_ms: 0,
            max_ms: 0,
            factor: 0,
        };
        assert_eq!(backoff.first(), Duration::from_millis(BACKOFF_FLOOR_MS));
        assert_eq!(
            backoff.after(Duration::ZERO),
            Duration::from_millis(BACKOFF_FLOOR_MS)
        );
    }
}
