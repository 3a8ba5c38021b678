//! Where a report goes and what the user does with it next: the system's save dialog picks the
//! file (starting in the folder last chosen, else the user's documents), and a report written in
//! this session can then be opened in the workstation's PDF viewer or sent to its printer.
//!
//! Three settings from the environment, for sites and for tests: [`SAVE_DIR_ENV`] saves every
//! report under its suggested name in a fixed folder without asking (a kiosk workstation, the
//! end-to-end test); [`OPEN_ENV`] and [`PRINT_ENV`] name the programs that open and print a file
//! (the file's path is added as their last argument), by default the desktop's opener and CUPS's
//! `lp` (a site names its printer with `lp -d NAME`).
//!
//! Only files this session wrote can be opened or printed: the window cannot make the shell run
//! a viewer or a printer on any other path.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;

use pitwatch_api::dto::{ApiError, ErrorCode};
use tauri::{Manager, Runtime};
use tauri_plugin_dialog::DialogExt;

/// A folder every report is saved in, under its suggested name, without the dialog.
pub const SAVE_DIR_ENV: &str = "PITWATCH_SAVE_DIR";
/// The program (and its first arguments) that opens a report.
pub const OPEN_ENV: &str = "PITWATCH_OPEN_COMMAND";
/// The program (and its first arguments) that prints a report.
pub const PRINT_ENV: &str = "PITWATCH_PRINT_COMMAND";

/// Where reports are saved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Destination {
    /// The user chooses in the system's save dialog.
    Dialog,
    /// Every report in this folder, under its suggested name.
    Folder(PathBuf),
}

/// The session's reports: where they go, how they are opened and printed, which were written.
#[derive(Debug)]
pub struct Reports {
    destination: Destination,
    open: Vec<String>,
    print: Vec<String>,
    last_folder: Mutex<Option<PathBuf>>,
    written: Mutex<HashSet<PathBuf>>,
}

fn words(text: &str) -> Vec<String> {
    text.split_whitespace().map(str::to_owned).collect()
}

/// The desktop's own opener.
fn default_open() -> Vec<String> {
    if cfg!(target_os = "windows") {
        words("explorer")
    } else if cfg!(target_os = "macos") {
        words("open")
    } else {
        words("xdg-open")
    }
}

impl Reports {
    /// Reports saved at `destination`, opened with `open` and printed with `print` (each a
    /// program and its first arguments; empty: the platform's default).
    pub fn new(destination: Destination, open: &str, print: &str) -> Self {
        let open = Some(words(open))
            .filter(|w| !w.is_empty())
            .unwrap_or_else(default_open);
        let print = Some(words(print))
            .filter(|w| !w.is_empty())
            .unwrap_or_else(|| words("lp"));
        Reports {
            destination,
            open,
            print,
            last_folder: Mutex::new(None),
            written: Mutex::new(HashSet::new()),
        }
    }

    /// As this process's environment sets them.
    pub fn from_env() -> Self {
        let var = |name| std::env::var(name).unwrap_or_default();
        let destination = match var(SAVE_DIR_ENV) {
            dir if dir.trim().is_empty() => Destination::Dialog,
            dir => Destination::Folder(PathBuf::from(dir)),
        };
        Reports::new(destination, &var(OPEN_ENV), &var(PRINT_ENV))
    }

