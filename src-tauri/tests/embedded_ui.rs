//! The desktop binary carries the front end that `make ui` built last.
//!
//! Tauri embeds `ui/dist` into the binary when it is compiled, so an app built before the UI
//! shows yesterday's screens. This test reads the built binary (`CARGO_BIN_EXE_…`, which also
//! makes `cargo test` build the app itself, the one `make e2e` then drives) and looks for the
//! hashed asset names of the current `ui/dist/index.html`.

use std::path::Path;

/// The `assets/…` names `index.html` loads (Vite gives each a content hash).
fn asset_names(index: &str) -> Vec<&str> {
    index
        .split('"')
        .filter(|part| part.starts_with("/assets/") || part.starts_with("./assets/"))
        .map(|part| part.trim_start_matches('.'))
        .collect()
}

#[test]
fn the_app_embeds_the_ui_built_last() {
    let dist = Path::new(env!("CARGO_MANIFEST_DIR")).join("../ui/dist/index.html");
    let index = std::fs::read_to_string(&dist)
        .unwrap_or_else(|e| panic!("{}: {e}; build the UI first (`make ui`)", dist.display()));
    let names = asset_names(&index);
    assert!(
        !names.is_empty(),
        "ui/dist/index.html names no assets/… file"
    );
    let app = std::fs::read(env!("CARGO_BIN_EXE_pitwatch-desktop")).expect("the built app");
    for name in names {
        assert!(
            memchr::memmem::find(&app, name.as_bytes()).is_some(),
            "the app does not embed {name}: it was built before the UI was; rebuild it after `make ui`"
        );
    }
}

#[test]
fn asset_names_are_read_from_the_index() {
    let index = r#"<script type="module" crossorigin src="/assets/index-iiAl_DQI.js"></script>
<link rel="stylesheet" crossorigin href="/assets/index-fg-z0kw6.css">"#;
    assert_eq!(
        asset_names(index),
        ["/assets/index-iiAl_DQI.js", "/assets/index-fg-z0kw6.css"]
    );
}
