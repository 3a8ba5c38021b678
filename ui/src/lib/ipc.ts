// The only module that talks to the Rust side. Every call returns typed DTOs from bindings.ts and
// turns failures into an ApiError, so views never see bare strings.
import { invoke } from "@tauri-apps/api/core";
import type { ApiError, PitOverview } from "./bindings";

export function isApiError(value: unknown): value is ApiError {
  return (
    typeof value === "object" &&
    value !== null &&
    "code" in value &&
    "message" in value &&
    typeof (value as { message: unknown }).message === "string"
  );
}

export function toApiError(error: unknown): ApiError {
  if (isApiError(error)) return error;
  const message = error instanceof Error ? error.message : String(error);
  return { code: "internal", message };
}

async function call<T>(command: string, args?: Record<string, unknown>): Promise<T> {
  try {
    return await invoke<T>(command, args);
  } catch (error) {
    throw toApiError(error);
  }
}

export function pitOverview(): Promise<PitOverview> {
  return call<PitOverview>("pit_overview");
}
