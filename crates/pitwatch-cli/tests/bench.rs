//! `pitwatch bench pit` as an operator runs it: simulated tables through the real monitor and
//! the baseline, the figures printed, and with `--json` one object on the last line.

use std::process::Command;

#[test]
fn bench_pit_reports_latency_memory_and_losses_with_a_baseline_as_json() {
    let out = Command::new(env!("CARGO_BIN_EXE_pitwatch"))
        .args([
            "bench",
            "pit",
            "--tables",
            "4",
            "--pace",
            "50x",
            "--seconds",
            "3",
            "--json",
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("read → committed → published: p50"),
        "{stdout}"
    );
    assert!(stdout.contains("baseline:"), "{stdout}");
    let last: serde_json::Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    for key in [
        "tables",
        "events",
        "p50_ms",
        "p99_ms",
        "max_ms",
        "lost",
        "duplicated",
        "rss_start_mb",
        "rss_end_mb",
        "baseline_p99_ms",
    ] {
        assert!(
            last.get(key).is_some_and(|v| !v.is_null()),
            "{key} in {last}"
        );
    }
    assert_eq!(last["tables"], 4);
    assert!(last["events"].as_u64().unwrap() > 0, "{last}");
    assert_eq!(last["lost"], 0, "{last}");
    assert_eq!(last["duplicated"], 0, "{last}");
    assert_eq!(last["baseline_lost_bytes"], 0, "{last}");
    assert!(last["rss_end_mb"].as_f64().unwrap() > 1.0, "{last}");
    assert!(last["p99_ms"].as_i64().unwrap() >= last["p50_ms"].as_i64().unwrap());

    let refused = Command::new(env!("CARGO_BIN_EXE_pitwatch"))
        .args(["bench", "pit", "--tables", "0"])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
}
