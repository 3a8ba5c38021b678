// End-to-end: a restart in the middle of a round raises nothing (issue 34). The real desktop app on
// a real pit (Blackjack, Pontoon, Baccarat), each shoe a device server on loopback that deals
// honestly (no injected faults) and goes on dealing while the workstation is down; the app killed
// outright (SIGKILL: no clean stop) while a Blackjack round is being dealt and started again on the
// same record: it comes back in the middle of rounds, follows them as joined, and no incident is
// opened at any table, before or after, while every table deals on.
// Run by `make e2e`; the screenshot goes to artifacts/e2e/restart-mid-round.png.
import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { createServer } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { startTauriDriver } from "./webdriver.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const app = process.env.PITWATCH_APP ?? join(root, "target/debug/pitwatch-desktop");
const cli = join(dirname(app), "pitwatch");
const shots = join(root, "artifacts/e2e");
const dataDir = mkdtempSync(join(tmpdir(), "pitwatch-e2e-restart-"));
const db = join(dataDir, "pit.db");

// This run's own record, key, config and web storage. The shoes deal honestly (no fault
// injected), so any incident at all is a false one.
Object.assign(process.env, {
  PITWATCH_DB: db,
  PITWATCH_KEY: join(dataDir, "signing.key"),
  XDG_CONFIG_HOME: join(dataDir, "config"),
  XDG_DATA_HOME: join(dataDir, "data"),
});

// Each table's shoe is the CLI's simulator serving its protocol over TCP: a device that goes on
// dealing while the workstation is down, so that the app comes back in the middle of a round.
const SHOES = [
  { name: "BJ-1", game: "blackjack", rules: "nz-blackjack", protocol: "pitwatch", seed: 7 },
  { name: "BJ-2", game: "blackjack", rules: "nz-blackjack", protocol: "pitwatch", seed: 8 },
  { name: "PON-1", game: "pontoon", rules: "nz-pontoon", protocol: "pitwatch", seed: 9 },
  { name: "BAC-1", game: "baccarat", rules: "nz-baccarat", protocol: "angel-eye", seed: 10 },
];
const TABLES = SHOES.map((t) => t.name);
const config = join(dataDir, "restart.toml");
const PASSWORD = "the restart pit's own 42";

/** A real pit (no demo): every table's shoe reached over TCP at its port. */
const pitText = (ports) =>
  `[site]\nname = "Restart Test Casino · Main Pit"\n\n` +
  SHOES.map(
    (t, i) => `[[table]]
name = "${t.name}"
game = "${t.game}"
rules = "${t.rules}"
device = { protocol = "${t.protocol}" }
link = { kind = "tcp", address = "127.0.0.1:${ports[i]}", backoff = { initial_ms = 100, max_ms = 300 } }
`,
  ).join("\n");

let harness;
const shoes = [];

/** A TCP port free on loopback just now. */
function freePort() {
  return new Promise((done, fail) => {
    const probe = createServer();
    probe.once("error", fail);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => done(port));
    });
  });
}

before(async () => {
  mkdirSync(shots, { recursive: true });
  const ports = [];
  for (const t of SHOES) {
    const port = await freePort();
    ports.push(port);
    const args = ["sim", "--protocol", t.protocol, "--rules", t.rules, "--tcp", `127.0.0.1:${port}`, "--pace", "20x", "--seed", String(t.seed)];
    shoes.push(spawn(cli, args, { stdio: "ignore" }));
  }
  writeFileSync(config, pitText(ports));
  // The pit's people: an administrator, and the supervisor who watches it.
  for (const [args, env] of [
    [["--role", "admin", "root"], { PITWATCH_PASSWORD: PASSWORD }],
    [["--admin", "root", "--role", "supervisor", "sue"], { PITWATCH_ADMIN_PASSWORD: PASSWORD, PITWATCH_PASSWORD: PASSWORD }],
  ]) {
    const added = await runWith(cli, ["user", "add", "--db", db, ...args], env);
    assert.equal(added.code, 0, `pitwatch user add: ${added.stderr}`);
  }
  harness = await startTauriDriver();
});

