import { createScheduledController, env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { CRON_DAILY, CRON_FREQUENT, enqueueSweeps, runScheduled } from "../../src/cron";
import type { Env } from "../../src/env";
import type { JobMessage } from "../../src/jobs/messages";
import { newAgent, newTenant } from "../helpers";

describe("scheduled handler", () => {
  it("the frequent cron enqueues a sweep per agent", async () => {
    const t = await newTenant();
    await newAgent(t.apiKey);
    await newAgent(t.apiKey);
    const total = (await env.DB.prepare("SELECT count(*) AS n FROM agents").first<{ n: number }>())!.n;
    const result = await runScheduled(createScheduledController({ cron: CRON_FREQUENT, scheduledTime: Date.now() }), env);
    expect(result.sweepsEnqueued).toBe(total);
  });

  it("pages on (tenant, agent), so same-named agents of other tenants at a page edge are all swept", async () => {
    const names = ["shared-a", "shared-b", "shared-c"];
    const tenants = [await newTenant(), await newTenant(), await newTenant()];
    for (const t of tenants) for (const n of names) await newAgent(t.apiKey, n);
    const sent: JobMessage[] = [];
    // The real queue still receives every batch; the wrapper only records what went out.
    const jobs: Env["JOBS"] = Object.create(env.JOBS, {
      sendBatch: {
        value: async (batch: Iterable<MessageSendRequest<JobMessage>>, opts?: QueueSendBatchOptions) => {
          const list = [...batch];
          sent.push(...list.map((m) => m.body));
          return env.JOBS.sendBatch(list, opts);
        },
      },
    });
    const recording: Env = { ...env, JOBS: jobs };
    const all = await env.DB.prepare("SELECT tenant_id, agent_id FROM agents").all<{ tenant_id: string; agent_id: string }>();
    for (const pageSize of [2, 3, 4]) {
      sent.length = 0;
      expect(await enqueueSweeps(recording, Date.now(), pageSize)).toBe(all.results.length);
      const swept = new Set(sent.map((m) => (m.type === "agent.sweep" ? `${m.tenantId}/${m.agentId}` : "")));
      expect(swept.size).toBe(all.results.length);
      for (const t of tenants) for (const n of names) expect(swept, `${pageSize}: ${n}`).toContain(`${t.tenantId}/${n}`);
    }
  });

  it("the daily cron prunes audit entries past retention and keeps recent ones", async () => {
    await env.DB.prepare("INSERT INTO audit_log (actor, action, at) VALUES ('test', 'old', ?), ('test', 'new', ?)")
      .bind(Date.now() - 400 * 86_400_000, Date.now())
      .run();
    const result = await runScheduled(createScheduledController({ cron: CRON_DAILY, scheduledTime: Date.now() }), env);
    expect(result.auditPruned).toBeGreaterThanOrEqual(1);
    const left = await env.DB.prepare("SELECT action FROM audit_log WHERE actor = 'test'").all<{ action: string }>();
    expect(left.results.map((r) => r.action)).toEqual(["new"]);
  });

  it("an unknown cron expression does nothing", async () => {
    expect(await runScheduled(createScheduledController({ cron: "1 2 3 4 5", scheduledTime: Date.now() }), env)).toEqual({});
  });
});
