"""The gate: design.md's layers, no import circles, ruff and mypy, each a test (see CONTRIBUTING.md)."""

from __future__ import annotations

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
TYPED = ["mtptui/config", "mtptui/remote", "mtptui/sglang", "mtptui/bench", "mtptui/ops"]


def test_mypy_passes_on_the_typed_packages():
    run = subprocess.run([_tool("mypy"), *TYPED], cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
