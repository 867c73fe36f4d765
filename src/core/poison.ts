/**
 * Memory-poisoning guard. An extracted experience is replayed into future prompts, so a lesson
 * distilled from attacker-controlled task text could carry an injection to every later episode.
 * Flagged insights are quarantined for review rather than dropped, which lets the checks lean
 * towards recall; each still has to let ordinary engineering lessons through.
 */
import { containsSecret } from "./redact";

export type PoisonReason =
  | "hidden-characters"
  | "prompt-injection"
  | "exfiltration"
  | "url"
  | "secret"
  | "encoded-payload";

export interface InsightAssessment {
  quarantined: boolean;
  reasons: PoisonReason[];
}

export function assessInsight(text: string): InsightAssessment {
  const reasons: PoisonReason[] = [];
  if (HIDDEN_RE.test(text)) reasons.push("hidden-characters");
  const norm = normalise(text);
  if (isPromptInjection(norm)) reasons.push("prompt-injection");
  if (isExfiltration(norm)) reasons.push("exfiltration");
  if (findUrls(norm).length > 0) reasons.push("url");
  if (containsSecret(text)) reasons.push("secret");
  if (hasEncodedPayload(text)) reasons.push("encoded-payload");
  return { quarantined: reasons.length > 0, reasons };
}

// Zero-width, bidi-override and Unicode tag characters hide instructions from a human reviewer
// while the model still reads them. ZWJ alone is left out: emoji sequences use it.
const HIDDEN_RE = /[\u200B\u200C\u200E\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF\u{E0000}-\u{E007F}]/u;
const STRIP_RE = /[\u00AD\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF\u{E0000}-\u{E007F}]/gu;

// NFKC folds full-width and other look-alike forms; stripping invisibles rejoins split words.
function normalise(text: string): string {
  return text.normalize("NFKC").replace(STRIP_RE, "").replace(/[‘’]/g, "'").replace(/\s+/g, " ");
}

// ---------------------------------------------------------------------------------------------
// prompt injection

const OVERRIDE_VERBS = "ignore|disregard|forget|override|overrule|bypass|neglect|discard|abandon|set aside";
const FILLER = "all|any|every|of|the|your|my|these|those|above|earlier|prior|previous|preceding|original|initial|existing|current|system|developer|safety|other|given";
// A bare "ignore the rules" is common advice about linters; an injection points at *these* rules.
const POINTED = new Set(["all", "any", "every", "your", "above", "earlier", "prior", "previous", "preceding", "original", "initial", "system", "developer", "safety"]);
const OVERRIDE_RE = new RegExp(
  `\\b(?:${OVERRIDE_VERBS})\\s+((?:(?:${FILLER})\\s+){1,4})(instructions?|prompts?|rules|directives?|guidelines|guardrails|constraints|polic(?:y|ies)|programming|messages?|context)\\b`,
  "gi",
);

