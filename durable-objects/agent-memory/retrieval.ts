import { rank, type Candidate } from "../../src/core/scoring";
import { lexicalSimilarity, estimateTokens } from "../../src/core/lexical";
import { tokenize } from "../../src/core/hash-embedder";
import type { MemoryKind, RetrieveRequest, RetrieveResponse, RetrievedItem } from "../../src/core/memory-types";
import { MemoryError } from "../memory-error";
import { chunks, placeholders, type MemoryContext } from "./context";
import type { Library } from "./library";
import { experienceEmbedText, type CaseRow } from "./rows";

interface CandidateInfo {
  id: string;
  kind: MemoryKind;
  text: string;
  q: number;
  tags: string[];
  label: string | null;
  match: "vector" | "lexical";
  sim: number;
}

interface EmbeddedQuery {
  text: string;
  vec: Float32Array;
}

export interface PromptRequest {
  query?: string;
  budgetTokens: number;
  phase?: RetrieveRequest["phase"];
  episodeId?: string;
  maxCases?: number;
}

export interface PromptResponse {
  prompt: string;
  mode: "full-library" | "ranked";
  experienceIds: string[];
  caseIds: string[];
  retrievalId: string;
  estimatedTokens: number;
}

/** Two-phase retrieval (similarity, then utility-aware re-ranking) and the prompt block built on it. */
export class Retrieval {
  constructor(
    private readonly ctx: MemoryContext,
    private readonly library: Library,
  ) {}

  private lambda(req: { phase?: RetrieveRequest["phase"]; lambda?: number }): number {
    const table = this.ctx.config().lambda;
    return req.lambda ?? (req.phase ? table[req.phase] : table.default);
  }

  /** Phase A: vector hits of the active model, plus lexical matches for items not embedded with it yet. */
  /** Embeds a query once; a remote embedder makes this a network call, so callers reuse it. */
  private async embedQuery(text: string): Promise<EmbeddedQuery> {
    const [vec] = await this.ctx.vectors.embed([text]);
    return { text, vec: vec! };
  }

  private async candidates(query: EmbeddedQuery, kinds: MemoryKind[], k1: number, threshold: number, tags?: string[]) {
    const qvec = query.vec;
    const found = new Map<string, { kind: MemoryKind; sim: number; match: "vector" | "lexical" }>();
    const queryTokens = tokenize(query.text);
    for (const kind of kinds) {
      for (const hit of await this.ctx.vectors.search(qvec, kind, k1, threshold, tags)) {
        found.set(hit.id, { kind, sim: hit.sim, match: "vector" });
      }
      const missing = this.ctx.vectors.missingIds(kind);
      if (missing.length) {
        for (const { id, text } of this.texts(kind, missing)) {
          const sim = lexicalSimilarity(queryTokens, tokenize(text));
          if (sim >= threshold && !found.has(id)) found.set(id, { kind, sim, match: "lexical" });
        }
      }
    }
    return this.hydrate(found, tags);
  }

  private texts(kind: MemoryKind, ids: string[]): { id: string; text: string }[] {
    const out: { id: string; text: string }[] = [];
    for (const chunk of chunks(ids)) {
      const marks = placeholders(chunk.length);
      if (kind === "experience") {
        for (const r of this.ctx.sql.exec<{ id: string; text: string; pattern: string | null; keywords: string }>(
          `SELECT id, text, pattern, keywords FROM experiences WHERE id IN (${marks}) AND +status = 'active'`,
          ...chunk,
        )) {
          out.push({ id: r.id, text: experienceEmbedText({ text: r.text, pattern: r.pattern, keywords: JSON.parse(r.keywords) }) });
        }
      } else {
        for (const r of this.ctx.sql.exec<{ id: string; task: string }>(`SELECT id, task FROM cases WHERE id IN (${marks}) AND +status = 'active'`, ...chunk)) {
          out.push({ id: r.id, text: r.task });
        }
      }
    }
    return out;
  }

