// Measures how long a live event takes to reach the screen in the desktop app: from the host's
// receive time of a frame (the event's `at`) to the moment the window's DOM shows it on the tile.
// Runs the demo pit (default 10x pace) for a minute under tauri-driver, reads the lags the app
// records (window.__pitwatchLatency, see ui/src/lib/latency.ts) and prints p50/p90/p99/max, to
// the update reaching the window's script, to the DOM update and to the end of the first frame
// painted after it.
//
//   PITWATCH_APP=/work/target-desk/debug/pitwatch-desktop \
//     xvfb-run -a -s "-screen 0 1440x900x24" node scripts/measure-desktop-latency.mjs
//
// It also prints the start-up: from asking tauri-driver to launch the app (a new WebDriver
// session, so the figure includes the session's set-up) to the pit grid in the DOM, to every
// table's link connected on its tile, and to the first live update reaching the window.
//
// Environment: PITWATCH_APP (the built app), LATENCY_SECONDS (60), PITWATCH_DEMO_PACE (10x).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { startTauriDriver } from "../tests/e2e/webdriver.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const app = process.env.PITWATCH_APP ?? join(root, "target/debug/pitwatch-desktop");
const seconds = Number(process.env.LATENCY_SECONDS ?? "60");
const dataDir = mkdtempSync(join(tmpdir(), "pitwatch-latency-"));
process.env.PITWATCH_DB = join(dataDir, "pit.db");
process.env.PITWATCH_DEMO_PACE = process.env.PITWATCH_DEMO_PACE ?? "10x";

function percentile(sorted, p) {
  if (sorted.length === 0) return null;
  return sorted[Math.max(Math.ceil((p / 100) * sorted.length) - 1, 0)];
}

const harness = await startTauriDriver();
let code = 0;
try {
  const { driver } = harness;
  const launched = performance.now();
  await driver.start(app);
  await driver.waitFor("the pit grid", () => driver.find('[data-testid="pit-grid"]'), 30000);
  const gridMs = performance.now() - launched;
  const connected = `return [...document.querySelectorAll('[data-testid="tile-status"]')]
    .every((s) => s.dataset.status === "connected") && document.querySelectorAll('[data-testid="tile-status"]').length;`;
  await driver.waitFor("every tile connected", () => driver.execute(connected), 30000);
  const connectedMs = performance.now() - launched;
  await driver.waitFor("a live update", () => driver.execute("return window.__pitwatchLatency.received().length > 0;"), 30000);
  const liveMs = performance.now() - launched;
  const startup = { grid_ms: Math.round(gridMs), all_connected_ms: Math.round(connectedMs), first_update_ms: Math.round(liveMs) };
  // Warm-up: the first updates include start-up work; measure the steady state after it.
  await sleep(3000);
  await driver.execute("window.__pitwatchLatency.clear(); return true;");
  await sleep(seconds * 1000);
  const dom = await driver.execute("return window.__pitwatchLatency.lags();");
  const painted = await driver.execute("return window.__pitwatchLatency.painted();");
  const received = await driver.execute("return window.__pitwatchLatency.received();");
  const summary = (lags) => {
    const sorted = [...lags].sort((a, b) => a - b);
    return {
      events: sorted.length,
      p50_ms: percentile(sorted, 50),
      p90_ms: percentile(sorted, 90),
      p99_ms: percentile(sorted, 99),
      max_ms: sorted.at(-1) ?? null,
      min_ms: sorted[0] ?? null,
    };
  };
  const result = {
    startup,
    pace: process.env.PITWATCH_DEMO_PACE,
    seconds,
    received: summary(received),
    dom: summary(dom),
    painted: summary(painted),
  };
  console.log(JSON.stringify(result));
  if (dom.length === 0 || painted.length === 0) {
    console.error("no live event was measured");
    code = 1;
  }
  await driver.quit();
} catch (error) {
  console.error(error);
  code = 1;
} finally {
  await harness.driver.quit();
  harness.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
process.exit(code);
