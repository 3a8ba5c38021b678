import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ExposureAlert, PaceAlertView, IncidentPage, IncidentQuery, IncidentRow, PitOverview, RecordStatus, Session, TableTile } from "./bindings";

// The window's globals, as far as the app's state uses them: events on `window`, the root
// element's class for the flash.
const win = Object.assign(new EventTarget(), {} as Record<string, unknown>);
const classes = new Set<string>();
vi.stubGlobal("window", win);
vi.stubGlobal("document", { documentElement: { classList: { toggle: (c: string, on: boolean) => (on ? classes.add(c) : classes.delete(c)), remove: (c: string) => classes.delete(c) } } });

// The desk behind ipc.ts: an in-memory pit whose answers the tests set.
const desk = {
  session: null as Session | null,
  rows: [] as IncidentRow[],
  acknowledged: [] as number[],
  logouts: 0,
  muted: false,
  /** What the window asked the desk to mute (true) or unmute (false), in order. */
  mutes: [] as boolean[],
  handler: null as ((u: unknown) => void) | null,
  /** The exposure alerts the desk holds, and how often the window asked for them. */
  exposure: [] as ExposureAlert[],
  exposureAsked: 0,
  /** The pace alerts the desk holds, and how often the window asked for them. */
  pace: [] as PaceAlertView[],
  paceAsked: 0,
};
function row(id: number, extra: Partial<IncidentRow> = {}): IncidentRow {
  return { id, table: "BAC-1", code: "NOT_SHUFFLED", severity: "high", rule: "3.1", shoe: 1, round: 2, seq: id * 10, message: "m", openedAt: "2026-11-30T09:00:00Z", status: "open", ...extra };
}
function tile(name: string, cardsDealt = 0): TableTile {
  return {
    name, game: "baccarat", ruleBook: "nz-baccarat", protocol: "angel-eye", link: "simulated", status: "connected", statusDetail: "", devices: [], lastFrameMs: null,
    framesAccepted: 0, framesRejected: 0, lastEventAtMs: null, oldestUnsentAtMs: null, shoe: 1, cardsDealt, cardsLeft: 416, cuttingCardOut: false,
    play: { game: "baccarat", burnDue: false, burnDone: false, current: { round: 0, player: [], banker: [], result: null }, rounds: [] },
    incidents: { critical: 0, high: 0, medium: 0, low: 0 }, lastShuffle: null, shuffleSteps: [], alarm: null, disabled: null,
  };
}
const record: RecordStatus = { path: "/x/pit.db", recordId: null, keyFingerprint: null, latestCheckpoint: null, journals: [], alerts: [], replication: null };
vi.mock("./ipc", async (actual) => ({
  ...(await actual<typeof import("./ipc")>()),
  startupError: async () => null,
  centralView: async () => null,
  onPitUpdate: async (h: (u: unknown) => void) => {
    desk.handler = h;
    return () => (desk.handler = null);
  },
  pitOverview: async (): Promise<PitOverview> => ({ site: "Sky", timeZone: null, demo: true, demoLogin: null, session: desk.session, tables: [tile("BAC-1"), tile("BAC-2")], record, idleLockSeconds: 600, alarmMuted: desk.muted, pitFile: null, build: { version: "0.1.0", commit: "6929b7d1c2e3", label: "Pitwatch 0.1.0 (build 6929b7d1c2e3)" } }),
  needsFirstAdmin: async () => false,
  incidents: async (q: IncidentQuery): Promise<IncidentPage> => {
    const rows = desk.rows.filter((r) => q.status === null || r.status === q.status).filter((r) => q.table === null || r.table === q.table);
    return { incidents: rows, next: null, total: rows.length };
  },
  acknowledge: async (id: number) => {
    desk.acknowledged.push(id);
    return row(id, { status: "acknowledged" });
  },
  logout: async () => {
    desk.logouts += 1;
    desk.muted = false;
  },
  setAlarmMuted: async (muted: boolean) => {
    if (desk.session === null) throw { code: "unauthorised", message: "log in first" };
    desk.mutes.push(muted);
    desk.muted = muted;
    return muted;
  },
  recordStatus: async () => record,
  exposureAlerts: async () => {
    desk.exposureAsked += 1;
    if (desk.session === null || desk.session.role === "supervisor") throw { code: "forbidden", message: "may not" };
    return desk.exposure;
  },
  paceAlerts: async () => {
    desk.paceAsked += 1;
    if (desk.session === null || desk.session.role === "surveillance") throw { code: "forbidden", message: "may not" };
    return desk.pace;
  },
}));
const { AppState } = await import("./app.svelte");

const press = (key: string) => win.dispatchEvent(Object.assign(new Event("keydown"), { key }));
const settle = () => new Promise((done) => setTimeout(done, 0));

