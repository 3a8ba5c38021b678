// What the incident view says after an evidence pack is saved (issue 32): the file, the key
// that signed it, and the command that checks it on any machine. A pack is not a report: it is
// not opened or printed from the window, only handed over.
import type { EvidencePackFile } from "./bindings";
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
