// A minimal W3C WebDriver client over fetch, and a harness that starts tauri-driver (which starts
// WebKitWebDriver) for the real desktop app. No npm dependency: Node 20's fetch is enough.
import { spawn } from "node:child_process";
import { closeSync, existsSync, mkdirSync, openSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { setTimeout as sleep } from "node:timers/promises";

const ELEMENT = "element-6066-11e4-a52e-4f735466cecc";

function tauriDriverPath() {
  const candidates = [process.env.TAURI_DRIVER, join(homedir(), ".cargo/bin/tauri-driver"), "/usr/local/bin/tauri-driver"];
  for (const c of candidates) if (c && existsSync(c)) return c;
  return "tauri-driver";
}

export class Driver {
  constructor(port) {
    this.base = `http://127.0.0.1:${port}`;
    this.session = null;
  }

  async request(method, path, body) {
    // A stuck driver or app fails the test within a minute instead of hanging the suite, and
    // says which command it was stuck on.
    let response;
    try {
      response = await fetch(this.base + path, {
        method,
        headers: { "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(60000),
      });
    } catch (error) {
      throw new Error(`WebDriver ${method} ${path} ${body === undefined ? "" : JSON.stringify(body).slice(0, 200)}: ${error.message}`);
    }
    const json = await response.json().catch(() => ({}));
    if (!response.ok) {
      const v = json.value ?? {};
      throw new Error(`WebDriver ${method} ${path}: ${response.status} ${v.error ?? ""} ${v.message ?? ""}`);
    }
    return json.value;
  }

  s(path) {
    return `/session/${this.session}${path}`;
  }

  /** Launches `application` with command-line `args` in a new session. */
  async start(application, args = []) {
    const value = await this.request("POST", "/session", {
      capabilities: { alwaysMatch: { "tauri:options": { application, args } } },
    });
    this.session = value.sessionId;
  }

  async findAll(css) {
    const found = await this.request("POST", this.s("/elements"), { using: "css selector", value: css });
    return found.map((e) => e[ELEMENT] ?? e.ELEMENT ?? Object.values(e)[0]);
  }

  async find(css) {
    const [first] = await this.findAll(css);
    return first ?? null;
  }

  async click(element) {
    await this.request("POST", this.s(`/element/${element}/click`), {});
  }

  /** Scrolls the first element matching `css` into view and clicks it, like a person would. */
  async clickCss(css) {
    await this.execute("document.querySelector(arguments[0])?.scrollIntoView({ block: 'center' })", [css]);
    const element = await this.find(css);
    if (!element) throw new Error(`nothing matches ${css}`);
    await this.click(element);
  }

  /** Types `text` into an input (after clearing it). */
  async type(element, text) {
    await this.request("POST", this.s(`/element/${element}/clear`), {});
    await this.request("POST", this.s(`/element/${element}/value`), { text });
  }

  /** Presses and releases `key` on the focused page, as a keyboard would. */
  async press(key) {
    await this.request("POST", this.s("/actions"), {
      actions: [{ type: "key", id: "keyboard", actions: [{ type: "keyDown", value: key }, { type: "keyUp", value: key }] }],
    });
  }

  async attribute(element, name) {
    return this.request("GET", this.s(`/element/${element}/attribute/${name}`));
  }

  /** Runs `script` in the page and returns its value. */
  async execute(script, args = []) {
    return this.request("POST", this.s("/execute/sync"), { script, args });
  }

  /** Runs `script` in the page until it calls its last argument, and returns what it passed. */
  async executeAsync(script, args = []) {
    return this.request("POST", this.s("/execute/async"), { script, args });
  }

  async text(element) {
    return this.request("GET", this.s(`/element/${element}/text`));
  }

  /** Polls until `probe` returns a truthy value, or fails after `ms` with `what`. */
  async waitFor(what, probe, ms = 20000) {
    const deadline = Date.now() + ms;
    let last;
    while (Date.now() < deadline) {
      try {
        last = await probe();
        if (last) return last;
      } catch (error) {
        last = error;
      }
      await sleep(200);
    }
    // What the window said at the time: a failure on a slow machine must be readable from CI's log.
    let screen = "";
    try {
      const alerts = await this.execute(
        `return [...document.querySelectorAll('[role="alert"]')].map((e) => e.innerText.trim()).filter(Boolean).join(" | ");`,
      );
      const body = await this.execute("return document.body ? document.body.innerText : '';");
      screen = `; alerts: ${alerts || "none"}; the window read: ${String(body).replace(/\s+/g, " ").slice(0, 1200)}`;
    } catch (error) {
      screen = `; the window could not be read (${error.message})`;
    }
    throw new Error(`timed out waiting for ${what} (last: ${last})${screen}`);
  }

  /** Waits until the webview has painted what the DOM holds (two animation frames, then a beat). */
  async settle() {
    await this.request("POST", this.s("/execute/async"), {
      script: "const done = arguments[arguments.length - 1]; requestAnimationFrame(() => requestAnimationFrame(() => done(true)));",
      args: [],
    });
    await sleep(500);
  }

  async screenshot() {
    await this.settle();
    // WebKitGTK answers a snapshot after its next drawing update; when the page composites on
    // the CPU (the app's default) and nothing on it changes, that update never comes and the
    // snapshot waits for ever. A pixel that changes a few times in the next second (invisible
    // at the corner of the page, removed after) gives it the update it waits for.
    await this.execute(`
      const dot = document.createElement("div");
      dot.style.cssText = "position:fixed;right:0;bottom:0;width:1px;height:1px;pointer-events:none;z-index:2147483647;opacity:0.01;background:#000";
      document.body.appendChild(dot);
      let n = 0;
      const tick = setInterval(() => {
        dot.style.background = n % 2 ? "#000" : "#010101";
        if (++n > 20) { clearInterval(tick); dot.remove(); }
      }, 50);
      return true;`);
    return Buffer.from(await this.request("GET", this.s("/screenshot")), "base64");
  }

  async quit() {
    if (this.session) await this.request("DELETE", this.s("")).catch(() => {});
    this.session = null;
  }
}

/**
 * Starts tauri-driver on `port` (its WebKitWebDriver on the next port) and resolves once it
 * answers /status. Without a port, a random one in 20000–39998, so that runs in parallel on one
 * machine do not talk to each other's driver.
 */
export async function startTauriDriver(port = 20000 + 2 * Math.floor(Math.random() * 10000)) {
  // The driver runs in a process group of its own, so stopping it also stops WebKitWebDriver and
  // any app it launched, even one whose session was never closed; and its output goes to a log
  // file, never to this process's streams: an app left running with our stderr would keep the
  // test runner waiting for end-of-file forever.
  const logDir = join(dirname(fileURLToPath(import.meta.url)), "../../artifacts/e2e");
  mkdirSync(logDir, { recursive: true });
  const log = openSync(join(logDir, "tauri-driver.log"), "a");
  const child = spawn(tauriDriverPath(), ["--port", String(port), "--native-port", String(port + 1)], {
    stdio: ["ignore", log, log],
    detached: true,
  });
  closeSync(log);
  const killGroup = (signal) => {
    try {
      process.kill(-child.pid, signal);
    } catch {
      // The group is already gone.
    }
  };
  process.once("exit", () => killGroup("SIGKILL"));
  const driver = new Driver(port);
  await driver.waitFor("tauri-driver to listen", async () => {
    const response = await fetch(`${driver.base}/status`);
    return response.ok;
  });
  const stop = async () => {
    killGroup("SIGTERM");
    for (let i = 0; i < 30 && child.exitCode === null && child.signalCode === null; i++) await sleep(100);
    killGroup("SIGKILL");
  };
  return { driver, stop };
}
