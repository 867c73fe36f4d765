import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { signPayload } from "../../src/core/webhook-signature";
import { ADMIN_KEY, call, newAgent, newTenant, type Res } from "../helpers";
import {
  arbitraryOf,
  EVIL_PARAMS,
  jsonType,
  mutate,
  mutationArb,
  nestInto,
  openPaths,
  pathsOf,
  typesAt,
  valueAt,
  type JsonSchema,
  type OpenApiDoc,
} from "./fuzz/schema-arbitrary";
// The document the Worker serves (test/http/openapi-snapshot.test.ts proves they are equal), read at
// collection time so that each operation is a test of its own.
import snapshot from "../../client/openapi.json";

/**
 * Schema-driven fuzzing: for every operation of the OpenAPI document the Worker serves, bodies,
 * path and query parameters generated from its schemas (valid ones, then mutated ones: fields
 * removed, replaced by hostile values, unknown fields, broken JSON). Whatever comes in, the answer
 * is never a 5xx, and every 4xx is a problem document; a 400/422 lists the fields it refuses, and
 * one caused by a mutated field names that field. Fixed seed, bounded count: same requests every run.
 */
const SEED = 20_261_125;
const VALID_RUNS = 2;
const MUTATED_RUNS = 4;

/** Problems that say a dependency is deliberately absent (no LLM in tests), the one 5xx the contract allows. */
const DOCUMENTED_503 = new Set(["llm-not-configured", "embedder-not-configured"]);

let doc: OpenApiDoc;
const ids: Record<string, string> = {};
let tenant: Awaited<ReturnType<typeof newTenant>>;
let secret: string | null = null;

function operations() {
  return Object.entries((snapshot as OpenApiDoc).paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({ path, method: method.toUpperCase(), op })),
  );
}

/** Path ids that exist (so requests reach the handlers), except where a real one would destroy the fixture. */
function knownParam(path: string, method: string, name: string): string | undefined {
  if (name === "agentId") return method === "DELETE" && path === "/v1/agents/{agentId}" ? undefined : ids.agent;
  if (name === "datasetId") return method === "DELETE" ? undefined : ids.dataset;
  if (name === "id" && path.includes("/experiences/")) return ids.experience;
  if (name === "id" && path.includes("/cases/")) return ids.case;
  if (name === "id" && path.includes("/episodes/")) return ids.episode;
  return undefined;
}

interface Request {
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  body?: unknown;
  raw?: string;
  mutatedField?: string;
}

