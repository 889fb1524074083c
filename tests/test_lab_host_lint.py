"""`mtptui flags lint HOST` and the restart dialog, judged by the SGLang installed on the lab host (issue 15, 3).

"Installed on the host" is the venv the differential test builds from the published wheel
(tests/sglang_standins/venv.py): the lab shares this machine's filesystem, so a profile whose ``python`` is that
venv's interpreter runs the real SGLang on the lab host, over SSH, as a GPU host's own Python would. The model
directories (config.json files) are written where the lab host keeps its models. Lint runs as the operator
runs it: a subprocess with the operator's HOME.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest
import tomli_w
import tomllib
from rich.console import Console

from mtptui.engines.sglang.lint import lint_profile
from tests.flags_corpus import HYBRID, write_models
from tests.lab import lab_host_file, operator_env, prepare_lab_host
from tests.sglang_standins.venv import ensure
from tests.sshd import NVIDIA_SMI

pytestmark = [pytest.mark.ssh, pytest.mark.sglang]

EXTRA = {  # profiles beside the lab's own (restored, redeploy-1step, no-extra-buffer)
    "draft-only": {"speculative-algorithm": "NEXTN", "speculative-num-draft-tokens": 4,
                   "mamba-scheduler-strategy": "extra_buffer"},
    "new-names": {"tp-size": 2, "speculative-algorithm": "NEXTN", "speculative-num-steps": 1,
                  "speculative-eagle-topk": 1, "mamba-radix-cache-strategy": "extra_buffer"},
}


@pytest.fixture
def host_lab(lab, tmp_path):
    """The lab host with nothing running and the model directories on it; reset after the test."""
    lab.reset()
    write_models(lab.models)
    yield lab
    lab.reset()


def host_file(lab, tmp_path, python, version: str = "0.5.12.post1", manager: str = "systemd"):
    """The lab's host file, every profile run by ``python`` on the model the lab host has; ``version`` is what
    the host file says its SGLang is."""
    host = lab_host_file(lab, tmp_path / "lab.toml", manager, model=str(lab.models / HYBRID))
    data = tomllib.loads(host.path.read_text())
    data["sglang_version"] = version
    data["profiles"].update({name: {"model_path": str(lab.models / HYBRID), "flags": flags}
                             for name, flags in EXTRA.items()})
    data["profiles"]["model-missing"] = {**data["profiles"]["redeploy-1step"],
                                         "model_path": str(lab.models / "not-there")}
    for profile in data["profiles"].values():
        profile["python"] = str(python)
    host.path.write_text(tomli_w.dumps(data))
    return host


def lint(lab, host, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mtptui.cli.main", "--config", str(host.path), "flags", "lint",
                           "lab", *args], capture_output=True, text=True, timeout=240, env=operator_env(lab))


def lint_json(lab, host, profile: str) -> dict:
    done = lint(lab, host, "--profile", profile, "--json")
    assert done.returncode in (0, 1) and not done.stderr, done.stderr
    return json.loads(done.stdout)


def test_the_redeploy_is_judged_by_the_hosts_sglang_as_the_offline_table_judges_it(host_lab, tmp_path):
    host = host_file(host_lab, tmp_path, ensure("0.5.12.post1"))
    done = lint(host_lab, host, "--profile", "redeploy-1step")
    lines = done.stdout.splitlines()
    assert done.returncode == 0 and lines[0] == "profile redeploy-1step: lint by SGLang 0.5.12.post1 on lab"
    _, offline = lint_profile(host.config.profile("redeploy-1step"), "0.5.12.post1")
    assert [line for line in lines if line.startswith(("error", "warning", "info"))] == [str(f) for f in offline]
    assert [f.severity for f in offline] == ["info", "info", "warning", "warning"]  # the two warnings: mtptui's
    assert lines[-1] == "2 warnings, 2 info from SGLang 0.5.12.post1 on lab"  # judgment of one step, one request
    assert "sglang: speculative_num_draft_tokens is adjusted to speculative_num_steps + 1 when " \
           "speculative_eagle_topk == 1" in lines  # SGLang's own warning, as the server logs it at start


def test_a_profile_sglang_refuses_gets_sglangs_own_message_from_the_host(host_lab, tmp_path):
    host = host_file(host_lab, tmp_path, ensure("0.5.12.post1"))
    draft = lint_json(host_lab, host, "draft-only")
    assert draft["source"]["kind"] == "host" and draft["ok"] is False
    errors = [f for f in draft["findings"] if f["severity"] == "error"]
    assert [(e["flag"], e["sglang_message"]) for e in errors] == [("--speculative-num-draft-tokens", "AssertionError")]
    missing = lint_json(host_lab, host, "model-missing")  # what no offline table can know
    assert missing["source"]["kind"] == "host" and missing["ok"] is False
    assert missing["findings"][0]["sglang_message"].startswith("OSError: Repo id must be in the form")
    assert str(host_lab.models / "not-there") in missing["findings"][0]["sglang_message"]
    assert missing["notes"] == ["the offline table for 0.5.12.post1 accepts it"]


@pytest.mark.parametrize("says", ["0.5.12.post1", "0.5.99"])
def test_a_host_newer_than_its_host_file_or_the_tables_is_judged_by_its_own_sglang(host_lab, tmp_path, says):
    host = host_file(host_lab, tmp_path, ensure("0.5.23"), version=says)
    data = lint_json(host_lab, host, "new-names")
    assert data["ok"] is True and data["version"] == "0.5.23"
    assert {k: data["source"][k] for k in ("kind", "sglang_version", "host")} == \
           {"kind": "host", "sglang_version": "0.5.23", "host": "lab"}
    assert data["notes"][0] == f"the host runs SGLang 0.5.23; its host file says {says} (sglang_version)"
    if says == "0.5.12.post1":  # its table has no --mamba-radix-cache-strategy: the host's SGLang knows better
        assert data["notes"][1].startswith("the offline table for 0.5.12.post1 refuses it (")
    assert data["resolved"]["--speculative-num-draft-tokens"] == {"value": 2, "source": "auto", "shown": "2 (auto)"}


@pytest.mark.parametrize("manager, python, why", [
    ("systemd", sys.executable, f"{sys.executable} on lab cannot import SGLang (ModuleNotFoundError: No module "
                                "named 'sglang')"),
    ("systemd", "/nowhere/bin/python3", "/nowhere/bin/python3 was not found on lab (set python in the profile to "
                                        "the server's interpreter)"),
    # a server started from a login shell imports what the shell's PYTHONPATH puts first: the lab's stand-in sglang
    ("process", "0.5.12.post1", "on lab cannot import SGLang (ModuleNotFoundError: No module named 'sglang.srt')"),
], ids=["no-sglang", "no-python", "shadowed-by-the-login-pythonpath"])
def test_without_sglang_the_offline_table_judges_and_says_why(host_lab, tmp_path, manager, python, why):
    python = str(ensure(python)) if python == "0.5.12.post1" else python
    host = host_file(host_lab, tmp_path, python, manager=manager)
    done = lint(host_lab, host, "--profile", "redeploy-1step")
    first = done.stdout.splitlines()[0]
    assert done.returncode == 0 and first.startswith("profile redeploy-1step: lint by the offline table for "
                                                     "0.5.12.post1, because ")
    assert first.endswith(why)
    assert done.stdout.splitlines()[-1] == "2 warnings, 2 info from the offline table for 0.5.12.post1"


def _settled_pids(lab, expected: set[int]) -> set[int]:
    """The host's processes once the operator's SSH connection is gone (sshd ends it just after the client)."""
    deadline = time.monotonic() + 15
    while lab.pids() != expected and time.monotonic() < deadline:
        time.sleep(0.1)
    return lab.pids()


def test_the_check_is_read_only_leaves_nothing_behind_and_asks_nvidia_smi(host_lab, tmp_path):
    host = host_file(host_lab, tmp_path, ensure("0.5.12.post1"))
    host_lab.install(NVIDIA_SMI)
    home = host_lab.root / "host-home"  # the HOME of the host's sessions: caches would land here
    home.mkdir(exist_ok=True)
    before, models = host_lab.pids(), sorted(host_lab.models.rglob("*"))
    done = subprocess.run([sys.executable, "-m", "mtptui.cli.main", "--readonly", "--config", str(host.path),
                           "flags", "lint", "lab", "--profile", "restored"], capture_output=True, text=True,
                          timeout=240, env=operator_env(host_lab))
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[:2] == ["profile restored: lint by SGLang 0.5.12.post1 on lab",
                                            "GPUs: 2 × NVIDIA RTX A6000, 48.0 GB, compute capability 8.6 (from "
                                            "nvidia-smi)"]
    assert _settled_pids(host_lab, before) == before
    assert list(home.rglob("*")) == [] and sorted(host_lab.models.rglob("*")) == models


async def test_the_restart_dialog_and_dry_run_say_which_sglang_judged(lab, tmp_path, monkeypatch):
    from mtptui.ops.connect import open_session
    from mtptui.ops.feed.host import feed_for_host
    from mtptui.ui.app import AppContext, MtpApp
    from mtptui.ui.screens.confirm import ConfirmScreen
    from tests.ui_fixtures.support import SIZE, wait_until

    write_models(lab.models)
    prepare_lab_host(lab, tmp_path, monkeypatch, "systemd", model=str(lab.models / HYBRID))
    host = host_file(lab, tmp_path, ensure("0.5.12.post1"))  # after the start: the server runs the lab's python
    session = open_session(host.config)
    app = MtpApp(feed_for_host(session, every_s=3600, slow_every_s=3600),
                 AppContext("lab", host=host.config, session=session), cursor_blink=False, keymap={})
    try:
        async with app.run_test(size=SIZE) as pilot:
            await wait_until(pilot, lambda: app.live.host is not None, timeout=30)
            await pilot.press("R")
            await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), timeout=120)
            console = Console(width=200, color_system=None)
            with console.capture() as captured:
                console.print(app.screen.body)
            assert "Lint by SGLang 0.5.12.post1 on lab" in captured.get()
            assert app.screen.confirm_label == "Restart"  # SGLang on the host starts it: no "Restart anyway"
            await pilot.press("n")
        dry = subprocess.run([sys.executable, "-m", "mtptui.cli.main", "--config", str(host.path), "restart", "lab",
                              "--profile", "restored", "--dry-run", "--json"], capture_output=True, text=True,
                             timeout=240, env=operator_env(lab))
        plan = json.loads(dry.stdout)
        assert plan["lint_source"]["kind"] == "host" and plan["lint_source"]["sglang_version"] == "0.5.12.post1"
    finally:
        lab.reset()
