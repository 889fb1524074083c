"""Error and warning lines (reference §9): crashes, sigquit, init failures, OOM, retraction, bad KV budget."""

from __future__ import annotations

import re
from typing import Any

Parsed = tuple[str, dict[str, Any]] | None

ERROR_STARTS = (
    "Received sigquit from a child proces",  # also the early-2025 typo `proces.`
    "SIGQUIT received.",
    "Initialization failed.",
    "Not enough memory.",
    "Prefill out of memory.",
    "Decode out of memory. ",
    "Exception in ModelTpServer",  # 0.2.x banner
    "Exception in ModelRpcClient",  # 0.1.x banner
    "Health check failed.",
)
WARNING_STARTS = (
    "SIGTERM received.",  # told to stop: it drains (its process group's SIGQUIT line may follow: not a crash)
    "KV cache pool is full. Retract requests.",
    "Decode out of memory happened.",  # ≤0.4.6 text of the same retraction
)
HIT = re.compile(r"\w+ hit an exception")  # Scheduler, DataParallelController, DetokenizerManager, ...
ARGPARSE = re.compile(r"[\w./-]+(?: [\w./-]+)?: error: ")  # `sglang serve: error: unrecognized arguments: …`
KV_BUDGET = re.compile(r"max_total_tokens=\d+ is larger than the profiled value -?\d+")
BARE_TRACEBACK = "Traceback (most recent call last):"
# `RuntimeError: …`, `torch.OutOfMemoryError: …`, `Exception: Capture cuda graph failed: …`, a bare
# `AssertionError`: what Python's own handler (or a subprocess) prints without any logging prefix.
EXCEPTION_LINE = re.compile(r"(?:[A-Za-z_]\w*\.)*(?:[A-Za-z_]\w*(?:Error|Exception)|Exception)(?::|$)")


def problem(msg: str) -> Parsed:
    """An `error` or `warning` event's fields for a message, else None."""
    if msg.startswith(ERROR_STARTS) or HIT.match(msg) or ARGPARSE.match(msg):
        return "error", {"message": msg.rstrip(), "traceback": None}
    if msg.startswith(WARNING_STARTS) or KV_BUDGET.match(msg):
        return "warning", {"message": msg.rstrip()}
    return None


def prefixed_traceback(msg: str) -> Parsed:
    """A traceback header that carries the logging prefix (``[time TP0] Traceback (most recent call last):``):
    the frames and the exception line follow unprefixed and are folded into it."""
    if msg.startswith(BARE_TRACEBACK):
        return "error", {"message": msg.rstrip(), "traceback": None}
    return None


def bare_error(msg: str) -> Parsed:
    """An unprefixed line that begins a crash report: a traceback header or an exception line.

    Only asked when no error is pending (inside a traceback such lines are folded into it).
    """
    if msg.startswith(BARE_TRACEBACK) or EXCEPTION_LINE.match(msg):
        return "error", {"message": msg.rstrip(), "traceback": None}
    return None
