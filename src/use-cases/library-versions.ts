import { outcome } from "../core/errors";
import type { Caller, Deps } from "../platform/deps";
import type { Memory } from "../platform/objects/agent-access";
import { lessonTarget, type LessonTarget } from "../platform/objects/lesson-target";
import { reviewedBeforeWrite } from "../platform/checks/write-review";
import { authorOf } from "./lessons";

/** A library document as `exportLibrary` gives it and `importLibrary` takes it. */
export type LibraryDocument = Parameters<Memory["importLibrary"]>[0]["doc"];

/** What a rollback or an import did to the library, counted. */
const applied = (r: { version: number; unchanged: boolean; experiences: readonly unknown[]; deleted: readonly unknown[] }) => ({
  libraryVersion: r.version,
  unchanged: r.unchanged,
  changed: r.experiences.length,
  deleted: r.deleted.length,
});

export const libraryVersions = (deps: Deps, caller: Caller, input: LessonTarget & { limit: number; cursor?: number | undefined }) =>
  outcome(async () => {
    const { memory } = await lessonTarget(deps, caller, input, "read");
    return memory.libraryVersions({ limit: input.limit, before: input.cursor });
  });

/** The whole library exactly as it was after version n. */
export const libraryVersion = (deps: Deps, caller: Caller, input: LessonTarget & { n: number }) =>
  outcome(async () => {
    const { memory } = await lessonTarget(deps, caller, input, "read");
    return memory.libraryVersion({ n: input.n });
  });

/** What version n changed: each lesson it touched, before and after. */
export const libraryDiff = (deps: Deps, caller: Caller, input: LessonTarget & { n: number }) =>
  outcome(async () => {
    const { memory } = await lessonTarget(deps, caller, input, "read");
    return memory.libraryDiff({ n: input.n });
  });

/** Restores the library of an earlier version as a new version (`replayed` for a repeated idempotency key). */
export const rollbackLibrary = (
  deps: Deps,
  caller: Caller,
  input: LessonTarget & { version: number; idempotencyKey?: string | undefined },
) =>
  outcome(async () => {
    const { key, memory } = await lessonTarget(deps, caller, input, "write");
    const { value: r, replayed } = await memory.rollback({ n: input.version, author: authorOf(key), idempotencyKey: input.idempotencyKey });
    return { value: applied(r), replayed };
  });

export const exportLibrary = (deps: Deps, caller: Caller, input: LessonTarget) =>
  outcome(async () => {
    const { memory } = await lessonTarget(deps, caller, input, "read");
    return memory.exportLibrary();
  });

export type ImportLibraryInput = LessonTarget & {
  mode: "merge" | "replace";
  library: LibraryDocument;
  idempotencyKey?: string | undefined;
};

/**
 * Imports an export by merge or replace as one version. A small import is reviewed before the
 * write like a single lesson; every text still passes the screening step inside the agent's object.
 */
export const importLibrary = (deps: Deps, caller: Caller, input: ImportLibraryInput) =>
  outcome(async () => {
    const { key, memory, memoryId } = await lessonTarget(deps, caller, input, "write");
    const reviewed = await reviewedBeforeWrite(deps.env, key.tenantId, memoryId, input.library.experiences, deps.logger);
    const { value: r, replayed } = await memory.importLibrary({
      doc: input.library,
      mode: input.mode,
      author: authorOf(key),
      idempotencyKey: input.idempotencyKey,
      access: { admin: key.scope === "admin", reviewed },
    });
    return { value: applied(r), replayed };
  });
