//! A table's device as it identifies itself, and an incident when that changes (issue 31): the
//! device's own report (the Pitwatch protocol's `HELLO`: make, model, serial, firmware) and its
//! USB adapter's descriptors (serial number, product, the port it came up on), each compared with
//! what the same device of the table said before:
//!
//! - another serial number (the device's, or its USB adapter's) is `DEVICE_SWAPPED` (high): a
//!   device on a table changed without the record saying why;
//! - the same device with other firmware is `DEVICE_FIRMWARE_CHANGED` (medium);
//! - the same USB adapter on another port is `DEVICE_REENUMERATED` (low): the system named it
//!   anew (unplugged and plugged again, a hub reset), worth knowing when its frames are disputed.
//!
//! What a device said last survives a restart: the adapter's descriptors are those of the
//! table's last session on record; the device's own report is a chained fact of the record
//! ([`hello_key`]), written when it changes. An empty field (a device that does not say, an
//! adapter without a serial number) is never a change.

use serde::{Deserialize, Serialize};

use super::*;

/// Swapped: another device (or USB adapter) by its serial number.
pub const DEVICE_SWAPPED: &str = "DEVICE_SWAPPED";
/// The same device reports other firmware.
pub const DEVICE_FIRMWARE_CHANGED: &str = "DEVICE_FIRMWARE_CHANGED";
/// The same USB adapter came up on another port.
pub const DEVICE_REENUMERATED: &str = "DEVICE_REENUMERATED";

/// What a device said of itself in its last `HELLO`, as the record keeps it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hello {
    /// Maker.
    pub make: String,
    /// Model.
    pub model: String,
    /// Serial number.
    pub serial: String,
    /// Firmware version.
    pub firmware: String,
    /// When it said so.
    pub at: String,
}

/// A device's USB adapter as it was last connected.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Usb {
    /// The adapter's serial number.
    pub serial: String,
    /// Its product (or `vid:pid`).
    pub model: String,
    /// The port it came up on.
    pub port: String,
}

/// What a table's device said of itself last.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Known {
    /// Its own report.
    pub hello: Option<Hello>,
    /// Its USB adapter.
    pub usb: Option<Usb>,
}

/// The record's fact holding device `device` (0-based) of table `table`'s last `HELLO`.
pub fn hello_key(table: &str, device: usize) -> String {
    format!("device_hello:{table}:{}", device + 1)
}

/// A change of identity found, as its incident says it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// [`DEVICE_SWAPPED`], [`DEVICE_FIRMWARE_CHANGED`] or [`DEVICE_REENUMERATED`].
    pub code: &'static str,
    /// `high`, `medium` or `low`.
    pub severity: &'static str,
    /// What changed, in words (before and after).
    pub what: String,
}

fn both(a: &str, b: &str) -> bool {
    !a.trim().is_empty() && !b.trim().is_empty()
}

/// What a `HELLO` changes against the last one: a serial number is a swap, else firmware.
pub fn hello_change(before: &Hello, now: &Hello) -> Option<Change> {
    let name = |h: &Hello| format!("{} {}", h.make, h.model).trim().to_owned();
    if both(&before.serial, &now.serial) && before.serial != now.serial {
        return Some(Change {
            code: DEVICE_SWAPPED,
            severity: "high",
            what: format!(
                "it is now {} serial {} (it was {} serial {}, last said at {})",
                name(now),
                now.serial,
                name(before),
                before.serial,
                before.at
            ),
        });
    }
    if both(&before.firmware, &now.firmware) && before.firmware != now.firmware {
        return Some(Change {
            code: DEVICE_FIRMWARE_CHANGED,
            severity: "medium",
            what: format!(
                "{} serial {} now runs firmware {} (it ran {}, last said at {})",
                name(now),
                if now.serial.is_empty() {
                    "unknown"
                } else {
                    &now.serial
                },
                now.firmware,
                before.firmware,
                before.at
            ),
        });
    }
    None
}

