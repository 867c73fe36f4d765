import type { Schemas } from "../../../client/src/index.js";
import { api, call, pageAll } from "./api.js";
import { agentPath, lessonHref } from "./context.js";
import { empty, fmtQ, h, plural, stat, type Child } from "./dom.js";
import { anyValue, dataTable } from "./table.js";

type Experience = Schemas["Experience"];

/** `GET …/practice-runs/{runId}/library` (served as untyped JSON). */
export interface RunLibrary {
  items: {
    label: string;
    id: string;
    text: string;
    changed: boolean;
    lineage: { op: string; epoch?: number; step?: number; provenance?: string; from?: string[] }[];
  }[];
  removed: string[];
}

export const getRunLibrary = (runId: string) =>
  call(api().GET("/v1/agents/{agentId}/practice-runs/{runId}/library", { params: { path: { ...agentPath().path, runId } } })).then(
    (r) => r as unknown as RunLibrary,
    () => null,
  );

/**
 * Where each lesson of a run's library went when the run was promoted: the run names its lessons
 * `px_<run>_<epoch>_<step>_<i>`, the agent's library gives the promoted lesson a new `exp_…` id and
 * keeps the run's id in its provenance (`runItemId`). Lessons the run started with keep their ids.
 * Lessons promoted before `runItemId` existed are matched by text.
 */
export async function promotedIds(runId: string): Promise<Map<string, Experience>> {
  const [lessons, runLibrary] = await Promise.all([
    pageAll((cursor) =>
      call(api().GET("/v1/agents/{agentId}/experiences", { params: { ...agentPath(), query: { status: "all", limit: 200, cursor } } })),
    ),
    getRunLibrary(runId),
  ]);
  const byId = new Map<string, Experience>();
  const fromRun = lessons.filter((e) => e.provenance?.runId === runId);
  for (const e of lessons) byId.set(e.id, e);
  for (const e of fromRun) if (e.provenance?.runItemId) byId.set(e.provenance.runItemId, e);
  for (const item of runLibrary?.items ?? []) {
    if (byId.has(item.id)) continue;
    const match = fromRun.find((e) => !e.provenance?.runItemId && e.text === item.text);
    if (match) byId.set(item.id, match);
  }
  return byId;
}

/** The epoch and step a run-library id was written in (`px_<run>_<epoch>_<step>_<i>`), when it is one. */
export function stepOfRunId(id: string): { epoch: number; step: number } | null {
  const m = /^px_.+_(\d+)_(\d+)_(\d+)$/.exec(id);
  return m ? { epoch: Number(m[1]), step: Number(m[2]) } : null;
}

const str = (x: unknown) => (typeof x === "string" ? x : x === null || x === undefined ? "" : JSON.stringify(x));
const num = (x: unknown) => (typeof x === "number" ? x : null);
const arr = (x: unknown): Record<string, unknown>[] => (Array.isArray(x) ? (x as Record<string, unknown>[]) : []);
const badge = (text: string) => h("span", { class: `badge ${text}` }, text);

/** A run-library id, with the agent's lesson it became (linked) when the run was promoted. */
export function idWithPromoted(id: string, promoted: Map<string, Experience>): Child {
  const e = promoted.get(id);
  if (!e) return h("code", {}, id);
  if (e.id === id) return h("a", { href: lessonHref(id) }, h("code", {}, id));
  return [h("code", {}, id), " → ", h("a", { href: lessonHref(e.id), "data-promoted": e.id }, h("code", {}, e.id))];
}

