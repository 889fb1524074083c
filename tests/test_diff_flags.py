"""Side-by-side diffs: the mission's unit vs redeploy, JSON per design.md, and `mtptui diff` offline."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from mtptui.config.loader import load_host_file
from mtptui.engines.sglang.flags import FlagError, FlagSet, diff_flagsets, parse_command
from mtptui.engines.sglang.flags.diff_text import render_diff
from mtptui.engines.sglang.unit import read_unit, with_launch
from tests.conftest import CONFIGS

MISSION_ROWS = {"--speculative-num-steps", "--speculative-num-draft-tokens", "--mem-fraction-static",
                "--context-length", "--max-running-requests", "--mamba-full-memory-ratio", "--reasoning-parser",
                "--tool-call-parser"}
UNIT_TEMPLATE = ("[Unit]\nDescription=SGLang Qwen3.6-27B\n\n[Service]\nUser=ops\nExecStart=/bin/true\n"
                 "Restart=on-failure\n\n[Install]\nWantedBy=multi-user.target\n")


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mtptui.cli.main", *args], capture_output=True, text=True, timeout=60)


@pytest.fixture(scope="module")
def ct129():
    return load_host_file(CONFIGS / "ct129.toml")


@pytest.fixture
def restored_unit(ct129, tmp_path: Path) -> Path:
    """The known-good profile written as the systemd unit it came from."""
    fs = FlagSet.from_profile(ct129.profile("restored"), ct129.sglang_version)
    path = tmp_path / "sglang-qwen.service"
    path.write_text(with_launch(read_unit(UNIT_TEMPLATE), fs))
    return path


def test_mission_diff_lists_exactly_the_table(ct129) -> None:
    sides = [(f"profile:{name}", FlagSet.from_profile(ct129.profile(name), ct129.sglang_version))
             for name in ("restored", "redeploy-1step")]
    diff = diff_flagsets(sides)
    assert {row.flag for row in diff.rows} == MISSION_ROWS and diff.env == ()
    rows = {row.flag: row for row in diff.rows}
    assert rows["--speculative-num-steps"].values == ("3", "1")
    assert rows["--speculative-num-draft-tokens"].values == ("4", None)
    assert rows["--speculative-num-draft-tokens"].resolved == ("4", "2 (auto)")
    assert rows["--mamba-full-memory-ratio"].resolved == ("0.5", "unset (default 0.9)")
    assert rows["--tool-call-parser"].values == ("qwen3_coder", None)


def test_unit_vs_redeploy_through_the_cli_json(restored_unit: Path) -> None:
    result = run_cli("diff", "--left", str(restored_unit), "--right", "ct129:redeploy-1step", "--json")
    assert result.returncode == 1, result.stderr  # like diff(1): the sides differ
    data = json.loads(result.stdout)
    assert set(data) == {"sides", "rows", "env"}
    assert data["sides"] == [f"unit:{restored_unit}", "profile:ct129:redeploy-1step"]
    assert {row["flag"] for row in data["rows"]} == MISSION_ROWS and data["env"] == []
    steps = next(row for row in data["rows"] if row["flag"] == "--speculative-num-steps")
    assert steps == {"flag": "--speculative-num-steps", "values": ["3", "1"], "resolved": ["3", "1"]}


def test_cli_text_diff_of_a_command_file_against_a_host_profile(tmp_path: Path) -> None:
    cmd = tmp_path / "redeploy.sh"
    cmd.write_text("SGLANG_ENABLE_SPEC_V2=1 nohup python3 -m sglang.launch_server --model /data/models/Qwen3.6-27B \\\n"
                   "  --host 0.0.0.0 --port 30000 --tp 2 --speculative-algo NEXTN --speculative-num-steps 1 \\\n"
                   "  --speculative-eagle-topk 1 --max-running-requests 1 \\\n"
                   "  --mamba-scheduler-strategy extra_buffer > sglang.log 2>&1 &\n")
    same = run_cli("diff", "--left", str(cmd), "--right", "ct129:redeploy-1step")
    assert same.returncode == 0 and same.stdout.startswith("no differences"), same.stdout + same.stderr
    differs = run_cli("diff", "--left", "ct129:restored", "--right", str(cmd))
    assert differs.returncode == 1, differs.stderr
    lines = differs.stdout.splitlines()
    assert lines[0].split() == ["flag", "profile:ct129:restored", f"command:{cmd}"]
    draft = next(line for line in lines if line.startswith("--speculative-num-draft-tokens"))
    assert draft.split() == ["--speculative-num-draft-tokens", "4", "2", "(auto)"]


def test_env_rows_and_three_sides() -> None:
    base = "python3 -m sglang.launch_server --model-path /m/llama --port {port}"
    one = parse_command("SGLANG_ENABLE_SPEC_V2=1 " + base.format(port=1))
    two = parse_command(base.format(port=2))
    three = parse_command("SGLANG_ENABLE_SPEC_V2=0 " + base.format(port=2) + " --enable-metrics")
    diff = diff_flagsets([("a", one), ("b", two), ("c", three)])
    assert diff.to_json() == {
        "sides": ["a", "b", "c"],
        "rows": [{"flag": "--port", "values": ["1", "2", "2"], "resolved": ["1", "2", "2"]},
                 {"flag": "--enable-metrics", "values": [None, None, "true"],
                  "resolved": ["unset (default false)", "unset (default false)", "true"]}],
        "env": [{"var": "SGLANG_ENABLE_SPEC_V2", "values": ["1", None, "0"]}],
    }
    text = render_diff(diff)
    assert "--port" in text and "SGLANG_ENABLE_SPEC_V2" in text and "unset" in text


def test_versions_line_up_by_what_a_flag_sets() -> None:
    old = parse_command("python3 -m sglang.launch_server --model-path /m/x --tensor-parallel-size 2")
    new = parse_command("python3 -m sglang.launch_server --model-path /m/x --tp-size 4", "0.5.23")
    rows = {row.flag: row for row in diff_flagsets([("old", old), ("new", new)]).rows}
    assert rows["--tensor-parallel-size"].values == ("2", "4") and "--tp-size" not in rows
    strategy = rows["--mamba-scheduler-strategy"]  # renamed in 0.5.23, and its auto means something else
    assert strategy.values == (None, None) and strategy.resolved[0] == "no_buffer (auto)"
    assert "--cuda-graph-max-bs" not in rows  # gone in 0.5.23 and set by neither side


def test_a_diff_needs_two_or_three_sides() -> None:
    with pytest.raises(FlagError):
        diff_flagsets([("one", parse_command("sglang serve --model-path /m"))])


@pytest.mark.parametrize("args, message", [
    (["diff", "nosuchhost"], "unknown host 'nosuchhost'"),
    (["diff", "--left", "/nonexistent/x.service", "--right", "ct129:restored"], "no such file"),
    (["diff", "--left", "ct129:restored"], "--left and --right go together"),
    (["diff", "--left", "ct129:nosuch", "--right", "ct129:restored"], "has no profile 'nosuch'"),
])
def test_cli_bad_input_is_one_sentence(args: list[str], message: str) -> None:
    result = run_cli(*args)
    assert result.returncode == 2 and message in result.stderr  # diff(1): trouble, not a difference
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr


def test_cli_unreadable_command_file_is_one_sentence(tmp_path: Path) -> None:
    bad = tmp_path / "cmd.txt"
    bad.write_text("python3 -m sglang.launch_server --model-path /m --port nope\n")
    result = run_cli("diff", "--left", str(bad), "--right", "ct129:restored")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    expected = f"mtptui: command:{bad}: sglang serve: error: argument --port: invalid int value: 'nope'"
    assert result.stderr.strip() == expected


def test_show_all_lists_equal_flags_too(ct129) -> None:
    sides = [(f"profile:{name}", FlagSet.from_profile(ct129.profile(name), ct129.sglang_version))
             for name in ("restored", "redeploy-1step")]
    differing = {row.flag for row in diff_flagsets(sides).rows}
    every = {row.flag: row for row in diff_flagsets(sides, show_all=True).rows}
    assert differing < set(every)
    assert every["--speculative-algorithm"].values == ("NEXTN", "NEXTN")  # same on both sides, still shown
    assert every["--speculative-algorithm"].resolved == ("EAGLE", "EAGLE")
