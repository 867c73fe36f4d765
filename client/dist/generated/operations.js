import { unwrap } from "../unwrap.js";
/** Every operation of the API as a method named by its operationId. */
export class Operations {
    api;
    constructor(api) {
        this.api = api;
    }
    /** Where to start: `GET /` */
    getServiceIndex(init) {
        return unwrap(this.api.GET("/", init));
    }
    /** Liveness: `GET /healthz` */
    getHealth(init) {
        return unwrap(this.api.GET("/healthz", init));
    }
    /** Create a tenant: `POST /v1/tenants` */
    createTenant(init) {
        return unwrap(this.api.POST("/v1/tenants", init));
    }
    /** List tenants (operator): `GET /v1/tenants` */
    listTenants(init) {
        return unwrap(this.api.GET("/v1/tenants", init));
    }
    /** Rotate a tenant's admin key (operator): `POST /v1/tenants/{tenantId}/keys/rotate` */
    rotateTenantAdminKey(init) {
        return unwrap(this.api.POST("/v1/tenants/{tenantId}/keys/rotate", init));
    }
    /** Create an API key (admin): `POST /v1/keys` */
    createApiKey(init) {
        return unwrap(this.api.POST("/v1/keys", init));
    }
    /** List the tenant's API keys (admin); secrets are never returned: `GET /v1/keys` */
    listApiKeys(init) {
        return unwrap(this.api.GET("/v1/keys", init));
    }
    /** The key making this request: its tenant, scope, agents and libraries (any scope): `GET /v1/keys/current` */
    getCurrentApiKey(init) {
        return unwrap(this.api.GET("/v1/keys/current", init));
    }
    /** Revoke an API key: `DELETE /v1/keys/{id}` */
    revokeApiKey(init) {
        return unwrap(this.api.DELETE("/v1/keys/{id}", init));
    }
    /** Rotate an API key (admin): `POST /v1/keys/{id}/rotate` */
    rotateApiKey(init) {
        return unwrap(this.api.POST("/v1/keys/{id}/rotate", init));
    }
    /** Create or update an agent: `PUT /v1/agents/{agentId}` */
    upsertAgent(init) {
        return unwrap(this.api.PUT("/v1/agents/{agentId}", init));
    }
    /** Get an agent: `GET /v1/agents/{agentId}` */
    getAgent(init) {
        return unwrap(this.api.GET("/v1/agents/{agentId}", init));
    }
    /** Delete an agent: `DELETE /v1/agents/{agentId}` */
    deleteAgent(init) {
        return unwrap(this.api.DELETE("/v1/agents/{agentId}", init));
    }
    /** List agents: `GET /v1/agents` */
    listAgents(init) {
        return unwrap(this.api.GET("/v1/agents", init));
    }
    /** Get an agent's settings: `GET /v1/agents/{agentId}/config` */
    getAgentConfig(init) {
        return unwrap(this.api.GET("/v1/agents/{agentId}/config", init));
    }
    /** Change an agent's settings: `PATCH /v1/agents/{agentId}/config` */
    updateAgentConfig(init) {
        return unwrap(this.api.PATCH("/v1/agents/{agentId}/config", init));
    }
    /** Add an experience: `POST /v1/agents/{agentId}/experiences` */
    addExperience(init) {
        return unwrap(this.api.POST("/v1/agents/{agentId}/experiences", init));
    }
    /** List experiences: `GET /v1/agents/{agentId}/experiences` */
    listExperiences(init) {
        return unwrap(this.api.GET("/v1/agents/{agentId}/experiences", init));
    }
    /** Get an experience: `GET /v1/agents/{agentId}/experiences/{id}` */
    getExperience(init) {
        return unwrap(this.api.GET("/v1/agents/{agentId}/experiences/{id}", init));
    }
    /** Change an experience: `PATCH /v1/agents/{agentId}/experiences/{id}` */
    updateExperience(init) {
        return unwrap(this.api.PATCH("/v1/agents/{agentId}/experiences/{id}", init));
    }
    /** Delete an experience: `DELETE /v1/agents/{agentId}/experiences/{id}` */
    deleteExperience(init) {
        return unwrap(this.api.DELETE("/v1/agents/{agentId}/experiences/{id}", init));
    }
    /** Change several experiences at once: `POST /v1/agents/{agentId}/library/batch` */
    applyLibraryBatch(init) {
        return unwrap(this.api.POST("/v1/agents/{agentId}/library/batch", init));
    }
    /** List library versions: `GET /v1/agents/{agentId}/library/versions` */
    listLibraryVersions(init) {
        return unwrap(this.api.GET("/v1/agents/{agentId}/library/versions", init));
    }
    /** Get a library version: `GET /v1/agents/{agentId}/library/versions/{n}` */
    getLibraryVersion(init) {
        return unwrap(this.api.GET("/v1/agents/{agentId}/library/versions/{n}", init));
    }
    /** Diff a library version: `GET /v1/agents/{agentId}/library/versions/{n}/diff` */
    getLibraryVersionDiff(init) {
        return unwrap(this.api.GET("/v1/agents/{agentId}/library/versions/{n}/diff", init));
    }
    /** Roll the library back: `POST /v1/agents/{agentId}/library/rollback` */
    rollbackLibrary(init) {
        return unwrap(this.api.POST("/v1/agents/{agentId}/library/rollback", init));
    }
    /** Export the library: `GET /v1/agents/{agentId}/library/export` */
    exportLibrary(init) {
        return unwrap(this.api.GET("/v1/agents/{agentId}/library/export", init));
    }
    /** Import a library: `POST /v1/agents/{agentId}/library/import` */
    importLibrary(init) {
        return unwrap(this.api.POST("/v1/agents/{agentId}/library/import", init));
    }
    /** Add a case: `POST /v1/agents/{agentId}/cases` */
    addCase(init) {
        return unwrap(this.api.POST("/v1/agents/{agentId}/cases", init));
    }
    /** List cases: `GET /v1/agents/{agentId}/cases` */
    listCases(init) {
        return unwrap(this.api.GET("/v1/agents/{agentId}/cases", init));
    }
    /** Get a case: `GET /v1/agents/{agentId}/cases/{id}` */
    getCase(init) {
        return unwrap(this.api.GET("/v1/agents/{agentId}/cases/{id}", init));
    }
    /** Change a case: `PATCH /v1/agents/{agentId}/cases/{id}` */
    updateCase(init) {
        return unwrap(this.api.PATCH("/v1/agents/{agentId}/cases/{id}", init));
    }
    /** Delete a case: `DELETE /v1/agents/{agentId}/cases/{id}` */
    deleteCase(init) {
        return unwrap(this.api.DELETE("/v1/agents/{agentId}/cases/{id}", init));
    }
    /** List held entries: `GET /v1/agents/{agentId}/quarantine` */
    listQuarantine(init) {
        return unwrap(this.api.GET("/v1/agents/{agentId}/quarantine", init));
    }
    /** Release a held entry: `POST /v1/agents/{agentId}/quarantine/{id}/release` */
    releaseQuarantined(init) {
        return unwrap(this.api.POST("/v1/agents/{agentId}/quarantine/{id}/release", init));
    }
    /** Delete a held entry: `DELETE /v1/agents/{agentId}/quarantine/{id}` */
    deleteQuarantined(init) {
        return unwrap(this.api.DELETE("/v1/agents/{agentId}/quarantine/{id}", init));
    }
    /** Get a held entry: `GET /v1/agents/{agentId}/quarantine/{id}` */
    getQuarantined(init) {
        return unwrap(this.api.GET("/v1/agents/{agentId}/quarantine/{id}", init));
    }
    /** Retrieve lessons and cases: `POST /v1/agents/{agentId}/retrieve` */
    retrieve(init) {
        return unwrap(this.api.POST("/v1/agents/{agentId}/retrieve", init));
    }
    /** Get the prompt block: `GET /v1/agents/{agentId}/prompt` */
    getPrompt(init) {
        return unwrap(this.api.GET("/v1/agents/{agentId}/prompt", init));
    }
    /** Report an outcome: `POST /v1/agents/{agentId}/rewards` */
    reportReward(init) {
        return unwrap(this.api.POST("/v1/agents/{agentId}/rewards", init));
    }
    /** Q-value analytics: `GET /v1/agents/{agentId}/analytics` */
    getAnalytics(init) {
        return unwrap(this.api.GET("/v1/agents/{agentId}/analytics", init));
    }
    /** LLM calls, tokens and estimated cost from the usage ledger, grouped: `GET /v1/usage` */
    getUsage(init) {
        return unwrap(this.api.GET("/v1/usage", init));
    }
    /** Start an episode: `POST /v1/agents/{agentId}/episodes` */
    startEpisode(init) {
        return unwrap(this.api.POST("/v1/agents/{agentId}/episodes", init));
    }
    /** List episodes: `GET /v1/agents/{agentId}/episodes` */
    listEpisodes(init) {
        return unwrap(this.api.GET("/v1/agents/{agentId}/episodes", init));
    }
    /** Log an attempt: `POST /v1/agents/{agentId}/episodes/{id}/attempts` */
    logAttempt(init) {
        return unwrap(this.api.POST("/v1/agents/{agentId}/episodes/{id}/attempts", init));
    }
    /** End an episode: `POST /v1/agents/{agentId}/episodes/{id}/end` */
    endEpisode(init) {
        return unwrap(this.api.POST("/v1/agents/{agentId}/episodes/{id}/end", init));
    }
    /** Get an episode: `GET /v1/agents/{agentId}/episodes/{id}` */
    getEpisode(init) {
        return unwrap(this.api.GET("/v1/agents/{agentId}/episodes/{id}", init));
    }
    /** List an episode's retrievals: `GET /v1/agents/{agentId}/episodes/{id}/retrievals` */
    listEpisodeRetrievals(init) {
        return unwrap(this.api.GET("/v1/agents/{agentId}/episodes/{id}/retrievals", init));
    }
    /** List background jobs: `GET /v1/agents/{agentId}/jobs` */
    listJobs(init) {
        return unwrap(this.api.GET("/v1/agents/{agentId}/jobs", init));
    }
    /** Retry a background job: `POST /v1/agents/{agentId}/jobs/{id}/retry` */
    retryJob(init) {
        return unwrap(this.api.POST("/v1/agents/{agentId}/jobs/{id}/retry", init));
    }
    /** Create a dataset: `POST /v1/datasets` */
    createDataset(init) {
        return unwrap(this.api.POST("/v1/datasets", init));
    }
    /** List datasets: `GET /v1/datasets` */
    listDatasets(init) {
        return unwrap(this.api.GET("/v1/datasets", init));
    }
    /** Add tasks: JSON `{ tasks }` (≤ 500) or application/x-ndjson, one task a line (≤ 5000 lines, ≤ 16 MiB): `POST /v1/datasets/{datasetId}/tasks` */
    addDatasetTasks(init) {
        return unwrap(this.api.POST("/v1/datasets/{datasetId}/tasks", init));
    }
    /** List a dataset's tasks: `GET /v1/datasets/{datasetId}/tasks` */
    listDatasetTasks(init) {
        return unwrap(this.api.GET("/v1/datasets/{datasetId}/tasks", init));
    }
    /** Get a dataset: `GET /v1/datasets/{datasetId}` */
    getDataset(init) {
        return unwrap(this.api.GET("/v1/datasets/{datasetId}", init));
    }
    /** Delete a dataset: `DELETE /v1/datasets/{datasetId}` */
    deleteDataset(init) {
        return unwrap(this.api.DELETE("/v1/datasets/{datasetId}", init));
    }
    /** Create a dataset from episodes: `POST /v1/agents/{agentId}/datasets/from-episodes` */
    createDatasetFromEpisodes(init) {
        return unwrap(this.api.POST("/v1/agents/{agentId}/datasets/from-episodes", init));
    }
    /** Create or rotate the tenant's webhook secret (unrestricted admin); the secret is shown once: `POST /v1/webhook-secret` */
    rotateWebhookSecret(init) {
        return unwrap(this.api.POST("/v1/webhook-secret", init));
    }
    /** Remove the webhook secret: `DELETE /v1/webhook-secret` */
    deleteWebhookSecret(init) {
        return unwrap(this.api.DELETE("/v1/webhook-secret", init));
    }
    /** Ingest a finished agent session (signed webhook); idempotent per sessionId: `POST /v1/hooks/session-end` */
    ingestSessionEnd(init) {
        return unwrap(this.api.POST("/v1/hooks/session-end", init));
    }
    /** Start a practice run: `POST /v1/agents/{agentId}/practice-runs` */
    startPracticeRun(init) {
        return unwrap(this.api.POST("/v1/agents/{agentId}/practice-runs", init));
    }
    /** List practice runs: `GET /v1/agents/{agentId}/practice-runs` */
    listPracticeRuns(init) {
        return unwrap(this.api.GET("/v1/agents/{agentId}/practice-runs", init));
    }
    /** Get a practice run: `GET /v1/agents/{agentId}/practice-runs/{runId}` */
    getPracticeRun(init) {
        return unwrap(this.api.GET("/v1/agents/{agentId}/practice-runs/{runId}", init));
    }
    /** Stream a run's events: `GET /v1/agents/{agentId}/practice-runs/{runId}/events` */
    streamPracticeRunEvents(init) {
        return unwrap(this.api.GET("/v1/agents/{agentId}/practice-runs/{runId}/events", init));
    }
    /** List a run's steps: `GET /v1/agents/{agentId}/practice-runs/{runId}/steps` */
    listPracticeRunSteps(init) {
        return unwrap(this.api.GET("/v1/agents/{agentId}/practice-runs/{runId}/steps", init));
    }
    /** Get a run's step: `GET /v1/agents/{agentId}/practice-runs/{runId}/steps/{n}` */
    getPracticeRunStep(init) {
        return unwrap(this.api.GET("/v1/agents/{agentId}/practice-runs/{runId}/steps/{n}", init));
    }
    /** List a run's rollouts: `GET /v1/agents/{agentId}/practice-runs/{runId}/rollouts` */
    listPracticeRunRollouts(init) {
        return unwrap(this.api.GET("/v1/agents/{agentId}/practice-runs/{runId}/rollouts", init));
    }
    /** Get a run's library: `GET /v1/agents/{agentId}/practice-runs/{runId}/library` */
    getPracticeRunLibrary(init) {
        return unwrap(this.api.GET("/v1/agents/{agentId}/practice-runs/{runId}/library", init));
    }
    /** Get a run's learning curve: `GET /v1/agents/{agentId}/practice-runs/{runId}/curve` */
    getPracticeRunCurve(init) {
        return unwrap(this.api.GET("/v1/agents/{agentId}/practice-runs/{runId}/curve", init));
    }
    /** Cancel a practice run: `POST /v1/agents/{agentId}/practice-runs/{runId}/cancel` */
    cancelPracticeRun(init) {
        return unwrap(this.api.POST("/v1/agents/{agentId}/practice-runs/{runId}/cancel", init));
    }
    /** Submit a webhook rollout's result: `POST /v1/practice/rollouts/{rolloutId}/result` */
    submitRolloutResult(init) {
        return unwrap(this.api.POST("/v1/practice/rollouts/{rolloutId}/result", init));
    }
    /** Start an evaluation: `POST /v1/agents/{agentId}/evaluations` */
    startEvaluation(init) {
        return unwrap(this.api.POST("/v1/agents/{agentId}/evaluations", init));
    }
    /** List evaluations: `GET /v1/agents/{agentId}/evaluations` */
    listEvaluations(init) {
        return unwrap(this.api.GET("/v1/agents/{agentId}/evaluations", init));
    }
    /** Compare two libraries: `POST /v1/agents/{agentId}/evaluations/compare` */
    compareLibraries(init) {
        return unwrap(this.api.POST("/v1/agents/{agentId}/evaluations/compare", init));
    }
    /** Get a comparison: `GET /v1/agents/{agentId}/evaluations/compare/{comparisonId}` */
    getComparison(init) {
        return unwrap(this.api.GET("/v1/agents/{agentId}/evaluations/compare/{comparisonId}", init));
    }
    /** Get an evaluation: `GET /v1/agents/{agentId}/evaluations/{evaluationId}` */
    getEvaluation(init) {
        return unwrap(this.api.GET("/v1/agents/{agentId}/evaluations/{evaluationId}", init));
    }
    /** Create or replace a practice schedule: a run on a dataset every 6h, 1d, 7d or on a cron expression (UTC): `PUT /v1/agents/{agentId}/practice-schedules/{name}` */
    putPracticeSchedule(init) {
        return unwrap(this.api.PUT("/v1/agents/{agentId}/practice-schedules/{name}", init));
    }
    /** Get a practice schedule: `GET /v1/agents/{agentId}/practice-schedules/{name}` */
    getPracticeSchedule(init) {
        return unwrap(this.api.GET("/v1/agents/{agentId}/practice-schedules/{name}", init));
    }
    /** Delete a practice schedule: `DELETE /v1/agents/{agentId}/practice-schedules/{name}` */
    deletePracticeSchedule(init) {
        return unwrap(this.api.DELETE("/v1/agents/{agentId}/practice-schedules/{name}", init));
    }
    /** List practice schedules: `GET /v1/agents/{agentId}/practice-schedules` */
    listPracticeSchedules(init) {
        return unwrap(this.api.GET("/v1/agents/{agentId}/practice-schedules", init));
    }
    /** What retrieval has learned from rewards: the re-ranker's weights and the size of usage memory: `GET /v1/agents/{agentId}/retriever` */
    getRetriever(init) {
        return unwrap(this.api.GET("/v1/agents/{agentId}/retriever", init));
    }
    /** Forget what retrieval learned from rewards (re-ranker weights, learned phrases, usage centroids): `DELETE /v1/agents/{agentId}/retriever` */
    resetRetriever(init) {
        return unwrap(this.api.DELETE("/v1/agents/{agentId}/retriever", init));
    }
    /** Subscribe a URL to events (unrestricted admin): `POST /v1/events/endpoints` */
    createEventEndpoint(init) {
        return unwrap(this.api.POST("/v1/events/endpoints", init));
    }
    /** List the tenant's event endpoints (unrestricted admin): `GET /v1/events/endpoints` */
    listEventEndpoints(init) {
        return unwrap(this.api.GET("/v1/events/endpoints", init));
    }
    /** Remove an event endpoint (unrestricted admin): `DELETE /v1/events/endpoints/{endpointId}` */
    deleteEventEndpoint(init) {
        return unwrap(this.api.DELETE("/v1/events/endpoints/{endpointId}", init));
    }
    /** The delivery log (unrestricted admin): `GET /v1/events/deliveries` */
    listEventDeliveries(init) {
        return unwrap(this.api.GET("/v1/events/deliveries", init));
    }
    /** Create a shared library: `POST /v1/libraries` */
    createSharedLibrary(init) {
        return unwrap(this.api.POST("/v1/libraries", init));
    }
    /** List shared libraries: `GET /v1/libraries` */
    listSharedLibraries(init) {
        return unwrap(this.api.GET("/v1/libraries", init));
    }
    /** Get a shared library: `GET /v1/libraries/{libraryId}` */
    getSharedLibrary(init) {
        return unwrap(this.api.GET("/v1/libraries/{libraryId}", init));
    }
    /** Rename or describe a shared library: `PATCH /v1/libraries/{libraryId}` */
    updateSharedLibrary(init) {
        return unwrap(this.api.PATCH("/v1/libraries/{libraryId}", init));
    }
    /** Delete a shared library: `DELETE /v1/libraries/{libraryId}` */
    deleteSharedLibrary(init) {
        return unwrap(this.api.DELETE("/v1/libraries/{libraryId}", init));
    }
    /** Subscribers and how the lessons fare with each: `GET /v1/libraries/{libraryId}/subscribers` */
    listLibrarySubscribers(init) {
        return unwrap(this.api.GET("/v1/libraries/{libraryId}/subscribers", init));
    }
    /** Add a lesson to a shared library: `POST /v1/libraries/{libraryId}/experiences` */
    addSharedExperience(init) {
        return unwrap(this.api.POST("/v1/libraries/{libraryId}/experiences", init));
    }
    /** List a shared library's lessons: `GET /v1/libraries/{libraryId}/experiences` */
    listSharedExperiences(init) {
        return unwrap(this.api.GET("/v1/libraries/{libraryId}/experiences", init));
    }
    /** Get a shared library's lesson: `GET /v1/libraries/{libraryId}/experiences/{id}` */
    getSharedExperience(init) {
        return unwrap(this.api.GET("/v1/libraries/{libraryId}/experiences/{id}", init));
    }
    /** Change a shared library's lesson: `PATCH /v1/libraries/{libraryId}/experiences/{id}` */
    updateSharedExperience(init) {
        return unwrap(this.api.PATCH("/v1/libraries/{libraryId}/experiences/{id}", init));
    }
    /** Delete a shared library's lesson: `DELETE /v1/libraries/{libraryId}/experiences/{id}` */
    deleteSharedExperience(init) {
        return unwrap(this.api.DELETE("/v1/libraries/{libraryId}/experiences/{id}", init));
    }
    /** Subscribe an agent to a shared library: `PUT /v1/agents/{agentId}/subscriptions/{libraryId}` */
    subscribeAgent(init) {
        return unwrap(this.api.PUT("/v1/agents/{agentId}/subscriptions/{libraryId}", init));
    }
    /** End a subscription: `DELETE /v1/agents/{agentId}/subscriptions/{libraryId}` */
    unsubscribeAgent(init) {
        return unwrap(this.api.DELETE("/v1/agents/{agentId}/subscriptions/{libraryId}", init));
    }
    /** List an agent's subscriptions: `GET /v1/agents/{agentId}/subscriptions` */
    listAgentSubscriptions(init) {
        return unwrap(this.api.GET("/v1/agents/{agentId}/subscriptions", init));
    }
    /** Share an agent's lesson into a shared library: `POST /v1/agents/{agentId}/experiences/{id}/share` */
    shareExperience(init) {
        return unwrap(this.api.POST("/v1/agents/{agentId}/experiences/{id}/share", init));
    }
    /** List a shared library's versions: `GET /v1/libraries/{libraryId}/versions` */
    listSharedLibraryVersions(init) {
        return unwrap(this.api.GET("/v1/libraries/{libraryId}/versions", init));
    }
    /** Get a shared library version: `GET /v1/libraries/{libraryId}/versions/{n}` */
    getSharedLibraryVersion(init) {
        return unwrap(this.api.GET("/v1/libraries/{libraryId}/versions/{n}", init));
    }
    /** Diff a shared library version: `GET /v1/libraries/{libraryId}/versions/{n}/diff` */
    getSharedLibraryVersionDiff(init) {
        return unwrap(this.api.GET("/v1/libraries/{libraryId}/versions/{n}/diff", init));
    }
    /** Roll a shared library back: `POST /v1/libraries/{libraryId}/rollback` */
    rollbackSharedLibrary(init) {
        return unwrap(this.api.POST("/v1/libraries/{libraryId}/rollback", init));
    }
    /** Export a shared library: `GET /v1/libraries/{libraryId}/export` */
    exportSharedLibrary(init) {
        return unwrap(this.api.GET("/v1/libraries/{libraryId}/export", init));
    }
    /** Import into a shared library: `POST /v1/libraries/{libraryId}/import` */
    importSharedLibrary(init) {
        return unwrap(this.api.POST("/v1/libraries/{libraryId}/import", init));
    }
    /** List a shared library's held entries: `GET /v1/libraries/{libraryId}/quarantine` */
    listSharedLibraryQuarantine(init) {
        return unwrap(this.api.GET("/v1/libraries/{libraryId}/quarantine", init));
    }
    /** Release a shared library's held entry: `POST /v1/libraries/{libraryId}/quarantine/{id}/release` */
    releaseSharedQuarantined(init) {
        return unwrap(this.api.POST("/v1/libraries/{libraryId}/quarantine/{id}/release", init));
    }
    /** Delete a shared library's held entry: `DELETE /v1/libraries/{libraryId}/quarantine/{id}` */
    deleteSharedQuarantined(init) {
        return unwrap(this.api.DELETE("/v1/libraries/{libraryId}/quarantine/{id}", init));
    }
}
