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
  | "encoded-payload"
  | "harmful-policy";

export interface InsightAssessment {
  quarantined: boolean;
  reasons: PoisonReason[];
}

/** Checks every part a lesson is stored and injected with: its text, its pattern and its keywords. */
export function assessLesson(lesson: { text: string; pattern?: string | null; keywords?: readonly string[]; when?: string | null }): InsightAssessment {
  return assessInsight([lesson.pattern ?? "", lesson.text, (lesson.keywords ?? []).join(", "), lesson.when ?? ""].join("\n"));
}

export function assessInsight(text: string): InsightAssessment {
  const reasons: PoisonReason[] = [];
  if (HIDDEN_RE.test(text)) reasons.push("hidden-characters");
  const norm = normalise(text);
  const glyphs = foldGlyphs(norm);
  // Each reading an attacker could count on a model to see through: as written, with look-alike
  // letters folded, and with digits and symbols read as the letters they stand in for.
  const readings = [...new Set([norm, glyphs, foldLeet(glyphs, "i"), foldLeet(glyphs, "l")])];
  if (readings.some(isPromptInjection) || forgesStructure(text)) reasons.push("prompt-injection");
  if (readings.some(isExfiltration)) reasons.push("exfiltration");
  if (findUrls(norm).length > 0 || findUrls(glyphs).length > 0) reasons.push("url");
  if (containsSecret(text)) reasons.push("secret");
  if (hasEncodedPayload(text)) reasons.push("encoded-payload");
  if (readings.some(isHarmfulPolicy)) reasons.push("harmful-policy");
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

// Cyrillic and Greek letters that render like Latin ones ("іgnоrе" with Cyrillic і and о).
const HOMOGLYPHS: Record<string, string> = {
  а: "a", в: "b", е: "e", ё: "e", к: "k", м: "m", н: "h", о: "o", р: "p", с: "c", т: "t", у: "y", х: "x", ѕ: "s", і: "i", ї: "i", ј: "j", ԁ: "d", ԛ: "q", ԝ: "w", ɡ: "g", ո: "n", ս: "u",
  А: "A", В: "B", Е: "E", К: "K", М: "M", Н: "H", О: "O", Р: "P", С: "C", Т: "T", У: "Y", Х: "X", Ѕ: "S", І: "I", Ј: "J",
  α: "a", ο: "o", ρ: "p", ν: "v", ι: "i", κ: "k", τ: "t", υ: "u", χ: "x", ε: "e",
  Α: "A", Β: "B", Ε: "E", Ζ: "Z", Η: "H", Ι: "I", Κ: "K", Μ: "M", Ν: "N", Ο: "O", Ρ: "P", Τ: "T", Υ: "Y", Χ: "X",
};
const HOMOGLYPH_RE = new RegExp(`[${Object.keys(HOMOGLYPHS).join("")}]`, "g");

/** Drops accents and folds look-alike letters, so "ïgnörе" reads as "ignore". */
function foldGlyphs(text: string): string {
  return text.normalize("NFD").replace(/\p{M}+/gu, "").replace(HOMOGLYPH_RE, (c) => HOMOGLYPHS[c]!);
}

const LEET: Record<string, string> = { "0": "o", "3": "e", "4": "a", "5": "s", "7": "t", "8": "b", "9": "g", "@": "a", $: "s", "!": "i", "|": "l", "€": "e" };

/** Reads digits and symbols inside words as letters ("1gn0r3" → "ignore"); numbers stay numbers. */
function foldLeet(text: string, one: "i" | "l"): string {
  return text.replace(/[\p{L}0-9@$!|€]+/gu, (word) =>
    /\p{L}/u.test(word) && /[0-9@$!|€]/.test(word) ? word.replace(/[0-9@$!|€]/g, (c) => (c === "1" ? one : (LEET[c] ?? c))) : word,
  );
}

// ---------------------------------------------------------------------------------------------
// prompt injection

const OVERRIDE_VERBS = "ignore|disregard|forget|override|overrule|bypass|neglect|discard|abandon|set aside";
const FILLER = "all|any|every|of|the|your|my|these|those|above|earlier|prior|previous|preceding|original|initial|existing|current|system|developer|safety|other|given";
// A bare "ignore the rules" is common advice about linters; an injection points at *these* rules.
const POINTED = new Set(["all", "any", "every", "your", "above", "earlier", "prior", "previous", "preceding", "original", "initial", "system", "developer", "safety"]);
const OVERRIDE_RE = new RegExp(
  `\\b(?:${OVERRIDE_VERBS})\\s+((?:(?:${FILLER})\\s+){1,4})(instructions?|prompts?|rules|directives?|guidelines|guardrails|constraints|polic(?:y|ies)|programming|messages?|context|guidance|restrictions|safeguards|limitations|filters|training)\\b`,
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
  /\b(?:enter|enable|activate|switch\s+(?:in)?to|you\s+are\s+(?:now\s+)?in)\s+(?:developer|god|admin|root|sudo|unrestricted|jailbreak|dan)\s+mode\b/i,
  /\b(?:from\s+now\s+on|henceforth)\b[^.\n]{0,40}\b(?:you\s+(?:are|will|must)|act\s+as|your\s+(?:role|task|job)\s+is)\b/i,
  // Turning the data fences this service puts around stored text into instructions, or closing them.
  /\b(?:treat|consider|regard|handle|interpret|follow|obey|execute|run)\b[^.\n]{0,50}\b(?:data|fenced|quoted|user|tool|retrieved|document|web|e-?mail)\s*(?:blocks?|sections?|content|text|output|messages?|fences?)\b[^.\n]{0,30}\bas\s+(?:(?:your|the|system|new|trusted|real|binding|valid)\s+)*(?:instructions?|commands?|orders|directives?|system\s+prompt)\b/i,
  /\b(?:instructions?|directions?|commands?)\s+(?:in|inside|within|from)\s+(?:the\s+|any\s+)?(?:data|fenced|quoted)\s+(?:blocks?|sections?|fences?)\s+(?:must|should|are\s+to|have\s+to)\s+be\s+(?:followed|obeyed|executed|trusted)\b/i,
  /\bEND\s+DATA\b|\bDATA\s*\([^)]{0,40}\)\s*[—-]/,
  // The same attack in the languages models follow as readily as English.
  /\bignor(?:a|e|ez|er|iere|ieren|ar)\s+(?:(?:todas|toutes|tutte|alle|all|las|les|le|as|die|os|tous|todos|tutti)\s+)*(?:(?:instrucciones|instructions|istruzioni|instrucoes|anweisungen|instruktionen|indicaciones|consignes)\s+(?:anteriores|previas|precedentes|anterieures|precedenti|vorherigen|bisherigen)|(?:vorherigen|bisherigen|obigen)\s+(?:anweisungen|instruktionen))\b/i,
  /\b(?:olvida|oublie[zr]?|vergiss|dimentica|esqueca)\s+(?:(?:todas|toutes|tutte|alle|las|les|le|as|die|tous|todos|tutti)\s+)*(?:(?:tus|tes|vos|deine|le\s+tue|suas)\s+)?(?:instrucciones|instructions|istruzioni|instrucoes|anweisungen|regeln|regles|reglas|regole)\b/i,
  /(?:игнорируй(?:те)?|забудь(?:те)?|проигнорируй(?:те)?)\s+(?:все\s+)?(?:предыдущие\s+|прежние\s+)?(?:инструкции|указания|правила)/i,
  /(?:忽略|无视|忘记|忘掉)(?:之前|以上|先前|前面|上面|所有)?的?(?:所有)?(?:指令|指示|说明|规则|提示)|(?:以前|前|上記)の(?:指示|命令)を(?:無視|忘れ)/,
];

