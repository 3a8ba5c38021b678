//! The device health board (issue 31): every device that served a table over a shift, with its
//! connections, time connected and not, frames accepted and rejected, and errors, from the record
//! (`Store::device_health`), each compared with the other devices of its protocol: a device that
//! rejects several times its kind's median share of frames, or reconnects several times as often,
//! says so. Any logged-in user reads it (it changes nothing).

use pitwatch_api::dto::{ApiError, DeviceHealthBoard, DeviceHealthView, ShiftQuery};
use pitwatch_model::Timestamp;
use pitwatch_store::DeviceHealth;

use crate::live::Desk;

/// How many times its kind's median a device's share must be to stand out, and the least share
/// (per mille of frames) or count that ever does: one rejected frame in ten is not a pattern.
const TIMES_THE_MEDIAN: f64 = 3.0;
const LEAST_REJECTED_PER_MILLE: f64 = 10.0;
const LEAST_RECONNECTS: u32 = 3;

impl Desk {
    /// The devices' health over the shift `query` gives (its table, if it names one).
    pub fn device_health(&self, query: &ShiftQuery) -> Result<DeviceHealthBoard, ApiError> {
        self.principal()?;
        let shift = Desk::shift(query)?;
        // What has passed of the period: a connection open now was not connected in the future.
        let now = self.clock.now();
        let until = if shift.to.unix_millis() > now.unix_millis() {
            now
        } else {
            shift.to
        };
        let mut rows = self.record.store().device_health(shift.from, until)?;
        if let Some(table) = &shift.table {
            rows.retain(|r| &r.table == table);
        }
        Ok(board(shift.from, shift.to, now, &rows))
    }
}

/// The board of `rows` over `from`..`to`, as it stands at `now` (a period that runs on past now
/// has had only what has passed of it to be connected in).
pub fn board(
    from: Timestamp,
    to: Timestamp,
    now: Timestamp,
    rows: &[DeviceHealth],
) -> DeviceHealthBoard {
    let time =
        |ms: i64| Timestamp::from_unix_millis(ms).map_or_else(|| ms.to_string(), |t| t.to_string());
    let end = to.unix_millis().min(now.unix_millis());
    DeviceHealthBoard {
        from: from.to_string(),
        to: to.to_string(),
        rows: rows
            .iter()
            .map(|r| {
                let since = r.first_ms.max(from.unix_millis());
                let name = |make: &str, model: &str| {
                    format!("{} {}", make.trim(), model.trim())
                        .trim()
                        .to_owned()
                };
                let link = name(&r.make, &r.model);
                let (device, serial, firmware, via) = match &r.reported {
                    Some(said) => (
                        name(&said.make, &said.model),
                        said.serial.clone(),
                        said.firmware.clone(),
                        match r.serial.trim() {
                            "" => link,
                            serial => format!("{link} serial number {serial}").trim().to_owned(),
                        },
                    ),
                    None => (link, r.serial.clone(), r.firmware.clone(), String::new()),
                };
                DeviceHealthView {
                    table: r.table.clone(),
                    protocol: r.protocol.clone(),
                    device,
                    serial,
                    firmware,
                    via,
                    port: r.port.clone(),
                    sessions: r.sessions,
                    first_at: time(r.first_ms),
                    last_end_at: r.last_end_ms.map(time),
                    connected_ms: r.connected_ms,
                    offline_ms: (end - since - r.connected_ms).max(0),
                    frames_accepted: r.frames_accepted,
                    frames_rejected: r.frames_rejected,
                    retransmissions: r.retransmissions,
                    errors: r.errors,
                    error_codes: r.error_codes.clone(),
                    stands_out: stands_out(r, rows),
                }
            })
            .collect(),
    }
}

fn rejected_per_mille(r: &DeviceHealth) -> Option<f64> {
    let total = r.frames_accepted + r.frames_rejected;
    (total > 0).then(|| r.frames_rejected as f64 * 1000.0 / total as f64)
}

fn median(mut values: Vec<f64>) -> Option<f64> {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(values[n / 2]),
        _ => Some((values[n / 2 - 1] + values[n / 2]) / 2.0),
    }
}

/// How `row` stands out among the devices of its protocol in `all` (at least three of them).
pub fn stands_out(row: &DeviceHealth, all: &[DeviceHealth]) -> Vec<String> {
    let kind: Vec<&DeviceHealth> = all.iter().filter(|r| r.protocol == row.protocol).collect();
    if kind.len() < 3 {
        return Vec::new();
    }
    let mut said = Vec::new();
    let shares = median(kind.iter().filter_map(|r| rejected_per_mille(r)).collect());
    if let (Some(share), Some(median)) = (rejected_per_mille(row), shares) {
        if share >= LEAST_REJECTED_PER_MILLE && share > median * TIMES_THE_MEDIAN {
            said.push(format!(
                "rejects {:.1}% of its frames; the median of its kind ({} devices) is {:.1}%",
                share / 10.0,
                kind.len(),
                median / 10.0
            ));
        }
    }
    let reconnects = |r: &DeviceHealth| f64::from(r.sessions.saturating_sub(1));
    let typical = median(kind.iter().map(|r| reconnects(r)).collect()).unwrap_or(0.0);
    let own = row.sessions.saturating_sub(1);
    if own >= LEAST_RECONNECTS && f64::from(own) > typical.max(1.0) * TIMES_THE_MEDIAN {
        said.push(format!(
            "reconnected {own} times; the median of its kind is {typical}"
        ));
    }
    said
}

