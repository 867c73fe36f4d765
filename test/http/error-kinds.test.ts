import { describe, expect, it } from "vitest";
import { DomainError, isRequestFault, isRetryable, type DomainErrorKind } from "../../src/core/errors";
import { PROBLEM_TITLES, problemBody, problemOf } from "../../src/doors/problem";
import { toolError } from "../../src/mcp/tool";
import { problemIn } from "../mcp-problem";

/**
 * Every domain error kind with what REST answers for it (public: status and problem type) and
 * whether a job retries it. A kind added without a row here does not compile.
 */
const KINDS: Record<DomainErrorKind, { status: number; type: keyof typeof PROBLEM_TITLES; retried: boolean }> = {
  invalid: { status: 400, type: "validation-failed", retried: false },
  unprocessable: { status: 422, type: "unprocessable", retried: false },
  unauthorized: { status: 401, type: "unauthorized", retried: false },
  forbidden: { status: 403, type: "forbidden", retried: false },
  "not-found": { status: 404, type: "not-found", retried: false },
  conflict: { status: 409, type: "conflict", retried: false },
  "version-not-reached": { status: 409, type: "version-not-reached", retried: false },
  "too-large": { status: 413, type: "payload-too-large", retried: false },
  "rate-limited": { status: 429, type: "rate-limited", retried: true },
  "budget-exceeded": { status: 429, type: "budget-exceeded", retried: false },
  "llm-not-configured": { status: 503, type: "llm-not-configured", retried: false },
  "llm-unavailable": { status: 502, type: "llm-unavailable", retried: false },
  "embedder-not-configured": { status: 503, type: "embedder-not-configured", retried: false },
  unavailable: { status: 503, type: "service-unavailable", retried: true },
};
const kinds = Object.keys(KINDS) as DomainErrorKind[];

describe("domain error kinds", () => {
  it("each maps to its HTTP status and problem type", () => {
    for (const kind of kinds) {
      const p = problemOf(new DomainError(kind, `a ${kind} failure`).info);
      expect([kind, p.status, p.type, p.message]).toEqual([kind, KINDS[kind].status, KINDS[kind].type, `a ${kind} failure`]);
    }
  });

  it("each maps to an MCP tool error carrying the problem document REST answers", () => {
    for (const kind of kinds) {
      const e = new DomainError(kind, `a ${kind} failure`, { fields: [{ path: "agentId", message: "Check it" }] });
      const result = toolError(problemOf(e.info), "/mcp", "req-1");
      expect(result.isError).toBe(true);
      expect(result.structuredContent).toBeUndefined();
      expect(result.content[0]).toEqual({
        type: "text",
        text: `${PROBLEM_TITLES[KINDS[kind].type]}: a ${kind} failure (agentId: Check it) [status ${KINDS[kind].status}, request req-1]`,
      });
      expect(problemIn(result)).toEqual(problemBody(problemOf(e.info), "/mcp", "req-1"));
      expect(problemIn(result)).toMatchObject({
        type: `https://praxis.dev/problems/${KINDS[kind].type}`,
        status: KINDS[kind].status,
        detail: `a ${kind} failure`,
        requestId: "req-1",
        errors: [{ path: "agentId", message: "Check it" }],
      });
    }
  });

  it("each is retried by its kind, or when the error itself says the same call may pass", () => {
    for (const kind of kinds) {
      expect([kind, isRetryable(new DomainError(kind, "x"))]).toEqual([kind, KINDS[kind].retried]);
      expect([kind, isRetryable(new DomainError(kind, "x", { retryable: true }))]).toEqual([kind, true]);
    }
  });

  it("a request fault is exactly a kind REST answers with a 4xx", () => {
    for (const kind of kinds) expect([kind, isRequestFault(new DomainError(kind, "x"))]).toEqual([kind, KINDS[kind].status < 500]);
    expect(isRequestFault(new Error("x"))).toBe(false);
  });

  it("carries what clients act on: a retry delay, a challenge, a lost race, the facts in `data`", () => {
    const budget = problemOf(
      new DomainError("budget-exceeded", "spent", { retryAfterS: 60, data: { budget: 100, used: 120, resetsAt: 1 } }).info,
    );
    expect(budget.extra).toMatchObject({ budget: 100, used: 120, resetsAt: 1, headers: { "retry-after": "60" } });
    expect(problemOf(new DomainError("unauthorized", "who?").info).extra.headers).toEqual({ "www-authenticate": 'Bearer realm="praxis"' });
    expect(problemOf(DomainError.retryLater("raced").info).extra).toMatchObject({ retryable: true });
    expect(problemOf(DomainError.conflict("taken").info).extra).not.toHaveProperty("retryable");
    // An LLM failure that may pass is a 503 to wait for; one the provider refuses stays a 502.
    expect(problemOf(new DomainError("llm-unavailable", "busy", { retryable: true, retryAfterS: 30 }).info).status).toBe(503);
    const embedder = problemOf(DomainError.embedderNotConfigured("no embedder", ["EMBEDDING_DIMS"]).info);
    expect(embedder.extra).toMatchObject({ settings: ["EMBEDDING_DIMS"], errors: [{ path: "EMBEDDING_DIMS" }] });
  });
});
