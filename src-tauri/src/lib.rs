//! The Pitwatch desktop shell: Tauri v2 around the application API.
//!
//! This crate is deliberately thin. Each command is a one-line adapter into
//! [`pitwatch_api::Pitwatch`]; behaviour lives in the core crates, where it is tested without a
//! window. Only this crate knows Tauri.

use pitwatch_api::{ApiError, PitOverview, Pitwatch};
use tauri::State;

/// The pit at a glance: one tile per table.
#[tauri::command]
fn pit_overview(app: State<'_, Pitwatch>) -> Result<PitOverview, ApiError> {
    Ok(app.pit_overview())
}

/// Builds the app with its state and commands, on any runtime (the real one or the test mock).
pub fn builder<R: tauri::Runtime>(builder: tauri::Builder<R>, app: Pitwatch) -> tauri::Builder<R> {
    builder
        .manage(app)
        .invoke_handler(tauri::generate_handler![pit_overview])
}

/// Runs the desktop app on the demo pit.
pub fn run() {
    let result =
        builder(tauri::Builder::default(), Pitwatch::demo()).run(tauri::generate_context!());
    if let Err(error) = result {
        eprintln!("pitwatch: the desktop app could not start: {error}");
        std::process::exit(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tauri::test::{get_ipc_response, mock_builder, mock_context, noop_assets, INVOKE_KEY};
    use tauri::webview::InvokeRequest;

    #[test]
    fn pit_overview_command_returns_the_demo_tables() {
        let app = builder(mock_builder(), Pitwatch::demo())
            .build(mock_context(noop_assets()))
            .expect("the app builds on the mock runtime");
        let webview = tauri::WebviewWindowBuilder::new(&app, "main", Default::default())
            .build()
            .expect("a mock window");
        let response = get_ipc_response(
            &webview,
            InvokeRequest {
                cmd: "pit_overview".into(),
                callback: tauri::ipc::CallbackFn(0),
                error: tauri::ipc::CallbackFn(1),
                url: "tauri://localhost".parse().expect("a valid URL"),
                body: tauri::ipc::InvokeBody::default(),
                headers: Default::default(),
                invoke_key: INVOKE_KEY.to_string(),
            },
        )
        .expect("the command succeeds");
        let overview: serde_json::Value = response.deserialize().expect("JSON");
        let names: Vec<&str> = overview["tables"]
            .as_array()
            .expect("tables")
            .iter()
            .map(|t| t["name"].as_str().expect("name"))
            .collect();
        let expected = Pitwatch::demo().pit_overview();
        let expected: Vec<&str> = expected.tables.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, expected);
        assert_eq!(overview["tables"][0]["ruleBook"], "nz-baccarat");
    }
}
