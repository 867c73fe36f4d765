import { env, runInDurableObject } from "cloudflare:test";
import { expect, it } from "vitest";
import { porterStem } from "../../src/core/ranking/fts5-porter";
import { memoryName } from "../../src/platform/objects/memory-name";
import table from "../../generated/word-vectors.bin";
import { agentFixture } from "./setup";

/** The word vectors' vocabulary: every word the semantic embedder knows, in frequency order. */
function vocabulary(): string[] {
  const view = new DataView(table);
  const size = view.getUint32(8, true);
  const dims = view.getUint32(12, true);
  return new TextDecoder().decode(new Uint8Array(table, 16 + size * 4 + size * dims)).split("\n");
}

it("stems every ASCII word of the vocabulary, and words of digits, as SQLite FTS5's porter tokenizer does", async () => {
  const words = [
    ...vocabulary().filter((w) => /^[a-z0-9]+$/.test(w)),
    "e2e",
    "1990s",
    "ies",
    "sses",
    "eed",
    "agreed",
    "feed",
    "hopping",
    "filing",
    "happy",
    "sky",
    "generalizations",
    "oscillators",
    "a1b2c3ing",
  ];
  expect(words.length).toBeGreaterThan(10_000);
  const f = await agentFixture();
  const stub = env.AGENT_MEMORY.getByName(memoryName(f.t.tenantId, f.agentId));
  const mismatches = await runInDurableObject(stub, (_obj, state) => {
    const sql = state.storage.sql;
    sql.exec("CREATE VIRTUAL TABLE porter_words USING fts5(w, tokenize='porter unicode61')");
    sql.exec("CREATE VIRTUAL TABLE porter_terms USING fts5vocab(porter_words, 'instance')");
    const perRow = 500;
    for (let i = 0; i < words.length; i += perRow)
      sql.exec("INSERT INTO porter_words (rowid, w) VALUES (?, ?)", i / perRow + 1, words.slice(i, i + perRow).join(" "));
    const out: string[] = [];
    for (const r of sql.exec<{ term: string; doc: number; offset: number }>("SELECT term, doc, offset FROM porter_terms")) {
      const word = words[(r.doc - 1) * perRow + r.offset]!;
      if (porterStem(word) !== r.term) out.push(`${word}: FTS5 ${r.term}, here ${porterStem(word)}`);
    }
    return out;
  });
  expect(mismatches).toEqual([]);
});
