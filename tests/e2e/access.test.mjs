// End-to-end (issue 32): the access controls an IT audit checks, in the real desktop app on a
// real pit of its own whose users are made with the CLI (an administrator, surveillance, an
// inspector). Checked: the administrator's Access screen lists every user with their role and
// status and exports it as CSV; the overdue access review is a banner until the administrator
// signs it; a login as the same user from the CLI ends the window's session, which locks saying
// where that login came from; the inspector sees the Access screen but not Users, signs the audit
// log's review (which no administrator may), and the CLI then shows it. Run by `make e2e`
// (it needs the desktop build); screenshots go to artifacts/e2e/.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
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
const dataDir = mkdtempSync(join(tmpdir(), "pitwatch-e2e-access-"));
const savedDir = join(dataDir, "saved");
const ROOT_PASSWORD = "root keeps the pit keys 42";
const SAM_PASSWORD = "sam watches every camera twice";
const IVY_PASSWORD = "ivy inspects the ledgers at dawn";

Object.assign(process.env, {
  PITWATCH_DB: join(dataDir, "pit.db"),
  PITWATCH_KEY: join(dataDir, "signing.key"),
  PITWATCH_SAVE_DIR: savedDir,
  XDG_CONFIG_HOME: join(dataDir, "config"),
  XDG_DATA_HOME: join(dataDir, "data"),
});

let harness;
let device;

