// End-to-end: the desktop app as the surveillance view (PITWATCH_CENTRAL, issue 16) against a real
// PostgreSQL started here by scripts/pg-test-server.sh, into which two short records made by the
// CLI (`pitwatch import` of a shoe with two irregularities) are replicated with
// `pitwatch sync --once`. The window signs in with an account replicated from a workstation, shows
// both workstations, lists and opens their incidents read-only, and replays a shoe from the
// central copy. Screenshots go to artifacts/e2e/. Skipped, saying so, when PostgreSQL is not
// installed (scripts/install-system-deps.sh installs it).
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { spawn, spawnSync } from "node:child_process";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { startTauriDriver } from "./webdriver.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const app = process.env.PITWATCH_APP ?? join(root, "target/debug/pitwatch-desktop");
const cli = join(dirname(app), "pitwatch");
const shots = join(root, "artifacts/e2e");
const script = join(root, "scripts/pg-test-server.sh");
const dataDir = mkdtempSync(join(tmpdir(), "pitwatch-e2e-central-"));
const ADMIN_PW = "root keeps the pit keys 42";
const OFFICER_PW = "camera fourteen sees the shoe";

const available = spawnSync(script, ["available"], { encoding: "utf8" });
const skip = available.status === 0 ? false : `PostgreSQL is not installed (${available.stderr.trim()}); scripts/install-system-deps.sh installs it`;

/** A shoe whose burn count and result are both wrong: two incidents. */
const FAULTY_SHOE = `{"event":"shuffled","decks":8,"shuffler":"batch"}
{"event":"cut","position":180}
{"event":"cutting_card_placed","from_back":24}
{"event":"card_drawn","card":"3H","target":"first","face_up":true}
{"event":"card_drawn","card":"KD","target":"burn"}
{"event":"card_drawn","card":"7C","target":"burn"}
{"event":"burn_counted","count":2}
{"event":"card_drawn","card":"4S","target":"player","index":1}
{"event":"card_drawn","card":"KD","target":"banker","index":1}
{"event":"card_drawn","card":"2D","target":"player","index":2}
{"event":"card_drawn","card":"5C","target":"banker","index":2}
{"event":"card_drawn","card":"2H","target":"banker","index":3}
{"event":"result_declared","outcome":"player"}
`;

let pg = null;
let harness = null;

function run(command, args, env = {}) {
  return new Promise((done) => {
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...env } });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    child.on("close", (code) => done({ code, out }));
  });
}

async function ok(args, env = {}) {
  const { code, out } = await run(cli, args, { PITWATCH_KEY: join(dataDir, "signing.key"), ...env });
  assert.equal(code, 0, `pitwatch ${args.join(" ")}: ${out}`);
  return out;
}

/** A workstation's record: a table's faulty shoe, an administrator and a surveillance officer. */
async function workstation(name, table) {
  const db = join(dataDir, `${name}.db`);
  const shoe = join(dataDir, "shoe.jsonl");
  writeFileSync(shoe, FAULTY_SHOE);
  await ok(["import", "--db", db, "--table", table, "--format", "events", shoe]);
  await ok(["user", "add", "--db", db, "--role", "admin", "root"], { PITWATCH_PASSWORD: ADMIN_PW });
  await ok(["user", "add", "--db", db, "--admin", "root", "--role", "surveillance", "sam"], {
    PITWATCH_ADMIN_PASSWORD: ADMIN_PW,
    PITWATCH_PASSWORD: OFFICER_PW,
  });
  // A central administrator enrols the workstation with its key (as `pitwatch verify` prints it).
  const shown = await ok(["verify", "--db", db]);
  const key = /public key ([0-9a-f]{64})/.exec(shown)[1];
  await ok(["central", "enrol", "env:PITWATCH_E2E_CENTRAL_URL", "--workstation", `sky/${name}`, "--public-key", key]);
  await ok(["sync", "--db", db, "--central", "env:PITWATCH_E2E_CENTRAL_URL", "--workstation", `sky/${name}`, "--once"]);
}

async function shot(name) {
  writeFileSync(join(shots, name), await harness.driver.screenshot());
}

before(async () => {
  if (skip) return;
  mkdirSync(shots, { recursive: true });
  const started = spawnSync(script, ["start"], { encoding: "utf8" });
  assert.equal(started.status, 0, `pg-test-server.sh start: ${started.stderr}`);
  const [url, dir] = started.stdout.trim().split("\n");
  pg = { url, dir };
  // The URL (a throwaway cluster's, no password) reaches the CLI and the app by variable only.
  process.env.PITWATCH_E2E_CENTRAL_URL = url;
  await ok(["central", "init", "env:PITWATCH_E2E_CENTRAL_URL"]);
  await workstation("north", "BAC-1");
  await workstation("south", "MINI-1");
  // The app: the surveillance view of that database, its mirrors in a folder of this run.
  process.env.PITWATCH_CENTRAL = "env:PITWATCH_E2E_CENTRAL_URL";
  process.env.XDG_DATA_HOME = join(dataDir, "xdg");
  // The window's remembered size and place are this run's own too.
  process.env.XDG_CONFIG_HOME = join(dataDir, "xdg-config");
  harness = await startTauriDriver();
  await harness.driver.start(app);
});

