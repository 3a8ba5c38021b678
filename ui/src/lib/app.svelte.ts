// The window's state and what it does, for App.svelte to compose: the pit and its live updates,
// the record and recording status, the screen shown, the incident lists, who is logged in, the
// alerts (banner, flashing, sound) and the keys. Components render it and call its methods.
import { setSiteZone } from "./time";
import { tick } from "svelte";
import type { ApiError, ExposureAlert, PaceAlertView, PitOverview, PitUpdate, RecordingStatus, RecordStatus, ReviewStatus, Session, TableTile } from "./bindings";
import { may } from "./access";
import { ALERT_POLL_SECONDS, alertKey, unseenAlerts } from "./exposure";
import { PACE_POLL_SECONDS, paceAlertKey, unseenPaceAlerts } from "./pace";
import { reviewAlertsFor } from "./reviews";
import { startBlinking } from "./blink";
import { Chime } from "./chime";
import { IncidentLists } from "./incident-lists.svelte";
import { alerts as alertList, nextAlert } from "./incidents";
import * as ipc from "./ipc";
import { LatencyProbe } from "./latency";
import { keyCommand, type View } from "./navigation";
import { unacknowledgedByTable, type AttentionSource } from "./pit-view";
import { replaceTable } from "./pit";
import { recordAlerts } from "./record";
import { withoutClearedLiveness } from "./devices";
import { recordingBanner } from "./recording";
import { SessionState, SWITCH_REASON } from "./session.svelte";

/** Events that count as someone using the window (for the idle lock). */
const INPUT_EVENTS = ["keydown", "pointerdown", "pointermove", "wheel"] as const;

export class AppState {
  overview: PitOverview | null = $state(null);
  /** The central database when this window is the surveillance view (PITWATCH_CENTRAL), not a pit. */
  central: string | null = $state(null);
  tables: TableTile[] = $state([]);
  /**
   * The record: who signs it and what is wrong with it (a failed verification, a witness that
   * cannot be written), shown on every screen until its cause is dealt with.
   */
  record: RecordStatus | null = $state(null);
  /** Whether everything received is on record (the monitor says so when it is not). */
  recording: { status: RecordingStatus; receivedMs: number } | null = $state(null);
  failure: ApiError | null = $state(null);
  startupFailure: ApiError | null = $state(null);
  view: View = $state({ name: "pit" });
  selectedIncident: number | null = $state(null);
  now = $state(Date.now());
  focusedAlert: number | null = $state(null);

  /**
   * The exposure alerts of the shoes being dealt, for surveillance and administrators only: asked
   * for every few seconds while one of them is logged in (the desk refuses anyone else), empty
   * otherwise. Never shown to the pit: the banner and the count are theirs alone.
   */
  exposureAlerts: ExposureAlert[] = $state([]);
  /** Alerts whoever is logged in said they have seen (this window, this session). */
  seenExposureAlerts: Set<string> = $state(new Set());
  readonly unseenExposureAlerts = $derived(unseenAlerts(this.exposureAlerts, this.seenExposureAlerts));

  /**
   * The pace alerts that hold now at the tables running ("pace below target", "error burst"), for
   * supervisors and administrators only: asked for every few seconds while one of them is logged
   * in (the desk refuses anyone else), empty otherwise.
   */
  paceAlerts: PaceAlertView[] = $state([]);
  /** Pace alerts whoever is logged in said they have seen (this window, this session). */
  seenPaceAlerts: Set<string> = $state(new Set());
  readonly unseenPaceAlerts = $derived(unseenPaceAlerts(this.paceAlerts, this.seenPaceAlerts));

  readonly incidents = new IncidentLists(ipc.incidents);
  readonly user = new SessionState({ login: ipc.login, logout: ipc.logout, setAlarmMuted: ipc.setAlarmMuted });

  /** Whether the alarm's sound is muted (by whoever is logged in; never on the lock screen). */
  get muted(): boolean {
    return this.user.muted && this.user.session !== null;
  }

  readonly recordProblems = $derived(recordAlerts(this.record));
  /** Where the periodic access reviews stand (crates/pitwatch-app/src/reviews.rs). */
  reviews: ReviewStatus | null = $state(null);
  /** The overdue reviews the logged-in user's role signs, shown on every screen. */
  readonly reviewAlerts = $derived(reviewAlertsFor(this.user.session?.role, this.reviews));
  /** Whose session the reviews were last read for. */
  private reviewsFor: string | null = null;
  readonly recordingAlert = $derived(recordingBanner(this.recording?.status ?? null, this.recording?.receivedMs ?? 0, this.now));
  /** Open incidents, most severe first: the banner shows the focused one (else the first). */
  readonly alerts = $derived(alertList(withoutClearedLiveness(this.incidents.open.rows, this.tables)));
  readonly alert = $derived(this.alerts.find((a) => a.id === this.focusedAlert) ?? this.alerts[0] ?? null);
  /** Tables with an alert: their tiles and screens flash. */
  readonly flashing = $derived(new Set(this.alerts.map((a) => a.table)));
  /** What nobody has acknowledged, by table, for the pit's attention (complete unless more are open than loaded). */
  readonly attention: AttentionSource = $derived({
    unacknowledged: unacknowledgedByTable(this.incidents.open.rows),
    complete: this.incidents.open.rows.length >= this.incidents.open.total,
  });
  readonly tableNames = $derived(this.tables.map((t) => t.name));
  /** The table whose screen is shown, if one is. */
  readonly currentTable = $derived.by(() => {
    const v = this.view;
    return v.name === "table" ? (this.tables.find((t) => t.name === v.table) ?? null) : null;
  });

