import { estimateTokens } from "../../../src/core/lexical";
import { libraryLine, oneLine, renderLibraryBlock } from "../../../src/core/library-block";
import { fenceData } from "../../../src/core/prompt-template";
import type { MemoryFilter, RetrieveRequest } from "../../../src/core/memory-types";
import { effectiveFilter, filterSql } from "./memory-filter";
import { MemoryError } from "../../memory-error";
import { placeholders, type MemoryContext } from "../storage/context";
import type { Library } from "../library/library";
import type { Asker, EmbeddedQuery, Retrieval } from "./retrieval";

export interface PromptRequest {
  query?: string;
  budgetTokens: number;
  phase?: RetrieveRequest["phase"];
  episodeId?: string;
  maxCases?: number;
  /** Only lessons and cases it matches may enter the block; "full library" then means the whole matching library. */
  filter?: MemoryFilter;
}

export interface PromptResponse {
  prompt: string;
  mode: "full-library" | "ranked";
  experienceIds: string[];
  caseIds: string[];
  retrievalId: string;
  estimatedTokens: number;
}

const LESSONS_HEADER = "Lessons learned from experience (cite the [G#] labels you use):";
/** Lessons of subscribed shared libraries go by `S#` labels, so they never take an own lesson's `G#`. */
const sharedLabel = (i: number) => `S${i}`;
const CASES_HEADER = "Similar past cases, recorded from earlier episodes:";
const CASES_LABEL = "past cases";
/** Room kept for the fence lines around the cases, so that adding them cannot overrun the budget. */
const CASES_FENCE_TOKENS = estimateTokens(fenceData(CASES_LABEL, ""));

/**
 * The block an agent injects. Like Training-Free GRPO, the whole library goes in when it fits the
 * budget; otherwise the best-scoring experiences for the query. Lessons on probation stay out
 * (they are only retrievable). Past cases hold task and answer text that any end user could have
 * written, so they go inside a data fence, one line each.
 */
export class PromptAssembly {
  constructor(
    private readonly ctx: MemoryContext,
    private readonly library: Library,
    private readonly retrieval: Retrieval,
  ) {}

