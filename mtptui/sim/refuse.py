"""A test-only switch that makes a launch refuse some chat requests, so a restart's canary is seen to fail.

``MTPTUI_SIM_REFUSE_PROMPT=TEXT`` (in the server's environment, e.g. a launch profile's ``env``) makes the server
answer HTTP 400 to every chat completion whose messages contain TEXT, as a launch with a broken chat template
answers what it cannot render; every other request is served as usual. A 400 is not retried by the gateway on
another worker, so a request it routes to this launch fails there. Never set it on anything but a test's
simulated server.
"""

from __future__ import annotations

from mtptui.sim.jsonbody import Json
from mtptui.sim.validation import BadRequest

REFUSE_ENV = "MTPTUI_SIM_REFUSE_PROMPT"


def _text(message: Json) -> str:
    content = message.get("content")
    if isinstance(content, list):  # content parts: their text
        return " ".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return content if isinstance(content, str) else ""


def refusal(env: dict[str, str], messages: list[Json]) -> BadRequest | None:
    """The 400 the switch gives for ``messages``, or None (unset, or no message holds its text)."""
    text = env.get(REFUSE_ENV, "")
    if not text or not any(text in _text(message) for message in messages):
        return None
    return BadRequest(f"this launch refuses requests that contain {text!r} ({REFUSE_ENV}, a simulator test switch)")
