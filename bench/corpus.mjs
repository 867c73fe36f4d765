// Deterministic, realistic-ish experience texts and queries for the benchmark.
// Shared by bench/run.mjs (HTTP load) and bench/ranking.ts (in-process ranking step), so both
// measure the same data. Everything derives from a seeded RNG: the same seed gives the same corpus.

/** mulberry32: small, fast, good enough for picking words. */
export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = (r, xs) => xs[Math.floor(r() * xs.length)];

const DOMAINS = {
  deploy: {
    nouns: [
      "deployment",
      "rollout",
      "canary",
      "release branch",
      "build artifact",
      "container image",
      "helm chart",
      "feature flag",
      "migration script",
      "staging cluster",
      "load balancer",
      "health check",
    ],
    verbs: ["roll back", "pin", "promote", "verify", "tag", "rebuild", "drain", "stage", "gate", "bake"],
    tags: ["deploy", "ci", "infra"],
  },
  database: {
    nouns: [
      "query plan",
      "index",
      "connection pool",
      "transaction",
      "replica lag",
      "schema migration",
      "foreign key",
      "vacuum job",
      "slow query log",
      "primary key",
      "lock timeout",
      "backup snapshot",
    ],
    verbs: ["analyze", "batch", "index", "retry", "partition", "throttle", "denormalize", "cache", "explain", "shard"],
    tags: ["db", "sql", "performance"],
  },
  api: {
    nouns: [
      "rate limit",
      "pagination cursor",
      "webhook",
      "idempotency key",
      "auth token",
      "request timeout",
      "error response",
      "JSON schema",
      "retry header",
      "API version",
      "payload size",
      "status code",
    ],
    verbs: ["validate", "paginate", "retry", "backoff", "sign", "version", "deduplicate", "log", "rotate", "document"],
    tags: ["api", "http", "integration"],
  },
  testing: {
    nouns: [
      "flaky test",
      "fixture",
      "mock server",
      "snapshot",
      "integration suite",
      "coverage report",
      "test database",
      "seed data",
      "race condition",
      "timeout budget",
      "assertion",
      "property test",
    ],
    verbs: ["isolate", "seed", "stub", "parallelize", "quarantine", "reproduce", "bisect", "shrink", "freeze", "rerun"],
    tags: ["testing", "qa", "ci"],
  },
  support: {
    nouns: [
      "refund request",
      "billing dispute",
      "password reset",
      "escalation",
      "customer ticket",
      "invoice",
      "account lock",
      "subscription plan",
      "order status",
      "shipping delay",
      "chargeback",
      "warranty claim",
    ],
    verbs: ["confirm", "escalate", "apologize for", "verify", "summarize", "refund", "reassign", "follow up on", "close", "tag"],
    tags: ["support", "billing", "customer"],
  },
  math: {
    nouns: [
      "equation",
      "integral",
      "probability",
      "geometry proof",
      "unit conversion",
      "modular arithmetic",
      "recurrence",
      "inequality",
      "combinatorics count",
      "matrix rank",
      "limit",
      "derivative",
    ],
    verbs: ["simplify", "substitute", "check", "factor", "bound", "enumerate", "estimate", "verify", "normalize", "differentiate"],
    tags: ["math", "reasoning", "verification"],
  },
  web: {
    nouns: [
      "search result",
      "product page",
      "login form",
      "price table",
      "captcha",
      "cookie banner",
      "dropdown menu",
      "checkout flow",
      "search filter",
      "pagination link",
      "modal dialog",
      "shopping cart",
    ],
    verbs: ["scroll", "click", "dismiss", "filter", "compare", "extract", "wait for", "reload", "scrape", "submit"],
    tags: ["web", "browsing", "navigation"],
  },
  code: {
    nouns: [
      "stack trace",
      "null pointer",
      "type error",
      "dependency version",
      "lockfile",
      "memory leak",
      "off-by-one bug",
      "regex",
      "unicode string",
      "date parsing",
      "config file",
      "environment variable",
    ],
    verbs: ["reproduce", "log", "upgrade", "pin", "refactor", "profile", "guard", "parse", "escape", "trace"],
    tags: ["code", "debugging", "python", "typescript"],
  },
};
const DOMAIN_NAMES = Object.keys(DOMAINS);

const SITUATIONS = [
  "the first attempt fails",
  "the user is in a hurry",
  "the input is ambiguous",
  "results look inconsistent",
  "the job runs at night",
  "traffic spikes suddenly",
  "two sources disagree",
  "the error message is vague",
  "a retry already happened",
  "the data set is large",
  "the deadline is tight",
  "the cache is cold",
  "permissions are missing",
  "the page loads slowly",
];
const REASONS = [
  "it avoids repeating the same mistake",
  "otherwise the answer drifts from the facts",
  "this saved several steps last time",
  "skipping it caused a costly failure before",
  "it makes the outcome easy to verify",
  "the reviewer expects it",
  "it keeps partial work recoverable",
  "silent errors are hard to trace later",
  "it cuts the number of tool calls",
  "the cheaper path usually works first",
];
const OPENERS = [
  "Always",
  "First",
  "Prefer to",
  "Remember to",
  "Before answering,",
  "Do not forget to",
  "If unsure,",
  "Never skip a step:",
];
const QUERY_FORMS = [
  (v, n, s) => `how should I ${v} the ${n} when ${s}`,
  (_v, n) => `${n} problem, what to do`,
  (v, n, s) => `${s}: ${v} ${n}?`,
  (v, n) => `best way to ${v} a ${n}`,
  (v, n, _s, d) => `${d} task with a ${n} that needs to ${v}`,
  (v, n) => `steps to ${v} ${n} safely`,
];

/** One experience (≤ ~32 words, well under the 600-character limit). */
export function experienceText(r) {
  const d = pick(r, DOMAIN_NAMES);
  const dom = DOMAINS[d];
  const n1 = pick(r, dom.nouns);
  let n2 = pick(r, dom.nouns);
  if (n2 === n1) n2 = pick(r, dom.nouns);
  const text = `${pick(r, OPENERS)} ${pick(r, dom.verbs)} the ${n1} and ${pick(r, dom.verbs)} the ${n2} when ${pick(r, SITUATIONS)}, because ${pick(r, REASONS)}.`;
  const tags = [d, pick(r, dom.tags)].filter((t, i, a) => a.indexOf(t) === i);
  return { text, tags };
}

/** The first `n` experiences of the corpus for `seed` (prefix-stable: corpus(1000) is corpus(10000)'s start). */
export function corpus(n, seed = 42) {
  const r = rng(seed);
  const out = new Array(n);
  for (let i = 0; i < n; i++) out[i] = experienceText(r);
  return out;
}

/** `n` retrieval queries: about half paraphrase stored-style content, half are short free-form asks. */
export function queries(n, seed = 7) {
  const r = rng(seed);
  const out = new Array(n);
  for (let i = 0; i < n; i++) {
    const d = pick(r, DOMAIN_NAMES);
    const dom = DOMAINS[d];
    out[i] = pick(r, QUERY_FORMS)(pick(r, dom.verbs), pick(r, dom.nouns), pick(r, SITUATIONS), d);
  }
  return out;
}
