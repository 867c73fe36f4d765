import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
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
// The machine's own Python (Debian's python3, with its pip, setuptools and wheel; .ci/run installs
// them), which the README's offline install relies on.
const SYSTEM_PYTHON = process.env.PRAXIS_SYSTEM_PYTHON ?? "/usr/bin/python3";

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
        new Praxis({ baseUrl: url, apiKey: adminKey }).api.POST("/v1/tenants", {
          body: { name: `readme-python-${Date.now().toString(36)}` },
        }),
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

  it.runIf(existsSync(SYSTEM_PYTHON) || !!process.env.CI)(
    "installs offline into a virtual environment with `pip install --no-build-isolation`, and the README's example runs from there",
    async () => {
      const scratch = mkdtempSync(path.join(tmpdir(), "praxis-pip-"));
      try {
        // A copy: building in place would leave build/ and *.egg-info in the clone.
        const source = path.join(scratch, "python");
        cpSync(PYTHON_DIR, source, { recursive: true, filter: (p) => !/__pycache__|\.egg-info|[\\/]build$/.test(p) });
        const venv = path.join(scratch, "venv");
        execFileSync(SYSTEM_PYTHON, ["-m", "venv", "--system-site-packages", "--without-pip", venv]);
        const vpython = path.join(venv, "bin", "python");
        const env = { ...process.env, PYTHONDONTWRITEBYTECODE: "1", PIP_NO_INDEX: "1", PIP_DISABLE_PIP_VERSION_CHECK: "1" };
        const install = await runProcess(vpython, ["-m", "pip", "install", "--no-build-isolation", source], { cwd: scratch, env });
        expect(install.code, install.stdout + install.stderr).toBe(0);
        expect(install.stdout).toMatch(/Successfully installed praxis-client-\d/);

        const where = await runProcess(
          vpython,
          ["-c", "import praxis_client, importlib.metadata as m; print(praxis_client.__file__); print(m.version('praxis-client'))"],
          {
            cwd: scratch,
            env,
          },
        );
        expect(where.code, where.stderr).toBe(0);
        const [file, version] = where.stdout.trim().split("\n");
        expect(file!.startsWith(venv)).toBe(true);
        expect(existsSync(path.join(path.dirname(file!), "py.typed"))).toBe(true);
        expect(version).toBe(JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")).version);

        const { apiKey } = await unwrap(
          new Praxis({ baseUrl: url, apiKey: adminKey }).api.POST("/v1/tenants", { body: { name: "readme-pip" } }),
        );
        const r = await runProcess(vpython, ["-c", readmeExample()], {
          cwd: scratch,
          env: { ...env, PRAXIS_URL: url, PRAXIS_API_KEY: apiKey },
        });
        expect(r.code, r.stderr).toBe(0);
        const api = new Praxis({ baseUrl: url, apiKey }).api;
        const { items } = await unwrap(api.GET("/v1/agents/{agentId}/episodes", { params: { path: { agentId: "support-bot" } } }));
        expect(items.map((e) => e.status)).toEqual(["ended"]);
      } finally {
        rmSync(scratch, { recursive: true, force: true });
      }
    },
    120_000,
  );
});
