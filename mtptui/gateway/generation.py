"""Which generation of SGLang's router API a gateway speaks, and what mtptui does with each.

- ``smg``: SMG (sglang-router 0.3 and newer, every ``smg`` release): ``GET/POST /workers``, ``GET/DELETE
  /workers/{id}``, each worker with its ``status``; an addition or a removal is queued (202), the worker shows
  ``pending`` or ``draining`` meanwhile.
- ``router-0.2``: sglang-router 0.2.x: ``GET /workers`` lists workers without a status (their ``id`` is the URL),
  ``POST /workers`` and ``DELETE /workers/{url}`` act at once (200); 0.2.1 still answers ``/list_workers``.
- ``router-0.1``: the routers before that: only ``POST /add_worker?url=U``, ``POST /remove_worker?url=U`` and
  ``GET /list_workers`` -> ``{"urls": [...]}``.

Every generation's worker list is read; only SMG's calls are driven: the older ones remove a worker at once,
with no draining state to watch, so they are refused with one sentence (``refusal``).
"""

from __future__ import annotations

from typing import Any, Literal

Generation = Literal["smg", "router-0.2", "router-0.1"]

NAMES: dict[Generation, str] = {
    "smg": "SMG (sglang-router 0.3 or newer)",
    "router-0.2": "sglang-router 0.2.x",
    "router-0.1": "an sglang-router older than 0.2",
}


def from_worker_list(body: Any) -> Generation | None:
    """SMG or router 0.2.x from a ``/workers`` list; None when the list is empty (nothing to tell them apart)."""
    entries = body.get("workers") if isinstance(body, dict) else None
    entries = [entry for entry in entries if isinstance(entry, dict)] if isinstance(entries, list) else []
    if not entries:
        return None
    return "smg" if all("id" in entry and "status" in entry for entry in entries) else "router-0.2"


def has_url_list(body: Any) -> bool:
    """An answer of ``/list_workers`` (router 0.2.x and older): ``{"urls": [...]}``."""
    return isinstance(body, dict) and isinstance(body.get("urls"), list)


def refusal(generation: Generation, label: str, action: str) -> str:
    """Why mtptui will not ``action`` (e.g. "remove a worker") through an older router, in one sentence."""
    return (f"the gateway at {label} is {NAMES[generation]}, whose worker API removes and adds workers at once "
            f"without a draining state, so mtptui does not {action} through it: upgrade it to SMG (pip install smg, "
            f"or sglang-router 0.3 or newer)")
