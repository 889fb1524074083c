"""The dashboard's polls of a vLLM server (its side of mtptui.engines.polls).

vLLM has no ``/server_info``: ``GET /version`` gives the release, and nothing in the API gives the launch, which
the process's command line and the log's ``non-default args`` line give (mtptui.ops.launches). ``/metrics`` is
always on; its ``vllm:`` families give running and waiting requests, the KV cache usage, finished and aborted
requests (``request_success`` by ``finished_reason``), and speculation over the interval since the last read,
vLLM's own arithmetic: accept length = 1 + Δaccepted / Δdrafts, acceptance rate = Δaccepted / Δdraft tokens.

vLLM has no ``/v1/loads`` either: a drain counts the requests the server holds on ``/metrics`` too
(``held_requests``: running + waiting, summed over its engines).
"""

from __future__ import annotations

from mtptui.engines.polls import GetJson, GetText, ServerInfo
from mtptui.engines.vllm import api
from mtptui.engines.vllm.metrics import VllmMetrics, parse_metrics, speculation

HELD_SOURCE = f"its {api.METRICS}: {api.RUNNING} + {api.WAITING}"


async def server_status(get_json: GetJson, version: str | None) -> ServerInfo | None:
    """``GET /version`` read; None while the server cannot answer (or answers with no version)."""
    status, body = await get_json(api.VERSION)
    said = body.get("version") if status == 200 and isinstance(body, dict) else None
    if not isinstance(said, str) or not said:
        return None
    return ServerInfo(said)


def figures(now: VllmMetrics, before: VllmMetrics | None) -> dict[str, float | None]:
    """The dashboard's figures of one read, speculation over the interval since ``before`` (since the server
    started when there is none, or when the counters went back: another process)."""
    if before is not None and (now.get(api.DRAFTS) or 0.0) < (before.get(api.DRAFTS) or 0.0):
        before = None
    spec = speculation(before, now)
    finished = now.get(api.REQUEST_SUCCESS)
    return {"requests": finished, "aborted": now.finished_by_reason.get("abort", 0.0) if finished is not None else None,
            "queue": now.get(api.WAITING), "running": now.get(api.RUNNING), "token_usage": now.kv_usage,
            "accept_len": spec.accept_len if spec else None, "accept_rate": spec.accept_rate if spec else None}


class MetricsReader:
    """Successive reads of one server's ``/metrics``: each read's figures, speculation since the last read."""

    def __init__(self) -> None:
        self.last: VllmMetrics | None = None

    def __call__(self, text: str) -> dict[str, float | None]:
        from mtptui.errors import UserError

        try:
            now = parse_metrics(text)
        except UserError as exc:
            raise ValueError(str(exc)) from None
        found, self.last = figures(now, self.last), now
        return found


def metrics_reader(version: str | None) -> MetricsReader:
    return MetricsReader()


async def held_requests(get_text: GetText, label: str) -> int:
    """The requests the server at ``label`` holds by its own ``/metrics`` (running + waiting, over its engines);
    a UserError in one sentence when the answer does not give both."""
    from mtptui.errors import UserError

    status, text = await get_text(api.METRICS)
    if status != 200:
        raise UserError(f"{label}{api.METRICS} answered HTTP {status}, not the server's request counts")
    metrics = parse_metrics(text)  # one sentence when it is not Prometheus text
    running, waiting = metrics.get(api.RUNNING), metrics.get(api.WAITING)
    if running is None or waiting is None:
        raise UserError(f"{label}{api.METRICS} has no {api.RUNNING} and {api.WAITING}: is the server vLLM?")
    return round(running + waiting)
