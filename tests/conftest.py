"""Shared fixtures: every test runs isolated from the user's real config, data and caches."""

from __future__ import annotations

import importlib.util
import inspect
import os
import sys
import time
from pathlib import Path

import pytest
from pytest_textual_snapshot import SVGImageExtension

from tests.needs import need
from tests.ui_fixtures.support import steady_screen

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("MTPTUI_SHARED", ROOT.parent / "shared"))
REAL_LOGS = SHARED / "real-logs"
REFERENCE = SHARED / "reference"
CONFIGS = ROOT / "configs"
NETGUARD = Path(__file__).resolve().parent / "netguard"

# The modules whose fixtures every test module may use by name, without importing them (pytest reads pytest_plugins
# only here, in the rootdir's conftest). Import their helpers as tests.lab etc., never under another name: a module
# loaded twice would register its fixtures twice. A module comes before those that import it (tests.lab imports
# tests.sshd): pytest rewrites the asserts of a plugin only if it registers it before anything imports it.
pytest_plugins = (
    "tests.sshd",  # sshd: a real OpenSSH sshd on loopback
    "tests.simserver",  # sim_restored, sim_restored_each, sim_redeploy: the simulated server, per module
    "tests.lab",  # lab, lab_each, lab_systemd, lab_process, lab_process_each: the booted lab host
    "tests.gateway_lab",  # gateway_rig_module: the real gateway and its replicas, per module
    "tests.vllm_real.fixture",  # vllm_model, vllm_server: one real vLLM for the session
)

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


@pytest.fixture(autouse=True)
def demo_on_any_free_port(monkeypatch: pytest.MonkeyPatch) -> None:
    """A demo run started in a test takes any free port, never the demo's preferred 31000. Two workers' demos
    both took 31000 when it was free for a moment: one run's restart stopped its server, the other worker's run
    took the port, and the first one's rollback could not start (CI: test_restart_vllm, rollback_failed)."""
    from mtptui.demo import run

    real = run.pick_port
    monkeypatch.setattr(run, "pick_port", lambda preferred=0: real(0))


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


# Snapshots (tests/__snapshots__/) are written from one Python version only: rendering details may differ between
# versions. Every snapshot a test takes goes through snap_compare or svg, which refuse --snapshot-update elsewhere.
SNAPSHOT_PYTHON = (3, 11)


@pytest.fixture
def snapshots_from_one_python(request: pytest.FixtureRequest) -> None:
    """Refuse to write snapshots from another Python than SNAPSHOT_PYTHON."""
    if request.config.getoption("--snapshot-update", default=False) and sys.version_info[:2] != SNAPSHOT_PYTHON:
        pytest.fail(f"update snapshots with Python {'.'.join(map(str, SNAPSHOT_PYTHON))} only")


@pytest.fixture
def snap_compare(snap_compare, snapshots_from_one_python):
    """pytest-textual-snapshot's comparison, taken once the screen stands still (see steady_screen)."""

    def compare(app, press=(), terminal_size=(80, 24), run_before=None) -> bool:
        async def then_steady(pilot) -> None:
            if run_before is not None:
                result = run_before(pilot)
                if inspect.isawaitable(result):
                    await result
            await pilot.press(*press)
            await steady_screen(pilot)

        return snap_compare(app, terminal_size=terminal_size, run_before=then_steady)

    return compare


@pytest.fixture
def svg(snapshot, snapshots_from_one_python):
    """syrupy's snapshot as an SVG file: one screen at several sizes per test (tests/test_ui_sizes.py)."""
    return snapshot.use_extension(SVGImageExtension)


