"""The real SGLang gateway (smg 1.13.0) in front of the real vLLM server, and a drain that counts vLLM's requests.

smg registers a `vllm serve` as a worker of its own kind (``runtime_type: "vllm"``, its labels read from the
server), beside a simulated vLLM (`mtptui sim --engine vllm`) serving the same model as its peer. The drain of a
restart (mtptui.ops.restart.drain) takes the real server out of the gateway, waits until the server holds no
request by its own count (vLLM has no /v1/loads: ``vllm:num_requests_running`` + ``vllm:num_requests_waiting``
on /metrics, as the engine registry says), and puts it back with a canary, while a long stream is in flight on
it and a steady load goes through the gateway: no request is cut or refused. The count is each engine's own:
SGLang's reader asked of the vLLM server, and vLLM's of an SGLang server's /metrics, are one sentence each.
"""

from __future__ import annotations

import asyncio
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

import httpx
import pytest

from mtptui.config import HostConfig
from mtptui.engines.registry import held_count
from mtptui.errors import UserError
from mtptui.gateway.http import ROUTED_HEADER
from mtptui.ops.connect import open_session
from mtptui.ops.restart.drain import DrainOptions, GatewayDrain, plan_drain
from tests.gateway_lab import Smg, gateway_workers, launch_smg, wait_workers
from tests.simserver import READY_LINE, SimServer, free_port, launch_sim, profile_argv, profile_env, version_args
from tests.stream_load import Outcome, StreamLoad, _event
from tests.vllm_real.server import READY, VllmServer, server_env

pytestmark = pytest.mark.vllm
DRAIN_S = 600.0  # the real server finishes its long stream first: minutes on a busy 2-core machine
IN_FLIGHT_TOKENS = 700  # long enough to outlast the gateway's removal (about 5 s) at the tiny model's best speed


@dataclass
class Fronted:
    """The gateway, the real vLLM server and its simulated peer of the same model."""

    smg: Smg
    real: VllmServer
    peer: SimServer

    @property
    def model(self) -> str:
        return str(self.real.model)


def _peer_argv(server: VllmServer, port: int) -> list[str]:
    argv = list(server.argv[2:])  # the real server's words after `vllm serve`, on the peer's port
    argv[argv.index("--port") + 1] = str(port)
    return argv


@pytest.fixture(scope="module")
def fronted(vllm_server: VllmServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fronted]:
    root = tmp_path_factory.mktemp("vllm-gateway")
    port = free_port()
    peer = launch_sim(root, _peer_argv(vllm_server, port), port=port, speed=50, env=server_env(root),
                      sim_args=["--engine", "vllm"])
    smg = None
    try:
        assert peer.wait_for(READY, 120), peer.log_text()[-3000:]
        smg = launch_smg(root, [vllm_server.url, peer.url], ("--policy", "round_robin"))
        assert wait_workers(smg.url, {vllm_server.url: "ready", peer.url: "ready"}, timeout=120), smg.log_text()[-3000:]
        yield Fronted(smg, vllm_server, peer)
    finally:
        if smg is not None:
            smg.stop()
        peer.stop()


def test_smg_registers_the_real_vllm_server_as_a_vllm_worker_of_its_model(fronted: Fronted) -> None:
    listed = {w["url"]: w for w in gateway_workers(fronted.smg.url)}
    real = listed[fronted.real.url]
    assert (real["runtime_type"], real["status"], real["is_healthy"]) == ("vllm", "ready", True)
    assert real["model_id"] == fronted.model and real["labels"]["version"] == "0.32.0"
    assert listed[fronted.peer.url]["model_id"] == fronted.model  # the peer that takes its traffic in a drain


def _host(fronted: Fronted, root: Path) -> HostConfig:
    """The real server as a local vLLM host behind the gateway (the drain reads neither its log nor its pid)."""
    return HostConfig.model_validate({
        "name": "vllm-gw", "engine": "vllm", "api_url": fronted.real.url,
        "server": {"manager": "process", "log_file": str(fronted.real.log_path), "pid_file": str(root / "none.pid")},
        "log": {"kind": "file", "path": str(fronted.real.log_path)},
        "gateway": {"url": fronted.smg.url, "worker_url": fronted.real.url},
        "profiles": {"served": {"model_path": fronted.model}}})


