import type { Env } from "../../env";
import { uncallableUrls, webhookUrlModeOf, type UrlAt } from "../../core/webhook-url";
import { unprocessable } from "../../core/errors";
import { variables } from "../../config";

/**
 * Refuses (422, naming each field) a request that would store a URL Praxis may not call under the
 * deployment's rules. The same check runs again when the URL is called (src/practice/run-unit.ts):
 * the rules may have changed since, and URLs stored before this check existed were never checked.
 */
export function assertCallableUrls(env: Env, urls: readonly UrlAt[]): void {
  const errors = uncallableUrls(urls, webhookUrlModeOf(variables(env).PRAXIS_ENV));
  if (errors.length) throw unprocessable(`${errors[0]!.message.replace(/^The URL/, `The URL in \`${errors[0]!.path}\``)}.`, errors);
}