@pytest.fixture
def utc(monkeypatch: pytest.MonkeyPatch):
    """The local time zone is UTC, for clocks shown on screen (``pytestmark = pytest.mark.usefixtures("utc")``)."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.fixture
def real_logs() -> Path:
    """The real SGLang logs in ../shared/real-logs (read in place, never copied)."""
    if not REAL_LOGS.is_dir():
        pytest.fail(f"real logs not found at {REAL_LOGS}; set MTPTUI_SHARED to the shared/ folder")
    return REAL_LOGS


# With pytest-xdist (`make test` runs `-n 3 --dist loadgroup`) the tests that drive a host run in groups, each in
# one worker, one test after another: a lab module ("lab:FILE": it shares one booted systemd machine, with a
# network and a PID namespace of its own, so two modules' labs cannot see each other and may run side by side),
# "hosts" (the demo's stand-in servers started in this process: DemoRun, the demo_run fixture; each on a port of its
# own, but the demo's restarts and stops read pid files and process groups of this machine, kept from racing) and
# "e2e-tmux" (`mtptui demo` in a tmux terminal). The rest goes to whichever worker is free, file by file. The
# modules that drive the session's real vLLM server ("vllm-server") run in one worker too, which starts it once.
#
# What is not in "hosts", and why it cannot race with it:
# - e2e-tmux: each test's `mtptui demo` is a process of its own, outside the demo_on_any_free_port fixture, so it
#   takes the demo's preferred port 31000 when free: two at once would meet there, hence one group. No test in
#   "hosts" can take 31000 (they bind port 0, which Linux gives from the ephemeral range, 32768 and up), and each
#   demo keeps its pid file, log and runs under the test's own XDG_STATE_HOME and TMPDIR.
# - the sshd modules (test_ssh_*.py; the module-scoped sshd fixture keeps each file in one worker as its own group):
#   each file has its own sshd on a free port, each test host its own free API port, pid file and log under
#   tmp_path; a process-managed host finds its server by that pid file, else by command line on that port only
#   (mtptui.remote.process.find_by_command_line), and TestHost.cleanup kills by that port. So no test there can
#   find, stop or restart another test's server, nor one of "hosts" (their ports differ; the bind-to-0 pick is
#   the kernel's, never handed out twice while bound).
# - modules that only read recorded logs, render plans or parse the CLI (test_tune.py, test_tune_engines.py,
#   test_tune_gateway.py, test_tune_adaptive.py, test_ui_feed.py, test_ui_ops_snapshots.py,
#   test_ui_health_snapshots.py, test_ui_restart_confirm.py, test_cli_foundation.py, test_secrets.py) start no
#   server, stop none and look for none: they were in "hosts" by a name prefix only.
LAB_FIXTURES = frozenset({"lab", "lab_each", "lab_systemd", "lab_process", "lab_process_each", "lab_terminal"})
LAB_FILES = ("test_lab", "test_e2e_lab")
HOST_FIXTURES = frozenset({"demo_run"})
HOST_FILES = ("test_demo_", "test_ui_demo", "test_ui_health.py", "test_ui_health_adaptive.py", "test_ui_restart.py",
              "test_tune_adaptive_live.py")  # modules that start a DemoRun of their own, without demo_run
TMUX_FILES = ("test_e2e",)  # test_e2e_demo_tmux.py, test_e2e_story_tmux.py (the lab's e2e is a lab module)


def xdist_group_of(item: pytest.Item) -> str:
    fixtures = set(getattr(item, "fixturenames", ()))
    if LAB_FIXTURES & fixtures or item.path.name.startswith(LAB_FILES):
        return f"lab:{item.path.name}"
    if "vllm_server" in fixtures:
        return "vllm-server"
    if HOST_FIXTURES & fixtures or item.path.name.startswith(HOST_FILES):
        return "hosts"
    if item.path.name.startswith(TMUX_FILES):
        return "e2e-tmux"
    return item.path.name


# xdist hands a worker the next group when it runs dry, in the order of its queue; by default it sorts the queue
# by test count, which put groups of a few long tests (the tune's arms, the gateway's drains) late, one worker
# running one alone at the end. Instead the queue is longest first: LONG_GROUPS (each took minutes in earlier
# make test JUnit runs, ~150-380 s; benchmarks/suite_time.py lists a run's groups by time), then the lab modules
# (each boots a machine and waits on its server), then the rest by test count, so what is left at the end is short.
# The lab's real vLLM (lab:test_lab_vllm_real.py: 70 s alone, minutes under load) goes early, beside "hosts", so
# it is done before the other worker starts the session's real vLLM ("vllm-server"): two at once crawl on 2 cores.
# "e2e-tmux" (~100 s alone: two benches and three demo startups at the simulated server's real pace) is last of
# the long ones, never the tail.
LONG_GROUPS = ("hosts", "lab:test_lab_vllm_real.py", "lab:test_lab_tune.py", "lab:test_lab_gateway_restart.py",
               "vllm-server", "test_flags_sglang_differential.py", "lab:test_lab_host_lint.py",
               "test_vllm_flags_differential.py", "lab:test_lab_systemd.py", "e2e-tmux")


def longest_first(groups: list[str]) -> list[str]:
    """The groups (one name per test, in collection order) in the order the workers should take them."""
    counts: dict[str, int] = {}
    for group in groups:
        counts[group] = counts.get(group, 0) + 1

    def rank(group: str) -> tuple[int, int]:
        if group in LONG_GROUPS:
            return 0, LONG_GROUPS.index(group)
        return (1 if group.startswith("lab:") else 2), -counts[group]

    return sorted(counts, key=rank)  # stable: equal ranks keep the collection order


def _loadgroup(config: pytest.Config) -> bool:
    return config.pluginmanager.hasplugin("xdist") and getattr(config.option, "dist", "no") == "loadgroup"


def pytest_configure(config: pytest.Config) -> None:
    if _loadgroup(config):
        config.option.loadscopereorder = False  # keep the order pytest_collection_modifyitems gives the queue


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook turns the marks into the @group suffix of node ids
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    groups = [xdist_group_of(item) for item in items]
    for item, group in zip(items, groups):
        item.add_marker(pytest.mark.xdist_group(group))
    if _loadgroup(config):
        order = {group: index for index, group in enumerate(longest_first(groups))}
        ranked = sorted(range(len(items)), key=lambda i: order[groups[i]])  # stable within a group
        items[:] = [items[i] for i in ranked]


def pytest_runtest_setup(item: pytest.Item) -> None:
    """``@pytest.mark.needs(REASON_OR_NONE)``: fail under make test, skip elsewhere (tests/needs.py)."""
    for mark in item.iter_markers("needs"):
        need(mark.args[0])
