"""A test that needs something this machine lacks (a tool, root, a package) says so by name.

Under ``make test`` (which sets ``MTPTUI_TEST_NEEDS_ALL=1`` after installing everything) such a test fails with
the reason: a suite that cannot run a host-driving test must not pass for having skipped it. In a developer's
own ``pytest`` run the same test skips with the same reason.

    @pytest.mark.needs(None if shutil.which("tmux") else "tmux is not installed")   # or, in a fixture:
    need(lab_missing())
"""

from __future__ import annotations

import os

import pytest

STRICT = "MTPTUI_TEST_NEEDS_ALL"


def strict() -> bool:
    return os.environ.get(STRICT) == "1"


def need(missing: str | None) -> None:
    """Go on when ``missing`` is None; otherwise fail (under make test) or skip, naming it."""
    if missing is None:
        return
    if strict():
        pytest.fail(f"cannot run here: {missing} (make test needs every tool; {STRICT}=1)", pytrace=False)
    pytest.skip(missing)
