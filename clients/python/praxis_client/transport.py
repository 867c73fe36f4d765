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


class Transport:
    def __init__(self, base_url: str, api_key: str, retry: RetryOptions, timeout_s: float) -> None:
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.retry = retry
        self.timeout_s = timeout_s

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
        with self._open(method, template, url, body, dict(headers or {}), None) as res:
            return _decode(res.read(), res.headers.get("content-type", ""))

    def stream_lines(self, template: str, *, path: Mapping[str, str], headers: Mapping[str, str], timeout_s: float) -> Tuple[http.client.HTTPResponse, Iterator[str]]:
        """A GET whose body is read line by line as it arrives (Server-Sent Events)."""
        res = self._open("GET", template, self.url(template, path), None, dict(headers), timeout_s)

        def lines() -> Iterator[str]:
            for raw in res:
                yield raw.decode("utf-8", errors="replace").rstrip("\r\n")

        return res, lines()
