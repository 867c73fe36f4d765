import { env } from "cloudflare:test";
import { expect } from "vitest";
import type { AgentMemory } from "../../durable-objects/agent-memory";
import { memoryName } from "../../src/platform/objects/memory-name";
import { slowEmbeddings, type SlowEmbeddingsOptions } from "../doubles/slow-embeddings";
import { call, newAgent, newKey, newTenant } from "../helpers";

/** A fresh tenant and agent, plus a caller bound to that agent's routes. */
export async function agentFixture() {
  const t = await newTenant();
  const agentId = await newAgent(t.apiKey);
  const api = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
    call(method, `/v1/agents/${agentId}${path}`, { key: t.apiKey, body, headers });
  return { t, agentId, api };
}

/** An agent whose embedder is remote and slow (test/doubles/slow-embeddings.ts), so its writes yield while embedding. */
export async function slowEmbedderAgent(opts: SlowEmbeddingsOptions = {}) {
  const emb = slowEmbeddings({ dims: 16, ...opts });
  const f = await agentFixture();
  const r = await f.api("PATCH", "/config", { embedder: { provider: "openai", model: "slow-embed", dims: 16 } });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  const stub = env.AGENT_MEMORY.getByName(memoryName(f.t.tenantId, f.agentId)) as DurableObjectStub<AgentMemory>;
  return { ...f, emb, stub };
}

/**
 * Undoes the AgentMemory schema steps that came after admission records were kept (the admission
 * step, then learned retrieval), so a test can rebuild an older agent's layout and replay them.
 */
export function undoStepsSinceAdmission(sql: SqlStorage) {
  for (const index of ["cases_inactive", "experiences_inactive", "experiences_trial_verdict"]) sql.exec(`DROP INDEX ${index}`);
  sql.exec("DROP TRIGGER experiences_trial_restart");
  for (const c of ["shown", "shown_ok", "control", "control_ok", "verdict", "reason", "at"])
    sql.exec(`ALTER TABLE experiences DROP COLUMN trial_${c}`);
  sql.exec("ALTER TABLE retrievals DROP COLUMN trial");
  // The read model's step first: its triggers name columns the earlier steps' undoing drops.
  for (const { name } of sql
    .exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'read\\_%' ESCAPE '\\'")
    .toArray())
    sql.exec(`DROP TRIGGER ${name}`);
  for (const t of ["read_scratch_instances", "read_scratch_fts", "read_content_changes", "read_fts_log"]) sql.exec(`DROP TABLE ${t}`);
  sql.exec("DELETE FROM counters WHERE name = 'read_floor'");
  for (const fts of ["experiences_fts", "cases_fts", "when_fts"])
    for (const part of ["terms", "instances"]) sql.exec(`DROP TABLE ${fts}_${part}`);
  sql.exec("DROP TABLE read_changes");
  sql.exec("DELETE FROM counters WHERE name IN ('read_model', 'read_learn')");
  sql.exec("DROP TABLE quarantine");
  sql.exec("DROP INDEX library_versions_job");
  sql.exec("ALTER TABLE library_versions DROP COLUMN job_id");
  sql.exec("DROP TABLE retriever_state");
  sql.exec("DROP TABLE usage_fts");
  sql.exec("DROP TABLE usage_memory");
  sql.exec("ALTER TABLE retrievals DROP COLUMN query_code");
  for (const t of ["when_status_update", "when_fts_insert", "when_fts_delete", "when_fts_update"]) sql.exec(`DROP TRIGGER ${t}`);
  for (const t of ["when_fts", "when_vectors", "when_pending", "when_asked"]) sql.exec(`DROP TABLE ${t}`);
  sql.exec("ALTER TABLE experiences DROP COLUMN when_text");
  for (const t of ["retired_learning", "removed_lessons"]) sql.exec(`DROP TABLE ${t}`);
  sql.exec("DROP TABLE teach_counts");
  for (const c of ["key_id", "read_only", "reward_request", "reward_result"]) sql.exec(`ALTER TABLE retrievals DROP COLUMN ${c}`);
  for (const c of ["episode_id", "retrieval_id"]) sql.exec(`ALTER TABLE q_history DROP COLUMN ${c}`);
  for (const t of ["experiences", "cases"]) sql.exec(`ALTER TABLE ${t} DROP COLUMN metadata`);
  sql.exec("ALTER TABLE attempts DROP COLUMN infrastructure");
  for (const t of ["retrieval_secrets", "rewarded_tokens", "counter_batches", "token_retrievals"]) sql.exec(`DROP TABLE ${t}`);
  for (const t of ["subscriptions", "shared_lessons"]) sql.exec(`DROP TABLE ${t}`);
}

/** A fresh agent with an admin caller (the tenant's key) and a write-scoped caller. */
export async function writerFixture() {
  const f = await agentFixture();
  const write = await newKey(f.t.apiKey, "write");
  const as = (key: string) => (method: string, path: string, body?: unknown) =>
    call(method, `/v1/agents/${f.agentId}${path}`, { key, body });
  return { ...f, admin: as(f.t.apiKey), w: as(write.apiKey), writeKey: write.apiKey };
}
