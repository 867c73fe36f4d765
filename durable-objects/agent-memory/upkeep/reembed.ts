import type { MemoryContext } from "../storage/context";
import type { Library } from "../library/library";
import type { Cases } from "../episodes/cases";
import { experienceEmbedText } from "../storage/rows";

/** Items embedded per call, so each queue message's work stays short. */
const REEMBED_BATCH = 90;

export interface ReembedResult {
  model: string;
  embedded: number;
  remaining: number;
  /** The message was for another model than the active one (the embedder changed since): nothing to do. */
  stale: boolean;
}

export function missingVectorCount(mem: MemoryContext): number {
  return mem.vectors.missingIds("experience").length + mem.vectors.missingIds("case").length;
}

/** Embeds the next batch of items lacking a vector of `model`, the active model. */
export async function reembedBatch(mem: MemoryContext, library: Library, cases: Cases, model: string): Promise<ReembedResult> {
  const vectors = mem.vectors;
  if (model !== vectors.model) return { model: vectors.model, embedded: 0, remaining: 0, stale: true };
  const exp = vectors.missingIds("experience").slice(0, REEMBED_BATCH);
  const cas = vectors.missingIds("case").slice(0, REEMBED_BATCH - exp.length);
  const texts: { id: string; kind: "experience" | "case"; text: string }[] = [];
  for (const id of exp) {
    const row = library.row(id);
    if (row)
      texts.push({
        id,
        kind: "experience",
        text: experienceEmbedText({ text: row.text, pattern: row.pattern, keywords: JSON.parse(row.keywords) }),
      });
  }
  for (const id of cas) {
    const row = cases.row(id);
    if (row) texts.push({ id, kind: "case", text: row.task });
  }
  const vecs = await vectors.embed(texts.map((t) => t.text));
  // The embedder was swapped during the await: these vectors belong to no model the agent uses now.
  if (vectors !== mem.vectors) return { model: mem.vectors.model, embedded: 0, remaining: 0, stale: true };
  mem.storage.transactionSync(() => texts.forEach((t, i) => vectors.writeSync(t.id, t.kind, vecs[i]!)));
  await vectors.publish(
    texts.map((t) => t.id),
    [],
  );
  return { model, embedded: texts.length, remaining: missingVectorCount(mem), stale: false };
}
