import { createExecutionContext, env } from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { UnitInput, UnitResult } from "../../src/core/practice/units";
import { createLogger } from "../../src/core/logger";
import { runUnit } from "../../src/practice/run-unit";
import { tenantWebhookSecret } from "../../src/platform/records/tenant-secrets";
import { call, expectProblem, newAgent, newTenant } from "../helpers";

const LLM = { LLM_BASE_URL: "http://llm.test/v1", LLM_MODEL: "test-model", LLM_API_KEY: "sk-test" };
const prodEnv = { ...env, ...LLM, PRAXIS_ENV: "production" } as typeof env;
const unsetEnv = { ...env, PRAXIS_ENV: undefined } as typeof env;

/** A request through the Worker with another environment (the test one has development rules). */
async function callIn(e: typeof env, method: string, path: string, key: string, body: unknown) {
  const { default: worker } = await import("../../src/index");
  const res = await worker.fetch(
    new Request(`http://praxis.test${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    }),
    e,
    createExecutionContext(),
  );
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
}

const PRIVATE = ["http://agent.example.com/v", "https://127.0.0.1/v", "https://10.0.0.8/v", "https://[fd00::1]/v", "https://intranet/v"];
const METADATA = ["http://169.254.169.254/latest/meta-data/", "http://[fd00:ec2::254]/", "http://metadata.google.internal/"];

describe("every URL Praxis will call is checked when stored", () => {
  let t: Awaited<ReturnType<typeof newTenant>>;
  let agent: string;

  beforeAll(async () => {
    t = await newTenant();
    agent = await newAgent(t.apiKey);
  });

  it("a dataset's webhook verifier: the metadata address is 422 in every environment, nothing stored", async () => {
    for (const url of METADATA) {
      const r = await call("POST", "/v1/datasets", { key: t.apiKey, body: { name: "d", verifier: { kind: "webhook", url } } });
      expectProblem(r, 422, "unprocessable");
      expect(r.body.errors).toEqual([{ path: "verifier.url", message: expect.stringMatching(/metadata/) }]);
      const fromEpisodes = await call("POST", `/v1/agents/${agent}/datasets/from-episodes`, {
        key: t.apiKey,
        body: { name: "d", verifier: { kind: "webhook", url } },
      });
      expectProblem(fromEpisodes, 422, "unprocessable");
      expect(fromEpisodes.body.errors[0].path).toBe("verifier.url");
    }
    expect((await call("GET", "/v1/datasets", { key: t.apiKey })).body.items).toHaveLength(0);
  });

  it("a dataset's webhook verifier under production rules (also when PRAXIS_ENV is unset): http and private hosts are 422", async () => {
    for (const e of [prodEnv, unsetEnv]) {
      for (const url of PRIVATE) {
        const r = await callIn(e, "POST", "/v1/datasets", t.apiKey, { name: "d", verifier: { kind: "webhook", url } });
        expect(r.status, url).toBe(422);
        expect(r.headers.get("content-type")).toContain("application/problem+json");
        expect(r.body.errors[0].path).toBe("verifier.url");
      }
    }
    const ok = await callIn(prodEnv, "POST", "/v1/datasets", t.apiKey, {
      name: "ok",
      verifier: { kind: "webhook", url: "https://verify.example.com/v" },
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    // Development rules (a local .dev.vars) allow a developer's own machine.
    const local = await call("POST", "/v1/datasets", {
      key: t.apiKey,
      body: { name: "local", verifier: { kind: "webhook", url: "http://127.0.0.1:9999/v" } },
    });
    expect(local.status).toBe(201);
  });

  it("an agent's remedial-practice policy and verifier URLs: 422 naming the field, config unchanged", async () => {
    const before = await call("GET", `/v1/agents/${agent}/config`, { key: t.apiKey });
    const patch = (url: string, where: "policy" | "verifier") => ({
      remedial: {
        enabled: true,
        run: where === "policy" ? { policy: { kind: "webhook", url } } : { policy: { kind: "llm" }, verifier: { kind: "webhook", url } },
      },
    });
    for (const url of METADATA) {
      const r = await call("PATCH", `/v1/agents/${agent}/config`, { key: t.apiKey, body: patch(url, "policy") });
      expectProblem(r, 422, "unprocessable");
      expect(r.body.errors[0].path).toBe("remedial.run.policy.url");
    }
    for (const url of PRIVATE) {
      for (const where of ["policy", "verifier"] as const) {
        const r = await callIn(prodEnv, "PATCH", `/v1/agents/${agent}/config`, t.apiKey, patch(url, where));
        expect(r.status, `${where} ${url}`).toBe(422);
        expect(r.body.errors[0].path).toBe(`remedial.run.${where}.url`);
      }
    }
    expect((await call("GET", `/v1/agents/${agent}/config`, { key: t.apiKey })).body).toEqual(before.body);
    const ok = await callIn(prodEnv, "PATCH", `/v1/agents/${agent}/config`, t.apiKey, patch("https://agent.example.com/run", "policy"));
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.remedial.run.policy.url).toBe("https://agent.example.com/run");
  });
});

describe("…and again when called", () => {
  afterEach(() => vi.restoreAllMocks());

  const unit = (over: Partial<UnitInput>): UnitInput =>
    ({
      runId: "run_x",
      tenantId: "t_none",
      agentId: "a",
      stage: "rollout",
      rolloutId: "run_x.e0.s0.t0.r0",
      taskId: "t0",
      task: "2+2?",
      library: [],
      seed: 1,
      policy: { kind: "webhook", url: "https://10.0.0.8/run", timeoutMs: 5000 },
      ...over,
    }) as UnitInput;

  async function runIn(e: typeof env, input: UnitInput) {
    const reported: UnitResult[] = [];
    const host = {
      claim: async () => ({ status: "run" as const, input, lease: 1 }),
      report: async ({ result }: { key: string; result: UnitResult }) => {
        reported.push(result);
        return true;
      },
      release: async () => {},
      heartbeat: async () => true,
    };
    await runUnit(host, "k", e, createLogger({}, "error"), { attempts: 1 }, { rollout: "r", judge: "j" }, (tenantId) =>
      tenantWebhookSecret(e, tenantId),
    );
    return reported;
  }

  it("a stored URL the rules no longer allow is refused before any request, and not retried", async () => {
    const fetch = vi.spyOn(globalThis, "fetch");
    const rollout = await runIn(prodEnv, unit({}));
    const verify = await runIn(
      prodEnv,
      unit({
        stage: "verify",
        answer: "4",
        groundTruth: "4",
        verifier: { kind: "webhook", url: "http://169.254.169.254/", timeoutMs: 1000 },
      } as Partial<UnitInput>),
    );
    for (const r of [rollout, verify]) {
      expect(r).toHaveLength(1);
      expect(r[0]).toMatchObject({ error: expect.stringMatching(/not called/) });
    }
    expect(fetch).not.toHaveBeenCalled();
  });

  it("a URL the rules allow is called (the same unit under development rules)", async () => {
    const t = await newTenant();
    expect((await call("POST", "/v1/webhook-secret", { key: t.apiKey })).status).toBe(201);
    const fetch = vi.spyOn(globalThis, "fetch").mockResolvedValue(Response.json({ answer: "4" }));
    const devEnv = { ...env, ...LLM } as typeof env;
    const r = await runIn(
      devEnv,
      unit({ tenantId: t.tenantId, policy: { kind: "webhook", url: "http://127.0.0.1:9/run", timeoutMs: 5000 } }),
    );
    expect(r).toEqual([{ data: { answer: "4", trajectory: null } }]);
    expect(fetch).toHaveBeenCalledTimes(1);
    expect(String(fetch.mock.calls[0]![0])).toBe("http://127.0.0.1:9/run");
  });
});
