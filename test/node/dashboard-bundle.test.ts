import path from "node:path";
import { describe, expect, it } from "vitest";
import { runProcess } from "./run-process";

const ROOT = path.resolve(import.meta.dirname, "../..");

describe("dashboard bundle", () => {
  it("the committed static/dashboard-client.js is what src/dashboard/client builds to", async () => {
    const r = await runProcess(process.execPath, ["src/dashboard/build-client.mjs", "--check"], { cwd: ROOT, env: process.env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("matches its sources");
  });
});