  /** How long live events take to reach the screen (read by scripts/measure-desktop-latency.mjs). */
  private readonly latency = new LatencyProbe();
  private readonly chime = new Chime();
  private unlisten: (() => void) | null = null;
  private stopBlinking: (() => void) | null = null;
  private ticker: ReturnType<typeof setInterval> | undefined;
  private stopEnded: (() => void) | undefined;

  constructor() {
    window.__pitwatchLatency = this.latency;
  }

  /** Reads the pit (or learns that it could not start), subscribes to its changes, starts the clock. */
  async start(): Promise<void> {
    try {
      this.startupFailure = await ipc.startupError();
    } catch (error) {
      this.failure = ipc.toApiError(error);
    }
    if (this.startupFailure || this.failure) return;
    try {
      this.central = await ipc.centralView();
    } catch (error) {
      this.failure = ipc.toApiError(error);
    }
    if (this.central || this.failure) return;
    // A login as this window's user elsewhere ended the session here: lock, saying where.
    this.stopEnded = ipc.onSessionEnded((error) => void this.user.lock(error.message, true));
    try {
      // Subscribe before the first snapshot so no change falls between the two.
      this.unlisten = await ipc.onPitUpdate((update) => this.apply(update));
      const overview = await ipc.pitOverview();
      this.overview = overview;
      setSiteZone(overview.timeZone);
      this.tables = overview.tables;
      this.record = overview.record;
      this.user.session = overview.session;
      this.user.muted = overview.alarmMuted;
      this.user.firstRun = !overview.demo && this.user.session === null && (await ipc.needsFirstAdmin());
      await this.incidents.loadFirst();
    } catch (error) {
      this.failure = ipc.toApiError(error);
    }
    let beat = 0;
    this.ticker = setInterval(() => {
      this.now = Date.now();
      if (++beat % 4 === 0 && !this.muted && this.alerts.length > 0) this.chime.ring();
      this.user.lockIfIdle(this.now, this.overview?.idleLockSeconds ?? 0);
      if (beat % ALERT_POLL_SECONDS === 1) void this.refreshExposureAlerts();
      if (beat % PACE_POLL_SECONDS === 2) void this.refreshPaceAlerts();
      // The reviews are read again when someone else logs in, and every ten minutes.
      const who = this.user.session?.user ?? null;
      if (who !== this.reviewsFor || beat % 600 === 0) void this.refreshReviews();
    }, 1000);
    window.addEventListener("keydown", this.onKey);
    for (const kind of INPUT_EVENTS) window.addEventListener(kind, this.noteInput, { passive: true });
    this.stopBlinking = startBlinking(
      document.documentElement,
      () => this.alerts.length > 0 || this.recordProblems.some((p) => p.severity === "critical"),
    );
  }

  /** Asks the desk for the exposure alerts when whoever is logged in may see them; forgets them otherwise. */
  async refreshExposureAlerts(): Promise<void> {
    const session = this.user.session;
    if (!session || this.user.locked || !may(session.role, "exposure")) {
      this.exposureAlerts = [];
      this.seenExposureAlerts = new Set();
      return;
    }
    try {
      const alerts = await ipc.exposureAlerts();
      // Whoever asked may have logged out meanwhile.
      if (this.user.session?.user === session.user) this.exposureAlerts = alerts;
    } catch {
      this.exposureAlerts = [];
    }
  }

  /** Whoever is logged in has seen this alert: its banner goes (it stays on the Exposure screen). */
  exposureAlertSeen(alert: ExposureAlert): void {
    this.seenExposureAlerts = new Set([...this.seenExposureAlerts, alertKey(alert)]);
  }

  /** Asks the desk for the pace alerts when whoever is logged in may see them; forgets them otherwise. */
  async refreshPaceAlerts(): Promise<void> {
    const session = this.user.session;
    if (!session || this.user.locked || !may(session.role, "dealers")) {
      this.paceAlerts = [];
      this.seenPaceAlerts = new Set();
      return;
    }
    try {
      const alerts = await ipc.paceAlerts();
      // Whoever asked may have logged out meanwhile.
      if (this.user.session?.user === session.user) this.paceAlerts = alerts;
    } catch {
      this.paceAlerts = [];
    }
  }

