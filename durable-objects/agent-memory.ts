import { DurableObject } from "cloudflare:workers";
import type { Env } from "../src/env";
import {
  AgentConfigSchema,
  applyConfigPatch,
  defaultAgentConfig,
  type AgentConfig,
  type AgentConfigPatch,
} from "../src/core/agent-config";
import { migrateSchema } from "./schema-version";
import { AGENT_MEMORY_SCHEMA } from "./agent-memory/schema";
import { MemoryError } from "./memory-error";

/**
 * One instance per tenant+agent (named `${tenantId}:${agentId}`). It is the single writer for
 * that agent's memories, so concurrent reward updates serialise here and never race.
 */
export class AgentMemory extends DurableObject<Env> {
  private config: AgentConfig = defaultAgentConfig();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    let failure: unknown;
    void ctx.blockConcurrencyWhile(async () => {
      try {
        migrateSchema(ctx.storage, AGENT_MEMORY_SCHEMA);
        this.config = this.loadConfig();
      } catch (err) {
        failure = err;
      }
    });
    // Re-thrown outside blockConcurrencyWhile so a failed init does not leave the input gate broken.
    if (failure) throw failure;
  }

  private loadConfig(): AgentConfig {
    const row = this.ctx.storage.sql
      .exec<{ value: string }>("SELECT value FROM meta WHERE key = 'config'")
      .toArray()[0];
    if (!row) return defaultAgentConfig();
    const parsed = AgentConfigSchema.safeParse(JSON.parse(row.value));
    return parsed.success ? parsed.data : defaultAgentConfig();
  }

  async getConfig(): Promise<AgentConfig> {
    return this.config;
  }

  async patchConfig(patch: AgentConfigPatch): Promise<AgentConfig> {
    const result = applyConfigPatch(this.config, patch);
    if (!result.success) throw MemoryError.invalid("Invalid configuration", result.error.issues);
    this.ctx.storage.sql.exec(
      "INSERT INTO meta (key, value) VALUES ('config', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
      JSON.stringify(result.data),
    );
    this.config = result.data;
    return this.config;
  }

  async sweep(at: number): Promise<{ archived: number; at: number }> {
    return { archived: 0, at };
  }

  /** Erases everything this agent remembered; the next call starts from an empty schema. */
  async destroy(): Promise<{ storageDeleted: true }> {
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
    migrateSchema(this.ctx.storage, AGENT_MEMORY_SCHEMA);
    this.config = defaultAgentConfig();
    return { storageDeleted: true };
  }
}
