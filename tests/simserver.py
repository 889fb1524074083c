"""Run the simulated SGLang server (`mtptui sim`) as a real subprocess on loopback, for any test.

    from tests.simserver import start_sim, profile_argv

    with start_sim(tmp_path, profile_argv("restored")) as sim:
        httpx.get(sim.url + "/v1/models")
        assert "ready to roll" in sim.log_text()

``start_sim`` picks a free 127.0.0.1 port, sends stdout+stderr to ``tmp_path/sim-<port>.log``, waits for
the ready line (or for the process to exit: a refused launch is a result too) and stops the server with
SIGTERM on exit. The fixtures at the bottom (``sim_restored``, ``sim_redeploy``) share one server per test
module; import them explicitly in the test module that uses them.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import pytest

ROOT = Path(__file__).resolve().parents[1]
READY_LINE = "The server is fired up and ready to roll!"
DEMO_HOST = ROOT / "configs" / "demo.toml"
MISSION_MODEL = "/data/models/Qwen3.6-27B"


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def profile_argv(name: str, version: str = "0.5.12.post1") -> list[str]:
    """SGLang arguments of a launch profile of the demo host (``restored``, ``redeploy-1step``), with the
    option names of SGLang ``version`` (0.5.23 renamed --mamba-scheduler-strategy)."""
    from mtptui.config import load_host_file
    from mtptui.engines.sglang.flags import FlagSet, render_argv
    from mtptui.engines.sglang.flags.table import renamed

    host = load_host_file(DEMO_HOST)
    names = renamed(version) if version != host.sglang_version else {}
    flagset = FlagSet.from_profile(host.profile(name), host.sglang_version)
    return [names.get(word, word) for word in render_argv(flagset)]


def version_args(version: str) -> list[str]:
    """`mtptui sim` options that make it behave as SGLang ``version``."""
    return ["--sim-version", version]


def profile_env(name: str) -> dict[str, str]:
    """Environment variables of a demo-host launch profile (e.g. SGLANG_ENABLE_SPEC_V2=1)."""
    from mtptui.config import load_host_file

    return dict(load_host_file(DEMO_HOST).profile(name).env)


NO_SPEC_ARGV = ["--model-path", MISSION_MODEL, "--tp-size", "2", "--enable-metrics"]


@dataclass
class SimServer:
    """A running (or exited) `mtptui sim` process."""

    proc: subprocess.Popen
    port: int
    log_path: Path
    host: str = "127.0.0.1"
    version: str = "0.5.12.post1"

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def log_text(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def ready(self) -> bool:
        return READY_LINE in self.log_text()

    def wait_for(self, text: str, timeout: float = 30.0) -> bool:
        """True once ``text`` is in the log; False if the process exits or time runs out first."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if text in self.log_text():
                return True
            if self.proc.poll() is not None:
                return text in self.log_text()
            time.sleep(0.02)
        return False

    def wait_exit(self, timeout: float = 30.0) -> int:
        return self.proc.wait(timeout=timeout)

    def stop(self, timeout: float = 15.0) -> int:
        """SIGTERM and wait (SIGKILL if it does not stop in time); the exit status."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                return self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        return self.proc.wait(timeout=timeout)


def launch_sim(tmp_path: Path, sglang_args: list[str], *, seed: int = 0, speed: float = 200.0,
               port: int | None = None, env: dict[str, str] | None = None,
               sim_args: list[str] | tuple[str, ...] = ()) -> SimServer:
    """Start `python -m mtptui.cli.main sim ...` without waiting; see ``start_sim``."""
    port = port or free_port()
    log_path = Path(tmp_path) / f"sim-{port}.log"
    command = [sys.executable, "-m", "mtptui.cli.main", "sim", "--host", "127.0.0.1", "--port", str(port),
               "--seed", str(seed), "--speed", str(speed), *sim_args, "--", *sglang_args]
    full_env = {**os.environ, **(env or {})}
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                env=full_env, cwd=ROOT)
    args = list(sim_args)
    version = args[args.index("--sim-version") + 1] if "--sim-version" in args else "0.5.12.post1"
    return SimServer(proc, port, log_path, version=version)


@contextlib.contextmanager
def start_sim(tmp_path: Path, sglang_args: list[str], *, seed: int = 0, speed: float = 200.0,
              port: int | None = None, env: dict[str, str] | None = None,
              sim_args: list[str] | tuple[str, ...] = (), timeout: float = 60.0) -> Iterator[SimServer]:
    """A simulated server that is ready (or has exited); stopped with SIGTERM afterwards."""
    sim = launch_sim(tmp_path, sglang_args, seed=seed, speed=speed, port=port, env=env, sim_args=sim_args)
    try:
        sim.wait_for(READY_LINE, timeout)
        yield sim
    finally:
        sim.stop()


def _module_sim(tmp_path_factory: pytest.TempPathFactory, profile: str,
                version: str = "0.5.12.post1") -> Iterator[SimServer]:
    tmp = tmp_path_factory.mktemp(f"sim-{profile}")
    with start_sim(tmp, profile_argv(profile, version), env=profile_env(profile),
                   sim_args=version_args(version)) as sim:
        if not sim.ready():
            pytest.fail(f"simulated server ({profile}, {version}) did not start:\n{sim.log_text()[-3000:]}")
        yield sim


@pytest.fixture(scope="module")
def sim_restored(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SimServer]:
    """The mission's known-good profile (3 MTP steps, 4 draft tokens, qwen3 parsers, metrics on)."""
    yield from _module_sim(tmp_path_factory, "restored")


@pytest.fixture(scope="module", params=["0.5.12.post1", "0.5.23"])
def sim_restored_each(request, tmp_path_factory: pytest.TempPathFactory) -> Iterator[SimServer]:
    """The known-good profile on each supported SGLang version (``sim.version`` says which)."""
    yield from _module_sim(tmp_path_factory, "restored", request.param)


@pytest.fixture(scope="module")
def sim_redeploy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SimServer]:
    """The mission's bad redeploy (1 MTP step, auto draft tokens, one running request)."""
    yield from _module_sim(tmp_path_factory, "redeploy-1step")
