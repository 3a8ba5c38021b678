import { describe, expect, it } from "vitest";
import type { ShuffleQuality } from "./bindings";
import { shuffleAlert, shuffleBadge, shuffleNote } from "./shuffle";

const quality = (extra: Partial<ShuffleQuality> = {}): ShuffleQuality => ({
  verdict: "well_mixed",
  label: "well mixed",
  provisional: false,
  detail: "longest preserved run 3, p 0.52; preserved pairs 57 of 55.3 expected, p 0.43; combined p 0.86",
  ...extra,
});

describe("the shuffle label", () => {
  it("is green for a well mixed shoe, with the statistics as its tooltip", () => {
    expect(shuffleBadge(quality())).toEqual({
      text: "well mixed",
      tone: "ok",
      title: "longest preserved run 3, p 0.52; preserved pairs 57 of 55.3 expected, p 0.43; combined p 0.86",
    });
  });

  it("warns of a weak shuffle and alarms on a suspect one", () => {
    expect(shuffleBadge(quality({ verdict: "weak", label: "weak: consistent with 3 riffles" }))).toMatchObject({
      text: "weak: consistent with 3 riffles",
      tone: "warn",
    });
    expect(shuffleBadge(quality({ verdict: "suspect", label: "suspect: a block of 20 cards kept" }))).toMatchObject({
      text: "⚠ suspect: a block of 20 cards kept",
      tone: "bad",
    });
  });

  it("says when a shoe is still being dealt, and shows nothing without an analysis", () => {
    const badge = shuffleBadge(quality({ provisional: true }));
    expect(badge?.text).toBe("well mixed (so far)");
    expect(badge?.title).toMatch(/^So far, while the shoe is dealt: .*judged when the next one starts\.$/);
    expect(shuffleBadge(null)).toBeNull();
    expect(shuffleBadge(quality({ verdict: "not_compared", label: "not compared" }))?.tone).toBe("muted");
  });

  it("shows on a pit tile only a weak or suspect shuffle", () => {
    expect(shuffleAlert(quality())).toBeNull();
    expect(shuffleAlert(null)).toBeNull();
    expect(shuffleAlert(quality({ verdict: "weak", label: "weak: consistent with 4 riffles" }))?.tone).toBe("warn");
    expect(shuffleAlert(quality({ verdict: "suspect", label: "suspect: consistent with 1 riffle" }))?.text).toBe(
      "⚠ suspect: consistent with 1 riffle",
    );
  });

  it("adds a note to the shoe picker only when the shoe was compared", () => {
    expect(shuffleNote(quality({ verdict: "suspect", label: "suspect: a block of 20 cards kept" }))).toBe(
      "⚠ suspect: a block of 20 cards kept",
    );
    expect(shuffleNote(quality({ verdict: "not_compared", label: "not compared" }))).toBeNull();
    expect(shuffleNote(null)).toBeNull();
  });
});
