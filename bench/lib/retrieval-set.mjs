// bench/retrieval-set and the measures every quality benchmark reports on it, shared by the run
// through the Worker (quality.mjs) and the in-process one (quality-offline.ts) so their figures
// mean the same thing.
//
// Every query has one labelled relevant lesson and two phrasings, ids ending -q1 and -q2. Changes
// to retrieval are tuned on the -q1 queries only; the -q2 queries are the held-out check that a
// change generalises rather than fits the set.
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "retrieval-set");

const readJsonl = (name) =>
  readFileSync(path.join(dir, name), "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));

export const lessons = readJsonl("lessons.jsonl");
export const queries = readJsonl("queries.jsonl");

/** MRR counts ranks up to this depth (0 beyond). */
export const DEPTH = 20;

/** The splits reported: the tuning phrasings, the held-out ones, and all. */
export const SPLITS = [
  { name: "q1 (tuning)", suffix: "-q1" },
  { name: "q2 (held out)", suffix: "-q2" },
  { name: "all", suffix: "" },
];

/**
 * recall@1, recall@5, MRR@DEPTH and the share of empty answers over ranked lesson-id lists, one per
 * query of `queries` in order; `suffix` restricts them to one phrasing.
 */
export function metrics(rankings, suffix = "") {
  let r1 = 0;
  let r5 = 0;
  let mrr = 0;
  let empty = 0;
  let n = 0;
  rankings.forEach((ids, i) => {
    if (!queries[i].id.endsWith(suffix)) return;
    n++;
    if (!ids.length) empty++;
    const at = ids.slice(0, DEPTH).findIndex((id) => queries[i].relevant.includes(id));
    if (at === 0) r1++;
    if (at >= 0 && at < 5) r5++;
    if (at >= 0) mrr += 1 / (at + 1);
  });
  return { r1: r1 / n, r5: r5 / n, mrr: mrr / n, empty: empty / n };
}
