/**
 * Active markup in served text: what a renderer acts on when an agent repeats the text into a page
 * or a chat. HTML comments hide text from the person reading the rendered page while the model
 * still reads it; images are fetched without a click (a beacon carries data in its address); tags
 * with event handlers, sources or links run or load something; `javascript:` links run on a click.
 * Markup shown as code (a `code span` or a fenced block) is never rendered, so advice about markup
 * written that way passes, and so do plain tags that do nothing (`<br>`, `<details>`, a bare `<img>`).
 * Hidden text (`display:none`, the `hidden` attribute) is active too: the reader never sees it.
 */

/** Fenced blocks and code spans blanked out: what is left is what a Markdown renderer would render. */
export function outsideCode(text: string): string {
  return text
    .replace(
      /(^|\n)[ \t]*(`{3,}|~{3,})[^\n]*\n[\s\S]*?(?:\n[ \t]*\2[^\n]*(?=\n|$)|$)/g,
      (m, lead: string) => lead + " ".repeat(m.length - lead.length),
    )
    .replace(/(`+)(?!`)[\s\S]*?[^`]\1(?!`)/g, (m) => " ".repeat(m.length));
}

const COMMENT_RE = /<!--|<!\s+--/;
/** A tag with an attribute that loads, links or runs something. */
const ACTIVE_ATTRIBUTE_RE =
  /<\s*[a-z][\w:-]*\b[^<>]*?[\s"'/](?:on[a-z]{3,}|src|srcset|href|xlink:href|action|formaction|poster|background|data|http-equiv|ping|manifest|codebase|lowsrc|dynsrc)\s*=/i;
/** Text styled or marked to be invisible on the rendered page while a model still reads it. */
const HIDDEN_TEXT_RE =
  /<\s*[a-z][\w:-]*\b[^<>]*?(?:[\s"'/]hidden(?:\s*=|[\s/>])|style\s*=\s*["']?[^"'>]*(?:display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0|opacity\s*:\s*0(?:\.0*)?\s*(?:[;"']|$)|color\s*:\s*(?:#fff(?:fff)?\b|white|transparent)))/i;
/** A script or style element with a body. */
const SCRIPT_BODY_RE = /<\s*(script|style)\b[^>]*>[^<]*\S[^<]*<\s*\/\s*\1/i;
/** Elements that fetch or run whatever their attributes say. */
const EMBED_TAG_RE = /<\s*(?:iframe|frame|object|embed|applet|portal|base|link|meta)\b[^<>]*>/i;
/** A Markdown image: inline, reference (`![a][r]`, `![a][]`) or a shortcut with a definition elsewhere. */
const INLINE_IMAGE_RE = /!\[[^\]\n]*\]\(\s*<?([^)\s>]*)/g;
const REFERENCE_IMAGE_RE = /!\[[^\]\n]*\]\s?\[[^\]\n]*\]/;
const SHORTCUT_IMAGE_RE = /!\[([^\]\n]+)\](?![(\[])/g;
const SCRIPT_LINK_RE = /(?:\]\(\s*<?|=\s*["']?\s*)(?:javascript|vbscript|livescript|data\s*:\s*text\/html)\s*:?/i;

/**
 * An inline image that reaches further than a file beside the page: another host, or an address
 * carrying data (a query, a fragment, a template placeholder).
 */
const remoteOrCarrying = (target: string) => /^(?:[a-z][\w+.-]*:|\/\/|\\\\)/i.test(target) || /[?#{}$%]|\/\/|\.\.\//.test(target);

export function hasActiveMarkup(text: string): boolean {
  const shown = outsideCode(text);
  if (
    COMMENT_RE.test(shown) ||
    ACTIVE_ATTRIBUTE_RE.test(shown) ||
    HIDDEN_TEXT_RE.test(shown) ||
    SCRIPT_BODY_RE.test(shown) ||
    EMBED_TAG_RE.test(shown)
  )
    return true;
  if (SCRIPT_LINK_RE.test(shown) || REFERENCE_IMAGE_RE.test(shown)) return true;
  for (const m of shown.matchAll(INLINE_IMAGE_RE)) if (remoteOrCarrying(m[1]!)) return true;
  for (const m of shown.matchAll(SHORTCUT_IMAGE_RE)) {
    const label = m[1]!.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    if (new RegExp(`(?:^|\\n)\\s*\\[${label}\\]:`, "i").test(text)) return true;
  }
  return false;
}
