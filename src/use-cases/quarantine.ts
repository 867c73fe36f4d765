import type { MemoryKind } from "../core/memory-types";
import { outcome } from "../core/errors";
import type { Caller, Deps } from "../platform/deps";
import { lessonTarget, targetName, type LessonTarget } from "../platform/objects/lesson-target";
import { recordAudit } from "../platform/records/audit";
import { authorOf } from "./lessons";

export type QuarantineQuery = LessonTarget & {
  kind?: MemoryKind | undefined;
  status?: "quarantined" | "pending" | undefined;
  limit: number;
  cursor?: string | undefined;
};

/**
 * What the screening step holds back: never retrieved or injected, listed for review, and
 * released or deleted only with an admin key, each decision audited with the reason it was held.
 */
export const listQuarantine = (deps: Deps, caller: Caller, input: QuarantineQuery) =>
  outcome(async () => {
    const { agentId: _agentId, libraryId: _libraryId, ...query } = input;
    const { memory } = await lessonTarget(deps, caller, input, "read");
    return memory.listQuarantine(query);
  });

export const getQuarantined = (deps: Deps, caller: Caller, input: LessonTarget & { id: string }) =>
  outcome(async () => {
    const { memory } = await lessonTarget(deps, caller, input, "read");
    return memory.getQuarantined({ id: input.id });
  });

/** Releases a held entry to the status it was written with. */
export const releaseQuarantined = (deps: Deps, caller: Caller, input: LessonTarget & { id: string }) =>
  outcome(async () => {
    const { id } = input;
    const { key, memory } = await lessonTarget(deps, caller, input, "admin");
    const held = await memory.getQuarantined({ id });
    const r = await memory.releaseQuarantined({ id, author: authorOf(key) });
    await recordAudit(deps, caller, {
      tenantId: key.tenantId,
      action: "quarantine.release",
      target: `${targetName(input)}/${id}`,
      detail: { kind: held.kind, reason: held.reason, status: r.status },
    });
    return r;
  });

export const deleteQuarantined = (deps: Deps, caller: Caller, input: LessonTarget & { id: string }) =>
  outcome(async () => {
    const { id } = input;
    const { key, memory } = await lessonTarget(deps, caller, input, "admin");
    const held = await memory.getQuarantined({ id });
    const r = await memory.deleteQuarantined({ id, author: authorOf(key) });
    await recordAudit(deps, caller, {
      tenantId: key.tenantId,
      action: "quarantine.delete",
      target: `${targetName(input)}/${id}`,
      detail: { kind: held.kind, reason: held.reason },
    });
    return { ...r, deleted: true as const };
  });