  /** A read-scoped asker's block is recorded, but no use is counted and an episode's end does not credit it. */
  async build(req: PromptRequest, asker: Asker): Promise<PromptResponse> {
    if (req.budgetTokens < 1) throw MemoryError.invalid("budgetTokens must be positive");
    if (req.episodeId) this.retrieval.assertOpenEpisode(req.episodeId);
    let query: Promise<EmbeddedQuery> | null = null;
    const embedded = () => (query ??= this.retrieval.embedQuery(req.query ?? ""));
    const filter = effectiveFilter(req);
    const lessons = filterSql(filter, "experience");
    const all = this.ctx.sql
      .exec<{ id: string; seq: number; text: string }>(`SELECT id, seq, text FROM experiences t WHERE status = 'active' AND probation = 0${lessons.sql} ORDER BY seq`, ...lessons.params)
      .toArray()
      .map((r) => {
        const label = this.library.labelOf(r.seq)!;
        return { id: r.id, label, text: r.text, line: libraryLine({ label, text: r.text }), libraryId: undefined as string | undefined, q: undefined as number | undefined };
      });
    const shared = this.retrieval.shared?.any() ? await this.retrieval.shared.lessons(filter, this.retrieval.onSharedFailure) : [];
    shared.forEach((l, i) => all.push({ id: l.ref, label: sharedLabel(i), text: l.text, line: libraryLine({ label: sharedLabel(i), text: l.text }), libraryId: l.libraryId, q: l.q }));
    const full = `${LESSONS_HEADER}\n${renderLibraryBlock(all)}`;
    let mode: PromptResponse["mode"] = "full-library";
    let chosen = all;
    if (estimateTokens(full) > req.budgetTokens) {
      mode = "ranked";
      chosen = [];
      let order: string[];
      if (req.query) {
        const ranked = await this.retrieval.rankQuietly(await embedded(), ["experience"], req.phase, 100, filter);
        order = ranked.map((r) => r.id);
      } else {
        const own = this.ctx.sql.exec<{ id: string; q: number }>(`SELECT id, q FROM experiences t WHERE status = 'active'${lessons.sql} ORDER BY q DESC, seq`, ...lessons.params).toArray();
        const byQ = [...own, ...all.filter((e) => e.libraryId).map((e) => ({ id: e.id, q: e.q! }))];
        // A stable sort keeps the own lessons' label order among equal Qs, and puts them before shared ones.
        order = byQ.sort((a, b) => b.q - a.q).map((r) => r.id);
      }
      const lineOf = new Map(all.map((e) => [e.id, e]));
      let used = estimateTokens(LESSONS_HEADER);
      for (const id of order) {
        const e = lineOf.get(id);
        if (!e) continue;
        const cost = estimateTokens(e.line) + 1;
        if (used + cost > req.budgetTokens) continue;
        chosen.push(e);
        used += cost;
      }
    }
    const parts: string[] = chosen.length ? [`${LESSONS_HEADER}\n${renderLibraryBlock(chosen)}`] : [];
    let used = estimateTokens(parts.join("\n")) + estimateTokens(CASES_HEADER) + CASES_FENCE_TOKENS;
    const caseIds: string[] = [];
    if (req.query && (req.maxCases ?? 3) > 0) {
      const maxCases = req.maxCases ?? 3;
      const ranked = await this.retrieval.rankQuietly(await embedded(), ["case"], req.phase, maxCases * 3, filter);
      const cases = this.informative(ranked.map((c) => c.id));
      const lines: string[] = [];
      for (const c of ranked.filter((r) => cases.has(r.id)).slice(0, maxCases)) {
        const line = `- ${oneLine(c.text)}`;
        const cost = estimateTokens(line) + 1;
        if (used + cost > req.budgetTokens) continue;
        lines.push(line);
        caseIds.push(c.id);
        used += cost;
      }
      if (lines.length) parts.push(`${CASES_HEADER}\n${fenceData(CASES_LABEL, lines.join("\n"))}`);
    }
    const prompt = parts.join("\n\n");
    // With the whole library shown, inclusion says nothing about relevance: only what the agent
    // cites (by id or by quoting its label) counts as used and learns from the reward.
    const items = [
      ...chosen.map((e) => ({ id: e.id, kind: "experience" as const, label: e.label, citeOnly: mode === "full-library", ...(e.libraryId ? { libraryId: e.libraryId } : {}) })),
      ...caseIds.map((id) => ({ id, kind: "case" as const })),
    ];
    // The query's embedding is kept like /retrieve's, so a reward of this prompt teaches the usage
    // centroid of what the agent cites, not only its words.
    const queryVec = req.query ? (await embedded()).vec : undefined;
    const retrievalId = this.retrieval.record(req.query ?? "", req.phase ?? null, this.retrieval.lambda(req), req.episodeId ?? null, items, asker, queryVec);
    return { prompt, mode, experienceIds: chosen.map((e) => e.id), caseIds, retrievalId, estimatedTokens: estimateTokens(prompt) };
  }

  /**
   * Cases that carry an answer or a trace of what was tried. A bare "task (failed)" beside the same
   * task "(succeeded)" tells a model nothing, so such cases stay retrievable but out of the block.
   */
  private informative(ids: string[]): Set<string> {
    if (!ids.length) return new Set();
    return new Set(
      this.ctx.sql
        .exec<{ id: string }>(`SELECT id FROM cases WHERE id IN (${placeholders(ids.length)}) AND (answer IS NOT NULL OR trace_summary IS NOT NULL)`, ...ids)
        .toArray()
        .map((r) => r.id),
    );
  }
}
