"""Whether a log is vLLM's: its process prefix, its older `INFO MM-DD HH:MM:SS file.py:N]` form, or its banner."""

from __future__ import annotations

import re

SIGNS = re.compile(
    r"\((?:APIServer|EngineCore|EngineCore_DP\d+|Worker|Worker(?:_[A-Z]+\d+)+|VllmWorker[\w -]*|VllmWorkerProcess)"
    r" pid=\d+\) (?:\x1b\[[0-9;]*m)?(?:DEBUG|INFO|WARNING|ERROR)"
    r"|^(?:DEBUG|INFO|WARNING|ERROR) \d\d-\d\d \d\d:\d\d:\d\d [\w.]+:\d+\] "
    r"|Initializing a V1 LLM engine \(v|vLLM (?:API )?server version ", re.MULTILINE)


def looks_like_vllm(head: str) -> bool:
    """True when the start of a log (a few KiB of text) shows vLLM's own lines."""
    return SIGNS.search(head) is not None
