"""vLLM's log read into the dashboard's events: the shared state (mtptui.engines.sglang.state.ServerState) and the panes
read SGLang's contract kinds, so a vLLM line becomes the kind that means the same thing there.

- `Engine 000: ...` and the `SpecDecoding metrics: ...` line vLLM prints right after it (one interval) become
  one `decode` event: gen tok/s, running, waiting, KV usage, accept length and rate, and `per_position` (a
  field SGLang's decode line has not; panes show it where present), and `busy` (the interval generated tokens:
  vLLM's `Running` is the count at the line's moment, 0 when the interval's requests all finished before it).
  The stats line is held back until the next
  line says whether speculation figures follow (`holding`; a quiet stream releases it, as a held-back error).
- the engine's launch (`Initializing a V1 LLM engine ... speculative_config=SpeculativeConfig(method=...,
  num_spec_tokens=K)`) becomes `server_args`: algorithm = the method, steps = draft tokens = K (vLLM drafts a
  chain of K tokens; no top-k); a `Current speculative depth` other than the running one becomes `spec_switch`.
- the worker's `Available KV cache memory` is the rank's `kv_cache`; the engine core's KV cache size and
  maximum concurrency, with the launch's `max_num_seqs`, are `capacity` (with `max_concurrency` added), put on
  the first worker rank's memory row; `init engine ... took` says it again (the engine warms up then).
- `Model loading took X GiB` keeps the weights on the rank, named by the resolved architecture; the
  memory-less `Loading weights took` line is left out (one weight load per rank: a second would read as a
  draft model's).
- an error carries `fatal` (whether it means the server is down: vLLM's own words for that, not every ERROR
  line) and its root-cause line `cause`; the banner's version and model are `server_version` (the header's).

Every other shared kind (shards, graphs, ready, access lines, warnings) passes as it is, with the last timestamp
seen where its line has none (uvicorn's `Application startup complete.`: the end of the startup); vLLM's own kinds that
no pane reads (routes, listen, architecture) are left out.
"""

from __future__ import annotations

from typing import Any, Iterator

from mtptui.engines.vllm.logparse import LogParser, VllmEvent
from mtptui.engines.vllm.state.model import is_fatal
from mtptui.engines.sglang.logparse.events import Event, blank_fields

PASSED = frozenset({"shard_progress", "weight_load_begin", "graph_capture_progress", "graph_capture_end",
                    "server_ready", "http_access", "warning"})


