"""What a running process is: its argv (/proc/PID/cmdline), environment (/proc/PID/environ), cwd, group and
start time (/proc/PID/stat field 22, in clock ticks after the boot time ``btime`` of /proc/stat).

``read_process`` reads them in one round trip; ``find_servers`` lists the inference servers running on a host.
A zombie counts as not running (containers without an init leave them behind).
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, field

from mtptui.engines.registry import launch_port, server_pattern
from mtptui.remote.shell import Command, script
from mtptui.remote.transport import Transport

# argv: PID. Prints base64 of cmdline, environ ("-" when unreadable), stat, cwd ("-"), one per line, then the
# boot time (btime of /proc/stat) and the clock ticks per second.
READ_PROC = r"""p=$1
[ -r "/proc/$p/cmdline" ] || exit 3
base64 -w0 "/proc/$p/cmdline" || exit 3
echo
base64 -w0 "/proc/$p/environ" 2>/dev/null || printf -
echo
base64 -w0 "/proc/$p/stat" || exit 3
echo
readlink "/proc/$p/cwd" 2>/dev/null | base64 -w0 || printf -
echo
while read -r key value _; do [ "$key" = btime ] && echo "$value"; done < /proc/stat
getconf CLK_TCK 2>/dev/null || echo 100
""".strip()

# No argv. Prints "PID PPID" for every live process whose command line names a server of an engine mtptui knows
# (mtptui.engines.registry.server_pattern: SGLang's `-m sglang.launch_server`, `vllm serve`, ...). One grep over
# every raw cmdline first keeps the candidates (the pattern with each space as any byte: the NULs between argv
# words; a superset), so the exact test below starts two processes per candidate, not per process (about 2 s on
# a host of 190 processes). A grep that cannot read bytes (-a) as text has every process tested.
FIND_SERVERS = r"""if printf 'a\0b' | grep -aqE -e 'a.b' 2>/dev/null; then
  cands=$(grep -alE -e 'LOOSE' /proc/[0-9]*/cmdline 2>/dev/null)
else
  cands=$(ls -d /proc/[0-9]*/cmdline)
fi
for f in $cands; do
  d=${f%/cmdline}
  read -r stat 2>/dev/null < "$d/stat" || continue
  set -- ${stat##*)}
  [ "$1" = Z ] && continue
  tr '\0' ' ' 2>/dev/null < "$d/cmdline" | grep -qE -e 'PATTERN' || continue
  echo "${d#/proc/} $2"
done
""".strip().replace("PATTERN", server_pattern()).replace("LOOSE", server_pattern().replace(" ", "."))

#: Environment variables that shape a server (kept from /proc/PID/environ; the rest is the login's noise).
SERVER_ENV_PREFIXES = ("SGLANG_", "SGL_", "CUDA_", "NCCL_", "TORCH_", "PYTORCH_", "HF_", "TRANSFORMERS_",
                       "FLASHINFER_", "TRITON_", "NVIDIA_", "OMP_NUM_THREADS", "TOKENIZERS_PARALLELISM")


@dataclass(frozen=True)
class ProcessInfo:
    """A process as /proc shows it; ``env`` is None when /proc/PID/environ was not readable."""

    pid: int
    argv: list[str]
    env: dict[str, str] | None
    state: str
    ppid: int
    pgid: int
    cwd: str | None = None
    extra: dict[str, str] = field(default_factory=dict)
    started_at: float | None = None  # epoch seconds, from /proc; None when the host did not say

    @property
    def alive(self) -> bool:
        return self.state not in ("Z", "X")

    @property
    def port(self) -> int | None:
        return launch_port(self.argv)

    def server_env(self, also: set[str] | frozenset[str] = frozenset(),
                   prefixes: tuple[str, ...] = ()) -> dict[str, str]:
        """The variables that shape a server: known prefixes (and the engine's own ``prefixes``), plus any name in
        ``also`` (a unit's, a profile's)."""
        env, known = self.env or {}, SERVER_ENV_PREFIXES + prefixes
        return {k: v for k, v in env.items() if k in also or k.startswith(known)}


def _b64(text: str) -> bytes | None:
    return None if text == "-" else base64.b64decode(text)


def start_time(stat_fields: list[str], btime: str, ticks: str) -> float | None:
    """Epoch seconds a process started: its stat field 22 (ticks after boot) over the boot time."""
    if len(stat_fields) < 20 or not (stat_fields[19].isdigit() and btime.isdigit() and ticks.isdigit()):
        return None
    return int(btime) + int(stat_fields[19]) / max(1, int(ticks))


def parse_proc(pid: int, out: str) -> ProcessInfo:
    """ProcessInfo from READ_PROC's output."""
    rows = out.splitlines() + ["-"] * 6
    cmdline, environ, stat, cwd = (_b64(line.strip() or "-") for line in rows[:4])
    argv = [w.decode("utf-8", "replace") for w in (cmdline or b"").split(b"\0")]
    if argv and argv[-1] == "":
        argv.pop()
    env = None
    if environ is not None:
        pairs = (item.decode("utf-8", "replace").partition("=") for item in environ.split(b"\0") if item)
        env = {name: value for name, _, value in pairs}
    fields = (stat or b"").decode("utf-8", "replace").rsplit(")", 1)[-1].split()
    state, ppid, pgid = fields[0], int(fields[1]), int(fields[2])
    return ProcessInfo(pid, argv, env, state, ppid, pgid, cwd.decode("utf-8", "replace").strip() if cwd else None,
                       started_at=start_time(fields, rows[4].strip(), rows[5].strip()))


async def read_process(transport: Transport, pid: int, prefix: tuple[str, ...] = ()) -> ProcessInfo | None:
    """The process ``pid`` on the host, or None when there is no such process (or only its zombie)."""
    result = await transport.run(Command.of([*prefix, *script(READ_PROC, pid)], f"read /proc/{pid}"))
    if result.exit_status == 3:
        return None
    result.check(f"reading /proc/{pid} on {transport.label}")
    info = parse_proc(pid, result.out)
    return info if info.alive else None


async def find_servers(transport: Transport) -> list[tuple[int, int]]:
    """(pid, ppid) of each live process whose command line starts a server (SGLang's, vLLM's)."""
    result = await transport.run(Command.of(script(FIND_SERVERS), "look for inference servers"))
    result.check(f"looking for inference servers on {transport.label}")
    found = []
    for line in result.out.splitlines():
        pid, _, ppid = line.partition(" ")
        if pid.isdigit() and ppid.strip().isdigit():
            found.append((int(pid), int(ppid)))
    return found
