"""What the dashboard's polls of a running server get from its engine, in one shape for every engine: the
server's word about itself (``ServerInfo``) and a ``/metrics`` reader giving figures by the dashboard's names.

The figures' names (each None where the engine or its release has no such family): ``requests`` (finished,
a counter), ``aborted``, ``retracted``, ``queue``, ``running``, ``token_usage`` (0-1), ``full_token_usage``,
``mamba_usage``, and for an engine whose counters give them, ``accept_len`` and ``accept_rate`` over the
interval since the reader's last read. Transport-free: a caller passes its own ``get_json`` and text.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Awaitable, Callable, Protocol

GetJson = Callable[[str], Awaitable[tuple[int, Any]]]  # path -> (HTTP status, the body as JSON or None)


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