/// What a connection's USB adapter changes against the last one: another serial number is a
/// swap, the same one on another port a re-enumeration.
pub fn usb_change(before: &Usb, now: &Usb) -> Option<Change> {
    if both(&before.serial, &now.serial) && before.serial != now.serial {
        return Some(Change {
            code: DEVICE_SWAPPED,
            severity: "high",
            what: format!(
                "its USB adapter is now {} serial {} on {} (it was {} serial {} on {})",
                now.model, now.serial, now.port, before.model, before.serial, before.port
            ),
        });
    }
    if both(&before.serial, &now.serial) && both(&before.port, &now.port) && before.port != now.port
    {
        return Some(Change {
            code: DEVICE_REENUMERATED,
            severity: "low",
            what: format!(
                "its USB adapter {} serial {} came up on {} (it was on {})",
                now.model, now.serial, now.port, before.port
            ),
        });
    }
    None
}

/// What the window is told of device `device`: all that is known of it now.
fn identified(device: usize, known: &Known) -> Derived {
    Derived::DeviceIdentified {
        device,
        hello: known.hello.clone(),
        usb: known.usb.clone(),
    }
}

impl TableRecorder {
    /// Plans what a `HELLO` from `device` puts on record: what it said in this session (the
    /// first time; the device health board names it by that), the fact of what it said last,
    /// when that changed, and an incident when it is another device or other firmware than
    /// before.
    pub(super) fn plan_hello(
        &mut self,
        device: usize,
        session: RowRef<SessionId>,
        writes: &mut Writes,
        identity: &pitwatch_codec::DeviceIdentity,
        at: Timestamp,
        derived: &mut Vec<PlannedDerived>,
    ) {
        let now = Hello {
            make: identity.make.clone(),
            model: identity.model.clone(),
            serial: identity.serial.clone(),
            firmware: identity.firmware.clone(),
            at: at.to_string(),
        };
        let Some(stream) = self.devices.get_mut(device) else {
            return;
        };
        let before = stream.known.hello.replace(now.clone());
        if !stream.said_in_session {
            stream.said_in_session = true;
            writes.push(Op::SessionMeta {
                session,
                key: pitwatch_store::session_hello_key,
                value: serde_json::to_string(&now).unwrap_or_default(),
            });
        }
        derived.push(PlannedDerived::now(identified(device, &stream.known)));
        let same = before.as_ref().is_some_and(|b| {
            (&b.make, &b.model, &b.serial, &b.firmware)
                == (&now.make, &now.model, &now.serial, &now.firmware)
        });
        if same {
            return;
        }
        writes.push(Op::Meta {
            key: hello_key(&self.name, device),
            value: serde_json::to_string(&now).unwrap_or_default(),
        });
        if let Some(change) = before.as_ref().and_then(|b| hello_change(b, &now)) {
            self.plan_identity_incident(device, writes, change, at, derived);
        }
    }

    /// Plans what a connection of `device` through USB adapter `usb` puts on record: an incident
    /// when it is another adapter, or the same on another port.
    pub(super) fn plan_usb(
        &mut self,
        device: usize,
        writes: &mut Writes,
        usb: Usb,
        at: Timestamp,
        derived: &mut Vec<PlannedDerived>,
    ) {
        let Some(stream) = self.devices.get_mut(device) else {
            return;
        };
        // Shown whatever it says; compared, and kept to compare, only by a serial number (an
        // adapter without one cannot be told from another of its model).
        let shown = Known {
            hello: stream.known.hello.clone(),
            usb: Some(usb.clone()),
        };
        derived.push(PlannedDerived::now(identified(device, &shown)));
        if usb.serial.trim().is_empty() {
            return;
        }
        let before = stream.known.usb.replace(usb.clone());
        if let Some(change) = before.as_ref().and_then(|b| usb_change(b, &usb)) {
            self.plan_identity_incident(device, writes, change, at, derived);
        }
    }

