"""The gate: design.md's layers, no import circles, ruff and mypy, each a test (see CONTRIBUTING.md)."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.archcheck import circles, import_graph, layer_violations

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
        "sglang/__init__.py": "",
        "sglang/rule.py": "import textual\nfrom pkg.ops import use\n",
        "ui/__init__.py": "",
        "ui/app.py": "import textual\n",
    })
    found = layer_violations(root)
    assert any(line.startswith("pkg.ops.use:2 imports pkg.cli.out") for line in found)
    assert any(line.startswith("pkg.sglang.rule:1 imports textual") for line in found)
    assert any(line.startswith("pkg.sglang.rule:2 imports pkg.ops.use") for line in found)
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


def _tool(name: str) -> str:
    found = shutil.which(name, path=str(Path(sys.executable).parent)) or shutil.which(name)
    if found is None:
        pytest.fail(f"{name} is not installed: pip install -e '.[test]'")
    return found


def test_ruff_finds_nothing():
    run = subprocess.run([_tool("ruff"), "check", "mtptui", "tests"], cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr


# Packages mypy must pass (strict where pyproject.toml says so); widen this list, never shorten it.
TYPED = ["mtptui/config", "mtptui/remote", "mtptui/sglang", "mtptui/engines", "mtptui/bench", "mtptui/ops",
         "mtptui/gateway", "mtptui/fleet", "mtptui/secrets.py", "mtptui/sim", "mtptui/demo",
         "mtptui/cli"]


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