class Translator:
    """vLLM events in, dashboard events out; remembers what later lines need (architecture, launch, capacity)."""

    def __init__(self) -> None:
        self.held: VllmEvent | None = None  # an engine-stats line waiting for its SpecDecoding line
        self.architecture: str | None = None
        self.max_num_seqs: int | None = None
        self.max_model_len: int | None = None
        self.capacity: dict[str, Any] | None = None
        self.worker_ranks: dict[str, int] | None = None  # the first rank that logged memory
        self.live_depth: int | None = None
        self.last_ts: str | None = None  # for the lines vLLM prints without one (uvicorn's, tqdm's)

    def translate(self, events: list[Any]) -> list[Event]:
        """The dashboard events of one line's vLLM events (a held stats line goes out unless this line is its
        SpecDecoding line)."""
        out: list[Event] = []
        if self.held is not None and not any(event.kind == "spec_decode" for event in events):
            self.release(out)
        for event in events:
            self.last_ts = event.ts or self.last_ts
            handler = getattr(self, f"_{event.kind}", None)
            if handler is not None:
                handler(event, out)
            elif event.kind in PASSED:
                out.append(event if event.ts else _event(event.kind, event, event.fields, self.last_ts))
        return out

    def release(self, out: list[Event]) -> list[Event]:
        """The held engine-stats line as a decode event without speculation figures."""
        if self.held is not None:
            out.append(_decode(self.held, None))
            self.held = None
        return out

    def _banner(self, event: VllmEvent, out: list[Event]) -> None:
        out.append(_event("server_version", event, {"version": event.fields["version"],
                                                    "model": event.fields["model"]}))
        if event.fields["version"] is not None:  # a new server: what the run before launched is not its own
            self.capacity, self.live_depth = None, None

    def _launch_args(self, event: VllmEvent, out: list[Event]) -> None:
        args = event.fields["args"] or {}
        self.max_num_seqs = args.get("max_num_seqs")

    def _architecture(self, event: VllmEvent, out: list[Event]) -> None:
        self.architecture = event.fields["architecture"]

    def _max_model_len(self, event: VllmEvent, out: list[Event]) -> None:
        self.max_model_len = event.fields["tokens"]

    def _engine_config(self, event: VllmEvent, out: list[Event]) -> None:
        fields = event.fields
        out.append(_event("server_version", event, {"version": fields["version"], "model": None}))
        method, tokens = fields["speculative_method"], fields["num_speculative_tokens"]
        self.live_depth = tokens
        out.append(_event("server_args", event, {"algorithm": method, "steps": tokens, "topk": None,
                                                 "draft_tokens": tokens, "adaptive": False}))

    def _weight_load_end(self, event: VllmEvent, out: list[Event]) -> None:
        if event.fields["mem_usage_gb"] is None:
            return
        self._worker(event)
        out.append(_event("weight_load_end", event, {**event.fields, "model_type": self.architecture}))

    def _kv_cache(self, event: VllmEvent, out: list[Event]) -> None:
        fields = event.fields
        if fields["kv_size_gb"] is not None:
            self._worker(event)
            out.append(_event("kv_cache", event, {name: fields[name] for name in blank_fields("kv_cache")}))
            return
        capacity = self.capacity or {**blank_fields("capacity"), "max_concurrency": None}
        if fields["tokens"] is not None:
            capacity["max_total_num_tokens"] = fields["tokens"]
        if fields["max_concurrency"] is not None:
            capacity["max_concurrency"] = fields["max_concurrency"]
        capacity["context_len"] = fields["context_len"] or capacity["context_len"] or self.max_model_len
        capacity["max_running_requests"] = self.max_num_seqs
        self.capacity = capacity
        out.append(self._capacity_event(event))

    def _engine_init_end(self, event: VllmEvent, out: list[Event]) -> None:
        if self.capacity is not None:
            out.append(self._capacity_event(event))

    def _capacity_event(self, event: VllmEvent) -> Event:
        assert self.capacity is not None
        return Event("capacity", event.ts, dict(self.worker_ranks or {}), event.line, dict(self.capacity))

    def _worker(self, event: VllmEvent) -> None:
        if self.worker_ranks is None:
            self.worker_ranks = dict(event.ranks)

    def _engine_stats(self, event: VllmEvent, out: list[Event]) -> None:
        self.held = event

    def _spec_decode(self, event: VllmEvent, out: list[Event]) -> None:
        if self.held is not None:
            out.append(_decode(self.held, event.fields))
            self.held = None
        depth = event.fields["depth"]
        if depth is not None and self.live_depth is not None and depth != self.live_depth:
            out.append(_event("spec_switch", event, {"from_steps": self.live_depth, "to_steps": depth,
                                                     "from_draft_tokens": self.live_depth, "to_draft_tokens": depth}))
            self.live_depth = depth

    def _error(self, event: VllmEvent, out: list[Event]) -> None:
        out.append(_event("error", event, {**event.fields, "fatal": is_fatal(event)}))


def _event(kind: str, source: Event, fields: dict[str, Any], ts: str | None = None) -> Event:
    return Event(kind, source.ts or ts, dict(source.ranks), source.line, fields)


def _decode(stats: VllmEvent, spec: dict[str, Any] | None) -> Event:
    fields = stats.fields
    spec = spec or {}
    return _event("decode", stats, {
        **blank_fields("decode"), "running_req": fields["running_req"], "queue_req": fields["queue_req"],
        "token_usage": fields["token_usage"], "gen_throughput": fields["gen_throughput"],
        "accept_len": spec.get("accept_len"), "accept_rate": spec.get("accept_rate"),
        "per_position": spec.get("per_position"), "busy": bool(fields["gen_throughput"])})


class DashboardParser:
    """vLLM's log parser with the translation on top: the pump's parser (mtptui.ui.pump.Parser) for a vLLM host."""

    def __init__(self) -> None:
        self.parser = LogParser()
        self.translator = Translator()

    @property
    def in_error(self) -> bool:
        """Whether an error is held back for its traceback (the log view colours its lines so)."""
        return self.parser.holding

    @property
    def holding(self) -> bool:
        """Whether anything is held back for a later line: an error, or an engine-stats line."""
        return self.parser.holding or self.translator.held is not None

    def feed(self, data: bytes | str) -> list[Event]:
        return [event for _, events in self.feed_lines(data) for event in events]

    def close(self) -> list[Event]:
        out = [event for _, events in self.parser.close_lines() for event in self.translator.translate(events)]
        return self.translator.release(out)

    def feed_lines(self, data: bytes | str) -> Iterator[tuple[str, list[Event]]]:
        """Each complete line with the dashboard events it completes (as the vLLM parser's ``feed_lines``)."""
        for text, events in self.parser.feed_lines(data):
            yield text, self.translator.translate(events)

    def flush_pending(self, out: list[Any]) -> list[Any]:
        out.extend(self.translator.release(self.translator.translate(self.parser.flush_pending([]))))
        return out


def parse_text(text: str | bytes) -> list[Event]:
    """The dashboard's events of a whole vLLM log."""
    parser = DashboardParser()
    return parser.feed(text) + parser.close()
