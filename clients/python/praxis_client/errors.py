"""Errors the client raises: a problem the API answered, or an API that could not be reached."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional


@dataclass(frozen=True)
class ProblemField:
    """A field the API named in a validation problem."""

    path: str
    message: str
    code: Optional[str] = None


class PraxisError(Exception):
    """An ``application/problem+json`` answer (or any other non-2xx answer) from the API.

    ``type`` is the problem's stable URL (``https://praxis.dev/problems/not-found``); ``code`` is its
    last segment; ``problem`` is the whole document, extension members included.
    """

    def __init__(self, status: int, body: Any, request_id: Optional[str] = None) -> None:
        p: Dict[str, Any] = body if isinstance(body, dict) else {}
        detail = p.get("detail") if isinstance(p.get("detail"), str) else None
        if detail is None:
            detail = body[:500] if isinstance(body, str) and body else f"HTTP {status}"
        super().__init__(detail)
        self.status: int = p["status"] if isinstance(p.get("status"), int) else status
        self.type: str = p["type"] if isinstance(p.get("type"), str) else "about:blank"
        self.title: str = p["title"] if isinstance(p.get("title"), str) else f"HTTP {status}"
        self.detail: str = detail
        self.instance: Optional[str] = p.get("instance") if isinstance(p.get("instance"), str) else None
        rid = p.get("requestId")
        self.request_id: Optional[str] = rid if isinstance(rid, str) else request_id
        self.errors: List[ProblemField] = [
            ProblemField(path=str(e.get("path", "")), message=str(e.get("message", "")), code=e.get("code"))
            for e in (p.get("errors") or [])
            if isinstance(e, dict)
        ]
        self.problem: Dict[str, Any] = p

    @property
    def code(self) -> str:
        """The problem type's short name: ``not-found``, ``validation-failed``, ``llm-not-configured``…"""
        return self.type.rsplit("/", 1)[-1]

    def __str__(self) -> str:
        fields = f" [{'; '.join(f'{e.path}: {e.message}' for e in self.errors)}]" if self.errors else ""
        rid = f" (request {self.request_id})" if self.request_id else ""
        return f"{self.status} {self.code}: {self.detail}{fields}{rid}"


@dataclass
class PraxisConnectionError(Exception):
    """The API could not be reached (DNS, refused connection, reset) even after the retries."""

    url: str
    reason: str = field(default="")

    def __str__(self) -> str:
        return f"Could not reach {self.url}: {self.reason}"