    /// Where to save the report suggested as `name`: the file chosen in the save dialog (titled
    /// `title`, over the main window), or `None` when the user cancelled. A name chosen without
    /// the suggested name's extension (`.pdf`, `.csv`) gets it.
    pub fn choose<R: Runtime>(
        &self,
        app: &tauri::AppHandle<R>,
        name: &str,
        title: &str,
    ) -> Option<PathBuf> {
        let chosen = match &self.destination {
            Destination::Folder(dir) => dir.join(name),
            Destination::Dialog => {
                let start = self
                    .last_folder
                    .lock()
                    .ok()
                    .and_then(|f| f.clone())
                    .or_else(|| app.path().document_dir().ok())
                    .or_else(|| app.path().home_dir().ok());
                let mut dialog = app.dialog().file().set_title(title).set_file_name(name);
                dialog = if name.ends_with(".csv") {
                    dialog.add_filter("CSV file", &["csv"])
                } else if name.ends_with(".pwpack") {
                    dialog.add_filter("Pitwatch evidence pack", &["pwpack"])
                } else {
                    dialog.add_filter("PDF document", &["pdf"])
                };
                if let Some(start) = start {
                    dialog = dialog.set_directory(start);
                }
                if let Some(window) = app.get_webview_window("main") {
                    dialog = dialog.set_parent(&window);
                }
                dialog.blocking_save_file()?.into_path().ok()?
            }
        };
        let extension = Path::new(name)
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or("pdf");
        Some(with_extension(chosen, extension))
    }

    /// Notes that `path` was written: it may be opened and printed, and the next dialog starts
    /// in its folder.
    pub fn remember(&self, path: &str) {
        let path = PathBuf::from(path);
        if let (Ok(mut last), Some(dir)) = (self.last_folder.lock(), path.parent()) {
            *last = Some(dir.to_path_buf());
        }
        if let Ok(mut written) = self.written.lock() {
            written.insert(path);
        }
    }

    /// `path`, if this session wrote it.
    fn written(&self, path: &str) -> Result<PathBuf, ApiError> {
        let path = PathBuf::from(path);
        let known = self
            .written
            .lock()
            .map(|w| w.contains(&path))
            .unwrap_or(false);
        if known && path.is_file() {
            Ok(path)
        } else {
            Err(ApiError::new(
                ErrorCode::NotFound,
                format!(
                    "{:?} is not a report exported in this session: export it again",
                    path.display().to_string()
                ),
            ))
        }
    }

    /// Opens the report at `path` (written in this session) with the PDF viewer.
    pub fn open(&self, path: &str) -> Result<(), ApiError> {
        let path = self.written(path)?;
        let mut child = command(&self.open, &path)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| cannot("open", &self.open, OPEN_ENV, &e))?;
        // The opener may stay as long as the viewer does: it is waited for on a thread of its
        // own, so it leaves no zombie behind and holds nothing up.
        std::thread::spawn(move || child.wait());
        Ok(())
    }

    /// Sends the report at `path` (written in this session) to the printer; answers what the
    /// print system said (CUPS: the request's id).
    pub fn print(&self, path: &str) -> Result<String, ApiError> {
        let path = self.written(path)?;
        let output = command(&self.print, &path)
            .stdin(Stdio::null())
            .output()
            .map_err(|e| cannot("print", &self.print, PRINT_ENV, &e))?;
        let said = |bytes: &[u8]| String::from_utf8_lossy(bytes).trim().to_owned();
        if output.status.success() {
            let answer = said(&output.stdout);
            Ok(if answer.is_empty() {
                "sent to the printer".to_owned()
            } else {
                answer
            })
        } else {
            let why = Some(said(&output.stderr))
                .filter(|s| !s.is_empty())
                .unwrap_or_else(|| format!("it ended with {}", output.status));
            Err(ApiError::new(
                ErrorCode::Conflict,
                format!("The report was not printed: {why}"),
            ))
        }
    }
}

fn command(words: &[String], path: &Path) -> Command {
    let mut command = Command::new(&words[0]);
    command.args(&words[1..]).arg(path);
    command
}

fn cannot(what: &str, words: &[String], env: &str, error: &std::io::Error) -> ApiError {
    let program = &words[0];
    let why = if error.kind() == std::io::ErrorKind::NotFound {
        format!("this workstation has no {program:?} program ({env} names another)")
    } else {
        format!("{program:?} did not start: {error}")
    };
    ApiError::new(
        ErrorCode::Conflict,
        format!("Cannot {what} the report: {why}"),
    )
}

