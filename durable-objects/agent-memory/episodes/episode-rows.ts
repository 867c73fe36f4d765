/** An episode's rows as stored, and what episodes.ts makes of them: attempts, errors, a case's trace, an end. */
import type { Attempt, EpisodeEnd, SessionEnd } from "../../../src/core/episode-types";
import { TRACE_SUMMARY_MAX_CHARS } from "../../../src/core/memory-types";
import { debracketCitations } from "../../../src/core/library-block";
import { redactSecrets } from "../../../src/core/redact";
import { digestIfTrace } from "../../../src/core/stack-digest";
import { parseJson } from "../storage/context";

export interface EpisodeRow extends Record<string, SqlStorageValue> {
  id: string;
  seq: number;
  task: string;
  metadata: string | null;
  session_id: string | null;
  status: string;
  outcome: string | null;
  score: number | null;
  answer: string | null;
  cited: string | null;
  result: string | null;
  created_at: number;
  ended_at: number | null;
}

export interface AttemptRow extends Record<string, SqlStorageValue> {
  episode_id: string;
  n: number;
  description: string;
  ok: number;
  error: string | null;
  tool_calls: string;
  infrastructure: number;
  at: number;
}

export interface ExtractionInput {
  episodeId: string;
  task: string;
  outcome: string | null;
  answer: string | null;
  failures: { description: string; error: string | null }[];
  successes: { description: string }[];
}

export const attemptOut = (a: AttemptRow): Attempt => ({
  n: a.n,
  description: a.description,
  ok: a.ok === 1,
  error: a.error,
  toolCalls: parseJson<string[]>(a.tool_calls, []),
  infrastructure: a.infrastructure === 1,
  at: a.at,
});

/**
 * What the task itself taught: an attempt that failed for a reason outside the task (a model API's
 * 404, a network error) is no evidence about it, so no case trace, lesson or extraction is built from it.
 */
export const taskAttempts = (attempts: Attempt[]) => attempts.filter((a) => !a.infrastructure);

/** Errors are digested to their essence and secrets redacted before anything stores or shows them. */
export const cleanError = (error: string | undefined) => (error ? digestIfTrace(redactSecrets(error)) : null);
export const preview = (value: unknown, max = 160) => {
  if (value === undefined) return "";
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return redactSecrets(text.length > max ? `${text.slice(0, max)}…` : text);
};

/** The end an interrupted run committed with its reward; a later end resumes it instead of its own. */
export function claimedEnd(ep: EpisodeRow): EpisodeEnd {
  const cited = parseJson<string[] | null>(ep.cited, null);
  return {
    outcome: ep.outcome as EpisodeEnd["outcome"],
    ...(ep.score !== null ? { score: ep.score } : {}),
    ...(ep.answer !== null ? { answer: ep.answer } : {}),
    ...(cited ? { citedIds: cited } : {}),
  };
}

export function endOf(session: SessionEnd): EpisodeEnd {
  return {
    outcome: session.outcome,
    ...(session.score !== undefined ? { score: session.score } : {}),
    ...(session.answer !== undefined ? { answer: session.answer } : {}),
  };
}

export function traceSummary(attempts: Attempt[], shown: ReadonlySet<string>): string | null {
  if (!attempts.length) return null;
  const lines = attempts.map(
    (a) => `#${a.n} ${a.ok ? "ok" : "failed"}: ${debracketCitations(a.description, shown)}${a.error ? ` — ${a.error}` : ""}`,
  );
  const text = lines.join("\n");
  return text.length > TRACE_SUMMARY_MAX_CHARS ? `${text.slice(0, TRACE_SUMMARY_MAX_CHARS - 1)}…` : text;
}
