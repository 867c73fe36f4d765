import { createScheduledController, env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { CRON_DAILY, CRON_FREQUENT, runScheduled } from "../../src/cron";
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
