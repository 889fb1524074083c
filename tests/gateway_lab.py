"""The real SGLang gateway (``smg launch`` from the cached venv of tests/smg_venv.py) in front of simulated servers.

    with gateway_rig(tmp_path) as rig:              # two `mtptui sim` replicas on loopback ports of their own
        rig.url                                      # the gateway, on a free loopback port
        rig.workers()                                # its GET /workers, as it answers

Everything listens on 127.0.0.1 only: the gateway, its Prometheus exporter (which would take 0.0.0.0:29000 by
default) and the replicas. The gateway runs in a process group of its own; leaving the rig stops it with SIGTERM
(SIGKILL after a grace), waits until no process of that group is left, then stops the replicas. The fixture
``gateway_rig_module`` shares one rig per test module.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

import httpx
import pytest
import tomli_w
import tomllib

from tests.simserver import SimServer, free_port, launch_sim, profile_argv, profile_env, version_args, READY_LINE
from tests.smg_venv import SMG, ensure

ROOT = Path(__file__).resolve().parents[1]

START_S = 60.0


@dataclass
class Smg:
    """A running ``smg launch``."""

    proc: subprocess.Popen
    port: int
    log_path: Path

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def log_text(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def stop(self, grace_s: float = 10.0) -> None:
        """TERM to its process group, KILL after ``grace_s``, and wait until no member is left."""
        pgid = self.proc.pid
        for sig, wait_s in ((signal.SIGTERM, grace_s), (signal.SIGKILL, 10.0)):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pgid, sig)
            if self._group_gone(pgid, wait_s):
                break

    def _group_gone(self, pgid: int, wait_s: float) -> bool:
        """True once the group has no member left (its leader reaped: a zombie still counts as a member)."""
        deadline = time.monotonic() + wait_s
        while time.monotonic() < deadline:
            self.proc.poll()
            try:
                os.killpg(pgid, 0)
            except ProcessLookupError:
                return True
            time.sleep(0.05)
        return False


# smg's launcher leaves one setting of its Rust core at the default: the drain settle, how long a removed worker
# stays listed ``draining`` (5 s) before the gateway drops it. This launcher is ``smg launch`` with that set.
SMG_LAUNCH_SETTLE = """
import sys
from smg.launch_router import launch_router, parse_router_args
router_args = parse_router_args(sys.argv[2:])
router_args.drain_settle_secs = int(sys.argv[1])
launch_router(router_args)
"""


def smg_command(port: int, worker_urls: list[str], extra: list[str] | tuple[str, ...] = (),
                requirement: str = SMG, drain_settle_s: int | None = None) -> list[str]:
    """``PYTHON -m smg launch`` on loopback, its exporter on a free loopback port, no tokenizer download (with
    ``drain_settle_s``, the same through SMG_LAUNCH_SETTLE); for an older ``sglang-router`` release its
    ``launch_router`` module with the same loopback addresses."""
    loopback = ["--host", "127.0.0.1", "--port", str(port), "--prometheus-host", "127.0.0.1",
                "--prometheus-port", str(free_port())]
    if requirement != SMG:
        return [str(ensure(requirement)), "-m", "sglang_router.launch_router", *loopback, "--worker-urls",
                *worker_urls, *extra]
    launch = ["-m", "smg", "launch"] if drain_settle_s is None else ["-c", SMG_LAUNCH_SETTLE, str(drain_settle_s)]
    return [str(ensure()), *launch, *loopback, "--disable-tokenizer-autoload", "--shutdown-grace-period-secs", "1",
            "--worker-urls", *worker_urls, *extra]


def launch_smg(tmp_path: Path, worker_urls: list[str], extra: list[str] | tuple[str, ...] = (),
               requirement: str = SMG) -> Smg:
    port = free_port()
    log_path = Path(tmp_path) / f"smg-{port}.log"
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(smg_command(port, worker_urls, extra, requirement), stdout=log,
                                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True,
                                env={**os.environ, "NO_COLOR": "1"})
    return Smg(proc, port, log_path)


def gateway_workers(url: str, token: str | None = None) -> list[dict]:
    """The gateway's ``GET /workers`` list ([] while it does not answer)."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    try:
        answer = httpx.get(url + "/workers", headers=headers, timeout=5)
    except httpx.HTTPError:
        return []
    return answer.json().get("workers", []) if answer.status_code == 200 else []


