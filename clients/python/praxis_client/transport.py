"""HTTP over ``urllib`` with the TypeScript client's retry rules.

Connection failures and 429, 502, 503, 504 answers are retried for requests that are safe to
repeat: reads, ``PUT``/``DELETE``, and the writes the API replays for a repeated Idempotency-Key
(each such call gets one key, sent again with every retry, so the write is applied once). A 503
whose problem type ends in ``-not-configured`` is not retried: it answers the same until configured.
"""

from __future__ import annotations

import email.utils
import http.client
import json
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from dataclasses import dataclass
from typing import Any, Dict, Iterator, Mapping, Optional, Tuple

from ._idempotency import IDEMPOTENT_WRITES
from .errors import PraxisConnectionError, PraxisError

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "PUT", "DELETE"})
RETRY_STATUSES = frozenset({429, 502, 503, 504})
MAX_DELAY_S = 8.0
MAX_RETRY_AFTER_S = 30.0
LIBRARY_VERSION_HEADER = "x-praxis-library-version"
MIN_VERSION_HEADER = "x-praxis-min-version"
AGENT_PATH = "/v1/agents/{agentId}"
# The reads ranked at the edge, which may lag a write by the staleness bound unless asked for its version.
EDGE_READS = frozenset({"POST /v1/agents/{agentId}/retrieve", "GET /v1/agents/{agentId}/prompt"})


@dataclass(frozen=True)
class RetryOptions:
    """Retries after the first attempt, and the first backoff delay (doubling, capped at 8 s)."""

    retries: int = 2
    base_delay_s: float = 0.25


def _retry_after(value: Optional[str]) -> Optional[float]:
    if not value:
        return None
    try:
        secs = float(value)
    except ValueError:
        parsed = email.utils.parsedate_to_datetime(value)
        if parsed is None:
            return None
        secs = parsed.timestamp() - time.time()
    return min(max(secs, 0.0), MAX_RETRY_AFTER_S)


def _query_string(query: Optional[Mapping[str, Any]]) -> str:
    if not query:
        return ""
    pairs = []
    for key, value in query.items():
        if value is None:
            continue
        for v in value if isinstance(value, (list, tuple)) else [value]:
            pairs.append((key, "true" if v is True else "false" if v is False else str(v)))
    return f"?{urllib.parse.urlencode(pairs)}" if pairs else ""


def _decode(raw: bytes, content_type: str) -> Any:
    if not raw:
        return None
    text = raw.decode("utf-8", errors="replace")
    if "json" in content_type:
        try:
            return json.loads(text)
        except ValueError:
            return text
    return text


class LibraryVersions:
    """Session consistency: the latest library version this client wrote for each agent, sent with
    its next reads of that agent (as ``X-Praxis-Min-Version``; a ``min_version`` the caller gives
    wins), so the client reads its own writes while its reads stay at the edge."""

    def __init__(self) -> None:
        self._latest: Dict[str, int] = {}

    def get(self, agent_id: str) -> Optional[int]:
        return self._latest.get(agent_id)

    def note(self, agent_id: str, version: int) -> None:
        if version > self._latest.get(agent_id, -1):
            self._latest[agent_id] = version

    def forget(self, agent_id: str) -> None:
        self._latest.pop(agent_id, None)


