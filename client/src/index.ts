import createClient, { type Client } from "openapi-fetch";
import type { components, paths } from "../generated/schema.js";
import { PraxisError } from "./errors.js";
import { runEvents, type RunEvent } from "./events.js";
import { Operations } from "./generated/operations.js";
import { idempotencyMiddleware, retryingFetch, type RetryOptions } from "./transport.js";
import { LibraryVersions, readYourWritesMiddleware } from "./session.js";
import { unwrap } from "./unwrap.js";

export type { components, operations, paths } from "../generated/schema.js";
export { PraxisConnectionError, PraxisError, type ProblemField } from "./errors.js";
export type { RunEvent } from "./events.js";
export type { RetryOptions } from "./transport.js";
export { Operations } from "./generated/operations.js";
export { unwrap } from "./unwrap.js";
export { LibraryVersions } from "./session.js";

/** Every request and response shape of the API, by its OpenAPI component name. */
export type Schemas = components["schemas"];
/** What a retrieval or a prompt block may choose from: metadata values, any of the tags, domain, created or used after (epoch ms). */
export type MemoryFilter = NonNullable<Schemas["RetrieveRequest"]["filter"]>;
/** /prompt's query, its `filter` an object (the API takes it as JSON text in one parameter). */
export type PromptQuery = Omit<NonNullable<paths["/v1/agents/{agentId}/prompt"]["get"]["parameters"]["query"]>, "filter"> & {
  filter?: MemoryFilter;
};

export interface PraxisOptions {
  /** Where the Worker answers, e.g. `https://praxis.example.workers.dev` or `http://localhost:8787`. */
  baseUrl: string;
  /** A tenant API key (`pxk_…`), or the operator key for creating tenants. */
  apiKey: string;
  /** Retries of requests that are safe to repeat (see README). */
  retry?: RetryOptions;
  /** The fetch to use (default: the global one); a Worker may pass a service binding's fetch. */
  fetch?: (input: Request) => Promise<Response>;
  /**
   * Read your own writes (default true): each agent's reads (`prompt`, `retrieve`) are answered
   * from at least the library version this client last wrote for it. `false` leaves every read
   * to the deployment's staleness bound (2 s by default), as another client's would be.
   */
  readYourWrites?: boolean;
}

/**
 * The Praxis API. `api` is the typed client generated from /openapi.json (every route, its
 * parameters and bodies checked at compile time), `ops` the same operations by operationId, and
 * `agent(id)` the ergonomic layer over them.
 */
export class Praxis {
  readonly api: Client<paths>;
  /** Every operation as a method named by its operationId: `praxis.ops.retrieve({ params, body })`. */
  readonly ops: Operations;
  /** The latest library version this client wrote for each agent (what its reads ask for). */
  readonly versions = new LibraryVersions();

  constructor(options: PraxisOptions) {
    const base = options.fetch ?? ((request: Request) => fetch(request));
    this.api = createClient<paths>({
      baseUrl: options.baseUrl.replace(/\/+$/, ""),
      fetch: retryingFetch(base, options.retry),
      headers: { authorization: `Bearer ${options.apiKey}` },
    });
    this.api.use(idempotencyMiddleware);
    if (options.readYourWrites !== false) this.api.use(readYourWritesMiddleware(this.versions));
    this.ops = new Operations(this.api);
  }

  agent(agentId: string): Agent {
    return new Agent(this, agentId);
  }
}

/** One agent's memory: what to inject before acting, episodes to report what happened. */
export class Agent {
  constructor(
    readonly praxis: Praxis,
    readonly id: string,
  ) {}

  private get params() {
    return { path: { agentId: this.id } };
  }

  /** Creates the agent, or updates its display name (PUT: safe to repeat). */
  ensure(displayName?: string): Promise<Schemas["Agent"]> {
    return unwrap(this.praxis.api.PUT("/v1/agents/{agentId}", { params: this.params, body: displayName ? { displayName } : {} }));
  }

  /** The block to inject into the agent's prompt: `[G#]. …` lessons, then relevant past cases. */
  prompt({ filter, ...query }: PromptQuery): Promise<Schemas["PromptBlock"]> {
    const params = { ...this.params, query: { ...query, ...(filter ? { filter: JSON.stringify(filter) } : {}) } };
    return unwrap(this.praxis.api.GET("/v1/agents/{agentId}/prompt", { params }));
  }

  retrieve(body: Schemas["RetrieveRequest"]): Promise<Schemas["RetrieveResponse"]> {
    return unwrap(this.praxis.api.POST("/v1/agents/{agentId}/retrieve", { params: this.params, body }));
  }

  reward(body: Schemas["RewardRequest"]): Promise<Schemas["RewardResult"]> {
    return unwrap(this.praxis.api.POST("/v1/agents/{agentId}/rewards", { params: this.params, body }));
  }

  addExperience(experience: string | Schemas["ExperienceCreate"]): Promise<Schemas["AddedExperience"]> {
    const body = typeof experience === "string" ? { text: experience } : experience;
    return unwrap(this.praxis.api.POST("/v1/agents/{agentId}/experiences", { params: this.params, body }));
  }

