import type { CaseCreate, CasePatch, ListFilter } from "../core/memory-types";
import { outcome } from "../core/errors";
import type { Caller, Deps } from "../platform/deps";
import { agentWithRow } from "../platform/objects/agent-access";
import { accessOf, type Door } from "./lessons";

/**
 * Stores a past episode as a retrievable case, idempotent per episodeId: `created` says whether
 * this call stored it, `replayed` whether a repeated idempotency key answered the first result.
 * Its texts pass the screening step inside the agent's object.
 */
export const addCase = (
  deps: Deps,
  caller: Caller,
  input: { agentId: string; case: CaseCreate; door: Door; idempotencyKey?: string | undefined },
) =>
  outcome(async () => {
    const { key, memory } = await agentWithRow(deps, caller, input.agentId, "write");
    const { value: r, replayed } = await memory.createCase({
      case: input.case,
      idempotencyKey: input.idempotencyKey,
      access: accessOf(key, input.door),
    });
    return { value: r.case, created: r.created, replayed };
  });

export const listCases = (deps: Deps, caller: Caller, input: { agentId: string; filter: ListFilter }) =>
  outcome(async () => {
    const { memory } = await agentWithRow(deps, caller, input.agentId, "read");
    return memory.listCases(input.filter);
  });

export const getCase = (deps: Deps, caller: Caller, input: { agentId: string; id: string }) =>
  outcome(async () => {
    const { memory } = await agentWithRow(deps, caller, input.agentId, "read");
    return memory.getCase({ id: input.id });
  });

/** A new answer or trace passes the screening step like a new case; a held case changes only through the quarantine. */
export const updateCase = (deps: Deps, caller: Caller, input: { agentId: string; id: string; patch: CasePatch; door: Door }) =>
  outcome(async () => {
    const { key, memory } = await agentWithRow(deps, caller, input.agentId, "write");
    return memory.patchCase({ id: input.id, patch: input.patch, access: accessOf(key, input.door) });
  });

export const deleteCase = (deps: Deps, caller: Caller, input: { agentId: string; id: string; door: Door }) =>
  outcome(async () => {
    const { key, memory } = await agentWithRow(deps, caller, input.agentId, "write");
    return memory.deleteCase({ id: input.id, access: accessOf(key, input.door) });
  });
