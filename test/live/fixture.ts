import { createExecutionContext, createMessageBatch, env, getQueueResult } from "cloudflare:test";
import worker from "../../src/index";
import { LLM_ENV } from "../fake-llm";
import { agentFixture } from "../memory/setup";
import { memoryName } from "../../src/platform/objects/memory-name";
import type { AgentMemory } from "../../durable-objects/agent-memory";

export const PY_TRACE = `Traceback (most recent call last):
  File "/app/main.py", line 42, in <module>
    main()
  File "/app/main.py", line 30, in main
    data = fetch_rates(session)
  File "/app/rates.py", line 17, in fetch_rates
    resp = session.get(URL, timeout=2)
  File "/usr/lib/python3.11/site-packages/requests/sessions.py", line 602, in get
    return self.request("GET", url, **kwargs)
requests.exceptions.ReadTimeout: HTTPSConnectionPool(host='api.rates.test', port=443): Read timed out. (read timeout=2)`;

export const LESSON = {
  pattern: "calling a slow external HTTP API",
  keywords: ["timeout", "retry", "http"],
  insight: "Use a generous read timeout and one retry when calling slow external APIs instead of a short timeout.",
  when: "a request to a third-party service hangs or times out; the vendor endpoint is sluggish",
};

/** The safety reviewer's answer for a batch of one lesson. */
export const SAFE = { verdicts: [{ index: 0, safe: true, category: "safe", reason: "ordinary engineering advice" }] };

/** An agent with one finished episode that failed once, then succeeded: the live-learning trigger. */
export async function mixedEpisode(f?: Awaited<ReturnType<typeof agentFixture>>, task = "Fetch today's exchange rates from the rates API") {
  f ??= await agentFixture();
  const ep = await f.api("POST", "/episodes", { task });
  const id = ep.body.episodeId as string;
  await f.api("POST", `/episodes/${id}/attempts`, { description: "GET /rates with a 2 second timeout", ok: false, error: PY_TRACE });
  await f.api("POST", `/episodes/${id}/attempts`, { description: "GET /rates with a 10 second timeout and one retry", ok: true });
  const end = await f.api("POST", `/episodes/${id}/end`, { outcome: "success", answer: "1 EUR = 1.09 USD" });
  return { ...f, episodeId: id, end };
}

/** Delivers one live-extraction message through the real queue consumer. */
export async function deliver(
  job: { tenantId: string; agentId: string; episodeId: string; jobId: string },
  opts: { llm?: boolean; attempts?: number; extraEnv?: Record<string, string> } = {},
) {
  const batch = createMessageBatch("praxis-jobs", [
    {
      id: `m-${job.jobId}-${opts.attempts ?? 1}`,
      timestamp: new Date(),
      attempts: opts.attempts ?? 1,
      body: { type: "live.extract", ...job },
    },
  ]);
  const ctx = createExecutionContext();
  const runEnv = { ...env, ...(opts.llm === false ? {} : LLM_ENV), ...opts.extraEnv };
  await worker.queue(batch, runEnv as typeof env);
  return getQueueResult(batch, ctx);
}

/** A lesson live learning just added: on probation, explored in prompts. */
export async function liveLesson(f: Awaited<ReturnType<typeof agentFixture>>, insight: string, keywords: string[] = [], pattern = "") {
  const stub = env.AGENT_MEMORY.getByName(memoryName(f.t.tenantId, f.agentId)) as DurableObjectStub<AgentMemory>;
  const r = await stub.applyLiveLesson({
    jobId: `job_${crypto.randomUUID()}`,
    episodeId: "ep_seed",
    candidate: { pattern, keywords, insight },
    decision: { operation: "ADD", reason: "new" },
    context: { shownIds: [], review: { safe: true, category: "safe", reason: "ordinary advice" } },
  });
  if (!r.ok || !r.value.experienceId) throw new Error(JSON.stringify(r));
  return r.value.experienceId;
}

/**
 * One episode of an agent that reads `/prompt`: its first try succeeds or fails as `outcome(shown)`
 * says for whether the prompt explored `lessonId`; a failed first try is followed by one that works.
 */
export async function promptEpisode(
  f: Awaited<ReturnType<typeof agentFixture>>,
  task: string,
  lessonId: string,
  firstTry: (shown: boolean) => boolean,
) {
  const episodeId = (await f.api("POST", "/episodes", { task })).body.episodeId as string;
  const block = await f.api("GET", `/prompt?query=${encodeURIComponent(task)}&episodeId=${episodeId}`);
  const shown = (block.body.exploredIds as string[]).includes(lessonId);
  const ok = firstTry(shown);
  await f.api("POST", `/episodes/${episodeId}/attempts`, { description: "first try", ok });
  if (!ok) await f.api("POST", `/episodes/${episodeId}/attempts`, { description: "second try, with what the failure showed", ok: true });
  await f.api("POST", `/episodes/${episodeId}/end`, { outcome: "success" });
  return { episodeId, block: block.body, shown };
}

/** Runs episodes in which the lesson helps (the first try succeeds exactly when it is shown) until it leaves probation. */
export async function graduate(f: Awaited<ReturnType<typeof agentFixture>>, lessonId: string, task: string) {
  for (let n = 0; n < 80; n++) {
    await promptEpisode(f, task, lessonId, (shown) => shown);
    if (!(await f.api("GET", `/experiences/${lessonId}`)).body.probation) return n + 1;
  }
  throw new Error(`${lessonId} did not graduate`);
}
