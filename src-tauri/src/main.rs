//! Entry point of the desktop app; everything else is in the library so tests can build it.

// Without this a release build on Windows would also open a console window.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

fn main() {
    pitwatch_desktop::run();
}