  /** Reads Q, text and tags of candidates; anything no longer active (the index may lag) is dropped. */
  private hydrate(found: Map<string, { kind: MemoryKind; sim: number; match: "vector" | "lexical" }>, tags?: string[]): CandidateInfo[] {
    const out: CandidateInfo[] = [];
    const byKind = (kind: MemoryKind) => [...found].filter(([, v]) => v.kind === kind).map(([id]) => id);
    const wanted = tags?.length ? new Set(tags) : null;
    const keep = (t: string[]) => !wanted || t.some((x) => wanted.has(x));
    for (const ids of chunks(byKind("experience"))) {
      for (const r of this.ctx.sql.exec<{ id: string; text: string; q: number; tags: string }>(
        `SELECT id, text, q, tags FROM experiences WHERE id IN (${placeholders(ids.length)}) AND +status = 'active'`,
        ...ids,
      )) {
        const t = JSON.parse(r.tags) as string[];
        const f = found.get(r.id)!;
        if (keep(t)) out.push({ id: r.id, kind: "experience", text: r.text, q: r.q, tags: t, label: this.library.labelOf(r.id), match: f.match, sim: f.sim });
      }
    }
    for (const ids of chunks(byKind("case"))) {
      for (const r of this.ctx.sql.exec<CaseRow>(
        `SELECT * FROM cases WHERE id IN (${placeholders(ids.length)}) AND +status = 'active'`,
        ...ids,
      )) {
        const t = JSON.parse(r.tags) as string[];
        const f = found.get(r.id)!;
        if (keep(t)) out.push({ id: r.id, kind: "case", text: caseText(r), q: r.q, tags: t, label: null, match: f.match, sim: f.sim });
      }
    }
    return out;
  }

  async retrieve(req: RetrieveRequest): Promise<RetrieveResponse> {
    const cfg = this.ctx.config();
    const lambda = this.lambda(req);
    const k1 = req.k1 ?? cfg.k1;
    const k2 = Math.min(req.k2 ?? cfg.k2, k1);
    const threshold = req.threshold ?? cfg.similarityThreshold;
    const infos = await this.candidates(await this.embedQuery(req.query), req.kinds ?? ["experience", "case"], k1, threshold, req.tags);
    const byId = new Map(infos.map((i) => [i.id, i]));
    const candidates: Candidate[] = infos.map((i) => ({ id: i.id, sim: i.sim, q: i.q }));
    const ranked = rank(candidates, { lambda, k1, k2, threshold });
    const items: RetrievedItem[] = ranked.map((r) => {
      const info = byId.get(r.id)!;
      return { id: r.id, kind: info.kind, label: info.label, text: info.text, sim: r.sim, simZ: r.simZ, q: r.q, qZ: r.qZ, lambda: r.lambda, score: r.score, match: info.match };
    });
    const retrievalId = this.record(req.query, req.phase ?? null, lambda, req.episodeId ?? null, items);
    return {
      retrievalId,
      phase: req.phase ?? null,
      lambda,
      candidates: Math.min(k1, infos.length),
      items,
    };
  }

  /** Every retrieval is kept so a later reward can be attributed to exactly what was shown. */
  private record(query: string, phase: string | null, lambda: number, episodeId: string | null, items: { id: string; kind: MemoryKind; score?: number }[]): string {
    const id = this.ctx.newId("ret");
    const now = this.ctx.now();
    this.ctx.storage.transactionSync(() => {
      this.ctx.sql.exec(
        "INSERT INTO retrievals (id, at, query, phase, lambda, episode_id, items) VALUES (?, ?, ?, ?, ?, ?, ?)",
        id, now, query, phase, lambda, episodeId,
        JSON.stringify(items.map((i) => ({ id: i.id, kind: i.kind, score: i.score ?? null }))),
      );
      for (const kind of ["experience", "case"] as const) {
        for (const ids of chunks(items.filter((i) => i.kind === kind).map((i) => i.id))) {
          this.ctx.sql.exec(
            `UPDATE ${kind === "experience" ? "experiences" : "cases"} SET retrieved = retrieved + 1, last_used_at = ? WHERE id IN (${placeholders(ids.length)})`,
            now,
            ...ids,
          );
        }
      }
    });
    return id;
  }

