// End-to-end (issue 30): dealers and pace. The real desktop app on a real pit of its own whose
// Baccarat table is held to its own target (pace_target = 200 rounds an hour) and whose record
// already holds a shift dealt far slower (a round a minute by Mere, imported with the CLI before
// the app starts). Checked: surveillance is offered no dealers and the desk refuses them; a
// supervisor signs a dealer in from the table view's console, sees the "pace below target"
// banner (the desk took the table up from its record) and the count on the Dealers button,
// opens the dealers' screen from the banner (the rota with both dealers, each dealer's figures
// against the target, the alert the record raised), saves the report as PDF and CSV, and each
// look and file is in the audit log. Run by `make e2e`; screenshots go to artifacts/e2e/.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { startTauriDriver } from "./webdriver.mjs";
import { run, tcpDevice } from "./support.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const app = process.env.PITWATCH_APP ?? join(root, "target/debug/pitwatch-desktop");
const cli = join(dirname(app), "pitwatch");
const shots = join(root, "artifacts/e2e");
const dataDir = mkdtempSync(join(tmpdir(), "pitwatch-e2e-dealers-"));
const savedDir = join(dataDir, "saved");
const TABLE = "BAC-5";
const PASSWORDS = {
  root: "root keeps the pit keys 42",
  sue: "sue supervises the main pit 7",
  sam: "sam watches every camera twice",
};

Object.assign(process.env, {
  PITWATCH_DB: join(dataDir, "pit.db"),
  PITWATCH_KEY: join(dataDir, "signing.key"),
  PITWATCH_SAVE_DIR: savedDir,
  XDG_CONFIG_HOME: join(dataDir, "config"),
  XDG_DATA_HOME: join(dataDir, "data"),
});

let harness;
let device;

/**
 * Mere signs in and deals `rounds` rounds a minute apart (each a pair of naturals, Player
 * winning, the result declared), starting two hours ago: about 60 rounds an hour, far under the
 * table's alert line of 160.
 */
function shiftEvents(rounds) {
  const start = Date.now() - 2 * 3_600_000;
  const at = (ms) => new Date(start + ms).toISOString();
  const events = [
    { event: "dealer_signed_in", dealer: "Mere Tūhoe", at: at(0) },
    { event: "shuffled", decks: 8, shuffler: "batch", at: at(1_000) },
    { event: "cut", position: 180, at: at(2_000) },
    { event: "cutting_card_placed", from_back: 24, at: at(3_000) },
    { event: "card_drawn", card: "3H", target: "first", face_up: true, at: at(4_000) },
    { event: "card_drawn", card: "KD", target: "burn", at: at(5_000) },
    { event: "card_drawn", card: "7C", target: "burn", at: at(6_000) },
    { event: "card_drawn", card: "2S", target: "burn", at: at(7_000) },
    { event: "burn_counted", count: 3, at: at(8_000) },
  ];
  const suits = ["S", "H", "D", "C"];
  for (let i = 0; i < rounds; i++) {
    const s = suits[i % 4];
    const t = 60_000 * (i + 1);
    events.push(
      { event: "card_drawn", card: "9" + s, target: "player", index: 1, at: at(t) },
      { event: "card_drawn", card: "8" + s, target: "banker", index: 1, at: at(t + 1_000) },
      { event: "card_drawn", card: "K" + s, target: "player", index: 2, at: at(t + 2_000) },
      { event: "card_drawn", card: "Q" + s, target: "banker", index: 2, at: at(t + 3_000) },
      { event: "result_declared", outcome: "player", at: at(t + 5_000) },
    );
  }
  return events.map((e) => JSON.stringify(e)).join("\n") + "\n";
}

