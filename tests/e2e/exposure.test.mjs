// End-to-end (issue 29): the house's exposure is surveillance's. The real desktop app on a real
// pit of its own whose Baccarat table's shoe (a few rounds, imported with the CLI) is judged by a
// rule book with a side bet that pays too much (Dragon 7 at 60 to 1: the house is behind on it
// from the first round). Checked: a supervisor is offered no exposure anywhere (no screen, none
// in replay) and the desk refuses the command, on record; a surveillance officer sees the alert,
// the table and its shoe round by round, saves the report, sees the figures in replay, and each
// look is in the audit log under their name. Run by `make e2e`; screenshots go to artifacts/e2e/.
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
const dataDir = mkdtempSync(join(tmpdir(), "pitwatch-e2e-exposure-"));
const savedDir = join(dataDir, "saved");
const TABLE = "BAC-7";
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

/** A shoe's first rounds, each a pair of naturals (no third card is due), as an event file. */
function shoeEvents(rounds) {
  const events = [
    { event: "shuffled", decks: 8, shuffler: "batch" },
    { event: "cut", position: 180 },
    { event: "cutting_card_placed", from_back: 24 },
    { event: "card_drawn", card: "3H", target: "first", face_up: true },
    { event: "card_drawn", card: "KD", target: "burn" },
    { event: "card_drawn", card: "7C", target: "burn" },
    { event: "card_drawn", card: "2S", target: "burn" },
    { event: "burn_counted", count: 3 },
  ];
  const suits = ["S", "H", "D", "C"];
  for (let i = 0; i < rounds; i++) {
    const s = suits[i % 4];
    const [p1, b1, p2, b2] = i % 2 === 0 ? ["9", "8", "K", "Q"] : ["8", "9", "J", "T"];
    events.push(
      { event: "card_drawn", card: p1 + s, target: "player", index: 1 },
      { event: "card_drawn", card: b1 + s, target: "banker", index: 1 },
      { event: "card_drawn", card: p2 + s, target: "player", index: 2 },
      { event: "card_drawn", card: b2 + s, target: "banker", index: 2 },
    );
  }
  return events.map((e) => JSON.stringify(e)).join("\n") + "\n";
}

