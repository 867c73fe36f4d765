/**
 * Memory-poisoning guard. An extracted experience is replayed into future prompts, so a lesson
 * distilled from attacker-controlled task text could carry an injection to every later episode.
 * Flagged insights are quarantined for review rather than dropped, which lets the checks lean
 * towards recall; each still has to let ordinary engineering lessons through.
 */
import { containsSecret } from "./redact";
import { hasEncodedPayload } from "./encoded-payload";
import { decodedReadings, type DecodedKind } from "./encoded-runs";
import { findUrls, isExfiltration, REMOTE_IMAGE_RE } from "./exfiltration";
import { isForeignInjection } from "./injection-languages";
import { hasActiveMarkup } from "./markup";
import { COMPACT_INJECTION_RE, forgesStructure, isPlainTalk, isPromptInjection, onlyMentionsInjection } from "./prompt-injection";
import { compactView, despacedText, hasHiddenCharacters, plainView, skeletonView, visibleText } from "./skeleton";

export type PoisonReason =
  | "hidden-characters"
  | "forged-structure"
  | "prompt-injection"
  | "exfiltration"
  | "url"
  | "secret"
  | "encoded-payload"
  | "active-markup"
  | "harmful-policy";

export interface InsightAssessment {
  quarantined: boolean;
  reasons: PoisonReason[];
  /**
   * Set (true) when the only thing flagged is injection wording that the text reports rather than
   * gives ("when a ticket asks to ignore previous instructions, escalate"): a reviewer can tell
   * that talk from a command, the patterns cannot. Never set for forged structure, hidden
   * characters or any other reason.
   */
  mentionOnly?: true;
  /**
   * Set (true) with `quarantined: false` when the injection wording is plainly written talk that
   * only reports and resists it, with nothing that goes along (see isPlainTalk): admitted without a
   * reviewer. Such a text is never read as the first half of a split instruction.
   */
  talk?: true;
}

/** Checks every part a lesson is stored and injected with: its text, its pattern and its keywords. */
export function assessLesson(lesson: {
  text: string;
  pattern?: string | null;
  keywords?: readonly string[];
  when?: string | null;
}): InsightAssessment {
  return assessInsight([lesson.pattern ?? "", lesson.text, (lesson.keywords ?? []).join(", "), lesson.when ?? ""].join("\n"));
}

/**
 * `chat`: the text is a recorded task or answer (a case), where `User:` and `Assistant:` lines are
 * ordinary transcript and the prompt shows it inside a data fence; roles with authority still count.
 */
export function assessInsight(text: string, opts: { chat?: boolean } = {}): InsightAssessment {
  return assess(text, opts.chat ?? false, 0);
}

/**
 * The reasons only the joined reading of `context` (earlier texts that passed on their own) and
 * `text` raises: an instruction split across writes ("… ignore all", "previous instructions and …").
 * Only what an instruction is counts: texts joined with a blank also join what each shows on its
 * own lines (a fenced block, a role line), which neither would render that way.
 */
export function splitReasons(context: string, text: string): PoisonReason[] {
  const verdict = assessInsight(text);
  // Talk holds its injection wording whole: a joined reading that merely stops reading as talk splits nothing.
  const alone = new Set<PoisonReason>(verdict.talk ? [...verdict.reasons, "prompt-injection"] : verdict.reasons);
  return assessInsight(`${context}${text}`).reasons.filter((r) => SPLIT_REASONS.has(r) && !alone.has(r));
}

const SPLIT_REASONS = new Set<PoisonReason>(["prompt-injection", "exfiltration", "harmful-policy", "encoded-payload"]);

/** Reasons a decoded reading raises that count against the text it was hidden in. */
const DECODED_REASONS: Record<DecodedKind, ReadonlySet<PoisonReason>> = {
  bytes: new Set([
    "forged-structure",
    "prompt-injection",
    "exfiltration",
    "url",
    "secret",
    "encoded-payload",
    "active-markup",
    "harmful-policy",
  ]),
  // A whole text turned (rot13, reversed) is mostly noise: only instructions count, not shapes.
  letters: new Set(["prompt-injection", "exfiltration", "harmful-policy"]),
  order: new Set(["prompt-injection", "exfiltration", "harmful-policy"]),
};

/**
 * `depth` 1 reads a decoded text: its runs are decoded once more (base64 inside hex) and its letters
 * turned (rot13 inside base64); depth 2 is read as it stands.
 */
