import { env, runInDurableObject } from "cloudflare:test";
import type { AgentMemory } from "../../durable-objects/agent-memory";
import { memoryName } from "../../src/platform/objects/memory-name";
import { LLM_ENV, type SentRequest } from "../fake-llm";
import poisonedLessons from "../fixtures/poisoned-lessons.json";
import poisonStrings from "../fixtures/poison-strings.json";
import lookalikes from "../fixtures/benign-lookalikes.json";

export interface Lesson {
  text: string;
  pattern?: string;
  keywords?: string[];
}

const normal = (s: string) => s.toLowerCase().replace(/\s+/g, " ").trim();
const distinct = (lessons: Lesson[]) => lessons.filter((l, i) => lessons.findIndex((m) => normal(m.text) === normal(l.text)) === i);

/** Poison the deterministic filter is meant to stop: the fixture's `filter` entries and the strings other tests use. */
export const FILTER_POISON: Lesson[] = distinct([
  ...poisonedLessons.poisoned.filter((p) => p.expect === "filter").map(({ text, pattern, keywords }) => ({ text, pattern, keywords })),
  ...poisonStrings.poisoned.map((text) => ({ text })),
]);
/** The poison whose attack is in its text (not its pattern or keywords), for doors that take text alone (MCP add_experience). */
export const TEXT_POISON: Lesson[] = FILTER_POISON.filter(
  (l) => !poisonedLessons.poisoned.some((p) => p.technique === "keywords" && p.text === l.text),
);
/** Poison phrased as advice: only the LLM safety review can tell it apart. */
export const REVIEW_POISON: Lesson[] = poisonedLessons.poisoned
  .filter((p) => p.expect === "review")
  .map(({ text, pattern, keywords }) => ({ text, pattern, keywords }));
export const BENIGN: Lesson[] = [...lookalikes.benign.map((text) => ({ text })), ...poisonedLessons.benign];

/** Lines are folded the way stored text is shown, so a served item is recognised however it was rendered. */
const squash = (s: string) => s.replace(/\s+/g, " ").trim();
const POISON_TEXTS = [...FILTER_POISON, ...REVIEW_POISON].map((p) => squash(p.text));
export const isPoison = (text: string) => POISON_TEXTS.some((p) => squash(text).includes(p));

/**
 * Makes one agent's Durable Object see more deployment variables (the Worker's own env, and every
 * other agent's, stay as test/wrangler.toml sets them): how a test switches on a reviewer or a mode
 * for one agent in the shared runtime.
 */
export async function withEnv(tenantId: string, agentId: string, vars: Record<string, string>) {
  const stub = env.AGENT_MEMORY.getByName(memoryName(tenantId, agentId)) as DurableObjectStub<AgentMemory>;
  await runInDurableObject(stub, (instance) => {
    const self = instance as unknown as { env: Record<string, unknown> };
    self.env = { ...self.env, ...vars };
  });
}

/** Makes one agent's Durable Object see an LLM configuration. */
export const withReviewer = (tenantId: string, agentId: string) => withEnv(tenantId, agentId, LLM_ENV);

/**
 * A simulated safety reviewer: it reads the numbered lessons out of the review prompt and calls
 * unsafe exactly those a careful reviewer would (here: the known poison), safe the rest.
 */
export function reviewerReply(req: SentRequest) {
  const texts = [...req.prompt.matchAll(/^\d+\.\n(?: {3}pattern: .*\n)?(?: {3}keywords: .*\n)?(?: {3}when: .*\n)? {3}text: (.*)$/gm)].map(
    (m) => m[1]!,
  );
  return {
    verdicts: texts.map((text, index) =>
      isPoison(text)
        ? { index, safe: false, category: "harmful-policy", reason: "weakens a control the business relies on" }
        : { index, safe: true, category: "safe", reason: "ordinary advice" },
    ),
  };
}
