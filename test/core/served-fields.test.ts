import { describe, expect, it } from "vitest";
import type { z } from "zod";
import {
  CaseCreateSchema,
  CasePatchSchema,
  CaseSchema,
  ExperienceCreateSchema,
  ExperiencePatchSchema,
  ExperienceSchema,
} from "../../src/core/memory-types";
import { RetrievedItemSchema } from "../../src/core/retrieval-types";
import { AttemptCreateSchema, AttemptSchema, EpisodeCreateSchema, EpisodeEndSchema, EpisodeSchema } from "../../src/core/episode-types";
import { METADATA_FIELDS, SERVED_FIELDS, TYPED_FIELDS, caseScreenedText, metadataString } from "../../src/core/served-fields";

type Kind = keyof typeof SERVED_FIELDS;
const keysOf = (schema: z.ZodType): string[] => {
  const shape = (schema as unknown as { shape?: Record<string, unknown>; def?: { in?: z.ZodType; schema?: z.ZodType } }).shape;
  if (shape) return Object.keys(shape);
  const def = (schema as unknown as { def: { in?: z.ZodType; schema?: z.ZodType } }).def;
  return keysOf((def.in ?? def.schema)!);
};
const classified = (kind: Kind) =>
  new Set<string>([...SERVED_FIELDS[kind], ...(METADATA_FIELDS[kind] ?? []), ...(TYPED_FIELDS[kind] ?? [])]);

/** Every schema a memory is written or served through, by the kind of memory it describes. */
const SCHEMAS: [Kind, string, z.ZodType][] = [
  ["experience", "Experience", ExperienceSchema],
  ["experience", "ExperienceCreate", ExperienceCreateSchema],
  ["experience", "ExperiencePatch", ExperiencePatchSchema],
  ["case", "Case", CaseSchema],
  ["case", "CaseCreate", CaseCreateSchema],
  ["case", "CasePatch", CasePatchSchema],
  ["attempt", "Attempt", AttemptSchema],
  ["attempt", "AttemptCreate", AttemptCreateSchema],
  ["episode", "Episode", EpisodeSchema],
  ["episode", "EpisodeCreate", EpisodeCreateSchema],
  ["episode", "EpisodeEnd", EpisodeEndSchema],
];

describe("served-field coverage", () => {
  it.each(SCHEMAS)("every field of %s's %s schema is served (admitted), metadata (checked) or typed", (kind, _name, schema) => {
    const unknown = keysOf(schema).filter((k) => !classified(kind).has(k));
    expect(unknown, `classify these in src/core/served-fields.ts (SERVED_FIELDS if they can reach a model)`).toEqual([]);
  });

  it("a retrieval result serves one text per item: an experience's text or a case's served fields", () => {
    // Everything else a retrieved item carries is a number, a label or a channel name.
    const textual = keysOf(RetrievedItemSchema).filter((k) => {
      const f = (RetrievedItemSchema.shape as Record<string, z.ZodType>)[k]!;
      return (f as unknown as { def: { type: string } }).def.type === "string";
    });
    expect(textual.sort()).toEqual(["id", "text"]);
  });

  it("no field is both served and metadata, and the lists name real fields", () => {
    for (const kind of Object.keys(SERVED_FIELDS) as Kind[]) {
      const meta = new Set<string>(METADATA_FIELDS[kind] ?? []);
      expect(SERVED_FIELDS[kind].filter((f) => meta.has(f))).toEqual([]);
      const known = new Set(SCHEMAS.filter(([k]) => k === kind).flatMap(([, , s]) => keysOf(s)));
      expect([...classified(kind)].filter((f) => !known.has(f))).toEqual([]);
    }
  });

  it("a case's screened text holds every served field", () => {
    expect(caseScreenedText({ task: "T", answer: "A", traceSummary: "#1 failed: X" })).toBe("T\nA\n#1 failed: X");
    expect(caseScreenedText({ task: "T", answer: null, traceSummary: "tried" })).toBe("T\ntried");
  });

  it("metadata refuses control, format and separator characters", () => {
    const m = metadataString(64);
    for (const bad of ["a\u0000b", "tag\u200B", "x\u202Ey", "a\u2028b", "\u061Cname", "a\nb", "\uFFF9x", "x\u180Ey"])
      expect(m.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    for (const ok of ["billing", "café", "日本語", "a-b_c.d"]) expect(m.safeParse(ok).success).toBe(true);
  });
});
