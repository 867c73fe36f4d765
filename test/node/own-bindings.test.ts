import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { unstable_getMiniflareWorkerOptions, unstable_readConfig } from "wrangler";
import { devServer } from "../../bench/lib/dev-server.mjs";
import { projectCopies } from "./project-copy";

/** What a developer following the README keeps beside the project: a real LLM and embedder. */
const DEVELOPER_VARS = 'LLM_BASE_URL="http://127.0.0.1:9/v1"\nLLM_MODEL="developer-model"\nLLM_API_KEY="sk-developer"\nEMBEDDER="openai"\n';

const copies = projectCopies();
afterAll(() => copies.removeAll());

/** A project copy with the developer's variables in both files wrangler reads by itself. */
function developerProject(): string {
  const dir = copies.make();
  writeFileSync(join(dir, ".dev.vars"), DEVELOPER_VARS);
  writeFileSync(join(dir, ".env"), DEVELOPER_VARS);
  return dir;
}

/** The variables a Worker gets from `configPath`, resolved as @cloudflare/vitest-plugin resolves its `wrangler.configPath`. */
function poolVariables(configPath: string): Record<string, unknown> {
  const config = unstable_readConfig({ config: configPath });
  return (unstable_getMiniflareWorkerOptions(config).workerOptions.bindings ?? {}) as Record<string, unknown>;
}

describe("tests use their own bindings, never the developer's .dev.vars or .env", () => {
  it("the Workers pool's configuration (test/wrangler.toml) resolves without them", () => {
    const dir = developerProject();
    // Beside the project's own wrangler.toml, wrangler does read them: the files are where it looks.
    expect(poolVariables(join(dir, "wrangler.toml"))).toMatchObject({ LLM_MODEL: "developer-model", EMBEDDER: "openai" });
    const vars = poolVariables(join(dir, "test", "wrangler.toml"));
    expect(vars).toMatchObject({ PRAXIS_ENV: "test", EMBEDDER: "hash" });
    expect(Object.keys(vars).filter((k) => k.startsWith("LLM_"))).toEqual([]);
  });

  it("wrangler dev as the Node suite and the benches start it serves no LLM and the default embedder", async () => {
    const server = devServer({ tmpPrefix: "praxis-own-bindings-test-", project: developerProject() });
    const adminKey = `pxadmin_${randomBytes(18).toString("base64url")}`;
    try {
      const { base } = await server.start({
        firstPort: 9100 + Math.floor(Math.random() * 800),
        vars: { PRAXIS_ADMIN_KEY: adminKey, LOG_LEVEL: "warn" },
      });
      const send = async (method: string, path: string, key: string, body?: unknown) => {
        const res = await fetch(`${base}${path}`, {
          method,
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        return { status: res.status, body: (await res.json()) as Record<string, any> };
      };
      const tenant = await send("POST", "/v1/tenants", adminKey, { name: `own-bindings-${Date.now().toString(36)}` });
      expect(tenant.status).toBe(201);
      const key = tenant.body.apiKey as string;
      expect((await send("PUT", "/v1/agents/own-bindings", key, {})).status).toBe(201);
      // The developer's EMBEDDER=openai would fail this write against an endpoint that is not there.
      const lesson = await send("POST", "/v1/agents/own-bindings/experiences", key, { text: "Check the lockfile before reinstalling" });
      expect(lesson.status, JSON.stringify(lesson.body)).toBe(201);
      const ds = await send("POST", "/v1/datasets", key, {
        name: "sums",
        holdoutFraction: 0,
        tasks: [{ id: "t1", task: "2 + 2", groundTruth: "4", split: "train" }],
      });
      expect(ds.status, JSON.stringify(ds.body)).toBe(201);
      const run = await send("POST", "/v1/agents/own-bindings/practice-runs", key, {
        datasetId: ds.body.datasetId,
        policy: { kind: "llm" },
      });
      expect(run).toMatchObject({ status: 503, body: { type: expect.stringMatching(/llm-not-configured$/) } });
    } finally {
      await server.cleanup();
    }
  }, 150_000);
});
