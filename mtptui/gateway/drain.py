"""The gateway's side of a drained restart: who else serves the model, and one request through the gateway.

    peers = ready_peers(workers, mine)          # the other workers of mine's model the gateway says are ready
    await canary(gateway, model, mine.url, 8)   # short chats through the gateway until one reaches mine's server;
                                                # GatewayError when one fails
"""

from __future__ import annotations

from typing import Any

from mtptui.gateway.client import Gateway
from mtptui.gateway.http import GatewayError
from mtptui.gateway.match import same_url
from mtptui.gateway.workers import Worker

CANARY_TOKENS = 8


def ready_peers(workers: list[Worker], mine: Worker) -> list[Worker]:
    """The workers other than ``mine`` that serve its model and are ready (they take its traffic meanwhile)."""
    return [w for w in workers if not same_url(w.url, mine.url) and w.model_id == mine.model_id and w.ready]


def _answered(body: Any) -> bool:
    choices = body.get("choices") if isinstance(body, dict) else None
    return isinstance(choices, list) and bool(choices)


async def canary(gateway: Gateway, model: str | None, worker_url: str | None = None, tries: int = 1) -> str | None:
    """Short non-streamed chat completions through the gateway until one is served by ``worker_url`` (SMG names
    the worker that served each), at most ``tries``; a GatewayError as soon as one is not answered. The URL of the
    last worker that answered (None: the gateway did not say, so the first answer is taken as the canary's)."""
    payload = {"model": model or "default", "max_tokens": CANARY_TOKENS,
               "messages": [{"role": "user", "content": "mtptui canary after a restart: say ok."}]}
    served = None
    for _ in range(max(1, tries)):
        answer = await gateway.http.call("POST", "/v1/chat/completions", "the canary request", payload=payload)
        served = answer.routed
        if answer.status != 200 or not _answered(answer.body):
            by = f" from {served}" if served else ""
            raise GatewayError(f"the canary request through the gateway at {gateway.label} failed (HTTP "
                               f"{answer.status}{by}: {answer.message()})")
        if served is None or worker_url is None or same_url(served, worker_url):
            break
    return served
