import { describe, expect, it, vi } from "vitest";
import type { PitUpdate } from "./bindings";

type Listener = (event: { payload: unknown }) => void;
const listeners = new Map<string, Listener>();
vi.mock("@tauri-apps/api/event", () => ({
  listen: (name: string, handler: Listener) => {
    listeners.set(name, handler);
    return Promise.resolve(() => listeners.delete(name));
  },
}));

const { isApiError, onPitUpdate, toApiError, UPDATE_EVENT } = await import("./ipc");

describe("toApiError", () => {
  it("keeps errors that already carry a code", () => {
    const error = { code: "not_found", message: "no table BAC-9" };
    expect(isApiError(error)).toBe(true);
    expect(toApiError(error)).toBe(error);
  });

  it("wraps anything else as an internal error with its message", () => {
    expect(toApiError(new Error("window closed"))).toEqual({ code: "internal", message: "window closed" });
    expect(toApiError("plain text")).toEqual({ code: "internal", message: "plain text" });
  });
});

describe("onPitUpdate", () => {
  it("hands each update of a batch to the handler, in order", async () => {
    const seen: PitUpdate["type"][] = [];
    const unlisten = await onPitUpdate((u) => seen.push(u.type));
    const emit = listeners.get(UPDATE_EVENT);
    expect(emit).toBeDefined();
    const incident = { type: "incident_raised" } as unknown as PitUpdate;
    const table = { type: "table" } as unknown as PitUpdate;
    emit?.({ payload: [table, incident, table] });
    expect(seen).toEqual(["table", "incident_raised", "table"]);
    unlisten();
    expect(listeners.has(UPDATE_EVENT)).toBe(false);
  });
});
