// End-to-end: the real desktop app, launched by tauri-driver under Xvfb, on the demo pit with its
// simulated devices read through the real transports, codecs, engine and store. Run by `make e2e`
// (part of `make test`); screenshots go to artifacts/e2e/. The demo runs 20 times faster than a
// real dealer and injects an irregularity every few rounds, on a temporary database, so that a
// restart can be checked against the same record.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { pwLine } from "./pwline.mjs";
import { startTauriDriver } from "./webdriver.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const app = process.env.PITWATCH_APP ?? join(root, "target/debug/pitwatch-desktop");
const shots = join(root, "artifacts/e2e");
const dataDir = mkdtempSync(join(tmpdir(), "pitwatch-e2e-"));

// Inherited by tauri-driver, WebKitWebDriver and the app it launches.
process.env.PITWATCH_DB = join(dataDir, "pit.db");
// The demo pit records only into a database of its own (never PITWATCH_DB of a real pit): here the
// same file, so the CLI steps below find the demo's record under PITWATCH_DB.
process.env.PITWATCH_DEMO_DB = process.env.PITWATCH_DB;
// The installation's signing key, of this run alone (never the user's own).
process.env.PITWATCH_KEY = join(dataDir, "signing.key");
process.env.PITWATCH_DEMO_PACE = process.env.PITWATCH_DEMO_PACE ?? "20x";
process.env.PITWATCH_DEMO_FAULT_EVERY = process.env.PITWATCH_DEMO_FAULT_EVERY ?? "6";
// The window's remembered size and place (the config directory) and its web storage (the pit's
// remembered tile size and order, in the data directory) are this run's own: a window the user
// left compact or maximised does not change what these tests see.
process.env.XDG_CONFIG_HOME = join(dataDir, "config");
process.env.XDG_DATA_HOME = join(dataDir, "data");
// Reports are saved in a fixed folder instead of through the system's save dialog (which
// WebDriver cannot drive), and opened and printed by two small programs that write down what
// they were given, as a viewer and CUPS's lp would be given it.
const savedDir = join(dataDir, "saved");
const opened = join(dataDir, "opened.log");
const printed = join(dataDir, "printed.log");
function tool(name, body) {
  const file = join(dataDir, name);
  writeFileSync(file, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  return file;
}
process.env.PITWATCH_SAVE_DIR = savedDir;
process.env.PITWATCH_OPEN_COMMAND = tool("viewer.sh", `echo "$@" >> '${opened}'`);
process.env.PITWATCH_PRINT_COMMAND = `${tool("lp.sh", `echo "$@" >> '${printed}'; echo 'request id is pit-e2e-1 (1 file(s))'`)} -d pit`;

/** The table names of the built-in demo pit, read from the same file the Rust side embeds. */
function demoTableNames() {
  const toml = readFileSync(join(root, "crates/pitwatch-recording/src/demo-pit.toml"), "utf8");
  return [...toml.matchAll(/^\[\[table\]\]\s*\nname = "([^"]+)"/gm)].map((m) => m[1]);
}

let harness;
let resolvedId = null;
let resolvedCards = null;

async function shot(name, driver = harness.driver) {
  writeFileSync(join(shots, name), await driver.screenshot());
}

/** The card codes shown under `css` (Player's then Banker's), or null when there is none. */
async function cardsIn(driver, css) {
  return driver.execute(
    `const root = document.querySelector(arguments[0]);
     if (!root) return null;
     return ["player", "banker"].map(side =>
       [...root.querySelectorAll('[data-testid="hand-' + side + '"] [data-testid="card"]')].map(c => c.dataset.card));`,
    [css],
  );
}

/**
 * Sets the incident list's status filter (the store filters and pages the list, newest first, so
 * an older incident is found by its status rather than by loading every page).
 */
async function filterStatus(driver, value) {
  const select = await driver.waitFor("the status filter", () => driver.find('[data-testid="filter-status"]'));
  assert.ok(select);
  await driver.execute(
    `const s = document.querySelector('[data-testid="filter-status"]');
     s.value = arguments[0]; s.dispatchEvent(new Event("change"));`,
    [value],
  );
}

/** Chooses resolution `kind` (`confirmed`, `false_alarm`, `duplicate`, `other`) in the incident's workflow. */
async function chooseResolution(driver, kind) {
  await driver.execute(
    `const s = document.querySelector('[data-testid="resolve-kind"]');
     s.value = arguments[0]; s.dispatchEvent(new Event("change"));`,
    [kind],
  );
}

async function login(driver) {
  const hint = await driver.waitFor("the demo login hint", () => driver.find('[data-testid="demo-login"]'));
  assert.match(await driver.text(hint), /demo \/ pitwatch-demo/);
  await driver.type(await driver.find('[data-testid="login-user"]'), "demo");
  await driver.type(await driver.find('[data-testid="login-password"]'), "pitwatch-demo");
  await driver.click(await driver.find('[data-testid="login-submit"]'));
  const user = await driver.waitFor("the session", () => driver.find('[data-testid="session-user"]'));
  assert.match(await driver.text(user), /demo/);
}

before(async () => {
  mkdirSync(shots, { recursive: true });
  harness = await startTauriDriver(process.env.TAURI_DRIVER_PORT ? Number(process.env.TAURI_DRIVER_PORT) : undefined);
  await harness.driver.start(app);
});

after(async () => {
  await harness?.driver.quit();
  await harness?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

test("the demo pit shows live rounds on every table", async () => {
  const { driver } = harness;
  const expected = demoTableNames();
  assert.ok(expected.length >= 6, `demo pit defines ${expected.length} tables`);

  const names = await driver.waitFor("the table tiles", async () => {
    const elements = await driver.findAll('[data-testid="table-name"]');
    if (elements.length < expected.length) return null;
    return Promise.all(elements.map((e) => driver.text(e)));
  });
  assert.deepEqual(names, expected);
  // Read from the page: WebDriver's visible text of a header part that may be cut with an
  // ellipsis is empty in WebKitWebDriver.
  assert.match(await driver.execute(`return document.querySelector('[data-testid="site-name"]').textContent;`), /Demo Casino/);

  // Every tile has completed rounds (a poker table's hands, from its dealer console) and shows the
  // cards of its round on the table.
  await driver.waitFor(
    "a completed round at every table",
    async () => {
      const tiles = await driver.findAll('[data-testid="table-tile"]');
      const rounds = await Promise.all(tiles.map((t) => driver.attribute(t, "data-rounds")));
      return rounds.length === expected.length && rounds.every((r) => Number(r) >= 2);
    },
    60000,
  );
  // Cards on the tables that deal from a reading shoe (a poker table's devices report no cards).
  // Counted in the page at one instant: the tiles update live, and a card replaced between a
  // WebDriver query and its element handles is a stale reference, not a missing card.
  const cards = await driver.execute(
    "return document.querySelectorAll('[data-testid=live-round] [data-testid=card]').length",
  );
  const dealing = await driver.execute(
    "return document.querySelectorAll('[data-testid=table-tile]:not([data-game=poker])').length",
  );
  assert.ok(cards >= dealing * 2, `${cards} cards on the ${dealing} tiles that deal cards`);
  const statuses = await driver.execute(
    "return [...document.querySelectorAll('[data-testid=table-tile]')].map(t => t.className)",
  );
  for (const s of statuses) assert.match(s, /connected/);
  await shot("pit-overview.png");
  // The Blackjack and Pontoon tiles, further down the pit.
  await driver.execute(`document.querySelector('[data-testid="table-tile"][data-table="BJ-1"]').scrollIntoView();`);
  await shot("pit-blackjack-tiles.png");
  // Back to the top of the pit, whatever scrolled (the window or the pit's own pane).
  await driver.execute(`document.querySelector('[data-testid="table-tile"]').scrollIntoView({ block: "end" }); window.scrollTo(0, 0);`);
});

test("a table shows its live round, roads and device", async () => {
  const { driver } = harness;
  await driver.clickCss('[data-testid="table-tile"][data-table="BAC-1"]');
  await driver.waitFor("the table view", () => driver.find('[data-testid="table-view"][data-table="BAC-1"]'));
  await driver.waitFor("beads", async () => {
    const bead = await driver.find('[data-testid="bead-plate"]');
    return bead && Number(await driver.attribute(bead, "data-cells")) >= 3;
  });
  const derived = await driver.findAll('[data-testid="derived-road"]');
  assert.equal(derived.length, 3, "big eye boy, small road and cockroach pig");
  const device = await driver.text(await driver.find('[data-testid="device-panel"]'));
  assert.match(device, /Angel Eye/);
  assert.match(device, /\d+ accepted/);
  await shot("table.png");
  await driver.click(await driver.find('[data-testid="nav-pit"]'));
});

test("a table with a shuffler beside its shoe shows both devices and the last deck check", async () => {
  const { driver } = harness;
  const line = await driver.waitFor("the shuffler on its tile", () =>
    driver.find('[data-testid="table-tile"][data-table="BAC-3"] [data-testid="tile-device"][data-role="shuffler"]'),
  );
  assert.match(await driver.text(line), /Shuffler/);
  await driver.clickCss('[data-testid="table-tile"][data-table="BAC-3"]');
  await driver.waitFor("the table view", () => driver.find('[data-testid="table-view"][data-table="BAC-3"]'));
  // The shuffler says what it is when it connects (its HELLO): shown in the device panel.
  const identity = await driver.waitFor("the shuffler's identity", () =>
    driver.find('[data-testid="device-panel"] [data-testid="device"][data-role="shuffler"] [data-testid="device-identity"]'),
  );
  assert.equal(await driver.attribute(identity, "data-serial"), "SIM-S1");
  assert.match(await driver.text(identity), /Pitwatch Simulated shuffler · serial number SIM-S1 · firmware 1/);
  const check = await driver.waitFor(
    "a passed deck check",
    async () => {
      const c = await driver.find('[data-testid="device-panel"] [data-testid="deck-check"]');
      return c && (await driver.attribute(c, "data-passed")) === "true" && c;
    },
    60000,
  );
  assert.match(await driver.text(check), /✓ 416 cards/);
  const devices = await driver.findAll('[data-testid="device-panel"] [data-testid="device"]');
  const roles = await Promise.all(devices.map((d) => driver.attribute(d, "data-role")));
  assert.deepEqual(roles, ["shoe", "shuffler"]);
  const states = await Promise.all(devices.map((d) => driver.attribute(d, "data-status")));
  assert.deepEqual(states, ["connected", "connected"]);
  await shot("table-devices.png");
  await driver.click(await driver.find('[data-testid="nav-pit"]'));
});

test("a Blackjack table shows the dealer, each box's hands, outcomes and payouts", async () => {
  const { driver } = harness;
  await driver.clickCss('[data-testid="table-tile"][data-table="BJ-1"]');
  try {
    await driver.waitFor("the Blackjack table view", () => driver.find('[data-testid="table-view"][data-table="BJ-1"]'));
    // A settled round on the felt, read at one instant (the next round starts seconds later):
    // the dealer's cards, boxes with their outcomes and payouts, and the shoe's last rounds.
    const felt = await driver.waitFor(
      "a settled Blackjack round",
      () =>
        driver.execute(`
          const felt = document.querySelector('[data-testid="table-live-round"]');
          const round = felt?.querySelector('[data-testid="blackjack-round"]');
          if (!round || round.dataset.complete !== "true") return null;
          const boxes = [...round.querySelectorAll('[data-testid="box"]')];
          const history = document.querySelectorAll('[data-testid="round-history"] tbody tr').length;
          if (boxes.length === 0 || !boxes.every((b) => b.dataset.outcome) || history < 2) return null;
          return { text: felt.innerText, dealer: round.querySelector('[data-testid="dealer"]').innerText, cards: round.querySelectorAll('[data-testid="card"]').length };`),
      60000,
    );
    assert.match(felt.dealer, /DEALER/);
    assert.match(felt.text, /Box \d/);
    assert.match(felt.text, /(Win|Lose|Push|Blackjack|Surrender) [+−0]/);
    assert.ok(felt.cards >= 3, `${felt.cards} cards on the felt`);
    const device = await driver.text(await driver.find('[data-testid="device-panel"]'));
    assert.match(device, /Pitwatch protocol/);
    // The screenshot: the table as it is, then, if one can be caught (the next round begins within
    // moments of the last card), a settled round instead.
    await shot("blackjack-table.png");
    const settled = `const r = document.querySelector('[data-testid="table-live-round"] [data-testid="blackjack-round"]');
      return r && r.dataset.complete === "true" ? r.dataset.round : null;`;
    for (let i = 0; i < 5; i++) {
      const before = await driver.waitFor("a settled round", () => driver.execute(settled), 30000);
      const png = await driver.screenshot();
      if ((await driver.execute(settled)) === before) {
        writeFileSync(join(shots, "blackjack-table.png"), png);
        break;
      }
    }
  } finally {
    await driver.click(await driver.find('[data-testid="nav-pit"]'));
  }
});

test("the window measures how long live events take to reach the screen", async () => {
  const { driver } = harness;
  const lags = await driver.waitFor("measured lags", async () => {
    const l = await driver.execute("return window.__pitwatchLatency?.lags() ?? [];");
    return l.length >= 5 && l;
  });
  // Each is a live event's host receive time to its tile in the DOM: never negative (one clock)
  // and, on the demo pit, well under the few seconds that would mean the window falls behind.
  assert.ok(lags.every((l) => Number.isFinite(l) && l >= 0 && l < 5000), `lags: ${lags.slice(-20)}`);
  // The same events once painted: a frame follows every DOM update, never before it.
  const painted = await driver.waitFor("painted lags", async () => {
    const p = await driver.execute("return window.__pitwatchLatency?.painted() ?? [];");
    return p.length >= 5 && p;
  });
  assert.ok(painted.every((l) => Number.isFinite(l) && l >= 0 && l < 5000), `painted: ${painted.slice(-20)}`);
});

test("an injected irregularity raises an alert; acknowledging and resolving it works", async () => {
  const { driver } = harness;
  const banner = await driver.waitFor("the alert banner", () => driver.find('[data-testid="alert-banner"]'), 90000);
  assert.match(await driver.text(banner), /Acknowledge/);
  // The alert's table flashes: its tile is marked, and the flash goes on and off (lib/blink.ts).
  const flashing = await driver.execute(
    `return [...document.querySelectorAll('[data-testid="table-tile"].flashing')].map(t => t.dataset.table);`,
  );
  assert.ok(flashing.length > 0, "a tile flashes");
  const phases = new Set();
  for (let i = 0; i < 12 && phases.size < 2; i++) {
    phases.add(await driver.execute(`return document.documentElement.classList.contains("blink-on");`));
    await sleep(200);
  }
  assert.equal(phases.size, 2, "the flash goes on and off");
  await shot("alert.png");

  await login(driver);
  await driver.click(await driver.find('[data-testid="alert-open"]'));
  const shown = await driver.waitFor("the incident detail", () => driver.find('[data-testid="incident-status"]'));
  assert.equal(await driver.text(shown), "Open");
  const selected = await driver.find('[data-testid="incident-row"].selected');
  resolvedId = await driver.attribute(selected, "data-id");
  const timeline = await driver.text(await driver.find('[data-testid="timeline"]'));
  assert.match(timeline, /#\d+/);
  resolvedCards = await cardsIn(driver, '[data-testid="incident-round"]');

  const status = async () => driver.text(await driver.find('[data-testid="incident-status"]'));
  // Acknowledgement comes first: Resolve waits for it, and says so.
  assert.equal(await driver.attribute(await driver.find('[data-testid="resolve"]'), "disabled"), "true");
  assert.match(await driver.text(await driver.find('[data-testid="resolve-ack-first"]')), /Acknowledge incident #\d+ first/);
  await driver.clickCss('[data-testid="ack"]');
  await driver.waitFor("acknowledged", async () => (await status()) === "Acknowledged");
  // A resolution chosen from the list, with text beside it, then confirmed.
  await chooseResolution(driver, "false_alarm");
  // Into sight first, as a person scrolls to it (WebKit's driver refuses a field out of view).
  await driver.execute(`document.querySelector('[data-testid="resolve-text"]').scrollIntoView({ block: "center" });`);
  await driver.type(await driver.find('[data-testid="resolve-text"]'), "camera 4 shows no third card");
  await driver.clickCss('[data-testid="resolve"]');
  const confirm = await driver.waitFor("the resolution's confirmation", () => driver.find('[data-testid="resolve-confirm"]'));
  assert.match(await driver.text(confirm), /False alarm — device misread: camera 4 shows no third card/);
  assert.equal(await status(), "Acknowledged", "nothing is resolved before the confirmation");
  await driver.clickCss('[data-testid="resolve-confirm-yes"]');
  await driver.waitFor("resolved", async () => (await status()) === "Resolved");
  // Reopened with a reason, confirmed: open again, in the history.
  await driver.type(await driver.waitFor("the reopen reason", () => driver.find('[data-testid="reopen-reason"]')), "surveillance asks for a second look");
  await driver.clickCss('[data-testid="reopen"]');
  await driver.waitFor("the reopen confirmation", () => driver.find('[data-testid="reopen-confirm"]'));
  await driver.clickCss('[data-testid="reopen-confirm-yes"]');
  await driver.waitFor("reopened", async () => (await status()) === "Open");
  const reopened = await driver.find(`[data-testid="incident-row"][data-id="${resolvedId}"]`);
  assert.equal(await driver.attribute(reopened, "data-status"), "open", "the list counts it open again");
  // Worked again to a resolution (the next test restarts with it resolved).
  await driver.clickCss('[data-testid="ack"]');
  await driver.waitFor("acknowledged again", async () => (await status()) === "Acknowledged");
  await chooseResolution(driver, "confirmed");
  await driver.clickCss('[data-testid="resolve"]');
  await driver.waitFor("the second confirmation", () => driver.find('[data-testid="resolve-confirm"]'));
  await driver.clickCss('[data-testid="resolve-confirm-yes"]');
  await driver.waitFor("resolved again", async () => (await status()) === "Resolved");
  const history = await driver.text(await driver.find('[data-testid="history"]'));
  assert.match(history, /acknowledged by demo/i);
  assert.match(history, /resolved by demo — False alarm — device misread: camera 4 shows no third card/i);
  assert.match(history, /reopened by demo — surveillance asks for a second look/i);
  assert.match(history, /resolved by demo — Confirmed irregularity — handled per procedure/i);
  await driver.clickCss('[data-testid="export-pdf"]');
  const saved = await driver.waitFor("the PDF", () => driver.find('[data-testid="saved-line"]'));
  const pdf = await driver.attribute(saved, "data-path");
  assert.equal(pdf, join(savedDir, `incident-${resolvedId}.pdf`), "saved under its suggested name");
  assert.match(await driver.text(saved), new RegExp(`^Saved incident-${resolvedId}\\.pdf in `));
  assert.ok(readFileSync(pdf).subarray(0, 5).toString() === "%PDF-", `${pdf} is a PDF`);
  // Opened in the viewer, then printed: the print system's answer is shown, and audited.
  await driver.clickCss('[data-testid="saved-open"]');
  await driver.waitFor("the viewer", () => existsSync(opened) && readFileSync(opened, "utf8").includes(pdf));
  await driver.clickCss('[data-testid="saved-print"]');
  const said = await driver.waitFor("the printer's answer", () => driver.find('[data-testid="saved-said"]'));
  assert.equal(await driver.text(said), "Sent to the printer: request id is pit-e2e-1 (1 file(s))");
  assert.equal(readFileSync(printed, "utf8"), `-d pit ${pdf}\n`);
  const { spawnSync } = await import("node:child_process");
  const audited = spawnSync(
    "sqlite3",
    ["-readonly", process.env.PITWATCH_DB, "SELECT user_name || ' ' || subject FROM audit_log WHERE action = 'report.print'"],
    { encoding: "utf8" },
  );
  assert.equal(audited.status, 0, `sqlite3: ${audited.stderr}`);
  assert.equal(audited.stdout.trim(), `demo ${pdf}`, "the print is in the audit log under the user's name");
  await shot("incident-resolved.png");
});

test("the resolved incident is still resolved after a restart", async () => {
  assert.ok(resolvedId, "the previous test resolved an incident");
  const { driver } = harness;
  await driver.quit();
  await driver.start(app);
  await login(driver);
  await driver.click(await driver.waitFor("the incidents tab", () => driver.find('[data-testid="nav-incidents"]')));
  await filterStatus(driver, "resolved");
  const row = await driver.waitFor("the incident in the list", () => driver.find(`[data-testid="incident-row"][data-id="${resolvedId}"]`));
  assert.equal(await driver.attribute(row, "data-status"), "resolved");
  // Scrolled into view first: the list may still be laying out after the restart.
  await driver.clickCss(`[data-testid="incident-row"][data-id="${resolvedId}"] td`);
  const history = await driver.waitFor("its history", async () => {
    const h = await driver.find('[data-testid="history"]');
    return h && (await driver.text(h));
  });
  assert.match(history, /resolved by demo/i);
  await shot("after-restart.png");
});

/** The `pitwatch` CLI built beside the app. */
const cli = join(dirname(app), "pitwatch");

/** Runs a command; resolves with its exit code and output. */
function run(command, args) {
  return new Promise((done) => {
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    child.on("close", (code) => done({ code, out }));
  });
}

test("replay of the incident's shoe steps to its round and shows the cards that were dealt", async () => {
  const { driver } = harness;
  await driver.click(await driver.find('[data-testid="incident-replay"]'));
  const badge = await driver.waitFor("the verification badge", () => driver.find('[data-testid="verify-badge"]'), 30000);
  assert.match(await driver.text(badge), /verified intact/);
  const at = await driver.waitFor("the replayed table", () => driver.find('[data-testid="replay-round"]'));
  const round = Number(await driver.attribute(at, "data-round"));
  assert.ok(round >= 0);
  // The replay opens at the raising event. The incident's round ends at or after it, or (when the
  // raising card was carried into the next round) just before it: look there, round by round.
  const position = await driver.text(await driver.find('[data-testid="replay-position"]'));
  const shown = () => cardsIn(driver, '[data-testid="replay-round"]');
  if (resolvedCards) {
    const seen = [await shown()];
    for (const button of ["prev-round", "next-round", "next-round"]) {
      if (JSON.stringify(seen[seen.length - 1]) === JSON.stringify(resolvedCards)) break;
      await driver.click(await driver.find(`[data-testid="${button}"]`));
      seen.push(await shown());
    }
    assert.deepEqual(seen[seen.length - 1], resolvedCards, `replay from ${position} showed ${JSON.stringify(seen)}`);
  } else {
    assert.ok(await shown(), `the replay shows a table at ${position}`);
  }
  // The shoe's shuffle quality is labelled (a demo table's first shoe has nothing to compare with).
  const shuffle = await driver.text(await driver.find('[data-testid="replay-shuffle"]'));
  assert.match(shuffle, /^Shuffle: (not compared|well mixed|weak: |⚠ suspect: )/);
  await shot("replay.png");
  // Event by event back and forth lands on the same step.
  const before = await driver.text(await driver.find('[data-testid="replay-position"]'));
  // Forth and back, or back and forth from the shoe's last step (nothing comes after it yet).
  const [, step, steps] = before.match(/step (\d+) of (\d+)/) ?? [];
  const order = step !== undefined && step === steps ? ["prev-step", "next-step"] : ["next-step", "prev-step"];
  for (const button of order) await driver.click(await driver.find(`[data-testid="${button}"]`));
  assert.equal(await driver.text(await driver.find('[data-testid="replay-position"]')), before);
  // A round on (or back, from the shoe's last step: nothing comes after it yet) moves.
  const jump = step !== undefined && step === steps ? "prev-round" : "next-round";
  await driver.click(await driver.find(`[data-testid="${jump}"]`));
  const after = await driver.text(await driver.find('[data-testid="replay-position"]'));
  assert.notEqual(after, before);
});

test("a poker table shows its shuffler's decks; a supervisor declares a misdeal with its reason", async () => {
  const { driver } = harness;
  await driver.click(await driver.find('[data-testid="nav-pit"]'));
  await driver.execute(`document.querySelector('[data-testid="table-tile"][data-table="POK-1"]').scrollIntoView();`);
  const tile = await driver.waitFor("the poker tile", () => driver.find('[data-testid="table-tile"][data-table="POK-1"]'));
  const tileText = await driver.text(tile);
  assert.match(tileText, /Deck \d+/);
  assert.match(tileText, /Texas Hold'em/);
  assert.match(tileText, /Shuffler: (✓ 52 cards|⚠ 51 of 52)/);
  await shot("pit-poker-tile.png");
  await driver.clickCss('[data-testid="table-tile"][data-table="POK-1"]');
  try {
    await driver.waitFor("the poker table view", () => driver.find('[data-testid="table-view"][data-table="POK-1"]'));
    await driver.waitFor("the console form", () => driver.find('[data-testid="misdeal-reason"]'));
    await driver.execute(
      `const set = (id, v) => { const e = document.querySelector('[data-testid="' + id + '"]'); e.value = v; e.dispatchEvent(new Event(e.tagName === "INPUT" ? "input" : "change")); };
       set("misdeal-reason", "d"); set("misdeal-seats", "2, 4"); set("misdeal-ruling", "misdeal");`,
    );
    await driver.clickCss('[data-testid="console-form"] button[type="submit"]');
    const done = await driver.waitFor("the declaration on record", () => driver.find('[data-testid="console-recorded"]'));
    assert.match(await driver.text(done), /Recorded as event #\d+/);
    // The declaration is an incident citing (d), listed at the table.
    const listed = await driver.waitFor("the misdeal incident at the table", async () => {
      const text = await driver.text(await driver.find('[data-testid="table-incidents"]'));
      return /misdeal/i.test(text) && text;
    }, 20000);
    assert.match(listed, /misdeal/i);
    // The next shuffle closes the hand, with the declaration (whether the rule allows a misdeal
    // then depends on how far the hand had gone: the engine's to judge).
    const hand = await driver.waitFor("the hand closed with the declaration", async () => {
      const text = await driver.text(await driver.find('[data-testid="hand-history"]'));
      return /\(d\) misdeal, seats 2, 4/.test(text) && text;
    }, 30000);
    assert.match(hand, /seat|–/);
    await shot("poker-table.png");
  } finally {
    await driver.click(await driver.find('[data-testid="nav-pit"]'));
  }
});

test("a supervisor records at a table what the shoe cannot see", async () => {
  const { driver } = harness;
  await driver.click(await driver.find('[data-testid="nav-pit"]'));
  // Scrolled into view first, as a person would: the pit view may be left scrolled down.
  await driver.waitFor("a tile", () => driver.find('[data-testid="table-tile"][data-table="BAC-2"]'));
  await driver.clickCss('[data-testid="table-tile"][data-table="BAC-2"]');
  const form = await driver.waitFor("the console form", () => driver.find('[data-testid="console-form"]'));
  assert.ok(form);
  await driver.execute(
    `const s = document.querySelector('[data-testid="console-form"] select');
     s.value = "cards_replaced"; s.dispatchEvent(new Event("change"));`,
  );
  await driver.clickCss('[data-testid="console-form"] button[type="submit"]');
  const done = await driver.waitFor("the console event on record", () => driver.find('[data-testid="console-recorded"]'));
  assert.match(await driver.text(done), /Recorded as event #\d+/);
  await shot("console-event.png");
  // A Baccarat book requires no preparation steps, so none is offered; Pontoon's (6.4) does.
  const offers = () =>
    driver.execute(
      `return [...document.querySelectorAll('[data-testid="console-form"] select option')].some((o) => o.value === "shuffle_step");`,
    );
  assert.equal(await offers(), false, "BAC-2 offers no preparation step");
  await driver.click(await driver.find('[data-testid="nav-pit"]'));
  await driver.execute(`document.querySelector('[data-testid="table-tile"][data-table="PON-1"]').scrollIntoView();`);
  await driver.clickCss('[data-testid="table-tile"][data-table="PON-1"]');
  await driver.waitFor("the Pontoon table view", () => driver.find('[data-testid="table-view"][data-table="PON-1"]'));
  await driver.waitFor("the console form", () => driver.find('[data-testid="console-form"]'));
  assert.equal(await offers(), true, "PON-1 offers the preparation steps");
  assert.equal(await driver.find('[data-testid="console-recorded"]'), null, "a fresh form for PON-1");
  await driver.execute(
    `const s = document.querySelector('[data-testid="console-form"] select');
     s.value = "shuffle_step"; s.dispatchEvent(new Event("change"));`,
  );
  const steps = await driver.waitFor("the step list", () => driver.find('[data-testid="shuffle-step"]'));
  const names = await driver.execute(
    `return [...document.querySelectorAll('[data-testid="shuffle-step"] option')].map((o) => o.value);`,
  );
  assert.deepEqual(names, ["chemmy", "stacking", "riffle"]);
  assert.ok(steps);
  await driver.clickCss('[data-testid="console-form"] button[type="submit"]');
  const stepDone = await driver.waitFor("the step on record", () => driver.find('[data-testid="console-recorded"]'));
  assert.match(await driver.text(stepDone), /Recorded as event #\d+/);
  await driver.execute(`document.querySelector('[data-testid="console-form"]').scrollIntoView();`);
  await shot("console-shuffle-step.png");
});

test("the shift handover report is written as a PDF and the handover signed off", async () => {
  const { driver } = harness;
  await driver.click(await driver.find('[data-testid="nav-shift"]'));
  await driver.waitFor("the handover screen", () => driver.find('[data-testid="shift-view"]'));
  assert.equal(await driver.text(await driver.find('[data-testid="shift-length"]')), "12 h");
  await driver.clickCss('[data-testid="shift-export"]');
  const written = await driver.waitFor("the shift report", () => driver.find('[data-testid="shift-view"] [data-testid="saved-line"]'), 30000);
  const path = await driver.attribute(written, "data-path");
  assert.ok(path.startsWith(join(savedDir, "shift-")), `${path} is in the save folder`);
  assert.match(await driver.text(written), /^Saved shift-\S+\.pdf \(\d+ pages?\) in /);
  assert.ok(readFileSync(path).subarray(0, 5).toString() === "%PDF-", `${path} is a PDF`);
  // What a reader of the PDF gets (poppler-utils is installed with the system packages).
  const { execFileSync } = await import("node:child_process");
  const text = execFileSync("pdftotext", ["-layout", path, "-"], { encoding: "utf8" });
  assert.match(text, /Shift report/);
  assert.match(text, /BAC-1/);
  assert.match(text, /incident_changes/);
  // Every device's health over the shift: each demo table served, frames accepted, connected now.
  const health = await driver.waitFor("the device health board", () =>
    driver.execute(
      `const rows = [...document.querySelectorAll('[data-testid="health-row"]')];
       return rows.length ? rows.map((r) => ({ table: r.dataset.table, accepted: Number(r.dataset.accepted), text: r.textContent })) : null;`,
    ),
  );
  for (const name of demoTableNames()) {
    const served = health.filter((r) => r.table === name);
    assert.ok(served.some((r) => r.accepted > 0), `${name} on the board with frames: ${JSON.stringify(health)}`);
    assert.ok(served.some((r) => /connected now/.test(r.text)), `${name} connected now`);
  }
  await driver.execute(`document.querySelector('[data-testid="device-health"]').scrollIntoView();`);
  await shot("device-health.png");
  // What is handed over, before signing.
  const summary = await driver.waitFor("the handover summary", () => driver.find('[data-testid="summary-incidents"]'));
  assert.match(await driver.text(summary), /^(No open incident\.|\d+ open incidents?: .+\((all acknowledged|\d+ not acknowledged)\)\.)$/);
  const open = Number(await driver.attribute(summary, "data-open"));
  const unresolved = await driver.executeAsync(
    `const done = arguments[arguments.length - 1];
     window.__TAURI_INTERNALS__.invoke("incidents", { query: { unresolved: true, limit: 1 } }).then((p) => done(p.total), (e) => done(-1));`,
  );
  // Loaded when the screen opened; the demo raises more since, and nothing here resolves one.
  assert.ok(open >= 0 && open <= unresolved, `the summary's ${open} open incidents, ${unresolved} unresolved now`);
  await driver.type(await driver.find('[data-testid="shift-note"]'), "Kua tirohia te kāmera 14");
  assert.match(await driver.text(await driver.find('[data-testid="shift-demo-incoming"]')), /demo-next \/ pitwatch-next/);
  const fill = async (password) => {
    await driver.type(await driver.find('[data-testid="shift-password"]'), password);
    await driver.type(await driver.find('[data-testid="shift-incoming"]'), "demo-next");
    await driver.type(await driver.find('[data-testid="shift-incoming-password"]'), "pitwatch-next");
  };
  // A wrong password is refused as a login's is.
  await fill("not the demo password");
  await driver.clickCss('[data-testid="shift-sign-off"]');
  const confirm = await driver.waitFor("the sign-off's confirmation", () => driver.find('[data-testid="shift-confirm"]'));
  assert.match(await driver.text(confirm), /hand over to demo-next/);
  assert.match(await driver.text(confirm), /open incident|No open incident/);
  await driver.clickCss('[data-testid="shift-confirm-yes"]');
  const wrong = await driver.waitFor("the refusal", () => driver.find('[data-testid="shift-error"]'));
  assert.match(await driver.text(wrong), /the password of "demo" was not accepted: wrong user name or password/);
  assert.equal(await driver.find('[data-testid="shift-signed"]'), null);
  // The next attempt for the name waits a second after a failure.
  await sleep(1200);
  await fill("pitwatch-demo");
  await driver.clickCss('[data-testid="shift-sign-off"]');
  await driver.waitFor("the confirmation again", () => driver.find('[data-testid="shift-confirm"]'));
  await shot("shift-confirm.png");
  await driver.clickCss('[data-testid="shift-confirm-yes"]');
  const signed = await driver.waitFor("the sign-off", () => driver.find('[data-testid="shift-signed"]'));
  assert.match(await driver.text(signed), /Signed off by demo .* accepted by demo-next/);
  // Shown on the screen with the acceptance beside it; the same period again is refused, in the
  // window before asking and by the desk when asked directly.
  const row = await driver.waitFor("the sign-off listed", () => driver.find('[data-testid="signed-row"][data-accepted-by="demo-next"]'));
  assert.match(await driver.text(row), /demo signed off .* accepted by demo-next/);
  await fill("pitwatch-demo");
  const problem = await driver.waitFor("the refusal of the same period", () => driver.find('[data-testid="shift-problem"]'));
  assert.match(await driver.text(problem), /This period is already signed off/);
  assert.equal(await driver.attribute(await driver.find('[data-testid="shift-sign-off"]'), "disabled"), "true");
  const period = await driver.execute(
    `return ["shift-from", "shift-to"].map((id) => document.querySelector('[data-testid="' + id + '"]').value.replace(" ", "T") + ":00Z");`,
  );
  const again = await driver.executeAsync(
    `const done = arguments[arguments.length - 1];
     window.__TAURI_INTERNALS__.invoke("sign_off_shift", { query: { from: arguments[0], to: arguments[1], table: null },
       request: { note: "again", password: "pitwatch-demo", incoming: "demo-next", incomingPassword: "pitwatch-next" } })
       .then(() => done("signed"), (e) => done(e.code + ": " + e.message));`,
    period,
  );
  assert.match(again, /^conflict: this period is already signed off: demo signed off/);
  await shot("shift-handover.png");
});

test("keyboard: N moves to the next alert and A acknowledges the one shown", async () => {
  const { driver } = harness;
  await driver.click(await driver.find('[data-testid="nav-pit"]'));
  const alertId = async () => {
    const banner = await driver.find('[data-testid="alert-banner"]');
    return banner && driver.attribute(banner, "data-id");
  };
  const first = await driver.waitFor("an alert", alertId, 60000);
  await driver.waitFor("a second alert", async () => (await driver.text(await driver.find('[data-testid="alert-banner"]'))).includes("more"), 60000);
  // Keys go to the page, not to a form field that kept the focus from an earlier screen.
  await driver.execute("document.activeElement && document.activeElement.blur(); return true;");
  // Under heavy load WebKitWebDriver has been seen to drop a key event, so the key is pressed
  // again (up to five times) until the banner moves; one press that works is what is tested.
  let second = null;
  for (let attempt = 0; attempt < 5 && !second; attempt++) {
    await driver.press("n");
    second = await driver
      .waitFor("the next alert", async () => {
        const id = await alertId();
        return id !== first && id;
      }, 4000)
      .catch(() => null);
  }
  assert.ok(second, "N moved the banner to another alert");
  await driver.press("a");
  await driver.click(await driver.find('[data-testid="nav-incidents"]'));
  // The list keeps its filters across screens (the previous test left it on "resolved").
  await filterStatus(driver, "acknowledged");
  const row = await driver.waitFor("the acknowledged incident", () => driver.find(`[data-testid="incident-row"][data-id="${second}"]`));
  await driver.waitFor("its status", async () => (await driver.attribute(row, "data-status")) === "acknowledged");
});

test("About shows the signing key's fingerprint and the latest checkpoint, which pitwatch verify accepts", async () => {
  const { driver } = harness;
  await driver.clickCss('[data-testid="nav-about"]');
  const fingerprint = await driver.waitFor("the fingerprint", async () => {
    const f = await driver.find('[data-testid="about-fingerprint"]');
    return f && (await driver.text(f));
  });
  assert.match(fingerprint, /^[0-9a-f]{4}(-[0-9a-f]{4}){7}$/);
  const checkpoint = await driver.text(await driver.find('[data-testid="about-checkpoint"]'));
  assert.match(checkpoint, /^pitwatch-checkpoint:1:[0-9a-f]{32}:\d+:/);
  // No record alert on an honest record; the host clock's may stand beside it on a host whose
  // clock is not synchronised (a container, a CI runner): clock truth says so, as it should.
  const problems = await driver.execute(
    `return [...document.querySelectorAll('[data-testid="about-alerts"] li')].map((li) => li.textContent);`,
  );
  assert.ok(
    (await driver.find('[data-testid="about-ok"]')) || problems.every((p) => p.startsWith("The host clock ")),
    `no record alert on an honest record: ${problems.join("; ")}`,
  );
  await shot("about.png");
  // The checkpoint shown is one the record holds, checked by the CLI against the same key.
  const checked = await run(cli, ["verify", "--db", process.env.PITWATCH_DB, "--checkpoint", checkpoint]);
  assert.equal(checked.code, 0, checked.out);
  assert.ok(checked.out.includes(fingerprint), checked.out);
  await driver.clickCss('[data-testid="nav-pit"]');
});

test("a database locked by another process: every screen says recording is degraded, then that it recovered", async () => {
  const { driver } = harness;
  // An event file whose import (one transaction) holds the database's write lock for seconds,
  // into a table of its own (the pit's tables are the monitor's: an import into one is refused).
  const events = join(dataDir, "lock.jsonl");
  const lines = [];
  for (let seq = 1; seq <= 300000; seq++) lines.push(`{"event":"bets_closed","seq":${seq}}`);
  writeFileSync(events, lines.join("\n") + "\n");
  await driver.click(await driver.find('[data-testid="nav-pit"]'));
  const importer = spawn(cli, ["import", "--db", process.env.PITWATCH_DB, "--table", "E2E-LOCK", "--format", "events", events], {
    stdio: "ignore",
  });
  const exited = new Promise((done) => importer.on("exit", (code) => done(code)));
  const bannerText = async () => {
    const banner = await driver.find('[data-testid="recording-alert"]');
    return banner && driver.text(banner);
  };
  const degraded = await driver.waitFor("the recording-degraded banner", async () => {
    const text = await bannerText();
    return text && /RECORDING DEGRADED/.test(text) && text;
  }, 30000);
  assert.match(degraded, /locked by another process/);
  assert.match(degraded, /waiting to be written/);
  await shot("recording-degraded.png");
  // On every screen: the incident list says it too.
  await driver.click(await driver.find('[data-testid="nav-incidents"]'));
  assert.match(await bannerText(), /RECORDING DEGRADED/);
  assert.equal(await exited, 0, "the import finished");
  const recovered = await driver.waitFor("recording recovered", async () => {
    const text = await bannerText();
    return text && /Recording recovered/.test(text) && text;
  }, 30000);
  assert.match(recovered, /Everything that waited is on record/);
  await shot("recording-recovered.png");
  await driver.click(await driver.find('[data-testid="nav-pit"]'));
});

test("a pit definition with problems shows them in the window instead of the pit", async () => {
  const { driver } = harness;
  const config = join(dataDir, "bad-pit.toml");
  writeFileSync(
    config,
    `[site]
name = "Broken Pit"

[[table]]
name = "T1"
game = "baccarat"
rules = "no-such-book"
device = { protocol = "angel-eye" }
simulated = true

[[table]]
name = "T1"
game = "baccarat"
rules = "nz-baccarat"
device = { protocol = "angel-eye" }
`,
  );
  await driver.quit();
  // The pit definition is the app's first argument (PITWATCH_CONFIG is not set here).
  await driver.start(app, [config]);
  const screen = await driver.waitFor("the start-up error screen", () => driver.find('[data-testid="startup-error"]'));
  assert.match(await driver.text(screen), /could not start the pit/);
  const problems = await driver.execute(
    `return [...document.querySelectorAll('[data-testid="startup-problem"]')].map(li => li.textContent);`,
  );
  assert.ok(problems.some((p) => p.includes("bad-pit.toml")), `the file is named: ${problems}`);
  assert.ok(problems.some((p) => /no-such-book/.test(p)), `the unknown rule book is listed: ${problems}`);
  assert.ok(problems.some((p) => /same name/.test(p)), `the duplicate name is listed: ${problems}`);
  assert.equal(await driver.find('[data-testid="table-tile"]'), null, "no pit is shown");
  await shot("startup-error.png");
});

test("a database that cannot be opened is shown in the window", async () => {
  await harness.driver.quit();
  // The database path is a directory: SQLite cannot open it. A driver with its own environment.
  const own = await driverWithDb(dataDir);
  const { driver } = own;
  try {
    await driver.start(app);
    const screen = await driver.waitFor("the start-up error screen", () => driver.find('[data-testid="startup-error"]'));
    const text = await driver.text(screen);
    assert.match(text, /The pit cannot start/);
    assert.match(text, /unable to open database file/);
    await shot("startup-error-database.png", driver);
  } finally {
    await driver.quit();
    await own.stop();
  }
});

/** A TCP device stand-in: accepts connections on `port` (0: any) and can drop them and stop. */
async function tcpDevice(port = 0) {
  const sockets = new Set();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
  });
  await new Promise((ok, fail) => {
    server.once("error", fail);
    server.listen(port, "127.0.0.1", ok);
  });
  return {
    port: server.address().port,
    connections: () => sockets.size,
    /** Sends `text` to every connected host, as the device would. */
    send: (text) => {
      for (const socket of sockets) socket.write(text);
    },
    /** Drops every connection and stops listening, like a device switched off. */
    stop: () =>
      new Promise((ok) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => ok());
      }),
  };
}

/** Passwords strong enough for the desk's policy (12 characters, not guessable). */
const ROOT_PASSWORD = "root keeps the pit keys 42";
const STAFF_PASSWORD = "correct horse battery staple";

/** Fills in the first-run screen of a pit with no users; the new admin is then logged in. */
async function createFirstAdmin(driver, name, password) {
  await driver.waitFor("the first-run screen", () => driver.find('[data-testid="first-run"]'));
  await driver.type(await driver.find('[data-testid="first-run-name"]'), name);
  await driver.type(await driver.find('[data-testid="first-run-password"]'), password);
  await driver.type(await driver.find('[data-testid="first-run-repeat"]'), password);
  await driver.click(await driver.find('[data-testid="first-run-create"]'));
  const user = await driver.waitFor("the first admin's session", () => driver.find('[data-testid="session-user"]'));
  assert.match(await driver.text(user), new RegExp(`${name} \\(admin\\)`));
}

/** A pit definition of one TCP table at `port`, written to `file`. */
function tcpPit(file, site, table, port) {
  writeFileSync(
    file,
    `[site]
name = "${site}"

[[table]]
name = "${table}"
game = "baccarat"
rules = "nz-baccarat"
device = { protocol = "angel-eye" }
link = { kind = "tcp", address = "127.0.0.1:${port}", backoff = { initial_ms = 100, max_ms = 300 } }
`,
  );
}

/** A tauri-driver whose app runs with `vars` set in its environment (restored after). */
async function driverWithEnv(vars) {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  Object.assign(process.env, vars);
  return startTauriDriver().finally(() => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });
}

/** A tauri-driver whose app records into `db` (a pit and a database of their own; the demo's too). */
async function driverWithDb(db) {
  return driverWithEnv({ PITWATCH_DB: db, PITWATCH_DEMO_DB: db });
}

test("a table whose device link drops shows Reconnecting, then Connected when it is back", async () => {
  let device = await tcpDevice();
  const { port } = device;
  const config = join(dataDir, "tcp-pit.toml");
  tcpPit(config, "Link Test Pit", "TCP-1", port);
  await harness.driver.quit();
  // A pit of its own on a database of its own: a driver started with its own environment.
  const own = await driverWithDb(join(dataDir, "tcp-pit.db"));
  const { driver } = own;
  try {
    // The pit definition is the app's first argument (PITWATCH_CONFIG is not set here).
    await driver.start(app, [config]);
    // A real pit starts with no users: its first administrator comes first, then the pit.
    await createFirstAdmin(driver, "linkadmin", "link admin keeps 7 cables tidy");
    await driver.clickCss('[data-testid="nav-pit"]');
    const status = () =>
      driver.execute(`return document.querySelector('[data-table="TCP-1"] [data-testid="tile-status"]')?.dataset.status ?? null;`);
    const label = () => driver.execute(`return document.querySelector('[data-table="TCP-1"] [data-testid="tile-status"]')?.textContent ?? "";`);
    await driver.waitFor("the tile to show Connected", async () => (await status()) === "connected");
    assert.match(await label(), /Connected/);
    await driver.waitFor("the app's connection", () => device.connections() > 0, 5000);

    await device.stop();
    await driver.waitFor("the tile to show Reconnecting", async () => (await status()) === "reconnecting");
    assert.match(await label(), /Reconnecting/);
    await shot("link-reconnecting.png", driver);

    device = await tcpDevice(port);
    await driver.waitFor("the tile to show Connected again", async () => (await status()) === "connected");
    assert.match(await label(), /Connected/);
    await shot("link-connected-again.png", driver);
  } finally {
    await driver.quit();
    await own.stop();
    await device.stop();
  }
});

test("a real pit with no users asks for its first administrator, who then manages users", async () => {
  const device = await tcpDevice();
  const config = join(dataDir, "first-run-pit.toml");
  tcpPit(config, "First Run Pit", "FR-1", device.port);
  await harness.driver.quit();
  const own = await driverWithDb(join(dataDir, "first-run.db"));
  const { driver } = own;
  /** The users listed on the Users screen, as "name:role". */
  const listed = () =>
    driver.execute(
      `return [...document.querySelectorAll('[data-testid="user-row"]')].map(r => r.dataset.name + ":" + r.dataset.role);`,
    );
  try {
    await driver.start(app, [config]);
    const screen = await driver.waitFor("the first-run screen", () => driver.find('[data-testid="first-run"]'));
    assert.match(await driver.text(screen), /Create the first administrator/);
    assert.equal(await driver.find('[data-testid="login-form"]'), null, "no login form: nobody could log in");
    assert.equal(await driver.find('[data-testid="table-tile"]'), null, "the first-run screen comes first");

    // Passwords that differ are caught before the desk is asked.
    await driver.type(await driver.find('[data-testid="first-run-name"]'), "root");
    await driver.type(await driver.find('[data-testid="first-run-password"]'), "root-password");
    await driver.type(await driver.find('[data-testid="first-run-repeat"]'), "root-passwort");
    await driver.click(await driver.find('[data-testid="first-run-create"]'));
    const problem = await driver.waitFor("the form's complaint", () => driver.find('[data-testid="first-run-error"]'));
    assert.match(await driver.text(problem), /differ/);
    await shot("first-run.png", driver);

    await createFirstAdmin(driver, "root", ROOT_PASSWORD);
    await driver.waitFor("the Users screen", () => driver.find('[data-testid="users-view"]'));
    await driver.waitFor("the first admin listed", async () => (await listed()).join() === "root:admin");
    const added = await driver.execute(
      `return document.querySelector('[data-testid="user-row"][data-name="root"] td:nth-child(3)')?.textContent ?? "";`,
    );
    assert.match(added, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$/, `when root was added: ${added}`);

    await driver.type(await driver.find('[data-testid="user-name"]'), "sam");
    await driver.type(await driver.find('[data-testid="user-password"]'), STAFF_PASSWORD);
    await driver.type(await driver.find('[data-testid="user-repeat"]'), STAFF_PASSWORD);
    await driver.click(await driver.find('[data-testid="user-add"]'));
    await driver.waitFor("both users listed", async () => (await listed()).join() === "root:admin,sam:supervisor");
    assert.equal(await driver.find('[data-testid="user-error"]'), null);

    // The admin changes sam's role and deactivates sam, from the same screen.
    await driver.click(await driver.find('[data-testid="user-row"][data-name="sam"] [data-testid="user-edit"]'));
    await driver.waitFor("sam's account editor", () => driver.find('[data-testid="user-editor"]'));
    await driver.execute(
      `const s = document.querySelector('[data-testid="user-new-role"]'); s.value = "surveillance"; s.dispatchEvent(new Event("change", { bubbles: true }));`,
    );
    await driver.click(await driver.find('[data-testid="user-save-role"]'));
    await driver.waitFor("sam as surveillance", async () => (await listed()).join() === "root:admin,sam:surveillance");
    await driver.click(await driver.find('[data-testid="user-toggle-active"]'));
    await driver.waitFor("sam deactivated", () =>
      driver.execute(`return document.querySelector('[data-testid="user-row"][data-name="sam"]')?.dataset.active === "false";`),
    );
    const done = await driver.waitFor("the change confirmed", () => driver.find('[data-testid="user-change-done"]'));
    assert.match(await driver.text(done), /no longer log in/);
    await shot("users.png", driver);

    // The pit is there behind it, and a restart on the same record shows the login form again.
    await driver.clickCss('[data-testid="nav-pit"]');
    await driver.waitFor("the pit's tile", () => driver.find('[data-table="FR-1"]'));
    await driver.quit();
    await driver.start(app, [config]);
    await driver.waitFor("the login form", () => driver.find('[data-testid="login-form"]'));
    assert.equal(await driver.find('[data-testid="first-run"]'), null, "first run happens once");
  } finally {
    await driver.quit();
    await own.stop();
    await device.stop();
  }
});

/** A pseudo-terminal pair made by socat: the app opens `path`, as if a USB adapter was plugged in. */
async function plugInSerial(path) {
  const socat = spawn("socat", [`pty,raw,echo=0,link=${path}`, `pty,raw,echo=0,link=${path}-device`], { stdio: "ignore" });
  socat.on("error", () => {});
  for (let i = 0; i < 50 && !existsSync(path); i++) await sleep(100);
  assert.ok(existsSync(path), `socat made ${path}`);
  return { unplug: () => socat.kill("SIGTERM") };
}

test("a shoe that jams shows Device error and why on its tile, then Connected once every error is cleared", async () => {
  // The protocol's own example line, so a wrong checksum here cannot pass for a device problem.
  assert.equal(pwLine("PW1 6 JAM where=elevator"), "PW1 6 JAM where=elevator *762A\r\n");
  const device = await tcpDevice();
  // A USB serial adapter that is not plugged in when the pit starts.
  const serialPath = join(dataDir, "ttyPIT-9");
  const config = join(dataDir, "jam-pit.toml");
  writeFileSync(
    config,
    `[site]
name = "Device Error Pit"

[[table]]
name = "SHOE-1"
game = "baccarat"
rules = "nz-baccarat"
device = { protocol = "pitwatch" }
link = { kind = "tcp", address = "127.0.0.1:${device.port}", backoff = { initial_ms = 100, max_ms = 300 } }

[[table]]
name = "USB-9"
game = "baccarat"
rules = "nz-baccarat"
device = { protocol = "angel-eye" }
link = { kind = "serial", path = "${serialPath}", baud = 9600, backoff = { initial_ms = 100, max_ms = 300 } }
`,
  );
  await harness.driver.quit();
  const own = await driverWithDb(join(dataDir, "jam-pit.db"));
  const { driver } = own;
  let serial = null;
  /** What a tile shows about its device: the status, its words, and the reason as rendered. */
  const tile = (name) =>
    driver.execute(
      `const t = document.querySelector('[data-testid="table-tile"][data-table="' + arguments[0] + '"]');
       if (!t) return null;
       const s = t.querySelector('[data-testid="tile-status"]');
       const r = t.querySelector('[data-testid="tile-status-reason"]');
       const box = r && r.getBoundingClientRect(), outer = t.getBoundingClientRect();
       return {
         status: s.dataset.status,
         label: s.textContent.replace(/\\s+/g, " ").trim(),
         reason: r ? r.innerText.trim() : null,
         // On screen and inside its tile, not clipped away or hidden in a tooltip.
         reasonShown: !!box && box.height > 8 && box.width > 40 && box.left >= outer.left && box.right <= outer.right,
       };`,
      [name],
    );
  try {
    await driver.start(app, [config]);
    await createFirstAdmin(driver, "jamadmin", "jamadmin-password");
    await driver.clickCss('[data-testid="nav-pit"]');
    await driver.waitFor("SHOE-1 connected", async () => (await tile("SHOE-1"))?.status === "connected");
    await driver.waitFor("the app's connection", () => device.connections() > 0, 5000);
    assert.equal((await tile("SHOE-1")).reason, null, "a connected device needs no reason on its tile");

    // The adapter that is not there: the tile says so, in words, while the transport retries.
    const missing = await driver.waitFor("USB-9 retrying with its reason", async () => {
      const t = await tile("USB-9");
      return t?.status === "reconnecting" && t.reason && t;
    });
    assert.match(missing.label, /↻ Reconnecting/);
    assert.ok(missing.reasonShown, `the reason is on the tile: ${JSON.stringify(missing)}`);
    assert.match(missing.reason, /^↻ Cannot open .*ttyPIT-9: no such port$/i);

    // The shoe reports a card jam (Pitwatch protocol JAM): the real codec, engine and desk.
    device.send(pwLine("PW1 1 HELLO proto=1 role=shoe make=Acme model=Shoe-9 serial=S77 fw=1.0"));
    device.send(pwLine("PW1 2 JAM where=elevator"));
    const jammed = await driver.waitFor("SHOE-1 in error", async () => {
      const t = await tile("SHOE-1");
      return t?.status === "error" && t;
    });
    // Without colour: a glyph and words, and the device's own reason on the tile itself.
    assert.match(jammed.label, /⚠ Device error/);
    assert.ok(jammed.reasonShown, `the reason is on the tile: ${JSON.stringify(jammed)}`);
    assert.match(jammed.reason, /^⚠ Card jam at elevator \(device error JAM\)$/);
    await shot("device-error.png", driver);

    // The table's device panel says the same.
    await driver.clickCss('[data-testid="table-tile"][data-table="SHOE-1"]');
    const panel = await driver.waitFor("the device panel", () => driver.find('[data-testid="device-status"]'));
    assert.equal(await driver.attribute(panel, "data-status"), "error");
    const panelText = await driver.text(panel);
    assert.match(panelText, /Device error/);
    assert.match(panelText, /card jam at elevator \(device error JAM\)/);
    await shot("device-error-table.png", driver);
    await driver.clickCss('[data-testid="nav-pit"]');

    // The adapter is plugged in: the transport's retry finds it.
    serial = await plugInSerial(serialPath);
    await driver.waitFor("USB-9 connected", async () => (await tile("USB-9"))?.status === "connected");
    assert.equal((await tile("USB-9")).reason, null);

    // The shoe's door is opened to clear the jam, and the jam is cleared: the open door keeps
    // the table in error, and says so.
    device.send(pwLine("PW1 3 DOOR state=open"));
    await driver.waitFor("both errors on the tile", async () => /door open.*card jam/i.test((await tile("SHOE-1"))?.reason ?? ""));
    device.send(pwLine("PW1 4 CLEAR code=JAM"));
    const door = await driver.waitFor("only the door left", async () => {
      const t = await tile("SHOE-1");
      return t && !/jam/i.test(t.reason ?? "") && t;
    });
    assert.equal(door.status, "error");
    assert.match(door.reason, /^⚠ Door open \(device error DOOR_OPEN\)$/);

    // The door is closed: the tile is back to Connected, with no reason left.
    device.send(pwLine("PW1 5 DOOR state=closed"));
    const cleared = await driver.waitFor("SHOE-1 connected again", async () => {
      const t = await tile("SHOE-1");
      return t?.status === "connected" && t;
    });
    assert.match(cleared.label, /● Connected/);
    assert.equal(cleared.reason, null);
    await shot("device-error-cleared.png", driver);
  } finally {
    await driver.quit();
    await own.stop();
    serial?.unplug();
    await device.stop();
  }
});

test("a record altered behind Pitwatch's back is a critical alert on every screen, and recording goes on in a new segment", async () => {
  await harness.driver.quit();
  // A copy of the demo pit's record in which someone made themselves an administrator.
  const db = join(dataDir, "tampered.db");
  const copied = await run("python3", [
    "-c",
    `import sqlite3, sys
src = sqlite3.connect(sys.argv[1]); src.execute("VACUUM INTO ?", (sys.argv[2],)); src.close()
db = sqlite3.connect(sys.argv[2])
db.execute("INSERT INTO users (name, role, password_hash, created_at) VALUES ('mallory', 'admin', 'x', 'now')")
db.commit()`,
    process.env.PITWATCH_DB,
    db,
  ]);
  assert.equal(copied.code, 0, copied.out);
  const own = await driverWithDb(db);
  const { driver } = own;
  try {
    await driver.start(app);
    const banner = await driver.waitFor("the record alert", async () => {
      const b = await driver.find('[data-testid="record-alert"]');
      return b && (await driver.execute(`return document.querySelector('[data-testid="record-alert"]').textContent;`));
    });
    await shot("record-alert.png", driver);
    assert.match(banner, /RECORD/);
    assert.match(banner, /failed verification/);
    assert.match(banner, /mallory/);
    assert.match(banner, /new segment/);
    // Every screen keeps it.
    await driver.clickCss('[data-testid="nav-incidents"]');
    assert.ok(await driver.find('[data-testid="record-alert"]'), "on the incident screen too");
    await shot("record-alert.png", driver);
    await driver.clickCss('[data-testid="nav-about"]');
    const path = await driver.waitFor("the segment in use", async () => {
      const p = await driver.find('[data-testid="about-path"]');
      return p && (await driver.text(p));
    });
    assert.match(path, /tampered\.segment-2\.db$/);
    await shot("about-record-alert.png", driver);
  } finally {
    await driver.quit();
    await own.stop();
  }
  // The altered record is kept as it was: still found by verify, naming the row.
  const checked = await run(cli, ["verify", "--db", db]);
  assert.equal(checked.code, 1, checked.out);
  assert.match(checked.out, /users row "mallory"/);
});

/** Runs a command with `env` added to this process's environment; resolves with its exit code and output. */
function runWith(command, args, env) {
  return new Promise((done) => {
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...env } });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    child.on("close", (code) => done({ code, out }));
  });
}

test("a surveillance officer cannot resolve (no button, and the command is refused), a failed login is in the audit view, and the idle lock locks and unlocks", async () => {
  await harness.driver.quit();
  const db = join(dataDir, "roles.db");
  // The record: two incidents at RL-1 (a burn miscount, a wrong result), its first administrator
  // and a surveillance officer, made with the CLI.
  const events = join(dataDir, "roles.jsonl");
  writeFileSync(
    events,
    [
      { event: "shuffled", decks: 8, shuffler: "batch" },
      { event: "cut", position: 180 },
      { event: "cutting_card_placed", from_back: 24 },
      { event: "card_drawn", card: "3H", target: "first", face_up: true },
      { event: "card_drawn", card: "KD", target: "burn" },
      { event: "card_drawn", card: "7C", target: "burn" },
      { event: "burn_counted", count: 2 },
      { event: "card_drawn", card: "4S", target: "player", index: 1 },
      { event: "card_drawn", card: "KD", target: "banker", index: 1 },
      { event: "card_drawn", card: "2D", target: "player", index: 2 },
      { event: "card_drawn", card: "5C", target: "banker", index: 2 },
      { event: "card_drawn", card: "2H", target: "banker", index: 3 },
      { event: "result_declared", outcome: "player" },
    ]
      .map((e) => JSON.stringify(e))
      .join("\n") + "\n",
  );
  const imported = await run(cli, ["import", "--db", db, "--table", "RL-1", "--format", "events", events]);
  assert.equal(imported.code, 0, imported.out);
  const root = await runWith(cli, ["user", "add", "--db", db, "--role", "admin", "root"], { PITWATCH_PASSWORD: ROOT_PASSWORD });
  assert.equal(root.code, 0, root.out);
  const sam = await runWith(cli, ["user", "add", "--db", db, "--admin", "root", "--role", "surveillance", "sam"], {
    PITWATCH_ADMIN_PASSWORD: ROOT_PASSWORD,
    PITWATCH_PASSWORD: STAFF_PASSWORD,
  });
  assert.equal(sam.code, 0, sam.out);
  const device = await tcpDevice();
  const config = join(dataDir, "roles-pit.toml");
  tcpPit(config, "Roles Pit", "RL-1", device.port);
  const idleSeconds = 6;
  const own = await driverWithEnv({ PITWATCH_DB: db, PITWATCH_IDLE_LOCK_SECONDS: String(idleSeconds) });
  const { driver } = own;
  try {
    await driver.start(app, [config]);
    // A failed login first: refused, and audited with the name tried.
    await driver.waitFor("the login form", () => driver.find('[data-testid="login-form"]'));
    await driver.type(await driver.find('[data-testid="login-user"]'), "sam");
    await driver.type(await driver.find('[data-testid="login-password"]'), "not sams password at all");
    await driver.click(await driver.find('[data-testid="login-submit"]'));
    const refused = await driver.waitFor("the refusal", async () => {
      const e = await driver.find('.user [role="alert"]');
      return e && (await driver.text(e));
    });
    assert.match(refused, /wrong user name or password/);
    // The next attempt for a name waits a second after a failure.
    await sleep(1200);
    await driver.type(await driver.find('[data-testid="login-password"]'), STAFF_PASSWORD);
    await driver.click(await driver.find('[data-testid="login-submit"]'));
    const user = await driver.waitFor("sam's session", () => driver.find('[data-testid="session-user"]'));
    assert.match(await driver.text(user), /sam \(surveillance\)/);

    // The incident: notes and exports, but no Acknowledge or Resolve for surveillance.
    await driver.clickCss('[data-testid="nav-incidents"]');
    const row = await driver.waitFor("an incident", () => driver.find('[data-testid="incident-row"]'));
    const id = Number(await driver.attribute(row, "data-id"));
    await driver.click(await driver.find('[data-testid="incident-row"] td'));
    await driver.waitFor("the incident detail", () => driver.find('[data-testid="incident-status"]'));
    await driver.waitFor("the workflow's note", () => driver.find('[data-testid="resolve-not-yours"]'));
    assert.equal(await driver.find('[data-testid="resolve"]'), null, "no Resolve button for surveillance");
    assert.equal(await driver.find('[data-testid="ack"]'), null, "no Acknowledge button for surveillance");
    assert.ok(await driver.find('[data-testid="note-text"]'), "surveillance notes");
    assert.equal(await driver.find('[data-testid="alert-ack"]'), null, "no Acknowledge on the alert banner either");
    await shot("surveillance-incident.png", driver);
    // Called directly through the IPC, as a script in the window could: refused.
    const answer = await driver.request("POST", driver.s("/execute/async"), {
      script: `const done = arguments[arguments.length - 1];
        window.__TAURI_INTERNALS__.invoke("resolve", { id: arguments[0], outcome: "forced" })
          .then(() => done("resolved"), (e) => done(e.code + ": " + e.message));`,
      args: [id],
    });
    assert.match(answer, /^forbidden: sam \(surveillance\) may not resolve incidents/);
    assert.equal(await driver.text(await driver.find('[data-testid="incident-status"]')), "Open");

    // The audit view: the failed login (with the name tried) and the refused command.
    await driver.clickCss('[data-testid="nav-audit"]');
    await driver.waitFor("the failed login listed", () => driver.find('[data-testid="audit-row"][data-action="login.failed"][data-user="sam"]'));
    assert.ok(await driver.find('[data-testid="audit-row"][data-action="access.forbidden"][data-user="sam"]'), "the refusal listed");
    await shot("audit-view.png", driver);

    // Left alone, the window locks; the alert banner stays.
    const lockScreen = await driver.waitFor("the idle lock", () => driver.find('[data-testid="lock-screen"]'), (idleSeconds + 10) * 1000);
    assert.match(await driver.text(lockScreen), /locked/i);
    assert.equal(await driver.find('[data-testid="session-user"]'), null, "nobody is logged in while locked");
    assert.equal(await driver.find('[data-testid="nav-incidents"]'), null, "no navigation while locked");
    assert.ok(await driver.find('[data-testid="alert-banner"]'), "the alert stays visible");
    assert.equal(await driver.find('[data-testid="alert-open"]'), null, "nothing is done with it until someone logs in");
    await shot("lock-screen.png", driver);
    const lockUser = await driver.execute(`return document.querySelector('[data-testid="lock-user"]').value;`);
    assert.equal(lockUser, "sam");
    await driver.type(await driver.find('[data-testid="lock-password"]'), STAFF_PASSWORD);
    await driver.click(await driver.find('[data-testid="lock-submit"]'));
    const back = await driver.waitFor("unlocked", () => driver.find('[data-testid="session-user"]'));
    assert.match(await driver.text(back), /sam \(surveillance\)/);
    assert.equal(await driver.find('[data-testid="lock-screen"]'), null);
  } finally {
    await driver.quit();
    await own.stop();
    await device.stop();
  }
});
