"""Startup phases and which event kinds move a starting server into which phase."""

from __future__ import annotations

STARTING = "starting"
LOADING_WEIGHTS = "loading_weights"
ALLOCATING_POOLS = "allocating_pools"
CAPTURING_GRAPHS = "capturing_graphs"
WARMING_UP = "warming_up"
READY = "ready"
CRASHED = "crashed"

PHASES = (STARTING, LOADING_WEIGHTS, ALLOCATING_POOLS, CAPTURING_GRAPHS, WARMING_UP, READY, CRASHED)

#: The phase a startup line shows the server is in (a draft model may load after the target's graphs: phases
#: can step back within one startup; they never leave `ready`/`crashed` except through a new startup).
STAGE_OF_KIND = {
    "weight_load_begin": LOADING_WEIGHTS,
    "shard_progress": LOADING_WEIGHTS,
    "weight_load_end": LOADING_WEIGHTS,
    "kv_cache": ALLOCATING_POOLS,
    "mamba_cache": ALLOCATING_POOLS,
    "memory_pool_end": ALLOCATING_POOLS,
    "graph_capture_begin": CAPTURING_GRAPHS,
    "graph_capture_progress": CAPTURING_GRAPHS,
    "graph_capture_end": CAPTURING_GRAPHS,
    "capacity": WARMING_UP,
}

#: Kinds that open a new startup sequence when they arrive after `ready` or `crashed` (a restart).
NEW_STARTUP_KINDS = frozenset({"weight_load_begin", "shard_progress"})

SETTLED = frozenset({READY, CRASHED})


STOP_WARNING = "SIGTERM received."
STOPPED_WITH_ITS_GROUP = "SIGQUIT received."


def is_fatal(message: str, stopping: bool = False) -> bool:
    """Whether an error line means the server is down (a failed health check alone may recover). A server told
    to stop (SIGTERM) whose process group was stopped with it logs its running-phase SIGQUIT line as it ends
    (mtptui.engines.sglang.surface_shutdown): that is the stop, not a crash."""
    if stopping and message.startswith(STOPPED_WITH_ITS_GROUP):
        return False
    return not message.startswith("Health check failed")
