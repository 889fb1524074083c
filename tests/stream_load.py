"""A steady streamed load through a URL (a server or the gateway in front of it) that counts every request.

    with StreamLoad(url, clients=4, max_tokens=48) as load:
        ...                                  # restart something meanwhile
    tally = load.tally()                     # sent == whole + cut + failed, always

Each client is a thread sending one streamed chat after another, each prompt opening with its own number (a
gateway's cache-aware routing sends requests that share a prefix to one worker: the load spreads like users do).
A request is **whole** only when its stream
carried a ``finish_reason`` (stop or length) and no error event; a stream that began (HTTP 200) and ended
without one is **cut**, even when it ends with a clean ``data: [DONE]`` (the gateway ends a stream it lost that
way) or with an error event; a request that got no stream (refused, an HTTP error status, no answer) **failed**.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from dataclasses import dataclass, field

import httpx

PROMPT = "Write a red-black tree insert in C."
WHOLE_REASONS = ("stop", "length", "tool_calls")


@dataclass
class Outcome:
    """One request: how it ended, and when (``time.monotonic()``)."""

    started: float
    ended: float = 0.0
    status: int | None = None
    chunks: int = 0
    finish_reason: str | None = None
    done: bool = False  # the stream ended with data: [DONE]
    error: str | None = None  # an error event in the stream, or why there was no stream

    @property
    def kind(self) -> str:
        if self.status != 200:
            return "failed"
        if self.finish_reason in WHOLE_REASONS and self.error is None:
            return "whole"
        return "cut"


@dataclass(frozen=True)
class Tally:
    sent: int
    whole: int
    cut: int
    failed: int
    outcomes: list[Outcome] = field(default_factory=list)

    def line(self) -> str:
        return f"{self.sent} sent, {self.whole} whole, {self.cut} cut, {self.failed} failed"


def _event(line: str, outcome: Outcome) -> None:
    if line == "data: [DONE]":
        outcome.done = True
        return
    if not line.startswith("data: "):
        return
    try:
        chunk = json.loads(line[6:])
    except ValueError:
        outcome.error = outcome.error or "a chunk that is not JSON"
        return
    if isinstance(chunk, dict) and chunk.get("error"):
        outcome.error = str(chunk["error"])[:200]
        return
    outcome.chunks += 1
    for choice in chunk.get("choices") or [] if isinstance(chunk, dict) else []:
        outcome.finish_reason = choice.get("finish_reason") or outcome.finish_reason


class StreamLoad:
    """``clients`` threads streaming chats through ``url`` until ``stop`` (or the end of a ``with`` block)."""

    def __init__(self, url: str, *, clients: int = 4, max_tokens: int = 48, model: str = "default",
                 timeout_s: float = 60.0) -> None:
        self.url, self.clients, self.max_tokens, self.model, self.timeout_s = url, clients, max_tokens, model, timeout_s
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self.outcomes: list[Outcome] = []
        self._threads = [threading.Thread(target=self._client, daemon=True) for _ in range(clients)]
        self._numbers = itertools.count(1)

    def __enter__(self) -> "StreamLoad":
        for thread in self._threads:
            thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        """No new request; the ones in flight run to their end."""
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=self.timeout_s + 10)

    def tally(self, since: float = 0.0) -> Tally:
        """Every finished request that started at or after ``since``."""
        with self._lock:
            chosen = [o for o in self.outcomes if o.started >= since]
        kinds = [o.kind for o in chosen]
        return Tally(len(chosen), kinds.count("whole"), kinds.count("cut"), kinds.count("failed"), chosen)

    def _client(self) -> None:
        with httpx.Client(base_url=self.url, timeout=self.timeout_s) as client:
            while not self._stop.is_set():
                outcome = self._one(client)
                with self._lock:
                    self.outcomes.append(outcome)
                if outcome.kind == "failed":
                    time.sleep(0.1)  # a refused request is retried by the next one, not in a tight loop

    def _one(self, client: httpx.Client) -> Outcome:
        with self._lock:
            number = next(self._numbers)
        body = {"model": self.model, "messages": [{"role": "user", "content": f"Request {number}. {PROMPT}"}],
                "max_tokens": self.max_tokens, "stream": True, "ignore_eos": True}
        outcome = Outcome(started=time.monotonic())
        try:
            with client.stream("POST", "/v1/chat/completions", json=body) as response:
                outcome.status = response.status_code
                if response.status_code != 200:
                    outcome.error = f"HTTP {response.status_code}"
                else:
                    for line in response.iter_lines():
                        _event(line, outcome)
        except httpx.HTTPError as exc:
            outcome.error = f"{type(exc).__name__}: {exc}"[:200]
        outcome.ended = time.monotonic()
        return outcome


def main(argv: list[str] | None = None) -> int:
    """``python -m tests.stream_load URL STOP_FILE [--clients N] [--max-tokens N] [--model M]``: the load until
    STOP_FILE exists, then its tally as one JSON line (what a test runs inside a lab host's network namespace)."""
    import argparse
    import os
    import sys

    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("stop_file")
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--max-tokens", type=int, default=48)
    parser.add_argument("--model", default="default")
    args = parser.parse_args(argv)
    with StreamLoad(args.url, clients=args.clients, max_tokens=args.max_tokens, model=args.model) as load:
        print("started", flush=True)
        while not os.path.exists(args.stop_file):
            time.sleep(0.1)
    tally = load.tally()
    errors = sorted({o.error for o in tally.outcomes if o.kind != "whole" and o.error})[:5]
    json.dump({"sent": tally.sent, "whole": tally.whole, "cut": tally.cut, "failed": tally.failed,
               "errors": errors}, sys.stdout)
    print(flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
