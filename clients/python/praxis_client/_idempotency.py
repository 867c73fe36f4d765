"""The writes the API replays for a repeated Idempotency-Key (``METHOD /path/{param}``), as listed in
client/openapi.json; tests/test_offline.py checks this copy against that document."""

IDEMPOTENT_WRITES = frozenset(
    {
        "POST /v1/agents/{agentId}/experiences",
        "POST /v1/agents/{agentId}/library/batch",
        "POST /v1/agents/{agentId}/library/rollback",
        "POST /v1/agents/{agentId}/library/import",
        "POST /v1/agents/{agentId}/cases",
        "POST /v1/agents/{agentId}/rewards",
        "POST /v1/agents/{agentId}/episodes",
        "POST /v1/agents/{agentId}/practice-runs",
        "POST /v1/agents/{agentId}/evaluations",
        "POST /v1/agents/{agentId}/evaluations/compare",
        "POST /v1/libraries/{libraryId}/experiences",
        "POST /v1/libraries/{libraryId}/rollback",
        "POST /v1/libraries/{libraryId}/import",
        "POST /v1/agents/{agentId}/experiences/{id}/share",
    }
)
