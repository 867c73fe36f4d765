import { describe, expect, it, vi } from "vitest";
import { AgentMemory } from "../../durable-objects/agent-memory";
import { AgentMemoryBase } from "../../durable-objects/agent-memory/object/base-object";
import { AGENT_MEMORY_CONTRACT } from "../../durable-objects/agent-memory/contract";
import { Evaluation } from "../../durable-objects/evaluation";
import { EVALUATION_CONTRACT } from "../../durable-objects/evaluation/contract";
import { PracticeRun } from "../../durable-objects/practice-run";
import { PRACTICE_RUN_CONTRACT } from "../../durable-objects/practice-run/contract";
import type { Contract, RetryClass } from "../../durable-objects/rpc-contract";
import { DomainError } from "../../src/core/errors";
import type { Env } from "../../src/env";
import { evaluationObject } from "../../src/platform/practice/evaluation-setup";
import { repeatable, resilientObject } from "../../src/platform/objects/object-stub";
import { memoryNamed } from "../../src/platform/objects/agent-access";
import { practiceRunObject } from "../../src/platform/practice/runs";

/** A fault the runtime marks retryable: the call may or may not have reached the object. */
const transient = () => Object.assign(new Error("Network connection lost."), { retryable: true });

/** A stub whose every call fails transiently, counting how often each method was tried. */
function failingStub() {
  const calls: Record<string, number> = {};
  const stub = new Proxy(
    {},
    { get: (_t, method: string) => async () => ((calls[method] = (calls[method] ?? 0) + 1), Promise.reject(transient())) },
  );
  return { calls, stub };
}

function flakyStub() {
  const { calls, stub } = failingStub();
  return { calls, memory: resilientObject<AgentMemory>(AGENT_MEMORY_CONTRACT, () => stub, { outcomes: true }) };
}

/** The first attempt and the two repeats binding-faults allows a repeatable call. */
const REPEATED = 3;

/**
 * The methods a unit shell's prototype chain gives its instances, less the runtime's alarm and the
 * shell's protected and private members (which only the object itself calls).
 */
const SHELL_INTERNALS = new Set(["constructor", "alarm", "boot", "ready", "tx", "flushOnce", "unitMessage", "logContext", "followUp"]);
const shellMethods = (cls: { prototype: object }) =>
  [cls.prototype, Object.getPrototypeOf(cls.prototype)]
    .flatMap((p) => Object.getOwnPropertyNames(p))
    .filter((m) => !SHELL_INTERNALS.has(m));

const CONTRACTS: [string, Record<string, RetryClass>][] = [
  ["AgentMemory", AGENT_MEMORY_CONTRACT],
  ["PracticeRun", PRACTICE_RUN_CONTRACT],
  ["Evaluation", EVALUATION_CONTRACT],
];

type Callable = Record<string, (req?: object) => Promise<unknown>>;

/** An Env whose practice-run and evaluation bindings hand out `stub`, for the platform's own wrappers. */
const envWith = (stub: object) => ({ PRACTICE_RUN: { getByName: () => stub }, EVALUATION: { getByName: () => stub } }) as unknown as Env;

