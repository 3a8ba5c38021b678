// Generated from the command list in crates/pitwatch-api/src/commands.rs. Do not edit:
// run `make bindings` after changing it. `ipc.ts` wraps these (errors as ApiError).
import { invoke } from "@tauri-apps/api/core";
import type { AccessListing, AccessReviewRequest, ApiError, AuditRow, BookView, CentralIncidentDetail, CentralIncidents, CentralPit, ConsoleEntry, DealersView, DeviceHealthBoard, EvidencePackFile, ExposureAlert, HandoverSummary, IncidentDetail, IncidentPage, IncidentQuery, IncidentRow, LinkTestRequest, LinkTestView, LogReviewRequest, PaceAlertView, PitExposure, PitOverview, PitReload, RecordStatus, ReportFormat, ResolutionKind, ReviewRow, ReviewStatus, SerialPortView, Session, ShiftQuery, ShiftReportFile, ShoeExposure, ShoePage, ShoeReplay, SignOffRequest, SignedOff, SurveillanceLog, TableDraft, UserRow } from "./bindings";

/** Why the pit could not start, or null when it is running. */
export function startupError(): Promise<ApiError | null> {
  return invoke<ApiError | null>("startup_error");
}

/** The pit now: every table's tile, the session, the demo login (demo only), the idle lock. */
export function pitOverview(): Promise<PitOverview> {
  return invoke<PitOverview>("pit_overview");
}

/** The record: its file, id, signing key's fingerprint, latest checkpoint and alerts. */
export function recordStatus(): Promise<RecordStatus> {
  return invoke<RecordStatus>("record_status");
}

/** Logs a user in at this workstation (failures are audited and throttled). */
export function login(user: string, password: string): Promise<Session> {
  return invoke<Session>("login", { user, password });
}

/** Sets a user's own password (the old one checked as a login's is) and logs them in: how an expired password is replaced. */
export function changeOwnPassword(user: string, password: string, newPassword: string): Promise<Session> {
  return invoke<Session>("change_own_password", { user, password, newPassword });
}

/** Logs the current user out. */
export function logout(): Promise<void> {
  return invoke<void>("logout");
}

/** Mutes (`muted` true) or unmutes the alarm's sound at this workstation, audited; answers whether it is muted (someone logged in only, any role). */
export function setAlarmMuted(muted: boolean): Promise<boolean> {
  return invoke<boolean>("set_alarm_muted", { muted });
}

/** One page of the incidents matching `query`, newest first (filters and paging by the store). */
export function incidents(query: IncidentQuery): Promise<IncidentPage> {
  return invoke<IncidentPage>("incidents", { query });
}

/** One incident with its rule texts, evidence and history. */
export function incident(id: number): Promise<IncidentDetail> {
  return invoke<IncidentDetail>("incident", { id });
}

/** Acknowledges an incident (supervisors and admins). */
export function acknowledge(id: number): Promise<IncidentRow> {
  return invoke<IncidentRow>("acknowledge", { id });
}

/** Adds a note to an incident (every role). */
export function addNote(id: number, text: string): Promise<IncidentRow> {
  return invoke<IncidentRow>("add_note", { id, text });
}

/** Enters an incident's surveillance log (camera or recording, time code, disposition, employees involved) as a note of its own form, audited (every role that may add notes). */
export function addSurveillanceLog(id: number, log: SurveillanceLog): Promise<IncidentRow> {
  return invoke<IncidentRow>("add_surveillance_log", { id, log });
}

/** Resolves an acknowledged incident (supervisors and admins): the resolution `kind` chosen, with `outcome` written beside it (required for `other`; null `kind`: `outcome` alone, as `other`). */
export function resolve(id: number, outcome: string, kind: ResolutionKind | null): Promise<IncidentRow> {
  return invoke<IncidentRow>("resolve", { id, outcome, kind });
}

/** Reopens a resolved incident, saying why (supervisors and admins). */
export function reopen(id: number, reason: string): Promise<IncidentRow> {
  return invoke<IncidentRow>("reopen", { id, reason });
}

/** Records at a table what no device can see (supervisors and admins); answers the event's seq. */
export function recordConsole(table: string, entry: ConsoleEntry): Promise<number> {
  return invoke<number>("record_console", { table, entry });
}

/** A shoe replayed from the record, step by step (the last shoe when `shoe` is null). */
export function replay(table: string, shoe: number | null): Promise<ShoeReplay> {
  return invoke<ShoeReplay>("replay", { table, shoe });
}

/** A table's shoes, newest first: up to `limit` numbered below `before` (null: the newest). */
export function shoes(table: string, before: number | null, limit: number | null): Promise<ShoePage> {
  return invoke<ShoePage>("shoes", { table, before, limit });
}

/** Exports an incident's report as a PDF where the user chooses in the save dialog; answers where it was written, or null when the user cancelled. */
export function exportIncidentPdf(id: number): Promise<string | null> {
  return invoke<string | null>("export_incident_pdf", { id });
}