function requestArb(path: string, method: string, op: any, mutated: boolean): fc.Arbitrary<Request> {
  const params: any[] = op.parameters ?? [];
  const pathParams = params.filter((p) => p.in === "path");
  const queryParams = params.filter((p) => p.in === "query");
  const schema: JsonSchema | undefined = op.requestBody?.content?.["application/json"]?.schema;
  const valueOf = (p: any) => arbitraryOf(doc, p.schema).map((v) => (v === undefined || v === null ? "" : String(v)));

  const pathArb = fc.tuple(
    ...pathParams.map((p) => {
      const known = knownParam(path, method, p.name);
      const generated = valueOf(p);
      if (!mutated) return known ? fc.constant(known) : generated;
      return fc.oneof(
        { weight: 3, arbitrary: known ? fc.constant(known) : generated },
        { weight: 1, arbitrary: fc.constantFrom(...EVIL_PARAMS) },
      );
    }),
  );
  const queryArb = fc.tuple(
    ...queryParams.map((p) => fc.option(mutated ? fc.oneof(valueOf(p), fc.constantFrom(...EVIL_PARAMS)) : valueOf(p), { nil: undefined })),
  );
  // Only values a client can send at all: fetch refuses a header holding NUL, CR or LF before any request is made.
  const sendable = (v: string | undefined) => v === undefined || !/[\0\r\n]/.test(v);
  const idemArb = params.some((p) => p.name === "idempotency-key")
    ? fc
        .option(
          mutated
            ? fc.oneof(fc.string({ minLength: 1, maxLength: 40 }), fc.constantFrom(...EVIL_PARAMS))
            : fc.stringMatching(/^[\x21-\x7e]{1,40}$/),
          { nil: undefined },
        )
        .filter(sendable)
    : fc.constant(undefined);
  const bodyArb: fc.Arbitrary<{ body?: unknown; raw?: string; mutatedField?: string }> = !schema
    ? fc.constant({})
    : mutated
      ? arbitraryOf(doc, schema).chain((valid) =>
          mutationArb(pathsOf(valid)).map((m) => {
            const r = mutate(valid, m);
            // A value of a JSON type the schema does not allow there must be refused by name; other
            // mutations (a hostile string where strings go, a removed optional field) may be fine.
            const allowed = m.kind === "replace" ? typesAt(doc, schema, m.path) : null;
            const wrongType = allowed !== null && !allowed.has(jsonType(m.kind === "replace" ? m.value : undefined));
            return { body: r.body, raw: r.raw, mutatedField: wrongType ? r.path : undefined };
          }),
        )
      : arbitraryOf(doc, schema).map((body) => ({ body }));

  return fc
    .record({ pathValues: pathArb, queryValues: queryArb, idem: idemArb, body: bodyArb })
    .map(({ pathValues, queryValues, idem, body }) => {
      let i = 0;
      const filled = path.replace(/\{[^}]+\}/g, () => encodeURIComponent(pathValues[i++]!));
      const query: Record<string, string> = {};
      queryParams.forEach((p, j) => {
        if (queryValues[j] !== undefined) query[p.name] = queryValues[j]!;
      });
      const headers: Record<string, string> = idem === undefined ? {} : { "idempotency-key": idem };
      return { path: filled, query, headers, ...body };
    });
}

async function send(method: string, template: string, req: Request): Promise<Res> {
  const qs = new URLSearchParams(req.query).toString();
  const url = `${req.path}${qs ? `?${qs}` : ""}`;
  const key = template.startsWith("/v1/tenants") ? ADMIN_KEY : tenant.apiKey;
  const headers: Record<string, string> = { ...req.headers };
  if (template === "/v1/hooks/session-end") {
    // Signed with the tenant's secret, so that bodies get past authentication to validation.
    if (!secret) secret = (await call("POST", "/v1/webhook-secret", { key: tenant.apiKey })).body.secret;
    const raw = req.raw ?? JSON.stringify(req.body ?? null);
    headers["content-type"] = "application/json";
    headers["x-praxis-signature"] = await signPayload(secret!, Math.floor(Date.now() / 1000), raw);
    headers["x-praxis-tenant"] = tenant.tenantId;
    return call(method, url, { raw, headers });
  }
  if (req.raw !== undefined) return call(method, url, { key, raw: req.raw, headers: { ...headers, "content-type": "application/json" } });
  if (req.body === undefined && method !== "GET" && method !== "DELETE") headers["content-type"] = "application/json";
  const res = await call(method, url, { key, body: req.body, headers });
  if (template === "/v1/webhook-secret") secret = method === "POST" && res.status === 201 ? res.body.secret : null;
  return res;
}

function check(method: string, req: Request, res: Res) {
  const what = `${method} ${req.path} ${JSON.stringify(req.query)} ${JSON.stringify(req.headers)} body=${(req.raw ?? JSON.stringify(req.body) ?? "").slice(0, 300)} -> ${res.status} ${JSON.stringify(res.body).slice(0, 400)}`;
  const type = typeof res.body?.type === "string" ? res.body.type.replace("https://praxis.dev/problems/", "") : "";
  if (res.status >= 500) expect(res.status === 503 && DOCUMENTED_503.has(type), what).toBe(true);
  if (req.mutatedField !== undefined) expect([400, 422], what).toContain(res.status);
  if (res.status < 400) return;
  expect(res.headers.get("content-type"), what).toContain("application/problem+json");
  expect(res.body.status, what).toBe(res.status);
  expect(typeof res.body.detail, what).toBe("string");
  if ((res.status === 400 || res.status === 422) && (type === "validation-failed" || type === "unprocessable") && res.body.errors) {
    expect(res.body.errors.length, what).toBeGreaterThan(0);
    for (const e of res.body.errors) expect(typeof e.path, what).toBe("string");
  }
  if (res.status === 400 && type === "validation-failed" && req.mutatedField) {
    // A value of the wrong type is refused by name: the field, the object (or union) holding it, or a field inside it.
    const paths: string[] = (res.body.errors ?? []).map((e: { path: string }) => e.path);
    // Errors in headers, path or query name those fields; the body check applies to body errors.
    if (paths.some((p) => /^(header|param|query)\./.test(p) || p === "path")) return;
    const f = req.mutatedField;
    const related = (p: string) => p === f || f === "" || p === "" || f.startsWith(`${p}.`) || p.startsWith(`${f}.`);
    expect(paths.some(related), what).toBe(true);
  }
}