class InFlight(threading.Thread):
    """One long stream through the gateway that the gateway routed to ``worker`` (round robin: a stream routed
    elsewhere is closed and the next one sent); ``routed`` is set once it is the worker's and under way."""

    def __init__(self, gateway: str, model: str, worker: str) -> None:
        super().__init__(daemon=True)
        self.gateway, self.model, self.worker = gateway, model, worker
        self.routed = threading.Event()
        self.outcome: Outcome | None = None

    def run(self) -> None:
        body = {"model": self.model, "messages": [{"role": "user", "content": "In flight while the drain waits."}],
                "max_tokens": IN_FLIGHT_TOKENS, "stream": True, "ignore_eos": True}
        with httpx.Client(base_url=self.gateway, timeout=DRAIN_S) as client:
            for _ in range(4):
                outcome = Outcome(started=time.monotonic())
                with client.stream("POST", "/v1/chat/completions", json=body) as response:
                    outcome.status = response.status_code
                    if response.headers.get(ROUTED_HEADER) != self.worker:
                        continue
                    for line in response.iter_lines():
                        _event(line, outcome)
                        if outcome.chunks:
                            self.routed.set()
                outcome.ended = time.monotonic()
                self.outcome = outcome
                return
        self.routed.set()  # never routed to the worker: the test says so


class Direct(threading.Thread):
    """Streams of ``tokens`` tokens sent straight to the real server, one after another, until the drain has
    counted one in flight (``counted`` set by the test); ``streaming`` is set at its first chunk. Two of these
    overlap, so the server's own count is never 0 before then, however fast the machine: the test starts the second
    once the first streams, and gives them different lengths, so they never end together (two equal streams started
    together end in the same engine step, and both ask again: a count between is 0). After it, each finishes the
    stream it holds and the count falls to 0."""

    def __init__(self, server: str, model: str, counted: threading.Event, tokens: int) -> None:
        super().__init__(daemon=True)
        self.server, self.model, self.counted, self.tokens = server, model, counted, tokens
        self.streaming = threading.Event()
        self.outcomes: list[Outcome] = []

    def run(self) -> None:
        body = {"model": self.model, "messages": [{"role": "user", "content": "Held by the server."}],
                "max_tokens": self.tokens, "stream": True, "ignore_eos": True}
        try:
            with httpx.Client(base_url=self.server, timeout=DRAIN_S) as client:
                while not self.counted.is_set():
                    outcome = Outcome(started=time.monotonic())
                    with client.stream("POST", "/v1/chat/completions", json=body) as response:
                        outcome.status = response.status_code
                        for line in response.iter_lines():
                            _event(line, outcome)
                            if outcome.chunks:
                                self.streaming.set()
                    outcome.ended = time.monotonic()
                    self.outcomes.append(outcome)
        finally:
            self.streaming.set()  # a stream that failed is in outcomes: the test says so


def _running(server: VllmServer) -> float:
    text = httpx.get(f"{server.url}/metrics", timeout=30).text
    return sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
               if line.startswith("vllm:num_requests_running{"))


async def _drain(fronted: Fronted, root: Path, events: list[tuple[str, str, dict[str, Any]]]) -> dict[str, Any]:
    session = open_session(_host(fronted, root))
    try:
        plan, notes = await plan_drain(session, DrainOptions(timeout_s=DRAIN_S))
        assert plan is not None and plan.active and plan.peers == [fronted.peer.url], notes
        steps = GatewayDrain(session, plan, lambda step, text, data: events.append((step, text, data)))
        out = await steps.take_out()
        assert out is None, out
        listed = {w["url"] for w in gateway_workers(fronted.smg.url)}
        events.append(("test", "out and idle", {"listed": fronted.real.url in listed,
                                                "running": _running(fronted.real)}))
        back = await steps.put_back(canary=True)
        assert back is None, back
        return {"plan": plan.to_json(), "report": steps.report}
    finally:
        await session.close()


