//! The main window's size and place, remembered across restarts: a small file in the app's config
//! directory (`window-state.json`: position, inner size in physical pixels, maximised or not),
//! read when the window opens and written whenever it moves, is resized or closes.
//!
//! A remembered place that no monitor shows any more (a screen unplugged, a smaller one) is not
//! used: the window keeps its size, clamped to the largest monitor, where the system puts it. A
//! file that cannot be read or makes no sense is ignored with a line on stderr; the window opens
//! as configured.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};
use tauri::{Manager, PhysicalPosition, PhysicalSize, Runtime, Window, WindowEvent};

/// The file in the app's config directory.
pub const FILE: &str = "window-state.json";

/// The smallest inner size restored (the window's own minimum, `tauri.conf.json`).
pub const MIN_SIZE: (u32, u32) = (960, 600);

/// The largest inner size believed (anything larger is a damaged file).
const MAX_SIDE: u32 = 16_384;

/// How much of the window's top edge must lie on a monitor for its place to be used: enough to
/// grab and move it.
const GRAB: (u32, u32) = (120, 40);

/// The window's place, in physical pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct WindowState {
    /// The outer position's left edge.
    pub x: i32,
    /// The outer position's top edge.
    pub y: i32,
    /// The inner width (before maximising, when maximised).
    pub width: u32,
    /// The inner height (before maximising, when maximised).
    pub height: u32,
    /// Whether the window was maximised.
    pub maximized: bool,
}

/// A monitor's area, in physical pixels: left, top, width, height.
pub type Area = (i32, i32, u32, u32);

impl WindowState {
    /// Reads a state file's text; a size out of range or a field missing is an error, in words.
    pub fn parse(text: &str) -> Result<WindowState, String> {
        let state: WindowState =
            serde_json::from_str(text).map_err(|e| format!("not a window state: {e}"))?;
        state.check()?;
        Ok(state)
    }

    /// Whether the size is one a window of this app can have.
    pub fn check(&self) -> Result<(), String> {
        let (w, h) = (self.width, self.height);
        if w < MIN_SIZE.0 || h < MIN_SIZE.1 || w > MAX_SIDE || h > MAX_SIDE {
            return Err(format!(
                "a size of {w}x{h} is out of range ({}x{} to {MAX_SIDE}x{MAX_SIDE})",
                MIN_SIZE.0, MIN_SIZE.1
            ));
        }
        Ok(())
    }

    /// Whether enough of the window's top edge lies on one of `monitors` to grab it.
    pub fn on_screen(&self, monitors: &[Area]) -> bool {
        let (left, top) = (i64::from(self.x), i64::from(self.y));
        let right = left + i64::from(self.width);
        monitors.iter().any(|&(mx, my, mw, mh)| {
            let (mx, my) = (i64::from(mx), i64::from(my));
            let (mr, mb) = (mx + i64::from(mw), my + i64::from(mh));
            let across = right.min(mr) - left.max(mx);
            across >= i64::from(GRAB.0) && top >= my && top + i64::from(GRAB.1) <= mb
        })
    }

    /// The size clamped to the largest of `monitors` (unchanged when none is known).
    pub fn clamped_size(&self, monitors: &[Area]) -> (u32, u32) {
        let Some(&(_, _, mw, mh)) = monitors
            .iter()
            .max_by_key(|m| u64::from(m.2) * u64::from(m.3))
        else {
            return (self.width, self.height);
        };
        (
            self.width.min(mw.max(MIN_SIZE.0)),
            self.height.min(mh.max(MIN_SIZE.1)),
        )
    }
}

/// Reads the state file at `path`: `None` when there is none yet, or it is unusable (said on stderr).
pub fn load(path: &Path) -> Option<WindowState> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
        Err(e) => {
            eprintln!(
                "pitwatch: the window's size and place in {}: {e}",
                path.display()
            );
            return None;
        }
    };
    WindowState::parse(&text)
        .map_err(|e| eprintln!("pitwatch: {} is ignored: {e}", path.display()))
        .ok()
}

/// Writes the state file at `path` (through a temporary file beside it, then renamed, so a crash
/// leaves the old file or the new one, never half of one).
pub fn save(path: &Path, state: &WindowState) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let text = serde_json::to_string_pretty(state).map_err(std::io::Error::other)?;
    let partial = path.with_extension("json.partial");
    std::fs::write(&partial, text)?;
    std::fs::rename(&partial, path)
}

/// What the app keeps between window events: where the file is and what it last wrote.
pub struct Memory {
    path: PathBuf,
    last: Mutex<Option<WindowState>>,
}

impl Memory {
    /// The memory of the state file at `path`, starting from what the file holds.
    pub fn new(path: PathBuf) -> Memory {
        let last = Mutex::new(load(&path));
        Memory { path, last }
    }

