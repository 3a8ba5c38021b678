import { describe, expect, it } from "vitest";
import { isApiError, toApiError } from "./ipc";

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