before(async () => {
  mkdirSync(shots, { recursive: true });
  mkdirSync(savedDir, { recursive: true });
  const events = join(dataDir, "events.jsonl");
  writeFileSync(events, shiftEvents(26));
  const db = process.env.PITWATCH_DB;
  const imported = await run(cli, ["import", "--db", db, "--table", TABLE, "--rules", "nz-baccarat", "--format", "events", events]);
  assert.equal(imported.code, 0, imported.out);
  const first = await run(cli, ["user", "add", "--db", db, "--role", "admin", "root"], { PITWATCH_PASSWORD: PASSWORDS.root });
  assert.equal(first.code, 0, first.out);
  for (const [user, role] of [["sue", "supervisor"], ["sam", "surveillance"]]) {
    const added = await run(cli, ["user", "add", "--db", db, "--admin", "root", "--role", role, user], {
      PITWATCH_ADMIN_PASSWORD: PASSWORDS.root,
      PITWATCH_PASSWORD: PASSWORDS[user],
    });
    assert.equal(added.code, 0, added.out);
  }
  device = await tcpDevice();
  writeFileSync(
    join(dataDir, "pit.toml"),
    `[site]\nname = "Dealers Pit"\n\n[[table]]\nname = "${TABLE}"\ngame = "baccarat"\nrules = "nz-baccarat"\npace_target = 200\n` +
      `device = { protocol = "pitwatch" }\nlink = { kind = "tcp", address = "127.0.0.1:${device.port}", backoff = { initial_ms = 100, max_ms = 300 } }\n`,
  );
  harness = await startTauriDriver();
  await harness.driver.start(app, [join(dataDir, "pit.toml")]);
});

