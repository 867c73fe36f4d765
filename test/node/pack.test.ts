import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { loadEsbuild } from "../../cli/esbuild.mjs";
import { Praxis, unwrap } from "../../client/src/index";
import { ROOT } from "./project-copy";
import { runProcess } from "./run-process";

const { url, adminKey } = inject("localWorker");

// The machine's own Node (20 here), not the newer one the test suite runs on: a user installs with it.
const HOST_NODE = process.env.PRAXIS_HOST_NODE ?? "/usr/bin/node";
// Without the npm settings of the `npm test` that may have started this run, as in a user's shell.
const hostEnv: NodeJS.ProcessEnv = {
  ...Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("npm_"))),
  PATH: `${path.dirname(HOST_NODE)}${path.delimiter}${process.env.PATH}`,
  NO_COLOR: "1",
  npm_config_update_notifier: "false",
};

const scratch = mkdtempSync(path.join(tmpdir(), "praxis-pack-test-"));
const project = path.join(scratch, "app");
let tarball = "";
let install = { code: 0 as number | null, stdout: "", stderr: "" };

beforeAll(async () => {
  const packed = await runProcess("npm", ["run", "--silent", "pack", "--", "--out", path.join(scratch, "packages")], {
    cwd: ROOT,
    env: process.env,
  });
  expect(packed.code, packed.stderr).toBe(0);
  tarball = packed.stdout.trim().split("\n").at(-1)!;
  execFileSync("mkdir", ["-p", project]);
  writeFileSync(path.join(project, "package.json"), JSON.stringify({ name: "empty-app", private: true, type: "module" }));
  // An empty npm cache and --offline: whatever the install needs has to be in the tarball.
  install = await runProcess(
    "npm",
    ["install", "--offline", "--cache", path.join(scratch, "npm-cache"), "--no-audit", "--no-fund", tarball],
    { cwd: project, env: hostEnv },
  );
}, 120_000);

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe.runIf(existsSync(HOST_NODE))("npm run pack: the client and the CLI as one installable package", () => {
  it("installs into an empty project on the machine's Node, offline and without a warning", () => {
    const major = Number(execFileSync(HOST_NODE, ["-p", "process.versions.node"], { encoding: "utf8" }).split(".")[0]);
    expect(major).toBeGreaterThanOrEqual(20);
    expect(path.basename(tarball)).toMatch(/^praxis-client-\d+\.\d+\.\d+\.tgz$/);
    expect(install.code, install.stderr).toBe(0);
    expect(install.stderr).toBe("");
  });

  it("imports by its package name and talks to the Worker", async () => {
    const { apiKey } = await unwrap(
      new Praxis({ baseUrl: url, apiKey: adminKey }).api.POST("/v1/tenants", { body: { name: "pack-test" } }),
    );
    writeFileSync(
      path.join(project, "use.mjs"),
      `import { Praxis, PraxisError } from "@praxis/client";
const agent = new Praxis({ baseUrl: process.env.PRAXIS_URL, apiKey: process.env.PRAXIS_API_KEY }).agent("packed-bot");
await agent.ensure("Packed bot");
const missing = await new Praxis({ baseUrl: process.env.PRAXIS_URL, apiKey: process.env.PRAXIS_API_KEY }).agent("no-such-bot").prompt({ query: "x" }).catch((e) => e);
console.log(JSON.stringify({ problem: missing instanceof PraxisError ? missing.status : String(missing) }));
`,
    );
    const run = await runProcess(HOST_NODE, ["use.mjs"], { cwd: project, env: { ...hostEnv, PRAXIS_URL: url, PRAXIS_API_KEY: apiKey } });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toBe("");
    expect(JSON.parse(run.stdout)).toEqual({ problem: 404 });
    const agents = await unwrap(new Praxis({ baseUrl: url, apiKey }).api.GET("/v1/agents"));
    expect(agents.items.map((a) => a.agentId)).toContain("packed-bot");
  });

  it("`npx praxis` runs the CLI on the machine's Node with nothing on stderr", async () => {
    const help = await runProcess("npx", ["praxis", "--help"], { cwd: project, env: hostEnv });
    expect(help.code, help.stderr).toBe(0);
    expect(help.stderr).toBe("");
    expect(help.stdout).toMatch(/^Usage: praxis /);
    expect(help.stdout).toContain("episode");

    const { apiKey } = await unwrap(new Praxis({ baseUrl: url, apiKey: adminKey }).api.POST("/v1/tenants", { body: { name: "pack-cli" } }));
    const created = await runProcess("npx", ["praxis", "agents", "create", "cli-packed-bot", "--url", url, "--key", apiKey], {
      cwd: project,
      env: hostEnv,
    });
    expect(created.code, created.stderr).toBe(0);
    expect(created.stderr).toBe("");
    const agents = await unwrap(new Praxis({ baseUrl: url, apiKey }).api.GET("/v1/agents"));
    expect(agents.items.map((a) => a.agentId)).toEqual(["cli-packed-bot"]);
  });

  it("its types check under NodeNext resolution", async () => {
    writeFileSync(
      path.join(project, "typed.ts"),
      `import { Praxis, type Schemas } from "@praxis/client";
const praxis = new Praxis({ baseUrl: "http://localhost:8787", apiKey: "pxk_x" });
const agent: Schemas["Agent"] | undefined = undefined;
export const calls = [praxis.agent("a").prompt({ query: "q" }), agent];
// @ts-expect-error: a prompt takes no unknown options
praxis.agent("a").prompt({ nonsense: 1 });
`,
    );
    writeFileSync(
      path.join(project, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          module: "NodeNext",
          moduleResolution: "NodeNext",
          target: "ES2022",
          lib: ["ES2022", "DOM", "DOM.Iterable"],
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          types: [],
        },
        files: ["typed.ts"],
      }),
    );
    const tsc = await runProcess(process.execPath, [path.join(ROOT, "node_modules/typescript/bin/tsc"), "-p", project], {
      cwd: project,
      env: process.env,
    });
    expect(tsc.code, tsc.stdout + tsc.stderr).toBe(0);
  }, 60_000);

  it("bundles for a browser and for Workers with no Node module in it", async () => {
    const { build } = await loadEsbuild();
    for (const conditions of [["browser"], ["workerd", "worker", "browser"]]) {
      const out = await build({
        stdin: {
          contents: 'import { Praxis } from "@praxis/client"; export const p = new Praxis({ baseUrl: "/", apiKey: "k" });',
          resolveDir: project,
        },
        bundle: true,
        platform: "browser",
        conditions,
        format: "esm",
        write: false,
        logLevel: "silent",
      });
      expect(out.errors).toEqual([]);
      expect(out.outputFiles[0]!.text).not.toMatch(/from "node:|require\("node:/);
    }
  });
});