describe("the window's state", () => {
  let app: InstanceType<typeof AppState>;
  beforeEach(() => {
    Object.assign(desk, { session: null, rows: [], acknowledged: [], logouts: 0, muted: false, mutes: [], exposure: [], exposureAsked: 0, pace: [], paceAsked: 0 });
  });
  afterEach(() => app.stop());

  it("reads the pit, its alerts and the record at start", async () => {
    desk.rows = [row(1), row(2, { table: "BAC-2", severity: "critical" }), row(3, { status: "resolved" })];
    app = new AppState();
    await app.start();
    expect(app.overview?.site).toBe("Sky");
    expect(app.tableNames).toEqual(["BAC-1", "BAC-2"]);
    expect(app.alerts.map((a) => a.id)).toEqual([2, 1]);
    expect(app.alert?.id).toBe(2);
    expect([...app.flashing].sort()).toEqual(["BAC-1", "BAC-2"]);
    expect(app.incidents.list.total).toBe(3);
    expect(window.__pitwatchLatency).toBeDefined();
  });

  it("applies live changes: a tile, a new incident, the recording status", async () => {
    app = new AppState();
    await app.start();
    desk.handler?.({ type: "table", table: tile("BAC-2", 40) });
    expect(app.tables.map((t) => t.cardsDealt)).toEqual([0, 40]);
    desk.handler?.({ type: "incident_raised", incident: row(9, { table: "BAC-2" }) });
    expect(app.alert?.id).toBe(9);
    expect(app.incidents.open.total).toBe(1);
    desk.handler?.({ type: "recording", status: { degraded: true, reason: "disk full", sinceMs: null, backlogBytes: 0, backlogInputs: 0, droppedBytes: 0 } });
    expect(app.recordingAlert?.tone).toBe("degraded");
  });

  it("takes the new tile list of a reloaded pit, and the tile changes after it", async () => {
    app = new AppState();
    await app.start();
    desk.handler?.({ type: "tables", tables: [tile("NEW-1"), tile("BAC-2", 12)] });
    expect(app.tableNames).toEqual(["NEW-1", "BAC-2"]);
    desk.handler?.({ type: "table", table: tile("NEW-1", 3) });
    expect(app.tables.map((t) => t.cardsDealt)).toEqual([3, 12]);
    desk.handler?.({ type: "table", table: tile("BAC-1", 5) });
    expect(app.tableNames).toEqual(["NEW-1", "BAC-2"]);
  });

  it("asks for exposure alerts only for surveillance and admins; a seen alert leaves the banner, not the count", async () => {
    const dragon: ExposureAlert = { table: "BAC-1", shoe: 3, round: 12, wager: "Dragon 7 (40 to 1)", roundsBehind: 3, houseEdge: -2.5, atMs: 1 };
    const panda: ExposureAlert = { ...dragon, table: "BAC-2", wager: "Panda 8 (25 to 1)" };
    desk.exposure = [dragon, panda];
    app = new AppState();
    await app.start();
    // Nobody, then a supervisor: the desk is never asked, nothing is shown.
    await app.refreshExposureAlerts();
    desk.session = app.user.session = { user: "ana", role: "supervisor" };
    await app.refreshExposureAlerts();
    expect(desk.exposureAsked).toBe(0);
    expect(app.exposureAlerts).toEqual([]);
    // Surveillance: both, the newest first as the desk gives them.
    desk.session = app.user.session = { user: "sam", role: "surveillance" };
    await app.refreshExposureAlerts();
    expect(desk.exposureAsked).toBe(1);
    expect(app.unseenExposureAlerts).toEqual([dragon, panda]);
    app.exposureAlertSeen(dragon);
    expect(app.unseenExposureAlerts).toEqual([panda]);
    expect(app.exposureAlerts).toHaveLength(2);
    // Logged out: forgotten, seen ones too.
    app.user.session = null;
    await app.refreshExposureAlerts();
    expect(app.exposureAlerts).toEqual([]);
    expect(app.seenExposureAlerts.size).toBe(0);
  });

  it("asks for pace alerts only for supervisors and admins; a seen alert leaves the banner, not the count", async () => {
    const slow: PaceAlertView = { table: "BAC-1", code: "PACE_BELOW_TARGET", words: "Pace below target", shoe: 2, round: 31, dealer: "Mere", measured: 41, threshold: 56, message: "slow", atMs: 2 };
    const burst: PaceAlertView = { ...slow, code: "ERROR_BURST", words: "Error burst", atMs: 1 };
    desk.pace = [slow, burst];
    app = new AppState();
    await app.start();
    // Nobody, then surveillance: the desk is never asked, nothing is shown.
    await app.refreshPaceAlerts();
    desk.session = app.user.session = { user: "sam", role: "surveillance" };
    await app.refreshPaceAlerts();
    expect(desk.paceAsked).toBe(0);
    expect(app.paceAlerts).toEqual([]);
    // A supervisor: both, in the desk's order.
    desk.session = app.user.session = { user: "ana", role: "supervisor" };
    await app.refreshPaceAlerts();
    expect(desk.paceAsked).toBe(1);
    expect(app.unseenPaceAlerts).toEqual([slow, burst]);
    app.paceAlertSeen(slow);
    expect(app.unseenPaceAlerts).toEqual([burst]);
    expect(app.paceAlerts).toHaveLength(2);
    // Logged out: forgotten, seen ones too.
    app.user.session = null;
    await app.refreshPaceAlerts();
    expect(app.paceAlerts).toEqual([]);
    expect(app.seenPaceAlerts.size).toBe(0);
  });

  it("acknowledges the banner's alert only for someone logged in", async () => {
    desk.rows = [row(1)];
    app = new AppState();
    await app.start();
    await app.acknowledgeAlert();
    expect(app.user.loginError?.message).toBe("Log in to acknowledge.");
    expect(desk.acknowledged).toEqual([]);
    app.user.session = { user: "ana", role: "supervisor" };
    await app.acknowledgeAlert();
    expect(desk.acknowledged).toEqual([1]);
    expect(app.alert).toBeNull();
  });

  it("answers the keys: next alert, open, replay, mute, back to the pit", async () => {
    desk.session = { user: "ana", role: "supervisor" };
    desk.rows = [row(1), row(2, { table: "BAC-2", severity: "critical", shoe: 4, seq: 77 })];
    app = new AppState();
    await app.start();
    press("n");
    expect(app.alert?.id).toBe(1);
    press("O");
    expect(app.view).toEqual({ name: "incidents" });
    expect(app.selectedIncident).toBe(1);
    press("n");
    press("r");
    expect(app.view).toEqual({ name: "replay", table: "BAC-2", shoe: 4, seq: 77 });
    press("m");
    await settle();
    expect(app.muted).toBe(true);
    expect(desk.mutes).toEqual([true]);
    press("Escape");
    expect(app.view).toEqual({ name: "pit" });
    app.openTable("BAC-1");
    expect(app.currentTable?.name).toBe("BAC-1");
  });

  it("a key the role may not use does nothing: a surveillance officer's A sends nothing to the desk", async () => {
    desk.session = { user: "sam", role: "surveillance" };
    desk.rows = [row(1)];
    app = new AppState();
    await app.start();
    press("a");
    await settle();
    expect(desk.acknowledged).toEqual([]);
    expect(app.user.loginError).toBeNull();
    expect(app.alert?.id).toBe(1);
    // Muting is every logged-in role's, on record.
    press("M");
    await settle();
    expect(desk.mutes).toEqual([true]);
  });

  it("mutes only for someone logged in, through the desk; a session's end ends its mute", async () => {
    desk.rows = [row(1)];
    app = new AppState();
    await app.start();
    press("m");
    await app.toggleMute();
    await settle();
    expect(desk.mutes).toEqual([]);
    expect(app.muted).toBe(false);
    desk.session = app.user.session = { user: "ana", role: "supervisor" };
    await app.toggleMute();
    expect(app.muted).toBe(true);
    await app.toggleMute();
    await app.toggleMute();
    expect(desk.mutes).toEqual([true, false, true]);
    await app.user.logout();
    expect(app.muted).toBe(false);
    expect(desk.muted).toBe(false);
  });

  it("starts muted when the desk says its user muted", async () => {
    desk.session = { user: "ana", role: "supervisor" };
    desk.muted = true;
    app = new AppState();
    await app.start();
    expect(app.muted).toBe(true);
  });

  it("locks on a supervisor switch: the alerts stay and sound, only moving on answers", async () => {
    desk.session = { user: "ana", role: "supervisor" };
    desk.rows = [row(1), row(2)];
    app = new AppState();
    await app.start();
    await app.toggleMute();
    expect(app.muted).toBe(true);
    app.switchSupervisor();
    await settle();
    expect(app.user.locked).toBe(true);
    expect(app.user.session).toBeNull();
    expect(desk.logouts).toBe(1);
    expect(app.muted).toBe(false);
    press("m");
    await settle();
    expect(desk.mutes).toEqual([true]);
    expect(app.muted).toBe(false);
    press("o");
    expect(app.view).toEqual({ name: "pit" });
    press("n");
    expect(app.alert?.id).toBe(1);
    expect(app.alerts).toHaveLength(2);
  });
});
