//! The connection test of the window's device setup: an administrator's draft link opened and
//! read for a few seconds, every frame shown accepted or rejected, before anything is saved. The
//! reading is the machinery's (`pitwatch_recording::probe`); this is who may run it, which ports
//! it may open (never one a running table reads: a second reader would take that table's bytes)
//! and the conversion to the window's view. Nothing is recorded.

use std::time::Duration;

use pitwatch_api::convert::printable;
use pitwatch_api::dto::{
    LineFlow, LineParity, LinkDraft, LinkTestRequest, LinkTestView, TestFrameView,
};
use pitwatch_api::{ApiError, ErrorCode};
use pitwatch_recording::pit::check_link;
use pitwatch_recording::probe::probe;
use pitwatch_transport::{
    DeviceConfig, FlowControl, Parity, SerialConfig, TcpConfig, TransportConfig,
};

use crate::access::Command;
use crate::live::Desk;

/// The transport `draft` describes (a serial line 8N1 without flow control unless it says).
pub(crate) fn transport(draft: &LinkDraft) -> TransportConfig {
    match draft {
        LinkDraft::Serial { path, baud, line } => {
            let mut serial = SerialConfig::new(path.trim(), *baud);
            if let Some(line) = line {
                serial.data_bits = line.data_bits;
                serial.stop_bits = line.stop_bits;
                serial.parity = match line.parity {
                    LineParity::None => Parity::None,
                    LineParity::Odd => Parity::Odd,
                    LineParity::Even => Parity::Even,
                };
                serial.flow_control = match line.flow_control {
                    LineFlow::None => FlowControl::None,
                    LineFlow::Software => FlowControl::Software,
                    LineFlow::Hardware => FlowControl::Hardware,
                };
            }
            TransportConfig::Serial(serial)
        }
        LinkDraft::Tcp { address } => TransportConfig::Tcp(TcpConfig {
            address: address.trim().to_owned(),
        }),
    }
}

/// The link `draft` describes, with the pit definition's defaults.
fn link_config(draft: &LinkDraft) -> DeviceConfig {
    DeviceConfig::new(transport(draft))
}

/// Whether two links reach the same device (the same port path, the same server address).
fn same_device(a: &TransportConfig, b: &TransportConfig) -> bool {
    match (a, b) {
        (TransportConfig::Serial(a), TransportConfig::Serial(b)) => a.path == b.path,
        (TransportConfig::Tcp(a), TransportConfig::Tcp(b)) => a.address == b.address,
        _ => false,
    }
}

