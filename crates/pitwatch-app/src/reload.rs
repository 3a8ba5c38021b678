//! Reloading the pit definition from the window: the file is read again and what differs from
//! the running pit is applied to the monitor. Only the tables that differ stop and start; the
//! others keep recording. The tiles follow, and the reload is audited (`pit.reload`, with what
//! it changed or why the file was refused). This is the desktop's side of what `pitwatch
//! monitor` does when its file changes.
//!
//! A file that does not read changes nothing. So does one with no table left to run: the
//! running pit keeps going and the error says why. A table the file adds or changes that cannot
//! start here (a simulated one: those run only in the demo, started with the app) is not
//! touched, and the result names it. Settings of the whole pit (`site`, `record`, `central`,
//! `demo`) apply at the next start, and the result says which of them differ.

use pitwatch_api::dto::{
    ChangedTableView, LinkDraft, PitReload, PitUpdate, SerialPortView, TableDraft,
};
use pitwatch_api::{ApiError, ErrorCode};
use pitwatch_recording::monitor::{Monitor, MonitoredTable};
use pitwatch_recording::pit::{diff, PitConfig};

use pitwatch_transport::{FlowControl, Parity, PortKind, TransportConfig};

use crate::access::{Command, Principal};
use crate::live::{internal, Desk};

impl Desk {
    /// Applies the pit definition's file again (administrators only) and says what that did.
    pub fn reload_pit(&self) -> Result<PitReload, ApiError> {
        let who = self.may_configure()?;
        let _one_at_a_time = self.live.one_change_at_a_time();
        self.reload_as(&who, Vec::new())
    }

    /// The administrator logged in, and the file the pit was read from.
    pub(crate) fn may_configure(&self) -> Result<Principal, ApiError> {
        let who = self.principal()?;
        crate::access::require(
            &mut self.record.store(),
            &who,
            Command::ConfigurePit,
            "pit",
            self.clock.now(),
        )?;
        self.pit_file()?;
        Ok(who)
    }

    pub(crate) fn pit_file(&self) -> Result<&std::path::Path, ApiError> {
        self.pit_file.as_deref().ok_or_else(|| {
            ApiError::new(
                ErrorCode::Conflict,
                "this pit was not read from a file (the demo pit is built in): there is nothing \
                 to reload or set up",
            )
        })
    }

    /// The serial ports of this workstation, for an administrator choosing a device's port.
    pub fn serial_ports(&self) -> Result<Vec<SerialPortView>, ApiError> {
        let who = self.principal()?;
        crate::access::require(
            &mut self.record.store(),
            &who,
            Command::ConfigurePit,
            "ports",
            self.clock.now(),
        )?;
        let ports = pitwatch_transport::list_ports().map_err(|e| internal(e.to_string()))?;
        Ok(ports
            .into_iter()
            .map(|p| SerialPortView {
                kind: p.kind.name().to_owned(),
                usb: match &p.kind {
                    PortKind::Usb(u) => {
                        let words: Vec<&str> = [&u.manufacturer, &u.product]
                            .into_iter()
                            .flatten()
                            .map(String::as_str)
                            .collect();
                        let serial = u
                            .serial_number
                            .as_deref()
                            .map(|s| format!(", serial {s}"))
                            .unwrap_or_default();
                        format!("{:04x}:{:04x} {}{serial}", u.vid, u.pid, words.join(" "))
                            .trim()
                            .to_owned()
                    }
                    _ => String::new(),
                },
                path: p.path,
                stable_path: p.stable_path.unwrap_or_default(),
            })
            .collect())
    }

