import { describe, expect, it } from "vitest";
import { packLines, surveillanceLog, surveillanceProblem } from "./evidence";

describe("packLines", () => {
  it("says where the pack went, which key signed it and how to check it", () => {
    const lines = packLines({ path: "/home/ana/packs/incident-7.pwpack", fingerprint: "3f2a-91bc-0000-1111-2222-3333-4444-5555", bytes: 48_300 });
    expect(lines[0]).toBe("Saved evidence pack incident-7.pwpack in /home/ana/packs (47 KB), signed by key 3f2a-91bc-0000-1111-2222-3333-4444-5555.");
    expect(lines[1]).toBe("Anyone can check it, with no database: pitwatch verify --pack incident-7.pwpack --key 3f2a-91bc-0000-1111-2222-3333-4444-5555");
  });

  it("says when nothing was saved", () => {
    expect(packLines(null)).toEqual(["Not saved: the save was cancelled."]);
  });

  it("counts a small pack in bytes", () => {
    expect(packLines({ path: "p.pwpack", fingerprint: "f", bytes: 900 })[0]).toBe("Saved evidence pack p.pwpack (900 bytes), signed by key f.");
  });
});

describe("the surveillance log's draft", () => {
  const draft = { camera: " CAM-14 ", timeCode: "21:14:05", disposition: "Re-trained", employees: "D. Smith (4411); A. Jones, ;" };

  it("is trimmed and its employees split", () => {
    expect(surveillanceLog(draft)).toEqual({ camera: "CAM-14", timeCode: "21:14:05", disposition: "Re-trained", employees: ["D. Smith (4411)", "A. Jones"] });
    expect(surveillanceProblem(draft)).toBeNull();
  });

  it("names every field still missing", () => {
    expect(surveillanceProblem({ camera: "", timeCode: " ", disposition: "x", employees: "" })).toBe("Give the camera or recording, the time code.");
  });
});
