import { afterEach, describe, expect, it, vi } from "vitest";
import { MAX_SIGNATURE_CANDIDATES, signPayload } from "../../src/core/webhook-signature";
import { call, expectProblem, newAgent, newTenant, uniq } from "../helpers";

const HOOK = "/v1/hooks/session-end";
const nowSec = () => Math.floor(Date.now() / 1000);
const junk = () => `v1=${crypto.getRandomValues(new Uint8Array(32)).reduce((s, b) => s + b.toString(16).padStart(2, "0"), "")}`;

function session(tenantId: string, agentId: string, padding = 0) {
  return JSON.stringify({
    tenantId,
    agentId,
    sessionId: uniq("s"),
    task: "t",
    events: [{ type: "message", role: "user", content: "x".repeat(padding) }],
    outcome: "success",
  });
}

const post = (raw: string, signature: string, tenant?: string) =>
  call("POST", HOOK, {
    raw,
    headers: { "content-type": "application/json", "x-praxis-signature": signature, ...(tenant ? { "x-praxis-tenant": tenant } : {}) },
  });

/** HMACs over more than `minBytes` bytes: the ones over a request body (keys are hashed over short strings). */
function bodyHmacs(sign: ReturnType<typeof vi.spyOn>, minBytes: number) {
  return sign.mock.calls.filter((c: unknown[]) => (c[2] as ArrayBufferView).byteLength > minBytes).length;
}

describe("bounded work before authentication on /v1/hooks/session-end", () => {
  afterEach(() => vi.restoreAllMocks());

  it(`more than ${MAX_SIGNATURE_CANDIDATES} v1 candidates is a 401 before any HMAC, even with the right one among them`, async () => {
    const t = await newTenant();
    const agent = await newAgent(t.apiKey);
    const secret = (await call("POST", "/v1/webhook-secret", { key: t.apiKey })).body.secret as string;
    const raw = session(t.tenantId, agent);
    // One timestamp for the signature and both headers: the signature covers it.
    const at = nowSec();
    const good = (await signPayload(secret, at, raw)).split(",")[1]!;
    const sign = vi.spyOn(crypto.subtle, "sign");
    const header = `t=${at},${[junk(), junk(), junk(), good].join(",")}`;
    const r = await post(raw, header);
    expectProblem(r, 401, "unauthorized");
    expect(r.body.detail).toContain(`at most ${MAX_SIGNATURE_CANDIDATES}`);
    expect(bodyHmacs(sign, raw.length - 1)).toBe(0);
    // Up to the cap, the right signature among the candidates is accepted.
    const ok = await post(raw, `t=${at},${[junk(), junk(), good].join(",")}`);
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
  });

  it("a 1 MB body costs exactly one HMAC: known tenant with wrong signatures, unknown tenant, no tenant", async () => {
    const t = await newTenant();
    const agent = await newAgent(t.apiKey);
    await call("POST", "/v1/webhook-secret", { key: t.apiKey });
    const big = session(t.tenantId, agent, 1_000_000);
    const ghost = session("t_00000000000000000000", agent, 1_000_000);
    const sign = vi.spyOn(crypto.subtle, "sign");
    const three = `t=${nowSec()},${junk()},${junk()},${junk()}`;
    const cases: [string, string, string | undefined][] = [
      [big, three, undefined],
      [ghost, three, undefined],
      [big, three, "t_unknown"],
      [JSON.stringify({ padding: "x".repeat(1_000_000) }), three, undefined],
    ];
    for (const [raw, sig, tenant] of cases) {
      sign.mockClear();
      const r = await post(raw, sig, tenant);
      expectProblem(r, 401, "unauthorized");
      expect(bodyHmacs(sign, 1_000_000)).toBe(1);
    }
  });
});
