// The Durable Object bindings of src/env.ts's Env, typed by their classes (see the note there).
import type { AgentMemory } from "../durable-objects/agent-memory";
import type { Evaluation } from "../durable-objects/evaluation";
import type { PracticeRun } from "../durable-objects/practice-run";

declare module "../src/env" {
  interface Env {
    AGENT_MEMORY: DurableObjectNamespace<AgentMemory>;
    PRACTICE_RUN: DurableObjectNamespace<PracticeRun>;
    EVALUATION: DurableObjectNamespace<Evaluation>;
  }
}
