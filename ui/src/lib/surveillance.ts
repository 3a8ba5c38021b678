// Pure view logic for the surveillance view (the central database read-only, issue 16): how far
// behind each workstation's copy is, one incident list out of every workstation's pages, labels.
import type { CentralIncidents, CentralPit, IncidentRow, RoundResult } from "./bindings";

/** How a workstation's copy stands, in words and a tone (never colour alone). */
export interface CopyState {
  text: string;
  tone: "ok" | "warn" | "bad";
}

function duration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 90) return `${s} s`;
  const m = Math.round(s / 60);
  if (m < 120) return `${m} min`;
  return `${Math.round(m / 60)} h`;
}

/** "Up to date", "120 rows · 14 s behind", or what is wrong with the copy. */
export function copyState(pit: CentralPit): CopyState {
  if (pit.problem) return { text: `✖ ${pit.problem}`, tone: "bad" };
  if (pit.refused > 0) return { text: `✖ ${pit.refused} row${pit.refused === 1 ? "" : "s"} refused (changed after replication)`, tone: "bad" };
  if (pit.lastDelivery === null) return { text: "⚠ never delivered", tone: "warn" };
  if (pit.rowsBehind > 0 || pit.msBehind > 0) {
    const rows = `${pit.rowsBehind} row${pit.rowsBehind === 1 ? "" : "s"}`;
    return { text: `⚠ ${rows} · ${duration(pit.msBehind)} behind`, tone: "warn" };
  }
  return { text: "✔ up to date", tone: "ok" };
}

/** An incident with the workstation whose record holds it. */
export type CentralIncidentRow = IncidentRow & { workstation: string };

/** Every workstation's page as one list, newest first (ties: by workstation, then id). */
export function mergeIncidents(groups: readonly CentralIncidents[]): CentralIncidentRow[] {
  const rows = groups.flatMap((g) => g.page.incidents.map((i) => ({ ...i, workstation: g.workstation })));
  return rows.sort(
    (a, b) => b.openedAt.localeCompare(a.openedAt) || a.workstation.localeCompare(b.workstation) || b.id - a.id,
  );
}

/** How many incidents match in all, over every workstation. */
export function totalIncidents(groups: readonly CentralIncidents[]): number {
  return groups.reduce((n, g) => n + g.page.total, 0);
}

/** Whether `text` names a workstation as SITE/NAME. */
export function isWorkstation(text: string): boolean {
  return /^[^/\s]+\/\S+$/.test(text.trim());
}

/** "Banker (P 5 · B 7)", "Tie (P 6 · B 6)", "Void", or "" before the first round. */
export function resultLabel(result: RoundResult | null): string {
  if (!result || result.outcome === null) return "";
  const score = result.playerTotal !== null && result.bankerTotal !== null ? ` (P ${result.playerTotal} · B ${result.bankerTotal})` : "";
  switch (result.outcome) {
    case "player":
      return `Player${score}`;
    case "banker":
      return `Banker${score}`;
    case "tie":
      return `Tie${score}`;
    default:
      return "Void";
  }
}
