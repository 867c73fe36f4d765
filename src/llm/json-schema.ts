/**
 * zod → JSON Schema for LLM calls. The zod schema that validates an answer is also the schema the
 * provider is asked to follow, so the two cannot drift apart.
 *
 * Strict Structured Outputs requires every property to be listed in `required` and every object to
 * set `additionalProperties: false`. The `openai` package's `zodResponseFormat` (openai/helpers/zod)
 * supports zod 4 and does that conversion (plus refs, discriminated unions, allOf merging), so it is
 * used first. It refuses `.optional()` fields that are not also `.nullable()`, though; for those we
 * rewrite the zod-generated JSON Schema so each optional property becomes required-but-nullable,
 * run the library's own strictifier over the result, and, when the answer comes back, delete the
 * `null`s the model put in those places before zod validates (so `.optional()` sees `undefined`).
 */
import { z } from "zod";
import { zodResponseFormat } from "openai/helpers/zod";
import { toStrictJsonSchema } from "openai/lib/transform";

type Json = Record<string, unknown>;

export interface StrictSchema {
  /** The schema sent as `response_format.json_schema.schema`. */
  schema: Json;
  /** Set when optional fields were made nullable: the base schema to undo that with. */
  nullableOptionals: Json | null;
}

const strictCache = new WeakMap<z.ZodType, StrictSchema>();
const promptCache = new WeakMap<z.ZodType, string>();

const isObj = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** Discriminated unions come out as `oneOf`; strict mode supports only `anyOf` (same rewrite as the library). */
const toJsonSchema = (schema: z.ZodType, io: "input" | "output", lenient = false): Json =>
  z.toJSONSchema(schema, {
    target: "draft-7",
    io,
    ...(lenient ? { unrepresentable: "any" as const } : {}),
    override: ({ zodSchema, jsonSchema }) => {
      const def = (zodSchema as unknown as { _zod: { def: { type: string } } })._zod.def;
      if (def.type === "union" && "discriminator" in def && Array.isArray(jsonSchema.oneOf) && jsonSchema.anyOf === undefined) {
        jsonSchema.anyOf = jsonSchema.oneOf;
        delete jsonSchema.oneOf;
      }
    },
  }) as Json;

export function strictJsonSchema(schema: z.ZodType, name: string): StrictSchema {
  const cached = strictCache.get(schema);
  if (cached) return cached;
  let result: StrictSchema;
  try {
    result = { schema: zodResponseFormat(schema, name).json_schema.schema as Json, nullableOptionals: null };
  } catch (e) {
    if (!(e instanceof Error) || !/optional\(\)/.test(e.message)) {
      throw new Error(`Schema '${name}' cannot be expressed as a strict JSON Schema: ${e instanceof Error ? e.message : String(e)}`, {
        cause: e,
      });
    }
    const base = toJsonSchema(schema, "output");
    const nullable = makeOptionalsNullable(structuredClone(base));
    result = { schema: toStrictJsonSchema(nullable as never) as Json, nullableOptionals: base };
  }
  strictCache.set(schema, result);
  return result;
}

/** A readable schema for prompts (json_object and prompt modes, and the repair prompt). */
export function promptJsonSchema(schema: z.ZodType): string {
  const cached = promptCache.get(schema);
  if (cached) return cached;
  const { $schema: _ignored, ...rest } = toJsonSchema(schema, "input", true);
  const text = JSON.stringify(rest, null, 2);
  promptCache.set(schema, text);
  return text;
}

const MAP_KEYWORDS = ["properties", "$defs", "definitions", "patternProperties"] as const;
const SINGLE_KEYWORDS = ["items", "additionalProperties", "not", "contains"] as const;
const ARRAY_KEYWORDS = ["anyOf", "oneOf", "allOf", "prefixItems"] as const;

