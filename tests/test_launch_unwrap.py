"""One rule for `sh -c` wrappers: a unit's ExecStart= and a running process are unwrapped the same way."""

from __future__ import annotations

import pytest

from mtptui.ops.launches import flagset_from_argv
from mtptui.engines.entry import shell_script
from mtptui.engines.sglang.unit import read_unit, unit_flagset

SCRIPT = "exec python3 -m sglang.launch_server --model-path /models/q --tp 2"


@pytest.mark.parametrize("shell", ["sh", "/bin/bash", "dash", "/usr/bin/zsh"])
def test_every_shell_wrapper_is_read_as_the_command_it_runs(shell):
    argv = [shell, "-c", SCRIPT]
    assert shell_script(argv) == SCRIPT
    unit = read_unit(f"[Service]\nExecStart={shell} -c '{SCRIPT}'\n")
    from_unit, from_process = unit_flagset(unit), flagset_from_argv(argv, "0.5.12.post1")
    assert from_unit.model_path == from_process.model_path == "/models/q"
    assert from_unit.get("--tensor-parallel-size") == from_process.get("--tensor-parallel-size") == 2


def test_a_plain_argv_or_a_shell_without_a_script_is_not_a_wrapper():
    assert shell_script(["python3", "-m", "sglang.launch_server"]) is None
    assert shell_script(["sh", "-c"]) is None
    assert shell_script(["fish", "-c", SCRIPT]) is None
