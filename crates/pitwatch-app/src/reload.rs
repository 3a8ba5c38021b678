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

use pitwatch_api::dto::{ChangedTableView, PitReload, PitUpdate};
use pitwatch_api::{ApiError, ErrorCode};
use pitwatch_recording::monitor::MonitoredTable;
use pitwatch_recording::pit::{diff, PitConfig};

use crate::access::Command;
use crate::live::{internal, lock, Desk};

impl Desk {
    /// Applies the pit definition's file again (administrators only) and says what that did.
    pub fn reload_pit(&self) -> Result<PitReload, ApiError> {
        let who = self.principal()?;
        crate::access::require(
            &mut lock(&self.store),
            &who,
            Command::ReloadPit,
            "pit",
            self.clock.now(),
        )?;
        let Some(path) = &self.pit_file else {
            return Err(ApiError::new(
                ErrorCode::Conflict,
                "this pit was not read from a file (the demo pit is built in): there is nothing \
                 to reload",
            ));
        };
        let mut monitor = lock(&self.monitor);
        let monitor = monitor
            .as_mut()
            .ok_or_else(|| ApiError::new(ErrorCode::Conflict, "monitoring has stopped"))?;
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
        let running = lock(&self.running).clone();
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
        if !problems.is_empty() {
            fields.push(("problems", problems.join("; ")));
        }
        // The tiles first, so that the first events of a table started now find its tile, and
        // the window gets them before any change to them.
        {
            let counts = lock(&self.store).open_counts()?;
            let mut model = lock(&self.model);
            model.reconcile(&now_running, &d.unchanged);
            model.set_incident_counts(&counts);
            let _ = lock(&self.updates).send(PitUpdate::Tables {
                tables: model.tables().to_vec(),
            });
        }
        *lock(&self.running) = now_running;
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

        let audits = lock(&desk.store).audit_entries(PIT_RELOAD).unwrap();
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
        let audits = lock(&desk.store).audit_entries(PIT_RELOAD).unwrap();
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
}