const INJECTION_RES: RegExp[] = [
  /\bforget\s+(?:everything|all(?:\s+that)?)\s+(?:(?:you|i|we)\s+)?(?:above|before|earlier|previously|said|were\s+told|know|learned)\b/i,
  /\byou\s+are\s+now\s+(?:an?\s|the\s|my\s|no\s+longer\b|free\b|unrestricted\b|unfiltered\b|jailbroken\b|dan\b|in\s+\w+\s+mode\b)/i,
  /\b(?:new|updated|real|actual|true|revised|additional|override)\s+(?:system\s+)?instructions?\s*:/i,
  /\bsystem\s+(?:prompt|message|override)\s*:/i,
  /<\|(?:im_start|im_end|system|user|assistant|endoftext)\|>|\[\/?INST\]|<\/?(?:system|instructions?)>|<<\/?SYS>>/i,
  /\b(?:do\s+not|don't|dont|never)\s+(?:tell|inform|notify|alert|warn)\s+(?:the\s+|your\s+)?(?:user|human|operator|owner)s?\b/i,
  /\b(?:do\s+not|don't|dont|never)\s+(?:mention|reveal|disclose|show)\s+(?:this|it|that|these)\s+to\s+(?:the\s+|your\s+)?(?:user|human|operator|owner)s?\b/i,
  /\bwithout\s+(?:telling|informing|notifying|alerting)\s+(?:the\s+|your\s+)?(?:user|human|operator|owner)s?\b/i,
  /\b(?:hide|conceal)\s+(?:this|it|that|these|the\s+\w+)\s+from\s+(?:the\s+|your\s+)?(?:user|human|operator|owner)s?\b/i,
  /\b(?:reveal|print|output|repeat|leak|dump|disclose|show)\s+(?:\w+\s+){0,3}?(?:system\s+prompt|hidden\s+(?:prompt|instructions)|initial\s+instructions|your\s+(?:instructions|prompt))\b/i,
  /\bpretend\s+(?:to\s+be|you\s+are|that\s+you\s+(?:are|have))\b/i,
  /\b(?:jailbreak(?:ed|ing)?|jailbroken|dan\s+mode|developer\s+mode\s+(?:enabled|on)|do\s+anything\s+now)\b/i,
];

function isPromptInjection(text: string): boolean {
  for (const m of text.matchAll(OVERRIDE_RE)) {
    const words = m[1]!.toLowerCase().trim().split(/\s+/);
    if (/^(?:guardrails|programming)$/i.test(m[2]!) || words.some((w) => POINTED.has(w))) return true;
  }
  return INJECTION_RES.some((re) => re.test(text));
}

// ---------------------------------------------------------------------------------------------
// exfiltration

const SENSITIVE =
  "(?:\\b(?:credentials?|api[\\s_-]?keys?|secrets?|access\\s+tokens?|tokens|passwords?|env(?:ironment)?\\s+var(?:iable)?s?|environment|conversation(?:\\s+history)?|chat\\s+(?:history|logs?)|transcripts?|system\\s+prompt|private\\s+keys?|ssh\\s+keys?|cookies|session\\s+(?:tokens?|cookies?)|(?:user|customer|personal|private|all)\\s+data|pii|memor(?:y|ies)|database\\s+dump)\\b|\\.env\\b)";
// Stays within one sentence, but lets dots inside paths and names (~/.aws, .env) through.
const IN_SENTENCE = "(?:[^.\\n]|\\.(?=\\S))";
const SEND_RE = new RegExp(
  `\\b(?:send|post|upload|e-?mail|mail|forward|transmit|exfiltrate|leak|copy|share|submit|sync|pipe|beacon)\\b${IN_SENTENCE}{0,60}?${SENSITIVE}${IN_SENTENCE}{0,60}?\\b(?:to|into|at|via)\\s+([^\\n]{0,100})`,
  "gi",
);
// Only destinations that point outside count, so "send the API key to authenticate" passes.
const RECEIVER_RE =
  /^(?:the\s+)?(?:following|attacker'?s?|external|remote|third[\s-]party|outside|public)\b|^(?:this|that|my|our|an?|the\s+given)\s+(?:url|endpoint|server|webhook|address|inbox|email|host|bucket|channel)\b|[\w.+-]+@[\w-]+\.[\w.-]+/i;

const EXFIL_RES: RegExp[] = [
  new RegExp(
    `\\b(?:include|embed|append|encode|put|add)\\b${IN_SENTENCE}{0,40}?${SENSITIVE}${IN_SENTENCE}{0,40}?\\b(?:in|into|to)\\s+(?:the\\s+|a\\s+|an\\s+|every\\s+|each\\s+|your\\s+)?(?:url|link|query\\s+string|query|image|markdown|public|commit\\s+message|issue|comment)\\b`,
    "i",
  ),
  /\b(?:dump|print|echo|cat|list|output|log|display|reveal|expose)\s+(?:(?:all|the|every|any)\s+)*(?:secrets|credentials|api\s+keys|passwords|private\s+keys?|\.env\b|~\/\.(?:ssh|aws|netrc|npmrc)|\/etc\/(?:passwd|shadow))/i,
  // Environment or credential files piped into a network or encoding tool.
  /\b(?:env|printenv|set|cat\s+\S*(?:\.env|credentials|id_rsa|id_ed25519|\.pem|\.npmrc|\.netrc|passwd|shadow)\S*)\s*\|\s*(?:curl|wget|nc|ncat|netcat|base64|xxd)\b/i,
  /\s(?:-d|--data(?:-binary|-raw|-urlencode)?|-F|--form|-T|--upload-file)\s+["']?[^\s"']*(?:@\S*(?:\.env|id_rsa|credentials|\.aws|\.ssh|\.npmrc|\.netrc|passwd)|\$\(|\$\{?\w*(?:KEY|TOKEN|SECRET|PASSWORD))/i,
  // Markdown images are fetched without a click: the classic zero-interaction leak channel.
  /!\[[^\]]*\]\(\s*(?:https?:)?\/\//i,
  /\b(?:webhook\.site|requestbin|pipedream\.net|ngrok(?:-free)?\.(?:io|app|dev)|burpcollaborator|oastify\.com|interact\.sh|pastebin\.com|transfer\.sh|hastebin|beeceptor|requestcatcher|canarytokens)\b/i,
];
const NETWORK_TOOL_RE = /\b(?:curl|wget|nc|ncat|netcat|scp|rsync|sftp|invoke-webrequest|invoke-restmethod|iwr|irm)\b([^\n]{0,300})/gi;

function isExfiltration(text: string): boolean {
  if (EXFIL_RES.some((re) => re.test(text))) return true;
  for (const m of text.matchAll(SEND_RE)) {
    const tail = m[1]!;
    if (RECEIVER_RE.test(tail) || findUrls(tail).length > 0 || hasPublicIp(tail)) return true;
  }
  for (const m of text.matchAll(NETWORK_TOOL_RE)) {
    if (findUrls(m[1]!).length > 0 || hasPublicIp(m[1]!)) return true;
  }
  return false;
}

// ---------------------------------------------------------------------------------------------
// URLs

// Common and abuse-heavy TLDs count even without a path. Names that collide with code or files
// (.py, .md, .sh, .info as in logger.info, .top as in stack.top) need a path to count.
const ALWAYS_TLDS = new Set(["com", "net", "org", "io", "ru", "xyz", "cn", "tk", "su", "pw", "biz", "onion", "gov", "edu"]);
const PATH_TLDS = new Set([
  "info", "top", "co", "me", "ai", "app", "dev", "sh", "ly", "gg", "to", "tv", "cc", "ws", "us", "uk", "de", "fr", "nl",
  "eu", "es", "it", "pl", "br", "in", "jp", "kr", "ir", "kp", "ua", "by", "kz", "vn", "id", "ph", "pk", "ng", "za", "au",
  "ca", "ch", "se", "no", "fi", "dk", "be", "at", "cz", "ro", "hu", "gr", "pt", "tr", "il", "ae", "sa", "mx", "ar", "cl",
  "site", "online", "click", "link", "live", "shop", "club", "icu", "buzz", "store", "tech", "cloud", "space", "website",
  "fun", "host", "page", "zip", "mov", "ml", "ga", "cf", "gq", "rs", "md", "py", "so", "vip", "work", "win", "bid", "loan",
]);
// Things that read like domains but are product names, and names that can never reach a third
// party (RFC 2606/6761 reserved names and loopback).
const NOT_A_HOST = new Set(["asp.net", "ado.net", "vb.net", "socket.io", "localhost"]);
const RESERVED_HOST_RE =
  /^(?:localhost|(?:[\w-]+\.)*localhost|127(?:\.\d{1,3}){3}|0\.0\.0\.0|\[?::1\]?|(?:[\w-]+\.)*example(?:\.(?:com|net|org))?|(?:[\w-]+\.)+(?:test|invalid))$/i;

const SCHEME_URL_RE = /\b(?:https?|ftps?|wss?|sftp|s3|gs|file):\/\/\/?([^\s/?#<>"'`)\]]*)[^\s<>"'`)\]]*/gi;
const PSEUDO_URL_RE = /\b(?:javascript:\S|data:[a-z]+\/[\w.+-]+[;,])/gi;
const WWW_RE = /(?<![\w.-])www\.[a-z0-9-]+(?:\.[a-z0-9-]+)+/gi;
const BARE_DOMAIN_RE = /(?<![\w./\\-])((?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+([a-z]{2,24}))(?![\w-]|\.[a-z0-9])(\/[^\s]*|:\d{2,5}\b)?/gi;

export function findUrls(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(SCHEME_URL_RE)) {
    const host = (m[1] ?? "").replace(/^[^@]*@/, "").replace(/:\d+$/, "");
    if (!RESERVED_HOST_RE.test(host)) found.push(m[0]);
  }
  for (const m of text.matchAll(PSEUDO_URL_RE)) found.push(m[0]);
  for (const m of text.matchAll(WWW_RE)) found.push(m[0]);
  // Hosts inside scheme URLs were judged above; blank those out so that a reserved host is not
  // picked up again as a bare domain.
  const rest = text.replace(SCHEME_URL_RE, " ");
  for (const m of rest.matchAll(BARE_DOMAIN_RE)) {
    const host = m[1]!;
    const tld = m[2]!.toLowerCase();
    const hasPath = m[3] !== undefined;
    // Mixed case such as System.Net or Foo.App is a code identifier, not a hostname.
    if (/[A-Z]/.test(host) && /[a-z]/.test(host)) continue;
    if (NOT_A_HOST.has(host.toLowerCase()) || RESERVED_HOST_RE.test(host)) continue;
    if (ALWAYS_TLDS.has(tld) || (hasPath && PATH_TLDS.has(tld))) found.push(m[0]);
  }
  for (const m of text.matchAll(/(?<![\w.])((?:\d{1,3}\.){3}\d{1,3})(?::\d{1,5}(?:\/\S*)?|\/\S*)/g)) {
    if (isPublicIp(m[1]!)) found.push(m[0]);
  }
  return found;
}

function hasPublicIp(text: string): boolean {
  for (const m of text.matchAll(/(?<![\w.])((?:\d{1,3}\.){3}\d{1,3})(?![\w.])/g)) if (isPublicIp(m[1]!)) return true;
  return false;
}

function isPublicIp(ip: string): boolean {
  const parts = ip.split(".").map(Number);
  if (parts.some((p) => p > 255)) return false;
  const [a = 0, b = 0] = parts;
  return !(a === 127 || a === 0 || a === 10 || (a === 192 && b === 168) || (a === 172 && b >= 16 && b <= 31));
}

// ---------------------------------------------------------------------------------------------
// encoded payloads

const B64_RUN_RE = /[A-Za-z0-9+/_-]{40,}={0,2}/g;

/**
 * Long identifiers and paths also consist of base64 characters, so a run must look random: mixed
 * case, a digit or base64 symbol, and per-character entropy that identifiers do not reach
 * (measured: identifiers and paths of this length sit at 3.9 to 4.3 bits, base64 at 4.6 and up).
 */
function hasEncodedPayload(text: string): boolean {
  for (const [run] of text.matchAll(B64_RUN_RE)) {
    if (!/[A-Z]/.test(run) || !/[a-z]/.test(run) || !/[0-9+/=]/.test(run)) continue;
    if (run.includes("/") && run.split("/").every((seg) => /^[A-Za-z_][A-Za-z_-]*\d{0,3}$/.test(seg))) continue;
    if (entropy(run) >= 4.4) return true;
  }
  return false;
}

function entropy(s: string): number {
  const counts = new Map<string, number>();
  for (const c of s) counts.set(c, (counts.get(c) ?? 0) + 1);
  let h = 0;
  for (const n of counts.values()) h -= (n / s.length) * Math.log2(n / s.length);
  return h;
}
