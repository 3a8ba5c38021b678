//! Listing the machine's serial ports with their USB identity, for `pitwatch ports` and for
//! noticing a device that re-enumerated as a different adapter.

use serde::Serialize;

use crate::TransportError;

/// The USB identity of a serial adapter.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UsbInfo {
    /// Vendor id.
    pub vid: u16,
    /// Product id.
    pub pid: u16,
    /// Manufacturer string, when the device reports one.
    pub manufacturer: Option<String>,
    /// Product string.
    pub product: Option<String>,
    /// Serial number string.
    pub serial_number: Option<String>,
}

/// What kind of port it is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PortKind {
    /// A USB serial adapter.
    Usb(UsbInfo),
    /// A PCI(e) serial card.
    Pci,
    /// A Bluetooth serial link.
    Bluetooth,
    /// Anything else (on-board UARTs, pseudo-terminals).
    Unknown,
}

impl PortKind {
    /// A one-word name.
    pub fn name(&self) -> &'static str {
        match self {
            PortKind::Usb(_) => "usb",
            PortKind::Pci => "pci",
            PortKind::Bluetooth => "bluetooth",
            PortKind::Unknown => "unknown",
        }
    }
}

/// One serial port of this machine.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PortInfo {
    /// The path to open.
    pub path: String,
    /// Its kind, with the USB identity when it is a USB adapter.
    pub kind: PortKind,
}

/// The serial ports of this machine, sorted by path.
pub fn list_ports() -> Result<Vec<PortInfo>, TransportError> {
    let ports = serialport::available_ports().map_err(|e| TransportError::Io(e.to_string()))?;
    let mut ports: Vec<PortInfo> = ports
        .into_iter()
        .map(|p| PortInfo {
            path: p.port_name,
            kind: match p.port_type {
                serialport::SerialPortType::UsbPort(usb) => PortKind::Usb(UsbInfo {
                    vid: usb.vid,
                    pid: usb.pid,
                    manufacturer: usb.manufacturer,
                    product: usb.product,
                    serial_number: usb.serial_number,
                }),
                serialport::SerialPortType::PciPort => PortKind::Pci,
                serialport::SerialPortType::BluetoothPort => PortKind::Bluetooth,
                serialport::SerialPortType::Unknown => PortKind::Unknown,
            },
        })
        .collect();
    ports.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(ports)
}

/// The USB identity of the port at `path` (following symlinks such as `/dev/serial/by-id/…`).
///
/// Listing the ports walks the whole device tree, which costs milliseconds; done at every
/// connection of a pit of hundreds of pseudo-terminals or TCP-bridged ports that was seconds of
/// CPU at start-up. On Linux a port with no device behind it in `/sys/class/tty` (a
/// pseudo-terminal) cannot be USB, so the listing is skipped for it.
pub(crate) fn usb_info_for(path: &str) -> Option<UsbInfo> {
    let wanted = std::fs::canonicalize(path).ok()?;
    let classes = std::path::Path::new("/sys/class/tty");
    if classes.is_dir() {
        let name = wanted.file_name()?;
        if !classes.join(name).join("device").exists() {
            return None;
        }
    }
    list_ports().ok()?.into_iter().find_map(|port| {
        let same = std::fs::canonicalize(&port.path).ok()? == wanted;
        match port.kind {
            PortKind::Usb(usb) if same => Some(usb),
            _ => None,
        }
    })
}
