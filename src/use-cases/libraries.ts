import { and, asc, count, eq, gt, inArray } from "drizzle-orm";
import { libraries, libraryPins, librarySubscriptions } from "../db/schema";
import { db } from "../db/client";
import { forbidden, notFound, outcome, unprocessable, unwrap } from "../core/errors";
import { requireScope } from "../core/principal";
import { cursorField, pageOf } from "../core/cursor";
import { aggregateSubscribers, libraryMemoryId, pinnedMemoryId } from "../core/shared-lessons";
import type { ExperienceCreate } from "../core/memory-types";
import type { Caller, Deps } from "../platform/deps";
import { agentWithRow, resilientMemory } from "../platform/objects/agent-access";
import { d1Read, d1Write } from "../platform/objects/binding-faults";
import { reviewedBeforeWrite } from "../platform/checks/write-review";
import { libraryTarget, requireLibraryAccess } from "../platform/objects/lesson-target";
import { addLesson } from "./lessons";
import { recordAudit } from "../platform/records/audit";
import { forgetDeleted } from "../platform/edge/read-pipeline";

/**
 * Shared libraries. A library is a tenant resource: its name in D1, its lessons in an
 * AgentMemory object of its own (`${tenantId}:library:${libraryId}`), so lessons, versions, diff,
 * rollback, export and import, quarantine and the screening step are the agent's use cases with a
 * library as their target (./lesson-target.ts). Subscribers keep their own copy of their subscriptions and their own Q for
 * shared lessons (durable-objects/agent-memory/sharing/), so a write to a library touches no
 * subscriber and a subscriber's read asks no D1.
 */

export type LibraryRow = typeof libraries.$inferSelect;

const libraryOut = (r: LibraryRow, subscribers?: number) => ({
  libraryId: r.libraryId,
  name: r.name,
  description: r.description,
  createdAt: r.createdAt,
  updatedAt: r.updatedAt,
  ...(subscribers !== undefined ? { subscribers } : {}),
});

/** Those of `libraryIds` that are not libraries of the tenant, in one statement however many there are. */
export async function unknownLibraries(env: Deps["env"], tenantId: string, libraryIds: readonly string[]): Promise<string[]> {
  const rows = await d1Read(() =>
    env.DB.prepare("SELECT value FROM json_each(?1) WHERE value NOT IN (SELECT library_id FROM libraries WHERE tenant_id = ?2)")
      .bind(JSON.stringify(libraryIds), tenantId)
      .all<{ value: string }>(),
  );
  return rows.results.map((r) => r.value);
}

/**
 * Creates the object holding a library's lessons. Its lessons never decay: subscribers record their
 * uses in their own objects, so the library's own use counts never grow, and decay would archive
 * every shared lesson after a few months however much it is used. Its owners remove lessons.
 */
async function openLibraryObject(deps: Pick<Deps, "env">, tenantId: string, memoryId: string) {
  const memory = resilientMemory(deps.env, tenantId, memoryId);
  await memory.registerAgent();
  await memory.patchConfig({ decay: { enabled: false } });
  return memory;
}

const newLibraryId = () => `lib_${crypto.randomUUID().replace(/-/g, "").slice(0, 20)}`;

export const createLibrary = (deps: Deps, caller: Caller, input: { name: string; description?: string | null | undefined }) =>
  outcome(async () => {
    const key = requireScope(caller, "write");
    if (key.libraryIds) throw forbidden("This key is restricted to some libraries; creating one needs a key that is not.");
    const libraryId = newLibraryId();
    const row = await d1Write(() =>
      db(deps.env)
        .insert(libraries)
        .values({ tenantId: key.tenantId, libraryId, name: input.name, description: input.description ?? null })
        .returning()
        .get(),
    );
    await openLibraryObject(deps, key.tenantId, libraryMemoryId(libraryId));
    return libraryOut(row, 0);
  });

