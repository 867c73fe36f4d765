import http from "node:http";
import { createHmac } from "node:crypto";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { Praxis, PraxisError, unwrap } from "../../client/src/index";
import { startLocalWorker, type LocalWorker } from "./local-worker";

const shared = inject("localWorker");
const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";

describe("operator and traces through the TypeScript client", () => {
  it("the operator lists tenants and rotates one's admin key; the old key is refused, the new one works", async () => {
    const operator = new Praxis({ baseUrl: shared.url, apiKey: shared.adminKey });
    const name = `rotation-test-${Date.now().toString(36)}`;
    const made = await unwrap(operator.api.POST("/v1/tenants", { body: { name } }));
    const page = await unwrap(operator.api.GET("/v1/tenants", { params: { query: { limit: 200 } } }));
    expect(page.items.find((t) => t.tenantId === made.tenantId)).toMatchObject({ name, activeKeys: 1 });

    const rotated = await unwrap(
      operator.api.POST("/v1/tenants/{tenantId}/keys/rotate", { params: { path: { tenantId: made.tenantId } }, body: {} }),
    );
    expect(rotated.revoked.map((r) => r.id)).toEqual([made.keyId]);
    const old = new Praxis({ baseUrl: shared.url, apiKey: made.apiKey });
    await expect(unwrap(old.api.GET("/v1/keys/current"))).rejects.toBeInstanceOf(PraxisError);
    const fresh = new Praxis({ baseUrl: shared.url, apiKey: rotated.apiKey });
    expect(await unwrap(fresh.api.GET("/v1/keys/current"))).toMatchObject({ id: rotated.keyId, tenantId: made.tenantId, scope: "admin" });
  });

  it("a request's traceparent is joined and answered", async () => {
    const res = await fetch(`${shared.url}/healthz`, { headers: { traceparent: `00-${TRACE}-00f067aa0ba902b7-01` } });
    expect(res.headers.get("traceparent")).toMatch(new RegExp(`^00-${TRACE}-[0-9a-f]{16}-01$`));
  });
});

describe("event webhooks through the real queue of wrangler dev", () => {
  let worker: LocalWorker;
  let receiver: http.Server;
  let receiverUrl = "";
  const got: { body: string; headers: http.IncomingHttpHeaders; status: number }[] = [];

  beforeAll(async () => {
    // Answers 500 to its first delivery, then 200: the queue must retry.
    receiver = http.createServer((req, res) => {
      let body = "";
      req.on("data", (d) => (body += d));
      req.on("end", () => {
        const status = got.length === 0 ? 500 : 200;
        got.push({ body, headers: req.headers, status });
        res.writeHead(status).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    // Development rules, so the Worker may call a receiver on this machine.
    worker = await startLocalWorker({ PRAXIS_ENV: "development" });
  }, 120_000);

  afterAll(async () => {
    await worker?.stop();
    await new Promise((r) => receiver?.close(r));
  });

  it("a lesson added through the client reaches the receiver signed, after a retry of its 500", async () => {
    const operator = new Praxis({ baseUrl: worker.url, apiKey: worker.adminKey });
    const tenant = await unwrap(operator.api.POST("/v1/tenants", { body: { name: `events-test-${Date.now().toString(36)}` } }));
    const praxis = new Praxis({ baseUrl: worker.url, apiKey: tenant.apiKey });
    const { secret } = await unwrap(praxis.api.POST("/v1/webhook-secret"));
    await unwrap(praxis.api.POST("/v1/events/endpoints", { body: { url: receiverUrl, events: ["lesson.created"] } }));
    const agent = praxis.agent("events-bot");
    await agent.ensure();
    const lesson = await agent.addExperience("Confirm the order number before issuing a refund");

    const deadline = Date.now() + 90_000;
    while (!got.some((g) => g.status === 200) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 500));
    expect(got.map((g) => g.status)).toEqual([500, 200]);
    for (const g of got) {
      const [t, v1] = String(g.headers["x-praxis-signature"])
        .split(",")
        .map((p) => p.split("=")[1]);
      expect(createHmac("sha256", secret).update(`${t}.${g.body}`).digest("hex")).toBe(v1);
      expect(JSON.parse(g.body)).toMatchObject({
        type: "lesson.created",
        tenantId: tenant.tenantId,
        data: { lessonId: lesson.id, agentId: "events-bot" },
      });
    }
    expect(got[1]!.headers["x-praxis-event-id"]).toBe(got[0]!.headers["x-praxis-event-id"]);
    const log = await unwrap(praxis.api.GET("/v1/events/deliveries"));
    expect(log.items[0]).toMatchObject({ status: "delivered", attempts: 2 });
    expect(log.items[0]!.attemptLog.map((a) => a.status)).toEqual([500, 200]);
  }, 150_000);
});
