/**
 * `text` (a wrangler.toml) with `set`'s key given a string value in the one `[[header]]` table
 * whose `match` key has `match`'s value; the rest of the file, comments and layout included, is
 * left as it was. Throws when no such table exists.
 */
export function setInTable(text: string, header: string, match: [string, string], set: [string, string]): string {
  const lines = text.split("\n");
  const starts = lines.flatMap((line, i) => (/^\s*\[/.test(line) ? [i] : []));
  for (const [n, start] of starts.entries()) {
    if (lines[start]!.trim() !== `[[${header}]]`) continue;
    const end = starts[n + 1] ?? lines.length;
    const body = lines.slice(start + 1, end);
    if (!body.some((line) => keyValue(line)?.join("\u0000") === match.join("\u0000"))) continue;
    const at = body.findIndex((line) => keyValue(line)?.[0] === set[0]);
    const line = `${set[0]} = ${JSON.stringify(set[1])}`;
    if (at >= 0) lines[start + 1 + at] = line;
    else lines.splice(start + 1, 0, line);
    return lines.join("\n");
  }
  throw new Error(`wrangler.toml has no [[${header}]] with ${match[0]} = "${match[1]}"`);
}

/** A `key = "value"` line as [key, value]; undefined for anything else. */
function keyValue(line: string): [string, string] | undefined {
  const m = /^\s*([\w-]+)\s*=\s*"([^"]*)"\s*(#.*)?$/.exec(line);
  return m ? [m[1]!, m[2]!] : undefined;
}
