import type { MemoryFilter, MemoryKind } from "../../../src/core/memory-types";
import type { RetrieveRequest } from "../../../src/core/retrieval-types";
import { effectiveFilter } from "../../../src/core/ranking/filter";
import { assemblePrompt, type PromptRequest, type PromptResponse, type PromptSource } from "../../../src/core/ranking/prompt";
import { filterSql } from "./memory-filter";
import { DomainError } from "../../../src/core/errors";
import { PROBATION } from "../../../src/core/probation";
import { placeholders, type MemoryContext } from "../storage/context";
import type { Library } from "../library/library";
import type { Asker, EmbeddedQuery, Retrieval } from "./retrieval";

type SharedLesson = Awaited<ReturnType<NonNullable<Retrieval["shared"]>["lessons"]>>[number];

export type { PromptRequest, PromptResponse } from "../../../src/core/ranking/prompt";

/** The prompt block (src/core/ranking/prompt.ts) assembled from the agent's storage, and recorded. */
export class PromptAssembly {
  constructor(
    private readonly ctx: MemoryContext,
    private readonly library: Library,
    private readonly retrieval: Retrieval,
  ) {}

  /** A read-scoped asker's block can be rewarded, but no use is counted and an episode's end does not credit it. */
  async build(req: PromptRequest, asker: Asker): Promise<PromptResponse> {
    if (req.budgetTokens < 1) throw DomainError.unprocessable("budgetTokens must be positive");
    if (req.episodeId) this.retrieval.assertOpenEpisode(req.episodeId);
    let query: Promise<EmbeddedQuery> | null = null;
    const embedded = () => (query ??= this.retrieval.embedQuery(req.query ?? ""));
    const filter = effectiveFilter(req);
    const shared = this.retrieval.shared?.any() ? await this.retrieval.shared.lessons(filter, this.retrieval.onSharedFailure) : [];
    // Every prompt of an episode explores alike; a prompt outside one draws on its own retrieval id.
    // A read-scoped key's outcome never counts: showing it an untested lesson would teach nothing.
    const id = this.ctx.newId("ret");
    const block = await assemblePrompt(this.source(embedded, shared), req, filter, asker.readOnly ? null : (req.episodeId ?? id));
    // The query's embedding is kept like /retrieve's, so a reward of this prompt teaches the usage
    // centroid of what the agent cites, not only its words.
    const queryVec = req.query ? (await embedded()).vec : undefined;
    const retrievalId = await this.retrieval.issue(
      req.query ?? "",
      req.phase ?? null,
      this.retrieval.lambda(req),
      req.episodeId ?? null,
      block.items,
      asker,
      queryVec,
      { id, trial: block.trial },
    );
    const { items: _items, trial: _trial, ...answer } = block;
    return { ...answer, retrievalId, libraryVersion: this.library.currentVersion() };
  }

  /** `shared`: the subscribed libraries' lessons, fetched before the block is assembled; they go by `S#` labels, so they never take an own lesson's `G#`. */
  private source(embedded: () => Promise<EmbeddedQuery>, shared: readonly SharedLesson[]): PromptSource {
    const sql = this.ctx.sql;
    return {
      lessons: (filter: MemoryFilter | undefined) => {
        const where = filterSql(filter, "experience");
        return sql
          .exec<{ id: string; seq: number; text: string }>(
            `SELECT id, seq, text FROM experiences t WHERE status = 'active' AND probation = 0${where.sql} ORDER BY seq`,
            ...where.params,
          )
          .toArray()
          .map((r): { id: string; label: string; text: string; libraryId?: string } => ({
            id: r.id,
            label: this.library.labelOf(r.seq)!,
            text: r.text,
          }))
          .concat(shared.map((l, i) => ({ id: l.ref, label: `S${i}`, text: l.text, libraryId: l.libraryId })));
      },
      onProbation: (filter: MemoryFilter | undefined) => {
        const where = filterSql(filter, "experience");
        return sql
          .exec<{ id: string; seq: number; text: string }>(
            `SELECT id, seq, text FROM experiences t WHERE status = 'active' AND probation = ${PROBATION.exploring}${where.sql} ORDER BY seq`,
            ...where.params,
          )
          .toArray()
          .map((r) => ({ id: r.id, label: this.library.labelOf(r.seq)!, text: r.text }));
      },
      lessonsByQ: (filter: MemoryFilter | undefined) => {
        const where = filterSql(filter, "experience");
        const own = sql
          .exec<{ id: string; q: number }>(
            `SELECT id, q FROM experiences t WHERE status = 'active'${where.sql} ORDER BY q DESC, seq`,
            ...where.params,
          )
          .toArray();
        // A stable sort keeps the own lessons' label order among equal Qs, and puts them before shared ones.
        return [...own, ...shared.map((l) => ({ id: l.ref, q: l.q }))].sort((a, b) => b.q - a.q).map((r) => r.id);
      },
      ranked: async (kind: MemoryKind, phase: RetrieveRequest["phase"], k2: number, filter: MemoryFilter | undefined) =>
        this.retrieval.rankQuietly(await embedded(), [kind], phase, k2, filter),
      informative: (ids: readonly string[]) =>
        ids.length
          ? new Set(
              sql
                .exec<{ id: string }>(
                  `SELECT id FROM cases WHERE id IN (${placeholders(ids.length)}) AND (answer IS NOT NULL OR trace_summary IS NOT NULL)`,
                  ...ids,
                )
                .toArray()
                .map((r) => r.id),
            )
          : new Set<string>(),
    };
  }
}