function assess(text: string, chat: boolean, depth: number): InsightAssessment {
  const reasons: PoisonReason[] = [];
  if (hasHiddenCharacters(text)) reasons.push("hidden-characters");
  const norm = plainView(text);
  const spaced = plainView(despacedText(text));
  // Each reading an attacker could count on a model to see through: as written, with look-alike
  // letters folded (capital I and small l read both ways), with split words joined, and with
  // digits and symbols read as the letters they stand in for.
  const skeletons = [norm, spaced].flatMap((t) => [skeletonView(t, "i"), skeletonView(t, "l")]);
  const readings = [...new Set([norm, ...skeletons, ...skeletons.flatMap((t) => [foldLeet(t, "i"), foldLeet(t, "l")])])];
  const compact = [...new Set(readings.map(compactView))];
  if (forgesStructure(text, readings, chat)) reasons.push("forged-structure");
  const injection =
    readings.some(isPromptInjection) ||
    compact.some((c) => COMPACT_INJECTION_RE.test(c)) ||
    [norm, spaced, skeletons[0]!].some(isForeignInjection);
  if (injection) reasons.push("prompt-injection");
  if (readings.some(isExfiltration) || REMOTE_IMAGE_RE.test(norm)) reasons.push("exfiltration");
  if (findUrls(norm).length > 0 || findUrls(skeletonView(norm)).length > 0) reasons.push("url");
  if (containsSecret(text)) reasons.push("secret");
  const markup = hasActiveMarkup(visibleText(text));
  const harmful = readings.some(isHarmfulPolicy);
  const plain = [...reasons, ...(markup ? (["active-markup"] as const) : []), ...(harmful ? (["harmful-policy"] as const) : [])];
  const { decoded, reworded } = depth < 2 ? decodedReasons(text, chat, depth) : { decoded: new Set<PoisonReason>(), reworded: false };
  // A turned reading still shows what was written plainly (rot13 leaves full-width letters alone):
  // only what the plain text does not raise itself counts as hidden.
  if (hasEncodedPayload(text) || [...decoded].some((r) => !plain.includes(r))) reasons.push("encoded-payload");
  if (markup) reasons.push("active-markup");
  if (harmful) reasons.push("harmful-policy");
  const verdict: InsightAssessment = { quarantined: reasons.length > 0, reasons };
  // Talk is written plainly: wording that only a folded, joined or compacted reading shows is a disguise.
  if (injection && reasons.length === 1 && isPromptInjection(norm) && readings.every(onlyMentionsInjection)) {
    if (!reworded && isPlainTalk(norm)) return { quarantined: false, reasons: [], talk: true };
    verdict.mentionOnly = true;
  }
  return verdict;
}

/**
 * The reasons the texts decoded from this one (see encoded-runs) raise that count for their kind,
 * and whether any reading in other words than the text's own raised one: talk read backwards word
 * by word still shows the words it reports, which hides nothing.
 */
function decodedReasons(text: string, chat: boolean, depth: number): { decoded: Set<PoisonReason>; reworded: boolean } {
  const decoded = new Set<PoisonReason>();
  let reworded = false;
  for (const r of decodedReadings(text, { letters: depth <= 1 })) {
    const reasons = r.kind === "bytes" ? assess(r.text, chat, depth + 1).reasons : turnedReasons(r.text);
    const counted = reasons.filter((reason) => DECODED_REASONS[r.kind].has(reason));
    for (const reason of counted) decoded.add(reason);
    if (counted.length && r.kind !== "order") reworded = true;
  }
  return { decoded, reworded };
}

/**
 * The instruction checks alone, on the two plainest readings: a whole text turned (rot13, shifted,
 * reversed) is read for what it tells the model, and the shape checks would only read noise.
 */
function turnedReasons(text: string): PoisonReason[] {
  const norm = plainView(text);
  const readings = [norm, skeletonView(norm, "i")];
  const reasons: PoisonReason[] = [];
  if (readings.some(isPromptInjection) || COMPACT_INJECTION_RE.test(compactView(readings[1]!)) || isForeignInjection(norm))
    reasons.push("prompt-injection");
  if (readings.some(isExfiltration)) reasons.push("exfiltration");
  if (readings.some(isHarmfulPolicy)) reasons.push("harmful-policy");
  return reasons;
}

