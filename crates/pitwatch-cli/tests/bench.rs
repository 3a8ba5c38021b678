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

#[test]
fn ctrl_c_ends_the_bench_early_with_its_figures_printed() {
    // An hour's run, interrupted once the tables are dealing: the run ends there, what was sent
    // is drained and compared, and the figures so far are printed (no baseline).
    let mut bench = Command::new(env!("CARGO_BIN_EXE_pitwatch"))
        .args([
            "bench",
            "pit",
            "--tables",
            "4",
            "--pace",
            "50x",
            "--seconds",
            "3600",
            "--json",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_secs(3));
    let status = Command::new("kill")
        .args(["-INT", &bench.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    // Not waited for indefinitely: a bench that ignored Ctrl-C would run for an hour.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    while bench.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            let _ = bench.kill();
            panic!("the bench went on after Ctrl-C");
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let out = bench.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(
        stderr.contains("interrupted: ending the run now"),
        "{stderr}"
    );
    assert!(stdout.contains("interrupted after"), "{stdout}");
    assert!(!stdout.contains("baseline:"), "{stdout}");
    let last: serde_json::Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    assert_eq!(last["interrupted"], true, "{last}");
    assert!(last["run_s"].as_f64().unwrap() < 3600.0, "{last}");
    assert!(last["events"].as_u64().unwrap() > 0, "{last}");
    assert_eq!(last["lost"], 0, "{last}");
    assert_eq!(last["duplicated"], 0, "{last}");
}
