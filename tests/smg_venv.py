"""Build (once) the venv of the real SGLang gateway, ``smg==1.13.0`` from PyPI, outside the repository; and, for
the tests of the older router API generations, the real ``sglang-router`` releases 0.1.9 and 0.2.4.

Each lives under ``${MTPTUI_TEST_CACHE:-${XDG_CACHE_HOME:-~/.cache}/mtptui-test}/NAME-VERSION``, next to the SGLang
venvs of tests/sglang_standins/venv.py. The build goes into a temporary directory beside it and is renamed into
place only when finished, with a stamp file inside, so a test never sees a half-built venv and two engineers
building at once do not step on each other (the second one's rename finds the first one's venv and is dropped).
A venv is not relocatable (its scripts name their interpreter by path), so the gateway is run as
``PYTHON -m smg`` (``-m sglang_router.launch_router``), never through a script in ``bin/``. Run as a script to build
ahead of the tests: ``python -m tests.smg_venv [REQUIREMENT...]`` (prints each interpreter; default smg).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.sglang_standins.venv import cache_root

SMG = "smg==1.13.0"
OLD_ROUTERS = ("sglang-router==0.1.9", "sglang-router==0.2.4")
STAMP = ".mtptui-ready"
PIP_TRIES = 4


def home(requirement: str = SMG) -> Path:
    return cache_root() / requirement.replace("==", "-")


def python(requirement: str = SMG) -> Path:
    return home(requirement) / "bin" / "python"


def ready(requirement: str = SMG) -> bool:
    stamp = home(requirement) / STAMP
    return stamp.is_file() and stamp.read_text() == requirement + "\n" and python(requirement).exists()


def _pip_env() -> dict[str, str]:
    """pip's environment: without the tests' loopback-only guard (an install step needs the registry)."""
    env = dict(os.environ)
    parts = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p and not p.rstrip("/").endswith("netguard")]
    env["PYTHONPATH"] = os.pathsep.join(parts)
    env["PIP_CACHE_DIR"] = str(cache_root() / "pip")
    return env


def _install(venv: Path, requirement: str) -> None:
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
           "--no-compile", requirement]
    for attempt in range(PIP_TRIES):
        done = subprocess.run(pip, capture_output=True, text=True, env=_pip_env())
        if done.returncode == 0:
            return
        time.sleep(3 * 2 ** attempt)
    raise RuntimeError(f"pip install {requirement} failed:\n{done.stderr[-3000:]}")


def ensure(requirement: str = SMG) -> Path:
    """The venv's python, building the venv first when it is missing (idempotent, safe across processes)."""
    if ready(requirement):
        return python(requirement)
    target = home(requirement)
    target.parent.mkdir(parents=True, exist_ok=True)
    building = Path(tempfile.mkdtemp(prefix=f".{target.name}-build-", dir=target.parent))
    try:
        subprocess.run([sys.executable, "-m", "venv", str(building)], check=True, capture_output=True)
        _install(building, requirement)
        (building / STAMP).write_text(requirement + "\n")
        if target.exists() and not ready(requirement):
            shutil.rmtree(target, ignore_errors=True)  # an older or broken build: replaced by this one
        try:
            building.rename(target)
        except OSError:
            if not ready(requirement):  # not another build that won the race
                raise
    finally:
        shutil.rmtree(building, ignore_errors=True)
    return python(requirement)


if __name__ == "__main__":
    for wanted in sys.argv[1:] or [SMG]:
        started, was_ready = time.monotonic(), ready(wanted)
        print(ensure(wanted))
        print(f"{wanted}: {'warm' if was_ready else 'cold'}, {time.monotonic() - started:.1f} s", file=sys.stderr)
