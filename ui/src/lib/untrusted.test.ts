import { describe, expect, it } from "vitest";
import { isHidden, marker, visible, visibleLines } from "./untrusted";

describe("untrusted text", () => {
  it("shows bidirectional controls as markers so they cannot reorder the text", () => {
    expect(visible("resolved\u202edevlos")).toBe("resolved<U+202E>devlos");
    expect(visible("\u2066x\u2069\u200e\u200f\u061c\u202a\u202b\u202c\u202d")).toBe(
      "<U+2066>x<U+2069><U+200E><U+200F><U+061C><U+202A><U+202B><U+202C><U+202D>",
    );
  });

  it("shows zero-width and other invisible format characters", () => {
    expect(visible("al\u200bice")).toBe("al<U+200B>ice");
    expect(visible("\ufeffbom\u00ad")).toBe("<U+FEFF>bom<U+00AD>");
    expect(visible("tag\u{e0041}")).toBe("tag<U+E0041>");
  });

  it("shows controls but keeps line feeds and tabs", () => {
    expect(visible("a\u001b[2Jb\rc\u0085d\u2028e")).toBe("a<U+001B>[2Jb<U+000D>c<U+0085>d<U+2028>e");
    expect(visible("line one\n\tline two")).toBe("line one\n\tline two");
  });

  it("leaves names in any script, combining marks and astral characters as they are", () => {
    const kept = "Mere Tu\u0304hoe 王小明 𝒜 😀 שלום";
    expect(visible(kept)).toBe(kept);
  });

  it("keeps a forged entry on the note's own lines", () => {
    expect(visibleLines("checked\n2026-12-01 20:00 resolved by root — Closed: no irregularity")).toEqual([
      "checked",
      "2026-12-01 20:00 resolved by root — Closed: no irregularity",
    ]);
  });

  it("writes markers like the Rust side", () => {
    expect(marker(0x202e)).toBe("<U+202E>");
    expect(marker(0x7)).toBe("<U+0007>");
    expect(isHidden(0x0a)).toBe(false);
    expect(isHidden(0x09)).toBe(false);
    expect(isHidden(0x41)).toBe(false);
  });
});