/// `path` ending in `.extension` (any case), adding it when it does not.
fn with_extension(path: PathBuf, extension: &str) -> PathBuf {
    let has = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case(extension));
    if has {
        path
    } else {
        let mut name = path.into_os_string();
        name.push(".");
        name.push(extension);
        PathBuf::from(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chosen_name_gets_the_suggested_extension_once() {
        assert_eq!(
            with_extension("/r/incident-3".into(), "pdf"),
            PathBuf::from("/r/incident-3.pdf")
        );
        assert_eq!(
            with_extension("/r/incident-3.PDF".into(), "pdf"),
            PathBuf::from("/r/incident-3.PDF")
        );
        assert_eq!(
            with_extension("/r/shift.v2".into(), "pdf"),
            PathBuf::from("/r/shift.v2.pdf")
        );
        assert_eq!(
            with_extension("/r/exposure-BAC-1-shoe-2.csv".into(), "csv"),
            PathBuf::from("/r/exposure-BAC-1-shoe-2.csv")
        );
        assert_eq!(
            with_extension("/r/figures".into(), "csv"),
            PathBuf::from("/r/figures.csv")
        );
    }

    #[cfg(unix)]
    fn script(dir: &Path, body: &str) -> String {
        use std::os::unix::fs::PermissionsExt;
        let path = dir.join("printer.sh");
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).expect("written");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("mode");
        path.display().to_string()
    }

    #[cfg(unix)]
    #[test]
    fn only_a_report_written_this_session_is_printed_and_the_printer_is_heard() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let report = dir.path().join("incident-1.pdf");
        std::fs::write(&report, b"%PDF-1.7").expect("written");
        let other = dir.path().join("secret.pdf");
        std::fs::write(&other, b"%PDF-1.7").expect("written");
        let log = dir.path().join("printed");
        let printer = script(
            dir.path(),
            &format!(
                "echo \"$@\" >> {}; echo 'request id is pit-7 (1 file(s))'",
                log.display()
            ),
        );
        let reports = Reports::new(Destination::Dialog, "", &format!("{printer} -d pit"));
        let shown = report.display().to_string();
        let refused = reports.print(&shown).expect_err("not written yet");
        assert_eq!(refused.code, ErrorCode::NotFound);
        reports.remember(&shown);
        assert_eq!(
            reports.print(&shown).expect("printed"),
            "request id is pit-7 (1 file(s))"
        );
        assert_eq!(
            std::fs::read_to_string(&log).expect("the printer ran"),
            format!("-d pit {shown}\n")
        );
        let refused = reports
            .print(&other.display().to_string())
            .expect_err("never exported");
        assert_eq!(refused.code, ErrorCode::NotFound);
        assert!(
            refused.message.contains("export it again"),
            "{}",
            refused.message
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_printer_that_refuses_or_is_missing_says_so() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let report = dir.path().join("shift.pdf");
        std::fs::write(&report, b"%PDF-1.7").expect("written");
        let shown = report.display().to_string();
        let printer = script(
            dir.path(),
            "echo 'lp: Error - No default destination.' >&2; exit 1",
        );
        let reports = Reports::new(Destination::Dialog, "", &printer);
        reports.remember(&shown);
        let refused = reports.print(&shown).expect_err("refused");
        assert_eq!(
            refused.message,
            "The report was not printed: lp: Error - No default destination."
        );
        let missing = Reports::new(
            Destination::Dialog,
            "no-such-viewer-here",
            "no-such-printer-here -d pit",
        );
        missing.remember(&shown);
        let refused = missing.print(&shown).expect_err("no program");
        assert!(
            refused
                .message
                .contains("no \"no-such-printer-here\" program (PITWATCH_PRINT_COMMAND"),
            "{}",
            refused.message
        );
        let refused = missing.open(&shown).expect_err("no program");
        assert!(
            refused.message.starts_with("Cannot open the report"),
            "{}",
            refused.message
        );
    }

    #[test]
    fn the_environment_fixes_the_folder_and_the_programs() {
        let reports = Reports::new(Destination::Folder("/srv/reports".into()), "evince", "");
        assert_eq!(reports.open, ["evince"]);
        assert_eq!(reports.print, ["lp"]);
        assert_eq!(
            reports.destination,
            Destination::Folder("/srv/reports".into())
        );
    }
}
