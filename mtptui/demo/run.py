"""`mtptui demo`'s run: the mission's bad state, lived locally with no GPU and no SSH.

``DemoRun.prepare()`` makes a per-run directory holding the demo host file (a local, process-managed host: ports
and paths pointing into the directory, profiles launched by this Python, ``server.unit_file`` the known-good
systemd unit rendered from the ``restored`` profile) and the log. ``start()`` launches
``python -m sglang.launch_server`` with the ``redeploy-1step`` profile as a detached process, the way the ad-hoc
nohup redeploy ran (the world the operator finds, not something mtptui does); with ``server_environment()`` in
the environment that command runs the simulated server (the stand-in ``sglang`` package in
``mtptui/demo_sglang/``), so the process list, restarts and diffs see SGLang's real command line. ``feed()`` is
any host's feed (mtptui.ops.feed_host) plus a steady stream of the mission's coding prompt, so the log shows
decode batches; ``stop()`` ends the server.

``MTPTUI_DEMO_SPEED`` sets the startup pace (default 3: about 15 s from launch to ready); the tests use more.
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

from mtptui.config import HostConfig, load_host_file
from mtptui.config.loader import dump_host
from mtptui.errors import UserError
from mtptui.demo.load import DemoLoad
from mtptui.ops.feed import Feed

SHIM_PATH = Path(__file__).resolve().parent.parent / "demo_sglang"
STAND_IN_BIN = Path(__file__).resolve().parent.parent / "demo_bin"  # the stand-in nvidia-smi (see its docstring)

BAD_PROFILE = "redeploy-1step"
UNIT_NAME = "sglang-qwen.service"
DEFAULT_SPEED = 3.0
PREFERRED_PORT = 31000


def demo_host_file() -> Path:
    """configs/demo.toml of a source checkout, else the copy shipped inside the package."""
    from mtptui.config.paths import shipped_config

    return shipped_config("demo.toml")


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
            return sock.getsockname()[1]
    raise UserError("cannot find a free TCP port on 127.0.0.1 for the simulated server")


def localized_host(template: HostConfig, run_dir: Path, port: int) -> HostConfig:
    """The demo host with its API port, log, pid file and profiles pointing at this run."""
    data = template.model_dump(mode="json", exclude_unset=True)
    data["api_url"] = f"http://127.0.0.1:{port}"
    data["server"] = {**data.get("server", {}), "manager": "process", "log_file": str(run_dir / "sglang.log"),
                      "pid_file": str(run_dir / "sglang.pid"), "workdir": str(run_dir),
                      "unit_file": str(run_dir / UNIT_NAME)}
    data["log"] = {"kind": "file", "path": str(run_dir / "sglang.log")}
    for profile in data.get("profiles", {}).values():
        profile.setdefault("flags", {})["port"] = port
        profile["python"] = sys.executable  # the interpreter that has mtptui (and so the simulated server)
    return HostConfig.model_validate(data)


def known_good_unit(host: HostConfig) -> str:
    """The systemd unit that ran the known-good profile before the redeploy (rendered, never started)."""
    from mtptui.sglang.flags import FlagSet
    from mtptui.sglang.unit import read_unit, with_launch

    skeleton = ("[Unit]\nDescription=SGLang Qwen3.6-27B (MTP) on port 30000\nAfter=network-online.target\n\n"
                "[Service]\nType=simple\nUser=ops\nExecStart=/bin/true\nRestart=on-failure\n\n"
                "[Install]\nWantedBy=multi-user.target\n")
    flagset = FlagSet.from_profile(host.profile(host.known_good or "restored"), host.sglang_version)
    return with_launch(read_unit(skeleton, UNIT_NAME), flagset)


@dataclass
class DemoRun:
    """One demo: its directory, host, simulated server process and background load."""

    run_dir: Path
    host: HostConfig
    speed: float = DEFAULT_SPEED
    process: subprocess.Popen | None = None
    load: DemoLoad | None = None

    @classmethod
    def prepare(cls, base_dir: str | os.PathLike[str] | None = None, speed: float | None = None) -> "DemoRun":
        from mtptui.demo.profiles import with_saved_profiles

        template = with_saved_profiles(load_host_file(demo_host_file()))  # plus what earlier demos saved
        run_dir = Path(tempfile.mkdtemp(prefix="mtptui-demo-", dir=base_dir))
        host = localized_host(template, run_dir, pick_port())
        run = cls(run_dir, host, speed if speed is not None else demo_speed())
        run.unit_path.write_text(known_good_unit(host), encoding="utf-8")
        run.host_path.write_text(dump_host(host), encoding="utf-8")
        return run

    @property
    def log_path(self) -> Path:
        return self.run_dir / "sglang.log"

    @property
    def pid_path(self) -> Path:
        return self.run_dir / "sglang.pid"

    @property
    def unit_path(self) -> Path:
        return self.run_dir / UNIT_NAME

    @property
    def host_path(self) -> Path:
        return self.run_dir / "demo.toml"

    @property
    def api_url(self) -> str:
        return self.host.api_url

    def server_environment(self) -> dict[str, str]:
        """What `python -m sglang.launch_server` needs to run the simulated server at the demo's pace, and what
        the stand-in nvidia-smi (first on the PATH) needs to show that server's load on its GPUs."""
        paths = [str(SHIM_PATH), *filter(None, [os.environ.get("PYTHONPATH")])]
        return {"PYTHONPATH": os.pathsep.join(paths), "MTPTUI_SIM_SPEED": f"{self.speed:g}",
                "PATH": os.pathsep.join([str(STAND_IN_BIN), os.environ.get("PATH", os.defpath)]),
                "MTPTUI_SIM_GPU_STATE": str(self.run_dir / "gpu.json"), "MTPTUI_STANDIN_PYTHON": sys.executable}

    def launch_argv(self, profile: str) -> list[str]:
        """The profile's command line, exactly as SGLang would be started with it."""
        from mtptui.sglang.flags import FlagSet, render_argv

        flagset = FlagSet.from_profile(self.host.profile(profile), self.host.sglang_version)
        return [*flagset.entry_argv, *render_argv(flagset)]

    def start(self, profile: str = BAD_PROFILE) -> subprocess.Popen:
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
        try:
            return int(self.pid_path.read_text().strip())
        except (OSError, ValueError):
            return None

    def service(self) -> tuple[str, str]:
        """("process pid N", state) of the server named by the pid file."""
        pid = self.pid_file_pid()
        if pid is None:
            return "process", "not started"
        if self.process is not None and self.process.pid == pid:
            code = self.process.poll()
            return f"process pid {pid}", "running" if code is None else f"exited (status {code})"
        return f"process pid {pid}", "running" if _alive(pid) else "not running"

    def feed(self, session, with_load: bool = True) -> Feed:
        """The dashboard's feed: any host's (``session`` is a mtptui.ops.connect session on the demo host), plus
        the background load unless MTPTUI_DEMO_LOAD=0."""
        from mtptui.ops.feed_host import feed_for_host

        if with_load and os.environ.get("MTPTUI_DEMO_LOAD", "1") != "0":
            self.load = DemoLoad(self.api_url)
        return feed_for_host(session, extra=[self.load] if self.load else [])

    def profile_store(self):
        """Where profiles made in this run go: without this run's paths and port, for the next demo too."""
        from mtptui.demo.profiles import DemoProfileStore

        return DemoProfileStore(demo_host_file())

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