    /// Adds `draft` to the pit definition's file as a `[[table]]` section and starts it by a
    /// reload. The file is written only if, with the section, it still reads and the new table
    /// can run; the previous file is kept beside it (`.bak`). The reload's audit row carries
    /// the section added.
    pub fn add_table(&self, draft: &TableDraft) -> Result<PitReload, ApiError> {
        let who = self.may_configure()?;
        let path = self.pit_file()?;
        let _one_at_a_time = self.live.one_change_at_a_time();
        let invalid = |m: String| ApiError::new(ErrorCode::InvalidInput, m);
        let name = draft.name.trim();
        if self.live.running().tables.iter().any(|t| t.name == name) {
            return Err(invalid(format!(
                "a table named {name:?} is already in the pit"
            )));
        }
        let section = table_section(draft);
        let before = std::fs::read_to_string(path)
            .map_err(|e| internal(format!("cannot read {}: {e}", path.display())))?;
        let mut after = before.clone();
        if !after.is_empty() && !after.ends_with('\n') {
            after.push('\n');
        }
        after.push('\n');
        after.push_str(&section);
        let next = PitConfig::load(&after)
            .map_err(|e| invalid(format!("the table cannot be added: {e}")))?;
        if let Some(problem) = next.disabled.iter().find(|d| d.name == name) {
            return Err(invalid(format!(
                "the table cannot be added: {}",
                problem.problems.join("; ")
            )));
        }
        if !next.tables.iter().any(|t| t.name == name) {
            return Err(invalid(format!("the table {name:?} cannot be added")));
        }
        write_keeping_the_old(path, &before, &after)?;
        self.reload_as(&who, vec![("section", section)])
    }

    /// Applies the file again as `who`, with `more` in the reload's audit row.
    pub(crate) fn reload_as(
        &self,
        who: &Principal,
        more: Vec<(&'static str, String)>,
    ) -> Result<PitReload, ApiError> {
        // The monitor is held throughout: one reload reaches it at a time.
        self.live
            .with_monitor(|monitor| self.reload_on(monitor, who, more))
    }

    /// [`Desk::reload_as`] with the monitor held.
    fn reload_on(
        &self,
        monitor: &mut Monitor,
        who: &Principal,
        more: Vec<(&'static str, String)>,
    ) -> Result<PitReload, ApiError> {
        let path = self.pit_file()?;
        let next = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))
            .and_then(|text| PitConfig::load(&text).map_err(|e| format!("{}: {e}", path.display())))
            .and_then(|next| {
                if next.tables.is_empty() && !next.disabled.is_empty() {
                    let problems = next.disabled.iter().flat_map(|d| d.problems.clone());
                    let error = pitwatch_recording::PitConfigError::Invalid(problems.collect());
                    Err(format!("{}: no table can run; {error}", path.display()))
                } else {
                    Ok(next)
                }
            });
        let next = match next {
            Ok(next) => next,
            Err(why) => {
                monitor
                    .reload(who.actor(), &[("refused", why.clone())], &[], Vec::new())
                    .map_err(internal)?;
                return Err(ApiError::new(
                    ErrorCode::InvalidInput,
                    format!(
                        "the pit definition was not reloaded (the running pit keeps going): {why}"
                    ),
                ));
            }
        };
        let running = self.live.running().clone();
        let mut d = diff(&running, &next);
        // What cannot start here is left as it is: a changed table keeps running as it was, an
        // added one stays out.
        let mut problems = Vec::new();
        let mut start = Vec::new();
        let mut blocked = Vec::new();
        for name in d.to_start() {
            let Some(table) = next.tables.iter().find(|t| t.name == name) else {
                continue;
            };
            match MonitoredTable::from_config(table.clone()) {
                Some(monitored) if !table.simulated => start.push(monitored),
                _ => {
                    problems.push(format!(
                        "table {name}: simulated tables run only in the demo pit, started with \
                         the app; not applied"
                    ));
                    blocked.push(name.to_owned());
                }
            }
        }
        d.added.retain(|n| !blocked.contains(n));
        d.changed.retain(|c| !blocked.contains(&c.name));
        // A changed table that cannot start keeps its running definition, in the new file's place.
        let tables = next
            .tables
            .iter()
            .filter_map(|t| match blocked.contains(&t.name) {
                true => running
                    .tables
                    .iter()
                    .find(|old| old.name == t.name)
                    .cloned(),
                false => Some(t.clone()),
            })
            .collect();
        for name in &blocked {
            if running.tables.iter().any(|old| &old.name == name) {
                d.unchanged.push(name.clone());
            }
        }
        let now_running = PitConfig {
            tables,
            disabled: next.disabled.clone(),
            ..running
        };
        let stop: Vec<String> = d.to_stop().map(str::to_owned).collect();
        let mut fields = d.fields();
        fields.extend(more);
        if !problems.is_empty() {
            fields.push(("problems", problems.join("; ")));
        }
        // The tiles first, so that the first events of a table started now find its tile, and
        // the window gets them before any change to them.
        {
            let counts = self.record.store().open_counts()?;
            let mut model = self.live.model();
            model.reconcile(&now_running, &d.unchanged);
            model.set_incident_counts(&counts);
            self.live.send(PitUpdate::Tables {
                tables: model.tables(),
            });
        }
        *self.live.running() = now_running;
        if let Err(e) = monitor.reload(who.actor(), &fields, &stop, start) {
            problems.push(e);
        }
        Ok(PitReload {
            file: path.display().to_string(),
            added: d.added,
            removed: d.removed,
            disabled: d.disabled,
            changed: d
                .changed
                .into_iter()
                .map(|c| ChangedTableView {
                    name: c.name,
                    what: c.what.into_iter().map(str::to_owned).collect(),
                })
                .collect(),
            unchanged: u32::try_from(d.unchanged.len()).unwrap_or(u32::MAX),
            at_restart: d.at_restart.into_iter().map(str::to_owned).collect(),
            problems,
        })
    }
}