// A role line or tag in stored text forges the structure of the prompt it is injected into: a
// fake `SYSTEM:` line, a closing `</lessons>` or another `[G#].` lesson. Only the roles that carry
// authority count, because `User:` and `Assistant:` lines are ordinary in tasks copied from chats.
const ROLE_LINE_RE = /(?:^|[\n\r\u2028\u2029])\s*(?:#+\s*)?(?:system|developer|operator)\s*:/i;
const STRUCTURE_TAG_RE = /<\/?\s*(?:lessons?|library|context|data|user|assistant|developer|tool|memory|memories)\s*>/i;
const FORGED_LABEL_RE = /\[G\d+\]\s*\./;

function forgesStructure(text: string): boolean {
  const norm = text.normalize("NFKC");
  return ROLE_LINE_RE.test(norm) || STRUCTURE_TAG_RE.test(norm) || FORGED_LABEL_RE.test(norm);
}

function isPromptInjection(text: string): boolean {
  for (const m of text.matchAll(OVERRIDE_RE)) {
    const words = m[1]!.toLowerCase().trim().split(/\s+/);
    if (/^(?:guardrails|programming)$/i.test(m[2]!) || words.some((w) => POINTED.has(w))) return true;
  }
  return INJECTION_RES.some((re) => re.test(text));
}

// ---------------------------------------------------------------------------------------------
// harmful policy: plain-language advice that needs no injection trick to do damage

const CONTROL = "(?:verification|verifying|checks?|checking|review|reviewing|approval|authentication|authenticating|confirmation|confirming|validation|validating|consent|authori[sz]ation|authori[sz]ing|sign-?off|2fa|mfa|id|identity\\s+checks?)";
const HARMFUL_RES: RegExp[] = [
  new RegExp(
    `\\b(?:approve|accept|grant|issue|process|authori[sz]e|execute|perform|transfer|wire|pay\\s+out|refund|release|disburse|delete|drop|wipe|deploy|merge|push|unlock|reset)\\b[^.\\n]{0,50}\\bwithout\\s+(?:(?:any|the|a|an|prior|further|human|manual|customer|user|their|identity|proper|extra)\\s+)*${CONTROL}\\b`,
    "i",
  ),
  /\b(?:skip|bypass|disable|turn\s+off|switch\s+off|circumvent|omit|suppress|waive|ignore)\s+(?:(?:the|all|any|every|our|their)\s+)*(?:identity|id|2fa|mfa|two[\s-]factor|kyc|aml|fraud|security|age|permission|signature|certificate|tls|ssl|authori[sz]ation|authentication|verification|approval|audit|safety|content|moderation|compliance|anti-?virus|firewall)\s+(?:checks?|verification|validation|review|logging|logs|controls?|filters?|scans?|rules|protections?|monitoring|requirements?)\b/i,
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
  // "Never log passwords" is the opposite advice; a negation right before the verb lets it through.
  /(?<!\b(?:never|not|don't|dont|avoid|stop)\s+)\b(?:dump|print|echo|cat|list|output|log|display|reveal|expose)\s+(?:(?:all|the|every|any)\s+)*(?:secrets|credentials|api\s+keys|passwords|private\s+keys?|\.env\b|~\/\.(?:ssh|aws|netrc|npmrc)|\/etc\/(?:passwd|shadow))/i,
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
  for (const m of text.matchAll(INT_IP_TARGET_RE)) {
    if (isPublicIp(intIp(m[1]!))) found.push(m[0]);
  }
  return found;
}

function hasPublicIp(text: string): boolean {
  for (const m of text.matchAll(/(?<![\w.])((?:\d{1,3}\.){3}\d{1,3})(?![\w.])/g)) if (isPublicIp(m[1]!)) return true;
  for (const m of text.matchAll(INT_IP_RE)) if (isPublicIp(intIp(m[1]!))) return true;
  return false;
}

// An address written as one integer (3405803783) or in hex (0xCAFEBABE) still reaches a host.
const INT_IP_RE = /(?<![\w.])(0x[0-9a-f]{7,8}|\d{8,10})(?![\w.])/gi;
const INT_IP_TARGET_RE = /(?<![\w.\/])(0x[0-9a-f]{7,8}|\d{8,10})(?::\d{1,5}(?:\/\S*)?|\/\S*)/gi;

function intIp(literal: string): string {
  const n = Number(literal);
  if (!Number.isSafeInteger(n) || n < 0x01000000 || n > 0xffffffff) return "0.0.0.0";
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join(".");
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
  return hidesText(text);
}

// Pieces of one base64 string, split by quotes, plus signs or spaces so that no single run looks
// random, are joined again and decoded: readable text inside is a hidden message. Each piece must
// look encoded (a digit, a symbol or a capital after its first letter), which ordinary words do not.
const B64_PIECE_RE = /^[A-Za-z0-9+/_-]{4,}={0,2}$/;
const looksEncoded = (piece: string) => /[0-9+/=_-]/.test(piece) || /.[A-Z]/.test(piece);
const HEX_RUN_RE = /\b(?:[0-9a-f]{2}){12,}\b/gi;

function hidesText(text: string): boolean {
  const pieces = text.split(/[\s"'`+,;|()[\]]+/);
  const usable = pieces.map((p) => B64_PIECE_RE.test(p) && looksEncoded(p));
  for (let i = 0; i < pieces.length; i++) {
    let joined = "";
    // A payload in more pieces is still caught: its first pieces alone decode to readable text.
    for (let j = i; j < Math.min(pieces.length, i + 8) && usable[j]; j++) {
      joined += pieces[j];
      if (joined.length >= 16 && isReadable(decodeBase64(joined))) return true;
      if (joined.endsWith("=")) break;
    }
  }
  for (const [run] of text.matchAll(HEX_RUN_RE)) {
    if (isReadable(run.replace(/../g, (h) => String.fromCharCode(parseInt(h, 16))))) return true;
  }
  return false;
}

function decodeBase64(s: string): string {
  const std = s.replace(/-/g, "+").replace(/_/g, "/").replace(/=+$/, "");
  if (std.length % 4 === 1 || !/^[A-Za-z0-9+/]*$/.test(std)) return "";
  return atob(std + "=".repeat((4 - (std.length % 4)) % 4));
}

/** Natural-language text: printable ASCII with several words. Random bytes almost never pass. */
function isReadable(s: string): boolean {
  if (s.length < 12) return false;
  const printable = s.match(/[\x20-\x7e]/g)?.length ?? 0;
  return printable / s.length >= 0.95 && (s.match(/ /g)?.length ?? 0) >= 2 && /[a-z]{3}/i.test(s);
}

function entropy(s: string): number {
  const counts = new Map<string, number>();
  for (const c of s) counts.set(c, (counts.get(c) ?? 0) + 1);
  let h = 0;
  for (const n of counts.values()) h -= (n / s.length) * Math.log2(n / s.length);
  return h;
}
