/** The majority verifier, for tasks without ground truth: the group's consensus answer counts as correct. */
import { extractFinalAnswer } from "./extract";
import { latexNumber, normaliseLatex } from "./latex";
import { formatNumber, parseNumbers } from "./numbers";
import type { Verdict } from "./schema";
import { normaliseText, quote } from "./text";

/**
 * The default vote key: the final answer, as a number when it evaluates to one or holds exactly
 * one (so `0.5`, `1/2`, `\frac{1}{2}` and `0.5 kg` vote together), else as case-, space- and
 * punctuation-folded text.
 */
export function majorityKey(answer: string): string {
  const final = extractFinalAnswer(answer);
  const numbers = parseNumbers(final);
  const n = latexNumber(normaliseLatex(final)) ?? (numbers.length === 1 ? numbers[0]! : null);
  if (n) return `#${formatNumber(n.value)}`;
  return normaliseText(final);
}

/**
 * One verdict per answer, in order. The answer with strictly more votes than any other (a
 * plurality, not necessarily half the group) earns 1, the others 0. With a tie at the top (say
 * 2–2–1, or all different) there is no consensus to learn from: every answer gets 0, so the
 * group has no contrast and is filtered out instead of teaching an arbitrary pick. Blank
 * answers (failed rollouts) never vote and always get 0.
 */
export function majorityVerdicts(answers: string[], normalise: (answer: string) => string = majorityKey): Verdict[] {
  const keys = answers.map((a) => (a.trim() === "" ? null : normalise(a)));
  const counts = new Map<string, { n: number; first: number }>();
  keys.forEach((k, i) => {
    if (k === null || k === "") return;
    const c = counts.get(k);
    if (c) c.n++;
    else counts.set(k, { n: 1, first: i });
  });
  const ranked = [...counts.entries()].sort((a, b) => b[1].n - a[1].n);
  const top = ranked[0];
  const size = answers.length;
  if (!top) return answers.map(() => ({ reward: 0, reasoning: "No answer in the group could be read, so there is no majority." }));
  const shown = (k: string) => quote(extractFinalAnswer(answers[counts.get(k)!.first]!));
  if (ranked[1] && ranked[1][1].n === top[1].n) {
    const tied = ranked.filter(([, c]) => c.n === top[1].n).map(([k]) => shown(k));
    const reasoning = `No majority: ${tied.join(", ")} have ${top[1].n} of ${size} votes each, so no answer counts as correct.`;
    return answers.map(() => ({ reward: 0, reasoning }));
  }
  const winner = shown(top[0]);
  return keys.map((k) =>
    k === top[0]
      ? { reward: 1, reasoning: `Agrees with the majority answer ${winner} (${top[1].n} of ${size} votes).` }
      : { reward: 0, reasoning: `Differs from the majority answer ${winner} (${top[1].n} of ${size} votes).` },
  );
}
