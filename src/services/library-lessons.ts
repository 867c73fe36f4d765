import { outcome } from "../core/errors";
import type { Scope } from "../core/principal";
import type { ExperienceCreate, ExperiencePatch, ListFilter, MemoryKind } from "../core/memory-types";
import type { Caller, Deps } from "./deps";
import { callMemory, type MemoryStub } from "./agent-memory";
import { reviewedBeforeWrite } from "./admission";
import { libraryTarget } from "./libraries";

/**
 * A shared library's lessons, versions and held entries: the same object methods an agent's
 * library is served by, on the library's object, so admission (filter, review, quarantine),
 * versions and rollback are the agent's own mechanisms. Once the agent's lesson use cases take
 * their target (agent or library) as a parameter, these become those.
 */
type Target = Awaited<ReturnType<typeof libraryTarget>>;

const on = <T>(deps: Deps, caller: Caller, libraryId: string, scope: Scope, fn: (t: Target) => Promise<T>) =>
  outcome(async () => fn(await libraryTarget(deps, caller, libraryId, scope)));

const authorOf = (t: Target) => `key:${t.key.keyId}`;
const access = (t: Target, reviewed = false) => ({ door: "api" as const, admin: t.key.scope === "admin", reviewed });

export type LibraryDocument = Parameters<MemoryStub["importLibrary"]>[0];

export const addLibraryLesson = (deps: Deps, caller: Caller, input: { libraryId: string; lesson: ExperienceCreate; idempotencyKey?: string | undefined }) =>
  on(deps, caller, input.libraryId, "write", async (t) => {
    const reviewed = await reviewedBeforeWrite(deps.env, t.key.tenantId, t.memoryId, input.lesson, deps.logger);
    const { value: r, replayed } = await callMemory(() => t.memory.createExperience(input.lesson, authorOf(t), { keyId: t.key.keyId }, input.idempotencyKey, access(t, reviewed)));
    return { value: { ...r.experience, libraryVersion: r.version }, replayed };
  });

export const listLibraryLessons = (deps: Deps, caller: Caller, input: { libraryId: string; filter: ListFilter }) =>
  on(deps, caller, input.libraryId, "read", (t) => callMemory(() => t.memory.listExperiences(input.filter)));

export const getLibraryLesson = (deps: Deps, caller: Caller, input: { libraryId: string; id: string }) =>
  on(deps, caller, input.libraryId, "read", (t) => callMemory(() => t.memory.getExperience(input.id)));

export const updateLibraryLesson = (deps: Deps, caller: Caller, input: { libraryId: string; id: string; patch: ExperiencePatch }) =>
  on(deps, caller, input.libraryId, "write", async (t) => {
    const { patch } = input;
    const rewrites = patch.text !== undefined || patch.pattern !== undefined || patch.keywords !== undefined || patch.when !== undefined;
    const current = rewrites ? await callMemory(() => t.memory.getExperience(input.id)) : null;
    const reviewed =
      current !== null &&
      (await reviewedBeforeWrite(
        deps.env,
        t.key.tenantId,
        t.memoryId,
        {
          text: patch.text ?? current.text,
          pattern: patch.pattern !== undefined ? patch.pattern : current.pattern,
          keywords: patch.keywords ?? current.keywords,
          when: patch.when !== undefined ? patch.when : current.when,
        },
        deps.logger,
      ));
    const r = await callMemory(() => t.memory.patchExperience(input.id, patch, authorOf(t), access(t, reviewed)));
    return { ...r.experience, libraryVersion: r.version };
  });

export const deleteLibraryLesson = (deps: Deps, caller: Caller, input: { libraryId: string; id: string }) =>
  on(deps, caller, input.libraryId, "write", async (t) => {
    const r = await callMemory(() => t.memory.deleteExperience(input.id, authorOf(t), access(t)));
    return { deleted: r.deleted, libraryVersion: r.version };
  });

export const sharedLibraryVersions = (deps: Deps, caller: Caller, input: { libraryId: string; limit: number; cursor?: number | undefined }) =>
  on(deps, caller, input.libraryId, "read", (t) => callMemory(() => t.memory.libraryVersions(input.limit, input.cursor)));

export const sharedLibraryVersion = (deps: Deps, caller: Caller, input: { libraryId: string; n: number }) =>
  on(deps, caller, input.libraryId, "read", (t) => callMemory(() => t.memory.libraryVersion(input.n)));

export const sharedLibraryDiff = (deps: Deps, caller: Caller, input: { libraryId: string; n: number }) =>
  on(deps, caller, input.libraryId, "read", (t) => callMemory(() => t.memory.libraryDiff(input.n)));

const applied = (r: { version: number; unchanged: boolean; experiences: readonly unknown[]; deleted: readonly unknown[] }) => ({
  libraryVersion: r.version,
  unchanged: r.unchanged,
  changed: r.experiences.length,
  deleted: r.deleted.length,
});

export const rollbackSharedLibrary = (deps: Deps, caller: Caller, input: { libraryId: string; version: number; idempotencyKey?: string | undefined }) =>
  on(deps, caller, input.libraryId, "write", async (t) => {
    const { value: r, replayed } = await callMemory(() => t.memory.rollback(input.version, authorOf(t), input.idempotencyKey));
    return { value: applied(r), replayed };
  });

export const exportSharedLibrary = (deps: Deps, caller: Caller, input: { libraryId: string }) =>
  on(deps, caller, input.libraryId, "read", (t) => callMemory(() => t.memory.exportLibrary()));

export const importSharedLibrary = (deps: Deps, caller: Caller, input: { libraryId: string; mode: "merge" | "replace"; library: LibraryDocument; idempotencyKey?: string | undefined }) =>
  on(deps, caller, input.libraryId, "write", async (t) => {
    const reviewed = await reviewedBeforeWrite(deps.env, t.key.tenantId, t.memoryId, input.library.experiences, deps.logger);
    const { value: r, replayed } = await callMemory(() =>
      t.memory.importLibrary(input.library, input.mode, authorOf(t), input.idempotencyKey, { admin: t.key.scope === "admin", reviewed }),
    );
    return { value: applied(r), replayed };
  });

export const listLibraryQuarantine = (
  deps: Deps,
  caller: Caller,
  input: { libraryId: string; kind?: MemoryKind | undefined; status?: "quarantined" | "pending" | undefined; limit: number; cursor?: string | undefined },
) =>
  on(deps, caller, input.libraryId, "read", (t) => {
    const { libraryId: _l, ...opts } = input;
    return callMemory(() => t.memory.listQuarantine(opts));
  });

/** Releases or deletes a held entry (admin); answers what was held, for the audit record. */
export const decideLibraryQuarantined = (deps: Deps, caller: Caller, input: { libraryId: string; id: string; decision: "release" | "delete" }) =>
  on(deps, caller, input.libraryId, "admin", async (t) => {
    const held = await callMemory(() => t.memory.getQuarantined(input.id));
    const result =
      input.decision === "release"
        ? await callMemory(() => t.memory.releaseQuarantined(input.id, authorOf(t)))
        : { ...(await callMemory(() => t.memory.deleteQuarantined(input.id, authorOf(t)))), deleted: true as const };
    return { held, result, tenantId: t.key.tenantId };
  });
