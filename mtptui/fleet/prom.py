"""A small client of Prometheus's HTTP API (``/api/v1/targets``, ``/query``, ``/query_range``) over httpx.

Every failure is one sentence (a ``PromError``, exit 1): Prometheus unreachable, slow, refusing the
credentials, answering like something else, or refusing a query (its own ``errorType`` and ``error``).
Values come back as floats, with NaN and ±Inf (PromQL's "no figure") as None.

An answer is held to its shape before it is used (a list of targets, a vector or matrix of series with labels
and values), its body is read up to ``MAX_BODY`` and no further, and JSON nested past the parser's limit is one
sentence too: a misbehaving Prometheus (or something else at its URL) gave ten tracebacks and took 10 GB for
a 400 MB answer. The credentials never appear in what is shown (``scrub``).
"""

from __future__ import annotations

import math
from typing import Any

from pydantic_core import from_json

from mtptui.errors import UserError, os_reason
from mtptui.fleet.settings import Auth
from mtptui.secrets import scrub, split_url_credentials

TIMEOUT_S = 10.0
MAX_BODY = 64 * 1048576  # one answer: ~7 MB for 10,000 instances' sparklines
MAX_BODIES = 128 * 1048576  # every answer of one client (a refresh asks two dozen at once): ~30 MB at 10,000
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

        self.url, user, password = split_url_credentials(url)  # shown everywhere: never with a password
        if user and not (auth.username or auth.bearer_token):
            auth = Auth(user, password)
        self.timeout, self._read = timeout, 0
        self._secrets = tuple(s for s in (auth.password, auth.bearer_token, password) if s)
        headers = {"Authorization": f"Bearer {auth.bearer_token}"} if auth.bearer_token else {}
        basic = (auth.username, auth.password or "") if auth.username else None
        self._client = httpx.AsyncClient(base_url=self.url, headers=headers, auth=basic, timeout=timeout)

    async def __aenter__(self) -> "Prometheus":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        await self._client.aclose()

    async def targets(self) -> list[dict[str, Any]]:
        """The active targets, each as Prometheus describes it (labels, health, lastScrape, lastError, ...)."""
        data = await self._get("/api/v1/targets", {"state": "active"}, "the target list")
        items = data.get("activeTargets") or []
        if not isinstance(items, list) or not all(isinstance(t, dict) and isinstance(t.get("labels", {}), dict)
                                                  for t in items):
            raise self._shape("the target list", "targets that are not objects with labels")
        return items

    async def query(self, expr: str, at: float, what: str) -> list[tuple[Labels, float | None]]:
        """An instant query at ``at`` (epoch seconds): one (labels, value) per series."""
        data = await self._get("/api/v1/query", {"query": expr, "time": f"{at:.3f}"}, what)
        try:
            return [(_labels(item), number(item["value"][1])) for item in self._result(data, what)]
        except (AttributeError, IndexError, KeyError, TypeError):
            raise self._shape(what, "series without labels and a [time, value] pair") from None

    async def query_by_key(self, expr: str, at: float, what: str) -> dict[tuple[str, str], float | None]:
        """An instant query at ``at`` keyed by (instance, job) as it is read, in one pass (a fleet of 10,000
        instances asks two dozen of them every refresh)."""
        data = await self._get("/api/v1/query", {"query": expr, "time": f"{at:.3f}"}, what)
        keyed: dict[tuple[str, str], float | None] = {}
        try:
            for item in self._result(data, what):
                labels = item["metric"]
                keyed[(labels.get("instance", ""), labels.get("job", ""))] = number(item["value"][1])
        except (AttributeError, IndexError, KeyError, TypeError):  # a label that is a list is unhashable, too
            raise self._shape(what, "series without labels and a [time, value] pair") from None
        return keyed

    async def query_range(self, expr: str, start: float, end: float, step: float,
                          what: str) -> list[tuple[Labels, list[tuple[float, float | None]]]]:
        """A range query: one (labels, [(t, value), ...]) per series."""
        params = {"query": expr, "start": f"{start:.3f}", "end": f"{end:.3f}", "step": f"{step:g}"}
        data = await self._get("/api/v1/query_range", params, what)
        try:
            return [(_labels(item), [(float(t), number(v)) for t, v in _list(item.get("values", []))])
                    for item in self._result(data, what, "matrix")]
        except (AttributeError, KeyError, TypeError, ValueError):
            raise self._shape(what, "series without labels and [time, value] pairs") from None

    def _result(self, data: dict[str, Any], what: str, kind: str = "vector") -> list[Any]:
        if data.get("resultType") != kind:
            raise PromError(f"Prometheus at {self.url} answered {what} with a {_short(data.get('resultType'))}, not "
                            f"a {kind}")
        result = data.get("result") or []
        if not isinstance(result, list):
            raise self._shape(what, f"a {kind} whose result is not a list")
        return result

    def _shape(self, what: str, found: str) -> PromError:
        return PromError(f"Prometheus at {self.url} answered {what} with {found}: is it Prometheus's HTTP API?")

    async def _get(self, path: str, params: dict[str, str], what: str) -> dict[str, Any]:
        import httpx

        try:
            async with self._client.stream("GET", path, params=params) as response:
                body = await self._body(response, what)
        except httpx.TimeoutException:
            raise PromError(f"Prometheus at {self.url} did not answer {what} within {self.timeout:g} s") from None
        except httpx.HTTPError as exc:
            reason = scrub(_reason(exc), self._secrets)
            raise PromError(f"cannot reach Prometheus at {self.url}: {reason}") from None
        return _payload(response, body, self.url, what)

    async def _body(self, response: Any, what: str) -> bytes:
        """The answer's body, read up to MAX_BODY (a longer one is refused before it is all read)."""
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > MAX_BODY:
            raise self._too_big(what)
        chunks, size = [], 0
        async for chunk in response.aiter_bytes():
            size += len(chunk)
            self._read += len(chunk)
            if size > MAX_BODY or self._read > MAX_BODIES:
                raise self._too_big(what)
            chunks.append(chunk)
        return b"".join(chunks)

    def _too_big(self, what: str) -> PromError:
        return PromError(f"Prometheus at {self.url} answered {what} with more than {MAX_BODY // 1048576} MiB (or "
                         f"all its answers with more than {MAX_BODIES // 1048576} MiB): narrow the fleet with "
                         f"--match, or read recorded series (--recorded)")


