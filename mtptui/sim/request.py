"""One generation request inside the simulated scheduler: its token stream, outputs and server-side truth."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Iterator

from mtptui.sim.draws import StepDraws
from mtptui.sim.textgen import Piece

REASONING_KINDS = ("think_start", "reasoning", "think_end")


@dataclass
class Output:
    """What one scheduler step hands a request's HTTP stream: new tokens, and the finish when it is the last."""

    pieces: list[Piece]
    completion_tokens: int
    reasoning_tokens: int
    finish_reason: str | None = None
    matched_stop: int | None = None


@dataclass
class Request:
    """A request from arrival to finish; the timing fields are ``time.monotonic()`` seconds."""

    rid: str
    index: int
    prompt_tokens: int
    max_new_tokens: int | None
    stream: Iterator[Piece]
    eos_token_id: int
    ignore_eos: bool = False
    cached_tokens: int = 0
    health: bool = False
    streaming: bool = False
    draws: StepDraws | None = None  # None: each step drawn from the engine's generator (mtptui.sim.decode)
    arrival: float = 0.0
    outputs: asyncio.Queue[Output] = field(default_factory=asyncio.Queue)
    completion_tokens: int = 0
    reasoning_tokens: int = 0
    verify_ct: int = 0
    correct_drafts: int = 0
    histogram: list[int] = field(default_factory=list)
    itl: list[tuple[float, float, int]] = field(default_factory=list)  # (step end, seconds per token, tokens)
    prefill_start: float | None = None
    first_token_at: float | None = None
    last_token_at: float | None = None
    finish_reason: str | None = None
    matched_stop: int | None = None
    _pending: list[Piece] = field(default_factory=list)
    _steps_since_flush: int = 0

    @property
    def finished(self) -> bool:
        return self.finish_reason is not None

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def take(self, count: int) -> int:
        """Generate up to ``count`` tokens; stops at the length limit or a natural end. Returns tokens made."""
        made = 0
        while made < count and not self.finished:
            if self.max_new_tokens is not None and self.completion_tokens >= self.max_new_tokens:
                self.finish_reason = "length"
                break
            piece = next(self.stream)
            if piece.kind == "eos" and self.ignore_eos:
                continue
            made += 1
            self.completion_tokens += 1
            self.reasoning_tokens += piece.kind in REASONING_KINDS
            if piece.kind == "eos":
                self.finish_reason, self.matched_stop = "stop", self.eos_token_id
            else:
                self._pending.append(piece)
        if not self.finished and self.max_new_tokens is not None and self.completion_tokens >= self.max_new_tokens:
            self.finish_reason = "length"
        return made

    def record_verify(self, correct: int) -> None:
        self.verify_ct += 1
        self.correct_drafts += correct
        while len(self.histogram) <= correct:
            self.histogram.append(0)
        self.histogram[correct] += 1

    def flush(self, now: float, stream_interval: int = 1) -> None:
        """Send what the last steps produced (every ``stream_interval`` steps, and always the finish)."""
        self._steps_since_flush += 1
        if not self.finished and self._steps_since_flush < stream_interval:
            return
        self._steps_since_flush = 0
        if self.first_token_at is None:
            self.first_token_at = now
        self.last_token_at = now
        pieces, self._pending = self._pending, []
        self.outputs.put_nowait(Output(pieces, self.completion_tokens, self.reasoning_tokens,
                                       self.finish_reason, self.matched_stop))

    def abort(self, now: float) -> None:
        self.finish_reason = "abort"
        self.flush(now)

    def truth(self, itl: bool = False) -> dict[str, object]:
        """Server-side facts about the request, for /sim/requests (``itl``: every inter-token latency observed)."""
        decode_s = (self.last_token_at - self.first_token_at) if self.first_token_at and self.last_token_at else None
        rate = (self.completion_tokens - 1) / decode_s if decode_s and self.completion_tokens > 1 else None
        return {
            "rid": self.rid, "index": self.index, "prompt_tokens": self.prompt_tokens,
            "cached_tokens": self.cached_tokens, "completion_tokens": self.completion_tokens,
            "reasoning_tokens": self.reasoning_tokens, "verify_steps": self.verify_ct,
            "correct_drafts": self.correct_drafts,
            "accept_len": self.completion_tokens / self.verify_ct if self.verify_ct else None,
            "arrival": self.arrival, "prefill_start": self.prefill_start, "first_token": self.first_token_at,
            "last_token": self.last_token_at, "decode_tok_s": rate,
            "finish_reason": self.finish_reason, "finished": self.finished,
        } | ({"itl": [list(entry) for entry in self.itl]} if itl else {})
