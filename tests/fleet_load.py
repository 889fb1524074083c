"""Steady load on a simulated server for the fleet tests: closed-loop clients sending streaming chats, some of
them dropped after the first token (SGLang counts those as aborted requests)."""

from __future__ import annotations

import itertools
import threading

import httpx

PROMPT = [{"role": "user", "content": "Write a red-black tree insert in C."}]


class Load:
    """``clients`` threads, each sending one streaming chat after another until ``stop``."""

    def __init__(self, url: str, clients: int, max_tokens: int, abort_every: int = 0) -> None:
        self.url, self.clients, self.max_tokens, self.abort_every = url, clients, max_tokens, abort_every
        self._stop = threading.Event()
        self._count = itertools.count(1)
        self._threads = [threading.Thread(target=self._client, daemon=True) for _ in range(clients)]
        self.errors: list[str] = []

    def start(self) -> "Load":
        for thread in self._threads:
            thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=30)

    def _client(self) -> None:
        with httpx.Client(base_url=self.url, timeout=60) as client:
            while not self._stop.is_set():
                drop = bool(self.abort_every) and next(self._count) % self.abort_every == 0
                try:
                    self._one(client, drop)
                except httpx.HTTPError as exc:
                    if not self._stop.is_set():
                        self.errors.append(repr(exc))
                    return

    def _one(self, client: httpx.Client, drop: bool) -> None:
        body = {"model": "default", "messages": PROMPT, "max_tokens": self.max_tokens, "stream": True,
                "ignore_eos": True}
        chunks = 0
        with client.stream("POST", "/v1/chat/completions", json=body) as response:
            for line in response.iter_lines():
                chunks += line.startswith("data: {")
                if drop and chunks >= 4:
                    return  # closing the stream mid-way: the server aborts the request
