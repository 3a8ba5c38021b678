import { describe, expect, it } from "vitest";
import { mayManageUsers, newUserProblem } from "./users";

describe("newUserProblem", () => {
  it("accepts a complete new user", () => {
    expect(newUserProblem("bob", "supervisor", "long-enough", "long-enough")).toBeNull();
  });

  it("names what is missing or wrong", () => {
    expect(newUserProblem("  ", "supervisor", "long-enough", "long-enough")).toMatch(/name/);
    expect(newUserProblem("bob", "croupier", "long-enough", "long-enough")).toMatch(/role/);
    expect(newUserProblem("bob", "admin", "short", "short")).toMatch(/8 characters/);
    expect(newUserProblem("bob", "admin", "long-enough", "long-enougH")).toMatch(/differ/);
  });
});

describe("mayManageUsers", () => {
  it("is for admins only", () => {
    expect(mayManageUsers({ role: "admin" })).toBe(true);
    expect(mayManageUsers({ role: "supervisor" })).toBe(false);
    expect(mayManageUsers(null)).toBe(false);
  });
});