describe("AgentMemory's contract", () => {
  it("classifies every RPC method of the class, and nothing else", () => {
    const methods: string[] = [];
    // The class and the doors it extends (agent-memory/object/*-door.ts), down to the object's base.
    for (let p = AgentMemory.prototype; p !== AgentMemoryBase.prototype; p = Object.getPrototypeOf(p))
      methods.push(...Object.getOwnPropertyNames(p).filter((m) => m !== "constructor"));
    expect(Object.keys(AGENT_MEMORY_CONTRACT).sort()).toEqual(methods.sort());
  });

  it("does not compile without a class for each method", () => {
    const { getQuarantined: _dropped, ...rest } = AGENT_MEMORY_CONTRACT;
    // @ts-expect-error getQuarantined has no retry class
    const incomplete: Contract<AgentMemory> = rest;
    // @ts-expect-error a keyed class names a field of the method's request, and listQuarantine's has no idempotencyKey
    const misnamed: Contract<AgentMemory> = { ...AGENT_MEMORY_CONTRACT, listQuarantine: { repeatableWith: "idempotencyKey" } };
    expect([incomplete, misnamed]).toHaveLength(2);
  });

  it("treats the quarantine and retriever lookups as reads", () => {
    for (const m of ["listQuarantine", "getQuarantined", "getRetriever"] as const)
      expect(AGENT_MEMORY_CONTRACT[m]).toEqual({ repeatable: true });
  });

  it("takes a write slot for every call that changes the agent, whatever may repeat it", async () => {
    for (const [method, retry] of Object.entries(AGENT_MEMORY_CONTRACT) as [string, RetryClass][])
      if (!("repeatable" in retry)) expect(retry.write, method).toBe(true);
    for (const m of ["registerAgent", "deleteAgent", "subscribe", "unsubscribe"] as const)
      expect(AGENT_MEMORY_CONTRACT[m].write).toBe(true);

    // An isolate sends an agent at most 16 writes at a time; a read never waits for one.
    const held: (() => void)[] = [];
    const reached: string[] = [];
    const stub = new Proxy(
      {},
      {
        get: (_t, method: string) => () => (
          reached.push(method), new Promise((resolve) => held.push(() => resolve({ ok: true, value: null })))
        ),
      },
    );
    const env = { AGENT_MEMORY: { getByName: () => stub } } as unknown as Env;
    const memory = memoryNamed(env, `t_slots:${crypto.randomUUID()}`);
    const writes = Array.from({ length: 17 }, () => memory.unsubscribe({ libraryId: "lib_1" }));
    const read = memory.subscriptions();
    await vi.waitFor(() => expect(reached.filter((m) => m === "subscriptions")).toHaveLength(1));
    expect(reached.filter((m) => m === "unsubscribe")).toHaveLength(16);
    while (held.length) held.shift()!();
    await vi.waitFor(() => expect(reached.filter((m) => m === "unsubscribe")).toHaveLength(17));
    while (held.length) held.shift()!();
    await Promise.all([...writes, read]);
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

describe("the practice run's and the evaluation's contracts", () => {
  it("classify every RPC method of each class, the unit traffic they share included, and nothing else", () => {
    expect(Object.keys(PRACTICE_RUN_CONTRACT).sort()).toEqual([...new Set(shellMethods(PracticeRun))].sort());
    expect(Object.keys(EVALUATION_CONTRACT).sort()).toEqual([...new Set(shellMethods(Evaluation))].sort());
    for (const m of ["claim", "release", "heartbeat", "report", "rolloutResult"]) {
      expect(PRACTICE_RUN_CONTRACT).toHaveProperty(m);
      expect(EVALUATION_CONTRACT).toHaveProperty(m);
    }
  });

  it("do not compile without a class for each method, nor with a key that is not a string field", () => {
    const { evaluationDone: _dropped, ...rest } = PRACTICE_RUN_CONTRACT;
    // @ts-expect-error evaluationDone has no retry class
    const incomplete: Contract<PracticeRun> = rest;
    // @ts-expect-error release's lease is a number, not a key the object applies a write once per
    const misnamed: Contract<Evaluation> = { ...EVALUATION_CONTRACT, release: { repeatableWith: "lease" } };
    expect([incomplete, misnamed]).toHaveLength(2);
  });

  it("tell the run's and the evaluation's faults as theirs: a read repeated, a once-only call not", async () => {
    const { calls, stub } = failingStub();
    const view = await practiceRunObject(envWith(stub), "run_1")
      .view()
      .catch((e: unknown) => e);
    expect(calls.view).toBe(REPEATED);
    expect((view as DomainError).kind).toBe("unavailable");
    expect((view as DomainError).message).toBe("This practice run is briefly unavailable; retry shortly.");
    const cancel = await evaluationObject(envWith(stub), "ev_1")
      .cancel({ reason: "test" })
      .catch((e: unknown) => e);
    expect(calls.cancel).toBe(1);
    expect((cancel as DomainError).message).toBe("This evaluation was briefly unavailable; look at the evaluation before retrying.");
  });

  it("answer the objects' values as they are: their refusals are values, not outcomes to unwrap", async () => {
    const answer = { outcome: "promoting", view: null };
    const stub = { cancel: async () => answer, view: async () => ({ ok: false, error: { kind: "not-found" } }) };
    expect(await practiceRunObject(envWith(stub), "run_1").cancel()).toBe(answer);
    expect(await practiceRunObject(envWith(stub), "run_1").view()).toEqual({ ok: false, error: { kind: "not-found" } });
  });
});

describe("every object's retry classes", () => {
  it.each(CONTRACTS)("drive %s's resilient stub, method by method", async (_name, contract) => {
    const { calls, stub } = failingStub();
    const object = resilientObject<Callable>(contract as never, () => stub, { outcomes: false }) as unknown as Callable;
    const expected: Record<string, number> = {};
    const asked: Promise<unknown>[] = [];
    for (const [method, retry] of Object.entries(contract)) {
      asked.push(object[method]!({}).catch(() => undefined));
      expected[method] = "repeatable" in retry ? REPEATED : 1;
    }
    await Promise.all(asked);
    expect(calls).toEqual(expected);

    // A keyed write is repeated when its request carries the key, and only then.
    for (const [method, retry] of Object.entries(contract)) {
      if (!("repeatableWith" in retry)) continue;
      calls[method] = 0;
      await object[method]!({ [retry.repeatableWith]: "key-1" }).catch(() => undefined);
      expect(calls[method], method).toBe(REPEATED);
    }
  });

  it("repeat a batch of use counters by its id, which every batch carries", () => {
    expect(AGENT_MEMORY_CONTRACT.applyRetrievalCounts).toEqual({ repeatableWith: "id", write: true });
    expect(repeatable(AGENT_MEMORY_CONTRACT.applyRetrievalCounts, { id: "b_1", items: [], retrievals: [] })).toBe(true);
    expect(repeatable(AGENT_MEMORY_CONTRACT.readModel, { have: null, maxBytes: 1 })).toBe(true);
  });
});
