/**
 * Which URLs Praxis may POST to on a tenant's behalf (webhook verifiers, webhook policies). In
 * production only public `https` hosts; in local development `http` and private hosts too, so a
 * developer's agent on localhost or a Docker network can be called. Addresses are checked in the
 * form the WHATWG URL parser gives them, which already turns `2130706433`, `0x7f.1` and `0177.0.0.1`
 * into `127.0.0.1` and `[::ffff:127.0.0.1]` into `[::ffff:7f00:1]`. A public name that resolves to
 * a private address is not caught here (that needs DNS); Workers' fetch cannot reach private
 * networks from the edge anyway, and redirects are not followed (src/practice/signed-post.ts).
 */

export type WebhookUrlMode = "production" | "development";

/**
 * The rules a deployment's PRAXIS_ENV asks for. Production unless a value says otherwise: a plain
 * deploy, a typo or a missing variable never loosens the rules. `development` is set by a local
 * file (`.dev.vars`, written by `npm start`); `test` by the vitest environment.
 */
export function webhookUrlModeOf(praxisEnv: string | undefined): WebhookUrlMode {
  return praxisEnv === "development" || praxisEnv === "test" ? "development" : "production";
}

/** A URL Praxis will call, with the dotted path of the request field that holds it. */
export interface UrlAt {
  path: string;
  url: string;
}

type MaybeWebhook = { kind: string; url?: string } | null | undefined;

/** The URLs a run's options make Praxis call: its webhook policy and webhook verifier. */
export function runOptionUrls(run: { policy?: MaybeWebhook; verifier?: MaybeWebhook } | null | undefined, prefix = ""): UrlAt[] {
  const at = (field: string) => (prefix ? `${prefix}.${field}` : field);
  return [
    ...(run?.policy?.kind === "webhook" && run.policy.url ? [{ path: at("policy.url"), url: run.policy.url }] : []),
    ...(run?.verifier?.kind === "webhook" && run.verifier.url ? [{ path: at("verifier.url"), url: run.verifier.url }] : []),
  ];
}

/** One field error per URL that may not be called, each saying why. */
export function uncallableUrls(urls: readonly UrlAt[], mode: WebhookUrlMode): { path: string; message: string }[] {
  return urls.flatMap(({ path, url }) => {
    const problem = checkWebhookUrl(url, mode);
    return problem ? [{ path, message: `The URL ${problem}` }] : [];
  });
}

type Block = { bits: number[]; prefix: number; why: string };

const v4 = (cidr: string, why: string): Block => {
  const [addr, len] = cidr.split("/");
  return { bits: addr!.split(".").map(Number), prefix: Number(len), why };
};

const IPV4_BLOCKS: Block[] = [
  v4("0.0.0.0/8", "an unspecified ('this network') address"),
  v4("10.0.0.0/8", "a private address"),
  v4("100.64.0.0/10", "a carrier-grade NAT (shared) address"),
  v4("127.0.0.0/8", "a loopback address"),
  v4("169.254.0.0/16", "a link-local address (this includes cloud metadata services)"),
  v4("172.16.0.0/12", "a private address"),
  v4("192.0.0.0/24", "an IETF protocol address"),
  v4("192.0.2.0/24", "a documentation address"),
  v4("192.88.99.0/24", "a 6to4 relay address"),
  v4("192.168.0.0/16", "a private address"),
  v4("198.18.0.0/15", "a benchmarking address"),
  v4("198.51.100.0/24", "a documentation address"),
  v4("203.0.113.0/24", "a documentation address"),
  v4("224.0.0.0/4", "a multicast address"),
  v4("240.0.0.0/4", "a reserved or broadcast address"),
];

/** Cloud metadata endpoints stay off limits even in development: they hand out credentials. */
const METADATA_V4 = "169.254.169.254";
const METADATA_V6_GROUPS = [0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254].join(":");
const METADATA_NAMES = new Set(["metadata.google.internal", "metadata.goog", "metadata"]);

function inBlock(octets: number[], { bits, prefix }: Block): boolean {
  for (let i = 0; i < prefix; i += 8) {
    const take = Math.min(8, prefix - i);
    const mask = ((1 << take) - 1) << (8 - take);
    if ((octets[i / 8]! & mask) !== (bits[i / 8]! & mask)) return false;
  }
  return true;
}

function ipv4Problem(octets: number[]): string | null {
  return IPV4_BLOCKS.find((b) => inBlock(octets, b))?.why ?? null;
}

function parseIpv4(host: string): number[] | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (!m) return null;
  const octets = m.slice(1).map(Number);
  return octets.every((o) => o <= 255) ? octets : null;
}

