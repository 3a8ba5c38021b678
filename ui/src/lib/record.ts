// The record's own state, as every screen shows it: what is wrong with it (most serious first)
// and how anyone holding it can check it later.
import type { BuildInfo, RecordAlert, RecordStatus, ReplicationState } from "./bindings";

const ORDER: Record<string, number> = { critical: 0, high: 1, medium: 2, low: 3 };

/** The record's alerts, most serious first (the desk's order kept within a severity). */
export function recordAlerts(record: RecordStatus | null | undefined): RecordAlert[] {
  if (!record) return [];
  return record.alerts
    .map((alert, index) => ({ alert, index }))
    .sort((a, b) => (ORDER[a.alert.severity] ?? 9) - (ORDER[b.alert.severity] ?? 9) || a.index - b.index)
    .map(({ alert }) => alert);
}

/** The file name of a path, for a command someone copies (`/x/pit.db` → `pit.db`). */
export function fileName(path: string): string {
  const parts = path.split(/[\\/]/);
  return parts[parts.length - 1] || path;
}

/**
 * The command that checks the record against its latest signed checkpoint, as a report prints it;
 * without a checkpoint yet, the plain verification.
 */
export function verifyCommand(record: RecordStatus): string {
  const db = fileName(record.path);
  return record.latestCheckpoint
    ? `pitwatch verify --db ${db} --checkpoint '${record.latestCheckpoint}'`
    : `pitwatch verify --db ${db}`;
}

/** The parts of a checkpoint people read: its number and time (`pitwatch-checkpoint:1:rec:N:time:hash:key`). */
export function checkpointSummary(text: string | null): { id: number; at: string } | null {
  if (!text) return null;
  const m = /^pitwatch-checkpoint:1:[0-9a-f]{32}:(\d+):(.+):[0-9a-f]{64}:[^:]+$/.exec(text);
  return m && m[1] && m[2] ? { id: Number(m[1]), at: m[2] } : null;
}

/** Replication to the central database in words, and whether it is past its alert threshold. */
export function replicationSummary(state: ReplicationState): { text: string; alert: boolean } {
  const alert = state.secondsBehind > state.alertAfterS || state.refused.length > 0;
  if (!state.connected) {
    return { text: `link down${state.error ? ` (${state.error})` : ""}; recording goes on, the outbox catches up when it returns`, alert };
  }
  if (state.rowsBehind === 0 && state.secondsBehind === 0) return { text: "up to date", alert };
  return { text: `${state.rowsBehind} rows, ${state.secondsBehind} s behind`, alert };
}

/**
 * The program's version and build as About shows them: the version, the commit it was built from
 * (or that the build did not know it), and the line every report prints in its footer.
 */
export function buildSummary(build: BuildInfo): { version: string; commit: string; printed: string } {
  return {
    version: build.version,
    commit: build.commit ?? "not recorded (built outside a git checkout)",
    printed: build.label,
  };
}