    fn plan_identity_incident(
        &mut self,
        device: usize,
        writes: &mut Writes,
        change: Change,
        at: Timestamp,
        derived: &mut Vec<PlannedDerived>,
    ) {
        let who = self.device_words(device);
        let advice = match change.code {
            DEVICE_REENUMERATED => {
                "Nothing is lost by it; check the cable and the hub if it recurs."
            }
            _ => "Check that the change was authorised and the device inspected before play.",
        };
        let message = format!("Table {}: {who}: {}. {advice}", self.name, change.what);
        let slot = writes.push(Op::Incident {
            incident: NewIncident {
                table: self.table,
                code: change.code.into(),
                severity: change.severity.into(),
                rule: "device identity (no Gazette rule)".into(),
                shoe: Some(self.engine.shoe()),
                round: None,
                seq: self.next_seq,
                evidence: Vec::new(),
                message: message.clone(),
            },
            group: None,
            now: at,
        });
        derived.push(PlannedDerived {
            derived: Derived::DeviceChanged {
                device,
                code: change.code,
                severity: change.severity,
                message,
                incident: None,
            },
            incident: Some(slot),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hello(serial: &str, firmware: &str) -> Hello {
        Hello {
            make: "Acme".into(),
            model: "Shoe 9".into(),
            serial: serial.into(),
            firmware: firmware.into(),
            at: "2026-12-02T10:00:00.000Z".into(),
        }
    }

    fn usb(serial: &str, port: &str) -> Usb {
        Usb {
            serial: serial.into(),
            model: "FT232R USB UART".into(),
            port: port.into(),
        }
    }

    #[test]
    fn another_serial_is_a_swap_other_firmware_a_firmware_change() {
        let swap = hello_change(&hello("S1", "1.0"), &hello("S2", "1.0")).unwrap();
        assert_eq!((swap.code, swap.severity), (DEVICE_SWAPPED, "high"));
        assert!(
            swap.what.contains("serial S2") && swap.what.contains("serial S1"),
            "{}",
            swap.what
        );
        // A swap to a device with other firmware is still a swap, said once.
        assert_eq!(
            hello_change(&hello("S1", "1.0"), &hello("S2", "2.0"))
                .unwrap()
                .code,
            DEVICE_SWAPPED
        );
        let firmware = hello_change(&hello("S1", "1.0"), &hello("S1", "1.1")).unwrap();
        assert_eq!(
            (firmware.code, firmware.severity),
            (DEVICE_FIRMWARE_CHANGED, "medium")
        );
        assert!(
            firmware.what.contains("firmware 1.1") && firmware.what.contains("ran 1.0"),
            "{}",
            firmware.what
        );
        assert_eq!(hello_change(&hello("S1", "1.0"), &hello("S1", "1.0")), None);
    }

    #[test]
    fn what_a_device_does_not_say_is_never_a_change() {
        assert_eq!(hello_change(&hello("", "1.0"), &hello("S2", "1.0")), None);
        assert_eq!(hello_change(&hello("S1", "1.0"), &hello("", "1.0")), None);
        assert_eq!(hello_change(&hello("S1", ""), &hello("S1", "2.0")), None);
        assert_eq!(hello_change(&hello("S1", " "), &hello("S1", "2.0")), None);
        assert_eq!(
            usb_change(&usb("", "/dev/ttyUSB0"), &usb("A1", "/dev/ttyUSB1")),
            None
        );
    }

    #[test]
    fn another_adapter_is_a_swap_the_same_on_another_port_a_reenumeration() {
        let swap = usb_change(&usb("A1", "/dev/ttyUSB0"), &usb("B2", "/dev/ttyUSB0")).unwrap();
        assert_eq!(swap.code, DEVICE_SWAPPED);
        let moved = usb_change(&usb("A1", "/dev/ttyUSB0"), &usb("A1", "/dev/ttyUSB1")).unwrap();
        assert_eq!((moved.code, moved.severity), (DEVICE_REENUMERATED, "low"));
        assert!(
            moved.what.contains("/dev/ttyUSB1") && moved.what.contains("was on /dev/ttyUSB0"),
            "{}",
            moved.what
        );
        assert_eq!(
            usb_change(&usb("A1", "/dev/ttyUSB0"), &usb("A1", "/dev/ttyUSB0")),
            None
        );
    }
}
