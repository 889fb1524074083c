"""A feed source of the serving figures only ``/metrics`` has: requests served and aborted (counters, so a rate),
retracted requests, and the queue and pools as the scheduler last logged them; for an engine whose counters
give them (vLLM), accept length and rate over the interval between two scrapes.

Which families are read, and how, is the host's engine's (``dashboard(engine).metrics_reader``, the figures'
names in mtptui.engines.polls): SGLang's ``/metrics`` exists only with ``--enable-metrics`` and its families
depend on the release; vLLM's is always on. It is read through the host session (an SSH tunnel for a remote
host), like the server's own word about itself. A server without it is said once, then asked again only slowly.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Awaitable, Callable

from mtptui.engines.registry import dashboard
from mtptui.errors import UserError
from mtptui.engines.sglang.host_polls import FAMILIES, exported, figures

if TYPE_CHECKING:
    import httpx

    from mtptui.ops.connect import HostSession

__all__ = ["FAMILIES", "MetricsSource", "ServerMetrics", "exported", "parse"]
MAX_BYTES = 4 << 20  # an engine's exposition is some tens of KB


@dataclass(frozen=True)
class ServerMetrics:
    """One scrape (``t``: monotonic seconds), or why there is none (``missing``)."""

    t: float
    figures: dict[str, float | None]
    missing: str | None = None

    def get(self, name: str) -> float | None:
        return self.figures.get(name)


def parse(text: str, families: dict[str, str], t: float) -> ServerMetrics:
    """SGLang's figures of a Prometheus text exposition (mtptui.engines.sglang.host_polls.figures) as one scrape."""
    return ServerMetrics(t, figures(text, families))


class MetricsSource:
    """Scrapes ``/metrics`` every ``every_s`` through ``session`` (``api_url()``), emitting ``ServerMetrics``
    (read by the host's engine; ``version``: the release the host file names, None when it names none)."""

    def __init__(self, session: HostSession, version: str | None, *, every_s: float = 5.0,
                 missing_every_s: float = 15.0, timeout_s: float = 3.0) -> None:
        self.session = session
        view = dashboard(session.host.engine)
        self.read, self.off = view.metrics_reader(version), view.metrics_off
        self.every_s, self.missing_every_s, self.timeout_s = every_s, missing_every_s, timeout_s

    async def __call__(self, emit: Callable[[ServerMetrics], Awaitable[None]]) -> None:
        said_missing = False
        while True:
            scrape = await self.scrape()
            if scrape.missing is None or not said_missing:
                await emit(scrape)
            said_missing = scrape.missing is not None
            await asyncio.sleep(self.missing_every_s if said_missing else self.every_s)

    async def scrape(self) -> ServerMetrics:
        import httpx

        now = time.monotonic()
        try:
            url = await self.session.api_url()
            async with httpx.AsyncClient(timeout=self.timeout_s, trust_env=False) as client:
                status, body = await _bounded_get(client, url.rstrip("/") + "/metrics")
        except (UserError, httpx.HTTPError) as exc:
            return ServerMetrics(now, {}, f"/metrics cannot be read: {exc or type(exc).__name__}")
        if status != 200:
            return ServerMetrics(now, {}, f"/metrics answered HTTP {status}" + (f" ({self.off})" if self.off else ""))
        if body is None:
            return ServerMetrics(now, {}, f"/metrics is larger than {MAX_BYTES >> 20} MiB: not read")
        try:
            return ServerMetrics(now, self.read(body.decode("utf-8", "replace")))
        except ValueError:
            return ServerMetrics(now, {}, "/metrics is not a Prometheus exposition")


async def _bounded_get(client: httpx.AsyncClient, url: str) -> tuple[int, bytes | None]:
    """(status, body), the body None when it is over MAX_BYTES (a host may answer anything)."""
    async with client.stream("GET", url) as response:
        body = b""
        async for chunk in response.aiter_bytes():
            body += chunk
            if len(body) > MAX_BYTES:
                return response.status_code, None
        return response.status_code, body
