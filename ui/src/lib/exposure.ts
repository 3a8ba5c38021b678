// The house's exposure as surveillance's screen shows it (issue 29): edges in words and numbers,
// the pit's list in the desk's order, a shoe's rounds as a grid of wagers, and a replay step's
// figures. Pure functions; ExposureView and ReplayView render them.
import type { ExposureAlert, ExposureFigure, ExposureRound, ShoeExposure, TableExposure } from "./bindings";

/** A wager's house edge as the screen says it: "+1.06%" (the house ahead), "−0.42%" (behind). */
export function edgeText(value: number): string {
  const sign = value < 0 ? "−" : "+";
  return `${sign}${Math.abs(value).toFixed(2)}%`;
}

/** A figure's value as the screen says it: a wager's edge, or a count to two places. */
export function figureText(figure: ExposureFigure): string {
  if (figure.wager) return edgeText(figure.value);
  const rounded = Math.round(figure.value * 100) / 100;
  return Number.isInteger(rounded) ? rounded.toFixed(0) : rounded.toFixed(2);
}

/** What a pit-list row says of its table's state: the worst wager now, or why there is none. */
export function tableSummary(row: TableExposure): string {
  if (row.problem) return row.problem;
  if (row.game === null) return "not dealt yet";
  if (!row.next) return "waiting for the shoe's first round";
  if (!row.worst) return "no wager watched";
  return `${row.worst.name} ${edgeText(row.worst.value)}`;
}

/** The wager names of a shoe's grid, in the book's order (the first round's figures). */
export function wagerColumns(shoe: ShoeExposure): string[] {
  const first = shoe.rounds[0];
  return first ? first.figures.map((f) => f.name) : [];
}

/** The rounds of a shoe with the house behind on some wager, by number. */
export function roundsBehind(shoe: ShoeExposure): number[] {
  return shoe.rounds.filter((r) => r.figures.some((f) => f.wager && f.houseBehind)).map((r) => r.round);
}

/**
 * The figures before round `round` of the shoe (the round a replay step shows), computed no later
 * than the step at `seq`; null when there are none (poker, or a round not yet figured).
 */
export function roundAt(rounds: ExposureRound[], round: number, seq: number): ExposureRound | null {
  return rounds.find((r) => r.round === round && r.afterSeq <= seq) ?? null;
}

/** How often the window asks for the alerts of the shoes being dealt (surveillance and admins). */
export const ALERT_POLL_SECONDS = 5;

/** One alert's identity: a table, a shoe, a wager (raised once each). */
export function alertKey(alert: ExposureAlert): string {
  return `${alert.table}\u0000${alert.shoe}\u0000${alert.wager}`;
}

/** The alerts this window has not been told were seen, in the desk's order (the newest first). */
export function unseenAlerts(alerts: ExposureAlert[], seen: ReadonlySet<string>): ExposureAlert[] {
  return alerts.filter((a) => !seen.has(alertKey(a)));
}

/** What the banner says of an alert, in words. */
export function alertText(alert: ExposureAlert): string {
  const rounds = alert.roundsBehind === 1 ? "1 round" : `${alert.roundsBehind} rounds`;
  return `${alert.table}, shoe ${alert.shoe}: ${alert.wager} has favoured the players for ${rounds} (house edge ${edgeText(alert.houseEdge)} before round ${alert.round})`;
}