export const listLibraries = (deps: Deps, caller: Caller, input: { limit: number; cursor?: string | undefined }) =>
  outcome(async () => {
    const key = requireScope(caller, "read");
    const after = cursorField(input.cursor, { l: "string" })?.l;
    const rows = await d1Read(() =>
      db(deps.env)
        .select()
        .from(libraries)
        .where(
          and(
            eq(libraries.tenantId, key.tenantId),
            after ? gt(libraries.libraryId, after) : undefined,
            key.libraryIds ? inArray(libraries.libraryId, key.libraryIds) : undefined,
          ),
        )
        .orderBy(asc(libraries.libraryId))
        .limit(input.limit + 1)
        .all(),
    );
    const page = pageOf(rows, input.limit, (last) => ({ l: last.libraryId }));
    return { items: page.items.map((r) => libraryOut(r)), nextCursor: page.nextCursor };
  });

export const getLibrary = (deps: Deps, caller: Caller, input: { libraryId: string }) =>
  outcome(async () => {
    const { key, library, memory } = await libraryTarget(deps, caller, input.libraryId, "read");
    const [subscribers, versions] = await Promise.all([
      d1Read(() =>
        db(deps.env)
          .select({ n: count() })
          .from(librarySubscriptions)
          .where(and(eq(librarySubscriptions.tenantId, key.tenantId), eq(librarySubscriptions.libraryId, input.libraryId)))
          .get(),
      ),
      memory.libraryVersions({ limit: 1 }),
    ]);
    return { ...libraryOut(library, subscribers?.n ?? 0), libraryVersion: versions.items[0]?.version ?? 0 };
  });

export const updateLibrary = (
  deps: Deps,
  caller: Caller,
  input: { libraryId: string; name?: string | undefined; description?: string | null | undefined },
) =>
  outcome(async () => {
    const { key } = await libraryTarget(deps, caller, input.libraryId, "write");
    const row = await d1Write(() =>
      db(deps.env)
        .update(libraries)
        .set({
          ...(input.name !== undefined ? { name: input.name } : {}),
          ...(input.description !== undefined ? { description: input.description } : {}),
          updatedAt: Date.now(),
        })
        .where(and(eq(libraries.tenantId, key.tenantId), eq(libraries.libraryId, input.libraryId)))
        .returning()
        .get(),
    );
    if (!row) throw notFound(`Library '${input.libraryId}' does not exist.`);
    return libraryOut(row);
  });

/**
 * Deletes the library: its object first (it refuses every later call, so each subscriber's reads
 * leave it out and its sweep ends the subscription: no subscriber is written to now), then the
 * frozen copies of its pinned versions, then its row, whose subscriptions and pins go with it. A
 * failure part way leaves the row, so it can be repeated.
 */
export const deleteLibrary = (deps: Deps, caller: Caller, input: { libraryId: string }) =>
  outcome(async () => {
    const { key, memory } = await libraryTarget(deps, caller, input.libraryId, "admin");
    await memory.deleteAgent();
    forgetDeleted(key.tenantId, libraryMemoryId(input.libraryId));
    for (const version of await pinnedVersions(deps, key.tenantId, input.libraryId)) {
      await resilientMemory(deps.env, key.tenantId, pinnedMemoryId(input.libraryId, version)).deleteAgent();
    }
    await d1Write(() =>
      db(deps.env)
        .delete(libraries)
        .where(and(eq(libraries.tenantId, key.tenantId), eq(libraries.libraryId, input.libraryId)))
        .run(),
    );
    await recordAudit(deps, caller, { tenantId: key.tenantId, action: "library.delete", target: input.libraryId });
    return { deleted: input.libraryId };
  });

/**
 * Shared libraries one agent draws on at most. Each read ranks every one of them (and a cold read
 * starts each library's object): at the cap an agent's first read takes 0.26–0.5 s on a local
 * runtime (docs/concepts.md, "Shared libraries"), where 120 took seconds and once brought the runtime down.
 */
