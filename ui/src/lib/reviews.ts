// The access controls' reviews as the window shows them: which overdue reviews each role is
// alerted to, an account's status in words, and the period a log review proposes. Pure, so it is
// unit-tested without a DOM; the desk checks roles again and audits every step
// (crates/pitwatch-app/src/reviews.rs).
import type { ReviewStatus } from "./bindings";
import { may } from "./access";

/** The overdue reviews a user of `role` is alerted to: those their role signs. */
export function reviewAlertsFor(role: string | null | undefined, status: ReviewStatus | null): string[] {
  if (!status) return [];
  return status.alerts
    .filter((alert) => (alert.kind === "access" ? may(role, "review_access") : alert.kind === "log" && may(role, "review_log")))
    .map((alert) => alert.message);
}

/** An account's status in the access listing, in words. */
export function statusLabel(status: string): string {
  switch (status) {
    case "active":
      return "Active";
    case "disabled":
      return "Deactivated";
    case "locked":
      return "Locked (failed logins)";
    case "password_expired":
      return "Password expired";
    default:
      return status;
  }
}

/**
 * The period a log review proposes at `nowMs`: from where the last one ended (else the log's
 * period before now), to now, as RFC 3339 text.
 */
export function proposedLogPeriod(status: ReviewStatus | null, nowMs: number): { from: string; to: string } {
  const days = status?.logEveryDays ?? 7;
  const from = status?.logFrom ?? new Date(nowMs - days * 86_400_000).toISOString();
  return { from, to: new Date(nowMs).toISOString() };
}

/** What is wrong with a review's comment, or null when it can be sent. */
export function commentProblem(comment: string): string | null {
  if (comment.trim() === "") return "Say what was looked at and what was found.";
  if ([...comment.trim()].length > 4000) return "A review's comment is at most 4000 characters.";
  return null;
}