def wait_workers(url: str, wanted: dict[str, str], timeout: float = START_S, token: str | None = None) -> bool:
    """True once every worker URL in ``wanted`` has its status there (``"gone"``: not listed)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status = {w["url"]: w.get("status") for w in gateway_workers(url, token)}
        if all(status.get(u, "gone") == s for u, s in wanted.items()):
            return True
        time.sleep(0.2)
    return False


@dataclass
class GatewayRig:
    """The gateway and its replicas."""

    smg: Smg
    sims: list[SimServer]
    token: str | None = None
    extra: list[str] = field(default_factory=list)

    @property
    def url(self) -> str:
        return self.smg.url

    def workers(self) -> list[dict]:
        return gateway_workers(self.url, self.token)

    def worker(self, sim: SimServer) -> dict | None:
        return next((w for w in self.workers() if w["url"] == sim.url), None)


def _start_sims(tmp_path: Path, count: int, version: str, env: dict[str, str] | None) -> list[SimServer]:
    argv, full_env = profile_argv("restored", version), {**profile_env("restored"), **(env or {})}
    sims = [launch_sim(tmp_path, argv, seed=n, env=full_env, sim_args=version_args(version)) for n in range(count)]
    try:
        for n, sim in enumerate(sims):
            for _ in range(3):  # a free port another test took in the meantime (the machine is shared): another one
                if sim.wait_for(READY_LINE, START_S) or "the port is already in use" not in sim.log_text():
                    break
                sims[n] = sim = launch_sim(tmp_path, argv, seed=n, env=full_env, sim_args=version_args(version))
            if not sim.ready():
                raise RuntimeError(f"simulated server {sim.url} did not start:\n{sim.log_text()[-3000:]}")
    except BaseException:
        for sim in sims:  # none is left behind
            sim.stop()
        raise
    return sims


@contextlib.contextmanager
def gateway_rig(tmp_path: Path, *, replicas: int = 2, version: str = "0.5.12.post1", token: str | None = None,
                sim_env: dict[str, str] | None = None, gateway_args: tuple[str, ...] = ()) -> Iterator[GatewayRig]:
    """``replicas`` simulated servers behind a real gateway (``gateway_args`` added to its command line, e.g.
    ``("--policy", "round_robin")``), every worker ``ready`` before it is handed over."""
    sims: list[SimServer] = []
    smg: Smg | None = None
    try:
        sims = _start_sims(tmp_path, replicas, version, sim_env)
        extra = [*(["--api-key", token] if token else []), *gateway_args]
        smg = launch_smg(tmp_path, [sim.url for sim in sims], extra)
        if not wait_workers(smg.url, {sim.url: "ready" for sim in sims}, token=token):
            raise RuntimeError(f"the gateway did not list its workers as ready:\n{smg.log_text()[-3000:]}")
        yield GatewayRig(smg, sims, token, extra)
    finally:
        if smg is not None:
            smg.stop()
        for sim in sims:
            sim.stop()


# On the lab host (tests/lab): smg on the host's own 127.0.0.1:30080, reached only through the SSH session.
GATEWAY_PORT = 30080


def start_lab_gateway(host, worker_urls: list[str]) -> subprocess.Popen:
    """smg on the lab host's 127.0.0.1:30080: a process of the host itself (its PID namespace), so ``lab.reset``
    kills it with everything else the host runs."""
    command = smg_command(GATEWAY_PORT, worker_urls)
    log = open(host.lab.srv / "smg.log", "wb")
    return subprocess.Popen([*host.lab.machine.enter(), *command], stdout=log, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL, env=host.lab.env(), start_new_session=True)


def stop_lab_gateway(process: subprocess.Popen) -> None:
    """Kill the lab host's gateway: its session (nsenter forks the gateway into the host's PID namespace)."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    process.wait(10)


# ``wait_workers`` on the host's side, with the standard library alone: importing this module there (httpx,
# pytest, the sim's helpers) took longer than most waits.
LAB_WAIT_WORKERS = """
import json, sys, time, urllib.request
url, wanted, timeout = sys.argv[1], json.loads(sys.argv[2]), float(sys.argv[3])
deadline = time.monotonic() + timeout
while True:
    try:
        answer = json.load(urllib.request.urlopen(url + "/workers", timeout=5))
        status = {w["url"]: w.get("status") for w in answer.get("workers", [])}
    except Exception:
        status = {}
    if all(status.get(u, "gone") == s for u, s in wanted.items()):
        sys.exit(0)
    if time.monotonic() >= deadline:
        sys.exit(1)
    time.sleep(0.2)
"""


def _lab_gateway_wait(host, wanted: dict[str, str], timeout: float) -> subprocess.CompletedProcess:
    url = f"http://127.0.0.1:{GATEWAY_PORT}"
    return host.lab.run(sys.executable, "-c", LAB_WAIT_WORKERS, url, json.dumps(wanted), str(timeout),
                        timeout=timeout + 30)