class Transport:
    def __init__(self, base_url: str, api_key: str, retry: RetryOptions, timeout_s: float, versions: Optional[LibraryVersions] = None) -> None:
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.retry = retry
        self.timeout_s = timeout_s
        self.versions = versions

    def url(self, template: str, path: Optional[Mapping[str, str]] = None, query: Optional[Mapping[str, Any]] = None) -> str:
        route = template
        for name, value in (path or {}).items():
            route = route.replace("{" + name + "}", urllib.parse.quote(str(value), safe=""))
        if "{" in route:
            raise ValueError(f"{template}: path parameter missing ({route})")
        return f"{self.base_url}{route}{_query_string(query)}"

    def _open(self, method: str, template: str, url: str, body: Any, headers: Dict[str, str], timeout_s: Optional[float]) -> http.client.HTTPResponse:
        data: Optional[bytes] = None
        headers = {"authorization": f"Bearer {self.api_key}", "accept": "application/json", **headers}
        if body is not None:
            data = body if isinstance(body, bytes) else json.dumps(body).encode("utf-8")
            headers.setdefault("content-type", "application/json")
        if f"{method} {template}" in IDEMPOTENT_WRITES:
            headers.setdefault("idempotency-key", str(uuid.uuid4()))
        repeatable = method in SAFE_METHODS or "idempotency-key" in headers
        attempts = self.retry.retries + 1 if repeatable else 1
        for attempt in range(1, attempts + 1):
            last = attempt >= attempts
            backoff = min(self.retry.base_delay_s * 2 ** (attempt - 1), MAX_DELAY_S)
            request = urllib.request.Request(url, data=data, method=method, headers=headers)
            try:
                res: http.client.HTTPResponse = urllib.request.urlopen(request, timeout=timeout_s if timeout_s is not None else self.timeout_s)
                return res
            except urllib.error.HTTPError as err:
                raw = err.read()
                content_type = err.headers.get("content-type", "")
                problem = _decode(raw, content_type)
                permanent = err.code == 503 and isinstance(problem, dict) and str(problem.get("type", "")).endswith("-not-configured")
                if last or err.code not in RETRY_STATUSES or permanent:
                    raise PraxisError(err.code, problem, err.headers.get("x-request-id")) from None
                wait = _retry_after(err.headers.get("retry-after"))
                time.sleep(backoff if wait is None else wait)
            except (urllib.error.URLError, ConnectionError, socket.timeout, http.client.HTTPException) as err:
                if last:
                    reason = getattr(err, "reason", None) or err
                    raise PraxisConnectionError(self.base_url, str(reason)) from None
                time.sleep(backoff)
        raise AssertionError("unreachable")

    def request(
        self,
        method: str,
        template: str,
        *,
        path: Optional[Mapping[str, str]] = None,
        query: Optional[Mapping[str, Any]] = None,
        body: Any = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        method = method.upper()
        url = self.url(template, path, query)
        sent = {k.lower(): v for k, v in (headers or {}).items()}
        agent_id = (path or {}).get("agentId") if self.versions is not None and template.startswith(AGENT_PATH) else None
        if agent_id is not None and f"{method} {template}" in EDGE_READS and MIN_VERSION_HEADER not in sent:
            own = self.versions.get(agent_id)  # type: ignore[union-attr]
            if own is not None:
                sent[MIN_VERSION_HEADER] = str(own)
        try:
            with self._open(method, template, url, body, sent, None) as res:
                if agent_id is not None:
                    self._noted(agent_id, method, template, res.headers.get(LIBRARY_VERSION_HEADER))
                return _decode(res.read(), res.headers.get("content-type", ""))
        except PraxisError as err:
            # A version the library never reaches (the agent was deleted and made again elsewhere) is
            # dropped, so only this read fails, not every later one.
            problem = err.problem if isinstance(err.problem, dict) else {}
            asked = sent.get(MIN_VERSION_HEADER)
            if agent_id is not None and err.status == 409 and asked is not None and problem.get("minVersion") == int(asked):
                self.versions.forget(agent_id)  # type: ignore[union-attr]
            raise

    def _noted(self, agent_id: str, method: str, template: str, made: Optional[str]) -> None:
        assert self.versions is not None
        if method == "DELETE" and template == AGENT_PATH:
            self.versions.forget(agent_id)
        if made is not None and made.isdigit():
            self.versions.note(agent_id, int(made))

    def stream_lines(self, template: str, *, path: Mapping[str, str], headers: Mapping[str, str], timeout_s: float) -> Tuple[http.client.HTTPResponse, Iterator[str]]:
        """A GET whose body is read line by line as it arrives (Server-Sent Events)."""
        res = self._open("GET", template, self.url(template, path), None, dict(headers), timeout_s)

        def lines() -> Iterator[str]:
            for raw in res:
                yield raw.decode("utf-8", errors="replace").rstrip("\r\n")

        return res, lines()
