"""The server's own acceptance during a run, from its decode-log lines (``accept len: x.xx``), read while it runs.

SGLang logs a decode line every ``--decode-log-interval`` steps (40) with the accept length over those steps;
the releases that send no per-request acceptance (0.5.12.post1: no ``sglext.spec_tokens_details``, no verify
counter) still write it. ``DecodeLog`` follows the log through the host session (an SSH channel for a remote
host), parses it with mtptui's parser and books each decode line with the time it arrived here
(``time.perf_counter()``), so a run can take the lines that arrived inside its measured window.

The run's figure weights each line by its ``#running-req`` (its request-steps over the same interval), which
approaches Σ accepted tokens / Σ verify steps over the window; lines are server-wide, so anything else the
server decodes meanwhile is in them too.

The lines also give the run's *log rate*: each steady line's gen throughput per running request
(``mtptui.engines.sglang.state.steady``), the very figure the dashboard's health line reads live, so a live figure is
compared with a bench baseline measured the same way.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass
from time import perf_counter
from typing import Any

from mtptui.engines.sglang.state.steady import SteadyLines, per_request

DRAIN_S = 0.6  # after the window: lines written before its end are still on their way (file readers poll 0.1-0.2 s)


@dataclass(frozen=True)
class DecodeLine:
    """One decode line: when it arrived, its accept length (None without speculation), its running requests,
    and its gen throughput per request when the line measured decoding only (``steady``)."""

    t: float
    accept_len: float | None
    running: int
    rate: float | None = None


class DecodeLog:
    """Follows a server log (a ``LogFollower``) in the background and keeps its decode lines' accept lengths."""

    def __init__(self, follower: Any) -> None:
        self.follower = follower
        self.lines: list[DecodeLine] = []
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        self._task = asyncio.create_task(self._read())

    async def _read(self) -> None:
        from mtptui.engines.sglang.logparse import LogParser

        parser, steady = LogParser(), SteadyLines()
        async for chunk in self.follower.chunks():
            t = perf_counter()
            for event in parser.feed(chunk.data):
                if event.kind == "prefill":
                    steady.prefill(event.fields)
                elif event.kind == "decode" and event.get("running_req"):
                    self.lines.append(self._line(t, event.fields, steady.decode(event.fields)))

    @staticmethod
    def _line(t: float, fields: dict[str, Any], steady: bool) -> DecodeLine:
        accept = fields.get("accept_len")
        return DecodeLine(t, None if accept is None else float(accept), max(1, int(fields["running_req"])),
                          per_request(fields) if steady else None)

    async def drain(self) -> None:
        """Give the lines written before now the time to arrive."""
        await asyncio.sleep(DRAIN_S)

    async def stop(self) -> None:
        await self.follower.stop()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task

    def between(self, start: float, end: float) -> list[DecodeLine]:
        return [line for line in self.lines if start <= line.t <= end]

    def accept_len(self, start: float, end: float) -> float | None:
        """The accept length of the lines that arrived in [start, end], weighted by running requests."""
        lines = [line for line in self.between(start, end) if line.accept_len is not None]
        weight = sum(line.running for line in lines)
        return sum((line.accept_len or 0.0) * line.running for line in lines) / weight if weight else None

    def rates(self, start: float, end: float) -> list[float]:
        """Gen throughput per request of the steady lines that arrived in [start, end] (the log rate)."""
        return [line.rate for line in self.between(start, end) if line.rate is not None]