/** Exports an incident's evidence pack (its report, its rows and the signed checkpoints over them, checked offline by `pitwatch verify --pack`) where the user chooses in the save dialog; null when the user cancelled. */
export function exportEvidencePack(id: number): Promise<EvidencePackFile | null> {
  return invoke<EvidencePackFile | null>("export_evidence_pack", { id });
}

/** Exports the shift handover report as a PDF where the user chooses in the save dialog; null when the user cancelled. */
export function exportShiftReport(query: ShiftQuery): Promise<ShiftReportFile | null> {
  return invoke<ShiftReportFile | null>("export_shift_report", { query });
}

/** Opens a report exported in this session with the workstation's PDF viewer. */
export function openReport(path: string): Promise<void> {
  return invoke<void>("open_report", { path });
}

/** Sends a report exported in this session to the workstation's printer (audited); answers what the print system said. */
export function printReport(path: string): Promise<string> {
  return invoke<string>("print_report", { path });
}

/** What the shift hands over: open incidents by severity, devices not connected, tables closed or disabled, and sign-offs of the period already on record. */
export function handoverSummary(query: ShiftQuery): Promise<HandoverSummary> {
  return invoke<HandoverSummary>("handover_summary", { query });
}

/** Every device's health over a shift: connections, time connected and not, frames accepted and rejected, errors, compared with the devices of its kind (any logged-in user). */
export function deviceHealth(query: ShiftQuery): Promise<DeviceHealthBoard> {
  return invoke<DeviceHealthBoard>("device_health", { query });
}

/** Signs off the handover of a shift with the user's password, accepted by the incoming supervisor with theirs (supervisors and admins; a period signed off once). */
export function signOffShift(query: ShiftQuery, request: SignOffRequest): Promise<SignedOff> {
  return invoke<SignedOff>("sign_off_shift", { query, request });
}

/** Adds a user (admins only). */
export function addUser(name: string, role: string, password: string): Promise<UserRow> {
  return invoke<UserRow>("add_user", { name, role, password });
}

/** Gives a user another role (admins only; never leaving no active admin). */
export function changeRole(name: string, role: string): Promise<UserRow> {
  return invoke<UserRow>("change_role", { name, role });
}

/** Sets a user's password (admins only; the password policy applies). */
export function resetPassword(name: string, password: string): Promise<UserRow> {
  return invoke<UserRow>("reset_password", { name, password });
}

/** Deactivates or reactivates a user (admins only; never the last active admin). */
export function setActive(name: string, active: boolean): Promise<UserRow> {
  return invoke<UserRow>("set_active", { name, active });
}

/** Every user: name, role, when added, whether active (admins only). */
export function users(): Promise<Array<UserRow>> {
  return invoke<Array<UserRow>>("users");
}

/** The newest audit rows, only logins and refusals when `access_only` (admins, surveillance and inspectors). */
export function audit(accessOnly: boolean, limit: number): Promise<Array<AuditRow>> {
  return invoke<Array<AuditRow>>("audit", { accessOnly, limit });
}

/** The access listing: every user with their role, status, password age, last login and live session, and what each role may do (admins and inspectors; audited for inspectors). */
export function accessListing(): Promise<AccessListing> {
  return invoke<AccessListing>("access_listing");
}

/** Exports the access listing as CSV where the user chooses in the save dialog (admins and inspectors; audited); null when the user cancelled. */
export function exportAccessListing(): Promise<string | null> {
  return invoke<string | null>("export_access_listing");
}

/** Where the periodic reviews stand: the last access review and log review, when each is due, and alerts for those overdue (any logged-in user). */
export function reviewStatus(): Promise<ReviewStatus> {
  return invoke<ReviewStatus>("review_status");
}

/** Signs the periodic review of the access listing read with `digest` (admins and inspectors; audited, chained). */
export function signAccessReview(request: AccessReviewRequest): Promise<ReviewRow> {
  return invoke<ReviewRow>("sign_access_review", { request });
}

/** Signs the independent review of the audit log for a period (surveillance and inspectors, never an admin; audited, chained). */
export function signLogReview(request: LogReviewRequest): Promise<ReviewRow> {
  return invoke<ReviewRow>("sign_log_review", { request });
}

/** Applies the pit definition's file again: tables added, removed or changed are started and stopped, the others keep recording (admins only; audited). */
export function reloadPit(): Promise<PitReload> {
  return invoke<PitReload>("reload_pit");
}

/** The serial ports of this workstation, with their USB identity (administrators). */
export function serialPorts(): Promise<Array<SerialPortView>> {
  return invoke<Array<SerialPortView>>("serial_ports");
}

/** Adds a table to the pit definition's file and starts it by a reload (administrators; audited with its section). */
export function addTable(draft: TableDraft): Promise<PitReload> {
  return invoke<PitReload>("add_table", { draft });
}

/** A rule book's settings, each with the rule it cites, before it is given to a table (any logged-in user). */
export function ruleBook(rules: string): Promise<BookView> {
  return invoke<BookView>("rule_book", { rules });
}