/** One part of a step's record as people read it: tables and sentences, not JSON. */
export function stepPart(key: string, value: unknown, promoted: Map<string, Experience>): Node {
  switch (key) {
    case "groups":
      return dataTable(
        plural(arr(value).length, "group"),
        [
          { label: "Task", cell: (g) => str(g.taskId), id: true },
          { label: "Kept", cell: (g) => (g.kept ? "kept" : "filtered") },
          {
            label: "Rewards",
            cell: (g) =>
              arr(g.rewards)
                .map((r) => fmtQ(num(r)))
                .join(", "),
          },
          { label: "Mean", cell: (g) => fmtQ(num(g.meanReward)), num: true },
          { label: "Why", cell: (g) => str(g.reason) || "—" },
        ],
        arr(value),
      );
    case "proposals":
      if (!arr(value).length) return empty("No group proposed anything.");
      return h(
        "ul",
        { class: "items proposals" },
        arr(value).map((p) =>
          h(
            "li",
            {},
            h("p", {}, h("strong", {}, `Task ${str(p.taskId)}`), p.provenance ? badge(str(p.provenance)) : null),
            p.analysis ? h("p", { class: "meta" }, str(p.analysis)) : null,
            h(
              "ol",
              {},
              arr(p.operations).map((o) =>
                h(
                  "li",
                  {},
                  opLine(str(o.op), o.target ? [str(o.target)] : [], str(o.text)),
                  o.reason ? h("span", { class: "meta" }, ` — ${str(o.reason)}`) : null,
                ),
              ),
            ),
          ),
        ),
      );
    case "plan": {
      const plan = (value ?? {}) as { reasoning?: unknown; operations?: unknown };
      return h(
        "div",
        {},
        plan.reasoning ? h("p", { class: "meta" }, str(plan.reasoning)) : null,
        arr(plan.operations).length
          ? h(
              "ol",
              { class: "plan" },
              arr(plan.operations).map((o) =>
                h(
                  "li",
                  {},
                  opLine(str(o.op), [...(o.id ? [str(o.id)] : []), ...arr(o.ids).map(str)], str(o.text), promoted),
                  o.provenance ? badge(str(o.provenance)) : null,
                  o.reason ? h("span", { class: "meta" }, ` — ${str(o.reason)}`) : null,
                ),
              ),
            )
          : empty("The plan changed nothing."),
      );
    }
    case "diff":
      return dataTable(
        plural(arr(value).length, "change"),
        [
          { label: "Change", cell: (c) => [badge(str(c.op)), c.provenance ? badge(str(c.provenance)) : null] },
          { label: "Lesson", cell: (c) => idWithPromoted(str(c.id), promoted), id: true },
          { label: "Before", cell: (c) => h("span", { class: "text" }, str(c.before) || "—") },
          { label: "After", cell: (c) => h("span", { class: "text" }, str(c.after) || "—") },
          { label: "Why", cell: (c) => str(c.reason) || (arr(c.from).length ? `merged ${arr(c.from).map(str).join(", ")}` : "—") },
        ],
        arr(value),
      );
    case "library":
      return dataTable(
        plural(arr(value).length, "lesson"),
        [
          { label: "Label", cell: (e) => str(e.label) },
          { label: "Lesson", cell: (e) => idWithPromoted(str(e.id), promoted), id: true },
          { label: "Text", cell: (e) => h("span", { class: "text" }, str(e.text)) },
        ],
        arr(value),
      );
    case "dropped":
      return arr(value).length
        ? h(
            "ul",
            { class: "items" },
            arr(value).map((d) => h("li", {}, `${str(d.source)}: ${str(d.reason)}`, h("span", { class: "meta" }, ` (${opSummary(d.op)})`))),
          )
        : empty("Nothing was dropped.");
    case "errors":
      return arr(value).length
        ? h(
            "ul",
            { class: "items" },
            arr(value).map((e) =>
              h("li", { class: "error" }, `${str(e.stage)}${e.taskId ? ` (task ${str(e.taskId)})` : ""}: ${str(e.error)}`),
            ),
          )
        : empty("No errors.");
    case "hindsight": {
      const hs = (value ?? {}) as Record<string, unknown>;
      const count = (k: string) =>
        typeof hs[k] === "number" ? String(hs[k]) : Array.isArray(hs[k]) ? String((hs[k] as unknown[]).length) : "—";
      return h(
        "dl",
        { class: "stats" },
        stat("Calls (cap per step)", `${count("calls")} (${count("cap")})`),
        stat("Groups over the cap", count("overCap")),
        stat("Lessons proposed", count("proposals")),
        stat("Applied by the plan", count("applied")),
        stat("Refused: stated the answer", count("refusedLeaks")),
        stat("Hindsight lessons in the library", count("inLibrary")),
      );
    }
    default:
      return anyValue(value);
  }
}

function opSummary(op: unknown): string {
  const o = (op ?? {}) as Record<string, unknown>;
  return [str(o.op), str(o.text)].filter(Boolean).join(": ") || str(op);
}

/** "add: text", "modify G2: text", "merge G1 + G4: text", "delete G3". */
function opLine(op: string, targets: string[], text: string, promoted?: Map<string, Experience>): Child {
  const names: Child[] = targets.map((t, i) => [i ? " + " : " ", promoted ? idWithPromoted(t, promoted) : h("code", {}, t)]);
  return [h("strong", {}, op), names, text ? `: ${text}` : ""];
}
