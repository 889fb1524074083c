"""What a tune holds on the host for its whole run: the restart lock, and a marker saying that it runs.

While arms are measured the host runs an experimental launch. The lock keeps every other restart out from the
first arm to the restore (another operator's restart got in during a bench, the arm was measured on a server
being replaced, and the tune's restore was refused). The marker, a dot file beside the lock, says "tune in
progress ..., original = PROFILE" until the original (or the kept best arm) runs again: a tune whose mtptui was
killed outright leaves it, and ``check``, ``diff`` and the dashboard say so and name the profile to restore.
"""

from __future__ import annotations

import re
import time
from typing import TYPE_CHECKING

from mtptui.remote.shell import Command, script

if TYPE_CHECKING:
    from mtptui.ops.connect import HostSession

LOCK_SUFFIX = ".mtptui-lock"
MARKER_SUFFIX = ".mtptui-tune"
# argv: MARKER TEXT. Written like the pid file: a file mktemp made beside it, renamed over it (never a link).
WRITE_MARKER = r"""t=$(mktemp -- "$1.XXXXXXXX") || exit 1
{ printf '%s\n' "$2" > "$t" && chmod 644 -- "$t" && mv -f -T -- "$t" "$1"; } || { rm -f -- "$t"; exit 1; }""".strip()
READ_MARKER = r"""[ -f "$1" ] || exit 0
head -c 2000 -- "$1" """.strip()
ORIGINAL = re.compile(r"original = (\S+)\s*$")


def marker_path(lock: str) -> str:
    return lock.removesuffix(LOCK_SUFFIX) + MARKER_SUFFIX


def marker_text(holder: str, original: str) -> str:
    since = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    return f"tune in progress by {holder} since {since}; original = {original}"


def write_marker(session: HostSession, path: str, text: str) -> Command:
    return Command.of([*session.manager.prefix, *script(WRITE_MARKER, path, text)], f"write the tune marker {path}",
                      changes_host=True)


def clear_marker(session: HostSession, path: str) -> Command:
    return Command.of([*session.manager.prefix, "rm", "-f", "--", path], f"remove the tune marker {path}",
                      changes_host=True)


async def read_marker(session: HostSession) -> str | None:
    """What a tune's marker on the host says, None without one (or when it cannot be read)."""
    from mtptui.errors import UserError
    from mtptui.text import visible

    try:
        lock = await session.manager.restart_lock()
        if lock is None:
            return None
        result = await session.transport.run(Command.of([*session.manager.prefix, *script(
            READ_MARKER, marker_path(lock))], "read the tune marker"), timeout=20)
    except UserError:
        return None
    text = " ".join(result.out.split())
    return visible(text) if result.ok and text else None


def marker_original(text: str) -> str | None:
    """The profile a marker names as the original."""
    found = ORIGINAL.search(text)
    return found.group(1) if found else None


def interrupted_sentence(text: str, host: str) -> str:
    """What check, diff and the dashboard say about a marker left on the host."""
    original = marker_original(text)
    fix = f"mtptui restart {host} --profile {original}" if original else f"mtptui restart {host} --profile NAME"
    return (f"a tune did not finish on {host} ({text}): it may still run an experimental arm; restore the "
            f"original with {fix}")


async def forget_marker(session: HostSession) -> None:
    """Remove a tune's marker after a restart the operator chose (best effort: it only says a tune ran)."""
    from mtptui.errors import UserError

    try:
        lock = await session.manager.restart_lock()
        if lock is not None:
            await session.transport.run(clear_marker(session, marker_path(lock)))
    except UserError:
        pass
