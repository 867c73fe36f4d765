import { createExecutionContext, createMessageBatch, env, getQueueResult } from "cloudflare:test";
import worker from "../../src/index";
import { LLM_ENV } from "../fake-llm";
import { agentFixture } from "../memory/setup";

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
