import { createScheduledController, env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { AgentMemory } from "../../durable-objects/agent-memory";
import { CRON_DAILY, CRON_FREQUENT, cronTasks, runScheduled } from "../../src/cron";
import { armLegacyAgents } from "../../src/use-cases/agent-upkeep";
import { runDueSchedules } from "../../src/use-cases/schedules";
import { systemPrincipal } from "../../src/core/principal";
import { unwrap } from "../../src/core/errors";
import type { Env } from "../../src/env";
import type { JobMessage } from "../../src/core/job-messages";
import { memoryName } from "../../src/platform/objects/memory-name";
import { call, newAgent, newTenant } from "../helpers";

/** The real queue still receives every message; the wrapper records what went out. */
function recordingJobs(): { env: Env; sent: JobMessage[] } {
  const sent: JobMessage[] = [];
  const jobs: Env["JOBS"] = Object.create(env.JOBS, {
    send: {
      value: async (body: JobMessage, opts?: QueueSendOptions) => {
        sent.push(body);
        return env.JOBS.send(body, opts);
      },
    },
    sendBatch: {
      value: async (batch: Iterable<MessageSendRequest<JobMessage>>, opts?: QueueSendBatchOptions) => {
        const list = [...batch];
        sent.push(...list.map((m) => m.body));
        return env.JOBS.sendBatch(list, opts);
      },
    },
  });
  return { env: { ...env, JOBS: jobs }, sent };
}

const cron = systemPrincipal("cron.legacy-agents");
const agentRefs = (sent: JobMessage[]) => sent.flatMap((m) => ("agentId" in m ? [`${m.tenantId}/${m.agentId}`] : []));

describe("scheduled handler", () => {
  it("the frequent cron calls no agent: an idle agent's object is not woken and sets no alarm", async () => {
    const t = await newTenant();
    const idle = await newAgent(t.apiKey);
    const used = await newAgent(t.apiKey);
    expect(
      (await call("POST", `/v1/agents/${used}/experiences`, { key: t.apiKey, body: { text: "Retry HTTP 429 with backoff" } })).status,
    ).toBe(201);
    const rec = recordingJobs();
    const result = await cronTasks[CRON_FREQUENT]!(rec.env, Date.now());
    expect(result.legacyAgentsArmed).toBe(0);
    expect(agentRefs(rec.sent)).not.toContain(`${t.tenantId}/${idle}`);
    expect(agentRefs(rec.sent)).not.toContain(`${t.tenantId}/${used}`);
    // The idle agent's object has nothing due, so nothing will wake it; the used one swept itself soon.
    const idleStub = env.AGENT_MEMORY.getByName(memoryName(t.tenantId, idle)) as DurableObjectStub<AgentMemory>;
    expect(await runInDurableObject(idleStub, (_o, state) => state.storage.getAlarm())).toBeNull();
    const usedStub = env.AGENT_MEMORY.getByName(memoryName(t.tenantId, used)) as DurableObjectStub<AgentMemory>;
    const alarm = await runInDurableObject(usedStub, (_o, state) => state.storage.getAlarm());
    expect(alarm).not.toBeNull();
    expect(alarm!).toBeLessThanOrEqual(Date.now() + 5 * 60_000);
  });

  it("asks each agent from before self-sweeping for one sweep, paging on (tenant, agent), and never again", async () => {
    const names = ["shared-a", "shared-b", "shared-c"];
    const tenants = [await newTenant(), await newTenant(), await newTenant()];
    for (const t of tenants) for (const n of names) await newAgent(t.apiKey, n);
    for (const pageSize of [2, 3, 4]) {
      await env.DB.prepare(`UPDATE agents SET upkeep_armed = 0 WHERE tenant_id IN (?, ?, ?)`)
        .bind(...tenants.map((t) => t.tenantId))
        .run();
      const legacy = await env.DB.prepare("SELECT count(*) AS n FROM agents WHERE upkeep_armed = 0").first<{ n: number }>();
      const rec = recordingJobs();
      expect(unwrap(await armLegacyAgents(rec, cron, { at: Date.now(), pageSize }))).toBe(legacy!.n);
      const swept = agentRefs(rec.sent.filter((m) => m.type === "agent.sweep"));
      expect(new Set(swept).size).toBe(swept.length);
      for (const t of tenants) for (const n of names) expect(swept, `${pageSize}: ${n}`).toContain(`${t.tenantId}/${n}`);
      const again = recordingJobs();
      expect(unwrap(await armLegacyAgents(again, cron, { at: Date.now(), pageSize }))).toBe(0);
      expect(again.sent).toEqual([]);
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

  it("the cron's work is the system's: a tenant's admin key and the operator are refused, and nothing is sent", async () => {
    const t = await newTenant();
    await newAgent(t.apiKey);
    await env.DB.prepare("UPDATE agents SET upkeep_armed = 0 WHERE tenant_id = ?").bind(t.tenantId).run();
    const admin = { kind: "key" as const, tenantId: t.tenantId, keyId: "k", scope: "admin" as const, agentIds: null };
    for (const caller of [admin, { kind: "operator" as const }]) {
      const rec = recordingJobs();
      expect(await armLegacyAgents(rec, caller, { at: Date.now() })).toMatchObject({ ok: false, error: { kind: "forbidden" } });
      expect(await runDueSchedules(rec, caller, { at: Date.now() })).toMatchObject({ ok: false, error: { kind: "forbidden" } });
      expect(rec.sent).toEqual([]);
    }
    const rec = recordingJobs();
    expect(unwrap(await armLegacyAgents(rec, cron, { at: Date.now() }))).toBeGreaterThanOrEqual(1);
    expect(agentRefs(rec.sent).some((a) => a.startsWith(`${t.tenantId}/`))).toBe(true);
  });
});
