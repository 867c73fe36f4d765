import fc from "fast-check";

/** A JSON Schema node of the OpenAPI 3.1 document (JSON Schema 2020-12 as @hono/zod-openapi emits it). */
export type JsonSchema = { [k: string]: any };
export type OpenApiDoc = { paths: Record<string, Record<string, any>>; components?: { schemas?: Record<string, JsonSchema> } };

const anyJson = fc.oneof(fc.constant(null), fc.boolean(), fc.integer({ min: -1000, max: 1000 }), fc.string({ maxLength: 12 }));

/** Follows `$ref: #/components/schemas/X` (the only kind the document uses). */
export function deref(doc: OpenApiDoc, schema: JsonSchema): JsonSchema {
  let s = schema;
  for (let hops = 0; s?.$ref && hops < 20; hops++) {
    const name = String(s.$ref).replace("#/components/schemas/", "");
    s = { ...doc.components?.schemas?.[name], ...Object.fromEntries(Object.entries(s).filter(([k]) => k !== "$ref")) };
  }
  return s;
}

function mergeAll(doc: OpenApiDoc, parts: JsonSchema[]): JsonSchema {
  const out: JsonSchema = { type: "object", properties: {}, required: [] };
  for (const p of parts.map((x) => deref(doc, x))) {
    if (p.type && p.type !== "object") return p;
    Object.assign(out.properties, p.properties ?? {});
    out.required.push(...(p.required ?? []));
    if (p.additionalProperties === false) out.additionalProperties = false;
  }
  return out;
}

function stringArb(s: JsonSchema): fc.Arbitrary<string> {
  const min = s.minLength ?? 0;
  const max = Math.min(s.maxLength ?? min + 24, min + 24);
  if (s.format === "uri" || s.format === "url")
    return fc.webUrl({ validSchemes: ["https"] }).filter((u) => u.length <= (s.maxLength ?? 2000));
  if (s.pattern) {
    const re = new RegExp(s.pattern, "u");
    return fc
      .stringMatching(re)
      .map((v) => (v.length > (s.maxLength ?? Infinity) ? v.slice(0, s.maxLength) : v))
      .filter((v) => v.length >= min && re.test(v));
  }
  return fc.string({ minLength: min, maxLength: Math.max(min, max) });
}

function numberArb(s: JsonSchema, integer: boolean): fc.Arbitrary<number> {
  const lo = s.minimum ?? (typeof s.exclusiveMinimum === "number" ? s.exclusiveMinimum : -1e6);
  const hi = s.maximum ?? (typeof s.exclusiveMaximum === "number" ? s.exclusiveMaximum : 1e6);
  if (integer) {
    const min = Math.ceil(typeof s.exclusiveMinimum === "number" ? s.exclusiveMinimum + 1e-9 : lo);
    const max = Math.floor(typeof s.exclusiveMaximum === "number" ? s.exclusiveMaximum - 1e-9 : hi);
    return fc.integer({ min: Math.max(min, Number.MIN_SAFE_INTEGER), max: Math.min(Math.max(min, max), Number.MAX_SAFE_INTEGER) });
  }
  return fc.double({
    min: lo,
    max: Math.max(lo, hi),
    minExcluded: typeof s.exclusiveMinimum === "number",
    maxExcluded: typeof s.exclusiveMaximum === "number",
    noNaN: true,
    noDefaultInfinity: true,
  });
}

