"""The fleet reads both engines' families side by side: a real Prometheus (Debian's) scrapes the session's real
`vllm serve` and a simulated SGLang server under one job whose name says neither engine, and `mtptui fleet --once
--json` lists both, each with its engine and its figures read from its own families (`vllm:` and `sglang:`).

The vLLM row's accept length is vLLM's own arithmetic over the window, 1 + Δaccepted / Δdrafts, held to the
server's counters read before and after this module's completions (Prometheus has scraped the first before they
start and the second before the fleet is asked); its running and waiting are the server's own gauges once idle.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

import httpx
import pytest

from mtptui.bench.metrics_poll import parse_metrics as parse_sglang_metrics
from mtptui.engines.vllm import api
from mtptui.engines.vllm.metrics import VllmMetrics, parse_metrics
from tests.fleet_lab import fleet_json
from tests.prometheus import PrometheusServer, start_prometheus
from tests.simserver import MISSION_MODEL, READY_LINE, SimServer, launch_sim, profile_argv, profile_env, version_args
from tests.vllm_real.server import VllmServer

pytestmark = pytest.mark.vllm
JOB = "llm"  # names neither engine: the rows come from the families each instance exports
PROMPT = "the server decodes tokens the server decodes tokens the server decodes"


@dataclass
class Side:
    """Prometheus, what it scrapes, and the vLLM server's counters around this module's completions."""

    prom: PrometheusServer
    real: VllmServer
    sglang: SimServer
    before: VllmMetrics
    after: VllmMetrics


def _metrics(server: VllmServer) -> VllmMetrics:
    return parse_metrics(httpx.get(f"{server.url}{api.METRICS}", timeout=30).text)


def _scraped(prom: PrometheusServer, instance: str, drafts: float) -> bool:
    """Prometheus holds a sample of the server's drafts counter at ``drafts`` (the value the server said)."""
    samples = prom.samples(f'vllm:spec_decode_num_drafts_total{{instance="{instance}"}}', 3600).get(instance, [])
    return any(value == drafts for _, value in samples)


def _sglang_tokens(server: SimServer) -> float:
    """The SGLang server's output-token counter, as the bench reads it (summed over its label sets)."""
    return parse_sglang_metrics(httpx.get(f"{server.url}/metrics", timeout=30).text).gen_tokens or 0.0


def _scraped_tokens(prom: PrometheusServer, instance: str, tokens: float) -> bool:
    """Prometheus holds a sample of the SGLang server's output-token counter at ``tokens``."""
    samples = prom.samples(f'sglang:generation_tokens_total{{instance="{instance}"}}', 3600).get(instance, [])
    return any(value == tokens for _, value in samples)


def _address(url: str) -> str:
    return url.removeprefix("http://")


@pytest.fixture(scope="module")
def side(vllm_server: VllmServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Side]:
    root = tmp_path_factory.mktemp("fleet-vllm")
    sglang = launch_sim(root, profile_argv("restored"), env=profile_env("restored"),
                        sim_args=version_args("0.5.12.post1"))
    try:
        assert sglang.wait_for(READY_LINE, 60), sglang.log_text()[-2000:]
        with start_prometheus(root / "prom", [_address(vllm_server.url), _address(sglang.url)], job=JOB) as prom:
            real = _address(vllm_server.url)
            before = _metrics(vllm_server)
            prom.wait_until(lambda: _scraped(prom, real, before.get(api.DRAFTS) or 0.0), "the counters before")
            sim, sim_before = _address(sglang.url), _sglang_tokens(sglang)  # a rate needs a sample before too
            prom.wait_until(lambda: _scraped_tokens(prom, sim, sim_before), "SGLang's tokens before")
            with httpx.Client(timeout=300) as client:
                for _ in range(3):
                    client.post(f"{vllm_server.url}{api.COMPLETIONS}", json={
                        "model": str(vllm_server.model), "prompt": PROMPT, "max_tokens": 64,
                        "temperature": 0}).raise_for_status()
                client.post(f"{sglang.url}/v1/chat/completions", json={  # long enough for decode log intervals:
                    "model": MISSION_MODEL, "max_tokens": 512,  # SGLang sets its scheduler gauges at those
                    "messages": [{"role": "user", "content": PROMPT}]}).raise_for_status()
            after = _metrics(vllm_server)
            prom.wait_until(lambda: _scraped(prom, real, after.get(api.DRAFTS) or 0.0), "the counters after")
            sim_after = _sglang_tokens(sglang)
            prom.wait_until(lambda: _scraped_tokens(prom, sim, sim_after), "SGLang's tokens after")
            yield Side(prom, vllm_server, sglang, before, after)
    finally:
        sglang.stop()


def _rows(side: Side) -> dict[str, dict]:
    done, data = fleet_json(side.prom.url, "--window", "30m")  # the window holds every sample of this Prometheus
    assert data is not None, done.stderr
    return {row["instance"]: row for row in data["instances"]}


def test_the_fleet_lists_a_vllm_and_an_sglang_instance_each_from_its_own_families(side: Side) -> None:
    rows = _rows(side)
    real, sglang = rows[_address(side.real.url)], rows[_address(side.sglang.url)]
    assert (real["engine"], real["job"], real["up"]) == ("vllm", JOB, True)
    assert (sglang["engine"], sglang["version"], sglang["version_source"]) == ("sglang", "0.5.12.post1",
                                                                              "metric families")
    assert real["version"] is None  # vLLM's families name no release, and no host file says it
    for row in (real, sglang):
        assert row["output_tok_s"] > 0 and row["request_rate"] > 0 and row["error_rate"] == 0, row
        assert row["ttft_p50_ms"] is not None and row["decode_tok_s"] is not None, row
        assert row["kv_usage"] is not None and row["running"] is not None and row["queued"] is not None, row
    assert sglang["accept_len_source"] in ("spec_verify_calls_total", "spec_accept_length gauge")


def test_the_vllm_rows_accept_length_and_load_are_the_servers_own(side: Side) -> None:
    real = _rows(side)[_address(side.real.url)]
    drafts = (side.after.get(api.DRAFTS) or 0.0) - (side.before.get(api.DRAFTS) or 0.0)
    accepted = (side.after.get(api.ACCEPTED) or 0.0) - (side.before.get(api.ACCEPTED) or 0.0)
    assert drafts > 0, "the completions drafted nothing"
    assert real["accept_len_source"] == "spec_decode counters"
    assert real["accept_len"] == pytest.approx(1 + accepted / drafts, abs=0.01), (real, accepted, drafts)
    now = _metrics(side.real)  # idle since the completions: Prometheus's last scrape says the same
    assert (real["running"], real["queued"]) == (now.get(api.RUNNING), now.get(api.WAITING)) == (0.0, 0.0)
    assert real["kv_usage"] == pytest.approx(now.kv_usage or 0.0, abs=1e-5)
