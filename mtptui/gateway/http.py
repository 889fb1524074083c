"""One HTTP call to the gateway: one deadline for the whole call (connect, headers and body), a bounded body,
its JSON when it has some, and one sentence (a ``GatewayError``) for every way it can fail on the way."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mtptui.errors import UserError, os_reason

if TYPE_CHECKING:
    import httpx

DEADLINE_S = 10.0
BODY_LIMIT = 8 << 20  # a /workers list of a thousand workers with their engine loads is about 2 MB
TEXT_KEPT = 300  # what an error sentence quotes of a body
ROUTED_HEADER = "x-smg-routed-worker-id"  # SMG names the worker that served a request (its URL)


class GatewayError(UserError):
    """The gateway could not give or do what was asked."""


@dataclass(frozen=True)
class Answer:
    """A gateway's answer: its status, its JSON (None when the body is not JSON) and the start of its text."""

    status: int
    body: Any
    text: str
    location: str | None = None
    routed: str | None = None  # the worker that served it, as SMG says (its x-smg-routed-worker-id header)

    def message(self) -> str:
        """What the gateway said went wrong, in its own words (SMG's ``error`` string or object), clipped."""
        body = self.body
        said: Any = body.get("error") if isinstance(body, dict) else None
        if isinstance(said, dict):
            said = said.get("message")
        if not isinstance(said, str):
            said = body.get("detail") if isinstance(body, dict) else None
        text = said if isinstance(said, str) and said.strip() else self.text
        return " ".join(text.split())[:TEXT_KEPT] or "no message"


def parse_json(data: bytes) -> Any:
    """The JSON value of a body, or None when it is not JSON (nesting too deep for Python is not JSON either)."""
    try:
        return json.loads(data.decode("utf-8"))
    except (ValueError, RecursionError):
        return None


async def read_bounded(response: httpx.Response, limit: int, label: str, what: str) -> bytes:
    body = bytearray()
    async for piece in response.aiter_bytes():
        body += piece
        if len(body) > limit:
            raise GatewayError(f"the gateway at {label} answered {what} with more than {limit >> 20} MiB: "
                               f"is it the right URL?")
    return bytes(body)


class GatewayHttp:
    """The HTTP side of one gateway; ``url`` is where it is reached from here, ``label`` how sentences name it."""

    def __init__(self, url: str, *, token: str | None = None, label: str | None = None,
                 deadline_s: float = DEADLINE_S, body_limit: int = BODY_LIMIT) -> None:
        import httpx

        self.url, self.label = url.rstrip("/"), label or url.rstrip("/")
        self.deadline_s, self.body_limit = deadline_s, body_limit
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self._client = httpx.AsyncClient(base_url=self.url, headers=headers, timeout=deadline_s, trust_env=False)

    async def close(self) -> None:
        await self._client.aclose()

    async def call(self, method: str, path: str, what: str, *, payload: Any = None) -> Answer:
        """``method path`` within the deadline; ``what`` names the call in sentences ("the worker list")."""
        import httpx

        try:
            async with asyncio.timeout(self.deadline_s):
                return await self._exchange(method, path, what, payload)
        except (TimeoutError, httpx.TimeoutException):
            raise GatewayError(f"the gateway at {self.label} did not answer {what} within {self.deadline_s:g} s") \
                from None
        except httpx.HTTPError as exc:
            raise GatewayError(f"cannot reach the gateway at {self.label}: {os_reason(exc)}") from None

    async def _exchange(self, method: str, path: str, what: str, payload: Any) -> Answer:
        kwargs: dict[str, Any] = {} if payload is None else {"json": payload}
        async with self._client.stream(method, path, **kwargs) as response:
            data = await read_bounded(response, self.body_limit, self.label, what)
            location, routed = response.headers.get("location"), response.headers.get(ROUTED_HEADER)
        return Answer(response.status_code, parse_json(data), data[:4096].decode("utf-8", "replace"), location,
                      routed)