export const MAX_SUBSCRIPTIONS_PER_AGENT = 20;

export interface SubscribeInput {
  agentId: string;
  libraryId: string;
  weight?: number | undefined;
  /** Absent or null: follow the library's latest version. */
  pinVersion?: number | null | undefined;
}

/**
 * Subscribes an agent to a library of its own tenant (another tenant's is not found), or changes
 * the subscription's weight or pin (a PUT: what is left out is the default, weight 1 and no pin).
 * D1 keeps the row the library's owners list; the agent's object keeps its own copy, which its
 * reads use. A pinned version gets its frozen copy first, so no read finds it missing.
 */
export const subscribe = (deps: Deps, caller: Caller, input: SubscribeInput) =>
  outcome(async () => {
    const { key, memory } = await agentWithRow(deps, caller, input.agentId, "write");
    const library = await libraryTarget(deps, caller, input.libraryId, "read");
    const weight = input.weight ?? 1;
    const pinVersion = input.pinVersion ?? null;
    if (pinVersion !== null) await ensurePinnedCopy(deps, library, pinVersion);
    // The count and the insert are one statement, so concurrent subscriptions cannot pass the cap together.
    const written = await d1Write(() =>
      deps.env.DB.prepare(
        `INSERT INTO library_subscriptions (tenant_id, library_id, agent_id, weight, pin_version)
         SELECT ?1, ?2, ?3, ?4, ?5 WHERE EXISTS (SELECT 1 FROM library_subscriptions WHERE tenant_id = ?1 AND library_id = ?2 AND agent_id = ?3)
           OR (SELECT count(*) FROM library_subscriptions WHERE tenant_id = ?1 AND agent_id = ?3) < ?6
         ON CONFLICT (tenant_id, library_id, agent_id) DO UPDATE SET weight = excluded.weight, pin_version = excluded.pin_version
         RETURNING library_id`,
      )
        .bind(key.tenantId, input.libraryId, input.agentId, weight, pinVersion, MAX_SUBSCRIPTIONS_PER_AGENT)
        .first(),
    );
    if (!written)
      throw unprocessable(
        `Agent '${input.agentId}' already subscribes to ${MAX_SUBSCRIPTIONS_PER_AGENT} libraries, the most an agent may; end one of those subscriptions first.`,
        [{ path: "libraryId", message: `At most ${MAX_SUBSCRIPTIONS_PER_AGENT} subscriptions per agent` }],
      );
    const s = await memory.subscribe({ subscription: { libraryId: input.libraryId, weight, pinVersion } });
    return { agentId: input.agentId, ...s };
  });

/** Distinct pinned versions a library keeps frozen copies of; past it, those no subscription pins any more are deleted first. */
export const MAX_PINNED_VERSIONS = 16;

function pinnedVersions(deps: Pick<Deps, "env">, tenantId: string, libraryId: string): Promise<number[]> {
  return d1Read(() =>
    db(deps.env)
      .select({ version: libraryPins.version })
      .from(libraryPins)
      .where(and(eq(libraryPins.tenantId, tenantId), eq(libraryPins.libraryId, libraryId)))
      .all(),
  ).then((rows) => rows.map((r) => r.version));
}

/**
 * The frozen copy of the library as it stood after `version`: its active lessons, imported (same
 * ids, through the copy's own admission) into an object of their own. Made once per version; the
 * import's idempotency key and a document fixed by the version make two subscribers pinning it at
 * once write the same copy. Reads filter out what the library held since (see sharing/library-port).
 */
