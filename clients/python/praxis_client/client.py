"""The ergonomic layer: ``Praxis`` (any route), ``Agent`` (one agent's memory) and ``Episode``."""

from __future__ import annotations

import json
from types import TracebackType
from typing import Any, Dict, Iterator, List, Mapping, Optional, Sequence, Type, Union, cast

from . import models as m
from .transport import LibraryVersions, RetryOptions, Transport


class Praxis:
    """The Praxis API at ``base_url`` with a tenant key (``pxk_…``) or the operator key.

    ``request`` reaches every route of ``/openapi.json`` by its path template; ``agent(id)`` is the
    ergonomic layer over the agent routes.

    ``read_your_writes`` (default on): each agent's reads (``prompt``, ``retrieve``) are answered
    from at least the library version this client last wrote for it (``versions``); off, every read
    is left to the deployment's staleness bound (2 s by default), as another client's would be.
    """

    def __init__(
        self, base_url: str, api_key: str, *, retry: RetryOptions = RetryOptions(), timeout_s: float = 60.0, read_your_writes: bool = True
    ) -> None:
        self.versions = LibraryVersions()
        self._transport = Transport(base_url, api_key, retry, timeout_s, self.versions if read_your_writes else None)

    def request(
        self,
        method: str,
        path_template: str,
        *,
        path: Optional[Mapping[str, str]] = None,
        query: Optional[Mapping[str, Any]] = None,
        body: Any = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """One call, e.g. ``request("GET", "/v1/datasets/{datasetId}", path={"datasetId": d})``.

        Raises ``PraxisError`` for a problem answer and ``PraxisConnectionError`` when the API
        cannot be reached after the retries. ``body`` is sent as JSON (``bytes`` as they are).
        """
        return self._transport.request(method, path_template, path=path, query=query, body=body, headers=headers)

    def agent(self, agent_id: str) -> "Agent":
        return Agent(self, agent_id)

    def agents(self) -> List[m.Agent]:
        """Every agent of the tenant (all pages)."""
        return cast(List[m.Agent], self._all("/v1/agents"))

    def library(self, library_id: str) -> "Library":
        return Library(self, library_id)

    def libraries(self) -> List[m.SharedLibrary]:
        """Every shared library of the tenant the key may use (all pages)."""
        return cast(List[m.SharedLibrary], self._all("/v1/libraries"))

    def create_library(self, name: str, description: Optional[str] = None) -> "Library":
        """Creates a shared library; agents draw on its lessons once subscribed (``Agent.subscribe``)."""
        created = self.request("POST", "/v1/libraries", body=_compact({"name": name, "description": description}))
        return Library(self, created["libraryId"])

    def _all(self, path_template: str, path: Optional[Mapping[str, str]] = None, query: Optional[Mapping[str, Any]] = None) -> List[Dict[str, Any]]:
        items: List[Dict[str, Any]] = []
        cursor: Optional[str] = None
        while True:
            page = self.request("GET", path_template, path=path, query={**(query or {}), "limit": 200, "cursor": cursor})
            items.extend(page["items"])
            cursor = page.get("nextCursor")
            if not cursor:
                return items


class Library:
    """A shared library: lessons several agents of the tenant draw on, each learning its own Q for them.

    Its lessons go through the same admission (screening, quarantine) and version history as an
    agent's; the less common routes (versions, diff, rollback, export, import, quarantine) are
    reached with ``Praxis.request`` under ``/v1/libraries/{libraryId}``.
    """

    def __init__(self, praxis: Praxis, library_id: str) -> None:
        self.praxis = praxis
        self.id = library_id

    def _call(self, method: str, route: str, **kwargs: Any) -> Any:
        path = {"libraryId": self.id, **kwargs.pop("path", {})}
        return self.praxis.request(method, "/v1/libraries/{libraryId}" + route, path=path, **kwargs)

    def get(self) -> m.SharedLibrary:
        """The library with its subscriber count and current version."""
        return cast(m.SharedLibrary, self._call("GET", ""))

    def update(self, *, name: Optional[str] = None, description: Optional[str] = None) -> m.SharedLibrary:
        return cast(m.SharedLibrary, self._call("PATCH", "", body=_compact({"name": name, "description": description})))

    def delete(self) -> None:
        """Deletes the library (admin key); every subscriber stops drawing on it at its next read."""
        self._call("DELETE", "")

    def add_experience(
        self, text: str, *, tags: Optional[Sequence[str]] = None, metadata: Optional[m.MemoryMetadata] = None, **fields: Any
    ) -> m.VersionedExperience:
        """Adds a lesson to the library (a new library version), screened as an agent's would be."""
        body = _compact({"text": text, "tags": _list(tags), "metadata": metadata, **fields})
        return cast(m.VersionedExperience, self._call("POST", "/experiences", body=body))

    def experiences(self, *, status: str = "active") -> List[Dict[str, Any]]:
        """The library's lessons (all pages)."""
        return self.praxis._all("/v1/libraries/{libraryId}/experiences", path={"libraryId": self.id}, query={"status": status})

    def subscribers(self) -> List[Dict[str, Any]]:
        """The subscribing agents (all pages), each with its own Q and counters for the library's lessons."""
        return self.praxis._all("/v1/libraries/{libraryId}/subscribers", path={"libraryId": self.id})


class Agent:
    """One agent's memory: what to inject before acting, episodes to report what happened."""

    def __init__(self, praxis: Praxis, agent_id: str) -> None:
        self.praxis = praxis
        self.id = agent_id

    def _call(self, method: str, route: str, **kwargs: Any) -> Any:
        path = {"agentId": self.id, **kwargs.pop("path", {})}
        return self.praxis.request(method, "/v1/agents/{agentId}" + route, path=path, **kwargs)

    def ensure(self, display_name: Optional[str] = None) -> m.Agent:
        """Creates the agent, or updates its display name (PUT: safe to repeat)."""
        return cast(m.Agent, self._call("PUT", "", body={"displayName": display_name} if display_name else {}))

    def prompt(
        self,
        query: Optional[str] = None,
        *,
        episode_id: Optional[str] = None,
        phase: Optional[m.Phase] = None,
        budget_tokens: Optional[int] = None,
        max_cases: Optional[int] = None,
        filter: Optional[m.MemoryFilter] = None,
        min_version: Optional[int] = None,
        consistency: Optional[m.Consistency] = None,
    ) -> m.PromptBlock:
        """The block to inject into the agent's prompt: ``[G#]. …`` lessons, then relevant past cases
        (with ``filter``, only the lessons and cases it matches). ``min_version``: the
        ``libraryVersion`` a write answered, to read what it wrote; ``consistency="strong"`` reads
        through the agent's memory itself."""
        query_params = {
            "query": query,
            "episodeId": episode_id,
            "phase": phase,
            "budgetTokens": budget_tokens,
            "maxCases": max_cases,
            "filter": json.dumps(filter) if filter is not None else None,
            "minVersion": min_version,
            "consistency": consistency,
        }
        return cast(m.PromptBlock, self._call("GET", "/prompt", query=query_params))

    def retrieve(
        self,
        query: str,
        *,
        phase: Optional[m.Phase] = None,
        lambda_: Optional[float] = None,
        k1: Optional[int] = None,
        k2: Optional[int] = None,
        threshold: Optional[float] = None,
        kinds: Optional[Sequence[m.MemoryKind]] = None,
        tags: Optional[Sequence[str]] = None,
        episode_id: Optional[str] = None,
        filter: Optional[m.MemoryFilter] = None,
        min_version: Optional[int] = None,
        consistency: Optional[m.Consistency] = None,
    ) -> m.RetrieveResponse:
        """Utility-ranked retrieval: relevance filter, then relevance and Q blended by λ; ``filter``
        (metadata, tags, domain, createdAfter, usedAfter) narrows the candidates before ranking.
        ``min_version`` and ``consistency`` as for ``prompt``."""
        body = _compact(
            {
                "query": query,
                "phase": phase,
                "lambda": lambda_,
                "k1": k1,
                "k2": k2,
                "threshold": threshold,
                "kinds": _list(kinds),
                "tags": _list(tags),
                "episodeId": episode_id,
                "filter": filter,
                "minVersion": min_version,
                "consistency": consistency,
            }
        )
        return cast(m.RetrieveResponse, self._call("POST", "/retrieve", body=body))

    def reward(
        self,
        *,
        retrieval_id: Optional[str] = None,
        episode_id: Optional[str] = None,
        memory_ids: Optional[Sequence[str]] = None,
        outcome: Optional[m.Outcome] = None,
        reward: Optional[float] = None,
        quality: Optional[float] = None,
        cited_ids: Optional[Sequence[str]] = None,
    ) -> m.RewardResult:
        """Reports an outcome: Q ← Q + α(r − Q) for what a retrieval (or episode) returned, or named memories."""
        body = _compact(
            {
                "retrievalId": retrieval_id,
                "episodeId": episode_id,
                "memoryIds": _list(memory_ids),
                "outcome": outcome,
                "reward": reward,
                "quality": quality,
                "citedIds": _list(cited_ids),
            }
        )
        return cast(m.RewardResult, self._call("POST", "/rewards", body=body))

    def add_experience(
        self, text: str, *, tags: Optional[Sequence[str]] = None, metadata: Optional[m.MemoryMetadata] = None, **fields: Any
    ) -> m.VersionedExperience:
        """Adds a lesson (a new library version); ``metadata`` is kept and filterable, never shown to a
        model; ``fields`` are further ``ExperienceCreate`` members."""
        body = _compact({"text": text, "tags": _list(tags), "metadata": metadata, **fields})
        return cast(m.VersionedExperience, self._call("POST", "/experiences", body=body))

    def experiences(self, *, status: str = "active") -> List[Dict[str, Any]]:
        """The agent's experiences (all pages) with their labels and Q."""
        return self.praxis._all("/v1/agents/{agentId}/experiences", path={"agentId": self.id}, query={"status": status})

    def subscribe(self, library_id: str, *, weight: Optional[float] = None, pin_version: Optional[int] = None) -> m.Subscription:
        """Draws on a shared library's lessons beside the agent's own, at its latest version or as it
        stood after ``pin_version``. Again replaces the subscription (what is left out: weight 1, the latest)."""
        body = _compact({"weight": weight, "pinVersion": pin_version})
        return cast(m.Subscription, self._call("PUT", "/subscriptions/{libraryId}", path={"libraryId": library_id}, body=body))

    def unsubscribe(self, library_id: str) -> None:
        """Stops drawing on the library, forgetting the agent's own Q for its lessons."""
        self._call("DELETE", "/subscriptions/{libraryId}", path={"libraryId": library_id})

    def subscriptions(self) -> List[m.Subscription]:
        return cast(List[m.Subscription], self._call("GET", "/subscriptions")["items"])

    def share(self, experience_id: str, library_id: str) -> m.SharedExperience:
        """Copies one of the agent's lessons into a shared library, through the library's screening."""
        route = "/experiences/{id}/share"
        return cast(m.SharedExperience, self._call("POST", route, path={"id": experience_id}, body={"libraryId": library_id}))

    def start_episode(self, task: str, metadata: Optional[m.Metadata] = None) -> "Episode":
        """Starts an episode to use without `with`: end it with ``Episode.end``."""
        return Episode(self, None, task, metadata).__enter__()

    def get_episode(self, episode_id: str) -> m.Episode:
        return cast(m.Episode, self._call("GET", "/episodes/{id}", path={"id": episode_id}))

    def episode(self, task: str, metadata: Optional[m.Metadata] = None) -> "Episode":
        """An episode as a context manager; see ``Episode``."""
        return Episode(self, None, task, metadata)

    def practice_events(self, run_id: str, *, timeout_s: float = 330.0) -> Iterator[m.RunEvent]:
        """The practice run's events as they happen, resuming across reconnects, until the run ends.

        The server closes the stream every few minutes; the next connection resumes after the last
        event seen (``Last-Event-ID``). The iteration ends after an ``end`` event, or when a
        connection closes without any new event (the run was already over).
        """
        last_id = 0
        while True:
            headers = {"accept": "text/event-stream"}
            if last_id:
                headers["last-event-id"] = str(last_id)
            res, lines = self.praxis._transport.stream_lines(
                "/v1/agents/{agentId}/practice-runs/{runId}/events", path={"agentId": self.id, "runId": run_id}, headers=headers, timeout_s=timeout_s
            )
            received = 0
            with res:
                for event in _sse(lines):
                    received += 1
                    last_id = int(event["id"]) if event.get("id") else last_id + 1
                    data = event.get("data")
                    parsed: m.RunEvent = {"id": last_id, "type": event.get("event") or "message", "data": json.loads(data) if data else {}}
                    yield parsed
                    if parsed["type"] == "end":
                        return
            if not received:
                return


class Episode:
    """One task the agent works on: its prompt, its attempts, its answer, citations and outcome.

    As a context manager (``with agent.episode("task") as ep:``) the episode starts on entry and
    ends on exit with what was recorded on it: ``ep.answer``, the labels or ids passed to
    ``ep.cite``, ``ep.outcome`` (default ``success``) and ``ep.score``. If the block raises, the
    episode ends as ``abandoned`` and the error propagates: an exception (a model API's 404, a
    network error, a bug) says the work stopped, not that the task failed, so no lesson's Q moves,
    no case is kept and nothing is extracted. A task failure is what the block reports itself:
    ``ep.outcome = "failure"`` or ``ep.end("failure")``. An episode the block ended itself is not
    ended again.
    """

    def __init__(self, agent: Agent, episode_id: Optional[str], task: str, metadata: Optional[m.Metadata] = None) -> None:
        self.agent = agent
        self._id = episode_id
        self.task = task
        self.metadata = metadata
        self.answer: Optional[str] = None
        self.outcome: Optional[m.EpisodeOutcome] = None
        self.score: Optional[float] = None
        self.cited: List[str] = []
        self.attempts: List[m.Attempt] = []
        self.ended: Optional[m.Episode] = None

    @property
    def id(self) -> str:
        if self._id is None:
            raise RuntimeError("The episode has not started: use it in a `with` block or Agent.start_episode")
        return self._id

    def __enter__(self) -> "Episode":
        if self._id is None:
            self._id = self.agent._call("POST", "/episodes", body=_compact({"task": self.task, "metadata": self.metadata}))["episodeId"]
        return self

    def __exit__(self, exc_type: Optional[Type[BaseException]], exc: Optional[BaseException], tb: Optional[TracebackType]) -> None:
        if self.ended is not None:
            return
        if exc is None:
            self.end(self.outcome or "success", answer=self.answer, cited_ids=self.cited, score=self.score)
            return
        try:
            self.end("abandoned")
        except Exception:
            # The caller needs its own error, not this one; an episode left open is ended as
            # `timeout` by the service's sweep.
            pass

    def prompt(self, query: Optional[str] = None, **options: Any) -> m.PromptBlock:
        """The prompt block for this episode (query defaults to the task); its end rewards what it showed."""
        return self.agent.prompt(query if query is not None else self.task, episode_id=self.id, **options)

    def retrieve(self, query: Optional[str] = None, **options: Any) -> m.RetrieveResponse:
        return self.agent.retrieve(query if query is not None else self.task, episode_id=self.id, **options)

    def cite(self, *ids_or_labels: str) -> None:
        """Records memories that helped (ids, or labels such as ``G0`` from the prompt block)."""
        for x in ids_or_labels:
            if x not in self.cited:
                self.cited.append(x)

    def attempt(
        self,
        description: str,
        *,
        ok: bool,
        error: Optional[str] = None,
        tool_calls: Optional[Sequence[Union[str, m.ToolCall]]] = None,
        infrastructure: Optional[bool] = None,
    ) -> m.Attempt:
        """Logs an attempt; a stack trace in ``error`` is digested and secrets redacted by the service.
        ``infrastructure=True`` marks a failure outside the task (kept out of the case's trace)."""
        calls: Optional[List[Dict[str, Any]]] = [{"name": c} if isinstance(c, str) else {**c} for c in tool_calls] if tool_calls else None
        body = _compact({"description": description, "ok": ok, "error": error, "toolCalls": calls, "infrastructure": infrastructure})
        recorded: m.Attempt = self.agent._call("POST", "/episodes/{id}/attempts", path={"id": self.id}, body=body)
        self.attempts.append(recorded)
        return recorded

    def end(
        self, outcome: m.EpisodeOutcome, *, answer: Optional[str] = None, cited_ids: Optional[Sequence[str]] = None, score: Optional[float] = None
    ) -> m.Episode:
        """Ends the episode (idempotent: the first result stays); rewards what it retrieved."""
        body = _compact({"outcome": outcome, "answer": answer, "citedIds": _list(cited_ids), "score": score})
        ended = cast(m.Episode, self.agent._call("POST", "/episodes/{id}/end", path={"id": self.id}, body=body))
        self.ended = ended
        return ended


def _compact(d: Dict[str, Any]) -> Dict[str, Any]:
    return {k: v for k, v in d.items() if v is not None}


def _list(xs: Optional[Sequence[Any]]) -> Optional[List[Any]]:
    return list(xs) if xs else None


def _sse(lines: Iterator[str]) -> Iterator[Dict[str, str]]:
    """Server-Sent Events (the WHATWG format): fields until a blank line; comments skipped."""
    event: Dict[str, str] = {}
    data: List[str] = []
    for line in lines:
        if not line:
            if data or event:
                if data:
                    event["data"] = "\n".join(data)
                yield event
            event, data = {}, []
            continue
        if line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if name == "data":
            data.append(value)
        elif name in ("event", "id"):
            event[name] = value
    if data:
        event["data"] = "\n".join(data)
        yield event