def _labels(item: Any) -> Labels:
    """A series' labels: an object whose ``instance`` and ``job`` (the key of every lookup) are strings."""
    labels = item.get("metric", {})
    if type(labels) is not dict or type(labels.get("instance", "")) is not str or \
            type(labels.get("job", "")) is not str:
        raise TypeError("labels")
    return labels


def _list(value: Any) -> list[Any]:
    if not isinstance(value, list):
        raise TypeError("list")
    return value


def _short(value: Any) -> str:
    return " ".join(str(value).split())[:40]


_reason = os_reason


def _payload(response: Any, raw: bytes, url: str, what: str) -> dict[str, Any]:
    """The ``data`` of an API answer, or the one sentence that says why there is none."""
    if response.status_code in (401, 403):
        raise PromError(f"Prometheus at {url} refused the credentials (HTTP {response.status_code}): check the "
                        f"username, password or bearer token named in fleet.toml")
    try:
        body = from_json(raw)  # pydantic's parser: faster than json's, and bounded in depth
    except ValueError as exc:  # not JSON, not UTF-8, or nested past the parser's limit
        if "recursion limit" in str(exc):
            raise PromError(f"Prometheus at {url} answered {what} with JSON nested too deeply to read: is it "
                            f"Prometheus's HTTP API?") from None
        body = None
    if not isinstance(body, dict) or body.get("status") not in ("success", "error"):
        kind = response.headers.get("content-type", "no content type").split(";")[0]
        raise PromError(f"{url} does not answer like Prometheus's HTTP API (HTTP {response.status_code}, "
                        f"{_short(kind)} for {what}): is it the right URL?")
    if body["status"] == "error":
        error = " ".join(str(body.get("error", "")).split())[:300]
        raise PromError(f"Prometheus at {url} refused {what} ({_short(body.get('errorType', 'error'))}: {error})")
    data = body.get("data") or {}
    if not isinstance(data, dict):
        raise PromError(f"Prometheus at {url} answered {what} with data that is not an object: is it Prometheus's "
                        f"HTTP API?")
    return data