#[cfg(test)]
mod tests {
    use super::*;

    fn device(table: &str, accepted: u64, rejected: u64, sessions: u32) -> DeviceHealth {
        DeviceHealth {
            table: table.into(),
            protocol: "barcode".into(),
            reported: None,
            make: String::new(),
            model: String::new(),
            serial: String::new(),
            firmware: String::new(),
            port: format!("/dev/{table}"),
            sessions,
            first_ms: 1_000,
            last_end_ms: None,
            connected_ms: 0,
            frames_accepted: accepted,
            frames_rejected: rejected,
            retransmissions: 0,
            errors: 0,
            error_codes: Vec::new(),
        }
    }

    #[test]
    fn a_device_that_rejects_or_reconnects_far_more_than_its_kind_stands_out() {
        let all = [
            device("A", 1000, 2, 1),
            device("B", 1000, 3, 1),
            device("C", 950, 50, 1),
            device("D", 1000, 1, 6),
        ];
        assert!(stands_out(&all[0], &all).is_empty());
        assert_eq!(
            stands_out(&all[2], &all),
            ["rejects 5.0% of its frames; the median of its kind (4 devices) is 0.2%"]
        );
        assert_eq!(
            stands_out(&all[3], &all),
            ["reconnected 5 times; the median of its kind is 0"]
        );
        // Two devices of a kind are no comparison; another protocol is another kind.
        assert!(stands_out(&all[2], &all[1..3]).is_empty());
        let mut other = device("E", 10, 90, 9);
        other.protocol = "angel-eye".into();
        assert!(stands_out(&other, &[all[0].clone(), all[1].clone(), other.clone()]).is_empty());
        // A small share never stands out, whatever the median.
        let quiet = [
            device("A", 1000, 0, 1),
            device("B", 1000, 0, 1),
            device("C", 1000, 5, 1),
        ];
        assert!(stands_out(&quiet[2], &quiet).is_empty());
    }

    #[test]
    fn a_device_is_named_by_what_it_said_and_reached_through_its_adapter() {
        let t = |ms: i64| Timestamp::from_unix_millis(ms).unwrap();
        let mut said = device("A", 10, 0, 1);
        (said.make, said.model, said.serial) =
            ("FTDI".into(), "FT232R USB UART".into(), "A1".into());
        said.reported = Some(pitwatch_store::Reported {
            make: "Acme".into(),
            model: "Shoe 9".into(),
            serial: "S1".into(),
            firmware: "1.0".into(),
        });
        let mut silent = said.clone();
        silent.reported = None;
        let board = board(t(0), t(10_000), t(10_000), &[said, silent]);
        let named = &board.rows[0];
        assert_eq!(
            (
                named.device.as_str(),
                named.serial.as_str(),
                named.firmware.as_str()
            ),
            ("Acme Shoe 9", "S1", "1.0")
        );
        assert_eq!(named.via, "FTDI FT232R USB UART serial number A1");
        // A device that says nothing is known by its link alone, said once.
        let link = &board.rows[1];
        assert_eq!(
            (
                link.device.as_str(),
                link.serial.as_str(),
                link.via.as_str()
            ),
            ("FTDI FT232R USB UART", "A1", "")
        );
    }

    #[test]
    fn the_demo_pits_devices_are_on_the_board_with_their_frames() {
        let dir = tempfile::tempdir().unwrap();
        let (desk, updates) = Desk::start(crate::setup::DeskOptions::demo(dir.path().join("h.db")))
            .expect("the desk starts");
        drop(updates);
        let query = ShiftQuery {
            from: "2000-01-01T00:00:00Z".into(),
            to: "2100-01-01T00:00:00Z".into(),
            table: None,
        };
        let refused = desk.device_health(&query).expect_err("nobody logged in");
        assert_eq!(refused.code, pitwatch_api::ErrorCode::Unauthorised);
        desk.login(crate::setup::DEMO_USER, crate::setup::DEMO_PASSWORD)
            .expect("logged in");
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        let board = loop {
            let board = desk.device_health(&query).expect("a board");
            let tables: std::collections::BTreeSet<&str> = board
                .rows
                .iter()
                .filter(|r| r.frames_accepted > 0)
                .map(|r| r.table.as_str())
                .collect();
            if tables.len() == desk.pit.tables.len() || std::time::Instant::now() > deadline {
                break board;
            }
            std::thread::sleep(std::time::Duration::from_millis(200));
        };
        for table in &desk.pit.tables {
            let row = board
                .rows
                .iter()
                .find(|r| r.table == table.name && r.frames_accepted > 0)
                .unwrap_or_else(|| panic!("{} on the board: {board:?}", table.name));
            assert!(row.sessions >= 1 && row.last_end_at.is_none(), "{row:?}");
            assert!(
                row.connected_ms > 0 && row.connected_ms < 120_000,
                "connected only for what has passed of the period: {row:?}"
            );
        }
        // One table only, and a period before the pit ran: nothing.
        let one = desk
            .device_health(&ShiftQuery {
                table: Some("BAC-1".into()),
                ..query.clone()
            })
            .unwrap();
        assert!(one.rows.iter().all(|r| r.table == "BAC-1") && !one.rows.is_empty());
        let before = desk
            .device_health(&ShiftQuery {
                from: "2000-01-01T00:00:00Z".into(),
                to: "2000-01-02T00:00:00Z".into(),
                table: None,
            })
            .unwrap();
        assert!(before.rows.is_empty(), "{before:?}");
        desk.stop();
    }
}
