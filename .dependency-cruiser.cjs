// Which way dependencies point (docs/architecture.md): the doors (src/http, src/routes, src/mcp,
// src/dashboard) → src/services (the only callers of Durable Object stubs) → durable-objects →
// src/core. Durable Objects reach back out only through ports declared in src/core, which the
// services implement and src/wiring.ts hands them. `npm test` runs `depcruise` with this file; a new violation fails the suite.

/** Every room of the Worker; src/core is pure and imports only itself and npm packages. */
const DOORS = "^src/(http|routes|mcp|dashboard)/";
const SERVICES = "^src/services/";
const DURABLE_OBJECTS = "^durable-objects/";
const CORE = "^src/core/";

module.exports = {
  forbidden: [
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
      name: "dos-never-import-services",
      comment: "Services call Durable Objects; a DO starts follow-up work through its storage, alarm or a queue message.",
      severity: "error",
      from: { path: DURABLE_OBJECTS },
      to: { path: SERVICES },
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
      comment: "src/wiring.ts hands Durable Objects their ports (the services); any other importer would tie the two together again.",
      severity: "error",
      from: { pathNot: "^src/index\\.ts$" },
      to: { path: "^src/wiring\\.ts$" },
    },
    {
      name: "dos-never-import-doors",
      severity: "error",
      from: { path: DURABLE_OBJECTS },
      to: { path: DOORS },
    },
    {
      name: "doors-reach-dos-through-services",
      comment: "Routes, MCP tools and pages call services; only services hold Durable Object stubs.",
      severity: "error",
      from: { path: DOORS },
      to: { path: DURABLE_OBJECTS },
    },
    {
      name: "doors-reach-d1-through-services",
      comment: "Routes, MCP tools and pages read and write D1 through services, like Durable Objects.",
      severity: "error",
      from: { path: "^src/(routes|mcp|dashboard)/" },
      to: { path: "^src/db/client" },
    },
    {
      name: "services-use-a-dos-public-module",
      comment: "A Durable Object's inner modules (durable-objects/<name>/…) are its own; others import durable-objects/<name>.ts and its typed contract, <name>/contract.ts.",
      severity: "error",
      from: { pathNot: DURABLE_OBJECTS },
      to: { path: "^durable-objects/[^/]+/", pathNot: "^durable-objects/[^/]+/contract\\.ts$" },
    },
    {
      name: "stubs-stay-in-services",
      comment: "Durable Object stubs and the resilient wrapper that reads each object's contract are held by services and the platform only; others call service functions.",
      severity: "error",
      from: { pathNot: [SERVICES, "^src/platform/"] },
      to: { path: "^src/services/(agent-memory|agent-access|object-stub)\\.ts$" },
    },
    {
      name: "services-never-import-doors",
      comment: "Services raise domain errors; each door maps them to its own shape (problem+json, MCP error).",
      severity: "error",
      from: { path: SERVICES },
      to: { path: DOORS },
    },
    {
      name: "only-the-entry-imports-doors",
      comment: "Below the doors (llm, jobs, practice, learning, adapters, core) failures are domain errors; problem documents and HTTP statuses belong to the doors.",
      severity: "error",
      from: { pathNot: [DOORS, "^src/index\\.ts$"] },
      to: { path: DOORS },
    },
    {
      name: "mcp-shares-no-route-modules",
      comment: "Shapes both doors use live below them (src/core), not in src/routes.",
      severity: "error",
      from: { path: "^src/mcp/" },
      to: { path: "^src/routes/" },
    },
    {
      name: "env-is-a-leaf",
      comment: "src/env.ts names bindings only; DO namespaces are typed in types/durable-object-namespaces.d.ts.",
      severity: "error",
      from: { path: "^src/env\\.ts$" },
      to: { path: "^(durable-objects|src/(services|routes|mcp|dashboard|practice|learning|llm|adapters|jobs/(?!messages)))" },
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
