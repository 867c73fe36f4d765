import type { KeyPrincipal } from "../core/principal";
import type { ExperienceCreate, ExperiencePatch, LibraryOperation, ListFilter, Provenance } from "../core/memory-types";
import { DUPLICATE_SIMILARITY } from "../core/live-lesson";
import { outcome } from "../core/errors";
import type { Caller, Deps } from "../platform/deps";
import { lessonTarget, type LessonTarget } from "../platform/objects/lesson-target";
import { reviewedBeforeWrite } from "../platform/checks/write-review";

/** The door a client's write came through; screening records it and judges some doors differently. */
export type Door = "api" | "mcp";

/** Who a client's change is recorded as in versions, provenance and held entries. */
export const authorOf = (key: KeyPrincipal) => `key:${key.keyId}`;

/** The access the screening step judges a client's write by: its door, and whether its key is admin-scoped. */
export const accessOf = (key: KeyPrincipal, door: Door) => ({ door, admin: key.scope === "admin" });

export type AddLessonInput = LessonTarget & {
  lesson: ExperienceCreate;
  door: Door;
  idempotencyKey?: string | undefined;
  /** Where the lesson came from; a client's own lesson names its key. */
  provenance?: Provenance | undefined;
};

/**
 * A client's lesson, written through the one screening step whatever the door: reviewed before
 * the write when it can be (so it is usable at once), else held for the queued review. Answers the
 * stored experience with the library version it made and the active lessons so similar that live
 * learning would take them for the same one (`replayed` for a repeated idempotency key).
 */
export const addLesson = (deps: Deps, caller: Caller, input: AddLessonInput) =>
  outcome(async () => {
    const { key, memory, memoryId } = await lessonTarget(deps, caller, input, "write");
    const reviewed = await reviewedBeforeWrite(deps.env, key.tenantId, memoryId, input.lesson, deps.logger);
    const { value: r, replayed } = await memory.createExperience({
      experience: input.lesson,
      author: authorOf(key),
      provenance: input.provenance ?? { keyId: key.keyId },
      idempotencyKey: input.idempotencyKey,
      access: { ...accessOf(key, input.door), reviewed },
    });
    const e = r.experience;
    const near = await memory.similarExperiences({ lesson: { id: e.id, text: e.text, pattern: e.pattern, keywords: e.keywords }, k: 4 });
    const similar = near.filter((n) => n.id !== e.id && n.sim >= DUPLICATE_SIMILARITY).map(({ id, text, sim }) => ({ id, text, sim }));
    return { value: { ...e, libraryVersion: r.version, similar }, replayed };
  });

export const listLessons = (deps: Deps, caller: Caller, input: LessonTarget & { filter: ListFilter }) =>
  outcome(async () => {
    const { memory } = await lessonTarget(deps, caller, input, "read");
    return memory.listExperiences(input.filter);
  });

export const getLesson = (deps: Deps, caller: Caller, input: LessonTarget & { id: string }) =>
  outcome(async () => {
    const { memory } = await lessonTarget(deps, caller, input, "read");
    return memory.getExperience({ id: input.id });
  });

/**
 * Changes a lesson as a new library version. A change to what the review reads is reviewed before
 * the write like a new lesson, on everything it reads as it will stand (`when` too: a reviewed text
 * must not carry an unreviewed `when` in with it).
 */
export const updateLesson = (deps: Deps, caller: Caller, input: LessonTarget & { id: string; patch: ExperiencePatch; door: Door }) =>
  outcome(async () => {
    const { id, patch } = input;
    const { key, memory, memoryId } = await lessonTarget(deps, caller, input, "write");
    const rewrites = patch.text !== undefined || patch.pattern !== undefined || patch.keywords !== undefined || patch.when !== undefined;
    const current = rewrites ? await memory.getExperience({ id }) : null;
    const reviewed =
      current !== null &&
      (await reviewedBeforeWrite(
        deps.env,
        key.tenantId,
        memoryId,
        {
          text: patch.text ?? current.text,
          pattern: patch.pattern !== undefined ? patch.pattern : current.pattern,
          keywords: patch.keywords ?? current.keywords,
          when: patch.when !== undefined ? patch.when : current.when,
        },
        deps.logger,
      ));
    const r = await memory.patchExperience({ id, patch, author: authorOf(key), access: { ...accessOf(key, input.door), reviewed } });
    return { ...r.experience, libraryVersion: r.version };
  });

export const deleteLesson = (deps: Deps, caller: Caller, input: LessonTarget & { id: string; door: Door }) =>
  outcome(async () => {
    const { key, memory } = await lessonTarget(deps, caller, input, "write");
    const r = await memory.deleteExperience({ id: input.id, author: authorOf(key), access: accessOf(key, input.door) });
    return { deleted: r.deleted, libraryVersion: r.version };
  });

export type LessonBatchInput = LessonTarget & {
  reason: string;
  operations: LibraryOperation[];
  door: Door;
  idempotencyKey?: string | undefined;
};

/** Several lesson changes as one library version: all of them or none. */
export const applyLessonBatch = (deps: Deps, caller: Caller, input: LessonBatchInput) =>
  outcome(async () => {
    const { key, memory } = await lessonTarget(deps, caller, input, "write");
    const { value: r, replayed } = await memory.applyLibrary({
      operations: input.operations,
      reason: input.reason,
      author: authorOf(key),
      provenance: { keyId: key.keyId },
      idempotencyKey: input.idempotencyKey,
      access: accessOf(key, input.door),
    });
    return { value: { libraryVersion: r.version, experiences: r.experiences, deleted: r.deleted }, replayed };
  });