/// `draft` as a `[[table]]` section of the pit definition (TOML; every string quoted and escaped):
/// one device as `device` and `link`, a shoe and a shuffler as a `[[table.device]]` list. A
/// serial line says only what differs from 8N1 without flow control.
fn table_section(draft: &TableDraft) -> String {
    // A JSON string is a TOML basic string: the same quotes and escapes.
    let quote = |text: &str| serde_json::to_string(text.trim()).unwrap_or_else(|_| "\"\"".into());
    let protocol = match draft.protocol {
        pitwatch_recording::pit::Protocol::AngelEye => "angel-eye",
        pitwatch_recording::pit::Protocol::Barcode => "barcode",
        pitwatch_recording::pit::Protocol::Pitwatch => "pitwatch",
    };
    let link = |draft: &LinkDraft| match crate::link_test::transport(draft) {
        TransportConfig::Serial(s) => {
            let mut fields = vec![
                "kind = \"serial\"".to_owned(),
                format!("path = {}", quote(&s.path)),
                format!("baud = {}", s.baud),
            ];
            if s.data_bits != 8 {
                fields.push(format!("data_bits = {}", s.data_bits));
            }
            if s.parity != Parity::None {
                let parity = if s.parity == Parity::Odd {
                    "odd"
                } else {
                    "even"
                };
                fields.push(format!("parity = \"{parity}\""));
            }
            if s.stop_bits != 1 {
                fields.push(format!("stop_bits = {}", s.stop_bits));
            }
            if s.flow_control != FlowControl::None {
                let flow = if s.flow_control == FlowControl::Software {
                    "software"
                } else {
                    "hardware"
                };
                fields.push(format!("flow_control = \"{flow}\""));
            }
            format!("{{ {} }}", fields.join(", "))
        }
        TransportConfig::Tcp(t) => format!("{{ kind = \"tcp\", address = {} }}", quote(&t.address)),
    };
    let mut section = format!(
        "[[table]]\nname = {}\ngame = {}\nrules = {}\n",
        quote(&draft.name),
        quote(&draft.game),
        quote(&draft.rules),
    );
    if let Some(decks) = draft.decks {
        section.push_str(&format!("decks = {decks}\n"));
    }
    if let Some(variant) = draft.variant.as_deref().filter(|v| !v.trim().is_empty()) {
        section.push_str(&format!("variant = {}\n", quote(variant)));
    }
    match &draft.shuffler {
        None => section.push_str(&format!(
            "device = {{ protocol = \"{protocol}\" }}\nlink = {}\n",
            link(&draft.link)
        )),
        Some(shuffler) => section.push_str(&format!(
            "\n[[table.device]]\nrole = \"shoe\"\nprotocol = \"{protocol}\"\nlink = {}\n\n\
             [[table.device]]\nrole = \"shuffler\"\nprotocol = \"pitwatch\"\nlink = {}\n",
            link(&draft.link),
            link(shuffler)
        )),
    }
    section
}

/// Writes `after` to `path` through a file beside it renamed into place (never half a file),
/// keeping `before` as `path.bak`.
pub(crate) fn write_keeping_the_old(
    path: &std::path::Path,
    before: &str,
    after: &str,
) -> Result<(), ApiError> {
    let with = |suffix: &str| {
        let mut name = path.as_os_str().to_owned();
        name.push(suffix);
        std::path::PathBuf::from(name)
    };
    let fail = |what: &std::path::Path, e: std::io::Error| {
        internal(format!("cannot write {}: {e}", what.display()))
    };
    let (bak, tmp) = (with(".bak"), with(".tmp"));
    std::fs::write(&bak, before).map_err(|e| fail(&bak, e))?;
    {
        use std::io::Write;
        let mut file = std::fs::File::create(&tmp).map_err(|e| fail(&tmp, e))?;
        file.write_all(after.as_bytes())
            .and_then(|()| file.sync_all())
            .map_err(|e| fail(&tmp, e))?;
    }
    std::fs::rename(&tmp, path).map_err(|e| fail(path, e))
}