before(async () => {
  mkdirSync(shots, { recursive: true });
  mkdirSync(savedDir, { recursive: true });
  // New Zealand's book with a Dragon 7 promotion at 60 to 1 in place of the usual 40.
  const nz = readFileSync(join(root, "crates/games/baccarat/rulebooks/nz-baccarat.toml"), "utf8");
  const generous = nz
    .replace('id = "nz-baccarat"', 'id = "nz-baccarat-promotion"')
    .replace(/wager = "dragon_7"\npays = 40\ncite = "[^"]*"/, 'wager = "dragon_7"\npays = 60\ncite = "the promotion of the week"');
  assert.ok(generous.includes("pays = 60"), "the promotion is in the book");
  const book = join(dataDir, "promotion.toml");
  writeFileSync(book, generous);
  const events = join(dataDir, "events.jsonl");
  writeFileSync(events, shoeEvents(8));
  const db = process.env.PITWATCH_DB;
  const imported = await run(cli, ["import", "--db", db, "--table", TABLE, "--rules", book, "--format", "events", events]);
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
    `[site]\nname = "Exposure Pit"\n\n[[table]]\nname = "${TABLE}"\ngame = "baccarat"\nrules = ${JSON.stringify(book)}\n` +
      `device = { protocol = "angel-eye" }\nlink = { kind = "tcp", address = "127.0.0.1:${device.port}", backoff = { initial_ms = 100, max_ms = 300 } }\n`,
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

test("a supervisor is offered no exposure anywhere, and the desk refuses it on record", async () => {
  const { driver } = harness;
  await driver.waitFor("the table's tile", () => driver.find(`[data-testid="table-tile"][data-table="${TABLE}"]`));
  await login(driver, "sue");
  assert.equal(await driver.find('[data-testid="nav-exposure"]'), null, "no exposure screen in the menu");
  await driver.clickCss('[data-testid="nav-replay"]');
  await driver.waitFor("the replay", () => driver.find('[data-testid="replay-round"]'));
  await driver.clickCss('[data-testid="next-round"]');
  await driver.clickCss('[data-testid="next-round"]');
  assert.equal(await driver.find('[data-testid="replay-exposure"]'), null, "no figures in replay");
  assert.equal(await invoke(driver, "pit_exposure"), "forbidden");
  assert.equal(await invoke(driver, "shoe_exposure", { table: TABLE, shoe: 1 }), "forbidden");
  assert.equal(await invoke(driver, "exposure_alerts"), "forbidden");
  // The window asks for alerts every 5 s for surveillance only: after two of those, still none.
  await driver.clickCss('[data-testid="nav-pit"]');
  await new Promise((done) => setTimeout(done, 11_000));
  assert.equal(await driver.find('[data-testid="exposure-banner"]'), null, "no exposure banner for the pit");
});

test("surveillance sees the alert, the table and its shoe, saves the report, and each look is audited", async () => {
  const { driver } = harness;
  await login(driver, "sam");
  // The banner every screen shows surveillance, and the count on the menu.
  const banner = await driver.waitFor("the exposure banner", () =>
    driver.execute(`return document.querySelector('[data-testid="exposure-banner"]')?.textContent ?? null;`),
  );
  writeFileSync(join(shots, "exposure-banner.png"), await driver.screenshot());
  assert.match(banner, new RegExp(`${TABLE}, shoe 1: Dragon 7 \\(60 to 1\\) has favoured the players for 3 rounds`));
  assert.equal(await driver.text(await driver.find('[data-testid="exposure-count"]')), "1");
  await driver.clickCss('[data-testid="exposure-banner-open"]');
  const row = `[data-testid="exposure-table"][data-table="${TABLE}"]`;
  await driver.waitFor("the table's row", () => driver.find(row));
  const alert = await driver.waitFor("the alert", async () => {
    const e = await driver.find('[data-testid="exposure-alert"]');
    return e && (await driver.text(e));
  });
  assert.match(alert, new RegExp(`${TABLE} shoe 1, before round 3: Dragon 7 \\(60 to 1\\) behind for 3 rounds`));
  assert.match(await driver.text(await driver.find(row)), /Dragon 7 \(60 to 1\) −\d+\.\d\d%/);
  await driver.clickCss(`${row} [data-testid="exposure-open"]`);
  const rounds = await driver.waitFor("the shoe's rounds", async () => {
    const n = await driver.execute(`return document.querySelectorAll('[data-testid="exposure-round"]').length;`);
    return n >= 9 && n;
  });
  assert.equal(rounds, 9, "the figures before each of 8 rounds dealt and the next");
  writeFileSync(join(shots, "exposure-panel.png"), await driver.screenshot());

  await driver.clickCss('[data-testid="exposure-export-pdf"]');
  await driver.waitFor("the PDF saved", () => driver.find('[data-testid="exposure-saved"]'));
  await driver.clickCss('[data-testid="exposure-export-csv"]');
  await driver.waitFor("the CSV saved", async () => existsSync(join(savedDir, `exposure-${TABLE}-shoe-1.csv`)));
  assert.ok(readFileSync(join(savedDir, `exposure-${TABLE}-shoe-1.pdf`)).subarray(0, 4).equals(Buffer.from("%PDF")));
  const csv = readFileSync(join(savedDir, `exposure-${TABLE}-shoe-1.csv`), "utf8");
  assert.match(csv, /"Dragon 7 \(60 to 1\)",-\d+\.\d+,true,true,"the promotion of the week"/);

  // In replay, the figures before the round shown.
  await driver.clickCss('[data-testid="nav-replay"]');
  await driver.waitFor("the replay", () => driver.find('[data-testid="replay-round"]'));
  await driver.clickCss('[data-testid="next-round"]');
  await driver.clickCss('[data-testid="next-round"]');
  const figures = await driver.waitFor("the replay's figures", async () => {
    const e = await driver.find('[data-testid="replay-exposure"]');
    return e && (await driver.text(e));
  });
  assert.match(figures, /House exposure before round \d+/);
  const rounds2 = await driver.execute(
    `return [document.querySelector('[data-testid="replay-round"]').dataset.round, document.querySelector('[data-testid="replay-exposure"]').dataset.round];`,
  );
  assert.equal(rounds2[1], rounds2[0], "the figures are those before the round shown");
  assert.match(figures, /Dragon 7 \(60 to 1\) −/);
  writeFileSync(join(shots, "exposure-replay.png"), await driver.screenshot());

  // The audit log: sam's looks and exports, sue's refusals.
  await driver.clickCss('[data-testid="nav-audit"]');
  await driver.waitFor("the audit list", () => driver.find('[data-testid="audit-list"]'));
  await driver.execute(`const b = document.querySelector('[data-testid="audit-access-only"]'); if (b.checked) b.click(); return true;`);
  const audited = await driver.waitFor("the exposure rows", async () => {
    const r = await driver.execute(
      `return [...document.querySelectorAll('[data-testid="audit-row"]')]
         .filter((e) => e.dataset.action.startsWith("exposure.") || e.dataset.action === "access.forbidden")
         .map((e) => e.dataset.action + " " + e.dataset.user + " " + e.children[3].textContent.trim());`,
    );
    return r.length >= 5 && r;
  });
  assert.ok(audited.includes("exposure.view sam pit"), audited.join("\n"));
  assert.ok(audited.includes("exposure.view sam alerts"), audited.join("\n"));
  assert.ok(audited.includes(`exposure.view sam table ${TABLE} shoe 1`), audited.join("\n"));
  assert.ok(audited.includes(`exposure.export sam table ${TABLE} shoe 1`), audited.join("\n"));
  assert.ok(audited.includes(`exposure.alert pitwatch table ${TABLE} shoe 1`), audited.join("\n"));
  assert.ok(audited.includes("access.forbidden sue view_exposure"), audited.join("\n"));
  assert.ok(!audited.some((r) => r.startsWith("exposure.view sue")), audited.join("\n"));
});
