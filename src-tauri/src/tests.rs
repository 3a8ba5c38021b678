//! The shell's tests on Tauri's mock runtime: every declared command registered, commands reaching
//! the desk with their errors' codes, and live changes reaching the window as events.

use super::*;

/// Reports saved in `dir/reports` without asking, for the tests on the mock runtime.
fn folder(dir: &std::path::Path) -> Reports {
    Reports::new(save::Destination::Folder(dir.join("reports")), "", "")
}

mod commands {
    use super::*;
    use pitwatch_app::DeskOptions;
    use tauri::test::{get_ipc_response, mock_builder, mock_context, noop_assets, INVOKE_KEY};
    use tauri::webview::InvokeRequest;

    fn invoke(
        webview: &tauri::WebviewWindow<tauri::test::MockRuntime>,
        cmd: &str,
        body: serde_json::Value,
    ) -> Result<serde_json::Value, serde_json::Value> {
        get_ipc_response(
            webview,
            InvokeRequest {
                cmd: cmd.into(),
                callback: tauri::ipc::CallbackFn(0),
                error: tauri::ipc::CallbackFn(1),
                url: "tauri://localhost".parse().expect("a valid URL"),
                body: tauri::ipc::InvokeBody::Json(body),
                headers: Default::default(),
                invoke_key: INVOKE_KEY.to_string(),
            },
        )
        .map(|r| r.deserialize().expect("JSON"))
    }

    #[test]
    fn a_pit_that_cannot_start_says_why_and_its_commands_refuse() {
        let error = ApiError::new(
            pitwatch_api::dto::ErrorCode::InvalidInput,
            "The pit definition is not usable.\nline 1: expected a table",
        );
        let app = failed_builder(mock_builder(), error.clone())
            .build(mock_context(noop_assets()))
            .expect("the app builds on the mock runtime");
        let webview = tauri::WebviewWindowBuilder::new(&app, "main", Default::default())
            .build()
            .expect("a mock window");
        let said = invoke(&webview, "startup_error", serde_json::json!({})).expect("an answer");
        assert_eq!(said["code"], "invalid_input");
        assert_eq!(said["message"], error.message);
        assert!(
            invoke(&webview, "pit_overview", serde_json::json!({})).is_err(),
            "no desk, no overview"
        );
    }

    #[test]
    fn every_declared_command_is_registered() {
        let app = failed_builder(
            mock_builder(),
            ApiError::new(pitwatch_api::dto::ErrorCode::Internal, "test"),
        )
        .build(mock_context(noop_assets()))
        .expect("the app builds on the mock runtime");
        let webview = tauri::WebviewWindowBuilder::new(&app, "main", Default::default())
            .build()
            .expect("a mock window");
        // What Tauri answers for a command nobody registered, with its name taken out.
        let answer = |name: &str| {
            invoke(&webview, name, serde_json::json!({}))
                .err()
                .map(|e| e.to_string().replace(name, "<name>"))
        };
        let unregistered = answer("no_such_command").expect("an unknown command is refused");
        for command in pitwatch_api::commands::COMMANDS {
            assert_ne!(
                answer(command.name).as_deref(),
                Some(unregistered.as_str()),
                "{} is declared in pitwatch-api's command list but not registered",
                command.name
            );
        }
    }