async function ensurePinnedCopy(deps: Deps, library: Awaited<ReturnType<typeof libraryTarget>>, version: number): Promise<void> {
  const { tenantId } = library.key;
  const { libraryId } = library.library;
  const pins = await pinnedVersions(deps, tenantId, libraryId);
  if (pins.includes(version)) return;
  const current = (await library.memory.libraryVersions({ limit: 1 })).items[0]?.version ?? 0;
  if (version > current) {
    throw unprocessable(`Library '${libraryId}' has no version ${version}; its current version is ${current}.`, [
      { path: "pinVersion", message: `At most ${current}` },
    ]);
  }
  if (pins.length >= MAX_PINNED_VERSIONS) await forgetUnusedPins(deps, tenantId, libraryId, pins);
  const detail = await library.memory.libraryVersion({ n: version });
  const doc = {
    format: "praxis-library/v1" as const,
    libraryVersion: version,
    exportedAt: detail.createdAt,
    experiences: detail.experiences
      .filter((e) => e.status === "active")
      .map(({ seq: _seq, createdAt: _createdAt, label: _label, ...e }) => e),
  };
  const copy = await openLibraryObject(deps, tenantId, pinnedMemoryId(libraryId, version));
  const reviewed = await reviewedBeforeWrite(deps.env, tenantId, library.memoryId, doc.experiences, deps.logger);
  await copy.importLibrary({
    doc,
    mode: "replace",
    author: `library:${libraryId}`,
    idempotencyKey: `pin:${version}`,
    access: { admin: false, reviewed },
  });
  await d1Write(() => db(deps.env).insert(libraryPins).values({ tenantId, libraryId, version }).onConflictDoNothing().run());
}

/** Deletes the copies of pinned versions no subscription pins any more; refuses a new pin when all are still pinned. */
async function forgetUnusedPins(deps: Deps, tenantId: string, libraryId: string, pins: number[]): Promise<void> {
  const used = await d1Read(() =>
    db(deps.env)
      .selectDistinct({ version: librarySubscriptions.pinVersion })
      .from(librarySubscriptions)
      .where(and(eq(librarySubscriptions.tenantId, tenantId), eq(librarySubscriptions.libraryId, libraryId)))
      .all(),
  );
  const pinned = new Set(used.map((r) => r.version));
  const unused = pins.filter((v) => !pinned.has(v));
  if (pins.length - unused.length >= MAX_PINNED_VERSIONS) {
    throw unprocessable(
      `Library '${libraryId}' already has ${MAX_PINNED_VERSIONS} versions pinned by subscribers; pin one of those, or move their subscribers first.`,
      [{ path: "pinVersion", message: `One of ${pins.join(", ")}` }],
    );
  }
  for (const version of unused) {
    await d1Write(() =>
      db(deps.env)
        .delete(libraryPins)
        .where(and(eq(libraryPins.tenantId, tenantId), eq(libraryPins.libraryId, libraryId), eq(libraryPins.version, version)))
        .run(),
    );
    await resilientMemory(deps.env, tenantId, pinnedMemoryId(libraryId, version)).deleteAgent();
  }
}

/** Ends a subscription; a key limited to some libraries ends only subscriptions to those. */
export const unsubscribe = (deps: Deps, caller: Caller, input: { agentId: string; libraryId: string }) =>
  outcome(async () => {
    requireLibraryAccess(caller, input.libraryId, "write");
    const { key, memory } = await agentWithRow(deps, caller, input.agentId, "write");
    const { removed } = await memory.unsubscribe({ libraryId: input.libraryId });
    const row = await d1Write(() =>
      db(deps.env)
        .delete(librarySubscriptions)
        .where(
          and(
            eq(librarySubscriptions.tenantId, key.tenantId),
            eq(librarySubscriptions.libraryId, input.libraryId),
            eq(librarySubscriptions.agentId, input.agentId),
          ),
        )
        .returning()
        .get(),
    );
    if (!removed && !row) throw notFound(`Agent '${input.agentId}' does not subscribe to library '${input.libraryId}'.`);
    return { agentId: input.agentId, libraryId: input.libraryId, unsubscribed: true as const };
  });