after(async () => {
  await harness?.driver.quit();
  await harness?.stop();
  await device?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function login(driver, user) {
  if (await driver.find('[data-testid="session-user"]')) {
    await driver.execute(`[...document.querySelectorAll("header button")].find((b) => b.textContent.trim() === "Log out").click(); return true;`);
    await driver.waitFor("logged out", () => driver.find('[data-testid="login-user"]'));
  }
  await driver.type(await driver.find('[data-testid="login-user"]'), user);
  await driver.type(await driver.find('[data-testid="login-password"]'), PASSWORDS[user]);
  await driver.click(await driver.find('[data-testid="login-submit"]'));
  await driver.waitFor(`${user}'s session`, async () => {
    const e = await driver.find('[data-testid="session-user"]');
    return e && (await driver.text(e)).startsWith(user);
  });
}

/** The desk's answer to `command` called from the window: "ok", or the error's code. */
function invoke(driver, command, args = {}) {
  return driver.executeAsync(
    `const done = arguments[arguments.length - 1];
     window.__TAURI_INTERNALS__.invoke(arguments[0], arguments[1]).then(() => done("ok"), (e) => done(e.code ?? String(e)));`,
    [command, args],
  );
}

test("surveillance is offered no dealers, and the desk refuses them", async () => {
  const { driver } = harness;
  await driver.waitFor("the table's tile", () => driver.find(`[data-testid="table-tile"][data-table="${TABLE}"]`));
  await login(driver, "sam");
  assert.equal(await driver.find('[data-testid="nav-dealers"]'), null, "no dealers screen in the menu");
  assert.equal(await invoke(driver, "pace_alerts"), "forbidden");
  assert.equal(await invoke(driver, "table_dealers", { table: TABLE }), "forbidden");
  assert.equal(await driver.find('[data-testid="pace-banner"]'), null, "no pace banner");
});

test("a supervisor signs a dealer in, sees the pace alert and opens the dealers' report", async () => {
  const { driver } = harness;
  await login(driver, "sue");
  // Sign a dealer in from the table view's console.
  await driver.clickCss(`[data-testid="table-tile"][data-table="${TABLE}"]`);
  await driver.waitFor("the console", () => driver.find('[data-testid="console-form"]'));
  await driver.execute(
    `const kind = document.querySelector('[data-testid="console-kind"]');
     kind.value = "dealer_signed_in";
     kind.dispatchEvent(new Event("change", { bubbles: true }));
     return true;`,
  );
  const name = await driver.waitFor("the dealer's name field", () => driver.find('[data-testid="console-dealer"]'));
  await driver.type(name, "Hoani Waititi");
  await driver.execute(`document.querySelector('[data-testid="console-form"] button[type="submit"]').click(); return true;`);
  const recorded = await driver.waitFor("the sign-in recorded", async () => {
    const e = await driver.find('[data-testid="console-recorded"]');
    return e && (await driver.text(e));
  });
  assert.match(recorded, /Recorded as event #\d+/);

  // The banner every screen shows a supervisor, and the count on the menu.
  const banner = await driver.waitFor("the pace banner", () =>
    driver.execute(`return document.querySelector('[data-testid="pace-banner"]')?.textContent ?? null;`),
  );
  assert.match(banner, new RegExp(`${TABLE}: Pace below target \\(dealer Mere Tūhoe, shoe 1 round 20\\)`));
  assert.match(banner, /under 160\.0 \(80% of the target of 200\)/);
  assert.equal(await driver.text(await driver.find('[data-testid="pace-count"]')), "1");
  writeFileSync(join(shots, "pace-banner.png"), await driver.screenshot());

  // Opened from the banner: the table's dealers.
  await driver.clickCss('[data-testid="pace-banner-open"]');
  await driver.waitFor("the dealers' figures", () => driver.find('[data-testid="dealers-figure"]'));
  const rota = await driver.waitFor("both dealers on the rota", async () => {
    const rows = await driver.execute(`return [...document.querySelectorAll('[data-testid="dealers-stint"]')].map((r) => r.textContent);`);
    return rows.length === 2 && rows;
  });
  assert.match(rota[0], /Mere Tūhoe/);
  assert.match(rota[1], /Hoani Waititi.*still signed in/);
  const target = await driver.text(await driver.find('[data-testid="dealers-target"]'));
  assert.match(target, /200 rounds an hour; alerted under 160 over 20 rounds/);
  const mere = await driver.execute(`return document.querySelector('[data-testid="dealers-figure"]').textContent;`);
  assert.match(mere, /Mere Tūhoe\s*26\s*6\d\.\d\s*3\d%/);
  const raised = await driver.execute(`return document.querySelector('[data-testid="dealers-alert"]')?.dataset.code ?? null;`);
  assert.equal(raised, "PACE_BELOW_TARGET");
  assert.ok(await driver.find('[data-testid="dealers-holding-alert"]'), "the alert holding now is shown on the screen");
  writeFileSync(join(shots, "dealers-view.png"), await driver.screenshot());

  // Seen: the banner goes, the count stays.
  await driver.clickCss('[data-testid="pace-banner-seen"]');
  await driver.waitFor("the banner gone", async () => (await driver.find('[data-testid="pace-banner"]')) === null);
  assert.equal(await driver.text(await driver.find('[data-testid="pace-count"]')), "1");

  // The report saved as PDF and CSV.
  await driver.clickCss('[data-testid="dealers-export-pdf"]');
  await driver.waitFor("the PDF saved", async () => existsSync(join(savedDir, `dealers-${TABLE}.pdf`)));
  await driver.clickCss('[data-testid="dealers-export-csv"]');
  await driver.waitFor("the CSV saved", async () => existsSync(join(savedDir, `dealers-${TABLE}.csv`)));
  assert.ok(readFileSync(join(savedDir, `dealers-${TABLE}.pdf`)).subarray(0, 4).equals(Buffer.from("%PDF")));
  const csv = readFileSync(join(savedDir, `dealers-${TABLE}.csv`), "utf8");
  assert.match(csv, new RegExp(`"${TABLE}",baccarat,"Mere Tūhoe",26,0,6\\d\\.\\d+,200\\.000`));
});

test("every look and every file is in the audit log under the supervisor's name", async () => {
  const { driver } = harness;
  await login(driver, "root");
  const rows = await driver.executeAsync(
    `const done = arguments[arguments.length - 1];
     window.__TAURI_INTERNALS__.invoke("audit", { accessOnly: false, limit: 1000 }).then(done, (e) => done(String(e.code ?? e)));`,
  );
  assert.ok(Array.isArray(rows), String(rows));
  const by = (action, user) => rows.filter((r) => r.action === action && r.user === user);
  assert.ok(by("dealers.view", "sue").some((r) => r.subject === "pace alerts"), "the banner's look");
  assert.ok(by("dealers.view", "sue").some((r) => r.subject === `table ${TABLE}`), "the screen's look");
  assert.equal(by("dealers.export", "sue").length, 2, "the PDF and the CSV");
  assert.ok(by("console.event", "sue").some((r) => r.detail.includes("Hoani Waititi")), "the sign-in");
  assert.ok(by("access.forbidden", "sam").length >= 2, "surveillance's refusals");
});