/** The eight 16-bit groups of an IPv6 address (with or without brackets and a zone), or null. */
export function parseIpv6(input: string): number[] | null {
  let s = input
    .replace(/^\[|\]$/g, "")
    .replace(/%.*$/, "")
    .toLowerCase();
  const dotted = /(?<=:)(\d{1,3}(?:\.\d{1,3}){3})$/.exec(s);
  if (dotted) {
    const o = parseIpv4(dotted[1]!);
    if (!o) return null;
    s = `${s.slice(0, dotted.index)}${((o[0]! << 8) | o[1]!).toString(16)}:${((o[2]! << 8) | o[3]!).toString(16)}`;
  }
  const halves = s.split("::");
  if (halves.length > 2) return null;
  const groups = (part: string) => (part === "" ? [] : part.split(":"));
  const head = groups(halves[0]!);
  const rest = halves.length === 2 ? groups(halves[1]!) : [];
  if (![...head, ...rest].every((g) => /^[0-9a-f]{1,4}$/.test(g))) return null;
  const explicit = head.length + rest.length;
  if (halves.length === 1 ? explicit !== 8 : explicit > 7) return null;
  const zeros = halves.length === 2 ? new Array<number>(8 - explicit).fill(0) : [];
  return [...head, ...zeros.map(String), ...rest].map((g) => parseInt(g, 16));
}

/**
 * The IPv4 address an IPv6 address reaches: IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible
 * (::a.b.c.d), NAT64 (64:ff9b::a.b.c.d) and 6to4 (2002:aabb:ccdd::).
 */
function wrappedIpv4(g: number[]): number[] | null {
  const octets = (at: number) => [g[at]! >> 8, g[at]! & 255, g[at + 1]! >> 8, g[at + 1]! & 255];
  const zero = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  if (zero(0, 5) && (g[5] === 0xffff || g[5] === 0)) return octets(6);
  if (g[0] === 0x64 && g[1] === 0xff9b && zero(2, 6)) return octets(6);
  if (g[0] === 0x2002) return octets(1);
  return null;
}

function ipv6Problem(g: number[]): string | null {
  if (g.every((x) => x === 0)) return "the unspecified address";
  if (g.slice(0, 7).every((x) => x === 0) && g[7] === 1) return "a loopback address";
  const v4 = wrappedIpv4(g);
  if (v4) {
    const inner = ipv4Problem(v4);
    return inner ? `${inner} (inside an IPv6 address)` : null;
  }
  const first = g[0]!;
  if ((first & 0xfe00) === 0xfc00) return "a unique-local (private) IPv6 address";
  if ((first & 0xffc0) === 0xfe80) return "a link-local IPv6 address";
  if ((first & 0xffc0) === 0xfec0) return "a site-local IPv6 address";
  if ((first & 0xff00) === 0xff00) return "a multicast IPv6 address";
  if (first === 0x2001 && g[1] === 0x0db8) return "a documentation IPv6 address";
  if (first === 0x2001 && g[1] === 0) return "a Teredo tunnel address";
  if (first === 0x0100 && g.slice(1, 4).every((x) => x === 0)) return "a discard-only IPv6 address";
  return null;
}

const LOCAL_SUFFIXES = [".localhost", ".local", ".internal", ".localdomain", ".home.arpa", ".lan", ".intranet"];

/** Null when the URL may be called, else the reason it is refused (for a 422's detail). */
export function checkWebhookUrl(url: string, mode: WebhookUrlMode): string | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return "is not a valid absolute URL";
  }
  if (u.protocol !== "https:" && u.protocol !== "http:") return `must use https (got ${u.protocol.slice(0, -1)})`;
  if (mode === "production" && u.protocol !== "https:") return "must use https outside local development";
  if (u.username || u.password) return "must not carry credentials; the request is signed with the tenant's webhook secret instead";

  const host = u.hostname.replace(/\.$/, "");
  if (host === "") return "has no host";
  const v6 = host.startsWith("[") ? parseIpv6(host) : null;
  if (host.startsWith("[") && !v6) return "has an invalid IPv6 address";
  const octets = v6 ? null : parseIpv4(host);

  const v4 = octets ?? (v6 && wrappedIpv4(v6));
  const metadata = v4?.join(".") === METADATA_V4 || v6?.join(":") === METADATA_V6_GROUPS || METADATA_NAMES.has(host);
  if (metadata) return "points at a cloud metadata service";
  if (mode === "development") return null;

  if (octets) {
    const why = ipv4Problem(octets);
    return why ? `points at ${why}` : null;
  }
  if (v6) {
    const why = ipv6Problem(v6);
    return why ? `points at ${why}` : null;
  }
  if (host === "localhost" || LOCAL_SUFFIXES.some((s) => host.endsWith(s))) return `points at a local host name (${host})`;
  if (!host.includes(".")) return `has a host name without a domain (${host}), which only resolves inside a private network`;
  return null;
}