const LEET: Record<string, string> = {
  "0": "o",
  "3": "e",
  "4": "a",
  "5": "s",
  "7": "t",
  "8": "b",
  "9": "g",
  "@": "a",
  $: "s",
  "!": "i",
  "|": "l",
  "€": "e",
};

/** Reads digits and symbols inside words as letters ("1gn0r3" → "ignore"); numbers stay numbers. */
function foldLeet(text: string, one: "i" | "l"): string {
  return text.replace(/[\p{L}0-9@$!|€]+/gu, (word) =>
    /\p{L}/u.test(word) && /[0-9@$!|€]/.test(word) ? word.replace(/[0-9@$!|€]/g, (c) => (c === "1" ? one : (LEET[c] ?? c))) : word,
  );
}

// ---------------------------------------------------------------------------------------------
// harmful policy: plain-language advice that needs no injection trick to do damage

const CONTROL =
  "(?:verification|verifying|checks?|checking|review|reviewing|approval|authentication|authenticating|confirmation|confirming|validation|validating|consent|authori[sz]ation|authori[sz]ing|sign-?off|2fa|mfa|id|identity\\s+checks?)";
const HARMFUL_RES: RegExp[] = [
  new RegExp(
    `\\b(?:approve|accept|grant|issue|process|authori[sz]e|execute|perform|transfer|wire|pay\\s+out|refund|release|disburse|delete|drop|wipe|deploy|merge|push|unlock|reset)\\b[^.\\n]{0,50}\\bwithout\\s+(?:(?:any|the|a|an|prior|further|human|manual|customer|user|their|identity|proper|extra)\\s+)*${CONTROL}\\b`,
    "i",
  ),
  /(?<!\b(?:never|not|don't|dont|doesn't|avoid|stop)\s+)\b(?:skip(?:s|ping)?|bypass(?:es|ing)?|disabl(?:e|es|ing)|turn(?:s|ing)?\s+off|switch(?:es|ing)?\s+off|circumvent(?:s|ing)?|omit(?:s|ting)?|suppress(?:es|ing)?|waiv(?:e|es|ing)|ignor(?:e|es|ing))\s+(?:(?:the|all|any|every|our|their)\s+)*(?:identity|id|2fa|mfa|two[\s-]factor|kyc|aml|fraud|security|age|permission|signature|certificate|tls|ssl|authori[sz]ation|authentication|verification|approval|audit|safety|content|moderation|compliance|anti-?virus|firewall)\s+(?:checks?|verification|validation|review|logging|logs|controls?|filters?|scans?|rules|protections?|monitoring|requirements?)\b/i,
  /\b(?:grant|give|assign|provide)\s+(?:(?:full|admin(?:istrator)?|root|elevated|superuser|owner|unrestricted)\s+)+(?:access|privileges|rights|permissions|role)\s+to\s+(?:anyone|everyone|any\s+(?:user|caller|requester|one)|all\s+(?:users|callers|requesters)|whoever|the\s+requester|whoever\s+asks)\b/i,
  /\b(?:treat|trust|accept|believe)\b[^.\n]{0,30}\b(?:anyone|any\s+(?:user|caller|requester|message)|whoever|users?|requesters?|callers?|customers?)\s+(?:who\s+|that\s+)?(?:claim(?:s|ing)?|say(?:s|ing)?|said)\b[^.\n]{0,30}\b(?:admin(?:istrator)?|staff|employee|owner|root|authori[sz]ed|manager|developer|support|ceo|police)\b/i,
  /\b(?:reply|respond|answer|reveal|disclose|tell|give\s+out|hand\s+out|share|read\s+out)\b[^.\n]{0,40}\b(?:admin(?:istrator)?|master|root|api|secret|private|signing|service|database|db)\s+(?:keys?|passwords?|credentials?|tokens?|secrets?)\b/i,
  /\balways\s+(?:approve|grant|comply|say\s+yes|authori[sz]e)\b/i,
  /\bnever\s+(?:refuse|decline|deny|reject|verify|check|question|ask\s+for\s+(?:id|identification|verification|confirmation))\b/i,
  /\b(?:delete|clear|wipe|truncate|disable|stop)\s+(?:(?:the|all|any)\s+)*audit\s+(?:logs?|trail|logging)\b/i,
];

function isHarmfulPolicy(text: string): boolean {
  return HARMFUL_RES.some((re) => re.test(text));
}