def test_a_drain_of_the_real_vllm_waits_for_its_own_count_and_loses_no_request(fronted: Fronted,
                                                                               tmp_path: Path) -> None:
    stream = InFlight(fronted.smg.url, fronted.model, fronted.real.url)
    counted = threading.Event()
    direct = [Direct(fronted.real.url, fronted.model, counted, tokens) for tokens in (IN_FLIGHT_TOKENS, 480)]

    class Seen(list[tuple[str, str, dict[str, Any]]]):
        def append(self, event: tuple[str, str, dict[str, Any]]) -> None:
            super().append(event)
            if event[0] == "draining" and (event[2].get("in_flight") or 0) >= 1:
                counted.set()  # the direct streams stop coming: the server's count may now fall to 0

    events = Seen()
    with StreamLoad(fronted.smg.url, clients=2, max_tokens=16, model=fronted.model, timeout_s=DRAIN_S) as load:
        for thread in direct:
            thread.start()
            assert thread.streaming.wait(DRAIN_S), "a direct stream never started"
        stream.start()
        assert stream.routed.wait(DRAIN_S) and stream.outcome is None, "no stream was routed to the real server"
        try:
            done = asyncio.run(_drain(fronted, tmp_path, events))
        finally:
            counted.set()
    for thread in (stream, *direct):
        thread.join(DRAIN_S)
    tally = load.tally()

    assert "vllm:num_requests_running + vllm:num_requests_waiting" in done["plan"]["before_stop"][1]
    counted = [data["in_flight"] for step, _, data in events if step == "draining" and "in_flight" in data]
    assert counted[0] >= 1 and counted[-1] == 0, events  # it waited while the long stream was on the server
    assert ("test", "out and idle", {"listed": False, "running": 0.0}) in events  # a stop here would cut nothing
    assert done["report"]["in_flight_at_stop"] == 0 and done["report"]["re_added"] and done["report"]["canary"]
    assert stream.outcome is not None and stream.outcome.kind == "whole", stream.outcome
    held = [outcome for thread in direct for outcome in thread.outcomes]
    assert held and all(outcome.kind == "whole" for outcome in held), held  # the server's own requests too
    assert tally.sent > 0 and tally.cut == tally.failed == 0, tally.line()
    assert wait_workers(fronted.smg.url, {fronted.real.url: "ready"}, timeout=60)


def _get_text(base: str):
    async def get_text(path: str) -> tuple[int, str]:
        async with httpx.AsyncClient(timeout=30) as client:
            answer = await client.get(base + path)
        return answer.status_code, answer.text
    return get_text


def test_each_engine_counts_on_its_own_surface_and_a_server_of_another_is_one_sentence(fronted: Fronted,
                                                                                      tmp_path: Path) -> None:
    real = fronted.real.url
    assert asyncio.run(held_count("vllm").read(_get_text(real), real)) == 0  # idle
    with pytest.raises(UserError) as sglang_reader:
        asyncio.run(held_count("sglang").read(_get_text(real), real))
    assert str(sglang_reader.value) == f"{real}/v1/loads answered HTTP 404 without the counts"
    sglang = launch_sim(tmp_path, profile_argv("restored"), env=profile_env("restored"),
                        sim_args=version_args("0.5.12.post1"))  # its profile has --enable-metrics
    try:
        assert sglang.wait_for(READY_LINE, 60), sglang.log_text()[-2000:]
        assert asyncio.run(held_count("sglang").read(_get_text(sglang.url), sglang.url)) == 0
        with pytest.raises(UserError) as vllm_reader:
            asyncio.run(held_count("vllm").read(_get_text(sglang.url), sglang.url))
    finally:
        sglang.stop()
    assert str(vllm_reader.value) == (f"{sglang.url}/metrics has no vllm:num_requests_running and "
                                      f"vllm:num_requests_waiting: is the server vLLM?")