  /**
   * The block an agent injects. Like Training-Free GRPO, the whole library goes in when it fits
   * the budget; otherwise the best-scoring experiences for the query, then the closest cases.
   */
  async prompt(req: PromptRequest): Promise<PromptResponse> {
    if (req.budgetTokens < 1) throw MemoryError.invalid("budgetTokens must be positive");
    let query: Promise<EmbeddedQuery> | null = null;
    const embedded = () => (query ??= this.embedQuery(req.query ?? ""));
    const all = this.ctx.sql
      .exec<{ id: string; text: string }>("SELECT id, text FROM experiences WHERE status = 'active' ORDER BY seq")
      .toArray()
      .map((r) => ({ id: r.id, line: `[${this.library.labelOf(r.id)}]. ${r.text}` }));
    const header = "Lessons learned from experience (cite the [G#] labels you use):";
    const full = [header, ...all.map((e) => e.line)].join("\n");
    let mode: PromptResponse["mode"] = "full-library";
    let chosen = all;
    if (estimateTokens(full) > req.budgetTokens) {
      mode = "ranked";
      chosen = [];
      let order: string[];
      if (req.query) {
        const ranked = await this.retrieveQuiet(await embedded(), ["experience"], req.phase, 100);
        order = ranked.map((r) => r.id);
      } else {
        order = this.ctx.sql.exec<{ id: string }>("SELECT id FROM experiences WHERE status = 'active' ORDER BY q DESC, seq").toArray().map((r) => r.id);
      }
      const lineOf = new Map(all.map((e) => [e.id, e]));
      let used = estimateTokens(header);
      for (const id of order) {
        const e = lineOf.get(id);
        if (!e) continue;
        const cost = estimateTokens(e.line) + 1;
        if (used + cost > req.budgetTokens) continue;
        chosen.push(e);
        used += cost;
      }
    }
    const parts: string[] = chosen.length ? [[header, ...chosen.map((e) => e.line)].join("\n")] : [];
    let used = estimateTokens(parts.join("\n"));
    const caseIds: string[] = [];
    if (req.query && (req.maxCases ?? 3) > 0) {
      const cases = await this.retrieveQuiet(await embedded(), ["case"], req.phase, req.maxCases ?? 3);
      const lines: string[] = [];
      for (const c of cases) {
        const line = `- ${c.text.replace(/\n+/g, " ")}`;
        const cost = estimateTokens(line) + 1;
        if (used + cost + 10 > req.budgetTokens) continue;
        lines.push(line);
        caseIds.push(c.id);
        used += cost;
      }
      if (lines.length) parts.push(["Similar past cases:", ...lines].join("\n"));
    }
    const prompt = parts.join("\n\n");
    const items = [...chosen.map((e) => ({ id: e.id, kind: "experience" as const })), ...caseIds.map((id) => ({ id, kind: "case" as const }))];
    const retrievalId = this.record(req.query ?? "", req.phase ?? null, this.lambda(req), req.episodeId ?? null, items);
    return { prompt, mode, experienceIds: chosen.map((e) => e.id), caseIds, retrievalId, estimatedTokens: estimateTokens(prompt) };
  }

  /** Ranking without recording, for assembling the prompt (which records what it finally includes). */
  private async retrieveQuiet(query: EmbeddedQuery, kinds: MemoryKind[], phase: RetrieveRequest["phase"], k2: number) {
    const cfg = this.ctx.config();
    const k1 = Math.max(cfg.k1, k2);
    const infos = await this.candidates(query, kinds, k1, cfg.similarityThreshold);
    const byId = new Map(infos.map((i) => [i.id, i]));
    return rank(infos.map((i) => ({ id: i.id, sim: i.sim, q: i.q })), { lambda: this.lambda({ phase }), k1, k2, threshold: cfg.similarityThreshold }).map(
      (r) => byId.get(r.id)!,
    );
  }
}

function caseText(r: CaseRow): string {
  const outcome = r.label === "positive" ? "succeeded" : "failed";
  const answer = r.answer ? ` Answer: ${r.answer.slice(0, 400)}` : "";
  return `Task: ${r.task.slice(0, 600)} (${outcome}, reward ${r.reward}).${answer}`;
}
