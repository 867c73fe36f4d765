import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, inject, it } from "vitest";
import { Praxis, unwrap } from "../../client/src/index";
import { runProcess } from "./run-process";

const ROOT = path.resolve(import.meta.dirname, "../..");
const PYTHON_DIR = path.join(ROOT, "clients/python");
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

/** The README's Python client example, as it is printed. */
function readmeExample(): string {
  const readme = readFileSync(path.join(ROOT, "README.md"), "utf8");
  const code = /```python\n([\s\S]*?)```/.exec(readme.slice(readme.indexOf("## Python client")))?.[1];
  if (!code) throw new Error("README has no ```python block under ## Python client");
  return code;
}

// Without python3 on the machine these are skipped, except in CI, where they must run.
const bin = python();
const runs = bin !== null || !!process.env.CI;

describe("Python client", () => {
  it.runIf(runs)(
    "passes its unittest suite (python3 -m unittest) against the local Worker, none skipped",
    async () => {
      expect(bin, "python3 is needed for the Python client's tests").not.toBeNull();
      const r = await runProcess(bin!, ["-m", "unittest", "discover", "-s", "tests", "-t", ".", "-v"], {
        cwd: PYTHON_DIR,
        env: { ...process.env, PRAXIS_URL: url, PRAXIS_ADMIN_KEY: adminKey, PYTHONDONTWRITEBYTECODE: "1" },
      });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/^OK$/m);
      expect(r.stderr).not.toMatch(/skipped/);
      expect(Number(/^Ran (\d+) tests/m.exec(r.stderr)?.[1])).toBeGreaterThanOrEqual(22);
    },
    180_000,
  );

  it.runIf(runs)(
    "the README's example runs as written and records one ended episode with its answer",
    async () => {
      const { apiKey } = await unwrap(
        new Praxis({ baseUrl: url, apiKey: adminKey }).api.POST("/v1/tenants", { body: { name: "readme-python" } }),
      );
      const r = await runProcess(bin!, ["-c", readmeExample()], {
        cwd: ROOT,
        env: { ...process.env, PRAXIS_URL: url, PRAXIS_API_KEY: apiKey, PYTHONPATH: PYTHON_DIR, PYTHONDONTWRITEBYTECODE: "1" },
      });
      expect(r.code, r.stderr).toBe(0);
      const api = new Praxis({ baseUrl: url, apiKey }).api;
      const [listed] = (await unwrap(api.GET("/v1/agents/{agentId}/episodes", { params: { path: { agentId: "support-bot" } } }))).items;
      const episode = await unwrap(
        api.GET("/v1/agents/{agentId}/episodes/{id}", { params: { path: { agentId: "support-bot", id: listed!.id } } }),
      );
      expect(episode).toMatchObject({ status: "ended", outcome: "success", answer: expect.stringContaining("Retry-After") });
      expect(episode.attempts).toEqual([expect.objectContaining({ n: 1, ok: true })]);
    },
    60_000,
  );
});
