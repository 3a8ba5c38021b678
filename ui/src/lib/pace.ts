// Dealers and pace as the supervisors' screens show them (issue 30): the pace alerts' banner
// ("pace below target", "error burst"), which alerts this window was told were seen, and a
// table's dealers in words and numbers. Pure functions; AlertBanners and DealersView render them.
import type { DealerFiguresView, PaceAlertView, PaceTargetView } from "./bindings";
import { codeLabel } from "./incidents";
import { visible } from "./untrusted";

/** How often the window asks for the pace alerts (supervisors and admins). */
export const PACE_POLL_SECONDS = 5;

/** One alert's identity: a table, what it is about, and the round it was raised at. */
export function paceAlertKey(alert: PaceAlertView): string {
  return `${alert.table}\u0000${alert.code}\u0000${alert.shoe}\u0000${alert.round}`;
}

/** The alerts this window has not been told were seen, in the desk's order (the newest first). */
export function unseenPaceAlerts(alerts: PaceAlertView[], seen: ReadonlySet<string>): PaceAlertView[] {
  return alerts.filter((a) => !seen.has(paceAlertKey(a)));
}

/**
 * What the banner says of an alert, in words: the table, the alert, the dealer (untrusted text,
 * shown by the untrusted-text rule) and what was measured.
 */
export function paceAlertText(alert: PaceAlertView): string {
  const dealer = alert.dealer === null ? "no dealer signed in" : `dealer ${visible(alert.dealer)}`;
  return `${alert.table}: ${alert.words} (${dealer}, shoe ${alert.shoe} round ${alert.round}). ${alert.message}`;
}

/** Rounds an hour as the screen says them ("—" when not timed). */
export function perHour(value: number | null): string {
  return value === null ? "—" : value.toFixed(1);
}

/** A dealer's pace against the table's target, in percent of it ("—" without either). */
export function ofTarget(figures: DealerFiguresView, target: PaceTargetView | null): string {
  if (figures.roundsPerHour === null || target === null) return "—";
  return `${Math.round((figures.roundsPerHour / target.roundsPerHour) * 100)}%`;
}

/** Whether a dealer dealt under the table's alert line. */
export function belowLine(figures: DealerFiguresView, target: PaceTargetView | null): boolean {
  return figures.roundsPerHour !== null && target !== null && figures.roundsPerHour < target.alertBelow;
}

/** A dealer's irregularities, each code in words beside it ("none" without any). */
export function errorsText(figures: DealerFiguresView): string {
  if (figures.irregularities.length === 0) return "none";
  return figures.irregularities.map((i) => `${codeLabel(i.code)} × ${i.count}`).join(", ");
}