def lab_gateway_shows(host, wanted: dict[str, str], timeout: float = 30) -> bool:
    """True once, on the host's side, the gateway lists ``wanted`` (url -> status) within ``timeout``."""
    return _lab_gateway_wait(host, wanted, timeout).returncode == 0


def lab_gateway_lists(host, wanted: dict[str, str], timeout: float = 30) -> None:
    """Wait, on the host's side, until the gateway lists ``wanted`` (url -> status)."""
    done = _lab_gateway_wait(host, wanted, timeout)
    assert done.returncode == 0, (done.stderr, (host.lab.srv / "smg.log").read_text(errors="replace")[-2000:])


# Two replicas on the lab host behind its gateway: the unit's server, and the restored profile by hand on 30001.
SERVER = "http://127.0.0.1:30000"
REPLICA_PORT = 30001
REPLICA = f"http://127.0.0.1:{REPLICA_PORT}"
GATEWAY = f"http://127.0.0.1:{GATEWAY_PORT}"
LAB_MODEL = "/data/models/Qwen3.6-27B"


def start_lab_replica(host, timeout: float = START_S) -> None:
    """The second replica: the restored profile started by hand on 127.0.0.1:30001 (a process of the host), once
    it answers /health. A gateway started before that finds it down at its first check and looks again only
    after its startup check interval (smg: 30 s)."""
    from mtptui.engines.sglang.flags import FlagSet, render_command

    flagset = FlagSet.from_profile(host.config.profile("restored"), host.config.sglang_version)
    flagset.flags["--port"] = REPLICA_PORT
    log = host.lab.srv / "replica.log"
    result = host.lab.run("setsid", "sh", "-c", f"nohup env {render_command(flagset)} >> {log} 2>&1 < /dev/null &")
    assert result.returncode == 0, result.stderr
    deadline = time.monotonic() + timeout
    while host.lab.api("/health", port=REPLICA_PORT)[0] != 200:
        assert time.monotonic() < deadline, f"the replica did not answer /health:\n{log.read_text()[-2000:]}"
        time.sleep(0.3)


def start_lab_replicas_gateway(host, requirement: str | None = None,
                               drain_settle_s: int | None = None) -> subprocess.Popen:
    """The gateway on the lab host in front of its server and the second replica (round robin: both get load);
    ``drain_settle_s``: smg's drain settle (SMG_LAUNCH_SETTLE), else its default."""
    command = smg_command(GATEWAY_PORT, [SERVER, REPLICA], ("--policy", "round_robin"),
                          **({"requirement": requirement} if requirement else {}), drain_settle_s=drain_settle_s)
    log = open(host.lab.srv / "smg.log", "ab")
    return subprocess.Popen([*host.lab.machine.enter(), *command], stdout=log, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL, env=host.lab.env(), start_new_session=True)


def with_lab_gateway(host, **gateway: str) -> None:
    """The host file names the lab's gateway (``gateway`` overrides its keys)."""
    data = tomllib.loads(host.path.read_text())
    data["gateway"] = {"url": GATEWAY, **gateway}
    host.path.write_text(tomli_w.dumps(data))


class LabLoad:
    """tests/stream_load.py in the host's network namespace, through the gateway, until ``tally()``."""

    def __init__(self, host, tmp: Path, clients: int = 4, max_tokens: int = 64) -> None:
        self.stop_file = tmp / f"stop-load-{time.monotonic_ns()}"
        self.proc = subprocess.Popen(["ip", "netns", "exec", host.lab.ns, sys.executable, "-m", "tests.stream_load",
                                      GATEWAY, str(self.stop_file), "--clients", str(clients), "--max-tokens",
                                      str(max_tokens), "--model", LAB_MODEL], cwd=ROOT,
                                     env={**os.environ, **host.lab.session_env()}, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
        assert self.proc.stdout is not None and self.proc.stdout.readline().strip() == "started"

    def tally(self) -> dict:
        self.stop_file.touch()
        out, err = self.proc.communicate(timeout=120)
        return json.loads(out.strip().splitlines()[-1]) if out.strip() else {"error": err}


@pytest.fixture(scope="module")
def gateway_rig_module(tmp_path_factory: pytest.TempPathFactory) -> Iterator[GatewayRig]:
    """One gateway and two 0.5.12.post1 replicas for the whole module."""
    with gateway_rig(tmp_path_factory.mktemp("gateway")) as rig:
        yield rig
