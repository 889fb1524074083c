"""One benchmark run: probe the server, warm up, fire the measured requests, feed live samples, build the result.

A UI subscribes either with a callback, `await BenchRunner(config).run(on_event=post)` (the callback must return
at once, e.g. `queue.put_nowait` or Textual's `post_message`), or with `async for event in runner.events()`.
Reading tasks only timestamp and book tokens into `RateBins`; samples are made by a separate task.

With a `DecodeLog` (the server's log, followed through the host session) the run also has the server's own
decode-log lines: the accept length of releases that send no per-request figures (mtptui.bench.accept).
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field
from datetime import datetime, timezone
from time import perf_counter
from typing import Any, AsyncIterator, Callable

import httpx

from mtptui.bench.accept import AcceptEvidence, summary_fields
from mtptui.bench.chunks import Chunk
from mtptui.bench.client import ChatClient
from mtptui.bench.decodelog import DRAIN_S, DecodeLog
from mtptui.bench.events import BenchEvent, Notice, RateSample, RequestDone, RunFinished, RunStarted
from mtptui.bench.fingerprint import make_fingerprint
from mtptui.bench.live import Bin, Progress, RateBins
from mtptui.bench.load import LoadPlan, arrival_offsets, fire
from mtptui.bench.metrics import RequestMetrics, request_metrics
from mtptui.bench.metrics_poll import MetricsPoller, Scrape, accept_len_between
from mtptui.bench.patience import SILENCE_S, default_deadline
from mtptui.bench.payload import Sampling, build_payload
from mtptui.bench.prompts import PromptSet
from mtptui.bench.rate import LiveAcceptSource
from mtptui.bench.result import BenchResult, RequestResult
from mtptui.bench.server import ServerInfo, probe_server, server_accept_len
from mtptui.bench.step_cost import run_step_ms
from mtptui.bench.summary import summarize
from mtptui.bench.tokens import TokenCounter
from mtptui.bench.checks import run_warnings, usage_warnings


@dataclass(frozen=True)
class BenchConfig:
    """Everything a run needs. `target` names the host in history (defaults to the URL).

    `timeout` is the silence a request may meet, `deadline` the time it may take in all (None: the default
    for `max_tokens`), so a trickling or endless stream ends too.
    """

    url: str
    prompts: PromptSet
    plan: LoadPlan
    max_tokens: int = 512
    sampling: Sampling = Sampling()
    model: str | None = None
    target: str | None = None
    timeout: float | None = SILENCE_S
    deadline: float | None = None
    bin_s: float = 1.0
    tick_s: float = 0.25
    warmup_max_tokens: int = 32
    gpus: dict[str, Any] | None = None  # the host's GPUs for the run's rig (mtptui.remote.gpu_rig), None when unknown

    @classmethod
    def for_workload(cls, prompts: str, plan: LoadPlan, max_tokens: int, sampling: Sampling = Sampling(),
                     **more: Any) -> "BenchConfig":
        """The one way a workload becomes a run's configuration (the CLI, the bench screen and tune): the named
        prompt set (an unknown name is a UserError), the deadline for ``max_tokens`` unless ``more`` sets one."""
        from mtptui.bench.prompts import load_prompt_set

        if more.get("deadline") is None:
            more["deadline"] = default_deadline(max_tokens)
        return cls(url="", prompts=load_prompt_set(prompts), plan=plan, max_tokens=max_tokens, sampling=sampling,
                   **more)


@dataclass
class _Measured:
    """State shared by the request tasks and the sampler during the measured part of a run."""

    bins: RateBins
    progress: Progress
    results: dict[int, RequestResult] = field(default_factory=dict)
    samples: list[RateSample] = field(default_factory=list)


class BenchRunner:
    """Runs one benchmark; see the module docstring for how to follow it live."""

    def __init__(self, config: BenchConfig, *, transport: httpx.AsyncBaseTransport | None = None,
                 log: DecodeLog | None = None) -> None:
        self.config = config
        self._transport = transport
        self._log = log
        self._emit: Callable[[BenchEvent], None] = lambda event: None
        self._poller: MetricsPoller | None = None
        self._model = config.model or "default"
        self._noticed: set[str] = set()

    async def events(self) -> AsyncIterator[BenchEvent]:
        """The run's events as an async iterator; the last one is `RunFinished`. Errors are re-raised here."""
        queue: asyncio.Queue[BenchEvent | asyncio.Task[BenchResult]] = asyncio.Queue()
        task = asyncio.create_task(self.run(on_event=queue.put_nowait))
        task.add_done_callback(lambda t: queue.put_nowait(t))
        try:
            while not isinstance(item := await queue.get(), asyncio.Task):
                yield item
            item.result()
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def run(self, on_event: Callable[[BenchEvent], None] | None = None) -> BenchResult:
        """Run the benchmark and return its result; raises UserError if the server cannot be reached."""
        self._emit = on_event or (lambda event: None)
        cfg = self.config
        deadline = cfg.deadline or default_deadline(cfg.max_tokens)
        async with ChatClient(cfg.url, concurrency=cfg.plan.concurrency, timeout=cfg.timeout, deadline=deadline,
                              transport=self._transport) as client:
            server = await probe_server(client, cfg.model)
            self._model = server.request_model
            fingerprint = make_fingerprint(target=cfg.target or cfg.url, url=cfg.url, server=server,
                                           sampling=cfg.sampling, prompts=cfg.prompts, plan=cfg.plan,
                                           max_tokens=cfg.max_tokens, gpus=cfg.gpus)
            self._emit(RunStarted(cfg.url, cfg.plan.requests, cfg.plan.warmup, cfg.plan.concurrency, fingerprint))
            for note in server.notes:
                self._notice(note)
            started_at = datetime.now(timezone.utc).isoformat(timespec="seconds")
            if self._log is not None:
                await self._log.start()
            try:
                await self._warmup(client)
                result = await self._measure(client, server, fingerprint)
            finally:
                if self._log is not None:
                    await self._log.stop()
        result.started_at = started_at
        self._emit(RunFinished(result))
        return result

    def _payload(self, index: int, max_tokens: int) -> dict[str, Any]:
        prompt = self.config.prompts.cycle(index)
        return build_payload(prompt, model=self._model, max_tokens=max_tokens, sampling=self.config.sampling)

    async def _warmup(self, client: ChatClient) -> None:
        plan = self.config.plan
        max_tokens = min(self.config.max_tokens, self.config.warmup_max_tokens)

        seen: list[RequestMetrics] = []

        async def one(index: int) -> None:
            seen.append(await self._request(client, self._payload(index, max_tokens)))
            self._emit(RequestDone(index, self.config.prompts.cycle(index).name, True, seen[-1]))

        await fire(plan.warmup, plan.concurrency, [0.0] * plan.warmup, one)
        for message in usage_warnings(seen):  # tell a live view now, not after the run
            self._notice(message)

    def _notice(self, message: str) -> None:
        if message not in self._noticed:
            self._noticed.add(message)
            self._emit(Notice(message))

    async def _measure(self, client: ChatClient, server: ServerInfo, fingerprint: dict[str, Any]) -> BenchResult:
        cfg, plan = self.config, self.config.plan
        self._poller = MetricsPoller(client)
        before = await self._poller.scrape()
        await client.open_lanes(plan.concurrency)  # connection setup stays out of the measured window
        origin = perf_counter()
        state = _Measured(RateBins(origin, cfg.bin_s), Progress(total=plan.requests))
        background = [asyncio.create_task(self._sampler(state)), asyncio.create_task(self._scraper())]
        try:
            await fire(plan.requests, plan.concurrency, arrival_offsets(plan.requests, plan.rate, plan.seed),
                       lambda index: self._one(client, state, index))
            end = perf_counter()
        finally:
            for task in background:
                task.cancel()
            await asyncio.gather(*background, return_exceptions=True)
        self._book(state, state.bins.flush(end))
        after = await self._poller.scrape()
        evidence = await self._evidence(client, server, before, after, (origin, end))
        result = self._result(state, end - origin, fingerprint, server, evidence)
        if self._log is not None:  # drained by _evidence: the lines written before the end are in
            result.log_rates = self._log.rates(origin, end + DRAIN_S)
            result.summary["log_tok_s"] = sum(result.log_rates) / len(result.log_rates) if result.log_rates else None
        return result

    @staticmethod
    async def _request(client: ChatClient, payload: dict[str, Any],
                       on_chunk: Callable[[Chunk], None] | None = None) -> RequestMetrics:
        """One request's metrics; whatever goes wrong fails this request only (warm-up and measured alike)."""
        try:
            return request_metrics(await client.stream(payload, on_chunk))
        except Exception as exc:  # noqa: BLE001 - one request's bug must not end the run
            return RequestMetrics(ok=False, error=f"client error: {type(exc).__name__}")

    async def _one(self, client: ChatClient, state: _Measured, index: int) -> None:
        counter = TokenCounter()
        state.progress.in_flight += 1
        try:
            metrics = await self._request(client, self._payload(index, self.config.max_tokens),
                                          lambda chunk: state.bins.add(chunk.t, counter.step(chunk)))
        finally:
            state.progress.in_flight -= 1
        state.progress.finished += 1
        state.progress.failed += not metrics.ok
        name = self.config.prompts.cycle(index).name
        state.results[index] = RequestResult(index, name, metrics)
        self._emit(RequestDone(index, name, False, metrics))

    async def _sampler(self, state: _Measured) -> None:
        while True:
            await asyncio.sleep(self.config.tick_s)
            self._book(state, state.bins.completed(perf_counter()))

    async def _scraper(self) -> None:
        while self._poller is not None and self._poller.enabled:
            await asyncio.sleep(self.config.bin_s)
            await self._poller.scrape()

    def _live_accept(self, start: float, end: float) -> tuple[float | None, LiveAcceptSource | None]:
        """The server's newest accept length that arrived in [start, end): a decode-log line when the log is
        followed, else a gauge update. Never from counter deltas: SGLang's counters move only when a request
        finishes."""
        if self._log is not None:
            lines = [line for line in self._log.between(start, end) if line.accept_len is not None]
            return (lines[-1].accept_len, "server log") if lines else (None, None)
        gauge = self._poller.gauge_between(start, end) if self._poller is not None else []
        return (gauge[-1], "gauge") if gauge else (None, None)

    def _book(self, state: _Measured, bins: list[Bin]) -> None:
        """Turn finished bins into samples, keep them and emit them."""
        p = state.progress
        queue = self._poller.latest.queue if self._poller and self._poller.latest else None
        for b in bins:
            start = state.bins.origin + b.start
            live, source = self._live_accept(start, start + b.width)
            sample = RateSample(b.start + b.width, b.width, b.reasoning / b.width, b.content / b.width,
                                p.in_flight, p.finished, p.failed, p.total, live, queue, source)
            state.samples.append(sample)
            self._emit(sample)

    async def _evidence(self, client: ChatClient, server: ServerInfo, before: Scrape | None, after: Scrape | None,
                        window: tuple[float, float]) -> AcceptEvidence:
        """What each source says about acceptance over the measured window (``perf_counter`` times)."""
        poller, log = self._poller, self._log
        # a server whose /server_info says nothing of its launch (vLLM) speculates when its counters say so
        speculative = server.speculative or bool(before and before.speculative)
        evidence = AcceptEvidence(speculative, server.version, counters=accept_len_between(before, after),
                                  followed_log=log is not None, metrics_enabled=bool(poller and poller.enabled),
                                  gauge=poller.gauge_between(*window) if poller else [], engine=server.engine)
        if log is not None:
            await log.drain()
        if speculative and log is not None:
            evidence.log = log.accept_len(window[0], window[1] + DRAIN_S)
        if server.speculative:
            evidence.server_info = await server_accept_len(client)
        return evidence

    def _result(self, state: _Measured, duration: float, fingerprint: dict[str, Any], server: ServerInfo,
                evidence: AcceptEvidence) -> BenchResult:
        requests = [state.results[i] for i in sorted(state.results)]
        summary = summarize([r.metrics for r in requests], duration)
        evidence.sglext = summary["accept_len"]
        summary.update(summary_fields(evidence))
        full = [s.output_tok_s for s in state.samples if s.width >= self.config.bin_s * 0.999]
        summary["peak_output_tok_s"] = max(full, default=None)
        summary["step_ms"] = run_step_ms(summary)
        warnings = run_warnings(requests, server, summary)
        for message in warnings:
            self._notice(message)
        return BenchResult(fingerprint, summary, requests, state.samples, warnings)
