"""Build (once) a venv per SGLang release from its published wheel, without its heavy dependencies.

The wheel is installed with ``--no-deps``; next to it only the light packages its argument stage imports
(found by trying), with transformers at the wheel's own pin. torch, triton, flashinfer, sgl_kernel and the
other GPU packages are the stand-ins of mtptui/engines/sglang/lint/sglang_standins.py. Venvs and wheels live outside
the repository, under ``${MTPTUI_TEST_CACHE:-${XDG_CACHE_HOME:-~/.cache}/mtptui-test}``; a stamp file marks a
finished build, so a second call costs nothing and an interrupted one is redone. Run as a script to build ahead
of the tests: ``python tests/sglang_standins/venv.py 0.5.23``.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

VERSIONS = ("0.5.12.post1", "0.5.23")
# Unpinned on purpose: the wheel itself leaves them open; only its own pins (transformers, openai) are kept.
LIGHT = ["msgspec", "numpy", "orjson", "pybase64", "pillow", "starlette", "pyzmq", "aiohttp", "dill", "sentencepiece",
         "gguf", "psutil", "requests", "packaging", "PyYAML", "regex", "tqdm", "pydantic"]
EXTRA = {
    "0.5.12.post1": ["transformers==5.6.0", "openai==2.6.1", "partial-json-parser==0.2.1.1.post7",
                     "einops==0.8.2"],
    "0.5.23": ["transformers==5.19.0", "openai==2.8.0", "partial-json-parser", "openai-harmony==0.0.4", "einops"],
}
STAMP_TEXT = "\n".join(LIGHT) + "\n"


def _cache_root() -> Path:
    base = os.environ.get("MTPTUI_TEST_CACHE")
    if base:
        return Path(base)
    xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(xdg) / "mtptui-test"


CACHE = _cache_root()  # read at import: the tests' fixtures point XDG_CACHE_HOME at a fresh directory later


def cache_root() -> Path:
    return CACHE


def _registry_env() -> dict[str, str]:
    """The environment for pip: without the tests' loopback-only network guard (tests/netguard), since
    building the venv is an install step that needs the package registry, like `make test`'s own pip."""
    env = dict(os.environ)
    parts = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p and not p.rstrip("/").endswith("netguard")]
    env["PYTHONPATH"] = os.pathsep.join(parts)
    env["PIP_CACHE_DIR"] = str(CACHE / "pip")  # shared by both releases' venvs, whatever XDG_CACHE_HOME says
    return env


def _pip(python: Path, *args: str, tries: int = 5) -> None:
    """pip install (tried again when the index answers short); its complaints about the heavy dependencies
    left out are kept only when it fails."""
    for attempt in range(tries):
        done = subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                               "--no-compile", *args], capture_output=True, text=True, env=_registry_env())
        if done.returncode == 0:
            return
        time.sleep(5 * 2 ** attempt)
    if done.returncode:
        raise RuntimeError(f"pip install {' '.join(args)} failed:\n{done.stderr[-3000:]}")


def _wheel(version: str) -> Path:
    wheels = cache_root() / "wheels"
    found = sorted(wheels.glob(f"sglang-{version}-*.whl"))
    if found:
        return found[0]
    wheels.mkdir(parents=True, exist_ok=True)
    done = subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                           "--disable-pip-version-check", "-d", str(wheels), f"sglang=={version}"],
                          capture_output=True, text=True, env=_registry_env())
    if done.returncode:
        raise RuntimeError(f"pip download sglang=={version} failed:\n{done.stderr[-3000:]}")
    return sorted(wheels.glob(f"sglang-{version}-*.whl"))[0]


def _build(version: str, home: Path) -> None:
    shutil.rmtree(home, ignore_errors=True)
    subprocess.run([sys.executable, "-m", "venv", str(home)], check=True)
    python = home / "bin" / "python"
    _pip(python, "--no-deps", str(_wheel(version)))
    _pip(python, *LIGHT, *EXTRA[version])


def ensure(version: str) -> Path:
    """The python of the venv for ``version`` (built on first use; idempotent, safe across processes)."""
    home = cache_root() / f"sglang-{version}"
    stamp = home / ".mtptui-ready"
    wanted = STAMP_TEXT + "\n".join(EXTRA[version]) + "\n"
    home.parent.mkdir(parents=True, exist_ok=True)
    with open(home.parent / f".lock-{version}", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (stamp.exists() and stamp.read_text() == wanted):
            _build(version, home)
            stamp.write_text(wanted)
    return home / "bin" / "python"


if __name__ == "__main__":
    for name in sys.argv[1:] or VERSIONS:
        print(ensure(name))
