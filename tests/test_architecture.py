"""The gate: design.md's layers, no import circles, ruff and mypy, each a test (see CONTRIBUTING.md)."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.archcheck import circles, folder_graph, import_graph, layer_violations

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "mtptui"


def _plant(tmp_path: Path, files: dict[str, str]) -> Path:
    """A tiny package ``pkg`` under tmp_path with the given module texts."""
    root = tmp_path / "pkg"
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_the_layers_of_design_md_hold():
    assert layer_violations(PACKAGE) == []


def test_no_import_circles():
    assert circles(import_graph(PACKAGE)) == []


def test_the_checker_catches_a_planted_layer_violation(tmp_path):
    root = _plant(tmp_path, {
        "__init__.py": "",
        "ops/__init__.py": "",
        "ops/use.py": "def run():\n    from pkg.cli.out import show\n",
        "cli/__init__.py": "",
        "cli/out.py": "def show(): pass\n",
        "engines/__init__.py": "",
        "engines/sglang/__init__.py": "",
        "engines/sglang/rule.py": "import textual\nfrom pkg.ops import use\n",
        "ui/__init__.py": "",
        "ui/app.py": "import textual\n",
    })
    found = layer_violations(root)
    assert any(line.startswith("pkg.ops.use:2 imports pkg.cli.out") for line in found)
    assert any(line.startswith("pkg.engines.sglang.rule:1 imports textual") for line in found)
    assert any(line.startswith("pkg.engines.sglang.rule:2 imports pkg.ops.use") for line in found)
    assert not any(line.startswith("pkg.ui.") for line in found)


def test_the_engines_layer_imports_none_of_ops_ui_cli(tmp_path):
    root = _plant(tmp_path, {
        "__init__.py": "",
        "engines/__init__.py": "",
        "engines/vllm/__init__.py": "",
        "engines/vllm/rule.py": "def f():\n    from pkg.ops import use\n    from pkg.cli import out\n",
        "ops/__init__.py": "",
        "ops/use.py": "",
        "cli/__init__.py": "",
        "cli/out.py": "",
    })
    found = layer_violations(root)
    assert any(line.startswith("pkg.engines.vllm.rule:2 imports pkg.ops.use") for line in found)
    assert any(line.startswith("pkg.engines.vllm.rule:3 imports pkg.cli.out") for line in found)


def test_ui_reaches_an_engine_package_only_through_the_registry(tmp_path):
    root = _plant(tmp_path, {
        "__init__.py": "",
        "engines/__init__.py": "",
        "engines/registry.py": "",
        "engines/vllm/__init__.py": "",
        "engines/vllm/dashboard.py": "",
        "ui/__init__.py": "",
        "ui/pane.py": "from pkg.engines.registry import x\nfrom pkg.engines.vllm import dashboard\n",
    })
    found = layer_violations(root)
    assert [line.split(" (")[0] for line in found] == ["pkg.ui.pane:2 imports pkg.engines.vllm.dashboard"]


def test_the_checker_catches_a_circle_through_a_function_level_or_type_only_import(tmp_path):
    root = _plant(tmp_path, {
        "__init__.py": "",
        "model.py": "class Diff:\n    def render(self):\n        from pkg.text import render\n",
        "text.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.model import Diff\n",
        "a.py": "from . import b\n",
        "b.py": "from .a import x\n",
        "c.py": "import pkg.model\n",
    })
    assert circles(import_graph(root)) == [["pkg.a", "pkg.b"], ["pkg.model", "pkg.text"]]


def test_the_knowledge_layers_rooms_point_one_way():
    """engines/sglang/'s folders (flags, unit, logparse, state, ...) form no circle: the unit reader builds on the
    flags, never the other way round (the diff's file loader, which read units and host files, lives in ops/)."""
    assert circles(folder_graph(PACKAGE, "mtptui.engines.sglang")) == []


def test_the_use_cases_rooms_point_one_way():
    """ops/'s rooms (restart, tune, feed, health, checks, ...) form no circle: a tune runs restarts, and the
    restart forgets a tune's marker through ops/tune_marker.py, a room of its own, not through the tune."""
    assert circles(folder_graph(PACKAGE, "mtptui.ops")) == []


def test_the_folder_check_catches_two_rooms_leaning_on_each_other(tmp_path):
    root = _plant(tmp_path, {
        "__init__.py": "",
        "engines/__init__.py": "",
        "engines/sglang/__init__.py": "from pkg.engines.sglang.flags import parse\n",
        "engines/sglang/flags/__init__.py": "",
        "engines/sglang/flags/parse.py": "from pkg.engines.sglang import versions\n",
        "engines/sglang/flags/sources.py": "def load():\n    from pkg.engines.sglang.unit import read\n"
                                   "    from pkg.config.loader import find_host\n",
        "engines/sglang/unit/__init__.py": "",
        "engines/sglang/unit/read.py": "from pkg.engines.sglang.flags import parse\n",
        "engines/sglang/versions.py": "",
        "config/__init__.py": "",
        "config/loader.py": "",
    })
    assert circles(folder_graph(root, "pkg.engines.sglang")) == [["pkg.engines.sglang.flags",
                                                                  "pkg.engines.sglang.unit"]]
    assert any(line.startswith("pkg.engines.sglang.flags.sources:3 imports pkg.config.loader")
               for line in layer_violations(root))


def _tool(name: str) -> str:
    found = shutil.which(name, path=str(Path(sys.executable).parent)) or shutil.which(name)
    if found is None:
        pytest.fail(f"{name} is not installed: pip install -e '.[test]'")
    return found


def test_ruff_finds_nothing():
    run = subprocess.run([_tool("ruff"), "check", "mtptui", "tests"], cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr


# Packages mypy must pass (strict where pyproject.toml says so); widen this list, never shorten it.
TYPED = ["mtptui"]  # the whole package, ui/ and the top-level modules included (issue 27)


def test_mypy_passes_on_the_typed_packages():
    run = subprocess.run([_tool("mypy"), *TYPED], cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr


def _terminal_readers(package: Path) -> list[str]:
    """Modules outside cli/ that ask the person at the terminal (``input()``, ``getpass.getpass``)."""
    found = []
    for path in package.rglob("*.py"):
        if path.relative_to(package).parts[0] == "cli":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                name = ast.unparse(node.func)
                if name in ("input", "getpass.getpass", "getpass"):
                    found.append(f"{path.relative_to(package)}:{node.lineno} {name}()")
    return found


def test_only_the_cli_asks_the_terminal(tmp_path):
    """A question on the terminal (the host-key prompt) belongs to the CLI; the dashboard asks in a dialog."""
    assert _terminal_readers(PACKAGE) == []
    planted = _plant(tmp_path, {"ops/connect.py": "def ask():\n    return input('trust? ')\n"})
    assert _terminal_readers(planted) == ["ops/connect.py:2 input()"]


# ops/ talks to a host's service manager through mtptui.remote.service only (issue 23): the concrete managers and
# the systemd modules are remote/'s, and only these functions test the server's config class, each to read the host
# file (which fields it has), never to pick what a manager does.
MANAGER_MODULES = ("remote.systemd", "remote.systemd_state")
MANAGER_CLASSES = {"SystemdManager", "ProcessManager"}  # the hand-back's own manager is the hand-back's to use
SERVER_CLASSES = {"SystemdServer", "ProcessServer"}
READS_THE_HOST_FILE = {
    "ops.diff_sides:local_reference_side",  # a hand-started server's unit_file, read on this machine
    "ops.restart.handback:replaced_unit",  # the host file names the unit its hand-started server replaced
    "ops.restart.handback:offers_handback",
    "ops.restart.handback:handback_session",
    "ops.restart.handback:host_file_advice",
}


def _manager_switches(package: Path) -> list[str]:
    """Where ``package``/ops imports a concrete manager or a systemd module, or tests the server's config class
    outside READS_THE_HOST_FILE."""
    pkg, found = package.name, []
    for path in sorted((package / "ops").rglob("*.py")):
        module = ".".join(path.relative_to(package).with_suffix("").parts)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            for name in names:
                if name.split(".")[-1] in MANAGER_CLASSES or \
                        any(name == f"{pkg}.{m}" or name.startswith(f"{pkg}.{m}.") for m in MANAGER_MODULES):
                    found.append(f"{module}:{node.lineno} imports {name}")
        for func in ast.walk(tree):
            if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)) or \
                    f"{module}:{func.name}" in READS_THE_HOST_FILE:
                continue
            for node in ast.walk(func):
                if isinstance(node, ast.Call) and ast.unparse(node.func) == "isinstance" and len(node.args) == 2 and \
                        SERVER_CLASSES & {n.id for n in ast.walk(node.args[1]) if isinstance(n, ast.Name)}:
                    found.append(f"{module}:{node.lineno} switches on the server's config class in {func.name}")
    return sorted(set(found))


def test_ops_talks_to_the_service_manager_protocol_only():
    assert _manager_switches(PACKAGE) == []


def test_the_manager_switch_check_catches_the_switches_issue_23_removed(tmp_path):
    root = _plant(tmp_path, {
        "ops/checks/server.py": "from pkg.config.models import ProcessServer, SystemdServer\n"
                                "from pkg.remote.systemd_state import killed_by_signal\n"
                                "from pkg.remote.systemd import systemctl_command\n"
                                "async def check_server(ctx):\n"
                                "    if isinstance(ctx.host.server, SystemdServer):\n"
                                "        return 1\n"
                                "def _unit_server(ctx):\n"
                                "    assert isinstance(ctx.host.server, (SystemdServer, ProcessServer))\n",
        "ops/restart/handback.py": "def replaced_unit(host):\n    return isinstance(host.server, ProcessServer)\n"
                                   "def handback_session(session, unit):\n"
                                   "    from pkg.remote.process import ProcessManager\n"
                                   "    import pkg.remote.systemd\n",
    })
    assert _manager_switches(root) == [
        "ops.checks.server:2 imports pkg.remote.systemd_state",
        "ops.checks.server:2 imports pkg.remote.systemd_state.killed_by_signal",
        "ops.checks.server:3 imports pkg.remote.systemd",
        "ops.checks.server:3 imports pkg.remote.systemd.systemctl_command",
        "ops.checks.server:5 switches on the server's config class in check_server",
        "ops.checks.server:8 switches on the server's config class in _unit_server",
        "ops.restart.handback:4 imports pkg.remote.process.ProcessManager",
        "ops.restart.handback:5 imports pkg.remote.systemd",
    ]