/** Every optional property becomes required and nullable, depth-first, following schema keywords only. */
function makeOptionalsNullable(node: unknown, root?: Json): unknown {
  if (!isObj(node)) return node;
  const top = root ?? node;
  for (const k of MAP_KEYWORDS) {
    const map = node[k];
    if (isObj(map)) for (const key of Object.keys(map)) map[key] = makeOptionalsNullable(map[key], top);
  }
  for (const k of SINGLE_KEYWORDS) if (isObj(node[k])) node[k] = makeOptionalsNullable(node[k], top);
  for (const k of ARRAY_KEYWORDS) {
    const list = node[k];
    if (Array.isArray(list)) node[k] = list.map((b) => makeOptionalsNullable(b, top));
  }
  if (isObj(node.properties)) {
    const props = node.properties;
    const required = new Set(Array.isArray(node.required) ? (node.required as string[]) : []);
    for (const key of Object.keys(props)) {
      if (!required.has(key) && !allowsNull(props[key], top)) props[key] = { anyOf: [props[key], { type: "null" }] };
    }
    node.required = Object.keys(props);
  }
  return node;
}

function resolveRef(node: Json, root: Json): Json {
  let cur = node;
  for (let i = 0; i < 32 && typeof cur.$ref === "string"; i++) {
    const m = /^#\/(\$defs|definitions)\/(.+)$/.exec(cur.$ref);
    const defs = m ? root[m[1]!] : undefined;
    const next = m && isObj(defs) ? defs[decodeURIComponent(m[2]!).replace(/~1/g, "/").replace(/~0/g, "~")] : undefined;
    if (!isObj(next)) return cur;
    cur = next;
  }
  return cur;
}

function allowsNull(schema: unknown, root: Json): boolean {
  if (schema === true) return true;
  if (!isObj(schema)) return false;
  const s = resolveRef(schema, root);
  if (s.type === "null" || (Array.isArray(s.type) && s.type.includes("null"))) return true;
  if (s.const === null || (Array.isArray(s.enum) && s.enum.includes(null))) return true;
  for (const k of ["anyOf", "oneOf"] as const) {
    const branches = s[k];
    if (Array.isArray(branches) && branches.some((b) => allowsNull(b, root))) return true;
  }
  return false;
}

const typeMatches = (schema: Json, value: unknown): boolean => {
  const t = schema.type;
  const kind = Array.isArray(value) ? "array" : isObj(value) ? "object" : null;
  if (!kind) return false;
  if (t === undefined) return kind === "object" ? isObj(schema.properties) : schema.items !== undefined;
  return t === kind || (Array.isArray(t) && t.includes(kind));
};

/**
 * Undoes the nullable rewrite on an answer: a `null` in a property that the base schema marks
 * optional and not nullable is deleted, so zod's `.optional()` accepts it. Everything else is kept.
 */
export function dropNullOptionals(value: unknown, base: Json): unknown {
  const walk = (v: unknown, schemaIn: unknown): unknown => {
    if (!isObj(schemaIn)) return v;
    const schema = resolveRef(schemaIn, base);
    if (Array.isArray(v)) {
      if (isObj(schema.items)) return v.map((item) => walk(item, schema.items));
      for (const k of ["anyOf", "oneOf"] as const) {
        const branch = Array.isArray(schema[k])
          ? (schema[k] as unknown[]).find((b) => isObj(b) && typeMatches(resolveRef(b, base), v))
          : undefined;
        if (branch) return walk(v, branch);
      }
      return v;
    }
    if (!isObj(v)) return v;
    if (isObj(schema.properties)) {
      const props = schema.properties as Record<string, unknown>;
      const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
      const out: Json = {};
      for (const [key, val] of Object.entries(v)) {
        if (val === null && key in props && !required.has(key) && !allowsNull(props[key], base)) continue;
        out[key] = key in props ? walk(val, props[key]) : val;
      }
      return out;
    }
    for (const k of ["anyOf", "oneOf"] as const) {
      const branches = Array.isArray(schema[k]) ? (schema[k] as unknown[]) : [];
      const keys = Object.keys(v);
      const branch = branches.find((b) => {
        if (!isObj(b)) return false;
        const r = resolveRef(b, base);
        return typeMatches(r, v) && isObj(r.properties) && keys.every((key) => key in (r.properties as Json));
      });
      if (branch) return walk(v, branch);
    }
    return v;
  };
  return walk(value, base);
}
