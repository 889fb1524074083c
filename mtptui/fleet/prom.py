"""A small client of Prometheus's HTTP API (``/api/v1/targets``, ``/query``, ``/query_range``) over httpx.

Every failure is one sentence (a ``PromError``, exit 1): Prometheus unreachable, slow, refusing the
credentials, answering like something else, or refusing a query (its own ``errorType`` and ``error``).
Values come back as floats, with NaN and ±Inf (PromQL's "no figure") as None.
"""

from __future__ import annotations

import math
from typing import Any

from mtptui.errors import UserError
from mtptui.fleet.settings import Auth

TIMEOUT_S = 10.0
Labels = dict[str, str]


class PromError(UserError):
    """Prometheus could not give what was asked."""


def number(text: Any) -> float | None:
    """A sample value as Prometheus sends it (a string); NaN and infinities are no figure."""
    try:
        value = float(text)
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) else None


class Prometheus:
    """One Prometheus server; use as ``async with`` (or call ``close``)."""

    def __init__(self, url: str, auth: Auth = Auth(), timeout: float = TIMEOUT_S) -> None:
        import httpx

        self.url = url
        headers = {"Authorization": f"Bearer {auth.bearer_token}"} if auth.bearer_token else {}
        basic = (auth.username, auth.password or "") if auth.username else None
        self._client = httpx.AsyncClient(base_url=url, headers=headers, auth=basic, timeout=timeout)

    async def __aenter__(self) -> "Prometheus":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        await self._client.aclose()

    async def targets(self) -> list[dict[str, Any]]:
        """The active targets, each as Prometheus describes it (labels, health, lastScrape, lastError, ...)."""
        data = await self._get("/api/v1/targets", {"state": "active"}, "the target list")
        return list(data.get("activeTargets") or [])

    async def query(self, expr: str, at: float, what: str) -> list[tuple[Labels, float | None]]:
        """An instant query at ``at`` (epoch seconds): one (labels, value) per series."""
        data = await self._get("/api/v1/query", {"query": expr, "time": f"{at:.3f}"}, what)
        return [(item.get("metric", {}), number((item.get("value") or [None, None])[1]))
                for item in _vector(data, what, self.url)]

    async def query_range(self, expr: str, start: float, end: float, step: float,
                          what: str) -> list[tuple[Labels, list[tuple[float, float | None]]]]:
        """A range query: one (labels, [(t, value), ...]) per series."""
        params = {"query": expr, "start": f"{start:.3f}", "end": f"{end:.3f}", "step": f"{step:g}"}
        data = await self._get("/api/v1/query_range", params, what)
        return [(item.get("metric", {}), [(float(t), number(v)) for t, v in item.get("values") or []])
                for item in _vector(data, what, self.url, "matrix")]

    async def _get(self, path: str, params: dict[str, str], what: str) -> dict[str, Any]:
        import httpx

        try:
            response = await self._client.get(path, params=params)
        except httpx.TimeoutException:
            raise PromError(f"Prometheus at {self.url} did not answer {what} within {TIMEOUT_S:g} s") from None
        except httpx.HTTPError as exc:
            raise PromError(f"cannot reach Prometheus at {self.url}: {_reason(exc)}") from None
        return _payload(response, self.url, what)


def _reason(exc: BaseException) -> str:
    """The operating system's reason deepest in the chain (``connection refused``), else the error's text."""
    import os

    cause: BaseException | None = exc
    while cause is not None:
        if isinstance(cause, OSError) and cause.errno:
            return os.strerror(cause.errno).lower()
        cause = cause.__cause__ or cause.__context__
    return (str(exc) or type(exc).__name__).splitlines()[0]


def _payload(response, url: str, what: str) -> dict[str, Any]:
    """The ``data`` of an API answer, or the one sentence that says why there is none."""
    if response.status_code in (401, 403):
        raise PromError(f"Prometheus at {url} refused the credentials (HTTP {response.status_code}): check the "
                        f"username, password or bearer token named in fleet.toml")
    try:
        body = response.json()
    except ValueError:
        body = None
    if not isinstance(body, dict) or body.get("status") not in ("success", "error"):
        kind = response.headers.get("content-type", "no content type").split(";")[0]
        raise PromError(f"{url} does not answer like Prometheus's HTTP API (HTTP {response.status_code}, {kind} for "
                        f"{what}): is it the right URL?")
    if body["status"] == "error":
        error = " ".join(str(body.get("error", "")).split())[:300]
        raise PromError(f"Prometheus at {url} refused {what} ({body.get('errorType', 'error')}: {error})")
    return body.get("data") or {}


def _vector(data: dict[str, Any], what: str, url: str, kind: str = "vector") -> list[dict[str, Any]]:
    if data.get("resultType") != kind:
        raise PromError(f"Prometheus at {url} answered {what} with a {data.get('resultType')}, not a {kind}")
    return list(data.get("result") or [])
