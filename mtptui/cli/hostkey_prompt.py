"""The terminal's answer to an unknown SSH host key (``known_hosts = "ask"``): the CLI's, never the dashboard's."""

from __future__ import annotations

import sys

from mtptui.remote.hostkeys import HostKeyQuestion


def ask_on_terminal(question: HostKeyQuestion) -> bool:
    """Yes only when a person at a terminal types it; without a terminal the answer is no."""
    if not sys.stdin.isatty():
        return False
    answer = input(f"{question} [y/N] ")
    return answer.strip().lower() in ("y", "yes")
