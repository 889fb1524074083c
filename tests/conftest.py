"""Shared fixtures: every test runs isolated from the user's real config, data and caches."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("MTPTUI_SHARED", ROOT.parent / "shared"))
REAL_LOGS = SHARED / "real-logs"
REFERENCE = SHARED / "reference"
CONFIGS = ROOT / "configs"
NETGUARD = Path(__file__).resolve().parent / "netguard"

# Loopback only: in this process, and (through PYTHONPATH's sitecustomize) in every Python subprocess.
os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(NETGUARD), os.environ.get("PYTHONPATH")]))
_spec = importlib.util.spec_from_file_location("mtptui_test_netguard", NETGUARD / "sitecustomize.py")
_spec.loader.exec_module(importlib.util.module_from_spec(_spec))


@pytest.fixture(autouse=True)
def isolated_dirs(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point XDG config/data/cache/state at a fresh tmp dir and drop MTPTUI_CONFIG."""
    home = tmp_path_factory.mktemp("xdg")
    for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"):
        path = home / var.lower()
        path.mkdir()
        monkeypatch.setenv(var, str(path))
    monkeypatch.delenv("MTPTUI_CONFIG", raising=False)
    return home


@pytest.fixture
def demo_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A demo run in the bad state (redeploy-1step), at a fast startup pace; stopped afterwards."""
    from mtptui.demo.run import DemoRun

    run = DemoRun.prepare(tmp_path, speed=200)
    for name, value in run.server_environment().items():
        monkeypatch.setenv(name, value)
    run.start()
    yield run
    run.stop()


@pytest.fixture
def real_logs() -> Path:
    """The real SGLang logs in ../shared/real-logs (read in place, never copied)."""
    if not REAL_LOGS.is_dir():
        pytest.fail(f"real logs not found at {REAL_LOGS}; set MTPTUI_SHARED to the shared/ folder")
    return REAL_LOGS


# With pytest-xdist (`make test` runs `-n 2 --dist loadgroup`) the tests that drive a host run in two groups, each
# in one worker, one test after another: "labs" (the lab's network namespaces: every lab server listens on its
# namespace's port 30000, and a process-managed lab host finds its server by command line in /proc, which the
# labs share with each other and with this machine; one lab test binds a decoy on this machine's :30000) and
# "hosts" (a real sshd on loopback, the demo's stand-in SGLang, tmux terminals: each on ports of its own, but the
# demo's restarts and stops read pid files and process groups that must not race). The rest goes to whichever
# worker is free, file by file.
LAB_FIXTURES = frozenset({"lab", "lab_each", "lab_systemd", "lab_process", "lab_process_each", "lab_terminal"})
LAB_FILES = ("test_lab", "test_e2e_lab")
HOST_FIXTURES = frozenset({"sshd", "demo_run"})
HOST_FILES = ("test_e2e", "test_demo_", "test_ui_demo", "test_ui_health", "test_ui_restart", "test_ui_ops_snapshots",
              "test_tune", "test_ui_feed", "test_cli_foundation", "test_secrets")


def xdist_group_of(item: pytest.Item) -> str:
    fixtures = set(getattr(item, "fixturenames", ()))
    if LAB_FIXTURES & fixtures or item.path.name.startswith(LAB_FILES):
        return "labs"
    if HOST_FIXTURES & fixtures or item.path.name.startswith(HOST_FILES):
        return "hosts"
    return item.path.name


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook turns the marks into the @group suffix of node ids
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        item.add_marker(pytest.mark.xdist_group(xdist_group_of(item)))