/**
 * The agent's subscriptions; for a key limited to some libraries, those to them. One to a library
 * deleted since is not listed: the agent's object keeps it until its sweep ends it.
 */
export const listSubscriptions = (deps: Deps, caller: Caller, input: { agentId: string }) =>
  outcome(async () => {
    const { key, memory } = await agentWithRow(deps, caller, input.agentId, "read");
    const subscribed = await memory.subscriptions();
    const gone = subscribed.length
      ? await unknownLibraries(
          deps.env,
          key.tenantId,
          subscribed.map((s) => s.libraryId),
        )
      : [];
    const only = key.libraryIds;
    const items = subscribed.filter((s) => !gone.includes(s.libraryId) && (!only || only.includes(s.libraryId)));
    return { items };
  });

/**
 * A page of the library's subscribers, each with its own Q and counters for the library's lessons,
 * and per lesson the aggregate over that page (mean Q, uses, successes): a library's owners see
 * which lessons help where. One call to each subscriber's object on the page, in parallel. A key
 * limited to some agents sees only those of them (another agent's Q is not its to read).
 */
export const librarySubscribers = (deps: Deps, caller: Caller, input: { libraryId: string; limit: number; cursor?: string | undefined }) =>
  outcome(async () => {
    const { key } = await libraryTarget(deps, caller, input.libraryId, "read");
    const after = cursorField(input.cursor, { a: "string" })?.a;
    const rows = await d1Read(() =>
      db(deps.env)
        .select()
        .from(librarySubscriptions)
        .where(
          and(
            eq(librarySubscriptions.tenantId, key.tenantId),
            eq(librarySubscriptions.libraryId, input.libraryId),
            key.agentIds ? inArray(librarySubscriptions.agentId, key.agentIds) : undefined,
            after ? gt(librarySubscriptions.agentId, after) : undefined,
          ),
        )
        .orderBy(asc(librarySubscriptions.agentId))
        .limit(input.limit + 1)
        .all(),
    );
    const page = pageOf(rows, input.limit, (last) => ({ a: last.agentId }));
    const items = await Promise.all(
      page.items.map(async (r) => ({
        agentId: r.agentId,
        weight: r.weight,
        pinVersion: r.pinVersion ?? null,
        subscribedAt: r.createdAt,
        lessons: await resilientMemory(deps.env, key.tenantId, r.agentId).sharedStats({ libraryId: input.libraryId }),
      })),
    );
    return { items, lessons: aggregateSubscribers(items), nextCursor: page.nextCursor };
  });

/**
 * Copies an agent's lesson into a shared library, through the library's screening step like any
 * write to it (the same use case as a client's lesson); its provenance names the agent, the lesson,
 * and the episode or run it came from.
 */
export const shareLesson = (
  deps: Deps,
  caller: Caller,
  input: { agentId: string; id: string; libraryId: string; idempotencyKey?: string | undefined },
) =>
  outcome(async () => {
    const agent = await agentWithRow(deps, caller, input.agentId, "read");
    const e = await agent.memory.getExperience({ id: input.id });
    const lesson: ExperienceCreate = {
      text: e.text,
      pattern: e.pattern,
      keywords: e.keywords,
      when: e.when,
      tags: e.tags,
      domain: e.domain,
      importance: e.importance,
      metadata: e.metadata,
      source: e.source,
    };
    const provenance = {
      agentId: input.agentId,
      experienceId: e.id,
      ...(e.provenance?.episodeId ? { episodeId: e.provenance.episodeId } : {}),
      ...(e.provenance?.runId ? { runId: e.provenance.runId } : {}),
    };
    const { value, replayed } = unwrap(
      await addLesson(deps, caller, { libraryId: input.libraryId, lesson, door: "api", provenance, idempotencyKey: input.idempotencyKey }),
    );
    return { value: { ...value, libraryId: input.libraryId }, replayed };
  });
