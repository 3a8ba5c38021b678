// End-to-end (issue 34): the lock screen, the mute, lockout times and Chinese text in the window.
// The real desktop app on a real pit of its own whose one table has a Chinese name (百家乐一号) and
// open incidents imported with the CLI, its first administrator made with the CLI. Checked: the
// alarm's mute is a logged-in user's step, on record with its words in the audit view, ended by
// the lock; the lock screen keeps the pit in sight read-only and offers no mute; a lockout says
// how long is left; and the table's Chinese name is drawn in the font the window ships (a
// screenshot's glyphs, compared with the same text drawn without it). Run by `make e2e`;
// screenshots go to artifacts/e2e/.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { cells, decodePng, greyRegion, inkMask, maskDifference } from "./png.mjs";
import { startTauriDriver } from "./webdriver.mjs";
import { run, tcpDevice } from "./support.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const app = process.env.PITWATCH_APP ?? join(root, "target/debug/pitwatch-desktop");
const cli = join(dirname(app), "pitwatch");
const shots = join(root, "artifacts/e2e");
const dataDir = mkdtempSync(join(tmpdir(), "pitwatch-e2e-lock-"));
const TABLE = "百家乐一号";
const ROOT_PASSWORD = "root keeps the pit keys 42";

Object.assign(process.env, {
  PITWATCH_DB: join(dataDir, "pit.db"),
  PITWATCH_KEY: join(dataDir, "signing.key"),
  XDG_CONFIG_HOME: join(dataDir, "config"),
  XDG_DATA_HOME: join(dataDir, "data"),
});

let harness;
let device;

