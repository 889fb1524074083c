"""`mtptui demo`'s run: the mission's bad state, lived locally with no GPU and no SSH.

``DemoRun.prepare()`` makes a per-run directory (under ``$XDG_STATE_HOME/mtptui/demo/``, where only the last
``KEEP_RUNS`` stay: older ones whose server is gone are removed) holding the demo host file (a local, process-
managed host: ports and paths pointing into the directory, profiles launched by this Python, ``server.unit_file``
the known-good systemd unit rendered from the ``restored`` profile) and the log. ``start()`` launches ``python -m
sglang.launch_server`` with the ``redeploy-1step`` profile as a detached process, the way the ad-hoc nohup redeploy
ran (the world the operator finds, not something mtptui does); with ``server_environment()`` in the environment that
command runs the simulated server (the stand-in ``sglang`` package in ``mtptui/demo_sglang/``), so the process list,
restarts and diffs see SGLang's real command line. ``feed()`` is any host's feed (mtptui.ops.feed.host) plus a
steady stream of the mission's coding prompt, so the log shows decode batches; ``stop()`` ends the server.

``prepare(engine="vllm")`` is the same story on vLLM (configs/demo-vllm.toml): ``python -m
vllm.entrypoints.openai.api_server --model ...`` from the stand-in ``vllm`` package in ``mtptui/demo_vllm/`` runs
the simulated vLLM, and the known-good unit is written in vLLM's words. What differs by engine (the command
line, the unit, the stand-in, the host file) is the engine registry's (mtptui.engines.registry: ``Launcher``).

``MTPTUI_DEMO_SPEED`` sets the startup pace (default 3; benchmarks/demo_ready.py measures the time to ready); the
tests use more.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from mtptui.config import HostConfig, load_host_file
from mtptui.config.loader import dump_host
from mtptui.errors import UserError
from mtptui.demo.load import DemoLoad
from mtptui.ops.feed.items import Feed

if TYPE_CHECKING:
    from mtptui.demo.profiles import DemoProfileStore
    from mtptui.ops.connect import HostSession

PACKAGES = Path(__file__).resolve().parent.parent
STAND_IN_BIN = Path(__file__).resolve().parent.parent / "demo_bin"  # the stand-in nvidia-smi (see its docstring)

BAD_PROFILE = "redeploy-1step"
KEEP_RUNS = 5  # demo runs kept under the state folder: enough to look at the last ones, not a growing pile
RUN_PREFIX = "run-"
UNIT_NAME = "sglang-qwen.service"
DEFAULT_SPEED = 3.0
PREFERRED_PORT = 31000


def demo_host_file(engine: str | None = None) -> Path:
    """The demo host of ``engine`` (default SGLang's configs/demo.toml) in a source checkout, else the copy shipped
    inside the package."""
    from mtptui.config.paths import shipped_config
    from mtptui.engines.registry import launcher

    return shipped_config(launcher(engine).demo_host)


def demo_speed() -> float:
    """The startup pace from MTPTUI_DEMO_SPEED; a bad value is a UserError, not a traceback."""
    text = os.environ.get("MTPTUI_DEMO_SPEED", "")
    try:
        speed = float(text) if text else DEFAULT_SPEED
    except ValueError:
        raise UserError(f"MTPTUI_DEMO_SPEED must be a number, not {text!r}") from None
    if speed <= 0:
        raise UserError("MTPTUI_DEMO_SPEED must be a positive number")
    return speed


def pick_port(preferred: int = PREFERRED_PORT) -> int:
    """The preferred port when it is free on 127.0.0.1, else any free one."""
    for port in (preferred, 0):
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            bound: int = sock.getsockname()[1]  # (host, port) of an AF_INET socket
            return bound
    raise UserError("cannot find a free TCP port on 127.0.0.1 for the simulated server")


def localized_host(template: HostConfig, run_dir: Path, port: int) -> HostConfig:
    """The demo host with its API port, log, pid file and profiles pointing at this run."""
    data = template.model_dump(mode="json", exclude_unset=True)
    data["api_url"] = f"http://127.0.0.1:{port}"
    log = str(run_dir / f"{template.engine}.log")
    data["server"] = {**data.get("server", {}), "manager": "process", "log_file": log,
                      "pid_file": str(run_dir / f"{template.engine}.pid"), "workdir": str(run_dir),
                      "unit_file": str(run_dir / unit_name(template))}
    data["log"] = {"kind": "file", "path": log}
    for profile in data.get("profiles", {}).values():
        profile.setdefault("flags", {})["port"] = port
        profile["python"] = sys.executable  # the interpreter that has mtptui (and so the simulated server)
    return HostConfig.model_validate(data)


def unit_name(host: HostConfig) -> str:
    """sglang-qwen.service (UNIT_NAME), vllm-qwen.service: the known-good unit of the host's engine."""
    return f"{host.engine}-qwen.service"


def known_good_unit(host: HostConfig) -> str:
    """The systemd unit that ran the known-good profile before the redeploy (rendered, never started), in the
    words of the host's engine."""
    from mtptui.engines.registry import engine, launcher

    label = engine(host.engine).label
    skeleton = (f"[Unit]\nDescription={label} Qwen3.6-27B (MTP) on port 30000\nAfter=network-online.target\n\n"
                "[Service]\nType=simple\nUser=ops\nExecStart=/bin/true\nRestart=on-failure\n\n"
                "[Install]\nWantedBy=multi-user.target\n")
    profile = host.profile(host.known_good or "restored")
    return launcher(host.engine).unit(skeleton, unit_name(host), host, profile)


@dataclass
class DemoRun:
    """One demo: its directory, host, simulated server process and background load."""

    run_dir: Path
    host: HostConfig
    speed: float = DEFAULT_SPEED
    process: subprocess.Popen[bytes] | None = None
    load: DemoLoad | None = None

    @classmethod
    def prepare(cls, base_dir: str | os.PathLike[str] | None = None, speed: float | None = None,
                engine: str | None = None) -> "DemoRun":
        """A demo of ``engine`` (default SGLang): its host file, run directory, known-good unit."""
        from mtptui.demo.profiles import with_saved_profiles

        template = with_saved_profiles(load_host_file(demo_host_file(engine)))  # plus what earlier demos saved
        base = Path(base_dir) if base_dir is not None else runs_home()
        base.mkdir(parents=True, exist_ok=True)
        prune_runs(base, KEEP_RUNS - 1)
        run_dir = Path(tempfile.mkdtemp(prefix=f"{RUN_PREFIX}{time.strftime('%Y%m%d-%H%M%S')}-", dir=base))
        host = localized_host(template, run_dir, pick_port())
        run = cls(run_dir, host, speed if speed is not None else demo_speed())
        run.unit_path.write_text(known_good_unit(host), encoding="utf-8")
        run.host_path.write_text(dump_host(host), encoding="utf-8")
        return run

    @property
    def log_path(self) -> Path:
        return self.run_dir / f"{self.host.engine}.log"

    @property
    def pid_path(self) -> Path:
        return self.run_dir / f"{self.host.engine}.pid"

    @property
    def unit_path(self) -> Path:
        return self.run_dir / unit_name(self.host)

    @property
    def host_path(self) -> Path:
        return self.run_dir / "demo.toml"

    @property
    def api_url(self) -> str:
        return self.host.api_url

    def server_environment(self) -> dict[str, str]:
        """What `python -m sglang.launch_server` needs to run the simulated server at the demo's pace, and what
        the stand-in nvidia-smi (first on the PATH) needs to show that server's load on its GPUs."""
        from mtptui.engines.registry import launcher

        paths = [str(PACKAGES / launcher(self.host.engine).stand_in), *filter(None, [os.environ.get("PYTHONPATH")])]
        return {"PYTHONPATH": os.pathsep.join(paths), "MTPTUI_SIM_SPEED": f"{self.speed:g}",
                "PATH": os.pathsep.join([str(STAND_IN_BIN), os.environ.get("PATH", os.defpath)]),
                "MTPTUI_SIM_GPU_STATE": str(self.run_dir / "gpu.json"), "MTPTUI_STANDIN_PYTHON": sys.executable}

    def launch_argv(self, profile: str) -> list[str]:
        """The profile's command line, exactly as its engine would be started with it."""
        from mtptui.engines.registry import launcher

        return launcher(self.host.engine).words(self.host, self.host.profile(profile))

    def start(self, profile: str = BAD_PROFILE) -> subprocess.Popen[bytes]:
        """Launch the server detached (its own session), the log appended to the run's log file."""
        env = {**os.environ, **self.server_environment(), **self.host.profile(profile).env}
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen(self.launch_argv(profile), stdout=log, stderr=subprocess.STDOUT,
                                            stdin=subprocess.DEVNULL, start_new_session=True, env=env,
                                            cwd=self.run_dir)
        self.pid_path.write_text(f"{self.process.pid}\n", encoding="utf-8")
        return self.process

    def pid_file_pid(self) -> int | None:
        """The pid the pid file names (the first server's, or the one a restart launched), if any."""
        return _pid_in(self.pid_path)

    def service(self) -> tuple[str, str]:
        """("process pid N", state) of the server named by the pid file."""
        pid = self.pid_file_pid()
        if pid is None:
            return "process", "not started"
        if self.process is not None and self.process.pid == pid:
            code = self.process.poll()
            return f"process pid {pid}", "running" if code is None else f"exited (status {code})"
        return f"process pid {pid}", "running" if _alive(pid) else "not running"

    def feed(self, session: HostSession, with_load: bool = True) -> Feed:
        """The dashboard's feed: any host's (``session`` is a mtptui.ops.connect session on the demo host), plus
        the background load unless MTPTUI_DEMO_LOAD=0."""
        from mtptui.ops.feed.host import feed_for_host

        if with_load and os.environ.get("MTPTUI_DEMO_LOAD", "1") != "0":
            self.load = DemoLoad(self.api_url)
        return feed_for_host(session, extra=[self.load] if self.load else [])

    def profile_store(self) -> DemoProfileStore:
        """Where profiles made in this run go: without this run's paths and port, for the next demo too."""
        from mtptui.demo.profiles import DemoProfileStore

        return DemoProfileStore(demo_host_file(self.host.engine))

    def stop(self, timeout_s: float = 5.0) -> int | None:
        """Stop the server this demo started and, after a restart, the one the pid file names (SIGTERM to the
        process group, SIGKILL after ``timeout_s``); the exit status of the first one."""
        for pid in self._other_servers():
            _stop_group(pid, timeout_s)
        process = self.process
        if process is None:
            return None
        if process.poll() is None:
            _signal_group(process.pid, signal.SIGTERM)
            try:
                return process.wait(timeout_s)
            except subprocess.TimeoutExpired:
                _signal_group(process.pid, signal.SIGKILL)
        return process.wait(timeout_s)

    def _other_servers(self) -> list[int]:
        """A live server named by the pid file that is not our own child (a restart launched it)."""
        pid, own = self.pid_file_pid(), self.process.pid if self.process is not None else None
        return [pid] if pid is not None and pid != own and _alive(pid) else []


def runs_home() -> Path:
    """``$XDG_STATE_HOME/mtptui/demo``: the demo's runs (logs, host file, unit) outlive it, a few at a time."""
    from mtptui.config.paths import state_home

    return state_home() / "demo"


def prune_runs(base: Path, keep: int) -> list[Path]:
    """Remove all but the newest ``keep`` run folders in ``base`` whose server no longer runs; the removed."""
    import shutil

    runs = sorted((p for p in base.glob(f"{RUN_PREFIX}*") if p.is_dir()), key=lambda p: p.name, reverse=True)
    removed = []
    for old in runs[keep:]:
        pid = _pid_in(old / "sglang.pid")
        if pid is not None and _alive(pid):
            continue  # another demo still runs from it
        shutil.rmtree(old, ignore_errors=True)
        removed.append(old)
    return removed


def _pid_in(path: Path) -> int | None:
    try:
        return int(path.read_text().strip())
    except (OSError, ValueError):
        return None


def _stop_group(pid: int, timeout_s: float) -> None:
    """SIGTERM a process group that is not our child, SIGKILL if it outlives ``timeout_s``."""
    _signal_group(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout_s
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    if _alive(pid):
        _signal_group(pid, signal.SIGKILL)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        try:
            os.kill(pid, 0)
        except OSError:
            return False
        return True


def _signal_group(pid: int, sig: int) -> None:
    try:
        os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass

