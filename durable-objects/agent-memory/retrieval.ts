import { rank, type Candidate } from "../../src/core/scoring";
import { lexicalSimilarity } from "../../src/core/lexical";
import { tokenize } from "../../src/core/hash-embedder";
import type { MemoryKind, RetrieveRequest, RetrieveResponse, RetrievedItem } from "../../src/core/memory-types";
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
  probation: boolean;
  match: "vector" | "lexical";
  sim: number;
}

export interface EmbeddedQuery {
  text: string;
  vec: Float32Array;
}

export interface RecordedItem {
  id: string;
  kind: MemoryKind;
  score?: number;
  label?: string | null;
  citeOnly?: boolean;
}

/** Two-phase retrieval: similarity, then utility-aware re-ranking. */
export class Retrieval {
  constructor(
    private readonly ctx: MemoryContext,
    private readonly library: Library,
  ) {}

  lambda(req: { phase?: RetrieveRequest["phase"]; lambda?: number }): number {
    const table = this.ctx.config().lambda;
    return req.lambda ?? (req.phase ? table[req.phase] : table.default);
  }

  /** Embeds a query once; a remote embedder makes this a network call, so callers reuse it. */
  async embedQuery(text: string): Promise<EmbeddedQuery> {
    const [vec] = await this.ctx.vectors.embed([text]);
    return { text, vec: vec! };
  }

  /** Phase A: vector hits of the active model, plus lexical matches for items not embedded with it yet. */
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
      for (const r of this.ctx.sql.exec<{ id: string; text: string; q: number; tags: string; probation: number }>(
        `SELECT id, text, q, tags, probation FROM experiences WHERE id IN (${placeholders(ids.length)}) AND +status = 'active'`,
        ...ids,
      )) {
        const t = JSON.parse(r.tags) as string[];
        const f = found.get(r.id)!;
        if (keep(t)) out.push({ id: r.id, kind: "experience", text: r.text, q: r.q, tags: t, label: this.library.labelOf(r.id), probation: r.probation === 1, match: f.match, sim: f.sim });
      }
    }
    for (const ids of chunks(byKind("case"))) {
      for (const r of this.ctx.sql.exec<CaseRow>(
        `SELECT * FROM cases WHERE id IN (${placeholders(ids.length)}) AND +status = 'active'`,
        ...ids,
      )) {
        const t = JSON.parse(r.tags) as string[];
        const f = found.get(r.id)!;
        if (keep(t)) out.push({ id: r.id, kind: "case", text: caseText(r), q: r.q, tags: t, label: null, probation: false, match: f.match, sim: f.sim });
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
      return { id: r.id, kind: info.kind, label: info.label, probation: info.probation, text: info.text, sim: r.sim, simZ: r.simZ, q: r.q, qZ: r.qZ, lambda: r.lambda, score: r.score, match: info.match };
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

  /**
   * Every retrieval is kept so a later reward can be attributed to exactly what was shown, under
   * the label it was shown with. `citeOnly` items were shown without being selected for the query,
   * so they count as used, and learn, only when cited.
   */
  record(query: string, phase: string | null, lambda: number, episodeId: string | null, items: RecordedItem[]): string {
    const id = this.ctx.newId("ret");
    const now = this.ctx.now();
    this.ctx.storage.transactionSync(() => {
      this.ctx.sql.exec(
        "INSERT INTO retrievals (id, at, query, phase, lambda, episode_id, items) VALUES (?, ?, ?, ?, ?, ?, ?)",
        id, now, query, phase, lambda, episodeId,
        JSON.stringify(items.map((i) => ({ id: i.id, kind: i.kind, score: i.score ?? null, label: i.label ?? null, ...(i.citeOnly ? { citeOnly: true } : {}) }))),
      );
      for (const kind of ["experience", "case"] as const) {
        for (const ids of chunks(items.filter((i) => i.kind === kind && !i.citeOnly).map((i) => i.id))) {
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

  /** Ranking without recording, for assembling the prompt (which records what it finally includes). */
  async rankQuietly(query: EmbeddedQuery, kinds: MemoryKind[], phase: RetrieveRequest["phase"], k2: number) {
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
