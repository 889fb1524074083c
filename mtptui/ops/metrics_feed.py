"""A feed source of the serving figures only ``/metrics`` has: requests served and aborted (counters, so a rate),
retracted requests, and the queue and pools as the scheduler last logged them.

``/metrics`` exists only with ``--enable-metrics``; which families a release exports is
``mtptui.sglang.surface_metrics`` (asked per version, so a figure the release lacks is None, not 0). It is read
through the host session (an SSH tunnel for a remote host), like /server_info, and parsed with either prefix
(``sglang:`` or the router's ``sglang_``). A server without it is said once, then asked again only slowly.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Awaitable, Callable

from mtptui.errors import UserError

if TYPE_CHECKING:
    import httpx

    from mtptui.ops.connect import HostSession

FAMILIES = {"requests": "sglang:num_requests_total", "aborted": "sglang:num_aborted_requests_total",
            "retracted": "sglang:num_retracted_reqs", "queue": "sglang:num_queue_reqs",
            "running": "sglang:num_running_reqs", "token_usage": "sglang:token_usage",
            "full_token_usage": "sglang:full_token_usage", "mamba_usage": "sglang:mamba_usage"}
MAX_BYTES = 4 << 20  # SGLang's exposition is some tens of KB
SUMMED = ("requests", "aborted", "retracted", "queue", "running")  # over ranks and label sets; usage: the max


@dataclass(frozen=True)
class ServerMetrics:
    """One scrape (``t``: monotonic seconds), or why there is none (``missing``)."""

    t: float
    figures: dict[str, float | None]
    missing: str | None = None

    def get(self, name: str) -> float | None:
        return self.figures.get(name)


def exported(version: str | None) -> dict[str, str]:
    """The families of FAMILIES this release exports (all of them for a release mtptui does not know)."""
    from mtptui.sglang.surface_metrics import METRICS

    known = METRICS.get(version or "")
    if known is None:
        return dict(FAMILIES)
    names = {metric.name for metric in known}
    return {key: name for key, name in FAMILIES.items() if name in names}


def parse(text: str, families: dict[str, str], t: float) -> ServerMetrics:
    """The figures of a Prometheus text exposition; a family the release exports but the text lacks is None."""
    from mtptui.sglang.exposition import family_values

    found = family_values(text, families.values())
    figures: dict[str, float | None] = {}
    for key, name in families.items():
        values = found.get(name)
        figures[key] = None if values is None else sum(values) if key in SUMMED else max(0.0, *values)
    return ServerMetrics(t, figures)


class MetricsSource:
    """Scrapes ``/metrics`` every ``every_s`` through ``session`` (``api_url()``), emitting ``ServerMetrics``."""

    def __init__(self, session: HostSession, version: str | None, *, every_s: float = 5.0,
                 missing_every_s: float = 15.0, timeout_s: float = 3.0) -> None:
        self.session = session
        self.families = exported(version)
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
            return ServerMetrics(now, {}, f"/metrics answered HTTP {status} (no --enable-metrics?)")
        if body is None:
            return ServerMetrics(now, {}, f"/metrics is larger than {MAX_BYTES >> 20} MiB: not read")
        try:
            return parse(body.decode("utf-8", "replace"), self.families, now)
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
