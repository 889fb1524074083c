"""A hostile lab host: its server reports a version full of terminal escapes, and its launches hold secrets.

The lab's server runs a profile with ``HF_TOKEN`` and ``--api-key`` and reports (``$MTPTUI_SIM_VERSION``, the
simulated server's way to play any server) a version with OSC 0 (title), OSC 52 (clipboard), CSI, C1 and bidi
controls. Every output of `diff`, `restart --dry-run`, a real `restart`, `bench` and `check` (text and JSON),
every file they leave on the operator's side, and what the dashboard draws (header, diff screen, restart
dialog) must hold neither secret and no raw control, and show the version escaped.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import tomli_w

from mtptui.text import UNSAFE
from tests.lab import lab_host_file, operator_env, start_server
from tests.test_hostile_text import HOSTILE, SEEN, screen_text
from tests.ui_fixtures.support import SIZE, wait_until

pytestmark = pytest.mark.ssh
SECRETS = {"HF_TOKEN (running)": "hf_Zq8xK3vR7mT2pL9wN4bY6cJ1dF5gH0sA", "HF_TOKEN (restored)": "hf_Restored0Token9x",
           "--api-key (running)": "sk-live-4f9a2c7e1b8d3f6a0e5c9b2d7f1a4e8c", "--api-key (restored)": "sk-rest-77"}
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def hostile(lab, tmp_path, monkeypatch):
    """The lab host (systemd) running a bad redeploy that holds secrets and reports a hostile version."""
    lab.reset()
    monkeypatch.setenv("HOME", str(lab.home))
    monkeypatch.delenv("SSH_AUTH_SOCK", raising=False)
    host = lab_host_file(lab, tmp_path / "lab.toml", "systemd")
    data = tomllib.loads(host.path.read_text())
    for name, which in (("redeploy-1step", "running"), ("restored", "restored")):
        profile = data["profiles"][name]
        profile["env"].update(HF_TOKEN=SECRETS[f"HF_TOKEN ({which})"], MTPTUI_SIM_VERSION=HOSTILE)
        profile["flags"]["api-key"] = SECRETS[f"--api-key ({which})"]
    host.path.write_text(tomli_w.dumps(data))
    start_server(host, "redeploy-1step")
    host.wait_ready()
    yield host
    lab.reset()


def mtptui(host, *argv: str) -> subprocess.CompletedProcess:
    result = subprocess.run([sys.executable, "-m", "mtptui.cli.main", *argv, "--config", str(host.path)],
                            capture_output=True, text=True, timeout=180, cwd=ROOT, env=operator_env(host.lab))
    assert result.returncode in (0, 1), result.stderr
    return result


def secrets_in(text: str) -> list[str]:
    return [name for name, value in SECRETS.items() if value in text]


def test_no_secret_and_no_raw_control_in_any_output_or_file(hostile, tmp_path, isolated_dirs):
    out = tmp_path / "out"  # (tmp_path also holds the host file, which has the secrets: they are the input)
    out.mkdir()
    runs = {" ".join(argv): mtptui(hostile, *argv) for argv in (
        ["diff", "lab"], ["diff", "lab", "--json"], ["restart", "lab", "--profile", "restored", "--dry-run"],
        ["restart", "lab", "--profile", "restored", "--dry-run", "--json"], ["check", "lab"],
        ["bench", "lab", "--requests", "1", "--max-tokens", "8", "--json", str(out / "bench.json")],
        ["restart", "lab", "--profile", "restored", "--yes", "--json"])}
    outputs = {f"{name} ({stream})": getattr(run, stream)
               for name, run in runs.items() for stream in ("stdout", "stderr")}
    files = {str(path): path.read_text(errors="replace") for root in (out, isolated_dirs)
             for path in root.rglob("*") if path.is_file()}
    found = {where: secrets_in(text) for where, text in {**outputs, **files}.items() if secrets_in(text)}
    assert found == {}, (f"{sum(map(len, found.values()))} secrets in {len(found)} "
                         f"of {len(outputs) + len(files)}: {found}")
    assert [where for where, text in outputs.items() if UNSAFE.search(text)] == []
    assert SEEN in runs["check lab"].stdout and SEEN in runs[next(k for k in runs if k.startswith("bench"))].stdout
    assert "--api-key" in runs["diff lab"].stdout and "HF_TOKEN" in runs["diff lab"].stdout  # shown, masked
    assert any(name.endswith("bench-history.jsonl") for name in files)


async def test_the_dashboard_shows_the_hostile_host_escaped_and_its_secrets_masked(hostile):
    from mtptui.ops.connect import open_session
    from mtptui.ops.feed.host import feed_for_host
    from mtptui.ui.app import AppContext, MtpApp
    from mtptui.ui.screens.confirm import ConfirmScreen
    from mtptui.ui.screens.diff import DiffScreen

    config = hostile.config
    session = open_session(config)
    app = MtpApp(feed_for_host(session), AppContext("lab", host=config, session=session), cursor_blink=False,
                 keymap={})
    drawn = {}
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.live.host is not None and "pwned" in (app.live.host.version or ""),
                         timeout=60)  # /server_info's version, not the host file's
        # a log line with C1 and bidi controls, as the host's journal holds it
        hostile.append_log("[2026-11-29 14:50:01 TP0] model \x85next \u202eevil \x9b2J")
        texts = app.screen.log_view.buffer.texts
        await wait_until(pilot, lambda: any("evil" in text for text in texts), timeout=30)
        app.screen.paint(everything=True)
        await pilot.pause(0.2)
        drawn["dashboard"] = screen_text(app)
        await pilot.press("d")
        await wait_until(pilot, lambda: isinstance(app.screen, DiffScreen) and app.screen.sides, timeout=30)
        await pilot.pause(0.2)
        drawn["diff"] = screen_text(app)
        await pilot.press("escape")
        await pilot.press("R")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), timeout=30)
        await pilot.pause(0.2)
        drawn["restart dialog"] = screen_text(app)
        await pilot.press("n")
    found = {name: secrets_in(svg) for name, svg in drawn.items() if secrets_in(svg)}
    assert found == {}, f"{sum(map(len, found.values()))} secrets on {len(found)} of {len(drawn)} screens: {found}"
    assert [name for name, svg in drawn.items() if UNSAFE.search(svg)] == []
    assert "model\xa0\\x85next\xa0\\u202eevil\xa0\\x9b2J" in drawn["dashboard"]  # (the screenshot's spaces are NBSP)
    assert "\\x1b]0;pwned" in drawn["dashboard"] and "--api-key" in drawn["diff"] and "HF_TOKEN" in drawn["diff"]


def test_flags_lint_on_the_host_prints_no_secret(hostile):
    """`flags lint HOST --json` printed HF_TOKEN and --api-key (in its command and resolved values)."""
    runs = {" ".join(argv): mtptui(hostile, *argv) for argv in (["flags", "lint", "lab", "--json"],
                                                                 ["flags", "lint", "lab"])}
    found = {name: secrets_in(run.stdout + run.stderr) for name, run in runs.items()}
    assert found == {name: [] for name in runs}
    shown = json.loads(runs["flags lint lab --json"].stdout)
    assert "--api-key" in shown["command"] and "HF_TOKEN=" in shown["command"]  # shown, masked
