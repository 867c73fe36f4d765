import { type Client } from "openapi-fetch";
import type { components, paths } from "../generated/schema.js";
import { type RunEvent } from "./events.js";
import { Operations } from "./generated/operations.js";
import { type RetryOptions } from "./transport.js";
import { LibraryVersions } from "./session.js";
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
export declare class Praxis {
    readonly api: Client<paths>;
    /** Every operation as a method named by its operationId: `praxis.ops.retrieve({ params, body })`. */
    readonly ops: Operations;
    /** The latest library version this client wrote for each agent (what its reads ask for). */
    readonly versions: LibraryVersions;
    constructor(options: PraxisOptions);
    agent(agentId: string): Agent;
}
/** One agent's memory: what to inject before acting, episodes to report what happened. */
export declare class Agent {
    readonly praxis: Praxis;
    readonly id: string;
    constructor(praxis: Praxis, id: string);
    private get params();
    /** Creates the agent, or updates its display name (PUT: safe to repeat). */
    ensure(displayName?: string): Promise<Schemas["Agent"]>;
    /** The block to inject into the agent's prompt: `[G#]. …` lessons, then relevant past cases. */
    prompt({ filter, ...query }: PromptQuery): Promise<Schemas["PromptBlock"]>;
    retrieve(body: Schemas["RetrieveRequest"]): Promise<Schemas["RetrieveResponse"]>;
    reward(body: Schemas["RewardRequest"]): Promise<Schemas["RewardResult"]>;
    addExperience(experience: string | Schemas["ExperienceCreate"]): Promise<Schemas["AddedExperience"]>;
    startEpisode(task: string, metadata?: Schemas["EpisodeCreate"]["metadata"]): Promise<Episode>;
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
    withEpisode<T>(task: string, work: (ep: Episode) => Promise<T>, options?: WithEpisodeOptions<T>): Promise<T>;
    /** The practice run's events as they happen, resuming across reconnects, until the run ends. */
    practiceEvents(runId: string, options?: {
        signal?: AbortSignal;
    }): AsyncGenerator<RunEvent>;
}
/** An open episode: the prompt for it, its attempts, its end. */
export declare class Episode {
    readonly agent: Agent;
    readonly id: string;
    readonly task: string;
    /** The episode as ended (the API's answer), once `end` has been called. */
    ended: Schemas["Episode"] | null;
    constructor(agent: Agent, id: string, task: string);
    private get params();
    /** The prompt block for this episode (query defaults to the task); rewards reach what it showed. */
    prompt(query?: Partial<PromptQuery>): Promise<Schemas["PromptBlock"]>;
    attempt(attempt: Schemas["AttemptCreate"]): Promise<Schemas["Attempt"]>;
    /**
     * Marks memories the work used, by id (`exp_…`, `case_…`) or by the label it was shown with
     * (`G3`); only cited memories learn from the episode's reward. Ending sends them as `citedIds`.
     */
    cite(...idsOrLabels: string[]): void;
    private readonly cited;
    /**
     * Ends the episode (idempotent: the first result stays); rewards what it retrieved, or only what
     * was cited (`cite`, `citedIds`, `[G#]` quoted in the answer), and stores it as a case.
     */
    end(result: Schemas["EpisodeEnd"]): Promise<Schemas["Episode"]>;
}
export interface WithEpisodeOptions<T> {
    metadata?: Schemas["EpisodeCreate"]["metadata"];
    /** The episode's answer from the work's result (default: a string as it is, else JSON). */
    answer?: (value: T) => string | undefined;
}
