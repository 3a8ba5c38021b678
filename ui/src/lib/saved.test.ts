import { describe, expect, it } from "vitest";
import { fileName, folderOf, printedLine, savedLine } from "./saved";

describe("an exported report's line", () => {
  it("names the file and its folder from either kind of path", () => {
    expect(fileName("/home/pit/Documents/incident-12.pdf")).toBe("incident-12.pdf");
    expect(fileName("C:\\Reports\\shift-1.pdf")).toBe("shift-1.pdf");
    expect(fileName("plain.pdf")).toBe("plain.pdf");
    expect(folderOf("/home/pit/Documents/incident-12.pdf")).toBe("/home/pit/Documents");
    expect(folderOf("C:\\Reports\\shift-1.pdf")).toBe("C:\\Reports");
    expect(folderOf("/incident-1.pdf")).toBe("/");
    expect(folderOf("incident-1.pdf")).toBe("");
  });

  it("says what was saved, with pages when known, or that nothing was", () => {
    expect(savedLine("/r/incident-3.pdf")).toBe("Saved incident-3.pdf");
    expect(savedLine("/r/shift.pdf", 1)).toBe("Saved shift.pdf (1 page)");
    expect(savedLine("/r/shift.pdf", 4)).toBe("Saved shift.pdf (4 pages)");
    expect(savedLine(null)).toBe("Not saved: the save was cancelled.");
  });

  it("repeats the print system's answer", () => {
    expect(printedLine("request id is pit-7 (1 file(s))")).toBe("Sent to the printer: request id is pit-7 (1 file(s))");
    expect(printedLine("sent to the printer")).toBe("Sent to the printer.");
    expect(printedLine("  ")).toBe("Sent to the printer.");
  });
});
