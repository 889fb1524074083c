"""The stand-in nvidia-smi (mtptui/demo_bin/nvidia-smi) on the simulated GPU host: it prints what real
nvidia-smi prints for the dashboard's query, its GPUs are idle without a server, and its figures follow the
simulated server's load (they rise under a bench run); and the GPU poll says once that a host has none."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time

from mtptui.ops.gpu_poll import GpuPoll
from mtptui.remote.gpu import QUERY, parse_gpus, read_gpus
from mtptui.remote.local import LocalTransport
from tests.simserver import ROOT, profile_argv, profile_env, start_sim
from tests.sshd import NVIDIA_SMI

HEADER = ("index, name, utilization.gpu [%], memory.used [MiB], memory.total [MiB], temperature.gpu, "
          "power.draw [W], power.limit [W]")


def stand_in(state: str | None, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "MTPTUI_SIM_GPU_STATE"}
    env["MTPTUI_STANDIN_PYTHON"] = sys.executable
    if state:
        env["MTPTUI_SIM_GPU_STATE"] = state
    return subprocess.run([str(NVIDIA_SMI), *args], capture_output=True, text=True, env=env, timeout=30)


def gpus(state: str | None):
    result = stand_in(state, *QUERY[1:])
    assert result.returncode == 0, result.stderr
    return parse_gpus(result.stdout)


def test_it_prints_the_csv_real_nvidia_smi_prints(tmp_path) -> None:
    query = "--query-gpu=" + QUERY[1].split("=", 1)[1]
    with_units = stand_in(None, query, "--format=csv").stdout.splitlines()
    assert with_units[0] == HEADER and len(with_units) == 3
    fields = with_units[1].split(", ")
    assert fields[:2] == ["0", "NVIDIA RTX A6000"] and fields[2].endswith(" %") and fields[4] == "49140 MiB"
    assert fields[5].isdigit() and fields[6].endswith(" W") and fields[7] == "300.00 W"
    bare = stand_in(None, query, "--format=csv,noheader,nounits").stdout.splitlines()
    assert len(bare) == 2 and bare[0].startswith("0, NVIDIA RTX A6000, 0, 4, 49140, 31, ")
    assert bare[0].endswith(", 300.00") and "." in bare[0].split(", ")[6]
    na = stand_in(None, "--query-gpu=index,temperature.memory", "--format=csv,noheader").stdout
    assert na == "0, [N/A]\n1, [N/A]\n"  # GDDR6 has no memory temperature sensor
    unknown = stand_in(None, "--query-gpu=index,bogus", "--format=csv")
    assert unknown.returncode == 2 and unknown.stderr == 'Field "bogus" is not a valid field to query.\n\n'


def test_without_a_fresh_state_file_the_gpus_are_idle(tmp_path) -> None:
    stale = tmp_path / "gpu.json"
    stale.write_text('{"pid": %d, "written": %f, "memory_used_mib": [40000, 40000], "busy": 1, "batch": 1, '
                     '"heat": 1}' % (os.getpid(), time.time() - 60))
    for state in (None, str(tmp_path / "absent.json"), str(stale)):
        assert [(g.utilization_pct, g.memory_used_mib, g.temperature_c) for g in gpus(state)] == [
            (0.0, 4.0, 31.0), (0.0, 4.0, 32.0)]


def bench(url: str, data_home) -> subprocess.Popen:
    env = {**os.environ, "XDG_DATA_HOME": str(data_home)}
    return subprocess.Popen([sys.executable, "-m", "mtptui.cli.main", "bench", "--url", url, "--concurrency", "4",
                             "--requests", "8", "--max-tokens", "128"], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def test_the_figures_follow_the_simulated_servers_load(tmp_path) -> None:
    state = tmp_path / "gpu.json"
    with start_sim(tmp_path, profile_argv("restored"), env={**profile_env("restored"),
                                                          "MTPTUI_SIM_GPU_STATE": str(state)}) as sim:
        time.sleep(2.5)  # the warm-up request's busy spell fades
        idle = gpus(str(state))
        run = bench(sim.url, tmp_path / "data")
        peak = idle
        while run.poll() is None:
            now = gpus(str(state))
            if now[0].utilization_pct > peak[0].utilization_pct:
                peak = now
            time.sleep(0.3)
        assert run.returncode == 0, run.stderr
        logged = _logged_avail_gb(sim.log_text())
    assert [g.memory_used_mib for g in idle] == [g.memory_used_mib for g in peak]
    # what the startup log left available is what nvidia-smi sees free; rank 1 logs no graph capture (SGLang
    # logs it on TP0), so its last figure is from before its draft graphs took their few tens of MiB
    assert abs(idle[0].memory_used_mib - (48 - logged[0]) * 1024) <= 8
    assert 0 <= idle[1].memory_used_mib - (48 - logged[1]) * 1024 <= 128
    assert len(logged) == 2 and 30_000 < idle[0].memory_used_mib < 49_140
    assert idle[0].utilization_pct < 10 and peak[0].utilization_pct > 70
    for before, during in zip(idle, peak):
        assert during.power_w > before.power_w + 100 and during.power_w < during.power_limit_w
        assert during.temperature_c > before.temperature_c
    assert not state.exists()  # the server took its state file with it


def _logged_avail_gb(log: str) -> list[float]:
    """Memory available per rank at the end of the server's startup, as its log says."""
    from mtptui.engines.sglang.logparse import LogParser
    from mtptui.engines.sglang.state import ServerState

    state, events = ServerState(), []
    parser = LogParser()
    for line in log.splitlines():
        parser.parse_line(line, events)
    for event in events:
        state.apply(event)
    return [rank.avail_gb for rank in state.memory.ranks.values()]


