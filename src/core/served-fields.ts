import { z } from "zod";

/**
 * The one list of what stored text can reach a model: a field here is shown in a prompt (/prompt,
 * MCP get_prompt), returned as retrieval text (/retrieve, pull_experiences) or matched by retrieval
 * (pattern, keywords, `when` steer what is served). Every door that writes one of them screens it
 * through the screening step (the filter, then the review, else quarantine); the screening code
 * reads the fields from here, so a field added to this list is screened everywhere at once.
 *
 * An episode's attempts are never served themselves: they reach a model as the trace of the case
 * the episode's end stores (`traceSummary`), and the case is admitted with it. Whatever else a
 * memory carries is either set by the service (ids, Q, counts, times) or metadata a client names
 * (tags, domain, tool names, the metadata of lessons, cases and episodes): length- and charset-checked, never rendered into a
 * prompt or a retrieval text.
 */
export const SERVED_FIELDS = {
  experience: ["text", "pattern", "keywords", "when"],
  case: ["task", "answer", "traceSummary"],
  attempt: ["description", "error", "toolCalls"],
  /** An episode's task and answer become its case's task and answer; its attempts, the case's trace. */
  episode: ["task", "answer", "attempts"],
} as const;

/** Fields a client sets that are never served: checked by `metadataString`, kept out of prompts. */
export const METADATA_FIELDS = {
  experience: ["tags", "domain", "provenance", "metadata"],
  case: ["tags", "toolsUsed", "metadata"],
  attempt: [],
  episode: ["metadata"],
} as const;

/**
 * What else the memories' schemas hold: set by the service (ids, Q, counts, times, labels,
 * provenance) or typed values a client picks from a closed set (status, source, booleans, numbers).
 * None is free text, so none needs the screening step; test/core/served-fields.test.ts fails when a
 * schema grows a field that is in none of these lists.
 */
export const TYPED_FIELDS = {
  experience: [
    "id",
    "label",
    "probation",
    "q",
    "counts",
    "exposures",
    "evidence",
    "createdAt",
    "updatedAt",
    "lastUsedAt",
    "embedding",
    "qHistory",
    "source",
    "status",
    "pinned",
    "importance",
  ],
  case: ["id", "reward", "label", "episodeId", "status", "q", "counts", "createdAt", "updatedAt", "lastUsedAt"],
  attempt: ["n", "ok", "at", "infrastructure"],
  episode: ["id", "sessionId", "status", "outcome", "score", "citedIds", "result", "createdAt", "endedAt"],
} as const;

export type ServedCase = { task: string; answer: string | null; traceSummary: string | null };

/** A case's served fields as one text, the way the filter reads them. */
export const caseScreenedText = (c: ServedCase): string =>
  SERVED_FIELDS.case
    .map((f) => c[f])
    .filter((v): v is string => !!v)
    .join("\n");

/** A case's served fields as the safety reviewer reads them, each named. */
export function caseReviewText(c: ServedCase): string {
  const label: Record<(typeof SERVED_FIELDS.case)[number], string> = { task: "Task", answer: "Answer", traceSummary: "Tried" };
  return `Past case. ${SERVED_FIELDS.case
    .filter((f) => c[f])
    .map((f) => `${label[f]}: ${c[f]}`)
    .join(" ")}`;
}

/** Whether any served field of a case differs between two versions of it. */
export const caseServedChanged = (a: ServedCase, b: ServedCase) => SERVED_FIELDS.case.some((f) => (a[f] ?? null) !== (b[f] ?? null));

/**
 * Control, format (general category Cf: zero-width, bidi and invisible marks) and line or paragraph
 * separators. Metadata is a name, not prose, so none of them has a use there; in a prompt-adjacent
 * place they would hide what a value is.
 */
export const METADATA_FORBIDDEN_RE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;

/** A client-named value that is never served: trimmed, bounded, no control or format characters. */
export const metadataString = (max: number) =>
  z
    .string()
    .trim()
    .max(max)
    .refine((s) => !METADATA_FORBIDDEN_RE.test(s), "Must not contain control, format or line-separator characters");

/** Keys a client can name and filter on: short identifiers, so a key never needs quoting anywhere. */
export const METADATA_KEY_RE = /^[A-Za-z0-9_.:-]{1,64}$/;
export const METADATA_MAX_KEYS = 32;
export const METADATA_VALUE_MAX = 1000;

/** One metadata value: a bounded string, a finite number or a boolean (filters compare them by type and value). */
export const MetadataValueSchema = z.union([metadataString(METADATA_VALUE_MAX), z.number(), z.boolean()]);

/**
 * Free-form metadata on a lesson or a case (mem0's and Zep's `metadata`): flat, bounded, filterable
 * by equality, never served. Objects and arrays are refused so that a filter is one comparison per key.
 */
export const MetadataSchema = z
  .record(z.string().regex(METADATA_KEY_RE, "Keys are 1-64 characters of A-Z a-z 0-9 _ . : -"), MetadataValueSchema)
  .refine((r) => Object.keys(r).length <= METADATA_MAX_KEYS, `At most ${METADATA_MAX_KEYS} keys`)
  .describe(
    `Flat metadata: at most ${METADATA_MAX_KEYS} keys (1-64 characters of A-Z a-z 0-9 _ . : -), each a string (at most ${METADATA_VALUE_MAX} characters), a number or a boolean. Kept and returned, filterable, never put into a prompt`,
  );
export type Metadata = z.infer<typeof MetadataSchema>;
