// The only module that talks to the Rust side, through the wrappers generated from the command
// list (commands.ts). Every call returns typed DTOs from bindings.ts and
// turns failures into an ApiError, so views never see bare strings.
import * as commands from "./commands";
import { listen, type UnlistenFn } from "@tauri-apps/api/event";
import { sessionEnded } from "./access";
import type {
  AccessListing,
  AccessReviewRequest,
  LogReviewRequest,
  ReviewRow,
  ReviewStatus,
  ApiError,
  AuditRow,
  BookView,
  CentralIncidentDetail,
  CentralIncidents,
  CentralPit,
  ConsoleEntry,
  DeviceHealthBoard,
  EvidencePackFile,
  HandoverSummary,
  IncidentDetail,
  IncidentPage,
  IncidentQuery,
  IncidentRow,
  PitExposure,
  DealersView,
  ExposureAlert,
  PaceAlertView,
  PitOverview,
  PitReload,
  ReportFormat,
  LinkTestRequest,
  LinkTestView,
  PitUpdate,
  RecordStatus,
  ResolutionKind,
  SerialPortView,
  Session,
  SurveillanceLog,
  ShiftQuery,
  ShiftReportFile,
  ShoeExposure,
  ShoePage,
  ShoeReplay,
  SignOffRequest,
  SignedOff,
  TableDraft,
  UserRow,
} from "./bindings";

/** The Tauri event that carries live changes, a batch at a time (src-tauri's UPDATE_EVENT). */
export const UPDATE_EVENT = "pit-update";

export function isApiError(value: unknown): value is ApiError {
  return (
    typeof value === "object" &&
    value !== null &&
    "code" in value &&
    "message" in value &&
    typeof (value as { message: unknown }).message === "string"
  );
}

export function toApiError(error: unknown): ApiError {
  if (isApiError(error)) return error;
  const message = error instanceof Error ? error.message : String(error);
  return { code: "internal", message };
}

/** A command's answer, with any failure turned into an ApiError. */
async function wrap<T>(answer: Promise<T>): Promise<T> {
  try {
    return await answer;
  } catch (error) {
    const failure = toApiError(error);
    if (sessionEnded(failure)) for (const listener of endedListeners) listener(failure);
    throw failure;
  }
}

/** Who hears that this window's session was ended by a login as its user elsewhere. */
const endedListeners = new Set<(error: ApiError) => void>();

/**
 * Calls `listener` whenever a command is refused because the session here was ended by a login
 * as the same user elsewhere (one session per user); answers how to stop listening.
 */
export function onSessionEnded(listener: (error: ApiError) => void): () => void {
  endedListeners.add(listener);
  return () => endedListeners.delete(listener);
}

/** Why the pit could not start, or null when it is running. */
export function startupError(): Promise<ApiError | null> {
  return wrap(commands.startupError());
}

export function pitOverview(): Promise<PitOverview> {
  return wrap(commands.pitOverview());
}

/** The record: its file, id, signing key's fingerprint, latest checkpoint and alerts. */
export function recordStatus(): Promise<RecordStatus> {
  return wrap(commands.recordStatus());
}

/** Calls `handler` for each live change, in the order the desk sent them. */
export function onPitUpdate(handler: (update: PitUpdate) => void): Promise<UnlistenFn> {
  return listen<PitUpdate[]>(UPDATE_EVENT, (event) => {
    for (const update of event.payload) handler(update);
  });
}

export function login(user: string, password: string): Promise<Session> {
  return wrap(commands.login(user, password));
}

/** Sets a user's own password (the old one checked as a login's is) and logs them in: how an expired password is replaced. */
export function changeOwnPassword(user: string, password: string, newPassword: string): Promise<Session> {
  return wrap(commands.changeOwnPassword(user, password, newPassword));
}

export function logout(): Promise<void> {
  return wrap(commands.logout());
}

/** Mutes or unmutes the alarm's sound as the logged-in user (audited); answers whether it is muted. */
export function setAlarmMuted(muted: boolean): Promise<boolean> {
  return wrap(commands.setAlarmMuted(muted));
}

/** One page of the incidents matching `query`, newest first (filters and paging by the store). */
export function incidents(query: IncidentQuery): Promise<IncidentPage> {
  return wrap(commands.incidents(query));
}

export function incident(id: number): Promise<IncidentDetail> {
  return wrap(commands.incident(id));
}

export function acknowledge(id: number): Promise<IncidentRow> {
  return wrap(commands.acknowledge(id));
}

export function addNote(id: number, text: string): Promise<IncidentRow> {
  return wrap(commands.addNote(id, text));
}

/** Enters an incident's surveillance log (a note of its own form, audited). */
export function addSurveillanceLog(id: number, log: SurveillanceLog): Promise<IncidentRow> {
  return wrap(commands.addSurveillanceLog(id, log));
}

