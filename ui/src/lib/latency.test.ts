import { describe, expect, it } from "vitest";
import { LagRecorder, percentile } from "./latency";

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
