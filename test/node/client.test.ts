import { beforeAll, describe, expect, inject, it } from "vitest";
import { Episode, Praxis, PraxisConnectionError, PraxisError, unwrap } from "../../client/src/index";

const { url, adminKey } = inject("localWorker");
let apiKey = "";

/** Records every request the client sends, so a test can see retries and their headers. */
function recordingFetch(behaviour: (request: Request, n: number) => Promise<Response | undefined> = async () => undefined) {
  const seen: Request[] = [];
  const fetcher = async (request: Request) => {
    seen.push(request.clone());
    return (await behaviour(request, seen.length)) ?? fetch(request);
  };
  return { seen, fetcher };
}

const praxisWith = (fetcher?: (r: Request) => Promise<Response>) =>
  new Praxis({ baseUrl: url, apiKey, fetch: fetcher, retry: { baseDelayMs: 0 } });

beforeAll(async () => {
  const operator = new Praxis({ baseUrl: url, apiKey: adminKey });
  apiKey = (await unwrap(operator.api.POST("/v1/tenants", { body: { name: `client-test-${Date.now().toString(36)}` } }))).apiKey;
});

describe("TypeScript client against the local Worker", () => {
  it("gets the prompt block with the agent's lessons", async () => {
    const agent = praxisWith().agent("prompt-bot");
    await agent.ensure("Prompt bot");
    await agent.addExperience("When an API answers 429, wait for Retry-After, then retry");
    const block = await agent.prompt({ query: "the payments API returned 429", budgetTokens: 800 });
    expect(block.prompt).toContain("[G0]. When an API answers 429, wait for Retry-After, then retry");
    expect(block.retrievalId).toEqual(expect.any(String));
  });

  it("withEpisode ends the episode as success when the work returns", async () => {
    const agent = praxisWith().agent("episode-bot");
    await agent.ensure();
    let id = "";
    const value = await agent.withEpisode("Summarise the ticket", async (ep) => {
      id = ep.id;
      const block = await ep.prompt({ budgetTokens: 500 });
      await ep.attempt({ description: `answered with ${block.estimatedTokens} tokens of lessons`, ok: true });
      return "done";
    });
    expect(value).toBe("done");
    const ep = await unwrap(agent.praxis.api.GET("/v1/agents/{agentId}/episodes/{id}", { params: { path: { agentId: agent.id, id } } }));
    expect(ep).toMatchObject({ status: "ended", outcome: "success", answer: "done", attempts: [expect.objectContaining({ ok: true })] });
  });

  it("withEpisode sends what ep.cite named as citations, so only that lesson learns; a non-string result is stored as JSON", async () => {
    const agent = praxisWith().agent("cite-bot");
    await agent.ensure();
    const used = await agent.addExperience("Quote the invoice number in every refund reply");
    const other = await agent.addExperience("Escalate chargebacks to the finance team");
    let id = "";
    await agent.withEpisode("Reply to a refund request", async (ep) => {
      id = ep.id;
      await ep.prompt({ budgetTokens: 500 });
      ep.cite("[G0]");
      return { reply: "Refund issued for invoice 1182" };
    });
    const ep = await unwrap(agent.praxis.api.GET("/v1/agents/{agentId}/episodes/{id}", { params: { path: { agentId: agent.id, id } } }));
    expect(ep.answer).toBe('{"reply":"Refund issued for invoice 1182"}');
    expect(ep.result?.rewarded).toEqual([{ id: used.id, q: 0.55 }]);
    const q = await unwrap(
      agent.praxis.api.GET("/v1/agents/{agentId}/experiences/{id}", { params: { path: { agentId: agent.id, id: other.id } } }),
    );
    expect(q.q).toBe(0.5);
  });

  it("withEpisode keeps an outcome the work set itself", async () => {
    const agent = praxisWith().agent("episode-bot");
    let id = "";
    await agent.withEpisode("Half-done task", async (ep) => {
      id = ep.id;
      await ep.end({ outcome: "partial", score: 0.5 });
    });
    const ep = await unwrap(agent.praxis.api.GET("/v1/agents/{agentId}/episodes/{id}", { params: { path: { agentId: agent.id, id } } }));
    expect(ep).toMatchObject({ outcome: "partial", score: 0.5 });
  });

  it("withEpisode ends the episode abandoned when the work throws: no attempt, no Q change, no case; the error is rethrown", async () => {
    const agent = praxisWith().agent("abandon-bot");
    await agent.ensure();
    const lesson = await agent.addExperience("Check the model name before calling the API");
    const boom = new Error("AI_APICallError: Not Found");
    let id = "";
    await expect(
      agent.withEpisode("Summarise the release notes", async (ep) => {
        id = ep.id;
        await ep.prompt({ budgetTokens: 500 });
        ep.cite("[G0]");
        throw boom;
      }),
    ).rejects.toBe(boom);
    const path = { agentId: agent.id };
    const ep = await unwrap(agent.praxis.api.GET("/v1/agents/{agentId}/episodes/{id}", { params: { path: { ...path, id } } }));
    expect(ep).toMatchObject({
      status: "ended",
      outcome: "abandoned",
      attempts: [],
      result: { reward: 0, rewarded: [], caseId: null, extraction: "not-needed", jobId: null },
    });
    expect(
      (await unwrap(agent.praxis.api.GET("/v1/agents/{agentId}/experiences/{id}", { params: { path: { ...path, id: lesson.id } } }))).q,
    ).toBe(0.5);
    expect((await unwrap(agent.praxis.api.GET("/v1/agents/{agentId}/cases", { params: { path } }))).items).toEqual([]);
    const next = await agent.prompt({ query: "Summarise the release notes", budgetTokens: 800 });
    expect(next.prompt).not.toContain("Not Found");
  });

  it("a failure the work reports itself is a task failure: the cited lesson loses Q and a case is kept", async () => {
    const agent = praxisWith().agent("failure-bot");
    await agent.ensure();
    const lesson = await agent.addExperience("Answer refund questions from the policy page");
    let id = "";
    await agent.withEpisode("Answer the refund question", async (ep) => {
      id = ep.id;
      await ep.prompt({ budgetTokens: 500 });
      ep.cite("[G0]");
      await ep.end({ outcome: "failure", answer: "Refunds take 90 days" });
    });
    const ep = await unwrap(agent.praxis.api.GET("/v1/agents/{agentId}/episodes/{id}", { params: { path: { agentId: agent.id, id } } }));
    expect(ep).toMatchObject({
      outcome: "failure",
      result: { reward: -1, rewarded: [{ id: lesson.id, q: 0.35 }], caseId: expect.stringMatching(/^case_/) },
    });
  });

  it("has one method per operation, named by its operationId, returning the data", async () => {
    const { ops } = praxisWith();
    await ops.upsertAgent({ params: { path: { agentId: "ops-bot" } }, body: { displayName: "Ops bot" } });
    const added = await ops.addExperience({
      params: { path: { agentId: "ops-bot" } },
      body: { text: "Page the on-call engineer when checkout errors exceed 2%" },
    });
    const found = await ops.retrieve({ params: { path: { agentId: "ops-bot" } }, body: { query: "checkout errors are above 2 percent" } });
    expect(found.items.map((i) => i.id)).toEqual([added.id]);
    const reward = await ops.reportReward({
      params: { path: { agentId: "ops-bot" } },
      body: { retrievalId: found.retrievalId, outcome: "success" },
    });
    expect(reward.updated).toEqual([expect.objectContaining({ id: added.id, q: 0.55 })]);
    expect((await ops.listAgents()).items.map((a) => a.agentId)).toContain("ops-bot");
    await expect(ops.getAgent({ params: { path: { agentId: "nobody-here" } } })).rejects.toMatchObject({ status: 404, code: "not-found" });
  });

  it("turns problems into typed PraxisErrors", async () => {
    const praxis = praxisWith();
    const missing = await praxis
      .agent("nobody-here")
      .prompt({ query: "x", budgetTokens: 100 })
      .catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(PraxisError);
    expect(missing).toMatchObject({
      status: 404,
      type: "https://praxis.dev/problems/not-found",
      code: "not-found",
      title: expect.any(String),
    });
    expect((missing as PraxisError).requestId).toEqual(expect.any(String));

    const invalid = (await praxis
      .agent("episode-bot")
      .reward({ outcome: "success" })
      .catch((e: unknown) => e)) as PraxisError;
    expect(invalid).toBeInstanceOf(PraxisError);
    expect(invalid.status).toBe(400);
    expect(invalid.detail).toEqual(expect.any(String));

    const unauthorised = (await new Praxis({ baseUrl: url, apiKey: "pxk_not_a_key" })
      .agent("x")
      .prompt({ query: "x" })
      .catch((e: unknown) => e)) as PraxisError;
    expect(unauthorised.status).toBe(401);
    expect(String(unauthorised)).toMatch(/^401 unauthorized: .+ \(request /);
  });

  it("retries a write whose answer was lost with the same Idempotency-Key, and it is applied once", async () => {
    await praxisWith().agent("retry-bot").ensure();
    // The first attempt reaches the Worker (and is applied), then the connection drops.
    const { seen, fetcher } = recordingFetch(async (request, n) => {
      if (n !== 1) return undefined;
      await fetch(request);
      throw new TypeError("fetch failed: socket hang up");
    });
    const r = await praxisWith(fetcher).agent("retry-bot").addExperience("Retry once, with the same key");
    expect(seen).toHaveLength(2);
    const keys = seen.map((s) => s.headers.get("idempotency-key"));
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[1]).toBe(keys[0]);
    const list = await unwrap(praxisWith().api.GET("/v1/agents/{agentId}/experiences", { params: { path: { agentId: "retry-bot" } } }));
    expect(list.items.map((e) => e.id)).toEqual([r.id]);
    const versions = await unwrap(
      praxisWith().api.GET("/v1/agents/{agentId}/library/versions", { params: { path: { agentId: "retry-bot" } } }),
    );
    expect(versions.items).toHaveLength(1);
  });

  it("retries reads on 503 and gives up on writes that cannot be replayed", async () => {
    const flaky = recordingFetch(async (_request, n) => (n === 1 ? new Response("busy", { status: 503 }) : undefined));
    expect((await unwrap(praxisWith(flaky.fetcher).api.GET("/v1/agents"))).items).toEqual(expect.any(Array));
    expect(flaky.seen).toHaveLength(2);

    // An attempt has no Idempotency-Key: sending it twice could log it twice, so it is sent once.
    const agent = praxisWith().agent("retry-bot");
    const ep = await agent.startEpisode("one attempt only");
    const down = recordingFetch(async () => {
      throw new TypeError("fetch failed");
    });
    const err = await praxisWith(down.fetcher)
      .agent("retry-bot")
      .startEpisode("x")
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(PraxisConnectionError);
    expect(down.seen).toHaveLength(3);
    const downAttempt = recordingFetch(async () => {
      throw new TypeError("fetch failed");
    });
    const episodeOnDown = new Episode(praxisWith(downAttempt.fetcher).agent("retry-bot"), ep.id, ep.task);
    await expect(episodeOnDown.attempt({ description: "x", ok: true })).rejects.toBeInstanceOf(PraxisConnectionError);
    expect(downAttempt.seen).toHaveLength(1);
    expect(downAttempt.seen[0]!.headers.has("idempotency-key")).toBe(false);
  });

  it("does not retry a 503 that names missing configuration", async () => {
    const problem = {
      type: "https://praxis.dev/problems/llm-not-configured",
      title: "LLM not configured",
      status: 503,
      detail: "Set LLM_BASE_URL and LLM_MODEL.",
    };
    const { seen, fetcher } = recordingFetch(async () =>
      Response.json(problem, { status: 503, headers: { "content-type": "application/problem+json" } }),
    );
    const err = await praxisWith(fetcher)
      .agent("any-bot")
      .prompt({ query: "x" })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 503, code: "llm-not-configured", detail: "Set LLM_BASE_URL and LLM_MODEL." });
    expect(seen).toHaveLength(1);
  });
});
