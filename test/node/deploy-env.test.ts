import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { unstable_getMiniflareWorkerOptions } from "wrangler";
import { ensureDevVars } from "../../scripts/dev-vars.mjs";
import { projectCopies, ROOT } from "./project-copy";
import { runProcess } from "./run-process";

const copies = projectCopies();
const project = () => copies.make();

/** The PRAXIS_ENV `wrangler dev` (and so `npm start`) gives the Worker in `dir`. */
function devPraxisEnv(dir: string): unknown {
  const bindings = (unstable_getMiniflareWorkerOptions(join(dir, "wrangler.toml")).workerOptions.bindings ?? {}) as Record<string, unknown>;
  return bindings.PRAXIS_ENV;
}

afterAll(() => copies.removeAll());

describe("production rules unless a local file asks for development", () => {
  it("`wrangler deploy --dry-run` (no --env) builds with PRAXIS_ENV production, even beside a .dev.vars that says development", async () => {
    const dir = project();
    writeFileSync(join(dir, ".dev.vars"), 'PRAXIS_ENV="development"\n');
    const out = join(dir, "dist-dry-run");
    const run = await runProcess(join(ROOT, "node_modules/.bin/wrangler"), ["deploy", "--dry-run", "--outdir", out], {
      cwd: dir,
      env: { ...process.env, CI: "1", WRANGLER_SEND_METRICS: "false", NO_COLOR: "1" },
    });
    expect(run.code, run.stderr + run.stdout).toBe(0);
    const vars = [...run.stdout.matchAll(/env\.(\w+) \("([^"]*)"\)\s+Environment Variable/g)].map((m) => [m[1], m[2]]);
    expect(Object.fromEntries(vars)).toMatchObject({ PRAXIS_ENV: "production" });
    expect(readdirSync(out)).toContain("index.js");
  }, 120_000);

  it("local development gets development rules only through .dev.vars, which `npm start` writes", () => {
    const dir = project();
    expect(devPraxisEnv(dir)).toBe("production");

    const file = join(dir, ".dev.vars");
    const first = ensureDevVars(file);
    expect(first.generated).toBe(true);
    expect(readFileSync(file, "utf8")).toMatch(/^PRAXIS_ENV="development"$/m);
    expect(devPraxisEnv(dir)).toBe("development");

    // A second start keeps the key; a developer's own choice of PRAXIS_ENV is left alone.
    expect(ensureDevVars(file)).toEqual({ adminKey: first.adminKey, generated: false });
    writeFileSync(file, `PRAXIS_ADMIN_KEY="${first.adminKey}"\nPRAXIS_ENV="production"\n`);
    ensureDevVars(file);
    expect(devPraxisEnv(dir)).toBe("production");
  });
});

describe("the production deployment", () => {
  const wranglerEnv = { ...process.env, CI: "1", WRANGLER_SEND_METRICS: "false", NO_COLOR: "1" };

  it("`wrangler deploy --dry-run --env production` builds offline, with the bindings provisioning creates", async () => {
    const dir = project();
    const run = await runProcess(
      join(ROOT, "node_modules/.bin/wrangler"),
      ["deploy", "--dry-run", "--env", "production", "--outdir", join(dir, "out")],
      {
        cwd: dir,
        env: wranglerEnv,
      },
    );
    expect(run.code, run.stderr + run.stdout).toBe(0);
    for (const binding of [
      /env\.DB \(praxis\)\s+D1 Database/,
      /env\.PRAXIS_KEYS \(\S+\)\s+KV Namespace/,
      /env\.VECTORIZE \(praxis-memories\)\s+Vectorize Index/,
      /env\.AI\s+AI/,
    ]) {
      expect(run.stdout).toMatch(binding);
    }
    expect(run.stdout).toMatch(/env\.PRAXIS_ENV \("production"\)/);
    expect(readdirSync(join(dir, "out"))).toContain("index.js");
  }, 120_000);

  it("`npm run provision -- --dry-run` creates the index docs/deployment.md creates, and changes nothing", async () => {
    const readme = readFileSync(join(ROOT, "docs", "deployment.md"), "utf8");
    const documented = [...readme.matchAll(/vectorize create (\S+) --dimensions (\d+)/g)].map((m) => `${m[1]} ${m[2]}`);
    expect(documented.length).toBeGreaterThan(0);
    const before = readFileSync(join(ROOT, "wrangler.toml"), "utf8");
    const run = await runProcess("npm", ["run", "--silent", "provision", "--", "--dry-run"], { cwd: ROOT, env: wranglerEnv });
    expect(run.code, run.stderr).toBe(0);
    const planned = [...run.stdout.matchAll(/wrangler vectorize create (\S+) --dimensions (\d+)/g)].map((m) => `${m[1]} ${m[2]}`);
    expect(planned).toHaveLength(1);
    expect(new Set(documented)).toEqual(new Set(planned));
    expect(run.stdout).toMatch(/wrangler d1 migrations apply DB --remote --env production/);
    expect(readFileSync(join(ROOT, "wrangler.toml"), "utf8")).toBe(before);
  }, 60_000);
});
