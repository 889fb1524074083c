"""sudo in a host's ``server.command_prefix``: what it is allowed to run, and its refusals as one sentence.

A sudoers rule may allow only ``systemctl`` and ``journalctl`` for the unit (what an operator account that
runs one service gets): then the unit's files, mtptui's lock and the server's /proc are read and written with
the login user's own rights, and a refusal of sudo says which command needed which rule.
"""

from __future__ import annotations

import os
from typing import Sequence

from mtptui.remote.shell import Command

REFUSALS = ("a password is required", "a terminal is required", "is not allowed to execute",
            "is not in the sudoers file", "may not run sudo", "not allowed to run sudo")


UNIT_VERBS = ("start", "stop", "restart", "reset-failed", "enable", "cat --no-pager")  # what mtptui runs on a unit


def sudo_index(prefix: Sequence[str]) -> int | None:
    """Where sudo is in the prefix (``sudo``, ``/usr/bin/sudo``), or None."""
    return next((i for i, word in enumerate(prefix) if os.path.basename(word) == "sudo"), None)


def allows_command(prefix: Sequence[str], *argv: str) -> Command | None:
    """The question ``sudo -n -l ARGV`` (exit 0: sudo runs ARGV without a password); None when the prefix has no
    sudo (it is then used for everything)."""
    index = sudo_index(prefix)
    if index is None:
        return None
    return Command.of([*prefix[:index + 1], "-n", "-l", *argv], f"ask sudo whether it runs {argv[0]}")


def refused(stderr: str) -> str | None:
    """sudo's own reason when ``stderr`` is sudo refusing a command, else None."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    found = [line for line in lines if line.startswith("sudo") and any(r in line for r in REFUSALS)]
    return found[-1] if found else None


def rule_for(user: str, unit: str, systemctl: str = "/usr/bin/systemctl",
             journalctl: str = "/usr/bin/journalctl") -> str:
    """The sudoers line that lets ``user`` run what mtptui runs through sudo for ``unit``, and nothing else.

    Each verb that changes the unit is spelled out: a sudoers ``*`` matches spaces too, so ``systemctl * UNIT``
    also allowed ``systemctl stop OTHER.service UNIT``. Only ``show`` keeps one (its properties vary; it reads,
    never changes), and the journal's options (cursors, times) need one after ``-u UNIT``."""
    verbs = ", ".join(f"{systemctl} {verb} {unit}" for verb in UNIT_VERBS)
    return (f"{user} ALL=(root) NOPASSWD: {systemctl} daemon-reload, {verbs}, {systemctl} show * {unit}, "
            f"{journalctl} -u {unit} *")