after(async () => {
  await harness?.driver.quit();
  await harness?.stop();
  if (pg) spawnSync(script, ["stop", pg.dir]);
  rmSync(dataDir, { recursive: true, force: true });
});

test("the surveillance view shows both workstations, their incidents read-only, and replays from the central copy", { skip }, async () => {
  const { driver } = harness;
  const name = await driver.waitFor("the surveillance view", () => driver.find('[data-testid="central-name"]'));
  const shown = await driver.text(name);
  assert.match(shown, /read-only/);
  assert.ok(!shown.includes("password"), shown);

  // Signing in with an account replicated from a workstation; a wrong password is refused.
  await driver.type(await driver.find('[data-testid="central-workstation"]'), "sky/north");
  await driver.type(await driver.find('[data-testid="central-user"]'), "sam");
  await driver.type(await driver.find('[data-testid="central-password"]'), "not the password");
  await driver.click(await driver.find('[data-testid="central-sign-in-button"]'));
  const refused = await driver.waitFor("the refusal", () => driver.find('[data-testid="central-sign-in"] [role="alert"]'));
  assert.match(await driver.text(refused), /wrong name or password/);
  await driver.type(await driver.find('[data-testid="central-password"]'), OFFICER_PW);
  await driver.click(await driver.find('[data-testid="central-sign-in-button"]'));
  const session = await driver.waitFor("the session", () => driver.find('[data-testid="central-session"]'));
  assert.match(await driver.text(session), /sam \(surveillance\)/);

  // Both workstations, each with its table and its copy up to date.
  const pits = await driver.waitFor("both workstations", async () => {
    const cards = await driver.findAll('[data-testid="central-pit"]');
    if (cards.length < 2) return null;
    return Promise.all(cards.map((c) => driver.attribute(c, "data-workstation")));
  });
  assert.deepEqual(pits, ["sky/north", "sky/south"]);
  const states = await driver.execute("return [...document.querySelectorAll('[data-testid=central-copy-state]')].map(e => e.textContent)");
  assert.deepEqual(states, ["✔ up to date", "✔ up to date"]);
  const tables = await driver.execute("return [...document.querySelectorAll('[data-testid=central-table] b')].map(e => e.textContent)");
  assert.deepEqual(tables, ["BAC-1", "MINI-1"]);
  await shot("surveillance-pits.png");

  // Incidents of both workstations; one opened read-only, saying where to work it.
  await driver.click(await driver.find('[data-testid="nav-central-incidents"]'));
  const rows = await driver.waitFor("the incidents of both", async () => {
    const found = await driver.findAll('[data-testid="central-incident-row"]');
    return found.length >= 4 ? found : null;
  });
  const workstations = await driver.execute(
    "return [...document.querySelectorAll('[data-testid=central-incident-row] td:first-child')].map(e => e.textContent)",
  );
  assert.deepEqual([...new Set(workstations)].sort(), ["sky/north", "sky/south"]);
  await shot("surveillance-incidents.png");
  assert.ok(rows.length >= 4);
  await driver.click(await driver.find('[data-testid="central-incident-row"] td'));
  const workAt = await driver.waitFor("the incident's detail", () => driver.find('[data-testid="central-work-it-at"]'));
  assert.match(await driver.text(workAt), /at workstation (north|south) of site sky/);
  const workflow = await driver.execute(
    "return [...document.querySelectorAll('button')].filter(b => /acknowledge|resolve|add note/i.test(b.textContent)).length",
  );
  assert.equal(workflow, 0, "no workflow in the surveillance view");
  await shot("surveillance-incident.png");

  // Replay of the incident's shoe from the central copy, verified as far as its checkpoint.
  await driver.click(await driver.find('[data-testid="central-replay-incident"]'));
  const badge = await driver.waitFor("the replay", () => driver.find('[data-testid="verify-badge"]'));
  assert.match(await driver.text(badge), /verified intact/);
  const detail = await driver.text(await driver.find('[data-testid="verify-detail"]'));
  assert.match(detail, /the central copy of sky\/(north|south)/);
  const position = await driver.text(await driver.find('[data-testid="replay-position"]'));
  assert.match(position, /step \d+ of 13/);
  await shot("surveillance-replay.png");
});
