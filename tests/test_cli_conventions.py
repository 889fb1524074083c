"""`python -m mtptui` is the `mtptui` command, and `mtptui diff` exits like diff(1): 0 same, 1 differ, 2 trouble."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from mtptui import __version__
from tests.conftest import CONFIGS

ROOT = Path(__file__).resolve().parents[1]
COMMAND = "python3 -m sglang.launch_server --model-path /m/llama --port {port}\n"


def python_m(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mtptui", *args], capture_output=True, text=True, timeout=120,
                          cwd=ROOT)


def test_python_m_mtptui_is_the_mtptui_command() -> None:
    assert python_m("--version").stdout.strip() == f"mtptui {__version__}"
    usage = python_m("--help")
    assert usage.returncode == 0 and usage.stdout.startswith("usage: mtptui ")
    bad = python_m("diff", "--left", "/nonexistent/a.sh")
    assert bad.returncode == 2 and bad.stderr == "mtptui: --left and --right go together\n"


def test_diff_exits_0_when_the_sides_are_the_same_and_1_when_they_differ(tmp_path: Path) -> None:
    one, same, other = (tmp_path / name for name in ("one.sh", "same.sh", "other.sh"))
    one.write_text(COMMAND.format(port=1))
    same.write_text(COMMAND.format(port=1))
    other.write_text(COMMAND.format(port=2))
    equal = python_m("diff", "--left", str(one), "--right", str(same))
    assert (equal.returncode, equal.stdout.startswith("no differences")) == (0, True), equal.stderr
    for extra in ([], ["--json"]):
        differ = python_m("diff", "--left", str(one), "--right", str(other), *extra)
        assert differ.returncode == 1 and "--port" in differ.stdout, differ.stderr


def test_diff_exits_2_when_a_side_cannot_be_read(tmp_path: Path) -> None:
    result = python_m("diff", "--left", str(tmp_path / "missing.sh"), "--right", f"{CONFIGS / 'ct129.toml'}:restored")
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