def test_a_host_without_nvidia_smi_is_said_once(monkeypatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    said: list = []

    async def poll_a_while() -> None:
        poll = GpuPoll(LocalTransport(), every_s=0.01, missing_every_s=0.01)
        task = asyncio.create_task(poll(_append(said)))
        await asyncio.sleep(0.5)
        task.cancel()

    asyncio.run(poll_a_while())
    assert len(said) == 1 and said[0].missing and "no nvidia-smi" in said[0].problem


def test_the_poll_reads_the_stand_in_through_the_transport(monkeypatch) -> None:
    monkeypatch.setenv("PATH", f"{NVIDIA_SMI.parent}:{os.environ['PATH']}")
    monkeypatch.setenv("MTPTUI_STANDIN_PYTHON", sys.executable)
    reading = asyncio.run(read_gpus(LocalTransport()))
    assert reading.problem is None and [g.index for g in reading.gpus] == [0, 1]
    assert reading.gpus[0].power_limit_w == 300.0


def _append(said: list):
    async def emit(item) -> None:
        said.append(item)
    return emit


def test_the_state_the_server_writes_rises_with_running_requests_and_goes_with_it(tmp_path) -> None:
    from mtptui.sim.boot import build_boot
    from mtptui.sim.gpu_state import GpuStateWriter, rank_memory_mib
    from mtptui.sim.settings import SimSettings

    boot = build_boot(SimSettings("0.5.12.post1", "/data/models/Qwen3.6-27B", [], "qwen", tp_size=2))
    now = [1000.0]
    writer = GpuStateWriter(tmp_path / "gpu.json", boot, clock=lambda: now[0])
    starting = writer.sample()
    assert starting["memory_used_mib"] == rank_memory_mib(boot, up=False) and starting["busy"] == 0
    running = [0]
    writer.load = lambda: (running[0], 0)
    assert writer.sample()["memory_used_mib"] == rank_memory_mib(boot) != rank_memory_mib(boot, up=False)
    running[0] = boot.max_running
    for _ in range(10):  # 5 s of a full batch
        now[0] += 0.5
        busy = writer.sample()
    assert busy["busy"] > 0.9 and busy["batch"] > 0.9 and 0.05 < busy["heat"] < 0.2
    running[0] = 0
    for _ in range(10):
        now[0] += 0.5
        idle = writer.sample()
    assert idle["busy"] < 0.1 and idle["heat"] > busy["heat"] * 0.8  # the GPU cools slower than it idles

    async def run_briefly() -> None:
        task = asyncio.create_task(writer.run())
        await asyncio.sleep(0.1)
        assert (tmp_path / "gpu.json").exists()
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)

    asyncio.run(run_briefly())
    assert not (tmp_path / "gpu.json").exists()
