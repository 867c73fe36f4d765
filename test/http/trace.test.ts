import { createExecutionContext, createMessageBatch, env, getQueueResult } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import worker from "../../src/index";
import { call, newTenant } from "../helpers";
import { parseTraceparent } from "../../src/core/trace-context";
import { withSpan } from "../../src/trace";
import { createLlm } from "../../src/llm";
import { captureJobs, receiver, subscribed } from "../events/harness";

afterEach(() => vi.restoreAllMocks());

const CALLER = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

describe("W3C trace context", () => {
  it("a request joins the caller's trace as a new span and answers with it; without one (or with a bad one) a trace starts", async () => {
    const t = await newTenant();
    const joined = parseTraceparent(
      (await call("GET", "/v1/keys/current", { key: t.apiKey, headers: { traceparent: CALLER } })).headers.get("traceparent"),
    );
    expect(joined).toMatchObject({ traceId: "4bf92f3577b34da6a3ce929d0e0e4736", flags: "01" });
    expect(joined!.spanId).not.toBe("00f067aa0ba902b7");

    const odd: Record<string, string>[] = [
      {},
      { traceparent: "00-00000000000000000000000000000000-00f067aa0ba902b7-01" },
      { traceparent: "garbage" },
    ];
    for (const headers of odd) {
      const r = await call("GET", "/v1/nope", { key: t.apiKey, headers });
      const started = parseTraceparent(r.headers.get("traceparent"));
      expect(started, JSON.stringify(headers)).not.toBeNull();
      expect(started!.traceId).not.toBe("4bf92f3577b34da6a3ce929d0e0e4736");
    }
  });

  it("LLM calls carry the span's traceparent", async () => {
    const spy = vi.spyOn(globalThis, "fetch").mockImplementation(async () =>
      Response.json({
        id: "x",
        object: "chat.completion",
        created: 0,
        model: "m",
        choices: [{ index: 0, message: { role: "assistant", content: "fine", refusal: null }, finish_reason: "stop" }],
        usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      }),
    );
    const t = await newTenant();
    const llm = createLlm({ ...env, LLM_BASE_URL: "https://llm.test/v1", LLM_MODEL: "m" }, { tenantId: t.tenantId, agentId: "bot" });
    await withSpan(CALLER, () => llm.chat({ role: "summarizer", purpose: "summary", messages: [{ role: "user", content: "hi" }] }));
    const [input, init] = spy.mock.calls[0]!;
    const headers = input instanceof Request ? input.headers : new Headers(init?.headers);
    expect(parseTraceparent(headers.get("traceparent"))).toMatchObject({ traceId: "4bf92f3577b34da6a3ce929d0e0e4736" });
  });

  it("queued messages carry the trace into their jobs, and on to an event's receiver", async () => {
    const t = await newTenant();
    const q = captureJobs();
    let secret = "";
    const got = receiver(() => secret);
    ({ secret } = await subscribed(t, ["run.completed"]));
    const event = { id: "ev-trace", type: "run.completed", tenantId: t.tenantId, occurredAt: 1, data: {} };
    const batch = createMessageBatch("praxis-jobs", [
      {
        id: "m1",
        timestamp: new Date(),
        attempts: 1,
        body: { type: "event.emit", tenantId: t.tenantId, events: [event], traceparent: CALLER },
      },
    ]);
    await worker.queue(batch, env);
    await getQueueResult(batch, createExecutionContext());
    expect(q.queued.map((m) => parseTraceparent(m.body.traceparent)?.traceId)).toEqual(["4bf92f3577b34da6a3ce929d0e0e4736"]);
    await q.pump();
    expect(got).toHaveLength(1);
    expect(parseTraceparent(got[0]!.headers.get("traceparent"))).toMatchObject({ traceId: "4bf92f3577b34da6a3ce929d0e0e4736" });
  });
});
