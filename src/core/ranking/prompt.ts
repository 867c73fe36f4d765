/**
 * The block an agent injects, assembled from any source of lessons and rankings: the agent's object
 * answers from its storage, a Worker from a published snapshot, with this one assembly.
 */
import { estimateTokens } from "../lexical";
import { libraryLine, oneLine, renderLibraryBlock } from "../library-block";
import { fenceData } from "../prompt-template";
import type { MemoryFilter, MemoryKind } from "../memory-types";
import type { RetrieveRequest } from "../retrieval-types";
import { chooseExploration, PROBATION_RULE, type Exploration } from "../probation";

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
  libraryVersion: number;
  /** Lessons on probation the block shows to test them (also in `experienceIds`). */
  exploredIds: string[];
}

/** An item of the block as its retrieval records it, for the reward that follows. */
export interface PromptItem {
  id: string;
  kind: MemoryKind;
  label?: string | null;
  citeOnly?: boolean;
  /** A subscribed library's lesson: `id` is then its sharedRef (src/core/shared-lessons.ts). */
  libraryId?: string;
}

export interface PromptSource {
  /**
   * The active lessons the filter matches that are not on probation, in label order, with their
   * labels; then those of subscribed libraries (with their `libraryId`), where the source has any.
   */
  lessons(filter: MemoryFilter | undefined): { id: string; label: string; text: string; libraryId?: string | undefined }[];
  /** The agent's own active lessons the filter matches that are on probation and explored, in label order. */
  onProbation(filter: MemoryFilter | undefined): { id: string; label: string; text: string }[];
  /** Ids of the active lessons the filter matches, by Q (highest first), then label order: the ranking without a query. */
  lessonsByQ(filter: MemoryFilter | undefined): string[];
  /** The best `k2` items of `kind` for the query, as retrieval ranks them (without recording), with their base relevance. */
  ranked(
    kind: MemoryKind,
    phase: RetrieveRequest["phase"],
    k2: number,
    filter: MemoryFilter | undefined,
  ): Promise<{ id: string; text: string; base: number }[]>;
  /** Which of these cases carry an answer or a trace of what was tried. */
  informative(ids: readonly string[]): Set<string>;
}

const LESSONS_HEADER = "Lessons learned from experience (cite the [G#] labels you use):";
const CASES_HEADER = "Similar past cases, recorded from earlier episodes:";
const CASES_LABEL = "past cases";
/** Room kept for the fence lines around the cases, so that adding them cannot overrun the budget. */
const CASES_FENCE_TOKENS = estimateTokens(fenceData(CASES_LABEL, ""));

const labelNumber = (label: string) => Number(label.slice(1));

/**
 * The lessons on probation that match the request and the seeded choice among them
 * (src/core/probation.ts). With a query, a lesson matches when it ranks among the query's best
 * lessons and its own content matches the query at least half as well as the best one's does (base
 * relevance, which nothing learned moves); with none, every one the filter lets through matches.
 */
async function explore(source: PromptSource, req: PromptRequest, filter: MemoryFilter | undefined, seed: string | null) {
  const onTrial = seed === null ? [] : source.onProbation(filter);
  if (seed === null || !onTrial.length) return { lessons: [], choice: { shown: [], control: [] } as Exploration };
  const byId = new Map(onTrial.map((e) => [e.id, e]));
  let matching = onTrial.map((e) => e.id);
  if (req.query) {
    const best = await source.ranked("experience", req.phase, PROBATION_RULE.matchRank, filter);
    const top = Math.max(0, ...best.map((r) => r.base));
    matching = best.filter((r) => byId.has(r.id) && r.base >= PROBATION_RULE.matchRelevance * top).map((r) => r.id);
  }
  const choice = chooseExploration(seed, matching);
  return { lessons: choice.shown.map((id) => byId.get(id)!), choice };
}

/**
 * Like Training-Free GRPO, the whole library goes in when it fits the budget; otherwise the
 * best-scoring experiences for the query. A lesson on probation joins a block only when the
 * seeded draw explores it (`seed`: the episode, else the retrieval's id; null for an asker whose
 * outcome can never count, a read-scoped key, which is shown trusted lessons only), and then as any
 * other line; `trial` says which matching lessons on probation were shown and which were not, for
 * the outcome that follows. Past cases hold task and answer text that any end user could have written, so they
 * go inside a data fence, one line each. Cases that carry neither an answer nor a trace stay out:
 * a bare "task (failed)" beside the same task "(succeeded)" tells a model nothing.
 */
export async function assemblePrompt(source: PromptSource, req: PromptRequest, filter: MemoryFilter | undefined, seed: string | null) {
  const explored = await explore(source, req, filter, seed);
  type Lesson = ReturnType<PromptSource["lessons"]>[number];
  const trusted = source.lessons(filter);
  const own: Lesson[] = [...trusted.filter((e) => !e.libraryId), ...explored.lessons].sort(
    (a, b) => labelNumber(a.label) - labelNumber(b.label),
  );
  const all = [...own, ...trusted.filter((e) => e.libraryId)].map((e) => ({ ...e, line: libraryLine({ label: e.label, text: e.text }) }));
  const full = `${LESSONS_HEADER}\n${renderLibraryBlock(all)}`;
  let mode: PromptResponse["mode"] = "full-library";
  let chosen = all;
  if (estimateTokens(full) > req.budgetTokens) {
    mode = "ranked";
    chosen = [];
    const order = req.query ? (await source.ranked("experience", req.phase, 100, filter)).map((r) => r.id) : source.lessonsByQ(filter);
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
    const ranked = await source.ranked("case", req.phase, maxCases * 3, filter);
    const cases = source.informative(ranked.map((c) => c.id));
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
  // A lesson explored but left out by the budget was not shown: it is in neither arm.
  const inBlock = new Set(chosen.map((e) => e.id));
  const trial: Exploration = { shown: explored.choice.shown.filter((id) => inBlock.has(id)), control: explored.choice.control };
  const exploring = new Set(trial.shown);
  // With the whole library shown, inclusion says nothing about relevance: only what the agent
  // cites (by id or by quoting its label) counts as used and learns from the reward. A lesson
  // explored was chosen for the query.
  const items: PromptItem[] = [
    ...chosen.map((e) => ({
      id: e.id,
      kind: "experience" as const,
      label: e.label,
      citeOnly: mode === "full-library" && !exploring.has(e.id),
      ...(e.libraryId ? { libraryId: e.libraryId } : {}),
    })),
    ...caseIds.map((id) => ({ id, kind: "case" as const })),
  ];
  return {
    prompt,
    mode,
    experienceIds: chosen.map((e) => e.id),
    exploredIds: trial.shown,
    caseIds,
    items,
    trial,
    estimatedTokens: estimateTokens(prompt),
  };
}
