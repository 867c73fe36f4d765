import type { Child } from "hono/jsx";
import { assetUrl } from "./assets";

export interface ShellProps {
  title: string;
  /** Which view the client script renders into the shell, and the ids it reads from the path. */
  page: string;
  agentId?: string;
  runId?: string;
  /** The shared library a library page is about. */
  libraryId?: string;
  /** The lesson or episode a detail page is about. */
  itemId?: string;
  children: Child;
}

/**
 * The frame every dashboard page shares. The API key never reaches the server here: the client
 * script keeps it in sessionStorage and sends it only as the bearer header of API calls.
 */
export function Shell(props: ShellProps) {
  const agent = props.agentId ? `/dashboard/agents/${encodeURIComponent(props.agentId)}` : null;
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${props.title} · Praxis`}</title>
        <link rel="stylesheet" href={assetUrl("uplot.css")} />
        <link rel="stylesheet" href={assetUrl("app.css")} />
        <script src={assetUrl("uplot.js")} defer></script>
        <script src={assetUrl("app.js")} defer></script>
      </head>
      <body
        data-page={props.page}
        data-agent-id={props.agentId}
        data-run-id={props.runId}
        data-library-id={props.libraryId}
        data-item-id={props.itemId}
      >
        <a class="skip" href="#main">
          Skip to content
        </a>
        <header class="top">
          <p class="brand">
            <a href="/dashboard">Praxis</a>
          </p>
          <nav aria-label="Sections">
            <ul>
              <li>
                <a href="/dashboard">Agents</a>
              </li>
              {agent && (
                <>
                  <li>
                    <a href={agent}>Library</a>
                  </li>
                  <li>
                    <a href={`${agent}/versions`}>Versions</a>
                  </li>
                  <li>
                    <a href={`${agent}/episodes`}>Episodes</a>
                  </li>
                  <li>
                    <a href={`${agent}/runs`}>Practice</a>
                  </li>
                  <li>
                    <a href={`${agent}/jobs`}>Jobs</a>
                  </li>
                </>
              )}
              <li>
                <a href="/dashboard/libraries">Shared libraries</a>
              </li>
              <li>
                <a href="/dashboard/usage">Usage</a>
              </li>
            </ul>
          </nav>
          <div class="session" id="session" hidden>
            <span id="who"></span>
            <button type="button" id="sign-out">
              Sign out
            </button>
          </div>
        </header>
        <section id="sign-in" class="card sign-in" aria-labelledby="sign-in-title" hidden>
          <h2 id="sign-in-title">Sign in</h2>
          <p>
            Paste a Praxis API key. It stays in this tab (sessionStorage) and is sent only as the bearer header of API calls. A read key
            sees everything and changes nothing.
          </p>
          <form id="sign-in-form">
            <label for="api-key">API key</label>
            <input id="api-key" name="apiKey" type="password" autocomplete="off" spellcheck={false} required placeholder="pxk_…" />
            <button type="submit">Sign in</button>
            <p class="error" id="sign-in-error" role="alert"></p>
          </form>
        </section>
        <main id="main" hidden>
          <h1>{props.title}</h1>
          <p class="status" id="status" role="status" aria-live="polite"></p>
          {props.children}
        </main>
        <noscript>The dashboard needs JavaScript: it reads everything from the Praxis JSON API.</noscript>
      </body>
    </html>
  );
}

/** A titled part of a page; the client script fills the element with the given id. */
export function Section(props: { id: string; title: string; children?: Child }) {
  return (
    <section class="card" aria-labelledby={`${props.id}-title`}>
      <h2 id={`${props.id}-title`}>{props.title}</h2>
      {props.children}
      <div id={props.id}></div>
    </section>
  );
}
