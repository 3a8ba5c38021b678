// What the window says after a report is exported: where it went (or that the save was
// cancelled), and what the printer answered. The Open and Print buttons are SavedReport.svelte's.

/** The file's name: its path's last part (either separator). */
export function fileName(path: string): string {
  const parts = path.split(/[\\/]/).filter((p) => p !== "");
  return parts[parts.length - 1] ?? path;
}

/** The folder the file is in, as its path gives it ("" when none). */
export function folderOf(path: string): string {
  const cut = Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\"));
  return cut <= 0 ? (cut === 0 ? path.slice(0, 1) : "") : path.slice(0, cut);
}

/** The line under the export button: the file saved (with its pages), or nothing saved. */
export function savedLine(path: string | null, pages: number | null = null): string {
  if (path === null) return "Not saved: the save was cancelled.";
  const count = pages === null ? "" : ` (${pages} ${pages === 1 ? "page" : "pages"})`;
  return `Saved ${fileName(path)}${count}`;
}

/** What the print system answered, as the window says it. */
export function printedLine(answer: string): string {
  const said = answer.trim();
  return said === "" || said === "sent to the printer" ? "Sent to the printer." : `Sent to the printer: ${said}`;
}
