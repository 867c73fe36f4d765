import path from "node:path";
import { expect, it } from "vitest";
import { runProcess } from "./run-process";

const root = path.resolve(import.meta.dirname, "../..");

/**
 * Redocly's recommended rules over the committed snapshot (test/http/openapi-snapshot.test.ts keeps
 * it equal to what the Worker serves). Two warnings are by design: the localhost server is the
 * `npm start` address, and /healthz has no 4xx answer.
 */
const ACCEPTED_WARNINGS = new Set(["no-server-example.com", "operation-4xx-response"]);

it("the OpenAPI document passes redocly lint with no errors", async () => {
  const bin = path.join(root, "node_modules/.bin/redocly");
  const out = await runProcess(bin, ["lint", "client/openapi.json", "--format=json"], {
    cwd: root,
    env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true", NO_COLOR: "1" },
  });
  const report = JSON.parse(out.stdout) as {
    totals: { errors: number };
    problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[];
  };
  const unexpected = report.problems.filter((p) => p.severity === "error" || !ACCEPTED_WARNINGS.has(p.ruleId));
  expect(unexpected.map((p) => `${p.severity} ${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`)).toEqual([]);
  expect(report.totals.errors).toBe(0);
  expect(out.code).toBe(0);
});
