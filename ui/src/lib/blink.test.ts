import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { BLINK_CLASS, startBlinking } from "./blink";

function fakeRoot() {
  const classes = new Set<string>();
  const changes: boolean[] = [];
  const classList = {
    toggle: (name: string, force?: boolean) => {
      const on = force ?? !classes.has(name);
      if (on) classes.add(name);
      else classes.delete(name);
      changes.push(on);
      return on;
    },
    remove: (name: string) => void classes.delete(name),
    contains: (name: string) => classes.has(name),
  } as unknown as DOMTokenList;
  return { root: { classList }, classes, changes };
}

describe("startBlinking", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("flashes at 1 Hz while an alert is open, touching the DOM only when the phase changes", () => {
    const { root, classes, changes } = fakeRoot();
    let alerts = 0;
    const stop = startBlinking(root, () => alerts > 0);
    vi.advanceTimersByTime(2000);
    expect(changes).toEqual([]);
    alerts = 1;
    vi.advanceTimersByTime(500);
    expect(classes.has(BLINK_CLASS)).toBe(true);
    vi.advanceTimersByTime(500);
    expect(classes.has(BLINK_CLASS)).toBe(false);
    vi.advanceTimersByTime(1000);
    expect(changes).toEqual([true, false, true, false]);
    // Acknowledged: it stops in the off phase and stays there.
    vi.advanceTimersByTime(500);
    alerts = 0;
    vi.advanceTimersByTime(500);
    expect(classes.has(BLINK_CLASS)).toBe(false);
    vi.advanceTimersByTime(3000);
    expect(changes).toEqual([true, false, true, false, true, false]);
    stop();
  });

  it("clears the class when stopped", () => {
    const { root, classes } = fakeRoot();
    const stop = startBlinking(root, () => true);
    vi.advanceTimersByTime(500);
    expect(classes.has(BLINK_CLASS)).toBe(true);
    stop();
    expect(classes.has(BLINK_CLASS)).toBe(false);
    vi.advanceTimersByTime(2000);
    expect(classes.has(BLINK_CLASS)).toBe(false);
  });
});