after(async () => {
  for (const shoe of shoes) shoe.kill("SIGTERM");
  await harness?.driver.quit();
  await harness?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

function runWith(command, args, env = {}) {
  return new Promise((resolvePromise) => {
    execFile(command, args, { maxBuffer: 16 << 20, env: { ...process.env, ...env } }, (error, stdout, stderr) =>
      resolvePromise({ code: error ? (error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** Every incident in the record, as the CLI lists them (one JSON object a line). */
async function incidents() {
  const listed = await runWith(cli, ["incidents", "--db", db, "--json"]);
  assert.equal(listed.code, 0, `pitwatch incidents: ${listed.stderr}`);
  return listed.stdout.split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l));
}

/** The desktop app's processes recording into this test's database (read from /proc). */
function appProcesses() {
  const found = [];
  for (const pid of readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    try {
      const comm = readFileSync(`/proc/${pid}/comm`, "utf8").trim();
      if (!comm.startsWith("pitwatch-deskto")) continue;
      const env = readFileSync(`/proc/${pid}/environ`, "utf8").split("\0");
      if (env.includes(`PITWATCH_DB=${db}`)) found.push(Number(pid));
    } catch {
      // Gone, or not ours to read.
    }
  }
  return found;
}

async function login(driver) {
  await driver.waitFor("the login form", () => driver.find('[data-testid="login-form"]'), 60000);
  await driver.type(await driver.find('[data-testid="login-user"]'), "sue");
  await driver.type(await driver.find('[data-testid="login-password"]'), PASSWORD);
  await driver.click(await driver.find('[data-testid="login-submit"]'));
  await driver.waitFor("the session", () => driver.find('[data-testid="session-user"]'));
}

/** Per table: the round on its tile, and whether a Blackjack/Pontoon round is being dealt into. */
function tiles(driver) {
  return driver.execute(`
    const out = {};
    for (const t of document.querySelectorAll('[data-testid="table-tile"]')) {
      const live = t.querySelector('[data-testid="live-round"]');
      const bj = t.querySelector('[data-testid="blackjack-round"]');
      out[t.dataset.table] = {
        round: Number(live?.dataset.round ?? 0),
        // Dealt into, with much of it still to come: the dealer's up card alone and the boxes'
        // first cards out (the boxes' decisions and the dealer's draws follow).
        dealing: bj
          ? bj.dataset.complete === "false" &&
            bj.querySelectorAll('[data-testid="dealer"] [data-testid="card"]').length === 1 &&
            bj.querySelectorAll('[data-testid="box"] [data-testid="card"]').length >= 2
          : null,
        status: t.querySelector('[data-testid="tile-status"]')?.dataset.status ?? null,
      };
    }
    return out;`);
}

test("a restart in the middle of a Blackjack round raises nothing, and every table deals on", async () => {
  const { driver } = harness;
  await driver.start(app, [config]);
  await login(driver);
  // Every table under way: a round on each tile.
  await driver.waitFor(
    "a round on every table",
    async () => {
      const t = await tiles(driver);
      return TABLES.every((name) => (t[name]?.round ?? 0) >= 2) && t;
    },
    120000,
  );
  // Killed while BJ-1 is dealing a round: the moment the tile shows a round dealt into.
  const cut = await driver.waitFor(
    "BJ-1 in the middle of a round",
    async () => {
      const t = await tiles(driver);
      return t["BJ-1"]?.dealing && t;
    },
    60000,
  );
  const pids = appProcesses();
  assert.ok(pids.length > 0, "the app's process is found by its database");
  for (const pid of pids) process.kill(pid, "SIGKILL");
  const cutRound = cut["BJ-1"].round;
  await driver.quit();
  for (let i = 0; i < 50 && appProcesses().length > 0; i++) await sleep(100);
  assert.deepEqual(appProcesses(), [], "the killed app is gone");
  assert.deepEqual(await incidents(), [], "nothing was raised before the restart");

  // Started again on the same record: the pit deals on, BJ-1 well past the round cut off.
  await driver.start(app, [config]);
  await login(driver);
  const later = await driver.waitFor(
    "every table dealing after the restart",
    async () => {
      const t = await tiles(driver);
      return TABLES.every((name) => t[name]?.status === "connected" && (t[name]?.round ?? 0) >= 1) &&
        (t["BJ-1"]?.round ?? 0) >= cutRound + 2 &&
        t;
    },
    120000,
  );
  await driver.settle();
  writeFileSync(join(shots, "restart-mid-round.png"), await driver.screenshot());
  const raised = await incidents();
  assert.deepEqual(
    raised.map((i) => `${i.table} ${i.code}: ${i.message ?? ""}`),
    [],
    `no incident after a restart in round ${cutRound} at BJ-1 (tiles after: ${JSON.stringify(later)})`,
  );
  // Replayed from the record, each table's first shoe (the one cut) says the same: intact, the round cut off by the
  // kill recorded as not complete, rounds after it, and not one irregularity.
  for (const name of TABLES) {
    const replayed = await runWith(cli, ["replay", "--db", db, "--table", name, "--shoe", "1", "--json"]);
    // Exit 1 with nothing on stderr is a record not intact or bytes that disagree: its first line says which.
    assert.equal(replayed.code, 0, `pitwatch replay ${name}: ${replayed.stderr}${replayed.stdout.split("\n")[0]}`);
    const rows = replayed.stdout.split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l));
    assert.equal(rows.find((r) => r.type === "record")?.intact, true, `${name}'s record is intact`);
    assert.deepEqual(rows.filter((r) => r.type === "irregularity"), [], `${name} replays with no irregularity`);
    if (name === "BJ-1") {
      const rounds = rows.filter((r) => r.type === "round");
      assert.equal(rounds.find((r) => r.round === cutRound)?.complete, false, `BJ-1's round ${cutRound}, cut off, is recorded as not complete`);
      assert.ok(rounds.some((r) => r.round > cutRound), "BJ-1 dealt on after the restart in the same shoe");
    }
  }
  // The window agrees: no tile counts an incident.
  const counted = await driver.execute(
    `return [...document.querySelectorAll('[data-testid="table-tile"]')]
       .filter((t) => t.querySelector('[data-testid="tile-unacknowledged"]')).map((t) => t.dataset.table);`,
  );
  assert.deepEqual(counted, []);
});
