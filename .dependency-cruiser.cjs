// Which way dependencies point (docs/architecture.md): the entry (src/index.ts, src/app.ts, src/wiring.ts,
// src/cron.ts) → the doors (src/http, src/routes, src/mcp, src/dashboard) → their shared kit (src/doors) →
// the queue consumer (src/jobs) → use cases (src/use-cases) → the platform (src/platform: the only
// holder of Durable Object stubs) → the work that calls out (src/practice, src/learning) → durable-objects →
// src/llm → src/adapters → src/db → the leaves (src/config.ts, src/env.ts, src/trace.ts) → src/core.
// Durable Objects reach back out only through ports declared in src/core, which the platform
// implements and src/wiring.ts hands them. `npm test` runs `depcruise` with this file; a new violation fails the suite.

/** Every room of the Worker; src/core is pure and imports only itself and npm packages. */
const DOORS = "^src/(http|routes|mcp|dashboard|doors)/";
const PLATFORM = "^src/platform/";
const DURABLE_OBJECTS = "^durable-objects/";
const CORE = "^src/core/";

/**
 * The floors, top to bottom. A room imports only from floors below its own (and its own room): no
 * two rooms import each other, type imports included. Rooms on one floor may import each other
 * only as listed in SIDEWAYS.
 */
const FLOORS = [
  ["entry", "^src/(index|app|wiring|cron)\\.ts$"],
  ["doors", "^src/(http|routes|mcp|dashboard)/"],
  ["door kit", "^src/doors/"],
  ["jobs", "^src/jobs/"],
  ["use cases", "^src/use-cases/"],
  ["platform", PLATFORM],
  ["practice and learning", "^src/(practice|learning)/"],
  ["durable objects", DURABLE_OBJECTS],
  ["llm", "^src/llm/"],
  ["adapters", "^src/adapters/"],
  ["db", "^src/db/"],
  ["leaves", "^src/(config|env|trace)\\.ts$"],
  ["core", CORE],
];

const floorRules = FLOORS.slice(1, -1).map(([name, path], i) => ({
  name: `nothing-below-imports-${name.replace(/ /g, "-")}`,
  comment: `Dependencies point down the floors (docs/architecture.md, "Direction of dependency"): only rooms above ${name} import it.`,
  severity: "error",
  from: { path: FLOORS.slice(i + 2).map(([, p]) => p) },
  to: { path },
}));

/** Same-floor rooms that are not allowed to import each other (each direction named). */
const SIDEWAYS = [
  ["^src/(routes|mcp|dashboard)/", "^src/http/app"],
  ["^src/mcp/", "^src/(http|routes)/"],
  ["^src/(http|routes)/", "^src/mcp/"],
  ["^src/learning/", "^src/practice/"],
  ["^src/(env|trace|config)\\.ts$", "^src/(env|trace)\\.ts$"],
].map(([from, to]) => ({
  name: "same-floor-rooms-stay-apart",
  comment: "Rooms on one floor share what they both need through a floor below (the doors through src/doors).",
  severity: "error",
  from: { path: from },
  to: { path: to, pathNot: from },
}));

module.exports = {
  forbidden: [
    ...floorRules,
    ...SIDEWAYS,
    {
      name: "no-circular",
      comment: "A circle makes load order and ownership ambiguous; move the shared part below both.",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    {
      name: "core-is-pure",
      comment: "src/core is plain functions over plain data: no runtime, no Worker room above it.",
      severity: "error",
      from: { path: CORE },
      to: { pathNot: [CORE, "^node_modules/"], dependencyTypesNot: ["npm", "npm-dev", "npm-optional", "npm-peer"] },
    },
    {
      name: "core-has-no-cloudflare-imports",
      severity: "error",
      from: { path: CORE },
      to: { path: "^cloudflare:" },
    },
    {
      name: "practice-dos-reach-out-through-ports",
      comment: "The practice and evaluation objects start work outside themselves (D1 rows, evaluations, promotion, admission) through their ports, src/core/practice/ports.ts.",
      severity: "error",
      from: { path: "^durable-objects/(practice-run|evaluation)" },
      to: { path: ["^src/db/", "^durable-objects/agent-memory"] },
    },
    {
      name: "wiring-belongs-to-the-entry",
      comment: "src/wiring.ts hands Durable Objects their ports (src/platform/objects/follow-up.ts); any other importer would tie the two together again.",
      severity: "error",
      from: { pathNot: "^src/index\\.ts$" },
      to: { path: "^src/wiring\\.ts$" },
    },
    {
      name: "doors-reach-dos-through-use-cases",
      comment: "Routes, MCP tools and pages call use cases; only the platform holds Durable Object stubs.",
      severity: "error",
      from: { path: DOORS },
      to: { path: DURABLE_OBJECTS },
    },
    {
      name: "doors-reach-d1-through-use-cases",
      comment: "Routes, MCP tools and pages read and write D1 through use cases, like Durable Objects.",
      severity: "error",
      from: { path: "^src/(routes|mcp|dashboard|doors)/" },
      to: { path: "^src/db/client" },
    },
    {
      name: "others-use-a-dos-public-module",
      comment: "A Durable Object's inner modules (durable-objects/<name>/…) are its own; others import durable-objects/<name>.ts and its typed contract, <name>/contract.ts.",
      severity: "error",
      from: { pathNot: DURABLE_OBJECTS },
      to: { path: "^durable-objects/[^/]+/", pathNot: "^durable-objects/[^/]+/contract\\.ts$" },
    },
    {
      name: "stubs-stay-in-the-platform",
      comment: "Durable Object stubs and the resilient wrapper that reads each object's contract are held by the platform; use cases call platform functions. Only its functions leave it.",
      severity: "error",
      from: { pathNot: PLATFORM },
      to: { path: "^src/platform/objects/(memory-name|object-stub)\\.ts$" },
    },
    {
      name: "agent-access-is-for-use-cases",
      comment: "A use case reaches an agent's memory through agent-access.ts (scope, the agent's row, its object), and hands it to the learners as their port (src/learning/ports.ts); the doors, the queue and the cron call use cases instead.",
      severity: "error",
      from: { pathNot: [PLATFORM, "^src/use-cases/"] },
      to: { path: "^src/platform/objects/agent-access\\.ts$" },
    },
    {
      name: "jobs-and-cron-call-use-cases",
      comment: "Queue handlers and cron tasks call use cases as the system (systemPrincipal, src/core/principal.ts), never the machinery beneath them.",
      severity: "error",
      from: { path: ["^src/jobs/", "^src/cron\\.ts$"] },
      to: { path: [PLATFORM, "^src/(practice|learning|db|llm)/"] },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^(node_modules|generated)/" },
    tsConfig: { fileName: "tsconfig.json" },
    // Type-only imports are dependencies too: a type circle still ties two rooms together.
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { extensions: [".ts", ".tsx", ".d.ts", ".js", ".mjs"] },
  },
};
