//! Build script: lets tauri-build embed the configuration, capabilities and front end.

fn main() {
    tauri_build::build()
}