before(async () => {
  mkdirSync(shots, { recursive: true });
  // A shoe with a burn miscount and a wrong result: two open incidents at the table.
  const events = join(dataDir, "events.jsonl");
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
    ].map((e) => JSON.stringify(e)).join("\n") + "\n",
  );
  const db = process.env.PITWATCH_DB;
  const imported = await run(cli, ["import", "--db", db, "--table", TABLE, "--format", "events", events]);
  assert.equal(imported.code, 0, imported.out);
  const admin = await run(cli, ["user", "add", "--db", db, "--role", "admin", "root"], { PITWATCH_PASSWORD: ROOT_PASSWORD });
  assert.equal(admin.code, 0, admin.out);
  device = await tcpDevice();
  writeFileSync(
    join(dataDir, "pit.toml"),
    `[site]\nname = "澳门 Main Pit"\n\n[[table]]\nname = "${TABLE}"\ngame = "baccarat"\nrules = "nz-baccarat"\n` +
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

const tileCss = `[data-testid="table-tile"][data-table="${TABLE}"]`;

/** The mute button's state ("true"/"false"), or null when there is none. */
function muteState(driver) {
  return driver.execute(`return document.querySelector('[data-testid="mute"]')?.dataset.muted ?? null;`);
}

/** The screenshot's pixels of the table's name on its tile, and the name's box. */
async function nameRegion(driver) {
  const rect = await driver.execute(
    `const e = document.querySelector(arguments[0] + ' [data-testid="table-name"] bdi');
     const r = e.getBoundingClientRect();
     return { x: r.x * devicePixelRatio, y: r.y * devicePixelRatio, width: r.width * devicePixelRatio, height: r.height * devicePixelRatio };`,
    [tileCss],
  );
  return { rect, image: decodePng(await driver.screenshot()) };
}

test("nobody logged in sees the pit and its alert but no mute; a logged-in user's mute and unmute are on record", async () => {
  const { driver } = harness;
  await driver.waitFor("the table's tile", () => driver.find(tileCss));
  await driver.waitFor("the alert", () => driver.find('[data-testid="alert-banner"]'));
  assert.equal(await muteState(driver), null, "no mute before a login: the alarm sounds");
  await driver.execute("document.activeElement && document.activeElement.blur(); return true;");
  await driver.press("m");
  await sleep(300);
  assert.equal(await muteState(driver), null);

  await driver.type(await driver.find('[data-testid="login-user"]'), "root");
  await driver.type(await driver.find('[data-testid="login-password"]'), ROOT_PASSWORD);
  await driver.click(await driver.find('[data-testid="login-submit"]'));
  await driver.waitFor("root's session", () => driver.find('[data-testid="session-user"]'));
  assert.equal(await muteState(driver), "false");
  await driver.clickCss('[data-testid="mute"]');
  await driver.waitFor("muted", async () => (await muteState(driver)) === "true");
  assert.match(await driver.text(await driver.find('[data-testid="mute"]')), /Sound off/);
  await driver.clickCss('[data-testid="mute"]');
  await driver.waitFor("unmuted", async () => (await muteState(driver)) === "false");
  await driver.clickCss('[data-testid="mute"]');
  await driver.waitFor("muted again", async () => (await muteState(driver)) === "true");
});

test("the table's Chinese name is drawn in the window's CJK font, not as empty boxes", async () => {
  const { driver } = harness;
  await driver.clickCss('[data-testid="nav-pit"]');
  await driver.waitFor("the tile", () => driver.find(tileCss));
  const loaded = await driver.executeAsync(
    `const done = arguments[arguments.length - 1];
     document.fonts.ready.then(() => done([...document.fonts].filter((f) => f.family.includes("Pitwatch CJK")).map((f) => f.status)));`,
  );
  assert.deepEqual(loaded, ["loaded"], "the CJK face was needed and loaded");
  const withFont = await nameRegion(driver);
  writeFileSync(join(shots, "lock-cjk-name.png"), await driver.screenshot());
  // The same text with the window's CJK font taken out of its font list.
  await driver.execute(
    `const s = document.createElement("style"); s.id = "no-cjk";
     s.textContent = '[data-testid="table-name"] { font-family: "Inter", "Cantarell", "DejaVu Sans", sans-serif !important; }';
     document.head.appendChild(s); return true;`,
  );
  const without = await nameRegion(driver);
  await driver.execute(`document.getElementById("no-cjk").remove(); return true;`);

  const a = greyRegion(withFont.image, withFont.rect);
  const b = greyRegion(without.image, withFont.rect);
  assert.ok(a.width >= 5 * 16 && a.height >= 16, `the name's box: ${JSON.stringify(withFont.rect)}`);
  const inkA = inkMask(a);
  const inkB = inkMask(b);
  const ink = inkA.filter(Boolean).length;
  assert.ok(ink > a.grey.length * 0.05, `ink in the name: ${ink} of ${a.grey.length} pixels`);
  // Without the font the name is drawn otherwise (boxes, or whatever the system has).
  const changed = maskDifference(inkA, inkB);
  assert.ok(changed > ink * 0.2, `${changed} pixels of ${ink} differ without the font`);
  // With it, each of the five characters is a glyph of its own: boxes would all be alike.
  const glyphs = cells(a, inkA, [...TABLE].length);
  for (let i = 0; i < glyphs.length; i++) {
    assert.ok(glyphs[i].some(Boolean), `character ${i + 1} has ink`);
    for (let j = i + 1; j < glyphs.length; j++) {
      const ownInk = Math.max(glyphs[i].filter(Boolean).length, glyphs[j].filter(Boolean).length);
      const apart = maskDifference(glyphs[i], glyphs[j]);
      assert.ok(apart > ownInk * 0.3, `characters ${i + 1} and ${j + 1} differ in ${apart} pixels (of ${ownInk} inked)`);
    }
  }
});

test("locked: the pit stays in sight read-only, no mute, the alarm sounds again; a lockout says how long is left", async () => {
  const { driver } = harness;
  await driver.clickCss('[data-testid="switch-supervisor"]');
  await driver.waitFor("the lock screen", () => driver.find('[data-testid="lock-screen"]'));
  const pit = await driver.execute(
    `const grid = document.querySelector('[data-testid="pit-grid"]');
     const tile = document.querySelector(arguments[0]);
     return { grid: grid?.dataset.readonly ?? null, disabled: tile?.disabled ?? null };`,
    [tileCss],
  );
  assert.deepEqual(pit, { grid: "true", disabled: true }, "the pit is shown, its tiles open nothing");
  assert.equal(await muteState(driver), null, "no mute on the lock screen");
  assert.ok(await driver.find('[data-testid="alert-banner"]'), "the alert stays");
  assert.equal(await driver.find('[data-testid="alert-ack"]'), null);
  assert.equal(await driver.find('[data-testid="alert-open"]'), null);
  // A tile clicked, M pressed: nothing happens, the lock screen stays.
  await driver.execute(`document.querySelector(arguments[0]).click(); document.activeElement && document.activeElement.blur(); return true;`, [tileCss]);
  await driver.press("m");
  await sleep(300);
  assert.ok(await driver.find('[data-testid="lock-screen"]'));
  assert.equal(await driver.find('[data-testid="table-view"]'), null);
  await harness.driver.screenshot().then((png) => writeFileSync(join(shots, "lock-screen-pit.png"), png));

  // Five wrong passwords for one name, each after the delay the one before set (1, 2, 4, 8 s).
  const attempt = async (password) => {
    await driver.type(await driver.find('[data-testid="lock-user"]'), "ghost");
    await driver.type(await driver.find('[data-testid="lock-password"]'), password);
    await driver.click(await driver.find('[data-testid="lock-submit"]'));
    return driver.waitFor("the answer", async () => {
      const e = await driver.find('[data-testid="lock-error"]');
      return e && (await driver.text(e));
    });
  };
  for (const [n, wait] of [1, 2, 4, 8, 0].entries()) {
    const answer = await attempt("not a password of anyone's");
    if (n < 4) assert.match(answer, /^wrong user name or password$/, `attempt ${n + 1}`);
    else assert.match(answer, /^wrong user name or password; too many failed logins for "ghost": locked for 15 minutes$/);
    await sleep(wait * 1000 + 1500);
  }
  const locked = await attempt("whatever it is now");
  assert.match(locked, /^too many failed logins for "ghost": locked for 14 minutes \d+ seconds more$/);

  // Root logs in on the lock screen: the sound is on again (the lock ended root's mute).
  await driver.type(await driver.find('[data-testid="lock-user"]'), "root");
  await driver.type(await driver.find('[data-testid="lock-password"]'), ROOT_PASSWORD);
  await driver.click(await driver.find('[data-testid="lock-submit"]'));
  await driver.waitFor("root's session", () => driver.find('[data-testid="session-user"]'));
  assert.equal(await muteState(driver), "false");

  // The audit view, every action: each mute and unmute under root's name, in words; no refusal.
  await driver.clickCss('[data-testid="nav-audit"]');
  await driver.waitFor("the audit list", () => driver.find('[data-testid="audit-list"]'));
  await driver.execute(`const b = document.querySelector('[data-testid="audit-access-only"]'); if (b.checked) b.click(); return true;`);
  const rows = await driver.waitFor("the alarm rows", async () => {
    const r = await driver.execute(
      `return [...document.querySelectorAll('[data-testid="audit-row"]')]
         .filter((e) => e.dataset.action.startsWith("alarm.") || e.dataset.action === "access.forbidden")
         .map((e) => [e.dataset.action, e.dataset.user, e.children[1].textContent.trim()]);`,
    );
    return r.length >= 4 && r;
  });
  // Newest first: the lock's unmute, then the mute, the unmute and the first mute.
  assert.deepEqual(rows, [
    ["alarm.unmute", "root", "Alarm sound back on alarm.unmute"],
    ["alarm.mute", "root", "Alarm sound muted alarm.mute"],
    ["alarm.unmute", "root", "Alarm sound back on alarm.unmute"],
    ["alarm.mute", "root", "Alarm sound muted alarm.mute"],
  ]);
});
