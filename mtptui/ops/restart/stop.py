"""What stopping the running server does to the requests in flight, said in the plan before anything changes.

Facts of the supported SGLang releases (mtptui.engines.sglang.surface_shutdown): a SIGTERM to the whole process group
(systemd's default ``KillMode=control-group``, mtptui's process manager) kills SGLang's scheduler at once and
cuts every request in flight; a SIGTERM to the main process alone (``KillMode=mixed`` or ``process``) drains,
but keeps accepting new requests meanwhile and has no bound of its own (``SGLANG_GRACEFUL_SHUTDOWN_TIMEOUT`` is
not read): only the manager's stop timeout (``TimeoutStopSec``, then SIGKILL) ends it, cutting what is left.
0.5.12.post1 ends a finished drain by SIGKILL to itself, so systemd shows the unit failed (signal 9).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mtptui.engines.sglang.surface_shutdown import DRAIN_BOUND_VAR, shutdown_of

if TYPE_CHECKING:
    from mtptui.ops.launches import Running
    from mtptui.remote.steps import StopPolicy
    from mtptui.engines.sglang.surface_shutdown import Shutdown

DRAIN = DRAIN_BOUND_VAR


def _effect(stop: StopPolicy, shutdown: Shutdown | None) -> str:
    """What the stop does to the requests in flight, in one sentence."""
    if stop.term_to == "group":
        return ("SIGTERM reaches SGLang's scheduler and detokenizer too, which end at once: every request in flight "
                "is cut")
    bound = "its drain has a bound" if shutdown is not None and shutdown.reads_drain_bound else \
        f"no bound of its own ({DRAIN} is not read by this release)"
    what = ("SIGTERM reaches SGLang's main process alone: it drains the requests in flight but keeps accepting new "
            f"ones meanwhile, with {bound}")
    if stop.timeout_s is None:
        return f"{what}, and the manager never kills it: under a steady load the stop may not end"
    return f"{what}, until the stop timeout ends it with SIGKILL: the requests in flight then are cut"


def stop_notes(stop: StopPolicy | None, running: Running | None, version: str | None = None,
               drained: bool = False) -> list[str]:
    """The plan's lines about stopping the server that runs (none when nothing runs); ``drained``: the gateway
    steps leave no request in flight before the stop."""
    if stop is None or running is None:
        return []
    try:
        shutdown: Shutdown | None = shutdown_of(version) if version else None
    except KeyError:
        shutdown = None
    if not stop.term_to:
        line = f"stop: {stop.words}; what it does to the requests in flight is not known for this kill mode"
    else:
        line = f"stop: {stop.words}; {_effect(stop, shutdown)}"
    if drained:
        line += " (the gateway steps before it leave none in flight)"
    notes = [line]
    env = running.info.env or {}
    if DRAIN in env and (shutdown is None or not shutdown.reads_drain_bound):
        notes.append(f"{DRAIN}={env[DRAIN]} is set, but SGLang {version or ''} does not read it: it bounds nothing"
                     .replace("  ", " "))
    if shutdown is not None and shutdown.drained_exit == "sigkill" and stop.term_to == "main":
        notes.append(f"SGLang {shutdown.version} ends a finished drain by SIGKILL to itself: systemd then shows the "
                     f"unit failed (signal 9) though it was told to stop")
    return notes