    /// What the file held when the app started (or was last written).
    pub fn current(&self) -> Option<WindowState> {
        *self.last.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Writes `state` unless it is what the file holds already.
    fn remember(&self, state: WindowState) {
        let mut last = self.last.lock().unwrap_or_else(|e| e.into_inner());
        if *last == Some(state) {
            return;
        }
        match save(&self.path, &state) {
            Ok(()) => *last = Some(state),
            Err(e) => eprintln!(
                "pitwatch: cannot remember the window's size and place in {}: {e}",
                self.path.display()
            ),
        }
    }
}

/// The state file of this app (`<config dir>/window-state.json`), when the system has a config directory.
pub fn state_path<R: Runtime, M: Manager<R>>(app: &M) -> Option<PathBuf> {
    app.path().app_config_dir().ok().map(|dir| dir.join(FILE))
}

/// The monitors' areas (none when the system does not say).
fn areas(monitors: tauri::Result<Vec<tauri::Monitor>>) -> Vec<Area> {
    monitors
        .unwrap_or_default()
        .iter()
        .map(|m| {
            let (p, s) = (m.position(), m.size());
            (p.x, p.y, s.width, s.height)
        })
        .collect()
}

/// Puts the main window where it was last time and starts remembering it (call in `setup`).
pub fn restore<R: Runtime>(app: &tauri::App<R>) {
    let Some(path) = state_path(app) else {
        return;
    };
    let memory = Memory::new(path);
    if let (Some(state), Some(window)) = (memory.current(), app.get_webview_window("main")) {
        let screens = areas(window.available_monitors());
        let (width, height) = state.clamped_size(&screens);
        let _ = window.set_size(PhysicalSize::new(width, height));
        if state.on_screen(&screens) || screens.is_empty() {
            let _ = window.set_position(PhysicalPosition::new(state.x, state.y));
        }
        if state.maximized {
            let _ = window.maximize();
        }
    }
    app.manage(memory);
}

/// Remembers the main window's size and place after it moved, was resized or is closing
/// (the builder's `on_window_event`). A maximised window keeps the size it had before.
pub fn on_event<R: Runtime>(window: &Window<R>, event: &WindowEvent) {
    if window.label() != "main" {
        return;
    }
    if !matches!(
        event,
        WindowEvent::Moved(_) | WindowEvent::Resized(_) | WindowEvent::CloseRequested { .. }
    ) {
        return;
    }
    let Some(memory) = window.try_state::<Memory>() else {
        return;
    };
    let maximized = window.is_maximized().unwrap_or(false);
    if window.is_minimized().unwrap_or(false) {
        return;
    }
    let state = if maximized {
        // The size and place to come back to when it is restored are those from before.
        match memory.current() {
            Some(before) => WindowState {
                maximized: true,
                ..before
            },
            None => return,
        }
    } else {
        let (Ok(position), Ok(size)) = (window.outer_position(), window.inner_size()) else {
            return;
        };
        WindowState {
            x: position.x,
            y: position.y,
            width: size.width,
            height: size.height,
            maximized: false,
        }
    };
    if state.check().is_ok() {
        memory.remember(state);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HD: Area = (0, 0, 1920, 1080);

    fn state(x: i32, y: i32, width: u32, height: u32) -> WindowState {
        WindowState {
            x,
            y,
            width,
            height,
            maximized: false,
        }
    }

    #[test]
    fn a_state_is_written_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config/org.pitwatch.desktop").join(FILE);
        assert_eq!(load(&path), None, "no file yet");
        let s = WindowState {
            maximized: true,
            ..state(100, 50, 1700, 1000)
        };
        save(&path, &s).unwrap();
        assert_eq!(load(&path), Some(s));
        assert!(!path.with_extension("json.partial").exists());
    }

    #[test]
    fn a_damaged_or_absurd_file_is_refused_in_words() {
        assert!(WindowState::parse("{")
            .unwrap_err()
            .contains("not a window state"));
        assert!(WindowState::parse(r#"{"x":0,"y":0,"width":1920}"#)
            .unwrap_err()
            .contains("height"));
        let tiny = r#"{"x":0,"y":0,"width":200,"height":100,"maximized":false}"#;
        assert_eq!(
            WindowState::parse(tiny).unwrap_err(),
            "a size of 200x100 is out of range (960x600 to 16384x16384)"
        );
        let huge = r#"{"x":0,"y":0,"width":99999,"height":1080,"maximized":false}"#;
        assert!(WindowState::parse(huge).is_err());
        let ok = r#"{"x":-1920,"y":0,"width":1920,"height":1080,"maximized":false}"#;
        assert_eq!(WindowState::parse(ok).unwrap(), state(-1920, 0, 1920, 1080));
    }

    #[test]
    fn a_place_no_monitor_shows_is_not_used() {
        assert!(state(0, 0, 1920, 1080).on_screen(&[HD]));
        assert!(
            state(1800, 500, 1440, 900).on_screen(&[HD]),
            "its left 120 px are on the screen"
        );
        assert!(
            !state(1850, 500, 1440, 900).on_screen(&[HD]),
            "too little to grab"
        );
        assert!(
            !state(0, -20, 1440, 900).on_screen(&[HD]),
            "its top edge is above the screen"
        );
        assert!(!state(-1900, 0, 1440, 900).on_screen(&[HD]));
        // A second monitor to the left (an unplugged one: the place is not used).
        assert!(state(-1900, 0, 1440, 900).on_screen(&[HD, (-1920, 0, 1920, 1080)]));
        assert!(!state(0, 0, 1440, 900).on_screen(&[]));
    }

    #[test]
    fn a_size_larger_than_every_monitor_is_clamped() {
        assert_eq!(state(0, 0, 3840, 2160).clamped_size(&[HD]), (1920, 1080));
        assert_eq!(state(0, 0, 1440, 900).clamped_size(&[HD]), (1440, 900));
        assert_eq!(state(0, 0, 3840, 2160).clamped_size(&[]), (3840, 2160));
        // Never below the window's minimum, even on a tiny monitor.
        assert_eq!(
            state(0, 0, 1440, 900).clamped_size(&[(0, 0, 800, 480)]),
            (960, 600)
        );
    }

    #[test]
    fn memory_writes_only_what_changed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE);
        let memory = Memory::new(path.clone());
        assert_eq!(memory.current(), None);
        memory.remember(state(10, 20, 1920, 1080));
        assert_eq!(load(&path), Some(state(10, 20, 1920, 1080)));
        std::fs::remove_file(&path).unwrap();
        memory.remember(state(10, 20, 1920, 1080));
        assert!(!path.exists(), "the same state is not written again");
        assert_eq!(Memory::new(path.clone()).current(), None);
    }
}
