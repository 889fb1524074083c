"""The CLI skeleton: profiles, help, bad input as one sentence, lazy heavy imports."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from mtptui.cli.main import main


def run_cli(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mtptui.cli.main", *args], capture_output=True, text=True,
                          env=env, timeout=60)


def test_profiles_show_prints_both_profiles(capsys: pytest.CaptureFixture) -> None:
    assert main(["profiles", "show", "ct129"]) == 0
    out = capsys.readouterr().out
    assert "profile restored  [known-good]" in out
    assert "profile redeploy-1step" in out
    assert "--speculative-num-steps 3" in out and "--speculative-num-steps 1" in out
    assert "SGLANG_ENABLE_SPEC_V2=1" in out


def test_profiles_list(capsys: pytest.CaptureFixture) -> None:
    assert main(["profiles", "list"]) == 0
    out = capsys.readouterr().out
    assert "restored*" in out and "ct129" in out and "demo" in out


@pytest.mark.parametrize("args", [["profiles", "show", "nosuch"], ["nosuch"], ["check", "nosuch"]])
def test_unknown_host_exits_2_with_one_sentence(args: list[str]) -> None:
    result = run_cli(*args)
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "unknown host 'nosuch'" in result.stderr
    assert "Traceback" not in result.stderr


def test_malformed_config_file_exits_2(tmp_path: Path) -> None:
    bad = tmp_path / "ct129.toml"
    bad.write_text('name = "ct129"\napi_url = 3\n[server\n')
    result = run_cli("--config", str(bad), "profiles", "show", "ct129")
    assert result.returncode == 2
    assert str(bad) in result.stderr and "line 3" in result.stderr and "Traceback" not in result.stderr


def test_help_does_not_import_heavy_libraries() -> None:
    code = ("import sys; from mtptui.cli.main import main\n"
            "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
            "heavy = [m for m in ('textual', 'asyncssh', 'httpx', 'uvicorn', 'pydantic') if m in sys.modules]\n"
            "print('HEAVY', heavy)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert "HEAVY []" in result.stdout, result.stdout + result.stderr


def test_every_subcommand_has_help() -> None:
    for command in ["demo", "sim", "parse-log", "flags", "diff", "restart", "bench", "check", "profiles"]:
        result = run_cli(command, "--help")
        assert result.returncode == 0, (command, result.stderr)
        assert "usage: mtptui" in result.stdout
