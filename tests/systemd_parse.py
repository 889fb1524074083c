"""Real systemd's own parse of a unit: what it will put in the environment and in ExecStart's argv.

``/lib/systemd/systemd --test --system --unit=NAME`` (systemd 252 here) loads the unit with systemd's own
parser and dumps it: one ``Environment: NAME=value`` line per assignment (raw bytes) and ExecStart's
``Command Line:``, each argument shell-quoted by systemd (``"..."`` with C escapes and octal bytes where
needed, bare otherwise). Test mode refuses to run as root, so as root it runs as nobody, on a unit directory
nobody can read. ``systemd-analyze verify`` only says whether a unit loads; it prints no values.

The dump shows ExecStart before variable substitution, which systemd does when it spawns the command; the one
rule that matters for what mtptui writes (every ``$`` doubled) is applied here: ``$$`` is a literal ``$``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

SYSTEMD = Path("/lib/systemd/systemd")
NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
_OCTAL = re.compile(rb"\\([0-7]{3})")
_C_ESCAPES = {b"a": b"\a", b"b": b"\b", b"f": b"\f", b"n": b"\n", b"r": b"\r", b"t": b"\t", b"v": b"\v"}


def systemd_missing() -> str | None:
    """Why real systemd cannot parse units here, or None."""
    if not SYSTEMD.exists():
        return "systemd is not installed (apt-get install systemd)"
    if os.geteuid() == 0 and shutil.which("setpriv") is None:
        return "systemd's test mode refuses root, and setpriv (util-linux) is missing to drop to nobody"
    return None


@dataclass
class Parsed:
    """What systemd made of a unit's [Service]: its environment and ExecStart's argv (``None``: no ExecStart)."""

    environment: list[str]
    argv: list[str] | None
    stderr: str


def _decode(raw: bytes) -> str:
    return raw.decode("utf-8", "surrogateescape")


def _unquote(word: bytes) -> bytes:
    """One argument as systemd's shell_maybe_quote() printed it."""
    if not word.startswith(b'"'):
        return word
    out, i, body = bytearray(), 0, word[1:-1]
    while i < len(body):
        if body[i:i + 1] != b"\\":
            out += body[i:i + 1]
            i += 1
        elif octal := _OCTAL.match(body, i):
            out.append(int(octal.group(1), 8))
            i += 4
        else:
            out += _C_ESCAPES.get(body[i + 1:i + 2], body[i + 1:i + 2])
            i += 2
    return bytes(out)


def _split_command_line(line: bytes) -> list[str]:
    words = re.findall(rb'"(?:[^"\\]|\\.)*"|[^ ]+', line)
    return [_decode(_unquote(word)).replace("$$", "$") for word in words]


def _unit_section(dump: bytes, name: str) -> bytes:
    start = dump.index(f"\t-> Unit {name}:\n".encode())
    end = dump.find(b"\n\t-> Unit ", start + 1)
    return dump[start:end if end >= 0 else len(dump)]


def _environment(section: bytes) -> list[str]:
    """The raw ``Environment:`` lines (a value may hold newlines: it runs to the next field)."""
    found = re.search(rb"\n\t\tEnvironment: (.*?)\n\t\t(?!Environment: )[A-Z][A-Za-z]*: ", section, re.S)
    if found is None:
        return []
    return [_decode(item) for item in found.group(1).split(b"\n\t\tEnvironment: ")]


def parse_unit(text: str, name: str = "mtptui-check.service") -> Parsed:
    """systemd's parse of ``text`` as the unit ``name``."""
    with tempfile.TemporaryDirectory(prefix="mtptui-systemd-") as folder:
        os.chmod(folder, 0o755)
        Path(folder, name).write_text(text, encoding="utf-8", errors="surrogateescape")
        drop_in = Path(folder, f"{name}.d")  # no default dependencies: the unit alone, without sysinit.target
        drop_in.mkdir(mode=0o755)
        (drop_in / "alone.conf").write_text("[Unit]\nDefaultDependencies=no\n")
        for path in (Path(folder, name), drop_in / "alone.conf"):
            path.chmod(0o644)
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "SYSTEMD_UNIT_PATH": folder, "LANG": "C.UTF-8"}
        argv = [*(NOBODY if os.geteuid() == 0 else []), str(SYSTEMD), "--test", "--system", f"--unit={name}",
                "--no-pager"]
        result = subprocess.run(argv, capture_output=True, env=env, timeout=60, cwd="/")
    if result.returncode != 0:
        raise RuntimeError(f"systemd --test failed: {result.stderr.decode(errors='replace')}")
    section = _unit_section(result.stdout, name)
    command = re.search(rb"\n\t\t-> ExecStart:\n\t\t\tCommand Line: (.*)\n", section)
    return Parsed(_environment(section), _split_command_line(command.group(1)) if command else None,
                  result.stderr.decode(errors="replace"))
