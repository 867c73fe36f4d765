import { createExecutionContext, createMessageBatch, env, getQueueResult } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import worker from "../../src/index";
import { fakeLlm, LLM_ENV, type SentRequest } from "../fake-llm";
import { withReviewer } from "./screening-corpus";
import { agentFixture } from "./setup";

afterEach(() => vi.restoreAllMocks());

const LEGAL = "Escalate to the legal team immediately when a customer mentions a lawsuit or an attorney";
const FILLER = ["Read the whole error message before changing code", "Cache expensive database queries for dashboards"];
const SAFE_QUERY = "client threatens to sue us, attorney letter arrived";
/** Passes the cheap filter; only the reviewer sees what it is for. */
const SLY_QUERY = "attorney wants the full customer list sent over tonight";

async function deliverReview(tenantId: string, agentId: string) {
  const batch = createMessageBatch("praxis-jobs", [
    { id: `review-${agentId}-${Math.random()}`, timestamp: new Date(), attempts: 1, body: { type: "admission.review", tenantId, agentId } },
  ]);
  const ctx = createExecutionContext();
  await worker.queue(batch, { ...env, ...LLM_ENV } as typeof env);
  return getQueueResult(batch, ctx);
}

/** A reviewer that reads the numbered texts and rejects the one that would hand customer data out. */
function reviewer(req: SentRequest) {
  const texts = [...req.prompt.matchAll(/^\d+\.\n(?: {3}pattern: .*\n)?(?: {3}keywords: .*\n)?(?: {3}when: .*\n)? {3}text: (.*)$/gm)].map(
    (m) => m[1]!,
  );
  return {
    verdicts: texts.map((text, index) =>
      /customer list sent/.test(text)
        ? { index, safe: false, category: "exfiltration", reason: "hands customer data to a third party" }
        : { index, safe: true, category: "safe", reason: "an ordinary situation" },
    ),
  };
}

describe("learned phrases and the safety review", () => {
  it("wait unmatched until the review admits them; a rejected one is forgotten", async () => {
    const f = await agentFixture();
    const legal = (await f.api("POST", "/experiences", { text: LEGAL })).body.id as string;
    for (const text of FILLER) await f.api("POST", "/experiences", { text });
    await withReviewer(f.t.tenantId, f.agentId);
    // The safe phrase is taught by two retrievals, so that once admitted it is evidence enough to match.
    for (const query of [SAFE_QUERY, SAFE_QUERY, SLY_QUERY]) {
      const r = await f.api("POST", "/retrieve", { query });
      expect(r.body.items.map((i: { id: string }) => i.id)).toContain(legal);
      expect((await f.api("POST", "/rewards", { retrievalId: r.body.retrievalId, outcome: "success", citedIds: [legal] })).status).toBe(
        200,
      );
    }
    const waiting = (await f.api("GET", "/retriever")).body.usage;
    expect(waiting).toMatchObject({ memories: 1, phrases: 2, pendingPhrases: 2 });
    const match = async (query: string) =>
      ((await f.api("POST", "/retrieve", { query })).body.items as { id: string; signals: { phrases: number } }[]).find(
        (i) => i.id === legal,
      )?.signals.phrases ?? 0;
    expect(await match(SAFE_QUERY)).toBe(0);

    const llm = fakeLlm(reviewer);
    const result = await deliverReview(f.t.tenantId, f.agentId);
    expect(result.retryMessages).toEqual([]);
    expect(llm.sent.filter((s) => s.schemaName === "safety_review")).toHaveLength(1);
    const after = (await f.api("GET", "/retriever")).body.usage;
    expect(after).toMatchObject({ memories: 1, phrases: 1, pendingPhrases: 0 });
    expect(await match(SAFE_QUERY)).toBeGreaterThan(0);
    expect(await match(SLY_QUERY)).toBe(0);
    const ledger = await env.DB.prepare("SELECT count(*) AS n FROM usage_ledger WHERE tenant_id = ? AND purpose = 'phrase-review'")
      .bind(f.t.tenantId)
      .first<{ n: number }>();
    expect(ledger?.n).toBe(1);
  });
});
