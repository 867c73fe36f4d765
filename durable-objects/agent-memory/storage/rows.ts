import type { Case, Experience, ExperienceContent, Provenance } from "../../../src/core/memory-types";
import type { Metadata } from "../../../src/core/served-fields";
import { parseJson } from "./context";
import { judge, PROBATION, servedVerdict } from "../../../src/core/probation";

export interface ExperienceRow extends Record<string, SqlStorageValue> {
  id: string;
  seq: number;
  text: string;
  pattern: string | null;
  keywords: string;
  tags: string;
  domain: string | null;
  source: string;
  status: string;
  pinned: number;
  importance: number;
  q: number;
  retrieved: number;
  cited: number;
  uncited: number;
  successes: number;
  failures: number;
  provenance: string | null;
  created_at: number;
  updated_at: number;
  last_used_at: number | null;
  probation: number;
  when_text: string | null;
  metadata: string;
  trial_shown: number;
  trial_shown_ok: number;
  trial_control: number;
  trial_control_ok: number;
  trial_verdict: string | null;
  trial_reason: string | null;
  trial_at: number | null;
}

export interface CaseRow extends Record<string, SqlStorageValue> {
  id: string;
  seq: number;
  task: string;
  trace_summary: string | null;
  answer: string | null;
  reward: number;
  label: string;
  tools: string;
  tags: string;
  episode_id: string | null;
  status: string;
  q: number;
  retrieved: number;
  cited: number;
  uncited: number;
  successes: number;
  failures: number;
  created_at: number;
  updated_at: number;
  last_used_at: number | null;
  metadata: string;
}

/** What a library version records per experience: its content plus what rollback must restore. */
export interface ExperienceSnapshot extends ExperienceContent {
  id: string;
  seq: number;
  q: number;
  provenance: Provenance | null;
  createdAt: number;
}

export function contentOf(r: ExperienceRow): ExperienceContent {
  return {
    text: r.text,
    pattern: r.pattern,
    keywords: parseJson<string[]>(r.keywords, []),
    when: r.when_text ?? null,
    tags: parseJson<string[]>(r.tags, []),
    domain: r.domain,
    source: r.source as ExperienceContent["source"],
    status: r.status as ExperienceContent["status"],
    pinned: r.pinned === 1,
    importance: r.importance,
    metadata: parseJson<Metadata>(r.metadata, {}),
  };
}

export function snapshotOf(r: ExperienceRow): ExperienceSnapshot {
  return {
    id: r.id,
    seq: r.seq,
    ...contentOf(r),
    q: r.q,
    provenance: parseJson<Provenance | null>(r.provenance, null),
    createdAt: r.created_at,
  };
}

export function experienceOut(r: ExperienceRow, label: string | null, embeddingModel: string | null, activeModel: string): Experience {
  return {
    id: r.id,
    label,
    ...contentOf(r),
    probation: r.probation !== PROBATION.trusted,
    q: r.q,
    counts: { retrieved: r.retrieved, cited: r.cited, uncited: r.uncited, successes: r.successes, failures: r.failures },
    exposures: r.trial_shown,
    evidence: evidenceOf(r),
    provenance: parseJson<Provenance | null>(r.provenance, null),
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    lastUsedAt: r.last_used_at,
    embedding: { model: embeddingModel, current: embeddingModel === activeModel },
  };
}

function evidenceOf(r: ExperienceRow): Experience["evidence"] {
  const counts = { shown: r.trial_shown, shownOk: r.trial_shown_ok, control: r.trial_control, controlOk: r.trial_control_ok };
  return {
    shown: { prompts: counts.shown, successes: counts.shownOk },
    notShown: { prompts: counts.control, successes: counts.controlOk },
    difference: judge(counts).difference,
    verdict: servedVerdict(r.trial_verdict, r.probation),
    reason: r.trial_reason,
    decidedAt: r.trial_at,
  };
}

export function caseOut(r: CaseRow): Case {
  return {
    id: r.id,
    task: r.task,
    traceSummary: r.trace_summary,
    answer: r.answer,
    reward: r.reward,
    label: r.label as Case["label"],
    toolsUsed: parseJson<string[]>(r.tools, []),
    tags: parseJson<string[]>(r.tags, []),
    episodeId: r.episode_id,
    metadata: parseJson<Metadata>(r.metadata, {}),
    status: r.status as Case["status"],
    q: r.q,
    counts: { retrieved: r.retrieved, cited: r.cited, uncited: r.uncited, successes: r.successes, failures: r.failures },
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    lastUsedAt: r.last_used_at,
  };
}

/** The text an experience is embedded and matched by. */
export const experienceEmbedText = (c: Pick<ExperienceContent, "text" | "pattern" | "keywords">) =>
  [c.pattern, c.text, c.keywords.length ? c.keywords.join(" ") : null].filter(Boolean).join("\n");
