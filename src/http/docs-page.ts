// biome-ignore lint/suspicious/noExplicitAny: an OpenAPI document walked field by field, each read checked where it is used
type Json = Record<string, any>;

const esc = (s: unknown) =>
  String(s ?? "").replace(/[&<>"']/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[ch]!);

function schemaText(schema: Json | undefined, components: Json, depth = 0): string {
  if (!schema) return "";
  if (schema.$ref) {
    const name = String(schema.$ref).split("/").pop()!;
    return depth > 2 ? name : `${name} ${schemaText(components[name], components, depth + 1)}`;
  }
  if (schema.type === "object" && schema.properties) {
    const req = new Set<string>(schema.required ?? []);
    const fields = Object.entries<Json>(schema.properties).map(
      ([k, v]) => `${k}${req.has(k) ? "" : "?"}: ${schemaText(v, components, depth + 1)}`,
    );
    return `{ ${fields.join(", ")} }`;
  }
  if (schema.type === "array") return `${schemaText(schema.items, components, depth + 1)}[]`;
  if (schema.enum) return schema.enum.map((e: unknown) => JSON.stringify(e)).join(" | ");
  if (schema.anyOf || schema.oneOf)
    return (schema.anyOf ?? schema.oneOf).map((s: Json) => schemaText(s, components, depth + 1)).join(" | ");
  return String(schema.type ?? "any");
}

/** A self-contained reference page rendered from the OpenAPI document: no scripts, no CDN, works offline. */
export function renderDocsPage(doc: Json): string {
  const components = doc.components?.schemas ?? {};
  const sections: string[] = [];
  for (const [path, ops] of Object.entries<Json>(doc.paths ?? {})) {
    for (const [method, op] of Object.entries<Json>(ops)) {
      const params = (op.parameters ?? [])
        .map(
          (p: Json) => `<li><code>${esc(p.name)}</code> (${esc(p.in)}${p.required ? ", required" : ""}) ${esc(p.description ?? "")}</li>`,
        )
        .join("");
      const body = op.requestBody?.content?.["application/json"]?.schema;
      const responses = Object.entries<Json>(op.responses ?? {})
        .map(([code, r]) => {
          const s = r.content?.["application/json"]?.schema;
          return `<li><b>${esc(code)}</b> ${esc(r.description)}${s ? ` — <code>${esc(schemaText(s, components))}</code>` : ""}</li>`;
        })
        .join("");
      sections.push(`<section id="${esc(method + path)}">
<h3><span class="m ${esc(method)}">${esc(method.toUpperCase())}</span> <code>${esc(path)}</code></h3>
<p>${esc(op.summary ?? "")}${op.security?.length ? ' <span class="auth">Bearer key</span>' : ""}</p>
${params ? `<h4>Parameters</h4><ul>${params}</ul>` : ""}
${body ? `<h4>Body</h4><pre>${esc(schemaText(body, components))}</pre>` : ""}
<h4>Responses</h4><ul>${responses}</ul></section>`);
    }
  }
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(doc.info?.title)} API</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#222}
section{border-top:1px solid #ddd;padding:.5rem 0}pre{background:#f6f6f6;padding:.5rem;white-space:pre-wrap}
.m{font-weight:700;padding:0 .4rem;border-radius:3px;color:#fff;background:#555}.get{background:#2a7}.post{background:#27c}
.put,.patch{background:#c80}.delete{background:#c33}.auth{font-size:12px;color:#777}</style></head><body>
<h1>${esc(doc.info?.title)} <small>${esc(doc.info?.version)}</small></h1><p>${esc(doc.info?.description)}</p>
<p>Machine-readable: <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1). Errors are <code>application/problem+json</code>.</p>
${sections.join("\n")}</body></html>`;
}
