"""The state of a vLLM server after its log: a reducer over the vLLM `parse-log` events.

Startup phases are SGLang's words (mtptui.engines.sglang.state.phases): the banner or the `non-default args` line opens
a startup, weight loading, KV cache allocation, graph capture, the engine's init and the listen line step
through them, `Application startup complete.` makes it ready, and a fatal error (EngineCore or a worker failed
to start, a dead engine) makes it crashed. Serving figures come from the periodic engine-stats and
speculative-decoding lines; a line without a timestamp (uvicorn's, tqdm's) takes the last one seen.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

from mtptui.engines.vllm.logparse.events import VllmEvent
from mtptui.engines.vllm.state.memory import MemoryTable
from mtptui.engines.sglang.state import phases

FATAL = ("EngineCore failed to start", "WorkerProc failed", "EngineCore encountered a fatal error",
         "Engine core initialization failed", "EngineDeadError", "vllm.v1.engine.exceptions.EngineDeadError",
         "torch.OutOfMemoryError", "torch.cuda.OutOfMemoryError")
STAGE_OF_KIND = {"weight_load_begin": phases.LOADING_WEIGHTS, "shard_progress": phases.LOADING_WEIGHTS,
                 "weight_load_end": phases.LOADING_WEIGHTS, "kv_cache": phases.ALLOCATING_POOLS,
                 "graph_capture_progress": phases.CAPTURING_GRAPHS, "graph_capture_end": phases.CAPTURING_GRAPHS,
                 "engine_init_end": phases.WARMING_UP, "server_listen": phases.WARMING_UP}


def is_fatal(event: VllmEvent) -> bool:
    """An error that means the server is down (not, say, one failed request)."""
    texts = (event.fields["message"] or "", event.fields.get("cause") or "")
    return any(text.startswith(FATAL) for text in texts)


@dataclass
class Startup:
    """One startup sequence: replaced as a whole when the server starts again."""

    started_at: str | None = None
    ready_at: str | None = None
    version: str | None = None
    model: str | None = None
    architecture: str | None = None
    launch_args: dict[str, Any] | None = None
    engine_config: dict[str, Any] | None = None
    max_model_len: int | None = None
    shards: dict[str, Any] | None = None
    graph_capture: dict[str, Any] | None = None
    init_s: float | None = None
    url: str | None = None
    memory: MemoryTable = field(default_factory=MemoryTable)
    cause: dict[str, Any] | None = None  # the first error with a root-cause line: why this run failed
    routes: dict[str, list[str]] = field(default_factory=dict)


class VllmState:
    """Feed events with `apply`; `summary.state_to_dict` gives `parse-log --summary`'s object."""

    def __init__(self, history: int = 2000, *, own_start_only: bool = False) -> None:
        # own_start_only: the log is watched from just before a (re)start, so until a startup opens, its lines
        # are the previous server's: its shutdown may log EngineDeadError as systemd stops it (not this one's
        # crash), and its periodic engine stats may come before the SIGTERM (not this one serving: it may still
        # be importing, with nothing listening on its port)
        self.own_start_only = own_start_only
        self.phase = phases.STARTING
        self.startups = 0
        self.startup = Startup()
        self.last_ts: str | None = None
        self.http_status: dict[int, int] = {}
        self.stats: dict[str, Any] | None = None
        self.spec: dict[str, Any] | None = None
        self.series: deque[list[Any]] = deque(maxlen=history)
        self.busy_total, self.busy_count, self.stats_count = 0.0, 0, 0
        self.accepted_tokens, self.drafted_tokens, self.spec_count = 0, 0, 0
        self.warning_count, self.last_warning = 0, None
        self.last_error: dict[str, Any] | None = None

    def apply(self, event: VllmEvent) -> None:
        self.last_ts = event.ts or self.last_ts
        if event.kind in ("banner", "launch_args") and self._opens_startup(event):
            self._begin_startup()
        stage = STAGE_OF_KIND.get(event.kind)
        if stage is not None and self.phase not in phases.SETTLED:
            self.phase = stage
        handler = getattr(self, f"_on_{event.kind}", None)
        if handler is not None:
            handler(event)
        self.startup.memory.apply(event)

    def _opens_startup(self, event: VllmEvent) -> bool:
        if self.phase == phases.STARTING and not self.startups:
            return True
        opener = event.kind == "launch_args" or event.fields.get("version") is not None
        return opener and (self.phase in phases.SETTLED or self.startup.launch_args is not None)

    def _begin_startup(self) -> None:
        self.startup = Startup(started_at=self.last_ts)
        self.startups += 1
        self.phase = phases.LOADING_WEIGHTS

    def _on_banner(self, event: VllmEvent) -> None:
        self.startup.version = event.fields["version"] or self.startup.version
        self.startup.model = event.fields["model"] or self.startup.model

    def _on_launch_args(self, event: VllmEvent) -> None:
        self.startup.launch_args = event.fields["args"]

    def _on_architecture(self, event: VllmEvent) -> None:
        self.startup.architecture = event.fields["architecture"]

    def _on_max_model_len(self, event: VllmEvent) -> None:
        self.startup.max_model_len = event.fields["tokens"]

    def _on_engine_config(self, event: VllmEvent) -> None:
        self.startup.engine_config = dict(event.fields)
        self.startup.version = self.startup.version or event.fields["version"]

    def _on_shard_progress(self, event: VllmEvent) -> None:
        self.startup.shards = dict(event.fields)

    def _on_graph_capture_progress(self, event: VllmEvent) -> None:
        self.startup.graph_capture = dict(event.fields)

    def _on_engine_init_end(self, event: VllmEvent) -> None:
        self.startup.init_s = event.fields["elapsed_s"]

    def _on_server_listen(self, event: VllmEvent) -> None:
        self.startup.url = event.fields["url"]

    def _on_route(self, event: VllmEvent) -> None:
        self.startup.routes.setdefault(event.fields["path"], []).extend(event.fields["methods"])

    def _on_server_ready(self, event: VllmEvent) -> None:
        self.phase = phases.READY
        self.startup.ready_at = event.ts or self.last_ts

    def _on_http_access(self, event: VllmEvent) -> None:
        status = event.fields["status"]
        self.http_status[status] = self.http_status.get(status, 0) + 1

    def _on_engine_stats(self, event: VllmEvent) -> None:
        self.stats = dict(event.fields)
        self.stats_count += 1
        if self.phase == phases.STARTING and not self.own_start_only:
            self.phase = phases.READY  # the log began while the server was already serving
        throughput = event.fields["gen_throughput"]
        if throughput:
            self.busy_total += throughput
            self.busy_count += 1
        self.series.append([event.ts, None, None, throughput, event.fields["running_req"]])

    def _on_spec_decode(self, event: VllmEvent) -> None:
        self.spec = dict(event.fields)
        self.spec_count += 1
        self.accepted_tokens += event.fields["accepted_tokens"] or 0
        self.drafted_tokens += event.fields["drafted_tokens"] or 0
        if self.series and self.series[-1][0] == event.ts:
            self.series[-1][1:3] = [event.fields["accept_len"], event.fields["accept_rate"]]

    def _on_warning(self, event: VllmEvent) -> None:
        self.warning_count += 1
        self.last_warning = event.fields["message"]

    def _on_error(self, event: VllmEvent) -> None:
        fields = event.fields
        self.last_error = {"message": fields["message"], "traceback": fields["traceback"], "ts": event.ts,
                           "ranks": event.ranks, "process": event.process, "last_frame": fields["last_frame"],
                           "truncated": bool(fields["truncated"]), "cause": fields["cause"]}
        if fields["cause"] and self.startup.cause is None:
            self.startup.cause = self.last_error
        if is_fatal(event) and (self.startups or not self.own_start_only):
            self.phase = phases.CRASHED
