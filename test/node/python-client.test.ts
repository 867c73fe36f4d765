import { execFileSync } from "node:child_process";
import path from "node:path";
import { describe, expect, inject, it } from "vitest";
import { runProcess } from "./run-process";

const PYTHON_DIR = path.resolve(import.meta.dirname, "../../clients/python");
const { url, adminKey } = inject("localWorker");

function python(): string | null {
  for (const bin of ["python3", "python"]) {
    try {
      if (/^Python 3\.(\d+)/.test(execFileSync(bin, ["--version"], { encoding: "utf8" }).trim())) return bin;
    } catch {
      // not installed under this name
    }
  }
  return null;
}

// The Python client's own unittest suite, live tests included, against the shared local Worker.
describe("Python client (python3 -m unittest)", () => {
  const bin = python();
  it.runIf(bin !== null || process.env.CI)("passes its unittest suite against the local Worker, none skipped", async () => {
    expect(bin, "python3 is needed for the Python client's tests").not.toBeNull();
    const r = await runProcess(bin!, ["-m", "unittest", "discover", "-s", "tests", "-t", ".", "-v"], {
      cwd: PYTHON_DIR,
      env: { ...process.env, PRAXIS_URL: url, PRAXIS_ADMIN_KEY: adminKey, PYTHONDONTWRITEBYTECODE: "1" },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^OK$/m);
    expect(r.stderr).not.toMatch(/skipped/);
    expect(Number(/^Ran (\d+) tests/m.exec(r.stderr)?.[1])).toBeGreaterThanOrEqual(16);
  }, 180_000);
});
