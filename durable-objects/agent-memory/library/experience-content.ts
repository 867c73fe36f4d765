import type { ExperienceContent } from "../../../src/core/memory-types";
import { experienceEmbedText, type ExperienceSnapshot } from "../storage/rows";

const CONTENT_KEYS = [
  "text",
  "pattern",
  "keywords",
  "when",
  "tags",
  "domain",
  "source",
  "status",
  "pinned",
  "importance",
  "metadata",
] as const;

/** Whether two snapshots hold the same library content (learned utility aside); a field older versions lack reads as its default. */
export function sameContent(a: ExperienceSnapshot, b: ExperienceSnapshot): boolean {
  const [x, y] = [pickContent(a), pickContent(b)];
  return CONTENT_KEYS.every((k) => JSON.stringify(x[k] ?? null) === JSON.stringify(y[k] ?? null));
}

/** The text to embed when what an experience is matched by changed; null keeps its vector. */
export function embedTextIfChanged(before: ExperienceContent, after: ExperienceContent): string | null {
  const changed =
    after.text !== before.text || after.pattern !== before.pattern || JSON.stringify(after.keywords) !== JSON.stringify(before.keywords);
  return changed ? experienceEmbedText(after) : null;
}

export function pickContent(s: ExperienceContent): ExperienceContent {
  return {
    text: s.text,
    pattern: s.pattern,
    keywords: s.keywords,
    // Versions written before `when` existed have none.
    when: s.when ?? null,
    tags: s.tags,
    domain: s.domain,
    source: s.source,
    status: s.status,
    pinned: s.pinned,
    importance: s.importance,
    // Nor before metadata existed.
    metadata: s.metadata ?? {},
  };
}

export function prefixIssues<T extends { path: ReadonlyArray<PropertyKey> }>(issues: readonly T[], prefix: PropertyKey[]) {
  return issues.map((i) => ({ ...i, path: [...prefix, ...i.path] }));
}
