import type { Client, FetchOptions, FetchResponse } from "openapi-fetch";
import type { paths } from "../../generated/schema.js";
type Data<Op extends Record<string | number, any>> = NonNullable<FetchResponse<Op, unknown, `${string}/${string}`>["data"]>;
/** Every operation of the API as a method named by its operationId. */
export declare class Operations {
    private readonly api;
    constructor(api: Client<paths>);
    /** Where to start: `GET /` */
    getServiceIndex(init?: FetchOptions<paths["/"]["get"]>): Promise<Data<paths["/"]["get"]>>;
    /** Liveness: `GET /healthz` */
    getHealth(init?: FetchOptions<paths["/healthz"]["get"]>): Promise<Data<paths["/healthz"]["get"]>>;
    /** Create a tenant: `POST /v1/tenants` */
    createTenant(init: FetchOptions<paths["/v1/tenants"]["post"]>): Promise<Data<paths["/v1/tenants"]["post"]>>;
    /** List tenants (operator): `GET /v1/tenants` */
    listTenants(init?: FetchOptions<paths["/v1/tenants"]["get"]>): Promise<Data<paths["/v1/tenants"]["get"]>>;
    /** Rotate a tenant's admin key (operator): `POST /v1/tenants/{tenantId}/keys/rotate` */
    rotateTenantAdminKey(init: FetchOptions<paths["/v1/tenants/{tenantId}/keys/rotate"]["post"]>): Promise<Data<paths["/v1/tenants/{tenantId}/keys/rotate"]["post"]>>;
    /** Create an API key (admin): `POST /v1/keys` */
    createApiKey(init: FetchOptions<paths["/v1/keys"]["post"]>): Promise<Data<paths["/v1/keys"]["post"]>>;
    /** List the tenant's API keys (admin); secrets are never returned: `GET /v1/keys` */
    listApiKeys(init?: FetchOptions<paths["/v1/keys"]["get"]>): Promise<Data<paths["/v1/keys"]["get"]>>;
    /** The key making this request: its tenant, scope, agents and libraries (any scope): `GET /v1/keys/current` */
    getCurrentApiKey(init?: FetchOptions<paths["/v1/keys/current"]["get"]>): Promise<Data<paths["/v1/keys/current"]["get"]>>;
    /** Revoke an API key: `DELETE /v1/keys/{id}` */
    revokeApiKey(init: FetchOptions<paths["/v1/keys/{id}"]["delete"]>): Promise<Data<paths["/v1/keys/{id}"]["delete"]>>;
    /** Rotate an API key (admin): `POST /v1/keys/{id}/rotate` */
    rotateApiKey(init: FetchOptions<paths["/v1/keys/{id}/rotate"]["post"]>): Promise<Data<paths["/v1/keys/{id}/rotate"]["post"]>>;
    /** Create or update an agent: `PUT /v1/agents/{agentId}` */
    upsertAgent(init: FetchOptions<paths["/v1/agents/{agentId}"]["put"]>): Promise<Data<paths["/v1/agents/{agentId}"]["put"]>>;
    /** Get an agent: `GET /v1/agents/{agentId}` */
    getAgent(init: FetchOptions<paths["/v1/agents/{agentId}"]["get"]>): Promise<Data<paths["/v1/agents/{agentId}"]["get"]>>;
    /** Delete an agent: `DELETE /v1/agents/{agentId}` */
    deleteAgent(init: FetchOptions<paths["/v1/agents/{agentId}"]["delete"]>): Promise<Data<paths["/v1/agents/{agentId}"]["delete"]>>;
    /** List agents: `GET /v1/agents` */
    listAgents(init?: FetchOptions<paths["/v1/agents"]["get"]>): Promise<Data<paths["/v1/agents"]["get"]>>;
    /** Get an agent's settings: `GET /v1/agents/{agentId}/config` */
    getAgentConfig(init: FetchOptions<paths["/v1/agents/{agentId}/config"]["get"]>): Promise<Data<paths["/v1/agents/{agentId}/config"]["get"]>>;
    /** Change an agent's settings: `PATCH /v1/agents/{agentId}/config` */
    updateAgentConfig(init: FetchOptions<paths["/v1/agents/{agentId}/config"]["patch"]>): Promise<Data<paths["/v1/agents/{agentId}/config"]["patch"]>>;
    /** Add an experience: `POST /v1/agents/{agentId}/experiences` */
    addExperience(init: FetchOptions<paths["/v1/agents/{agentId}/experiences"]["post"]>): Promise<Data<paths["/v1/agents/{agentId}/experiences"]["post"]>>;
    /** List experiences: `GET /v1/agents/{agentId}/experiences` */
    listExperiences(init: FetchOptions<paths["/v1/agents/{agentId}/experiences"]["get"]>): Promise<Data<paths["/v1/agents/{agentId}/experiences"]["get"]>>;
    /** Get an experience: `GET /v1/agents/{agentId}/experiences/{id}` */
    getExperience(init: FetchOptions<paths["/v1/agents/{agentId}/experiences/{id}"]["get"]>): Promise<Data<paths["/v1/agents/{agentId}/experiences/{id}"]["get"]>>;
    /** Change an experience: `PATCH /v1/agents/{agentId}/experiences/{id}` */
    updateExperience(init: FetchOptions<paths["/v1/agents/{agentId}/experiences/{id}"]["patch"]>): Promise<Data<paths["/v1/agents/{agentId}/experiences/{id}"]["patch"]>>;
    /** Delete an experience: `DELETE /v1/agents/{agentId}/experiences/{id}` */
    deleteExperience(init: FetchOptions<paths["/v1/agents/{agentId}/experiences/{id}"]["delete"]>): Promise<Data<paths["/v1/agents/{agentId}/experiences/{id}"]["delete"]>>;
    /** Change several experiences at once: `POST /v1/agents/{agentId}/library/batch` */
    applyLibraryBatch(init: FetchOptions<paths["/v1/agents/{agentId}/library/batch"]["post"]>): Promise<Data<paths["/v1/agents/{agentId}/library/batch"]["post"]>>;
    /** List library versions: `GET /v1/agents/{agentId}/library/versions` */
    listLibraryVersions(init: FetchOptions<paths["/v1/agents/{agentId}/library/versions"]["get"]>): Promise<Data<paths["/v1/agents/{agentId}/library/versions"]["get"]>>;
    /** Get a library version: `GET /v1/agents/{agentId}/library/versions/{n}` */
    getLibraryVersion(init: FetchOptions<paths["/v1/agents/{agentId}/library/versions/{n}"]["get"]>): Promise<Data<paths["/v1/agents/{agentId}/library/versions/{n}"]["get"]>>;
    /** Diff a library version: `GET /v1/agents/{agentId}/library/versions/{n}/diff` */
    getLibraryVersionDiff(init: FetchOptions<paths["/v1/agents/{agentId}/library/versions/{n}/diff"]["get"]>): Promise<Data<paths["/v1/agents/{agentId}/library/versions/{n}/diff"]["get"]>>;
    /** Roll the library back: `POST /v1/agents/{agentId}/library/rollback` */
    rollbackLibrary(init: FetchOptions<paths["/v1/agents/{agentId}/library/rollback"]["post"]>): Promise<Data<paths["/v1/agents/{agentId}/library/rollback"]["post"]>>;
    /** Export the library: `GET /v1/agents/{agentId}/library/export` */
    exportLibrary(init: FetchOptions<paths["/v1/agents/{agentId}/library/export"]["get"]>): Promise<Data<paths["/v1/agents/{agentId}/library/export"]["get"]>>;
    /** Import a library: `POST /v1/agents/{agentId}/library/import` */
    importLibrary(init: FetchOptions<paths["/v1/agents/{agentId}/library/import"]["post"]>): Promise<Data<paths["/v1/agents/{agentId}/library/import"]["post"]>>;
    /** Add a case: `POST /v1/agents/{agentId}/cases` */
    addCase(init: FetchOptions<paths["/v1/agents/{agentId}/cases"]["post"]>): Promise<Data<paths["/v1/agents/{agentId}/cases"]["post"]>>;
    /** List cases: `GET /v1/agents/{agentId}/cases` */
    listCases(init: FetchOptions<paths["/v1/agents/{agentId}/cases"]["get"]>): Promise<Data<paths["/v1/agents/{agentId}/cases"]["get"]>>;
    /** Get a case: `GET /v1/agents/{agentId}/cases/{id}` */
    getCase(init: FetchOptions<paths["/v1/agents/{agentId}/cases/{id}"]["get"]>): Promise<Data<paths["/v1/agents/{agentId}/cases/{id}"]["get"]>>;
    /** Change a case: `PATCH /v1/agents/{agentId}/cases/{id}` */
    updateCase(init: FetchOptions<paths["/v1/agents/{agentId}/cases/{id}"]["patch"]>): Promise<Data<paths["/v1/agents/{agentId}/cases/{id}"]["patch"]>>;
    /** Delete a case: `DELETE /v1/agents/{agentId}/cases/{id}` */
    deleteCase(init: FetchOptions<paths["/v1/agents/{agentId}/cases/{id}"]["delete"]>): Promise<Data<paths["/v1/agents/{agentId}/cases/{id}"]["delete"]>>;
    /** List held entries: `GET /v1/agents/{agentId}/quarantine` */
    listQuarantine(init: FetchOptions<paths["/v1/agents/{agentId}/quarantine"]["get"]>): Promise<Data<paths["/v1/agents/{agentId}/quarantine"]["get"]>>;
    /** Release a held entry: `POST /v1/agents/{agentId}/quarantine/{id}/release` */
    releaseQuarantined(init: FetchOptions<paths["/v1/agents/{agentId}/quarantine/{id}/release"]["post"]>): Promise<Data<paths["/v1/agents/{agentId}/quarantine/{id}/release"]["post"]>>;
    /** Delete a held entry: `DELETE /v1/agents/{agentId}/quarantine/{id}` */
    deleteQuarantined(init: FetchOptions<paths["/v1/agents/{agentId}/quarantine/{id}"]["delete"]>): Promise<Data<paths["/v1/agents/{agentId}/quarantine/{id}"]["delete"]>>;
    /** Get a held entry: `GET /v1/agents/{agentId}/quarantine/{id}` */
    getQuarantined(init: FetchOptions<paths["/v1/agents/{agentId}/quarantine/{id}"]["get"]>): Promise<Data<paths["/v1/agents/{agentId}/quarantine/{id}"]["get"]>>;
    /** Retrieve lessons and cases: `POST /v1/agents/{agentId}/retrieve` */
    retrieve(init: FetchOptions<paths["/v1/agents/{agentId}/retrieve"]["post"]>): Promise<Data<paths["/v1/agents/{agentId}/retrieve"]["post"]>>;
    /** Get the prompt block: `GET /v1/agents/{agentId}/prompt` */
    getPrompt(init: FetchOptions<paths["/v1/agents/{agentId}/prompt"]["get"]>): Promise<Data<paths["/v1/agents/{agentId}/prompt"]["get"]>>;
    /** Report an outcome: `POST /v1/agents/{agentId}/rewards` */
    reportReward(init: FetchOptions<paths["/v1/agents/{agentId}/rewards"]["post"]>): Promise<Data<paths["/v1/agents/{agentId}/rewards"]["post"]>>;
    /** Q-value analytics: `GET /v1/agents/{agentId}/analytics` */
    getAnalytics(init: FetchOptions<paths["/v1/agents/{agentId}/analytics"]["get"]>): Promise<Data<paths["/v1/agents/{agentId}/analytics"]["get"]>>;
    /** LLM calls, tokens and estimated cost from the usage ledger, grouped: `GET /v1/usage` */
    getUsage(init?: FetchOptions<paths["/v1/usage"]["get"]>): Promise<Data<paths["/v1/usage"]["get"]>>;
    /** Start an episode: `POST /v1/agents/{agentId}/episodes` */
    startEpisode(init: FetchOptions<paths["/v1/agents/{agentId}/episodes"]["post"]>): Promise<Data<paths["/v1/agents/{agentId}/episodes"]["post"]>>;
    /** List episodes: `GET /v1/agents/{agentId}/episodes` */
    listEpisodes(init: FetchOptions<paths["/v1/agents/{agentId}/episodes"]["get"]>): Promise<Data<paths["/v1/agents/{agentId}/episodes"]["get"]>>;
    /** Log an attempt: `POST /v1/agents/{agentId}/episodes/{id}/attempts` */
    logAttempt(init: FetchOptions<paths["/v1/agents/{agentId}/episodes/{id}/attempts"]["post"]>): Promise<Data<paths["/v1/agents/{agentId}/episodes/{id}/attempts"]["post"]>>;
    /** End an episode: `POST /v1/agents/{agentId}/episodes/{id}/end` */
    endEpisode(init: FetchOptions<paths["/v1/agents/{agentId}/episodes/{id}/end"]["post"]>): Promise<Data<paths["/v1/agents/{agentId}/episodes/{id}/end"]["post"]>>;
    /** Get an episode: `GET /v1/agents/{agentId}/episodes/{id}` */
    getEpisode(init: FetchOptions<paths["/v1/agents/{agentId}/episodes/{id}"]["get"]>): Promise<Data<paths["/v1/agents/{agentId}/episodes/{id}"]["get"]>>;
    /** List an episode's retrievals: `GET /v1/agents/{agentId}/episodes/{id}/retrievals` */
    listEpisodeRetrievals(init: FetchOptions<paths["/v1/agents/{agentId}/episodes/{id}/retrievals"]["get"]>): Promise<Data<paths["/v1/agents/{agentId}/episodes/{id}/retrievals"]["get"]>>;
    /** List background jobs: `GET /v1/agents/{agentId}/jobs` */
    listJobs(init: FetchOptions<paths["/v1/agents/{agentId}/jobs"]["get"]>): Promise<Data<paths["/v1/agents/{agentId}/jobs"]["get"]>>;
    /** Retry a background job: `POST /v1/agents/{agentId}/jobs/{id}/retry` */
    retryJob(init: FetchOptions<paths["/v1/agents/{agentId}/jobs/{id}/retry"]["post"]>): Promise<Data<paths["/v1/agents/{agentId}/jobs/{id}/retry"]["post"]>>;
    /** Create a dataset: `POST /v1/datasets` */
    createDataset(init: FetchOptions<paths["/v1/datasets"]["post"]>): Promise<Data<paths["/v1/datasets"]["post"]>>;
    /** List datasets: `GET /v1/datasets` */
    listDatasets(init?: FetchOptions<paths["/v1/datasets"]["get"]>): Promise<Data<paths["/v1/datasets"]["get"]>>;
    /** Add tasks: JSON `{ tasks }` (≤ 500) or application/x-ndjson, one task a line (≤ 5000 lines, ≤ 16 MiB): `POST /v1/datasets/{datasetId}/tasks` */
    addDatasetTasks(init: FetchOptions<paths["/v1/datasets/{datasetId}/tasks"]["post"]>): Promise<Data<paths["/v1/datasets/{datasetId}/tasks"]["post"]>>;
    /** List a dataset's tasks: `GET /v1/datasets/{datasetId}/tasks` */
    listDatasetTasks(init: FetchOptions<paths["/v1/datasets/{datasetId}/tasks"]["get"]>): Promise<Data<paths["/v1/datasets/{datasetId}/tasks"]["get"]>>;
    /** Get a dataset: `GET /v1/datasets/{datasetId}` */
    getDataset(init: FetchOptions<paths["/v1/datasets/{datasetId}"]["get"]>): Promise<Data<paths["/v1/datasets/{datasetId}"]["get"]>>;
    /** Delete a dataset: `DELETE /v1/datasets/{datasetId}` */
    deleteDataset(init: FetchOptions<paths["/v1/datasets/{datasetId}"]["delete"]>): Promise<Data<paths["/v1/datasets/{datasetId}"]["delete"]>>;
    /** Create a dataset from episodes: `POST /v1/agents/{agentId}/datasets/from-episodes` */
    createDatasetFromEpisodes(init: FetchOptions<paths["/v1/agents/{agentId}/datasets/from-episodes"]["post"]>): Promise<Data<paths["/v1/agents/{agentId}/datasets/from-episodes"]["post"]>>;
    /** Create or rotate the tenant's webhook secret (unrestricted admin); the secret is shown once: `POST /v1/webhook-secret` */
    rotateWebhookSecret(init?: FetchOptions<paths["/v1/webhook-secret"]["post"]>): Promise<Data<paths["/v1/webhook-secret"]["post"]>>;
    /** Remove the webhook secret: `DELETE /v1/webhook-secret` */
    deleteWebhookSecret(init?: FetchOptions<paths["/v1/webhook-secret"]["delete"]>): Promise<Data<paths["/v1/webhook-secret"]["delete"]>>;
    /** Ingest a finished agent session (signed webhook); idempotent per sessionId: `POST /v1/hooks/session-end` */
    ingestSessionEnd(init: FetchOptions<paths["/v1/hooks/session-end"]["post"]>): Promise<Data<paths["/v1/hooks/session-end"]["post"]>>;
    /** Start a practice run: `POST /v1/agents/{agentId}/practice-runs` */
    startPracticeRun(init: FetchOptions<paths["/v1/agents/{agentId}/practice-runs"]["post"]>): Promise<Data<paths["/v1/agents/{agentId}/practice-runs"]["post"]>>;
    /** List practice runs: `GET /v1/agents/{agentId}/practice-runs` */
    listPracticeRuns(init: FetchOptions<paths["/v1/agents/{agentId}/practice-runs"]["get"]>): Promise<Data<paths["/v1/agents/{agentId}/practice-runs"]["get"]>>;
    /** Get a practice run: `GET /v1/agents/{agentId}/practice-runs/{runId}` */
    getPracticeRun(init: FetchOptions<paths["/v1/agents/{agentId}/practice-runs/{runId}"]["get"]>): Promise<Data<paths["/v1/agents/{agentId}/practice-runs/{runId}"]["get"]>>;
    /** Stream a run's events: `GET /v1/agents/{agentId}/practice-runs/{runId}/events` */
    streamPracticeRunEvents(init: FetchOptions<paths["/v1/agents/{agentId}/practice-runs/{runId}/events"]["get"]>): Promise<Data<paths["/v1/agents/{agentId}/practice-runs/{runId}/events"]["get"]>>;
    /** List a run's steps: `GET /v1/agents/{agentId}/practice-runs/{runId}/steps` */
    listPracticeRunSteps(init: FetchOptions<paths["/v1/agents/{agentId}/practice-runs/{runId}/steps"]["get"]>): Promise<Data<paths["/v1/agents/{agentId}/practice-runs/{runId}/steps"]["get"]>>;
    /** Get a run's step: `GET /v1/agents/{agentId}/practice-runs/{runId}/steps/{n}` */
    getPracticeRunStep(init: FetchOptions<paths["/v1/agents/{agentId}/practice-runs/{runId}/steps/{n}"]["get"]>): Promise<Data<paths["/v1/agents/{agentId}/practice-runs/{runId}/steps/{n}"]["get"]>>;
    /** List a run's rollouts: `GET /v1/agents/{agentId}/practice-runs/{runId}/rollouts` */
    listPracticeRunRollouts(init: FetchOptions<paths["/v1/agents/{agentId}/practice-runs/{runId}/rollouts"]["get"]>): Promise<Data<paths["/v1/agents/{agentId}/practice-runs/{runId}/rollouts"]["get"]>>;
    /** Get a run's library: `GET /v1/agents/{agentId}/practice-runs/{runId}/library` */
    getPracticeRunLibrary(init: FetchOptions<paths["/v1/agents/{agentId}/practice-runs/{runId}/library"]["get"]>): Promise<Data<paths["/v1/agents/{agentId}/practice-runs/{runId}/library"]["get"]>>;
    /** Get a run's learning curve: `GET /v1/agents/{agentId}/practice-runs/{runId}/curve` */
    getPracticeRunCurve(init: FetchOptions<paths["/v1/agents/{agentId}/practice-runs/{runId}/curve"]["get"]>): Promise<Data<paths["/v1/agents/{agentId}/practice-runs/{runId}/curve"]["get"]>>;
    /** Cancel a practice run: `POST /v1/agents/{agentId}/practice-runs/{runId}/cancel` */
    cancelPracticeRun(init: FetchOptions<paths["/v1/agents/{agentId}/practice-runs/{runId}/cancel"]["post"]>): Promise<Data<paths["/v1/agents/{agentId}/practice-runs/{runId}/cancel"]["post"]>>;
    /** Submit a webhook rollout's result: `POST /v1/practice/rollouts/{rolloutId}/result` */
    submitRolloutResult(init: FetchOptions<paths["/v1/practice/rollouts/{rolloutId}/result"]["post"]>): Promise<Data<paths["/v1/practice/rollouts/{rolloutId}/result"]["post"]>>;
    /** Start an evaluation: `POST /v1/agents/{agentId}/evaluations` */
    startEvaluation(init: FetchOptions<paths["/v1/agents/{agentId}/evaluations"]["post"]>): Promise<Data<paths["/v1/agents/{agentId}/evaluations"]["post"]>>;
    /** List evaluations: `GET /v1/agents/{agentId}/evaluations` */
    listEvaluations(init: FetchOptions<paths["/v1/agents/{agentId}/evaluations"]["get"]>): Promise<Data<paths["/v1/agents/{agentId}/evaluations"]["get"]>>;
    /** Compare two libraries: `POST /v1/agents/{agentId}/evaluations/compare` */
    compareLibraries(init: FetchOptions<paths["/v1/agents/{agentId}/evaluations/compare"]["post"]>): Promise<Data<paths["/v1/agents/{agentId}/evaluations/compare"]["post"]>>;
    /** Get a comparison: `GET /v1/agents/{agentId}/evaluations/compare/{comparisonId}` */
    getComparison(init: FetchOptions<paths["/v1/agents/{agentId}/evaluations/compare/{comparisonId}"]["get"]>): Promise<Data<paths["/v1/agents/{agentId}/evaluations/compare/{comparisonId}"]["get"]>>;
    /** Get an evaluation: `GET /v1/agents/{agentId}/evaluations/{evaluationId}` */
    getEvaluation(init: FetchOptions<paths["/v1/agents/{agentId}/evaluations/{evaluationId}"]["get"]>): Promise<Data<paths["/v1/agents/{agentId}/evaluations/{evaluationId}"]["get"]>>;
    /** Create or replace a practice schedule: a run on a dataset every 6h, 1d, 7d or on a cron expression (UTC): `PUT /v1/agents/{agentId}/practice-schedules/{name}` */
    putPracticeSchedule(init: FetchOptions<paths["/v1/agents/{agentId}/practice-schedules/{name}"]["put"]>): Promise<Data<paths["/v1/agents/{agentId}/practice-schedules/{name}"]["put"]>>;
    /** Get a practice schedule: `GET /v1/agents/{agentId}/practice-schedules/{name}` */
    getPracticeSchedule(init: FetchOptions<paths["/v1/agents/{agentId}/practice-schedules/{name}"]["get"]>): Promise<Data<paths["/v1/agents/{agentId}/practice-schedules/{name}"]["get"]>>;
    /** Delete a practice schedule: `DELETE /v1/agents/{agentId}/practice-schedules/{name}` */
    deletePracticeSchedule(init: FetchOptions<paths["/v1/agents/{agentId}/practice-schedules/{name}"]["delete"]>): Promise<Data<paths["/v1/agents/{agentId}/practice-schedules/{name}"]["delete"]>>;
    /** List practice schedules: `GET /v1/agents/{agentId}/practice-schedules` */
    listPracticeSchedules(init: FetchOptions<paths["/v1/agents/{agentId}/practice-schedules"]["get"]>): Promise<Data<paths["/v1/agents/{agentId}/practice-schedules"]["get"]>>;
    /** What retrieval has learned from rewards: the re-ranker's weights and the size of usage memory: `GET /v1/agents/{agentId}/retriever` */
    getRetriever(init: FetchOptions<paths["/v1/agents/{agentId}/retriever"]["get"]>): Promise<Data<paths["/v1/agents/{agentId}/retriever"]["get"]>>;
    /** Forget what retrieval learned from rewards (re-ranker weights, learned phrases, usage centroids): `DELETE /v1/agents/{agentId}/retriever` */
    resetRetriever(init: FetchOptions<paths["/v1/agents/{agentId}/retriever"]["delete"]>): Promise<Data<paths["/v1/agents/{agentId}/retriever"]["delete"]>>;
    /** Subscribe a URL to events (unrestricted admin): `POST /v1/events/endpoints` */
    createEventEndpoint(init: FetchOptions<paths["/v1/events/endpoints"]["post"]>): Promise<Data<paths["/v1/events/endpoints"]["post"]>>;
    /** List the tenant's event endpoints (unrestricted admin): `GET /v1/events/endpoints` */
    listEventEndpoints(init?: FetchOptions<paths["/v1/events/endpoints"]["get"]>): Promise<Data<paths["/v1/events/endpoints"]["get"]>>;
    /** Remove an event endpoint (unrestricted admin): `DELETE /v1/events/endpoints/{endpointId}` */
    deleteEventEndpoint(init: FetchOptions<paths["/v1/events/endpoints/{endpointId}"]["delete"]>): Promise<Data<paths["/v1/events/endpoints/{endpointId}"]["delete"]>>;
    /** The delivery log (unrestricted admin): `GET /v1/events/deliveries` */
    listEventDeliveries(init?: FetchOptions<paths["/v1/events/deliveries"]["get"]>): Promise<Data<paths["/v1/events/deliveries"]["get"]>>;
    /** Create a shared library: `POST /v1/libraries` */
    createSharedLibrary(init: FetchOptions<paths["/v1/libraries"]["post"]>): Promise<Data<paths["/v1/libraries"]["post"]>>;
    /** List shared libraries: `GET /v1/libraries` */
    listSharedLibraries(init?: FetchOptions<paths["/v1/libraries"]["get"]>): Promise<Data<paths["/v1/libraries"]["get"]>>;
    /** Get a shared library: `GET /v1/libraries/{libraryId}` */
    getSharedLibrary(init: FetchOptions<paths["/v1/libraries/{libraryId}"]["get"]>): Promise<Data<paths["/v1/libraries/{libraryId}"]["get"]>>;
    /** Rename or describe a shared library: `PATCH /v1/libraries/{libraryId}` */
    updateSharedLibrary(init: FetchOptions<paths["/v1/libraries/{libraryId}"]["patch"]>): Promise<Data<paths["/v1/libraries/{libraryId}"]["patch"]>>;
    /** Delete a shared library: `DELETE /v1/libraries/{libraryId}` */
    deleteSharedLibrary(init: FetchOptions<paths["/v1/libraries/{libraryId}"]["delete"]>): Promise<Data<paths["/v1/libraries/{libraryId}"]["delete"]>>;
    /** Subscribers and how the lessons fare with each: `GET /v1/libraries/{libraryId}/subscribers` */
    listLibrarySubscribers(init: FetchOptions<paths["/v1/libraries/{libraryId}/subscribers"]["get"]>): Promise<Data<paths["/v1/libraries/{libraryId}/subscribers"]["get"]>>;
    /** Add a lesson to a shared library: `POST /v1/libraries/{libraryId}/experiences` */
    addSharedExperience(init: FetchOptions<paths["/v1/libraries/{libraryId}/experiences"]["post"]>): Promise<Data<paths["/v1/libraries/{libraryId}/experiences"]["post"]>>;
    /** List a shared library's lessons: `GET /v1/libraries/{libraryId}/experiences` */
    listSharedExperiences(init: FetchOptions<paths["/v1/libraries/{libraryId}/experiences"]["get"]>): Promise<Data<paths["/v1/libraries/{libraryId}/experiences"]["get"]>>;
    /** Get a shared library's lesson: `GET /v1/libraries/{libraryId}/experiences/{id}` */
    getSharedExperience(init: FetchOptions<paths["/v1/libraries/{libraryId}/experiences/{id}"]["get"]>): Promise<Data<paths["/v1/libraries/{libraryId}/experiences/{id}"]["get"]>>;
    /** Change a shared library's lesson: `PATCH /v1/libraries/{libraryId}/experiences/{id}` */
    updateSharedExperience(init: FetchOptions<paths["/v1/libraries/{libraryId}/experiences/{id}"]["patch"]>): Promise<Data<paths["/v1/libraries/{libraryId}/experiences/{id}"]["patch"]>>;
    /** Delete a shared library's lesson: `DELETE /v1/libraries/{libraryId}/experiences/{id}` */
    deleteSharedExperience(init: FetchOptions<paths["/v1/libraries/{libraryId}/experiences/{id}"]["delete"]>): Promise<Data<paths["/v1/libraries/{libraryId}/experiences/{id}"]["delete"]>>;
    /** Subscribe an agent to a shared library: `PUT /v1/agents/{agentId}/subscriptions/{libraryId}` */
    subscribeAgent(init: FetchOptions<paths["/v1/agents/{agentId}/subscriptions/{libraryId}"]["put"]>): Promise<Data<paths["/v1/agents/{agentId}/subscriptions/{libraryId}"]["put"]>>;
    /** End a subscription: `DELETE /v1/agents/{agentId}/subscriptions/{libraryId}` */
    unsubscribeAgent(init: FetchOptions<paths["/v1/agents/{agentId}/subscriptions/{libraryId}"]["delete"]>): Promise<Data<paths["/v1/agents/{agentId}/subscriptions/{libraryId}"]["delete"]>>;
    /** List an agent's subscriptions: `GET /v1/agents/{agentId}/subscriptions` */
    listAgentSubscriptions(init: FetchOptions<paths["/v1/agents/{agentId}/subscriptions"]["get"]>): Promise<Data<paths["/v1/agents/{agentId}/subscriptions"]["get"]>>;
    /** Share an agent's lesson into a shared library: `POST /v1/agents/{agentId}/experiences/{id}/share` */
    shareExperience(init: FetchOptions<paths["/v1/agents/{agentId}/experiences/{id}/share"]["post"]>): Promise<Data<paths["/v1/agents/{agentId}/experiences/{id}/share"]["post"]>>;
    /** List a shared library's versions: `GET /v1/libraries/{libraryId}/versions` */
    listSharedLibraryVersions(init: FetchOptions<paths["/v1/libraries/{libraryId}/versions"]["get"]>): Promise<Data<paths["/v1/libraries/{libraryId}/versions"]["get"]>>;
    /** Get a shared library version: `GET /v1/libraries/{libraryId}/versions/{n}` */
    getSharedLibraryVersion(init: FetchOptions<paths["/v1/libraries/{libraryId}/versions/{n}"]["get"]>): Promise<Data<paths["/v1/libraries/{libraryId}/versions/{n}"]["get"]>>;
    /** Diff a shared library version: `GET /v1/libraries/{libraryId}/versions/{n}/diff` */
    getSharedLibraryVersionDiff(init: FetchOptions<paths["/v1/libraries/{libraryId}/versions/{n}/diff"]["get"]>): Promise<Data<paths["/v1/libraries/{libraryId}/versions/{n}/diff"]["get"]>>;
    /** Roll a shared library back: `POST /v1/libraries/{libraryId}/rollback` */
    rollbackSharedLibrary(init: FetchOptions<paths["/v1/libraries/{libraryId}/rollback"]["post"]>): Promise<Data<paths["/v1/libraries/{libraryId}/rollback"]["post"]>>;
    /** Export a shared library: `GET /v1/libraries/{libraryId}/export` */
    exportSharedLibrary(init: FetchOptions<paths["/v1/libraries/{libraryId}/export"]["get"]>): Promise<Data<paths["/v1/libraries/{libraryId}/export"]["get"]>>;
    /** Import into a shared library: `POST /v1/libraries/{libraryId}/import` */
    importSharedLibrary(init: FetchOptions<paths["/v1/libraries/{libraryId}/import"]["post"]>): Promise<Data<paths["/v1/libraries/{libraryId}/import"]["post"]>>;
    /** List a shared library's held entries: `GET /v1/libraries/{libraryId}/quarantine` */
    listSharedLibraryQuarantine(init: FetchOptions<paths["/v1/libraries/{libraryId}/quarantine"]["get"]>): Promise<Data<paths["/v1/libraries/{libraryId}/quarantine"]["get"]>>;
    /** Release a shared library's held entry: `POST /v1/libraries/{libraryId}/quarantine/{id}/release` */
    releaseSharedQuarantined(init: FetchOptions<paths["/v1/libraries/{libraryId}/quarantine/{id}/release"]["post"]>): Promise<Data<paths["/v1/libraries/{libraryId}/quarantine/{id}/release"]["post"]>>;
    /** Delete a shared library's held entry: `DELETE /v1/libraries/{libraryId}/quarantine/{id}` */
    deleteSharedQuarantined(init: FetchOptions<paths["/v1/libraries/{libraryId}/quarantine/{id}"]["delete"]>): Promise<Data<paths["/v1/libraries/{libraryId}/quarantine/{id}"]["delete"]>>;
}
export {};
