// The local, untracked .dev.vars that `wrangler dev` reads (and `wrangler deploy` never does).
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";

/**
 * Makes sure `file` holds an operator key and PRAXIS_ENV, keeping whatever it already says. Local
 * development rules (webhooks on http and local hosts) come only from here: the PRAXIS_ENV in
 * wrangler.toml, which a plain `wrangler deploy` uploads, is "production".
 */
export function ensureDevVars(file = ".dev.vars") {
  let vars = existsSync(file) ? readFileSync(file, "utf8") : "";
  const before = vars;
  /** @param {string} line */
  const append = (line) => (vars += `${vars && !vars.endsWith("\n") ? "\n" : ""}${line}\n`);
  let adminKey = /^PRAXIS_ADMIN_KEY\s*=\s*"?([^"\n]+)"?/m.exec(vars)?.[1];
  const generated = !adminKey;
  if (!adminKey) {
    adminKey = `pxadmin_${randomBytes(24).toString("base64url")}`;
    append(`PRAXIS_ADMIN_KEY="${adminKey}"`);
  }
  if (!/^PRAXIS_ENV\s*=/m.test(vars)) append('PRAXIS_ENV="development"');
  if (vars !== before) writeFileSync(file, vars, { mode: 0o600 });
  return { adminKey, generated };
}