/** Values that the schema describes (valid as far as the document says; refinements it cannot express may still refuse them). */
export function arbitraryOf(doc: OpenApiDoc, schema: JsonSchema | undefined, depth = 0): fc.Arbitrary<unknown> {
  if (!schema || depth > 8) return anyJson;
  const s = deref(doc, schema);
  if ("const" in s) return fc.constant(s.const);
  if (Array.isArray(s.enum)) return fc.constantFrom(...s.enum);
  const alternatives = s.oneOf ?? s.anyOf;
  if (Array.isArray(alternatives)) return fc.oneof(...alternatives.map((a: JsonSchema) => arbitraryOf(doc, a, depth + 1)));
  if (Array.isArray(s.allOf)) return arbitraryOf(doc, mergeAll(doc, s.allOf), depth + 1);
  const types: string[] = Array.isArray(s.type) ? s.type : s.type ? [s.type] : s.properties ? ["object"] : s.items ? ["array"] : [];
  if (types.length === 0) return anyJson;
  if (types.length > 1) return fc.oneof(...types.map((t) => arbitraryOf(doc, { ...s, type: t }, depth)));
  switch (types[0]) {
    case "null":
      return fc.constant(null);
    case "boolean":
      return fc.boolean();
    case "integer":
      return numberArb(s, true);
    case "number":
      return numberArb(s, false);
    case "string":
      return stringArb(s);
    case "array": {
      if (Array.isArray(s.prefixItems)) return fc.tuple(...s.prefixItems.map((p: JsonSchema) => arbitraryOf(doc, p, depth + 1)));
      const min = s.minItems ?? 0;
      return fc.array(arbitraryOf(doc, s.items, depth + 1), {
        minLength: min,
        maxLength: Math.max(min, Math.min(s.maxItems ?? min + 3, min + 3)),
      });
    }
    case "object": {
      const props: Record<string, JsonSchema> = s.properties ?? {};
      if (Object.keys(props).length === 0) {
        const value =
          s.additionalProperties && typeof s.additionalProperties === "object"
            ? arbitraryOf(doc, s.additionalProperties, depth + 1)
            : anyJson;
        return fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), value, { maxKeys: 3 });
      }
      const model = Object.fromEntries(Object.entries(props).map(([k, v]) => [k, arbitraryOf(doc, v, depth + 1)]));
      return fc.record(model, { requiredKeys: (s.required ?? []).filter((k: string) => k in props) });
    }
    default:
      return anyJson;
  }
}

function candidates(doc: OpenApiDoc, schema: JsonSchema): JsonSchema[] {
  const s = deref(doc, schema);
  const alternatives = s.oneOf ?? s.anyOf;
  if (Array.isArray(alternatives)) return alternatives.flatMap((a: JsonSchema) => candidates(doc, a));
  if (Array.isArray(s.allOf)) return [mergeAll(doc, s.allOf)];
  return [s];
}

const typesOf = (s: JsonSchema): string[] | null => {
  if ("const" in s || Array.isArray(s.enum)) return null;
  if (Array.isArray(s.type)) return s.type;
  if (s.type) return [s.type];
  return s.properties ? ["object"] : s.items || s.prefixItems ? ["array"] : null;
};

/**
 * The JSON types the schema allows at a dotted path, or null when it cannot say (any value, an
 * enum, or a path it does not describe).
 */
export function typesAt(doc: OpenApiDoc, schema: JsonSchema, path: string): Set<string> | null {
  let nodes = candidates(doc, schema);
  for (const seg of path === "" ? [] : path.split(".")) {
    const next: JsonSchema[] = [];
    for (const n of nodes) {
      if (n.properties?.[seg]) next.push(...candidates(doc, n.properties[seg]));
      else if (Array.isArray(n.prefixItems) && /^\d+$/.test(seg) && n.prefixItems[Number(seg)])
        next.push(...candidates(doc, n.prefixItems[Number(seg)]));
      else if (n.items && /^\d+$/.test(seg)) next.push(...candidates(doc, n.items));
      else if (n.additionalProperties && typeof n.additionalProperties === "object") next.push(...candidates(doc, n.additionalProperties));
      else return null;
    }
    nodes = next;
  }
  const out = new Set<string>();
  for (const n of nodes) {
    const t = typesOf(n);
    if (!t) return null;
    for (const x of t) out.add(x === "integer" ? "number" : x);
  }
  return out.size ? out : null;
}

/**
 * Dotted paths (array items as `0`) to the fields whose schema accepts any JSON value: where a
 * hostile structure reaches the code behind validation unchanged.
 */
export function openPaths(doc: OpenApiDoc, schema: JsonSchema, prefix = "", depth = 0): string[] {
  if (depth > 8) return [];
  return candidates(doc, schema).flatMap((n) => {
    const keys = Object.keys(n).filter((k) => !["description", "default", "example", "title"].includes(k));
    if (keys.length === 0) return prefix ? [prefix] : [];
    const at = (k: string) => (prefix ? `${prefix}.${k}` : k);
    if (n.properties) return Object.entries(n.properties).flatMap(([k, v]) => openPaths(doc, v as JsonSchema, at(k), depth + 1));
    if (n.items) return openPaths(doc, n.items, at("0"), depth + 1);
    return [];
  });
}

