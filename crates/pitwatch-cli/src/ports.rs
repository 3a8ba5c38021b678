//! `pitwatch ports`: lists the machine's serial ports with their USB vendor, product and serial
//! number where available, so an installer can tell which adapter is which table's shoe.
//! Listing opens nothing; the transport crate owns the port access.

use std::process::ExitCode;

use clap::Args;
use pitwatch_transport::{list_ports, PortInfo, PortKind};

/// Arguments of `pitwatch ports`.
#[derive(Debug, Args)]
pub struct PortsArgs {
    /// Print JSON (one array of ports) instead of a table.
    #[arg(long)]
    json: bool,
}

/// Runs `pitwatch ports`.
pub fn run(args: PortsArgs) -> anyhow::Result<ExitCode> {
    let ports = list_ports()?;
    if args.json {
        crate::out::json(&ports, true);
    } else {
        for line in table(&ports).lines() {
            outln!("{line}");
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The ports as an aligned text table (or the "none found" line).
fn table(ports: &[PortInfo]) -> String {
    if ports.is_empty() {
        return "no serial ports found\n".into();
    }
    let mut rows = vec![[
        "PATH".to_owned(),
        "TYPE".into(),
        "VID:PID".into(),
        "MANUFACTURER".into(),
        "PRODUCT".into(),
        "SERIAL".into(),
    ]];
    for port in ports {
        let dash = || "-".to_owned();
        let text = |s: &Option<String>| s.clone().filter(|s| !s.is_empty()).unwrap_or_else(dash);
        rows.push(match &port.kind {
            PortKind::Usb(usb) => [
                port.path.clone(),
                port.kind.name().into(),
                format!("{:04x}:{:04x}", usb.vid, usb.pid),
                text(&usb.manufacturer),
                text(&usb.product),
                text(&usb.serial_number),
            ],
            other => [
                port.path.clone(),
                other.name().into(),
                dash(),
                dash(),
                dash(),
                dash(),
            ],
        });
    }
    let mut widths = [0usize; 6];
    for row in &rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for row in &rows {
        let cells: Vec<String> = row
            .iter()
            .zip(widths)
            .map(|(cell, width)| format!("{cell:<width$}"))
            .collect();
        out.push_str(cells.join("  ").trim_end());
        out.push('\n');
    }
    for port in ports {
        if let Some(stable) = &port.stable_path {
            out.push_str(&format!(
                "{} is also {stable}: give that name in the pit definition and the table finds \
                 its adapter again when it is plugged in again under another name\n",
                port.path
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use pitwatch_transport::UsbInfo;

    #[test]
    fn no_ports_says_so() {
        assert_eq!(table(&[]), "no serial ports found\n");
    }

    #[test]
    fn usb_ports_show_their_identity() {
        let ports = [
            PortInfo {
                path: "/dev/ttyS0".into(),
                kind: PortKind::Unknown,
                stable_path: None,
            },
            PortInfo {
                path: "/dev/ttyUSB0".into(),
                kind: PortKind::Usb(UsbInfo {
                    vid: 0x0403,
                    pid: 0x6001,
                    manufacturer: Some("FTDI".into()),
                    product: Some("FT232R USB UART".into()),
                    serial_number: None,
                }),
                stable_path: None,
            },
        ];
        assert_eq!(
            table(&ports),
            "PATH          TYPE     VID:PID    MANUFACTURER  PRODUCT          SERIAL\n\
             /dev/ttyS0    unknown  -          -             -                -\n\
             /dev/ttyUSB0  usb      0403:6001  FTDI          FT232R USB UART  -\n"
        );
        let mut stable = ports[1].clone();
        stable.stable_path = Some("/dev/serial/by-id/usb-FTDI_FT232R-if00-port0".into());
        assert!(table(&[stable]).ends_with(
            "/dev/ttyUSB0 is also /dev/serial/by-id/usb-FTDI_FT232R-if00-port0: give that name in \
             the pit definition and the table finds its adapter again when it is plugged in again \
             under another name\n"
        ));
    }
}
