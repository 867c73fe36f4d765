import type { Env } from "../../env";
import { variables } from "../../config";
import type { MemoryKind } from "../../core/memory-types";
import type { Deps } from "../deps";
import { FLUSH_AT_ITEMS, RetrievalCounts, type Served } from "../../core/retrieval-counts";
import { isRetrievalToken } from "../../core/retrieval-token";
import { memoryName } from "../objects/memory-name";
import { sharedRef } from "../../core/shared-lessons";
import { memoryNamed } from "../objects/agent-access";
import { DomainError } from "../../core/errors";

/**
 * The isolate's use counters of token retrievals (src/core/retrieval-counts.ts), applied to each
 * agent's object in batches off the answer's path. A batch is sent once its oldest count is
 * RETRIEVAL_COUNTS_FLUSH_MS old (default 2 s) or it holds FLUSH_AT_ITEMS counters, so a crashed
 * isolate loses at most that window of counts. The wait rides on the `waitUntil` of the read that
 * opened the batch; if that read's context dies first (a cancelled request), the next read the
 * isolate serves finds the batch overdue and sends it.
 */
/** How late a batch may be before another read takes its sending over. */
const GRACE_MS = 1000;

const counts = new RetrievalCounts();
/** Agents whose batch has a sender waiting, with the time it sends at. */
const scheduled = new Map<string, number>();

export const flushWindowMs = (env: Env) => variables(env).RETRIEVAL_COUNTS_FLUSH_MS;

/** What a retrieve answer served: every item was chosen for the query (a shared lesson counts under its sharedRef). */
export const servedByRetrieve = (
  answer: { items: readonly { id: string; kind: MemoryKind; libraryId?: string | undefined }[] },
  readOnly: boolean,
): Served => ({
  items: answer.items.map((i) => (i.libraryId ? { id: sharedRef(i.libraryId, i.id), kind: i.kind } : i)),
  readOnly,
});

/**
 * What a prompt block served. A full-library block shows every lesson without choosing it for the
 * query, so only its cases and the lessons it explored count as used, as in the object's record of
 * it (prompt.ts `citeOnly`).
 */
export const servedByPrompt = (
  answer: { mode: "full-library" | "ranked"; experienceIds: readonly string[]; exploredIds: readonly string[]; caseIds: readonly string[] },
  readOnly: boolean,
): Served => ({
  items: [
    ...(answer.mode === "ranked" ? answer.experienceIds : answer.exploredIds).map((id) => ({ id, kind: "experience" as const })),
    ...answer.caseIds.map((id) => ({ id, kind: "case" as const })),
  ],
  readOnly,
});

/**
 * Counts a read once it is answered. Only a token retrieval counts here: a `ret_…` id was recorded
 * by the object, which counted it then.
 */
export function countRetrieval(
  deps: Pick<Deps, "env" | "waitUntil">,
  tenantId: string,
  agentId: string,
  retrievalId: string,
  served: Served,
  now = Date.now(),
): void {
  if (!isRetrievalToken(retrievalId)) return;
  const agent = memoryName(tenantId, agentId);
  const window = flushWindowMs(deps.env);
  const held = counts.add(agent, served, now);
  if (held >= FLUSH_AT_ITEMS || window === 0) deps.waitUntil(send(deps.env, agent));
  else if (!scheduled.has(agent)) {
    const at = (counts.since(agent) ?? now) + window;
    scheduled.set(agent, at);
    deps.waitUntil(sleep(at - now).then(() => send(deps.env, agent)));
  }
  // A batch this late lost its sender (the read that waited for it ended first): this read sends it.
  for (const late of counts.due(now, window + GRACE_MS)) deps.waitUntil(send(deps.env, late));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

/**
 * Sends the agent's pending batches. Each call makes its stub in the context that sends (a stub
 * belongs to the request that made it). A batch that fails to arrive goes back, with its id, to be
 * sent again; one the object refuses for good (a deleted agent) is dropped.
 */
async function send(env: Env, agent: string): Promise<void> {
  scheduled.delete(agent);
  const batches = counts.take(agent);
  if (!batches.length) return;
  const memory = memoryNamed(env, agent);
  for (const [i, batch] of batches.entries()) {
    try {
      await memory.applyRetrievalCounts(batch);
    } catch (err) {
      if (err instanceof DomainError && !err.retryable) continue;
      for (const left of batches.slice(i)) counts.putBack(agent, left, Date.now());
      return;
    }
  }
}

/** Sends every agent's pending counters now and waits for them (bench and tests read counters after). */
export async function flushRetrievalCounts(env: Env): Promise<void> {
  await Promise.all(counts.held().map((agent) => send(env, agent)));
}