before(async () => {
  mkdirSync(shots, { recursive: true });
  mkdirSync(savedDir, { recursive: true });
  const db = process.env.PITWATCH_DB;
  const admin = await run(cli, ["user", "add", "--db", db, "--role", "admin", "root"], { PITWATCH_PASSWORD: ROOT_PASSWORD });
  assert.equal(admin.code, 0, admin.out);
  for (const [name, role, password] of [
    ["sam", "surveillance", SAM_PASSWORD],
    ["ivy", "inspector", IVY_PASSWORD],
  ]) {
    const added = await run(cli, ["user", "add", "--db", db, "--admin", "root", "--role", role, name], {
      PITWATCH_ADMIN_PASSWORD: ROOT_PASSWORD,
      PITWATCH_PASSWORD: password,
    });
    assert.equal(added.code, 0, added.out);
  }
  device = await tcpDevice();
  writeFileSync(
    join(dataDir, "pit.toml"),
    `[site]\nname = "Access Pit"\n\n[[table]]\nname = "BAC-1"\ngame = "baccarat"\nrules = "nz-baccarat"\n` +
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

/** Logs `user` in from the header's login form. */
async function headerLogin(driver, user, password) {
  await driver.waitFor("the login form", () => driver.find('[data-testid="login-user"]'));
  await driver.type(await driver.find('[data-testid="login-user"]'), user);
  await driver.type(await driver.find('[data-testid="login-password"]'), password);
  await driver.click(await driver.find('[data-testid="login-submit"]'));
  await driver.waitFor(`${user}'s session`, async () => {
    const e = await driver.find('[data-testid="session-user"]');
    return e && (await driver.text(e)).includes(user);
  });
}

/** Each row of the access listing on screen: name, role and status. */
function listed(driver) {
  return driver.execute(
    `return [...document.querySelectorAll('[data-testid="access-row"]')].map((r) => [r.dataset.name, r.dataset.role, r.dataset.status]);`,
  );
}

test("the administrator reads the access listing, exports it, and signs the overdue access review", async () => {
  const { driver } = harness;
  await headerLogin(driver, "root", ROOT_PASSWORD);
  await driver.waitFor("the overdue access review's banner", () => driver.find('[data-testid="review-alert"]'));
  // The banner's words by their text (the driver's visible text leaves out a flexible span).
  const banner = await driver.execute(`return document.querySelector('[data-testid="review-alert"]').textContent;`);
  assert.match(banner, /access review/);
  await driver.clickCss('[data-testid="nav-access"]');
  await driver.waitFor("the listing", () => driver.find('[data-testid="access-list"]'));
  assert.deepEqual(await listed(driver), [
    ["ivy", "inspector", "active"],
    ["root", "admin", "active"],
    ["sam", "surveillance", "active"],
  ]);
  assert.equal(await driver.find('[data-testid="log-review-form"]'), null, "an administrator is offered no log review");
  writeFileSync(join(shots, "access-listing.png"), await driver.screenshot());

  await driver.clickCss('[data-testid="access-export"]');
  await driver.waitFor("the export", () => driver.find('[data-testid="access-done"]'));
  const saved = readdirSync(savedDir).filter((f) => f.endsWith(".csv"));
  assert.deepEqual(saved, ["access-listing.csv"]);
  const csv = readFileSync(join(savedDir, saved[0]), "utf8");
  const digest = await driver.text(await driver.find('[data-testid="access-digest"]'));
  assert.ok(csv.includes(digest), "the CSV carries the digest shown");
  assert.match(csv, /"ivy"/);

  await driver.type(await driver.find('[data-testid="access-review-comment"]'), "three accounts, each as expected");
  await driver.clickCss('[data-testid="access-review-sign"]');
  await driver.waitFor("the review signed", async () => {
    const e = await driver.find('[data-testid="access-done"]');
    return e && (await driver.text(e)).includes("Access review signed by root");
  });
  await driver.waitFor("the banner gone", async () => (await driver.find('[data-testid="review-alert"]')) === null);
});

test("a login as the same user from the CLI ends the window's session, which says where it came from", async () => {
  const { driver } = harness;
  const listing = await run(cli, ["user", "access", "--db", process.env.PITWATCH_DB, "--as", "root"], {
    PITWATCH_PASSWORD: ROOT_PASSWORD,
    PITWATCH_WORKSTATION: "cli-ws-9",
  });
  assert.equal(listing.code, 0, listing.out);
  assert.match(listing.out, /root\s+admin\s+active/);
  // The window's next command is refused, and the window locks saying where the other login was.
  await driver.clickCss('[data-testid="nav-users"]');
  await driver.waitFor("the lock screen", async () => {
    const e = await driver.find('[data-testid="lock-screen"]');
    return e && (await driver.text(e)).includes("cli-ws-9");
  });
  assert.match(await driver.text(await driver.find('[data-testid="lock-screen"]')), /ended by a login/);
  writeFileSync(join(shots, "access-session-ended.png"), await driver.screenshot());
});

test("the inspector sees Access but not Users and signs the audit log's review", async () => {
  const { driver } = harness;
  await driver.execute("location.reload(); return true;");
  await headerLogin(driver, "ivy", IVY_PASSWORD);
  assert.equal(await driver.find('[data-testid="nav-users"]'), null, "no user management for an inspector");
  await driver.clickCss('[data-testid="nav-access"]');
  await driver.waitFor("the listing", () => driver.find('[data-testid="access-list"]'));
  await driver.waitFor("the log review form", () => driver.find('[data-testid="log-review-form"]'));
  await driver.type(await driver.find('[data-testid="log-review-comment"]'), "failed logins and refusals looked at");
  await driver.clickCss('[data-testid="log-review-sign"]');
  await driver.waitFor("the log review signed", async () => {
    const e = await driver.find('[data-testid="access-done"]');
    return e && (await driver.text(e)).includes("Audit log review signed by ivy");
  });
  writeFileSync(join(shots, "access-inspector.png"), await driver.screenshot());
  const reviews = await run(cli, ["user", "reviews", "--db", process.env.PITWATCH_DB, "--as", "sam"], {
    PITWATCH_PASSWORD: SAM_PASSWORD,
  });
  assert.equal(reviews.code, 0, reviews.out);
  assert.match(reviews.out, /audit log review: last .* by ivy \(inspector\)/);
  assert.match(reviews.out, /access review: last .* by root \(admin\)/);
});
