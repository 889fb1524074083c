"""What the dashboard's polls of a running server get from its engine, in one shape for every engine: the
server's word about itself (``ServerInfo``) and a ``/metrics`` reader giving figures by the dashboard's names.

The figures' names (each None where the engine or its release has no such family): ``requests`` (finished,
a counter), ``aborted``, ``retracted``, ``queue``, ``running``, ``token_usage`` (0-1), ``full_token_usage``,
``mamba_usage``, and for an engine whose counters give them, ``accept_len`` and ``accept_rate`` over the
interval since the reader's last read. Transport-free: a caller passes its own ``get_json`` and text.

A drain asks the third thing here: how many requests the server holds by its own count (``HeldCount``), which
each engine keeps in its own place (SGLang's ``/v1/loads``, vLLM's ``/metrics``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Awaitable, Callable, Protocol

GetJson = Callable[[str], Awaitable[tuple[int, Any]]]  # path -> (HTTP status, the body as JSON or None)
GetText = Callable[[str], Awaitable[tuple[int, str]]]  # path -> (HTTP status, the body as text)


@dataclass(frozen=True)
class ServerInfo:
    """What a server's API says of itself: its release, the launch it reports (the engine's flag set; None where
    the API reports none: the process's command line is then the only source) and the speculation it runs
    (mtptui.speculation.LiveSpeculation, None where the API does not say)."""

    version: str | None = None
    launch: Any = None
    launch_source: str = ""
    speculation: Any = None


class MetricsReader(Protocol):
    """Reads successive ``/metrics`` texts of one server into figures (a counter's interval needs the last read).
    ValueError when the text is no Prometheus exposition."""

    def __call__(self, text: str) -> dict[str, float | None]: ...


@dataclass(frozen=True)
class HeldCount:
    """Where a server of one engine counts the requests it holds, running and waiting (a drain waits for 0).

    ``source`` says it in words for a plan ("its /v1/loads: running + waiting"); ``read(get_text, label)`` asks
    it through the caller's ``GetText`` and gives the count, or raises mtptui.errors.UserError in one sentence
    naming the server by ``label`` (its URL) when the answer holds none; the GetText's own failure (no answer)
    is the caller's to word."""

    source: str
    read: Callable[[GetText, str], Awaitable[int]]