/**
 * Fields that take any JSON (tool-call inputs, hook event payloads, metadata) pass a 5,000-deep
 * value to the code behind validation: each gets one, in a body otherwise generated valid.
 */
async function deepIntoOpenFields(path: string, method: string, op: any) {
  const schema: JsonSchema | undefined = op.requestBody?.content?.["application/json"]?.schema;
  if (!schema) return;
  const samples = fc.sample(requestArb(path, method, op, false), { seed: SEED, numRuns: 30 });
  for (const field of openPaths(doc, schema)) {
    const parent = field.split(".").slice(0, -1).join(".");
    const base = samples.find((r) => r.body && typeof valueAt(r.body, parent) === "object");
    if (!base) continue;
    const body = structuredClone(base.body) as any;
    const target = valueAt(body, parent) as Record<string, unknown>;
    target[field.split(".").pop()!] = nestInto(5000);
    const req = { ...base, body, mutatedField: undefined };
    check(method, req, await send(method, path, req));
  }
}

/**
 * Failure reports go from workerd to vitest over a WebSocket that refuses lone surrogates, which
 * the hostile strings hold: they are replaced in the report (the requests themselves keep them).
 */
async function report(out: fc.RunDetails<[Request]>) {
  if (out.failed)
    throw new Error(
      (fc.defaultReportMessage(out) ?? "failed").replace(
        /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g,
        "\\uFFFD",
      ),
    );
}

beforeAll(async () => {
  const r = await call("GET", "/openapi.json");
  doc = r.body;
  tenant = await newTenant();
  ids.agent = await newAgent(tenant.apiKey);
  const ds = await call("POST", "/v1/datasets", {
    key: tenant.apiKey,
    body: {
      name: "fuzz",
      tasks: [
        { task: "2+2?", groundTruth: "4" },
        { task: "3+3?", groundTruth: "6" },
      ],
    },
  });
  ids.dataset = ds.body.datasetId;
  ids.experience = (
    await call("POST", `/v1/agents/${ids.agent}/experiences`, { key: tenant.apiKey, body: { text: "Check units before adding" } })
  ).body.id;
  ids.case = (
    await call("POST", `/v1/agents/${ids.agent}/cases`, { key: tenant.apiKey, body: { task: "2+2?", answer: "4", reward: 1 } })
  ).body.id;
  ids.episode = (await call("POST", `/v1/agents/${ids.agent}/episodes`, { key: tenant.apiKey, body: { task: "add numbers" } })).body.id;
  for (const [k, v] of Object.entries(ids)) expect(v, k).toBeTypeOf("string");
});

describe("schema-driven fuzzing of every operation", () => {
  it("covers every operation of the document", () => {
    expect(operations().length).toBe(Object.values(doc.paths).reduce((n, m) => n + Object.keys(m).length, 0));
  });

  for (const { path, method, op } of operations()) {
    it(`${method} ${path}`, async () => {
      for (const [mutated, runs] of [
        [false, VALID_RUNS],
        [true, MUTATED_RUNS],
      ] as const) {
        await fc.assert(
          fc.asyncProperty(requestArb(path, method, op, mutated), async (req) => {
            check(method, req, await send(method, path, req));
          }),
          { seed: SEED, numRuns: runs, endOnFailure: true, asyncReporter: report },
        );
      }
      await deepIntoOpenFields(path, method, op);
    });
  }
});
