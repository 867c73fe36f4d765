"""Praxis client for Python: standard library only (``urllib``), the operations of the TypeScript
client, an ``episode`` context manager for the agent loop.

    from praxis_client import Praxis

    agent = Praxis("http://localhost:8787", "pxk_…").agent("support-bot")
    with agent.episode("Refund order 1042") as ep:
        block = ep.prompt()["prompt"]          # put it in the model's prompt
        ep.answer = call_the_model(block)      # cited [G#] labels in the answer count as citations
        ep.cite("G0")                          # or name what helped
"""

from .client import Agent, Episode, Library, Praxis
from .errors import PraxisConnectionError, PraxisError, ProblemField
from .transport import LibraryVersions, RetryOptions

__all__ = ["Agent", "Episode", "Library", "LibraryVersions", "Praxis", "PraxisConnectionError", "PraxisError", "ProblemField", "RetryOptions"]