/** Resolves an acknowledged incident: the resolution `kind` chosen, `text` written beside it. */
export function resolve(id: number, kind: ResolutionKind, text: string): Promise<IncidentRow> {
  return wrap(commands.resolve(id, text, kind));
}

/** Reopens a resolved incident, saying why. */
export function reopen(id: number, reason: string): Promise<IncidentRow> {
  return wrap(commands.reopen(id, reason));
}

export function recordConsole(table: string, entry: ConsoleEntry): Promise<number> {
  return wrap(commands.recordConsole(table, entry));
}

export function replay(table: string, shoe: number | null): Promise<ShoeReplay> {
  return wrap(commands.replay(table, shoe));
}

/** A table's shoes, newest first: up to `limit` numbered below `before` (null: the newest). */
export function shoes(table: string, before: number | null, limit: number | null): Promise<ShoePage> {
  return wrap(commands.shoes(table, before, limit));
}

/** Every table's exposure now, with surveillance's alerts (surveillance and admins; audited). */
export function pitExposure(): Promise<PitExposure> {
  return wrap(commands.pitExposure());
}

/** The exposure alerts of the shoes being dealt, the newest first (surveillance and admins; a look that shows alerts audited). */
export function exposureAlerts(): Promise<ExposureAlert[]> {
  return wrap(commands.exposureAlerts());
}

/** The pace alerts that hold now at the tables running, the newest first (supervisors and admins; a look that shows alerts audited). */
export function paceAlerts(): Promise<PaceAlertView[]> {
  return wrap(commands.paceAlerts());
}

/** A table's dealers over its record: the rota, each dealer's figures, the alerts (supervisors and admins; audited). */
export function tableDealers(table: string): Promise<DealersView> {
  return wrap(commands.tableDealers(table));
}

/** Writes a table's dealers' report (PDF or CSV) where the user chooses: its path, or null when cancelled. */
export function exportDealersReport(table: string, format: ReportFormat): Promise<string | null> {
  return wrap(commands.exportDealersReport(table, format));
}

/** A shoe's exposure round by round (the last shoe when `shoe` is null; surveillance and admins; audited). */
export function shoeExposure(table: string, shoe: number | null): Promise<ShoeExposure> {
  return wrap(commands.shoeExposure(table, shoe));
}

/** Writes a shoe's exposure report (PDF or CSV) where the user chooses: its path, or null when cancelled. */
export function exportExposureReport(table: string, shoe: number, format: ReportFormat): Promise<string | null> {
  return wrap(commands.exportExposureReport(table, shoe, format));
}

/** Writes the incident's PDF report where the user chooses in the save dialog: its path, or
 * null when the user cancelled. */
export function exportIncidentPdf(id: number): Promise<string | null> {
  return wrap(commands.exportIncidentPdf(id));
}

/** Writes the incident's evidence pack where the user chooses in the save dialog: where it went
 * and the key that signed it, or null when the user cancelled. */
export function exportEvidencePack(id: number): Promise<EvidencePackFile | null> {
  return wrap(commands.exportEvidencePack(id));
}

/** Opens a report exported in this session with the workstation's PDF viewer. */
export function openReport(path: string): Promise<void> {
  return wrap(commands.openReport(path));
}

/** Sends a report exported in this session to the printer; answers what the print system said. */
export function printReport(path: string): Promise<string> {
  return wrap(commands.printReport(path));
}

/** Adds a user with a role and password (admin only). */
export function addUser(name: string, role: string, password: string): Promise<UserRow> {
  return wrap(commands.addUser(name, role, password));
}

/** Gives a user another role (admin only). */
export function changeRole(name: string, role: string): Promise<UserRow> {
  return wrap(commands.changeRole(name, role));
}

/** Sets a user's password (admin only; the password policy applies). */
export function resetPassword(name: string, password: string): Promise<UserRow> {
  return wrap(commands.resetPassword(name, password));
}

/** Deactivates or reactivates a user (admin only). */
export function setActive(name: string, active: boolean): Promise<UserRow> {
  return wrap(commands.setActive(name, active));
}

/** Every user with their role and when they were added (admin only). */
export function users(): Promise<UserRow[]> {
  return wrap(commands.users());
}

/** The newest `limit` audit rows (only logins and refusals when `accessOnly`); admins and surveillance. */
export function audit(accessOnly: boolean, limit: number): Promise<AuditRow[]> {
  return wrap(commands.audit(accessOnly, limit));
}

/** The access listing: every user, their role and status, what each role may do (admins and inspectors). */
export function accessListing(): Promise<AccessListing> {
  return wrap(commands.accessListing());
}

/** Exports the access listing as CSV where the user chooses; null when they cancelled (audited). */
export function exportAccessListing(): Promise<string | null> {
  return wrap(commands.exportAccessListing());
}