    #[test]
    fn commands_reach_the_desk_and_errors_carry_codes() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let (desk, updates) =
            Desk::start(DeskOptions::demo(dir.path().join("t.db"))).expect("the desk starts");
        drop(updates);
        let app = builder(mock_builder(), desk, folder(dir.path()))
            .build(mock_context(noop_assets()))
            .expect("the app builds on the mock runtime");
        let webview = tauri::WebviewWindowBuilder::new(&app, "main", Default::default())
            .build()
            .expect("a mock window");
        let overview = invoke(&webview, "pit_overview", serde_json::json!({})).expect("overview");
        let names: Vec<&str> = overview["tables"]
            .as_array()
            .expect("tables")
            .iter()
            .map(|t| t["name"].as_str().expect("name"))
            .collect();
        let demo = pitwatch_recording::PitConfig::demo();
        let expected: Vec<&str> = demo.tables.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, expected);
        assert_eq!(overview["tables"][0]["ruleBook"], "nz-baccarat");
        assert_eq!(overview["demoLogin"]["user"], "demo");

        let refused = invoke(&webview, "acknowledge", serde_json::json!({"id": 1}))
            .expect_err("nobody is logged in");
        assert_eq!(refused["code"], "unauthorised");
        let session = invoke(
            &webview,
            "login",
            serde_json::json!({"user": "demo", "password": "pitwatch-demo"}),
        )
        .expect("login");
        assert_eq!(session["user"], "demo");
        let refused = invoke(&webview, "users", serde_json::json!({}))
            .expect_err("a supervisor may not list users");
        assert_eq!(refused["code"], "forbidden");
        let refused = invoke(
            &webview,
            "audit",
            serde_json::json!({"accessOnly": true, "limit": 10}),
        )
        .expect_err("a supervisor may not read the audit log");
        assert_eq!(refused["code"], "forbidden");
        let first = invoke(&webview, "needs_first_admin", serde_json::json!({})).expect("asks");
        assert_eq!(
            first,
            serde_json::json!(false),
            "the demo pit has its supervisor"
        );
        let page = invoke(
            &webview,
            "incidents",
            serde_json::json!({"query": {"status": "open", "limit": 5}}),
        )
        .expect("a page of incidents");
        assert!(page["incidents"].as_array().is_some_and(|a| a.len() <= 5));
        assert!(page["total"].as_u64().is_some());
        let shoes = invoke(
            &webview,
            "shoes",
            serde_json::json!({"table": "NO-SUCH-TABLE", "before": null, "limit": 10}),
        )
        .expect_err("no such table");
        assert_eq!(shoes["code"], "not_found");
        let none = invoke(&webview, "incident", serde_json::json!({"id": 999_999}))
            .expect_err("no such incident");
        assert_eq!(none["code"], "not_found");
        let seq = invoke(
            &webview,
            "record_console",
            serde_json::json!({"table": "BAC-1", "entry": {"kind": "cards_replaced"}}),
        )
        .expect("console event");
        assert!(seq.as_u64().is_some_and(|s| s > 0));
        let shift =
            serde_json::json!({"from": "2000-01-01T00:00:00Z", "to": "2100-01-01T00:00:00Z"});
        let report = invoke(
            &webview,
            "export_shift_report",
            serde_json::json!({"query": shift}),
        )
        .expect("a shift report");
        let path = report["path"].as_str().expect("a path");
        assert!(std::fs::read(path).expect("written").starts_with(b"%PDF-"));
        assert_eq!(
            std::path::Path::new(path),
            dir.path()
                .join("reports/shift-20000101T000000Z-21000101T000000Z.pdf"),
            "saved in the fixed folder under its suggested name"
        );
        let stranger = dir.path().join("t.db").display().to_string();
        let refused = invoke(
            &webview,
            "print_report",
            serde_json::json!({"path": stranger}),
        )
        .expect_err("not a report of this session");
        assert_eq!(refused["code"], "not_found");
        let summary = invoke(
            &webview,
            "handover_summary",
            serde_json::json!({"query": shift}),
        )
        .expect("a summary");
        assert!(summary["openIncidents"]["high"].is_u64(), "{summary}");
        let request = serde_json::json!({"note": "Kua tirohia te kāmera 14", "password": "pitwatch-demo",
            "incoming": "demo-next", "incomingPassword": "pitwatch-next"});
        let signed = invoke(
            &webview,
            "sign_off_shift",
            serde_json::json!({"query": shift, "request": request}),
        )
        .expect("signed off");
        assert_eq!(
            (&signed["user"], &signed["acceptedBy"]),
            (&"demo".into(), &"demo-next".into())
        );
        let refused = invoke(
            &webview,
            "export_shift_report",
            serde_json::json!({"query": {"from": "yesterday", "to": "2100-01-01T00:00:00Z"}}),
        )
        .expect_err("not a time");
        assert_eq!(refused["code"], "invalid_input");
        // A pit's window is not the surveillance view: it says so, and the central reads refuse.
        let central = invoke(&webview, "central_view", serde_json::json!({})).expect("an answer");
        assert_eq!(central, serde_json::Value::Null);
        let refused =
            invoke(&webview, "central_pits", serde_json::json!({})).expect_err("not a view");
        assert_eq!(refused["code"], "not_found");
        app.state::<Desk>().stop();
    }
}

mod events {
    use super::*;
    use pitwatch_app::DeskOptions;
    use std::time::Duration;
    use tauri::test::{mock_builder, mock_context, noop_assets};
    use tauri::Listener;

    #[test]
    fn live_changes_reach_the_window_as_pit_update_events() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let options = DeskOptions {
            pace: pitwatch_app::setup::parse_pace("100x").expect("a pace"),
            ..DeskOptions::demo(dir.path().join("e.db"))
        };
        let (desk, updates) = Desk::start(options).expect("the desk starts");
        let app = builder(mock_builder(), desk, folder(dir.path()))
            .build(mock_context(noop_assets()))
            .expect("the app builds on the mock runtime");
        let (tx, rx) = std::sync::mpsc::channel();
        app.listen_any(UPDATE_EVENT, move |event| {
            let _ = tx.send(event.payload().to_owned());
        });
        forward_updates(app.handle().clone(), updates).expect("the update thread");
        // Tiles and incidents; the record's status too where the host clock is not
        // synchronised (its alert is on every screen). Batches until one brings a tile.
        let deadline = std::time::Instant::now() + Duration::from_secs(20);
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            let payload = rx
                .recv_timeout(left)
                .expect("a pit-update event with a tile");
            let batch: serde_json::Value = serde_json::from_str(&payload).expect("JSON");
            let updates = batch.as_array().expect("an array of updates");
            assert!(!updates.is_empty(), "{batch}");
            for update in updates {
                assert!(
                    ["table", "incident_raised", "record"]
                        .contains(&update["type"].as_str().unwrap_or_default()),
                    "{update}"
                );
            }
            if updates.iter().any(|u| u["type"] != "record") {
                break;
            }
        }
        app.state::<Desk>().stop();
    }
}
