// What the incident view says after an evidence pack is saved (issue 32): the file, the key
// that signed it, and the command that checks it on any machine. A pack is not a report: it is
// not opened or printed from the window, only handed over.
import type { EvidencePackFile, SurveillanceLog } from "./bindings";
import { fileName, folderOf } from "./saved";

/** The lines under the "Save evidence pack" button: what was saved, or that nothing was. */
export function packLines(pack: EvidencePackFile | null): string[] {
  if (pack === null) return ["Not saved: the save was cancelled."];
  const folder = folderOf(pack.path);
  return [
    `Saved evidence pack ${fileName(pack.path)}${folder === "" ? "" : ` in ${folder}`} (${kilobytes(pack.bytes)}), signed by key ${pack.fingerprint}.`,
    `Anyone can check it, with no database: pitwatch verify --pack ${fileName(pack.path)} --key ${pack.fingerprint}`,
  ];
}

function kilobytes(bytes: number): string {
  return bytes < 1024 ? `${bytes} bytes` : `${Math.round(bytes / 1024)} KB`;
}

/** The surveillance log as typed in the incident view: employees in one field, separated by
 * semicolons or commas. */
export interface SurveillanceDraft {
  camera: string;
  timeCode: string;
  disposition: string;
  employees: string;
}

/** The draft as the command takes it: fields trimmed, employees split and blanks dropped. */
export function surveillanceLog(draft: SurveillanceDraft): SurveillanceLog {
  return {
    camera: draft.camera.trim(),
    timeCode: draft.timeCode.trim(),
    disposition: draft.disposition.trim(),
    employees: draft.employees
      .split(/[;,]/)
      .map((e) => e.trim())
      .filter((e) => e !== ""),
  };
}

/** What still keeps the draft from being entered (the record checks again), or null. */
export function surveillanceProblem(draft: SurveillanceDraft): string | null {
  const missing = [
    draft.camera.trim() === "" ? "the camera or recording" : null,
    draft.timeCode.trim() === "" ? "the time code" : null,
    draft.disposition.trim() === "" ? "the disposition" : null,
  ].filter((m): m is string => m !== null);
  return missing.length === 0 ? null : `Give ${missing.join(", ")}.`;
}