  /** Whoever is logged in has seen this pace alert: its banner goes (the count and the dealers' screen keep it). */
  paceAlertSeen(alert: PaceAlertView): void {
    this.seenPaceAlerts = new Set([...this.seenPaceAlerts, paceAlertKey(alert)]);
  }

  /** Reads where the periodic reviews stand for whoever is logged in (nobody: none). */
  async refreshReviews(): Promise<void> {
    const who = this.user.session?.user ?? null;
    this.reviewsFor = who;
    if (who === null) {
      this.reviews = null;
      return;
    }
    try {
      this.reviews = await ipc.reviewStatus();
    } catch {
      // A session ended elsewhere, or no record: the next beat or command says so.
      this.reviews = null;
    }
  }

  /** Stops the clock, the flashing and the subscription. */
  stop(): void {
    this.stopEnded?.();
    this.unlisten?.();
    this.stopBlinking?.();
    clearInterval(this.ticker);
    window.removeEventListener("keydown", this.onKey);
    for (const kind of INPUT_EVENTS) window.removeEventListener(kind, this.noteInput);
  }

  /** One live change from the desk. */
  apply(update: PitUpdate): void {
    switch (update.type) {
      case "table": {
        const { name, lastEventAtMs: at, oldestUnsentAtMs: from } = update.table;
        this.tables = replaceTable(this.tables, update.table);
        if (this.latency.fresh(name, at)) {
          this.latency.arrived(name, at, from ?? at);
          // After Svelte has put the tile's new state in the DOM (then after it is painted).
          void tick().then(() => this.latency.shown(name, at, from ?? at));
        }
        break;
      }
      case "incident_raised":
      case "incident_changed":
        this.incidents.live(update.incident, update.type === "incident_raised");
        break;
      case "record":
        this.record = update.record;
        break;
      case "recording":
        this.recording = { status: update.status, receivedMs: Date.now() };
        break;
      case "tables":
        // The pit definition was reloaded: tables added, removed or begun afresh.
        this.tables = update.tables;
        break;
    }
  }

  show(view: View): void {
    this.view = view;
  }

  /** A table's screen, with its latest incidents. */
  openTable(name: string): void {
    this.view = { name: "table", table: name };
    void this.incidents.loadTable(name);
  }

  /** The incident screen with incident `id` selected (shown even if its page is not loaded yet). */
  openIncident(id: number): void {
    this.selectedIncident = id;
    this.incidents.reveal(id);
    this.view = { name: "incidents" };
  }

  /** Settings/About, with the record's latest checkpoint read again. */
  async openAbout(): Promise<void> {
    this.view = { name: "about" };
    try {
      this.record = await ipc.recordStatus();
    } catch {
      // The last status known is shown.
    }
  }

  openReplay(table: string, shoe: number | null = null, seq: number | null = null): void {
    this.view = { name: "replay", table, shoe, seq };
  }

  /** The first administrator was created: the users screen, to add the others. */
  firstAdminCreated(created: Session): void {
    this.user.firstAdminCreated(created);
    this.view = { name: "users" };
  }

  /** Hands the window to the next supervisor: locked, with nobody's name offered. */
  switchSupervisor(): void {
    void this.user.lock(SWITCH_REASON, false);
  }

  /** The logged-in user mutes or unmutes the alarm (audited by the desk); nobody else can. */
  async toggleMute(): Promise<void> {
    await this.user.setMuted(!this.user.muted);
  }

  /** The banner moves on to the next alert. */
  nextAlert(): void {
    this.focusedAlert = nextAlert(this.alerts, this.alert?.id ?? null)?.id ?? null;
  }

  /** Acknowledges the alert in the banner (a logged-in user's). */
  async acknowledgeAlert(): Promise<void> {
    const alert = this.alert;
    if (!alert) return;
    if (!this.user.session) {
      this.user.loginError = { code: "unauthorised", message: "Log in to acknowledge." };
      return;
    }
    try {
      this.incidents.live(await ipc.acknowledge(alert.id), false);
    } catch (error) {
      this.user.loginError = ipc.toApiError(error);
    }
  }

  private readonly noteInput = (): void => this.user.noteInput();

  private readonly onKey = (event: KeyboardEvent): void => {
    const target = event.target as HTMLElement | null;
    const alert = this.alert;
    switch (keyCommand(event.key, target?.tagName ?? null, this.user.locked, this.user.session?.role ?? null)) {
      case "acknowledge":
        void this.acknowledgeAlert();
        break;
      case "next":
        this.nextAlert();
        break;
      case "open":
        if (alert) this.openIncident(alert.id);
        break;
      case "mute":
        void this.toggleMute();
        break;
      case "replay":
        if (alert) this.openReplay(alert.table, alert.shoe, alert.seq);
        break;
      case "pit":
        this.view = { name: "pit" };
        break;
      case null:
        break;
    }
  };
}
