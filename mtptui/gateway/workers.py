"""A gateway's workers as mtptui reads them, from any router generation's worker list, shape checked.

SMG's ``GET /workers`` gives ``{"workers": [{"id", "url", "model_id", "status", "is_healthy", "load", "labels",
"engine_load", ...}], "total", "stats"}``; sglang-router 0.2.2-0.2.x the same list without ``id`` and ``status``;
0.2.1 and older only ``GET /list_workers`` -> ``{"urls": [...]}``. A field of the wrong type is left out (None),
a list or an entry of the wrong shape is a ``GatewayError``. Strings are clipped: a gateway's words are shown,
never kept whole.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from mtptui.gateway.http import GatewayError

STATUSES = ("pending", "ready", "not_ready", "failed", "draining")
CLIP = 500
MAX_LABELS = 100


@dataclass(frozen=True)
class Worker:
    """One worker of a gateway. ``load`` is the requests the gateway has in flight to it; ``running`` and
    ``waiting`` the server's own counts where the gateway's load monitor reported them (``engine_load``)."""

    url: str
    id: str | None = None
    status: str | None = None
    healthy: bool | None = None
    load: int | None = None
    model_id: str | None = None
    runtime: str | None = None
    labels: Mapping[str, str] = field(default_factory=dict)
    running: int | None = None
    waiting: int | None = None

    @property
    def version(self) -> str | None:
        """The SGLang release the worker reported to the gateway (its ``version`` label)."""
        return self.labels.get("version")

    @property
    def ready(self) -> bool:
        return self.status == "ready" and self.healthy is not False

    def describe(self) -> str:
        """``http://10.0.0.5:30000 ready, healthy, load 0``: what a line about the worker says."""
        parts = [self.status or "status unknown"]
        if self.healthy is not None:
            parts.append("healthy" if self.healthy else "unhealthy")
        if self.load is not None:
            parts.append(f"load {self.load}")
        return f"{self.url} {', '.join(parts)}"


def _text(value: Any) -> str | None:
    return value[:CLIP] if isinstance(value, str) else None


def _count(value: Any) -> int | None:
    """A non-negative integer (JSON true is not a count)."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _labels(value: Any) -> dict[str, str]:
    if not isinstance(value, dict):
        return {}
    pairs = [(k[:CLIP], v[:CLIP]) for k, v in value.items() if isinstance(k, str) and isinstance(v, str)]
    return dict(pairs[:MAX_LABELS])


def load_counts(value: Any) -> tuple[int | None, int | None]:
    """(running, waiting) from an ``engine_load`` object (the server's own /v1/loads aggregate)."""
    aggregate = value.get("aggregate") if isinstance(value, dict) else None
    if not isinstance(aggregate, dict):
        return None, None
    return _count(aggregate.get("total_running_reqs")), _count(aggregate.get("total_waiting_reqs"))


def parse_worker(entry: Any, label: str) -> Worker:
    """One entry of a worker list (or the answer of ``GET /workers/{id}``)."""
    url = _text(entry.get("url")) if isinstance(entry, dict) else None
    if not url:
        raise GatewayError(f"the gateway at {label} listed a worker without a URL: is it an SGLang gateway?")
    status = _text(entry.get("status"))
    healthy = entry.get("is_healthy")
    running, waiting = load_counts(entry.get("engine_load"))
    return Worker(url=url, id=_text(entry.get("id")), status=status if status in STATUSES else None,
                  healthy=healthy if isinstance(healthy, bool) else None, load=_count(entry.get("load")),
                  model_id=_text(entry.get("model_id")), runtime=_text(entry.get("runtime_type")),
                  labels=_labels(entry.get("labels")), running=running, waiting=waiting)


def parse_workers(body: Any, label: str) -> list[Worker]:
    """The ``{"workers": [...]}`` of SMG and router 0.2.x."""
    entries = body.get("workers") if isinstance(body, dict) else None
    if not isinstance(entries, list):
        raise GatewayError(f"the gateway at {label} answered the worker list without a list of workers: "
                           f"is it an SGLang gateway?")
    return [parse_worker(entry, label) for entry in entries]


def parse_urls(body: Any, label: str) -> list[Worker]:
    """The ``{"urls": [...]}`` of router 0.2.1 and older: URLs only."""
    urls = body.get("urls") if isinstance(body, dict) else None
    if not isinstance(urls, list) or not all(isinstance(url, str) for url in urls):
        raise GatewayError(f"the gateway at {label} answered /list_workers without a list of URLs")
    return [Worker(url=url[:CLIP]) for url in urls]
