"""The JSON object `mtptui parse-log --summary` prints: the state after the whole input."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mtptui.engines.sglang.state.decode import Sample

if TYPE_CHECKING:
    from mtptui.engines.sglang.state.model import ServerState


def state_to_dict(state: ServerState) -> dict[str, Any]:
    startup = state.startup
    return {
        "phase": state.phase,
        "startups": state.startups,
        "started_at": startup.started_at,
        "ready_at": startup.ready_at,
        "shards": startup.shards,
        "graph_capture": startup.graph_capture,
        "memory": startup.memory.to_dict(),
        "capacity": startup.capacity,
        "steady_gen_throughput": state.steady_gen_throughput,
        "steady_gen_throughput_this_startup": state.decode.steady_gen_throughput_this_startup,
        "steady_batches": state.decode.steady_count,
        "last_accept_len": state.last_accept_len,
        "last_accept_rate": state.last_accept_rate,
        "last_decode": state.decode.last,
        "series": series_columns(state.decode.series),
        "requests": {"http": {str(code): count for code, count in sorted(state.http_status.items())},
                     "prefill": state.prefill_count, "decode": state.decode.count,
                     "finished": state.requests.finished},
        "request_speculation": state.requests.speculation(),
        "speculation": state.speculation.summary(),
        "warnings": {"count": state.warning_count, "last": state.last_warning},
        "error": state.last_error,
    }


def series_columns(samples: Any) -> dict[str, list[Any]]:
    """The time series as one list per field (what a plot wants)."""
    return {name: [sample[index] for sample in samples] for index, name in enumerate(Sample._fields)}
