// The device health board's rows in words (the handover screen; crates/pitwatch-app/src/health.rs
// builds them from the record).
import type { DeviceHealthView, Protocol } from "./bindings";
import { linkWords } from "./devices";
import { PROTOCOL_LABEL } from "./pit";
import { duration } from "./recording";

/** A protocol as people name it ("Barcode shoe"); one this window does not know, as recorded. */
function protocolWords(protocol: string): string {
  return Object.prototype.hasOwnProperty.call(PROTOCOL_LABEL, protocol) ? PROTOCOL_LABEL[protocol as Protocol] : protocol;
}

/** What the device is: its name and serial when it says them, else its protocol; then the link
 * it came through when it named itself (its USB adapter), and its port, in words. */
export function deviceLine(r: DeviceHealthView): string {
  const protocol = protocolWords(r.protocol);
  const name = r.device.trim() === "" ? protocol : `${r.device.trim()} (${protocol})`;
  const serial = r.serial.trim() === "" ? "" : ` · serial number ${r.serial.trim()}`;
  const firmware = r.firmware.trim() === "" ? "" : ` · firmware ${r.firmware.trim()}`;
  const port = linkWords(r.port);
  const link = r.via.trim() === "" ? port : `via ${r.via.trim()} on ${port}`;
  return `${name}${serial}${firmware} · ${link}`;
}

const byName = new Intl.Collator("en", { numeric: true });

/** The board's rows as a floor lists its tables (BAC-2 before BAC-10), each table's devices in
 * the order they served it. */
export function boardOrder(rows: readonly DeviceHealthView[]): DeviceHealthView[] {
  return rows
    .map((r, i) => ({ r, i }))
    .sort((a, b) => byName.compare(a.r.table, b.r.table) || a.i - b.i)
    .map(({ r }) => r);
}

/** How much of its time it was connected: "5 h 2 min connected, 3 min 10 s not (98.9%)". */
export function uptimeLine(r: DeviceHealthView): string {
  const total = r.connectedMs + r.offlineMs;
  const share = total <= 0 ? "" : ` (${((r.connectedMs * 100) / total).toFixed(1)}%)`;
  return r.offlineMs <= 0 ? `${duration(r.connectedMs)} connected, never lost` : `${duration(r.connectedMs)} connected, ${duration(r.offlineMs)} not${share}`;
}

/** Its frames: "1,204 accepted · 3 rejected (0.2%) · 2 cards sent again". */
export function framesLine(r: DeviceHealthView): string {
  const total = r.framesAccepted + r.framesRejected;
  const share = total === 0 || r.framesRejected === 0 ? "" : ` (${((r.framesRejected * 100) / total).toFixed(1)}%)`;
  const again = r.retransmissions === 0 ? "" : ` · ${r.retransmissions.toLocaleString("en-NZ")} ${r.retransmissions === 1 ? "card" : "cards"} sent again`;
  return `${r.framesAccepted.toLocaleString("en-NZ")} accepted · ${r.framesRejected.toLocaleString("en-NZ")} rejected${share}${again}`;
}

/** Its connections: "1 connection", "4 connections (3 reconnects)". */
export function sessionsLine(r: DeviceHealthView): string {
  if (r.sessions === 1) return "1 connection";
  return `${r.sessions} connections (${r.sessions - 1} ${r.sessions === 2 ? "reconnect" : "reconnects"})`;
}

/** Its errors: "none", "2 (codes 9, E4)". */
export function errorsLine(r: DeviceHealthView): string {
  if (r.errors === 0) return "none";
  return `${r.errors} (${r.errorCodes.length === 1 ? "code" : "codes"} ${r.errorCodes.join(", ")})`;
}
