import { outcome } from "../core/errors";
import type { AttemptCreate, EpisodeCreate, EpisodeEnd } from "../core/episode-types";
import type { Caller, Deps } from "../platform/deps";
import { agentMemory } from "../platform/objects/agent-access";

/**
 * An agent's episode loop as every door runs it — start, log attempts, end — and the record it
 * leaves. Retrieval and the prompt block, the loop's reads, are use-cases/retrieval.ts.
 */
type AgentRef = { agentId: string };
type EpisodeRef = AgentRef & { episodeId: string };

/** A new open episode; `replayed` when an earlier call with the same idempotency key made it. */
export const startEpisode = (
  deps: Deps,
  caller: Caller,
  input: AgentRef & { episode: EpisodeCreate; idempotencyKey?: string | undefined },
) =>
  outcome(async () => {
    const { memory } = agentMemory(deps, caller, input.agentId, "write");
    const { value: episode, replayed } = await memory.createEpisode({ episode: input.episode, idempotencyKey: input.idempotencyKey });
    return { episode, replayed };
  });

export const logAttempt = (deps: Deps, caller: Caller, input: EpisodeRef & { attempt: AttemptCreate }) =>
  outcome(async () => {
    const { memory } = agentMemory(deps, caller, input.agentId, "write");
    return memory.addAttempt({ episodeId: input.episodeId, attempt: input.attempt });
  });

/**
 * Ends the episode. Ending is idempotent: a second end returns the first result and changes
 * nothing. With `noticeRepeat`, the episode is read first so `alreadyEnded` says whether this
 * call found it ended (a round trip callers that do not report it are spared; null without).
 */
export const endEpisode = (deps: Deps, caller: Caller, input: EpisodeRef & { end: EpisodeEnd; noticeRepeat?: boolean }) =>
  outcome(async () => {
    const { memory } = agentMemory(deps, caller, input.agentId, "write");
    const before = input.noticeRepeat ? await memory.getEpisode({ episodeId: input.episodeId }) : null;
    const episode = await memory.endEpisode({ episodeId: input.episodeId, end: input.end });
    return { episode, alreadyEnded: before ? before.status === "ended" : null };
  });

export const getEpisode = (deps: Deps, caller: Caller, input: EpisodeRef) =>
  outcome(async () => {
    const { memory } = agentMemory(deps, caller, input.agentId, "read");
    return memory.getEpisode({ episodeId: input.episodeId });
  });

/** What the agent retrieved for the episode, oldest first. */
export const listEpisodeRetrievals = (deps: Deps, caller: Caller, input: EpisodeRef) =>
  outcome(async () => {
    const { memory } = agentMemory(deps, caller, input.agentId, "read");
    return { items: await memory.episodeRetrievals({ episodeId: input.episodeId }) };
  });

export const listEpisodes = (
  deps: Deps,
  caller: Caller,
  input: AgentRef & { limit: number; cursor?: string | undefined; status?: "open" | "ended" | undefined },
) =>
  outcome(async () => {
    const { memory } = agentMemory(deps, caller, input.agentId, "read");
    return memory.listEpisodes({ limit: input.limit, cursor: input.cursor, status: input.status });
  });
