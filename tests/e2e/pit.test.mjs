// End-to-end: the real desktop app, launched by tauri-driver under Xvfb, shows the pit that Rust
// defines. Run by `make e2e` (part of `make test`); screenshots go to artifacts/e2e/.
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { startTauriDriver } from "./webdriver.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const app = process.env.PITWATCH_APP ?? join(root, "target/debug/pitwatch-desktop");
const shots = join(root, "artifacts/e2e");

/** The table names of the built-in demo pit, read from the same file the Rust side embeds. */
function demoTableNames() {
  const toml = readFileSync(join(root, "crates/pitwatch-api/src/demo-pit.toml"), "utf8");
  return [...toml.matchAll(/^\[\[table\]\]\s*\nname = "([^"]+)"/gm)].map((m) => m[1]);
}

let harness;

before(async () => {
  mkdirSync(shots, { recursive: true });
  harness = await startTauriDriver(Number(process.env.TAURI_DRIVER_PORT ?? 4444));
  await harness.driver.start(app);
});

after(async () => {
  await harness?.driver.quit();
  harness?.stop();
});

test("the pit view shows every table of the demo pit, as sent from Rust", async () => {
  const { driver } = harness;
  const expected = demoTableNames();
  assert.ok(expected.length >= 6, `demo pit defines ${expected.length} tables`);

  const names = await driver.waitFor("the table tiles", async () => {
    const elements = await driver.findAll('[data-testid="table-name"]');
    if (elements.length < expected.length) return null;
    return Promise.all(elements.map((e) => driver.text(e)));
  });
  assert.deepEqual(names, expected);

  const [site] = await driver.findAll('[data-testid="site-name"]');
  assert.ok(site, "the header shows the site");
  assert.match(await driver.text(site), /Demo Casino/);

  writeFileSync(join(shots, "pit-overview.png"), await driver.screenshot());
});