/** Renames a table in the pit definition and applies it: it records under its new name from now on (admins only). */
export function renameTable(name: string, to: string): Promise<PitReload> {
  return invoke<PitReload>("rename_table", { name, to });
}

/** Retires a table: its section leaves the pit definition and it stops recording; its record stays (admins only). */
export function retireTable(name: string): Promise<PitReload> {
  return invoke<PitReload>("retire_table", { name });
}

/** Opens a device's link for a few seconds and decodes what arrives, before it is saved; records nothing (administrators; a port a running table uses is refused). */
export function testLink(request: LinkTestRequest): Promise<LinkTestView> {
  return invoke<LinkTestView>("test_link", { request });
}

/** Every table's exposure now, the tables most against the house first, with surveillance's alerts (surveillance and admins only; the look audited). */
export function pitExposure(): Promise<PitExposure> {
  return invoke<PitExposure>("pit_exposure");
}

/** The exposure alerts of the shoes being dealt now, the newest first, for the banner every screen shows surveillance (surveillance and admins only; a look that shows alerts audited). */
export function exposureAlerts(): Promise<Array<ExposureAlert>> {
  return invoke<Array<ExposureAlert>>("exposure_alerts");
}

/** The pace alerts that hold now at the tables running ('pace below target', 'error burst'), the newest first, for the banner every screen shows supervisors (supervisors and admins only; a look that shows alerts audited). */
export function paceAlerts(): Promise<Array<PaceAlertView>> {
  return invoke<Array<PaceAlertView>>("pace_alerts");
}

/** A table's dealers over its record: the rota, each dealer's figures against the table's target, the alerts (supervisors and admins only; the look audited). */
export function tableDealers(table: string): Promise<DealersView> {
  return invoke<DealersView>("table_dealers", { table });
}

/** Exports a table's dealers' report as PDF or CSV where the user chooses in the save dialog (supervisors and admins only; audited); null when the user cancelled. */
export function exportDealersReport(table: string, format: ReportFormat): Promise<string | null> {
  return invoke<string | null>("export_dealers_report", { table, format });
}

/** A shoe's exposure round by round from the record (the table's last shoe when `shoe` is null; surveillance and admins only; the look audited). */
export function shoeExposure(table: string, shoe: number | null): Promise<ShoeExposure> {
  return invoke<ShoeExposure>("shoe_exposure", { table, shoe });
}

/** Exports a shoe's exposure report as PDF or CSV where the user chooses in the save dialog (surveillance and admins only; audited); null when the user cancelled. */
export function exportExposureReport(table: string, shoe: number, format: ReportFormat): Promise<string | null> {
  return invoke<string | null>("export_exposure_report", { table, shoe, format });
}

/** Whether a real pit's record has no users yet (the window then asks for the first administrator). */
export function needsFirstAdmin(): Promise<boolean> {
  return invoke<boolean>("needs_first_admin");
}

/** Creates the first administrator of a record with no users and logs them in. */
export function createFirstAdmin(name: string, password: string): Promise<Session> {
  return invoke<Session>("create_first_admin", { name, password });
}

/** The central database (password hidden) when the window is the surveillance view (PITWATCH_CENTRAL), else null. */
export function centralView(): Promise<string | null> {
  return invoke<string | null>("central_view");
}

/** Signs in to the surveillance view with an account of workstation `workstation` (SITE/NAME). */
export function centralLogin(workstation: string, user: string, password: string): Promise<Session> {
  return invoke<Session>("central_login", { workstation, user, password });
}

/** Signs out of the surveillance view. */
export function centralLogout(): Promise<void> {
  return invoke<void>("central_logout");
}

/** Every workstation the viewer may see, with its tables and how far behind its copy is. */
export function centralPits(): Promise<Array<CentralPit>> {
  return invoke<Array<CentralPit>>("central_pits");
}

/** Incidents matching `query` of `workstation` (null: every workstation the viewer may see). */
export function centralIncidents(workstation: string | null, query: IncidentQuery): Promise<Array<CentralIncidents>> {
  return invoke<Array<CentralIncidents>>("central_incidents", { workstation, query });
}

/** One incident of a workstation from the central copy, read-only, with where to work it. */
export function centralIncident(workstation: string, id: number): Promise<CentralIncidentDetail> {
  return invoke<CentralIncidentDetail>("central_incident", { workstation, id });
}

/** A shoe of a workstation's table replayed from the central copy (the last when `shoe` is null). */
export function centralReplay(workstation: string, table: string, shoe: number | null): Promise<ShoeReplay> {
  return invoke<ShoeReplay>("central_replay", { workstation, table, shoe });
}

/** A workstation's table's shoes from the central copy, newest first, for the replay picker. */
export function centralShoes(workstation: string, table: string, before: number | null, limit: number | null): Promise<ShoePage> {
  return invoke<ShoePage>("central_shoes", { workstation, table, before, limit });
}
