import { describe, expect, it } from "vitest";
import { AgentMemory } from "../../durable-objects/agent-memory";
import { AGENT_MEMORY_CONTRACT } from "../../durable-objects/agent-memory/contract";
import type { Contract } from "../../durable-objects/rpc-contract";
import { DomainError } from "../../src/core/errors";
import { repeatable, resilientObject } from "../../src/services/object-stub";

/** A fault the runtime marks retryable: the call may or may not have reached the object. */
const transient = () => Object.assign(new Error("Network connection lost."), { retryable: true });

/** A stub whose every call fails transiently, counting how often each method was tried. */
function flakyStub() {
  const calls: Record<string, number> = {};
  const stub = new Proxy(
    {},
    { get: (_t, method: string) => async () => ((calls[method] = (calls[method] ?? 0) + 1), Promise.reject(transient())) },
  );
  return { calls, memory: resilientObject<AgentMemory>(AGENT_MEMORY_CONTRACT, () => stub, { outcomes: true }) };
}

describe("AgentMemory's contract", () => {
  it("classifies every RPC method of the class, and nothing else", () => {
    const methods = Object.getOwnPropertyNames(AgentMemory.prototype).filter((m) => m !== "constructor");
    expect(Object.keys(AGENT_MEMORY_CONTRACT).sort()).toEqual(methods.sort());
  });

  it("does not compile without a class for each method", () => {
    const { getQuarantined: _dropped, ...rest } = AGENT_MEMORY_CONTRACT;
    // @ts-expect-error getQuarantined has no retry class
    const incomplete: Contract<AgentMemory> = rest;
    // @ts-expect-error a keyed class names a field of the method's request, and listQuarantine's has no idempotencyKey
    const misnamed: Contract<AgentMemory> = { ...AGENT_MEMORY_CONTRACT, listQuarantine: { keyed: "idempotencyKey" } };
    expect([incomplete, misnamed]).toHaveLength(2);
  });

  it("treats the quarantine and retriever lookups as reads", () => {
    for (const m of ["listQuarantine", "getQuarantined", "getRetriever"] as const) expect(AGENT_MEMORY_CONTRACT[m]).toEqual({ read: true });
  });

  it("repeats a keyed write only when its request carries the key", () => {
    expect(repeatable(AGENT_MEMORY_CONTRACT.reward, { reward: { memoryIds: ["m"], reward: 1 } })).toBe(false);
    expect(repeatable(AGENT_MEMORY_CONTRACT.reward, { reward: { memoryIds: ["m"], reward: 1 }, idempotencyKey: "k" })).toBe(true);
    expect(repeatable(AGENT_MEMORY_CONTRACT.getQuarantined, { id: "q" })).toBe(true);
    expect(repeatable(AGENT_MEMORY_CONTRACT.patchConfig, {})).toBe(false);
  });

  it("drives the resilient stub: reads and keyed writes are retried, the rest tried once", async () => {
    const { calls, memory } = flakyStub();
    const failures = await Promise.all([
      memory.getQuarantined({ id: "q_1" }).catch((e: unknown) => e),
      memory.reward({ reward: { memoryIds: ["m_1"], reward: 1 } }).catch((e: unknown) => e),
      memory.createEpisode({ episode: { task: "t" }, idempotencyKey: "key-1" }).catch((e: unknown) => e),
      memory.patchConfig({ alpha: 0.2 }).catch((e: unknown) => e),
    ]);
    for (const f of failures) expect(f).toBeInstanceOf(DomainError);
    expect(failures.map((f) => (f as DomainError).kind)).toEqual(["unavailable", "unavailable", "unavailable", "unavailable"]);
    expect(calls).toEqual({ getQuarantined: 3, reward: 1, createEpisode: 3, patchConfig: 1 });
  });

  it("unwraps the object's outcome: a value is returned, a domain error thrown again", async () => {
    const answers: Record<string, unknown> = {
      getConfig: { ok: true, value: { alpha: 0.5 } },
      getJob: { ok: false, error: { kind: "not-found", detail: "Job 'j' does not exist.", retryable: false } },
    };
    const stub = new Proxy({}, { get: (_t, method: string) => async () => answers[method] });
    const memory = resilientObject<AgentMemory>(AGENT_MEMORY_CONTRACT, () => stub, { outcomes: true });
    expect(await memory.getConfig()).toEqual({ alpha: 0.5 });
    const missing = await memory.getJob({ jobId: "j" }).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(DomainError);
    expect((missing as DomainError).kind).toBe("not-found");
  });
});
