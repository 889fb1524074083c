"""systemd units: reading ExecStart=/Environment=/EnvironmentFile= with systemd's syntax, writing a launch back."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mtptui.config.loader import load_host_file
from mtptui.engines.sglang.flags import FlagError, FlagSet
from mtptui.engines.sglang.unit import read_unit, unit_flagset, with_launch
from tests.conftest import CONFIGS

PY = sys.executable
UNIT = f"""# /etc/systemd/system/sglang-qwen.service
[Unit]
Description=SGLang Qwen3.6-27B (%n)
After=network-online.target

[Service]
Type=simple
User=ops
Environment="SGLANG_ENABLE_SPEC_V2=1" HF_HOME=/data/hf
Environment=PORT=30000
EnvironmentFile=-/etc/default/sglang
ExecStartPre=/bin/true
ExecStart={PY} -m sglang.launch_server \\
    --model-path /data/models/Qwen3.6-27B \\
# comments inside a continuation are skipped
    --host 0.0.0.0 --port ${{PORT}} --tp 2 \\
    --served-model-name "qwen %% 50$$ \\"x\\"" --log-level 'info'
Restart=on-failure

[Install]
WantedBy=multi-user.target
"""


def test_read_exec_start_environment_and_files() -> None:
    unit = read_unit(UNIT, name="sglang-qwen.service")
    assert unit.environment == {"SGLANG_ENABLE_SPEC_V2": "1", "HF_HOME": "/data/hf", "PORT": "30000"}
    assert unit.environment_files == ["-/etc/default/sglang"]
    assert unit.exec_argv[:3] == [PY, "-m", "sglang.launch_server"]
    fs = unit_flagset(unit)
    assert fs.model_path == "/data/models/Qwen3.6-27B"
    assert fs.flags == {"--host": "0.0.0.0", "--port": 30000, "--tensor-parallel-size": 2,
                        "--served-model-name": 'qwen % 50$ "x"', "--log-level": "info"}
    assert fs.entry == f"{PY} -m sglang.launch_server" and fs.env["HF_HOME"] == "/data/hf"


def test_write_back_changes_only_exec_start_and_environment() -> None:
    unit = read_unit(UNIT)
    fs = unit_flagset(unit)
    fs.flags["--port"] = 30001
    fs.env = {"SGLANG_ENABLE_SPEC_V2": "1", "NOTE": 'say "hi" 100%'}
    text = with_launch(unit, fs)
    kept = [line for line in UNIT.splitlines() if not line.startswith(("ExecStart=", "Environment=", "    ", "# c"))]
    assert [line for line in text.splitlines() if not line.startswith(("ExecStart=", "Environment=", "    "))] == kept
    assert 'Environment="NOTE=say \\"hi\\" 100%%"' in text
    again = unit_flagset(read_unit(text))
    assert again == fs and "PORT" not in again.env


def test_drop_in_override_wins_and_bash_c_is_read() -> None:
    text = (UNIT + "\n# /etc/systemd/system/sglang-qwen.service.d/override.conf\n[Service]\nExecStart=\n"
            "ExecStart=-/bin/bash -c 'exec python3 -m sglang.launch_server --model-path /m/other --port 1 "
            ">> /l 2>&1'\n")
    unit = read_unit(text)
    assert unit.exec_prefix == "-"
    fs = unit_flagset(unit)
    assert (fs.model_path, fs.flags) == ("/m/other", {"--port": 1})
    rewritten = with_launch(unit, fs, multiline=False)
    assert rewritten.count("ExecStart=") == 3 and "ExecStart=\n" in rewritten
    assert "ExecStart=-python3 -m sglang.launch_server --model-path /m/other --port 1\n" in rewritten


def test_specifiers_and_escapes() -> None:
    unit = read_unit("[Service]\nExecStart=/bin/python3 -m sglang.launch_server --model-path /m/%N "
                     "--served-model-name a\\x41\\sb \\; --port 1\n", name="sglang-x.service")
    assert unit.exec_argv[4:] == ["/m/sglang-x", "--served-model-name", "aA b", ";", "--port", "1"]


def test_argv0_prefix_and_commented_backslash() -> None:
    text = "[Service]\n# an old line \\\nExecStart=@/bin/python3 sglang-qwen -m sglang.launch_server --model-path /m\n"
    unit = read_unit(text)
    assert unit.exec_prefix == "@"
    assert unit.exec_argv == ["/bin/python3", "-m", "sglang.launch_server", "--model-path", "/m"]
    assert "ExecStart=/bin/python3 -m sglang.launch_server" in with_launch(unit, unit_flagset(unit))


def test_lone_semicolon_ends_the_command() -> None:
    unit = read_unit("[Service]\nExecStart=/bin/python3 -m sglang.launch_server --model-path /m ; /bin/true\n")
    assert unit.exec_argv == ["/bin/python3", "-m", "sglang.launch_server", "--model-path", "/m"]


def test_bad_units_are_one_sentence() -> None:
    with pytest.raises(FlagError, match="unbalanced quoting"):
        read_unit('[Service]\nExecStart=/bin/python3 "oops\n')
    with pytest.raises(FlagError, match="no ExecStart="):
        unit_flagset(read_unit("[Unit]\nDescription=x\n"))
    with pytest.raises(FlagError, match="no SGLang launch command found"):
        unit_flagset(read_unit("[Service]\nExecStart=/bin/sleep 1\n"))


@pytest.mark.needs(None if shutil.which("systemd-analyze") else "systemd-analyze is not installed")
def test_rendered_units_pass_systemd_analyze_verify(tmp_path: Path) -> None:
    host = load_host_file(CONFIGS / "ct129.toml")
    fs = FlagSet.from_profile(host.profile("restored"), host.sglang_version)
    fs.entry = f"{PY} -m sglang.launch_server"
    fs.flags["--served-model-name"] = "qwen 'x' $HOME %n \\ \"q\""
    fs.env["ODD"] = 'a b "c" %d $e'
    path = tmp_path / "sglang-qwen.service"
    path.write_text(with_launch(read_unit(UNIT), fs))
    result = subprocess.run(["systemd-analyze", "verify", str(path)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert unit_flagset(read_unit(path.read_text(), name=path.name)) == fs
