"""What a serving SGLang release does when it is told to stop (SIGTERM), as read in the releases' sources.

Both supported releases (``tokenizer_manager.py``: ``SignalHandler.sigterm_handler``, ``sigterm_watchdog``;
``utils/watchdog.py``: ``SubprocessWatchdog``; ``http_server.py``: ``health_generate``):

- SIGTERM to the server's main process sets a flag and logs ``sigterm``. A watchdog that wakes every 5 s sees it,
  then logs ``draining`` every 5 s with the requests the server still holds (waiting and running), until none is
  left. New requests keep being accepted and served meanwhile (nothing refuses them): only ``/health`` and
  ``/health_generate`` answer 503 (logging ``health_refused``), and on 0.5.23 ``/ready`` too. There is no bound:
  neither release reads ``SGLANG_GRACEFUL_SHUTDOWN_TIMEOUT`` (a later release does); only the service manager's
  own stop timeout (systemd's ``TimeoutStopSec``, then SIGKILL) ends a drain that does not end.
- When the drain is over, 0.5.12.post1 kills its process tree including itself (SIGKILL: the process ends killed
  by signal 9, with no uvicorn shutdown lines); 0.5.23 asks its schedulers to exit, logs ``kill_tree`` and stops
  uvicorn, which shuts down cleanly (exit status 0).
- The scheduler and detokenizer subprocesses do not handle SIGTERM: a SIGTERM to the whole process group (what
  systemd's default ``KillMode=control-group`` and a ``kill -TERM -PGID`` send) kills them at once. Within a
  second the subprocess watchdog logs ``child_crashed`` and raises SIGQUIT, whose handler logs ``sigquit`` and
  kills the process tree, itself included: every request in flight is cut. Only a SIGTERM to the main process
  alone (``kill PID``, systemd's ``KillMode=mixed``) drains.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal, Mapping

DRAIN_BOUND_VAR = "SGLANG_GRACEFUL_SHUTDOWN_TIMEOUT"  # read by later releases only (see above)
WATCHDOG_S = 5.0  # sigterm_watchdog's sleep, before and during the drain
CHILD_WATCH_S = 1.0  # SubprocessWatchdog's interval

_TEXTS = {
    "sigterm": "SIGTERM received. signum=None frame=None. Draining requests and shutting down...",
    "draining": "Gracefully exiting... Remaining number of requests {}. Remaining requests remaining_rids={!r}.",
    "health_refused": "Health check request received during shutdown. Returning 503.",
    "child_crashed": "Subprocess {} (pid={}) crashed with exit code {}. Triggering SIGQUIT for cleanup...",
    "sigquit": "SIGQUIT received. signum=None, frame=None. It usually means one child failed.",
}
_TEXTS_0523 = {**_TEXTS, "kill_tree": "kill_process_tree called: parent_pid={}, include_parent={}, pid={}"}


@dataclass(frozen=True)
class Shutdown:
    """One release's way out of a running server: how a finished drain ends, and its log lines."""

    version: str
    drained_exit: Literal["sigkill", "uvicorn"]
    texts: Mapping[str, str] = field(default_factory=dict)
    reads_drain_bound: bool = False  # whether DRAIN_BOUND_VAR bounds the drain (neither supported release)
    refuses_new_on_sigterm: bool = False  # whether a draining server refuses new requests (neither does)

    def text(self, key: str, *values: object) -> str:
        return self.texts[key].format(*values)


_SHUTDOWNS = {
    "0.5.12.post1": Shutdown("0.5.12.post1", "sigkill", MappingProxyType(_TEXTS)),
    "0.5.23": Shutdown("0.5.23", "uvicorn", MappingProxyType(_TEXTS_0523)),
}


def shutdown_of(version: str) -> Shutdown:
    """The shutdown of a supported version; KeyError for any other."""
    return _SHUTDOWNS[version]
