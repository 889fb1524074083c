"""mtptui's own polls in the log it reads: ``/metrics``, ``/server_info`` and ``/health`` are uvicorn access lines.

The dashboard polls every few seconds, so on a quiet server its own requests are most of the log. The log pane
hides them (``is_own_poll``; a key shows them again), and ``mtptui check`` suggests SGLang's
``--uvicorn-access-log-exclude-prefixes`` for the paths a launch does not exclude yet (``unexcluded``).
"""

from __future__ import annotations

from typing import Callable, Iterable

from mtptui.engines.sglang.api import POLL_PATHS
from mtptui.engines.sglang.logparse.lines import ACCESS
from mtptui.engines.sglang.logparse.prefix import split_line

EXCLUDE_FLAG = "--uvicorn-access-log-exclude-prefixes"


def is_own_poll(text: str, paths: tuple[str, ...] = POLL_PATHS) -> bool:
    """A uvicorn access line of a GET of one of the polled ``paths`` (SGLang's by default; the host's engine
    says its own: ``dashboard(engine).poll_paths``)."""
    if '"GET /' not in text:  # most lines: one substring test
        return False
    m = ACCESS.match(split_line(text).msg)
    return m is not None and m.group(2) == "GET" and m.group(3).startswith(paths)


def own_poll_test(paths: tuple[str, ...]) -> Callable[[str], bool]:
    """``is_own_poll`` for the paths one engine's dashboard polls."""
    return lambda text: is_own_poll(text, paths)


def unexcluded(prefixes: Iterable[str] | None) -> list[str]:
    """The polled paths uvicorn still logs with these exclude prefixes (it drops a path starting with one)."""
    given = [str(prefix) for prefix in prefixes or ()]
    return [path for path in POLL_PATHS if not any(path.startswith(prefix) for prefix in given if prefix)]