/** The value at a dotted path, or undefined. */
export function valueAt(value: unknown, path: string): unknown {
  let v: any = value;
  for (const k of path === "" ? [] : path.split(".")) v = v?.[k];
  return v;
}

export const jsonType = (v: unknown): string => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v);

/** Every dotted path inside a JSON value (objects and arrays), the root as "". */
export function pathsOf(value: unknown, prefix = ""): string[] {
  const out = [prefix];
  if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) out.push(...pathsOf(v, prefix ? `${prefix}.${k}` : k));
  }
  return out;
}

const EVIL_STRINGS = [
  "",
  "   ",
  "\u0000",
  "a\u202Egnp.exe",
  "line\nbreak\r\n",
  "\ud800",
  "𝕏".repeat(3000),
  "x".repeat(70_000),
  "__proto__",
  "constructor",
  "1e309",
  "%00",
  "../../etc/passwd",
  "<script>alert(1)</script>",
];
const EVIL_NUMBERS = [-1, 0, -0, 1.5, 1e308, -1e308, 2 ** 53 + 1, Number.MIN_VALUE];
export const nestInto = (depth: number): unknown => {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = { a: [v] };
  return v;
};
const EVIL_VALUES: unknown[] = [
  null,
  true,
  {},
  [],
  [[]],
  { "": null },
  ...EVIL_STRINGS,
  ...EVIL_NUMBERS,
  nestInto(40),
  nestInto(3000),
  Array.from({ length: 600 }, (_, i) => i),
];

export type Mutation =
  | { kind: "remove"; path: string }
  | { kind: "replace"; path: string; value: unknown }
  | { kind: "extra-key"; path: string }
  | { kind: "raw"; text: string };

export const mutationArb = (paths: string[]): fc.Arbitrary<Mutation> =>
  fc.oneof(
    { weight: 2, arbitrary: fc.record({ kind: fc.constant("remove" as const), path: fc.constantFrom(...paths) }) },
    {
      weight: 5,
      arbitrary: fc.record({
        kind: fc.constant("replace" as const),
        path: fc.constantFrom(...paths),
        value: fc.constantFrom(...EVIL_VALUES),
      }),
    },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant("extra-key" as const), path: fc.constantFrom(...paths) }) },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant("raw" as const),
        text: fc.constantFrom("{", "[", '{"a":', "nul", "", "\u0000", '{"a":1}{"b":2}', "1".repeat(400), '"str"'),
      }),
    },
  );

/** Applies a mutation to a copy of `body`; returns the body (or raw text) and the field it touched. */
export function mutate(body: unknown, m: Mutation): { body?: unknown; raw?: string; path: string } {
  if (m.kind === "raw") return { raw: m.text, path: "" };
  const copy = structuredClone(body) as any;
  if (m.path === "") {
    if (m.kind === "replace") return { body: m.value, path: "" };
    if (m.kind === "extra-key" && copy && typeof copy === "object" && !Array.isArray(copy)) copy.zzUnknownField = 1;
    return { body: m.kind === "remove" ? undefined : copy, path: "" };
  }
  const keys = m.path.split(".");
  let parent = copy;
  for (const k of keys.slice(0, -1)) parent = parent[k];
  const last = keys[keys.length - 1]!;
  if (m.kind === "remove") {
    if (Array.isArray(parent)) parent.splice(Number(last), 1);
    else delete parent[last];
  } else if (m.kind === "replace") parent[last] = m.value;
  else if (parent[last] && typeof parent[last] === "object" && !Array.isArray(parent[last])) parent[last].zzUnknownField = 1;
  else parent[last] = { zzUnknownField: 1 };
  return { body: copy, path: m.path };
}

export const EVIL_PARAMS = ["", " ", "a\u202Eb", "x".repeat(300), "..", "%", "a/b", "\u0000", "-1", "1e3", "null", "9".repeat(30)];