  async startEpisode(task: string, metadata?: Schemas["EpisodeCreate"]["metadata"]): Promise<Episode> {
    const ep = await unwrap(this.praxis.api.POST("/v1/agents/{agentId}/episodes", { params: this.params, body: { task, metadata } }));
    return new Episode(this, ep.episodeId, task);
  }

  /**
   * Runs `work` as one episode. When it returns, the episode ends as `success` with the returned
   * value as its answer (a string as it is, anything else as JSON; `options.answer` chooses
   * otherwise) and the ids or labels passed to `ep.cite(…)` as citations, unless `work` ended it
   * itself (`ep.end(…)`). Labels the answer quotes (`[G3]`) count as citations too, so the lessons
   * the model used are the ones that learn. When `work` throws, the episode ends as `abandoned`
   * and the error is rethrown: an exception (a model API's 404, a network error, a bug) says the
   * work stopped, not that the task was failed, so nothing is rewarded, penalised or kept as a
   * case. A task failure is what `work` reports itself: `await ep.end({ outcome: "failure" })`.
   */
  async withEpisode<T>(task: string, work: (ep: Episode) => Promise<T>, options: WithEpisodeOptions<T> = {}): Promise<T> {
    const ep = await this.startEpisode(task, options.metadata);
    let value: T;
    try {
      value = await work(ep);
    } catch (err) {
      if (!ep.ended) {
        try {
          await ep.end({ outcome: "abandoned" });
        } catch {
          // The caller needs its own error, not this one; an episode left open is ended as
          // `timeout` by the cron sweep.
        }
      }
      throw err;
    }
    if (!ep.ended) {
      const answer = (options.answer ?? answerText)(value);
      await ep.end({ outcome: "success", ...(answer ? { answer } : {}) });
    }
    return value;
  }

  /** The practice run's events as they happen, resuming across reconnects, until the run ends. */
  practiceEvents(runId: string, options: { signal?: AbortSignal } = {}): AsyncGenerator<RunEvent> {
    return runEvents(async (lastEventId) => {
      const { response, error } = await this.praxis.api.GET("/v1/agents/{agentId}/practice-runs/{runId}/events", {
        params: { path: { agentId: this.id, runId }, header: lastEventId ? { "last-event-id": String(lastEventId) } : {} },
        headers: { accept: "text/event-stream" },
        parseAs: "stream",
        signal: options.signal,
      });
      if (!response.ok) throw new PraxisError(response.status, error, response.headers.get("x-request-id"));
      return response;
    });
  }
}

/** An open episode: the prompt for it, its attempts, its end. */
export class Episode {
  /** The episode as ended (the API's answer), once `end` has been called. */
  ended: Schemas["Episode"] | null = null;

  constructor(
    readonly agent: Agent,
    readonly id: string,
    readonly task: string,
  ) {}

  private get params() {
    return { path: { agentId: this.agent.id, id: this.id } };
  }

  /** The prompt block for this episode (query defaults to the task); rewards reach what it showed. */
  prompt(query: Partial<PromptQuery> = {}): Promise<Schemas["PromptBlock"]> {
    return this.agent.prompt({ query: this.task, ...query, episodeId: this.id });
  }

  attempt(attempt: Schemas["AttemptCreate"]): Promise<Schemas["Attempt"]> {
    return unwrap(this.agent.praxis.api.POST("/v1/agents/{agentId}/episodes/{id}/attempts", { params: this.params, body: attempt }));
  }

  /**
   * Marks memories the work used, by id (`exp_…`, `case_…`) or by the label it was shown with
   * (`G3`); only cited memories learn from the episode's reward. Ending sends them as `citedIds`.
   */
  cite(...idsOrLabels: string[]): void {
    for (const id of idsOrLabels) this.cited.add(id.replace(/^\[(G\d+)\]$/, "$1"));
  }

  private readonly cited = new Set<string>();

  /**
   * Ends the episode (idempotent: the first result stays); rewards what it retrieved, or only what
   * was cited (`cite`, `citedIds`, `[G#]` quoted in the answer), and stores it as a case.
   */
  async end(result: Schemas["EpisodeEnd"]): Promise<Schemas["Episode"]> {
    const citedIds = [...new Set([...this.cited, ...(result.citedIds ?? [])])];
    const body = citedIds.length ? { ...result, citedIds } : result;
    this.ended = await unwrap(this.agent.praxis.api.POST("/v1/agents/{agentId}/episodes/{id}/end", { params: this.params, body }));
    return this.ended;
  }
}

export interface WithEpisodeOptions<T> {
  metadata?: Schemas["EpisodeCreate"]["metadata"];
  /** The episode's answer from the work's result (default: a string as it is, else JSON). */
  answer?: (value: T) => string | undefined;
}

/** The API keeps answers up to 8000 characters; the start of an answer is what a case shows. */
const ANSWER_MAX = 8000;

function answerText(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  let text: string | undefined;
  try {
    text = typeof value === "string" ? value : JSON.stringify(value);
  } catch {
    // Circular or BigInt-holding results have no JSON form; the episode then ends without an answer.
  }
  return text ? text.slice(0, ANSWER_MAX) : undefined;
}