/** Where the periodic reviews stand, with the alerts of those overdue. */
export function reviewStatus(): Promise<ReviewStatus> {
  return wrap(commands.reviewStatus());
}

/** Signs the access review of the listing read with `digest` (admins and inspectors). */
export function signAccessReview(request: AccessReviewRequest): Promise<ReviewRow> {
  return wrap(commands.signAccessReview(request));
}

/** Signs the audit log's review for a period (surveillance and inspectors, never an admin). */
export function signLogReview(request: LogReviewRequest): Promise<ReviewRow> {
  return wrap(commands.signLogReview(request));
}

/** Applies the pit definition's file again (administrators): what started, stopped or changed. */
export function reloadPit(): Promise<PitReload> {
  return wrap(commands.reloadPit());
}

/** The serial ports of this workstation with their USB identity (administrators). */
export function serialPorts(): Promise<SerialPortView[]> {
  return wrap(commands.serialPorts());
}

/** Adds a table to the pit definition's file and starts it (administrators): what the reload did. */
export function addTable(draft: TableDraft): Promise<PitReload> {
  return wrap(commands.addTable(draft));
}

/** A rule book's settings with the rules they cite. */
export function ruleBook(rules: string): Promise<BookView> {
  return wrap(commands.ruleBook(rules));
}

/** Renames a table in the pit definition and applies it (administrators). */
export function renameTable(name: string, to: string): Promise<PitReload> {
  return wrap(commands.renameTable(name, to));
}

/** Retires a table: it leaves the pit definition and stops recording (administrators). */
export function retireTable(name: string): Promise<PitReload> {
  return wrap(commands.retireTable(name));
}

/** Opens a device's link for a few seconds and decodes what arrives (administrators; nothing recorded). */
export function testLink(request: LinkTestRequest): Promise<LinkTestView> {
  return wrap(commands.testLink(request));
}

/** Whether this real pit has no users yet, so the first administrator must be created. */
export function needsFirstAdmin(): Promise<boolean> {
  return wrap(commands.needsFirstAdmin());
}

/** Creates the first administrator of a pit with no users and logs them in. */
export function createFirstAdmin(name: string, password: string): Promise<Session> {
  return wrap(commands.createFirstAdmin(name, password));
}

/** Writes the shift handover report's PDF where the user chooses: where, with its page count, or
 * null when the user cancelled. */
export function exportShiftReport(query: ShiftQuery): Promise<ShiftReportFile | null> {
  return wrap(commands.exportShiftReport(query));
}

/** Every device's health over the shift, compared with the devices of its kind. */
export function deviceHealth(query: ShiftQuery): Promise<DeviceHealthBoard> {
  return wrap(commands.deviceHealth(query));
}

/** What the shift hands over now: open incidents, devices down, tables closed, sign-offs on record. */
export function handoverSummary(query: ShiftQuery): Promise<HandoverSummary> {
  return wrap(commands.handoverSummary(query));
}

/**
 * Signs off the handover of a shift with the user's password, accepted by the incoming supervisor
 * with theirs (both recorded in the audit log).
 */
export function signOffShift(query: ShiftQuery, request: SignOffRequest): Promise<SignedOff> {
  return wrap(commands.signOffShift(query, request));
}

// The surveillance view (PITWATCH_CENTRAL): the central database read-only.

/** The central database (password hidden) when this window is the surveillance view, else null. */
export function centralView(): Promise<string | null> {
  return wrap(commands.centralView());
}

/** Signs in with an account of workstation `workstation` (SITE/NAME) as replicated. */
export function centralLogin(workstation: string, user: string, password: string): Promise<Session> {
  return wrap(commands.centralLogin(workstation, user, password));
}

export function centralLogout(): Promise<void> {
  return wrap(commands.centralLogout());
}

/** Every workstation the viewer may see, with its tables and how far behind its copy is. */
export function centralPits(): Promise<CentralPit[]> {
  return wrap(commands.centralPits());
}

/** Incidents matching `query` of one workstation (null: every one the viewer may see). */
export function centralIncidents(workstation: string | null, query: IncidentQuery): Promise<CentralIncidents[]> {
  return wrap(commands.centralIncidents(workstation, query));
}

export function centralIncident(workstation: string, id: number): Promise<CentralIncidentDetail> {
  return wrap(commands.centralIncident(workstation, id));
}

export function centralReplay(workstation: string, table: string, shoe: number | null): Promise<ShoeReplay> {
  return wrap(commands.centralReplay(workstation, table, shoe));
}

export function centralShoes(workstation: string, table: string, before: number | null, limit: number | null): Promise<ShoePage> {
  return wrap(commands.centralShoes(workstation, table, before, limit));
}
