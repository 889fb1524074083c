"""mtptui's own polls in the server's log: uvicorn writes an access line for each ``/metrics``, ``/server_info``
and ``/health`` request, so a dashboard left open fills the log it reads. SGLang can leave them out
(``--uvicorn-access-log-exclude-prefixes``, 0.5.12 and later); the api check's line says so (``polls_note``),
from the running server's resolved arguments in /server_info."""

from __future__ import annotations

from typing import Any

from mtptui.ops.own_polls import EXCLUDE_FLAG, unexcluded

FIELD = "uvicorn_access_log_exclude_prefixes"


def polls_note(info: dict[str, Any]) -> str:
    """`` (it logs mtptui's polls: add ...)`` when the server still logs some of them, else ""."""
    prefixes = info.get(FIELD)
    if not isinstance(prefixes, list):  # a release without the option
        return ""
    missing = unexcluded(prefixes)
    if not missing:
        return ""
    return f" (it logs mtptui's polls: add {EXCLUDE_FLAG} {' '.join(missing)} to the launch to leave them out)"
