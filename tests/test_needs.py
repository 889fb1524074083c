"""The suite cannot pass by skipping: under make test a test whose tool is missing fails and names the tool."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.conftest import ROOT

PROBE = '''
import pytest
from tests.needs import need

@pytest.mark.needs("frobnicator is not installed")
def test_marked():
    pass

def test_called():
    need("the lab needs root")

@pytest.mark.needs(None)
def test_present():
    pass
'''


def run_probe(tmp_path, strict: bool) -> subprocess.CompletedProcess:
    probe = tmp_path / "test_probe.py"
    probe.write_text(PROBE)
    env = {k: v for k, v in os.environ.items() if k != "MTPTUI_TEST_NEEDS_ALL"}
    if strict:
        env["MTPTUI_TEST_NEEDS_ALL"] = "1"
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
                           "--rootdir", str(ROOT), "-c", str(ROOT / "pyproject.toml"), "-p", "tests.conftest",
                           str(probe), "-rfs"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120, env=env)


def test_under_make_test_a_missing_tool_fails_and_is_named(tmp_path):
    done = run_probe(tmp_path, strict=True)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "1 failed, 1 passed, 1 error" in done.stdout, done.stdout  # a mark fails its setup: an error
    assert "cannot run here: frobnicator is not installed" in done.stdout
    assert "cannot run here: the lab needs root" in done.stdout


def test_elsewhere_it_skips_with_the_same_reason(tmp_path):
    done = run_probe(tmp_path, strict=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed, 2 skipped" in done.stdout, done.stdout
    assert "frobnicator is not installed" in done.stdout and "the lab needs root" in done.stdout
