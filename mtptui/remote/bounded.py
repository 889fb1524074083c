"""Every command a transport runs is bounded on the host: a deadline that ends it there, and a cap on its output.

A hung driver (``nvidia-smi`` stuck in the kernel) kept its command alive on the host long after the caller's
own timeout had given up, one more every poll and still there after mtptui quit; 200 MB of output took the
caller to 2.6 GB. ``GUARD`` runs the command line under ``timeout(1)`` (which ends the command's whole process
group, KILL two seconds after TERM) and pipes stdout and stderr through ``head -c``, so a flood stops on the host
(the writer meets a closed pipe) and never crosses the connection. A server launched with ``setsid`` has its own
process group and outlives the command, as it must.
"""

from __future__ import annotations

from mtptui.remote.errors import RemoteError
from mtptui.remote.shell import Command, join, script
from mtptui.remote.transport import Completed

DEFAULT_TIMEOUT_S = 300.0
"""A command whose caller gives no deadline: longer than any restart step (a unit's start, a group's stop)."""
GRACE_S = 10.0
"""How much longer the caller waits than the host's deadline, for the host's own answer to arrive."""
STDERR_LIMIT = 65536
TIMED_OUT = 124  # timeout(1)'s exit status when the deadline ended the command

# argv: SECONDS STDOUT-BYTES STDERR-BYTES LINE. Exits with LINE's status (124 when timeout(1) ended it); fd 4
# carries that status out of the pipeline, fds 3 and 5 are the real stdout and stderr. Without timeout(1) (a host
# with no coreutils) the command still runs, bounded in output only.
GUARD = r"""secs=$1; out=$2; err=$3; line=$4
t="timeout -k 2 $secs"; command -v timeout >/dev/null 2>&1 || t=
exec 3>&1 5>&2
s=$( { { ( $t sh -c "$line" 3>&- 4>&- 5>&-; echo $? >&4 ) | head -c "$out" >&3; } 2>&1 >&3 | head -c "$err" >&5; } 4>&1 )
exit "${s:-1}"
""".strip()  # noqa: E501


def host_timeout(timeout: float | None) -> float:
    """The host's deadline for a command: the caller's, else DEFAULT_TIMEOUT_S."""
    return DEFAULT_TIMEOUT_S if timeout is None else max(float(timeout), 0.1)


def guarded_line(command: Command, seconds: float) -> str:
    """The shell line that runs ``command`` under ``seconds`` on the host, its output cut one byte past its limit
    (so the caller can tell a cut answer from a full one)."""
    return join(script(GUARD, f"{seconds:g}", command.output_limit + 1, STDERR_LIMIT, command.line))


def finish(command: Command, done: Completed, seconds: float, where: str) -> Completed:
    """``done`` as the caller sees it: a RemoteError for a command the host ended or whose output was cut."""
    what = command.what or command.line
    if done.exit_status == TIMED_OUT:
        raise RemoteError(f"{what} timed out after {seconds:g} s on {where}; it was ended there")
    if len(done.stdout) > command.output_limit:
        raise RemoteError(f"{what} printed more than {_size(command.output_limit)} on {where}; it was cut off and "
                          f"ended there")
    return Completed(command.line, done.exit_status, done.stdout, done.stderr)


def _size(count: int) -> str:
    return f"{count / 1048576:g} MiB" if count % 1048576 == 0 else f"{count:,} bytes"
