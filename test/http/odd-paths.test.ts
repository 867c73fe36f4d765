import { beforeAll, describe, expect, it } from "vitest";
import { ADMIN_KEY, call, newAgent, newTenant } from "../helpers";

/**
 * Every route family, with each path parameter replaced by a name that lives on Object.prototype,
 * an encoded separator or an id far over any limit: the answer is a 2xx or 4xx, never a 5xx (a
 * lookup such as `ASSETS[name]` found `__proto__` and crashed on it).
 */
const PROTOTYPE_NAMES = [
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "hasOwnProperty",
  "valueOf",
  "__defineGetter__",
  "isPrototypeOf",
];
const ODD_SEGMENTS = ["%2F", "a%2Fb", "%00", "a%00b", "..", "%2E%2E", "%2e%2e%2F%2e%2e", "%5C", "%25", "%20", "x".repeat(5_000)];
const VALUES = [...PROTOTYPE_NAMES, ...ODD_SEGMENTS];
/** Fewer for the API walk (every operation takes each): the lookups differ by key, not by which prototype name. */
const API_VALUES = ["__proto__", "constructor", "a%2Fb", "%00", "x".repeat(5_000)];

interface Operation {
  method: string;
  template: string;
}

const fill = (template: string, value: string, agent: string) =>
  // One parameter at a time takes the odd value; the agent is a real one elsewhere, so the request reaches deeper code.
  template.replace(/\{agentId\}/g, agent).replace(/\{[^}]+\}/g, value);

describe("odd path segments never answer 5xx", () => {
  let key: string;
  let agent: string;
  let operations: Operation[];

  beforeAll(async () => {
    key = (await newTenant()).apiKey;
    agent = await newAgent(key);
    const doc = (await call("GET", "/openapi.json")).body as { paths: Record<string, Record<string, unknown>> };
    operations = Object.entries(doc.paths).flatMap(([template, item]) =>
      Object.keys(item)
        .filter((m) => ["get", "post", "put", "patch", "delete"].includes(m))
        .map((m) => ({ method: m.toUpperCase(), template })),
    );
    expect(operations.length).toBeGreaterThan(40);
  });

  it("the dashboard's static files, without a key", async () => {
    for (const name of VALUES) {
      const r = await call("GET", `/dashboard/static/${name}`);
      expect([name, r.status]).toEqual([name, 404]);
    }
    expect((await call("GET", "/dashboard/static/app.js")).status).toBe(200);
  });

  it("the dashboard pages, without a key", async () => {
    for (const name of VALUES) {
      for (const path of [`/dashboard/${name}`, `/dashboard/agents/${name}`, `/dashboard/agents/${name}/runs/${name}`, `/${name}`]) {
        const r = await call("GET", path);
        expect([path, r.status < 500]).toEqual([path, true]);
      }
    }
  });

  it("every API operation with each odd value in its path parameters (tenant key and operator key)", { timeout: 180_000 }, async () => {
    const requests = operations.flatMap(({ method, template }) => {
      const params = template.match(/\{[^}]+\}/g) ?? [];
      const asKey = template.startsWith("/v1/tenants") ? ADMIN_KEY : key;
      return (params.length === 0 ? [] : API_VALUES).map((value) => ({
        method,
        asKey,
        // The agent id itself takes the odd value too, on the routes whose only parameter it is.
        path: params.every((p) => p === "{agentId}") ? template.replace(/\{agentId\}/g, value) : fill(template, value, agent),
      }));
    });
    const failures: string[] = [];
    for (let i = 0; i < requests.length; i += 16) {
      await Promise.all(
        requests.slice(i, i + 16).map(async ({ method, path, asKey }) => {
          const r = await call(method, path, { key: asKey, ...(method === "GET" || method === "DELETE" ? {} : { body: {} }) });
          if (r.status >= 500) failures.push(`${method} ${path.slice(0, 120)} → ${r.status} ${JSON.stringify(r.body).slice(0, 160)}`);
        }),
      );
    }
    expect(failures).toEqual([]);
  });
});
