// The only module that talks to the Rust side. Every call returns typed DTOs from bindings.ts and
// turns failures into an ApiError, so views never see bare strings.
import { invoke } from "@tauri-apps/api/core";
import { listen, type UnlistenFn } from "@tauri-apps/api/event";
import type {
  ApiError,
  AuditRow,
  ConsoleEntry,
  IncidentDetail,
  IncidentPage,
  IncidentQuery,
  IncidentRow,
  PitOverview,
  PitUpdate,
  RecordStatus,
  Session,
  ShiftQuery,
  ShiftReportFile,
  ShoePage,
  ShoeReplay,
  SignedOff,
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

async function call<T>(command: string, args?: Record<string, unknown>): Promise<T> {
  try {
    return await invoke<T>(command, args);
  } catch (error) {
    throw toApiError(error);
  }
}

/** Why the pit could not start, or null when it is running. */
export function startupError(): Promise<ApiError | null> {
  return call<ApiError | null>("startup_error");
}

export function pitOverview(): Promise<PitOverview> {
  return call<PitOverview>("pit_overview");
}

/** The record: its file, id, signing key's fingerprint, latest checkpoint and alerts. */
export function recordStatus(): Promise<RecordStatus> {
  return call<RecordStatus>("record_status");
}

/** Calls `handler` for each live change, in the order the desk sent them. */
export function onPitUpdate(handler: (update: PitUpdate) => void): Promise<UnlistenFn> {
  return listen<PitUpdate[]>(UPDATE_EVENT, (event) => {
    for (const update of event.payload) handler(update);
  });
}

export function login(user: string, password: string): Promise<Session> {
  return call<Session>("login", { user, password });
}

export function logout(): Promise<void> {
  return call<void>("logout");
}

/** One page of the incidents matching `query`, newest first (filters and paging by the store). */
export function incidents(query: IncidentQuery): Promise<IncidentPage> {
  return call<IncidentPage>("incidents", { query });
}

export function incident(id: number): Promise<IncidentDetail> {
  return call<IncidentDetail>("incident", { id });
}

export function acknowledge(id: number): Promise<IncidentRow> {
  return call<IncidentRow>("acknowledge", { id });
}

export function addNote(id: number, text: string): Promise<IncidentRow> {
  return call<IncidentRow>("add_note", { id, text });
}

export function resolve(id: number, outcome: string): Promise<IncidentRow> {
  return call<IncidentRow>("resolve", { id, outcome });
}

export function recordConsole(table: string, entry: ConsoleEntry): Promise<number> {
  return call<number>("record_console", { table, entry });
}

export function replay(table: string, shoe: number | null): Promise<ShoeReplay> {
  return call<ShoeReplay>("replay", { table, shoe });
}

/** A table's shoes, newest first: up to `limit` numbered below `before` (null: the newest). */
export function shoes(table: string, before: number | null, limit: number | null): Promise<ShoePage> {
  return call<ShoePage>("shoes", { table, before, limit });
}

/** Writes the incident's PDF report and returns the file's path. */
export function exportIncidentPdf(id: number): Promise<string> {
  return call<string>("export_incident_pdf", { id });
}

/** Adds a user with a role and password (admin only). */
export function addUser(name: string, role: string, password: string): Promise<UserRow> {
  return call<UserRow>("add_user", { name, role, password });
}

/** Every user with their role and when they were added (admin only). */
export function users(): Promise<UserRow[]> {
  return call<UserRow[]>("users");
}

/** The newest `limit` audit rows (only logins and refusals when `accessOnly`); admins and surveillance. */
export function audit(accessOnly: boolean, limit: number): Promise<AuditRow[]> {
  return call<AuditRow[]>("audit", { accessOnly, limit });
}

/** Whether this real pit has no users yet, so the first administrator must be created. */
export function needsFirstAdmin(): Promise<boolean> {
  return call<boolean>("needs_first_admin");
}

/** Creates the first administrator of a pit with no users and logs them in. */
export function createFirstAdmin(name: string, password: string): Promise<Session> {
  return call<Session>("create_first_admin", { name, password });
}

/** Writes the shift handover report's PDF and returns where, with its page count. */
export function exportShiftReport(query: ShiftQuery): Promise<ShiftReportFile> {
  return call<ShiftReportFile>("export_shift_report", { query });
}

/** Signs off the handover of a shift (recorded in the audit log under the logged-in user). */
export function signOffShift(query: ShiftQuery, note: string): Promise<SignedOff> {
  return call<SignedOff>("sign_off_shift", { query, note });
}