impl Desk {
    /// Opens the link of `request` for its seconds (1 to 30) and says what arrived, decoded by
    /// its protocol (administrators only). A link a running table uses is refused, as are line
    /// settings the pit definition would refuse; nothing is recorded.
    pub fn test_link(&self, request: &LinkTestRequest) -> Result<LinkTestView, ApiError> {
        let who = self.principal()?;
        crate::access::require(
            &mut self.record.store(),
            &who,
            Command::ConfigurePit,
            "link test",
            self.clock.now(),
        )?;
        let invalid = |m: String| ApiError::new(ErrorCode::InvalidInput, m);
        if !(1..=30).contains(&request.seconds) {
            return Err(invalid(format!(
                "a connection test listens for 1 to 30 seconds, not {}",
                request.seconds
            )));
        }
        let link = link_config(&request.link);
        let problems = check_link(&link);
        if !problems.is_empty() {
            return Err(invalid(problems.join("; ")));
        }
        let protocol = request.protocol.config().ok_or_else(|| {
            invalid(format!(
                "this build does not speak {}",
                request.protocol.name()
            ))
        })?;
        let in_use = self.live.running().tables.iter().find_map(|table| {
            table
                .devices
                .iter()
                .filter_map(|d| d.link.as_ref())
                .any(|l| same_device(&l.transport, &link.transport))
                .then(|| table.name.clone())
        });
        if let Some(table) = in_use {
            return Err(ApiError::new(
                ErrorCode::Conflict,
                format!(
                    "{} is table {table}'s link: a test would take its bytes from the record. \
                     Test a device before it is assigned, or retire the table first.",
                    link.transport.describe()
                ),
            ));
        }
        let report = probe(
            &protocol,
            &link,
            Duration::from_secs(u64::from(request.seconds)),
            self.clock.clone(),
        );
        let count = |n: u64| u32::try_from(n).unwrap_or(u32::MAX);
        Ok(LinkTestView {
            verdict: report.verdict(),
            link: report.link,
            connected: report.connected_at.is_some(),
            problems: report.problems,
            bytes: count(report.bytes),
            accepted: count(report.accepted),
            rejected: count(report.rejected),
            frames: report
                .frames
                .iter()
                .map(|f| TestFrameView {
                    at: f.at.to_string(),
                    accepted: f.accepted,
                    text: f.text.clone(),
                    bytes: printable(&f.bytes),
                })
                .collect(),
            listened_ms: count(report.listened_ms),
        })
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;
    use std::net::TcpListener;

    use pitwatch_recording::pit::Protocol;

    use super::*;
    use crate::testkit::{real_desk, SUP};

    fn request(address: String, seconds: u32) -> LinkTestRequest {
        LinkTestRequest {
            protocol: Protocol::Barcode,
            link: LinkDraft::Tcp { address },
            seconds,
        }
    }

    /// Every table's device sessions and events on record.
    fn recorded(desk: &Desk) -> usize {
        let store = desk.record.store();
        store
            .tables()
            .unwrap()
            .iter()
            .map(|t| store.sessions(t.id).unwrap().len() + store.event_rows(t.id).unwrap().len())
            .sum()
    }

    #[test]
    fn an_administrator_sees_a_device_s_frames_before_saving_it_and_nothing_is_recorded() {
        let dir = tempfile::tempdir().unwrap();
        let desk = real_desk(&dir.path().join("pit.db"));
        let server = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = server.local_addr().unwrap().to_string();
        let device = std::thread::spawn(move || {
            let (mut stream, _) = server.accept().unwrap();
            // The barcode shoe's shuffle card, then a line too short to be a card.
            stream.write_all(b"511\r12\r").unwrap();
            std::thread::sleep(Duration::from_millis(1_500));
        });
        let frames_before = recorded(&desk);
        let seen = desk.test_link(&request(address, 1)).expect("tested");
        device.join().unwrap();
        assert!(seen.connected, "{seen:?}");
        assert_eq!((seen.accepted, seen.rejected), (1, 1), "{seen:?}");
        assert!(seen.frames[0].accepted && seen.frames[0].text.contains("shuffle"));
        assert_eq!(seen.frames[1].bytes, "12<0D>");
        assert!(seen.verdict.contains("with errors"), "{}", seen.verdict);
        assert_eq!(recorded(&desk), frames_before, "a test records nothing");
    }

    #[test]
    fn a_running_table_s_link_wrong_settings_and_other_roles_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let desk = real_desk(&dir.path().join("pit.db"));
        // T1's own link (the test pit's only table).
        let running = desk.live.running().tables[0].devices[0]
            .link
            .clone()
            .unwrap();
        let TransportConfig::Tcp(tcp) = running.transport else {
            panic!("T1 is on TCP")
        };
        let refused = desk.test_link(&request(tcp.address, 2)).unwrap_err();
        assert_eq!(refused.code, ErrorCode::Conflict);
        assert!(refused.message.contains("table T1's link"), "{refused:?}");

        let wrong = desk
            .test_link(&LinkTestRequest {
                protocol: Protocol::AngelEye,
                link: LinkDraft::Serial {
                    path: "/dev/ttyUSB0".into(),
                    baud: 96_000,
                    line: None,
                },
                seconds: 2,
            })
            .unwrap_err();
        assert_eq!(wrong.code, ErrorCode::InvalidInput);
        assert!(wrong.message.contains("baud 96000"), "{wrong:?}");
        let long = desk
            .test_link(&request("127.0.0.1:9".into(), 31))
            .unwrap_err();
        assert!(long.message.contains("1 to 30 seconds"), "{long:?}");

        desk.add_user("sam", "supervisor", SUP).unwrap();
        desk.logout().unwrap();
        desk.login("sam", SUP).unwrap();
        let denied = desk
            .test_link(&request("127.0.0.1:9".into(), 1))
            .unwrap_err();
        assert_eq!(denied.code, ErrorCode::Forbidden, "{denied:?}");
    }
}