#[cfg(test)]
mod tests {
    use std::io::Read;
    use std::net::TcpListener;
    use std::path::Path;
    use std::sync::mpsc::Receiver;
    use std::time::{Duration, Instant};

    use pitwatch_recording::monitor::PIT_RELOAD;

    use super::*;
    use crate::setup::DeskOptions;
    use crate::testkit::{ALICE, SUP};

    fn section(name: &str, port: u16) -> String {
        format!(
            "[[table]]\nname = \"{name}\"\ngame = \"baccarat\"\nrules = \"nz-baccarat\"\n\
             device = {{ protocol = \"barcode\" }}\n\
             link = {{ kind = \"tcp\", address = \"127.0.0.1:{port}\", \
             backoff = {{ initial_ms = 50, max_ms = 100 }} }}\n"
        )
    }

    fn write_pit(file: &Path, sections: &[String]) {
        let text = format!("[site]\nname = \"Reload\"\n{}", sections.concat());
        std::fs::write(file, text).unwrap();
    }

    /// A device server nobody has connected to yet.
    fn device() -> (TcpListener, u16) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let port = listener.local_addr().unwrap().port();
        (listener, port)
    }

    /// Whether the monitor connects to `listener` within a few seconds.
    fn connects(listener: &TcpListener) -> Option<std::net::TcpStream> {
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok((stream, _)) = listener.accept() {
                return Some(stream);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        None
    }

    fn desk_on(dir: &Path, file: &Path) -> (Desk, Receiver<PitUpdate>) {
        let text = std::fs::read_to_string(file).unwrap();
        let (desk, updates) = Desk::start(DeskOptions {
            pit: PitConfig::load(&text).unwrap(),
            pit_file: Some(file.to_owned()),
            ..DeskOptions::demo(dir.join("pit.db"))
        })
        .expect("the desk starts");
        desk.create_first_admin("alice", ALICE).unwrap();
        (desk, updates)
    }

    fn names(desk: &Desk) -> Vec<String> {
        desk.overview()
            .tables
            .iter()
            .map(|t| t.name.clone())
            .collect()
    }

    #[test]
    fn a_reload_starts_the_new_table_stops_the_removed_one_and_leaves_the_others_alone() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("pit.toml");
        let (keep, keep_port) = device();
        let (gone, gone_port) = device();
        write_pit(
            &file,
            &[section("KEEP", keep_port), section("GONE", gone_port)],
        );
        let (desk, updates) = desk_on(dir.path(), &file);
        let mut kept = connects(&keep).expect("KEEP connects");
        let mut removed = connects(&gone).expect("GONE connects");

        let (new, new_port) = device();
        write_pit(
            &file,
            &[
                section("NEW", new_port),
                section("KEEP", keep_port),
                "[[table]]\nname = \"BAD\"\nrulez = 1\n".into(),
            ],
        );
        let done = desk.reload_pit().expect("reloaded");
        assert_eq!(done.added, ["NEW"]);
        assert_eq!(done.removed, ["GONE"]);
        assert!(
            done.changed.is_empty() && done.disabled.is_empty(),
            "{done:?}"
        );
        assert_eq!(done.unchanged, 1);
        assert!(done.problems.is_empty(), "{done:?}");
        assert_eq!(
            names(&desk),
            ["NEW", "KEEP", "BAD"],
            "the tiles follow the file"
        );
        assert!(
            desk.overview().tables[2].disabled.is_some(),
            "BAD is shown disabled"
        );
        assert!(connects(&new).is_some(), "NEW's device is read");
        // The window is sent the new tile list before any change to its tiles.
        let listed = updates.try_iter().find_map(|u| match u {
            PitUpdate::Tables { tables } => {
                Some(tables.into_iter().map(|t| t.name).collect::<Vec<_>>())
            }
            _ => None,
        });
        assert_eq!(listed.expect("a Tables update"), ["NEW", "KEEP", "BAD"]);
        // GONE's connection is closed; KEEP's is the same one as before.
        removed
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        assert_eq!(removed.read(&mut [0; 8]).unwrap_or(0), 0, "GONE is let go");
        kept.set_read_timeout(Some(Duration::from_millis(300)))
            .unwrap();
        assert!(
            kept.read(&mut [0; 8]).is_err(),
            "KEEP's link was not touched (no EOF)"
        );

        let audits = desk.record.store().audit_entries(PIT_RELOAD).unwrap();
        let last = audits.last().expect("the reload is audited");
        assert_eq!(last.user, "alice");
        assert!(
            last.detail.contains("NEW") && last.detail.contains("GONE"),
            "{}",
            last.detail
        );
        desk.stop();
    }

    #[test]
    fn a_file_that_does_not_read_changes_nothing_and_says_why() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("pit.toml");
        let (_one, port) = device();
        write_pit(&file, &[section("ONE", port)]);
        let (desk, _updates) = desk_on(dir.path(), &file);
        std::fs::write(&file, "[site\nname = ").unwrap();
        let refused = desk.reload_pit().expect_err("refused");
        assert_eq!(refused.code, ErrorCode::InvalidInput);
        assert!(
            refused.message.contains("keeps going"),
            "{}",
            refused.message
        );
        write_pit(&file, &["[[table]]\nname = \"BAD\"\nrulez = 1\n".into()]);
        let none = desk.reload_pit().expect_err("no table can run");
        assert!(
            none.message.contains("no table can run"),
            "{}",
            none.message
        );
        assert_eq!(names(&desk), ["ONE"]);
        let audits = desk.record.store().audit_entries(PIT_RELOAD).unwrap();
        assert_eq!(audits.len(), 2, "each refusal is audited");
        assert!(
            audits.iter().all(|a| a.detail.contains("refused")),
            "{audits:?}"
        );
        desk.stop();
    }

    #[test]
    fn only_an_administrator_reloads_and_only_a_pit_read_from_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("pit.toml");
        let (_one, port) = device();
        write_pit(&file, &[section("ONE", port)]);
        let (desk, _updates) = desk_on(dir.path(), &file);
        desk.add_user("sam", "supervisor", SUP).unwrap();
        desk.logout().unwrap();
        desk.login("sam", SUP).unwrap();
        let refused = desk.reload_pit().expect_err("a supervisor may not");
        assert_eq!(refused.code, ErrorCode::Forbidden);
        desk.stop();

        let demo_dir = tempfile::tempdir().unwrap();
        let desk = crate::testkit::real_desk(&demo_dir.path().join("pit.db"));
        let refused = desk.reload_pit().expect_err("no file");
        assert_eq!(refused.code, ErrorCode::Conflict);
        assert!(
            refused.message.contains("not read from a file"),
            "{}",
            refused.message
        );
        desk.stop();
    }
    fn tcp_draft(name: &str, port: u16) -> TableDraft {
        TableDraft {
            name: name.into(),
            game: "baccarat".into(),
            rules: "nz-baccarat".into(),
            protocol: pitwatch_recording::pit::Protocol::Barcode,
            link: LinkDraft::Tcp {
                address: format!("127.0.0.1:{port}"),
            },
            decks: None,
            variant: None,
            shuffler: None,
        }
    }

    #[test]
    fn a_drafted_section_reads_back_as_drafted_decks_line_and_shuffler_included() {
        use pitwatch_api::dto::{LineFlow, LineParity, SerialLine};
        let draft = TableDraft {
            name: "BAC-9".into(),
            decks: Some(6),
            link: LinkDraft::Serial {
                path: "/dev/serial/by-id/usb-FTDI_A10K-if00-port0".into(),
                baud: 4800,
                line: Some(SerialLine {
                    data_bits: 7,
                    parity: LineParity::Even,
                    stop_bits: 2,
                    flow_control: LineFlow::Hardware,
                }),
            },
            shuffler: Some(LinkDraft::Tcp {
                address: "10.0.4.21:4001".into(),
            }),
            ..tcp_draft("BAC-9", 1)
        };
        let text = format!("[site]\nname = \"T\"\n\n{}", table_section(&draft));
        let pit = PitConfig::load(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert!(pit.disabled.is_empty(), "{:?}\n{text}", pit.disabled);
        let table = &pit.tables[0];
        assert_eq!(table.decks, Some(6));
        let roles: Vec<&str> = table.devices.iter().map(|d| d.role.as_str()).collect();
        assert_eq!(roles, ["shoe", "shuffler"]);
        let Some(TransportConfig::Serial(serial)) =
            table.devices[0].link.as_ref().map(|l| &l.transport)
        else {
            panic!("a serial shoe: {text}");
        };
        assert_eq!(
            (
                serial.baud,
                serial.data_bits,
                serial.parity,
                serial.stop_bits
            ),
            (4800, 7, Parity::Even, 2)
        );
        assert_eq!(serial.flow_control, FlowControl::Hardware);
        assert_eq!(
            table.devices[1]
                .link
                .as_ref()
                .map(|l| l.transport.describe()),
            Some("tcp 10.0.4.21:4001".into())
        );
        // 8N1 without flow control is the default, not written; a poker variant is.
        let plain = TableDraft {
            game: "poker".into(),
            rules: "nz-poker".into(),
            variant: Some("seven_card_stud".into()),
            link: LinkDraft::Serial {
                path: "/dev/ttyUSB0".into(),
                baud: 9600,
                line: Some(SerialLine {
                    data_bits: 8,
                    parity: LineParity::None,
                    stop_bits: 1,
                    flow_control: LineFlow::None,
                }),
            },
            ..tcp_draft("POK-1", 1)
        };
        let section = table_section(&plain);
        assert!(
            section.contains("link = { kind = \"serial\", path = \"/dev/ttyUSB0\", baud = 9600 }"),
            "{section}"
        );
        let pit = PitConfig::load(&format!("[site]\nname = \"T\"\n\n{section}")).unwrap();
        assert_eq!(
            pit.tables[0].variant.as_deref(),
            Some("seven_card_stud"),
            "{section}"
        );
    }

    #[test]
    fn a_table_added_from_the_window_is_written_to_the_file_and_started() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("pit.toml");
        let (one, port) = device();
        write_pit(&file, &[section("ONE", port)]);
        let before = std::fs::read_to_string(&file).unwrap();
        let (desk, _updates) = desk_on(dir.path(), &file);
        let mut first = connects(&one).expect("ONE connects");

        let (added, added_port) = device();
        let done = desk
            .add_table(&tcp_draft("NEW \"2\"", added_port))
            .expect("added");
        assert_eq!(done.added, ["NEW \"2\""]);
        assert_eq!(done.unchanged, 1);
        assert!(connects(&added).is_some(), "the new table's device is read");
        first
            .set_read_timeout(Some(Duration::from_millis(300)))
            .unwrap();
        assert!(first.read(&mut [0; 8]).is_err(), "ONE kept its link");
        // The file is the import/export form: the old text kept, the section appended, and the
        // whole reads back with the new table in it (its name quoted as TOML quotes it).
        let after = std::fs::read_to_string(&file).unwrap();
        assert!(after.starts_with(&before), "{after}");
        assert!(after.contains("name = \"NEW \\\"2\\\"\""), "{after}");
        let read = PitConfig::load(&after).unwrap();
        assert_eq!(read.tables.len(), 2);
        assert_eq!(
            std::fs::read_to_string(file.with_extension("toml.bak")).unwrap(),
            before
        );
        let audits = desk.record.store().audit_entries(PIT_RELOAD).unwrap();
        let last = audits.last().expect("audited");
        assert!(
            last.detail.contains("section") && last.detail.contains("[[table]]"),
            "{}",
            last.detail
        );

        // A name in use, a section that does not read: refused, the file untouched.
        let taken = desk.add_table(&tcp_draft("ONE", 9)).expect_err("taken");
        assert!(
            taken.message.contains("already in the pit"),
            "{}",
            taken.message
        );
        let bad = TableDraft {
            game: "roulette".into(),
            ..tcp_draft("SPIN-1", 9)
        };
        let refused = desk.add_table(&bad).expect_err("no such game");
        assert_eq!(refused.code, ErrorCode::InvalidInput);
        assert!(
            refused.message.contains("cannot be added"),
            "{}",
            refused.message
        );
        let bad_baud = TableDraft {
            link: LinkDraft::Serial {
                path: "/dev/ttyUSB9".into(),
                baud: 96000,
                line: None,
            },
            ..tcp_draft("SER-1", 9)
        };
        let refused = desk.add_table(&bad_baud).expect_err("not a baud rate");
        assert!(refused.message.contains("96000"), "{}", refused.message);
        assert_eq!(
            std::fs::read_to_string(&file).unwrap(),
            after,
            "the file untouched"
        );
        desk.stop();
    }

    #[test]
    fn only_an_administrator_sees_the_ports_and_adds_tables() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("pit.toml");
        let (_one, port) = device();
        write_pit(&file, &[section("ONE", port)]);
        let (desk, _updates) = desk_on(dir.path(), &file);
        assert!(
            desk.serial_ports().is_ok(),
            "an administrator lists the ports"
        );
        desk.add_user("sam", "supervisor", SUP).unwrap();
        desk.logout().unwrap();
        desk.login("sam", SUP).unwrap();
        assert_eq!(desk.serial_ports().unwrap_err().code, ErrorCode::Forbidden);
        assert_eq!(
            desk.add_table(&tcp_draft("TWO", 9)).unwrap_err().code,
            ErrorCode::Forbidden
        );
        desk.stop();
    }

    #[test]
    fn a_table_renamed_or_retired_from_the_window_changes_only_its_section_and_link() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("pit.toml");
        let (one, one_port) = device();
        let (two, two_port) = device();
        write_pit(&file, &[section("ONE", one_port), section("TWO", two_port)]);
        let (desk, _updates) = desk_on(dir.path(), &file);
        let mut first = connects(&one).expect("ONE connects");
        let mut second = connects(&two).expect("TWO connects");

        let done = desk.rename_table("TWO", "TWO-B").expect("renamed");
        assert_eq!(
            (done.added, done.removed),
            (vec!["TWO-B".to_owned()], vec!["TWO".to_owned()])
        );
        assert_eq!(names(&desk), ["ONE", "TWO-B"]);
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(
            text.contains("name = \"TWO-B\"") && !text.contains("\"TWO\""),
            "{text}"
        );
        // The renamed table's device session starts again under its new name; ONE's link is
        // not touched.
        second
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        assert_eq!(
            second.read(&mut [0; 8]).unwrap_or(0),
            0,
            "TWO's session ends"
        );
        assert!(connects(&two).is_some(), "TWO-B reads the same device");
        first
            .set_read_timeout(Some(Duration::from_millis(300)))
            .unwrap();
        assert!(first.read(&mut [0; 8]).is_err(), "ONE kept its link");
        let audits = desk.record.store().audit_entries(PIT_RELOAD).unwrap();
        let detail: serde_json::Value =
            serde_json::from_str(&audits.last().expect("audited").detail).unwrap();
        assert_eq!(detail["renamed"], "TWO to TWO-B");
        assert!(
            detail["before"].as_str().unwrap().contains("\"TWO\""),
            "{detail}"
        );
        assert!(
            detail["after"].as_str().unwrap().contains("\"TWO-B\""),
            "{detail}"
        );

        // A name the pit definition refuses, or one in use: nothing changes.
        let taken = desk.rename_table("TWO-B", "ONE").expect_err("in use");
        assert!(taken.message.contains("already in the pit"), "{taken}");
        assert_eq!(
            std::fs::read_to_string(&file).unwrap(),
            text,
            "the file untouched"
        );

        let done = desk.retire_table("TWO-B").expect("retired");
        assert_eq!(done.removed, ["TWO-B"]);
        assert_eq!(names(&desk), ["ONE"]);
        let audits = desk.record.store().audit_entries(PIT_RELOAD).unwrap();
        let detail: serde_json::Value =
            serde_json::from_str(&audits.last().expect("audited").detail).unwrap();
        assert_eq!(detail["retired"], "TWO-B");
        assert!(
            detail["before"].as_str().unwrap().contains("TWO-B"),
            "{detail}"
        );
        // The last table is not retired.
        let last = desk.retire_table("ONE").expect_err("the only table");
        assert_eq!(last.code, ErrorCode::Conflict);
        assert!(last.message.contains("only table"), "{last}");
        assert_eq!(names(&desk), ["ONE"]);
        // A supervisor may do neither.
        desk.add_user("sam", "supervisor", SUP).unwrap();
        desk.logout().unwrap();
        desk.login("sam", SUP).unwrap();
        assert_eq!(
            desk.rename_table("ONE", "UNO").unwrap_err().code,
            ErrorCode::Forbidden
        );
        desk.stop();
    }
}
