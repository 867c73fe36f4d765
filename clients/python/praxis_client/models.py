"""The API's request and response shapes the client's methods take and return, as TypedDicts
(mirroring the components of client/openapi.json: a dict from ``json.loads`` is one of these).
Every shape is in the OpenAPI document at ``/openapi.json``; the less common routes are reached
with ``Praxis.request`` and return plain dicts."""

from __future__ import annotations

from typing import Any, Dict, List, Literal, Optional, TypedDict, Union

Outcome = Literal["success", "failure", "partial", "timeout"]
# `abandoned`: the work stopped for a reason outside the task; no reward, no case, no extraction.
EpisodeOutcome = Literal["success", "failure", "partial", "timeout", "abandoned"]
Phase = Literal["observation", "reasoning", "planning", "action", "reflection"]
MemoryKind = Literal["experience", "case"]
Metadata = Dict[str, Union[str, int, float, bool, None]]
# A lesson's or case's metadata: flat, at most 32 keys of ``A-Z a-z 0-9 _ . : -``; never shown to a model.
MemoryMetadata = Dict[str, Union[str, int, float, bool]]
# `bounded` (the default): ranked where the request lands, from a snapshot at most the staleness
# bound old; `strong`: ranked by the agent's memory itself.
Consistency = Literal["bounded", "strong"]
ReadFallback = Literal[
    "strong",
    "episode",
    "query-words",
    "embedder",
    "too-large",
    "remote-index",
    "token-size",
    "subscriptions",
    "pinned-subscription",
    "snapshot-unavailable",
    "snapshot-loading",
]


class MemoryFilter(TypedDict, total=False):
    """What a retrieval or prompt block may choose from, applied before ranking; every given condition holds."""

    metadata: MemoryMetadata  # each key equal to this value (same type)
    tags: List[str]  # any of them
    domain: str  # lessons of this domain (cases have none)
    createdAfter: int  # epoch milliseconds
    usedAfter: int  # epoch milliseconds; never-used items do not match


class Agent(TypedDict):
    agentId: str
    displayName: Optional[str]
    createdAt: int


class _RetrieveQuery(TypedDict):
    query: str


class RetrieveRequest(_RetrieveQuery, total=False):
    phase: Phase
    # `lambda` is a keyword in Python: Agent.retrieve takes it as `lambda_`.
    k1: int
    k2: int
    threshold: float
    kinds: List[MemoryKind]
    tags: List[str]
    filter: MemoryFilter
    episodeId: str
    minVersion: int  # answer from this library version or later (read-your-writes)
    consistency: Consistency


class _RetrievedItem(TypedDict):
    id: str
    kind: MemoryKind
    label: Optional[str]
    probation: bool
    text: str
    metadata: MemoryMetadata
    sim: float
    lexical: float
    relevance: float
    simZ: float
    q: float
    qZ: float
    score: float
    match: Literal["vector", "lexical"]


class RetrievedItem(_RetrievedItem, total=False):
    libraryId: str  # a subscribed shared library's lesson; its q is this agent's own


class _ReadFreshness(TypedDict):
    libraryVersion: int  # the library version the answer was ranked on
    snapshotAgeMs: int  # how long before the answer its snapshot was confirmed current (0: ranked by the agent's memory)
    servedFrom: Literal["edge", "object"]


class ReadFreshness(_ReadFreshness, total=False):
    fallbackReason: ReadFallback  # why the agent's memory ranked a read the edge could have served


class RetrieveResponse(ReadFreshness):
    retrievalId: str
    phase: Optional[Phase]
    candidates: int
    items: List[RetrievedItem]


class PromptBlock(ReadFreshness):
    prompt: str
    mode: Literal["full-library", "ranked"]
    experienceIds: List[str]
    caseIds: List[str]
    exploredIds: List[str]  # lessons on probation this block shows to test them (also in experienceIds)
    retrievalId: str
    estimatedTokens: int


class _RewardedMemory(TypedDict):
    id: str
    kind: MemoryKind
    qBefore: float
    q: float
    cited: bool


class RewardedMemory(_RewardedMemory, total=False):
    libraryId: str  # a shared library's lesson: only this agent's Q for it moved


class _RewardResult(TypedDict):
    reward: float
    updated: List[RewardedMemory]
    uncited: List[str]
    replayed: bool


class RewardResult(_RewardResult, total=False):
    skipped: List[str]


class VersionedExperience(TypedDict):
    id: str
    libraryVersion: int


class _SharedLibrary(TypedDict):
    libraryId: str
    name: str
    description: Optional[str]
    createdAt: int
    updatedAt: int


class SharedLibrary(_SharedLibrary, total=False):
    """A tenant's library of lessons that agents subscribe to (``subscribers`` and ``libraryVersion`` when read alone)."""

    subscribers: int
    libraryVersion: int


class Subscription(TypedDict):
    libraryId: str
    weight: float  # how much the library's lessons count beside the agent's own (0.05-1)
    pinVersion: Optional[int]  # the library version drawn on; None: the latest
    createdAt: int


class SharedExperience(VersionedExperience):
    """An agent's lesson as shared into a library: the copy's id there, and the library's new version."""

    libraryId: str


class Attempt(TypedDict):
    n: int
    description: str
    ok: bool
    error: Optional[str]
    toolCalls: List[str]
    # A failure outside the task (a model API's error, a network failure): left out of the case's trace.
    infrastructure: bool
    at: int


class _ToolName(TypedDict):
    name: str


class ToolCall(_ToolName, total=False):
    input: Any
    output: Any
    error: str


class EpisodeCase(TypedDict):
    id: str
    status: Literal["active", "archived", "quarantined", "pending"]
    reason: Optional[str]


class EpisodeTaught(TypedDict):
    lessonIds: List[str]
    operation: Optional[str]
    libraryVersion: Optional[int]
    reason: Optional[str]


class _EpisodeResultBase(TypedDict):
    reward: float
    rewarded: List[Dict[str, Any]]
    caseId: Optional[str]
    extraction: Literal["queued", "running", "done", "skipped", "failed", "not-needed"]
    jobId: Optional[str]


class EpisodeResult(_EpisodeResultBase, total=False):
    case: Optional[EpisodeCase]
    taught: Optional[EpisodeTaught]


class Episode(TypedDict):
    id: str
    task: str
    metadata: Optional[Metadata]
    sessionId: Optional[str]
    status: Literal["open", "ended"]
    outcome: Optional[EpisodeOutcome]
    score: Optional[float]
    answer: Optional[str]
    attempts: List[Attempt]
    result: Optional[EpisodeResult]
    createdAt: int
    endedAt: Optional[int]


class RunEvent(TypedDict):
    """One event of a practice run's stream (``status``, ``stage``, ``rollout``, ``group``, ``step``, ``budget``, ``end``)."""

    id: int
    type: str
    data: Dict[str, Any]
