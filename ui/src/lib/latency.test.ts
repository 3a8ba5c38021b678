import { describe, expect, it } from "vitest";
import { LagRecorder, LatencyProbe, percentile } from "./latency";

describe("LagRecorder", () => {
  it("records one lag per new event time per table", () => {
    const lags = new LagRecorder();
    expect(lags.fresh("BAC-1", null)).toBe(false);
    expect(lags.fresh("BAC-1", 1000)).toBe(true);
    lags.record("BAC-1", 1000, 1040);
    expect(lags.fresh("BAC-1", 1000)).toBe(false);
    lags.record("BAC-1", 1000, 1090);
    lags.record("BAC-2", 1000, 1010);
    lags.record("BAC-1", 1200, 1300);
    expect(lags.lags()).toEqual([40, 10, 100]);
    expect(lags.lags(2)).toEqual([10, 100]);
    lags.clear();
    expect(lags.lags()).toEqual([]);
  });

  it("keeps only the most recent lags", () => {
    const lags = new LagRecorder(3);
    for (let i = 1; i <= 5; i++) lags.record("T", i * 100, i * 100 + i);
    expect(lags.lags()).toEqual([3, 4, 5]);
  });
});

describe("LatencyProbe", () => {
  it("measures each new event to the DOM and, later, to the painted frame", () => {
    let now = 1000;
    const pending: (() => void)[] = [];
    const probe = new LatencyProbe((then) => pending.push(then), () => now);
    expect(probe.fresh("BAC-1", 900)).toBe(true);
    now = 1010;
    probe.arrived("BAC-1", 900);
    now = 1030;
    probe.shown("BAC-1", 900);
    expect(probe.fresh("BAC-1", 900)).toBe(false);
    // An update carrying events from 1020 to 1050 counts from the oldest, the one that waited.
    probe.shown("BAC-2", 1050, 1020);
    expect(probe.lags()).toEqual([130, 10]);
    expect(probe.received()).toEqual([110]);
    probe.clear();
    probe.shown("BAC-1", 950);
    expect(probe.fresh("BAC-1", 900)).toBe(false);
    expect(probe.lags()).toEqual([80]);
    now = 1047;
    for (const paint of pending.splice(0)) paint();
    expect(probe.painted()).toEqual([147, 27, 97]);
    probe.clear();
    expect(probe.received()).toEqual([]);
    expect(probe.lags()).toEqual([]);
    expect(probe.painted()).toEqual([]);
  });
});

describe("percentile", () => {
  it("takes the nearest rank", () => {
    const values = Array.from({ length: 100 }, (_, i) => 100 - i);
    expect(percentile(values, 50)).toBe(50);
    expect(percentile(values, 99)).toBe(99);
    expect(percentile(values, 100)).toBe(100);
    expect(percentile([7], 0)).toBe(7);
    expect(percentile([], 50)).toBeNull();
  });
});
