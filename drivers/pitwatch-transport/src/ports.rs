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
    /// A name for the same port that does not change when the adapter is plugged in again or
    /// the machine restarts (udev's `/dev/serial/by-id/…`, from the adapter's maker, product
    /// and serial number), when there is one: `/dev/ttyUSB0` may come back as `/dev/ttyUSB1`.
    pub stable_path: Option<String>,
}

/// Where udev names serial ports by their adapter's identity.
pub const BY_ID: &str = "/dev/serial/by-id";

/// The entry of `dir` (a `/dev/serial/by-id`) that leads to the same device as `path`, if any.
pub fn stable_path_in(dir: &std::path::Path, path: &str) -> Option<String> {
    let wanted = std::fs::canonicalize(path).ok()?;
    let mut names: Vec<std::path::PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    names.sort();
    names
        .into_iter()
        .find(|link| std::fs::canonicalize(link).is_ok_and(|target| target == wanted))
        .map(|link| link.to_string_lossy().into_owned())
}

/// The serial ports of this machine, sorted by path.
pub fn list_ports() -> Result<Vec<PortInfo>, TransportError> {
    let ports = serialport::available_ports().map_err(|e| TransportError::Io(e.to_string()))?;
    let mut ports: Vec<PortInfo> = ports
        .into_iter()
        .map(|p| PortInfo {
            stable_path: stable_path_in(std::path::Path::new(BY_ID), &p.port_name)
                .filter(|stable| *stable != p.port_name),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_port_is_found_under_its_stable_name_and_only_its_own() {
        let dev = tempfile::tempdir().unwrap();
        let (usb0, usb1) = (dev.path().join("ttyUSB0"), dev.path().join("ttyUSB1"));
        std::fs::write(&usb0, b"").unwrap();
        std::fs::write(&usb1, b"").unwrap();
        let by_id = dev.path().join("by-id");
        std::fs::create_dir(&by_id).unwrap();
        let a10k = by_id.join("usb-FTDI_FT232R_USB_UART_A10K-if00-port0");
        std::os::unix::fs::symlink("../ttyUSB1", &a10k).unwrap();
        let path = |p: &std::path::Path| p.to_string_lossy().into_owned();
        assert_eq!(stable_path_in(&by_id, &path(&usb1)), Some(path(&a10k)));
        assert_eq!(stable_path_in(&by_id, &path(&usb0)), None);
        // Re-enumerated: the same adapter's name now leads to ttyUSB0.
        std::fs::remove_file(&a10k).unwrap();
        std::os::unix::fs::symlink("../ttyUSB0", &a10k).unwrap();
        assert_eq!(stable_path_in(&by_id, &path(&usb0)), Some(path(&a10k)));
        assert_eq!(stable_path_in(&by_id, &path(&usb1)), None);
        // No such folder (no USB adapter ever plugged in), no such port: nothing.
        assert_eq!(stable_path_in(&dev.path().join("none"), &path(&usb0)), None);
        assert_eq!(stable_path_in(&by_id, "/dev/nothing-here"), None);
    }
}
