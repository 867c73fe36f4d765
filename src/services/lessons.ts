import type { Env } from "../env";
import type { Logger } from "../core/logger";
import type { KeyPrincipal } from "../core/principal";
import type { ExperienceCreate } from "../core/memory-types";
import { callMemory, type MemoryStub } from "./agent-memory";
import { reviewedBeforeWrite } from "./admission";

/**
 * A client's lesson, written through the one admission step whatever the door: reviewed before
 * the write when it can be (so it is usable at once), else held for the queued review. Returns
 * the stored experience and the library version it made (`replayed` for a repeated idempotency key).
 */
export async function addLesson(
  env: Env,
  agent: { key: KeyPrincipal; agent: { agentId: string }; memory: MemoryStub },
  input: ExperienceCreate,
  ctx: { door: "api" | "mcp"; log: Logger; idempotencyKey?: string },
) {
  const { key, memory } = agent;
  const reviewed = await reviewedBeforeWrite(env, key.tenantId, agent.agent.agentId, input, ctx.log);
  const { value, replayed } = await callMemory(() =>
    memory.createExperience(input, `key:${key.keyId}`, { keyId: key.keyId }, ctx.idempotencyKey, { door: ctx.door, admin: key.scope === "admin", reviewed }),
  );
  return { experience: value.experience, version: value.version, replayed };
}
