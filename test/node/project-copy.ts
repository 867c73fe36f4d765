import { mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

export const ROOT = resolve(import.meta.dirname, "../..");

/**
 * The project as a fresh clone sees it (its entries symlinked into a temporary directory), without
 * anybody's .dev.vars: a test writes the local files it is about beside it. `removeAll` deletes
 * every copy made.
 */
export function projectCopies() {
  const dirs: string[] = [];
  return {
    make(): string {
      const dir = mkdtempSync(join(tmpdir(), "praxis-env-"));
      dirs.push(dir);
      for (const entry of readdirSync(ROOT)) {
        if (entry === ".dev.vars" || entry === ".wrangler" || entry === ".git" || entry.startsWith(".env")) continue;
        symlinkSync(join(ROOT, entry), join(dir, entry));
      }
      return dir;
    },
    removeAll(): void {
      for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
    },
  };
}
