/** Where a lesson could send data out (src/core/poison.ts): exfiltration wording, URLs and public addresses. */

const SENSITIVE =
  "(?:\\b(?:credentials?|api[\\s_-]?keys?|secrets?|access\\s+tokens?|tokens|passwords?|env(?:ironment)?\\s+var(?:iable)?s?|environment|conversation(?:\\s+history)?|chat\\s+(?:history|logs?)|transcripts?|system\\s+prompt|private\\s+keys?|ssh\\s+keys?|cookies|session\\s+(?:tokens?|cookies?)|(?:user|customer|personal|private|all)\\s+data|pii|memor(?:y|ies)|database\\s+dump)\\b|\\.env\\b)";
// Stays within one sentence, but lets dots inside paths and names (~/.aws, .env) through.
const IN_SENTENCE = "(?:[^.\\n]|\\.(?=\\S))";
const SEND_RE = new RegExp(
  `(?<!\\b(?:never|not|don't|dont|avoid|stop)\\s+)\\b(?:send|post|upload|e-?mail|mail|forward|transmit|exfiltrate|leak|copy|share|submit|sync|pipe|beacon)\\b${IN_SENTENCE}{0,60}?${SENSITIVE}${IN_SENTENCE}{0,60}?\\b(?:to|into|at|via)\\s+([^\\n]{0,100})`,
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
  /(?<!\b(?:never|not|don't|dont|avoid|stop)\s+)\b(?:dump|print|echo|cat|list|output|log|display|reveal|expose)\s+(?:(?:all|the|every|any|contents?|of)\s+)*(?:secrets|credentials|api\s+keys|passwords|private\s+keys?|\.env\b|~\/\.(?:ssh|aws|netrc|npmrc)|\/etc\/(?:passwd|shadow))/i,
  // Environment or credential files piped into a network or encoding tool.
  /\b(?:env|printenv|set|cat\s+\S*(?:\.env|credentials|id_rsa|id_ed25519|\.pem|\.npmrc|\.netrc|passwd|shadow)\S*)\s*\|\s*(?:curl|wget|nc|ncat|netcat|base64|xxd)\b/i,
  /\s(?:-d|--data(?:-binary|-raw|-urlencode)?|-F|--form|-T|--upload-file)\s+["']?[^\s"']*(?:@\S*(?:\.env|id_rsa|credentials|\.aws|\.ssh|\.npmrc|\.netrc|passwd)|\$\(|\$\{?\w*(?:KEY|TOKEN|SECRET|PASSWORD))/i,
  /\b(?:webhook\.site|requestbin|pipedream\.net|ngrok(?:-free)?\.(?:io|app|dev)|burpcollaborator|oastify\.com|interact\.sh|pastebin\.com|transfer\.sh|hastebin|beeceptor|requestcatcher|canarytokens)\b/i,
];
// Markdown images are fetched without a click: the classic zero-interaction leak channel. Read as
// written only: a reserved host (example.com) reaches no third party, and a folded reading would
// turn its letters into another name.
export const REMOTE_IMAGE_RE =
  /!\[[^\]]*\]\(\s*(?:https?:)?\/\/(?!(?:[\w-]+\.)*(?:example(?:\.(?:com|net|org))?|localhost|test|invalid)(?:[:/)\s]|$))/i;
const NETWORK_TOOL_RE = /\b(?:curl|wget|nc|ncat|netcat|scp|rsync|sftp|invoke-webrequest|invoke-restmethod|iwr|irm)\b([^\n]{0,300})/gi;

export function isExfiltration(text: string): boolean {
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
  "info",
  "top",
  "co",
  "me",
  "ai",
  "app",
  "dev",
  "sh",
  "ly",
  "gg",
  "to",
  "tv",
  "cc",
  "ws",
  "us",
  "uk",
  "de",
  "fr",
  "nl",
  "eu",
  "es",
  "it",
  "pl",
  "br",
  "in",
  "jp",
  "kr",
  "ir",
  "kp",
  "ua",
  "by",
  "kz",
  "vn",
  "id",
  "ph",
  "pk",
  "ng",
  "za",
  "au",
  "ca",
  "ch",
  "se",
  "no",
  "fi",
  "dk",
  "be",
  "at",
  "cz",
  "ro",
  "hu",
  "gr",
  "pt",
  "tr",
  "il",
  "ae",
  "sa",
  "mx",
  "ar",
  "cl",
  "site",
  "online",
  "click",
  "link",
  "live",
  "shop",
  "club",
  "icu",
  "buzz",
  "store",
  "tech",
  "cloud",
  "space",
  "website",
  "fun",
  "host",
  "page",
  "zip",
  "mov",
  "ml",
  "ga",
  "cf",
  "gq",
  "rs",
  "md",
  "py",
  "so",
  "vip",
  "work",
  "win",
  "bid",
  "loan",
]);
// Things that read like domains but are product names, and names that can never reach a third
// party (RFC 2606/6761 reserved names and loopback).
const NOT_A_HOST = new Set(["asp.net", "ado.net", "vb.net", "socket.io", "localhost"]);
const RESERVED_HOST_RE =
  /^(?:localhost|(?:[\w-]+\.)*localhost|127(?:\.\d{1,3}){3}|0\.0\.0\.0|\[?::1\]?|(?:[\w-]+\.)*example(?:\.(?:com|net|org))?|(?:[\w-]+\.)+(?:test|invalid))$/i;

const SCHEME_URL_RE = /\b(?:https?|ftps?|wss?|sftp|s3|gs|file):\/\/\/?([^\s/?#<>"'`)\]]*)[^\s<>"'`)\]]*/gi;
// A scheme named in prose or code (`javascript:` links) is not a link: something must follow it.
const PSEUDO_URL_RE = /\b(?:(?:java|vb)script:[^\s`'"<>]|data:[a-z]+\/[\w.+-]+[;,])/gi;
const WWW_RE = /(?<![\w.-])www\.[a-z0-9-]+(?:\.[a-z0-9-]+)+/gi;
const BARE_DOMAIN_RE =
  /(?<![\w./\\-])((?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+([a-z]{2,24}))(?![\w-]|\.[a-z0-9])(\/[^\s]*|:\d{2,5}\b)?/gi;

export function findUrls(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(SCHEME_URL_RE)) {
    const host = (m[1] ?? "").replace(/^[^@]*@/, "").replace(/:\d+$/, "");
    // `https://...` and `https://<host>` are placeholders: a host has letters or digits.
    if (!RESERVED_HOST_RE.test(host) && /^[\p{L}\p{N}[]/u.test(host)) found.push(m[0]);
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
