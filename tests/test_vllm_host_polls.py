"""The dashboard's polls of a vLLM host speak vLLM: the host feed asks `/version` (vLLM has no `/server_info`),
reads the launch from the server's process and its `non-default args` line, reads `/metrics` through the
`vllm:` families (accept length = 1 + Δaccepted / Δdrafts between two scrapes), and the health line judges the
running launch against the known-good profile in vLLM's words, naming vLLM where it names the engine.

The pure parts run on texts; the rest against the session's real `vllm serve` (tests/vllm_real/fixture.py), on a
local host whose process manager finds it by its pid file and whose log is the server's own log file.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from mtptui.config import HostConfig
from mtptui.engines.polls import ServerInfo
from mtptui.engines.registry import dashboard, launches
from mtptui.engines.vllm import api
from mtptui.engines.vllm.host_polls import MetricsReader, server_status
from mtptui.ops.baseline import Baseline
from mtptui.ops.connect import open_session
from mtptui.ops.drift import known_good_drift
from mtptui.ops.feed.items import HostStatus
from mtptui.ops.feed.host import feed_for_host, with_server_info
from mtptui.ops.health.assess import assess, running_shape
from mtptui.ops.health.verdict import speed_check
from mtptui.ops.metrics_feed import ServerMetrics
from mtptui.engines.sglang.state.serving import ServingStats
from tests.vllm_real.server import NGRAM, VllmServer

PROMPT = "the server decodes tokens the server decodes tokens the server decodes"
ACCESS = re.compile(r'"GET (/[^ ?"]*)[^"]*" (\d{3})')


def exposition(drafts: float, draft_tokens: float, accepted: float, finished: dict[str, float],
               running: float = 1, waiting: float = 2, kv: float = 0.25) -> str:
    """A `/metrics` text in vLLM 0.32.0's shape (prometheus_client's: a counter typed by its `_total` name,
    its `_created` time a gauge of its own; two engines' label sets for running)."""
    labels = 'engine="0",model_name="m"'
    lines = ["# TYPE vllm:num_requests_running gauge", f"vllm:num_requests_running{{{labels}}} {running}",
             'vllm:num_requests_running{engine="1",model_name="m"} 0',
             "# TYPE vllm:num_requests_waiting gauge", f"vllm:num_requests_waiting{{{labels}}} {waiting}",
             "# TYPE vllm:kv_cache_usage_perc gauge", f"vllm:kv_cache_usage_perc{{{labels}}} {kv}",
             "# TYPE vllm:request_success_total counter"]
    lines += [f'vllm:request_success_total{{{labels},finished_reason="{reason}"}} {count}'
              for reason, count in finished.items()]
    for family, value in ((api.DRAFTS, drafts), (api.DRAFT_TOKENS, draft_tokens), (api.ACCEPTED, accepted)):
        lines += [f"# TYPE {family}_total counter", f"{family}_total{{{labels}}} {value}",
                  f"# TYPE {family}_created gauge", f"{family}_created{{{labels}}} 1.7e9"]
    return "\n".join(lines) + "\n"


def test_the_vllm_metrics_reader_gives_the_dashboards_figures_and_the_intervals_accept_length() -> None:
    read = dashboard("vllm").metrics_reader(None)
    first = read(exposition(10, 30, 20, {"stop": 3, "length": 1, "abort": 1}))
    assert (first["running"], first["queue"], first["token_usage"]) == (1.0, 2.0, 0.25)
    assert (first["requests"], first["aborted"]) == (5.0, 1.0)
    assert first["accept_len"] == 3.0 and first["accept_rate"] == pytest.approx(20 / 30)  # since the start
    second = read(exposition(30, 90, 50, {"stop": 6, "length": 1, "abort": 1}))
    assert second["accept_len"] == pytest.approx(1 + 30 / 20) and second["accept_rate"] == pytest.approx(30 / 60)
    idle = read(exposition(30, 90, 50, {"stop": 6, "length": 1, "abort": 1}))
    assert idle["accept_len"] is None and idle["accept_rate"] is None  # nothing drafted in the interval
    restarted = read(exposition(4, 12, 6, {"stop": 1}))  # the counters went back: another process
    assert restarted["accept_len"] == 2.5 and restarted["aborted"] == 0.0


def test_a_vllm_metrics_text_that_is_no_exposition_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        MetricsReader()("vllm:num_requests_running{ this is not an exposition")


def test_version_is_what_vllms_api_says_of_itself() -> None:
    async def answers(path: str) -> tuple[int, object]:
        return {"/version": (200, {"version": "0.32.0"})}.get(path, (404, {"detail": "Not Found"}))

    async def no_version(path: str) -> tuple[int, object]:
        return 200, {"detail": "nothing"}

    assert asyncio.run(server_status(answers, None)) == ServerInfo("0.32.0")
    assert asyncio.run(server_status(no_version, None)) is None
    status = with_server_info(HostStatus("vllm-lab", launch_source="running pid 7"), ServerInfo("0.32.0"))
    assert (status.version, status.launch_source) == ("0.32.0", "running pid 7")  # the process's launch is kept


def real_host(port: int, model: Path, log: Path, pid_file: Path, tokens: int = 5) -> HostConfig:
    """A local host for a server as tests/vllm_real starts one, its known-good profile that launch with
    ``tokens`` drafts."""
    good = {**NGRAM, "num_speculative_tokens": tokens}
    flags = {"host": "127.0.0.1", "port": port, "max-model-len": 1024, "max-num-seqs": 8,
             "optimization-level": 0, "dtype": "bfloat16", "speculative-config": json.dumps(good),
             "enable-server-load-tracking": True}
    return HostConfig.model_validate({
        "name": "vllm-real", "engine": "vllm", "api_url": f"http://127.0.0.1:{port}", "known_good": "good",
        "server": {"manager": "process", "log_file": str(log), "pid_file": str(pid_file)},
        "log": {"kind": "file", "path": str(log)},
        "profiles": {"good": {"model_path": str(model), "flags": flags}}})


def test_the_drift_and_shape_of_a_vllm_launch_in_vllms_words() -> None:
    where = (8123, Path("/m/tiny"), Path("/srv/vllm.log"), Path("/srv/vllm.pid"))
    host = real_host(*where)
    words = ["/venv/bin/vllm", "serve", "/m/tiny", "--host", "127.0.0.1", "--port", "8123", "--max-model-len", "1024",
             "--max-num-seqs", "8", "-O0", "--dtype", "bfloat16", "--speculative-config", json.dumps(NGRAM),
             "--enable-server-load-tracking"]
    model = launches("vllm")
    running = model.argv(words, model.version(host))
    drift = known_good_drift(host, running)
    assert drift is not None and [str(item) for item in drift.items] == ["spec ngram:3≠ngram:5"]
    assert running_shape(running, host) == ("3", "3", "")
    same = known_good_drift(real_host(*where, tokens=3), running)
    assert same is not None and same.count == 0


def test_a_stale_baseline_names_the_hosts_engine() -> None:
    stale = Baseline((40.0, 42.0), 2, "0.31.0", stale="0.31.0")
    assert speed_check([41.0], stale, engine="vLLM").text == "baseline 41 tok/s is vLLM 0.31.0's: stale"


@dataclass
class Polled:
    """What the host feed emitted on the real server, and the server's log of those polls."""

    status: HostStatus  # the first with the version and the launch as the server resolved it
    before: ServerMetrics  # the first scrape
    after: ServerMetrics  # the first scrape begun after a completion was served
    scrapes: list[ServerMetrics]
    log: str
    host: HostConfig


def _complete(server: VllmServer) -> None:
    body = {"model": str(server.model), "prompt": PROMPT, "max_tokens": 48, "temperature": 0}
    httpx.post(f"{server.url}{api.COMPLETIONS}", json=body, timeout=300).raise_for_status()


async def _poll(server: VllmServer, host: HostConfig) -> tuple[HostStatus, list[ServerMetrics], int]:
    """The host feed until a status has the version and the launch as the server resolved it, and a scrape of
    /metrics began after a completion served after the first scrape (its index is returned)."""
    session = open_session(host)
    feed = feed_for_host(session, every_s=0.2, slow_every_s=0.2)
    status: HostStatus | None = None
    scrapes: list[ServerMetrics] = []
    served_at: float | None = None
    try:
        async for item in feed.items():
            if isinstance(item, HostStatus) and status is None and item.version and item.launch is not None \
                    and item.launch.said:
                status = item
            elif isinstance(item, ServerMetrics):
                scrapes.append(item)
                if served_at is None:
                    await asyncio.to_thread(_complete, server)
                    served_at = time.monotonic()
            after = [i for i, scrape in enumerate(scrapes) if served_at is not None and scrape.t > served_at]
            if status is not None and after:
                return status, scrapes, after[0]
    finally:
        await feed.close()
    raise AssertionError("the host feed ended before it showed the server")


@pytest.fixture(scope="module")
def polled(vllm_server: VllmServer, tmp_path_factory: pytest.TempPathFactory) -> Polled:
    assert vllm_server.process is not None
    pid_file = tmp_path_factory.mktemp("vllm-host") / "vllm.pid"
    pid_file.write_text(f"{vllm_server.process.pid}\n")
    host = real_host(vllm_server.port, vllm_server.model, vllm_server.log_path, pid_file)
    mark = vllm_server.mark()
    status, scrapes, after = asyncio.run(asyncio.wait_for(_poll(vllm_server, host), 300))  # a guard against a hang
    return Polled(status, scrapes[0], scrapes[after], scrapes, vllm_server.log_since(mark), host)


def test_the_host_feed_asks_vllm_for_its_version_and_never_for_server_info(polled: Polled) -> None:
    status = polled.status
    assert status.version == "0.32.0" and status.host == "vllm-real"
    polls = ACCESS.findall(polled.log)
    assert ("/version", "200") in polls and ("/metrics", "200") in polls
    assert not [path for path, code in polls if code == "404"], polls  # no route of another engine
    assert "/server_info" not in polled.log and "/get_server_info" not in polled.log


def test_the_log_view_hides_the_access_lines_of_the_vllm_polls(polled: Polled) -> None:
    from mtptui.ops.own_polls import is_own_poll, own_poll_test

    hidden = own_poll_test(dashboard("vllm").poll_paths)
    lines = [line for line in polled.log.splitlines() if '"GET /' in line]
    versions = [line for line in lines if '"GET /version ' in line]
    assert versions and all(hidden(line) for line in lines)
    assert not any(is_own_poll(line) for line in versions)  # SGLang's paths: /version is no poll of its dashboard


def test_the_running_launch_is_the_process_with_what_the_server_said_it_resolved(polled: Polled,
                                                                              vllm_server: VllmServer) -> None:
    assert vllm_server.process is not None
    status = polled.status
    assert status.launch_source == f"running pid {vllm_server.process.pid}"
    said = status.launch.said
    assert said["--speculative-config"]["num_speculative_tokens"] == 3 and said["--max-num-seqs"] == 8


def test_the_metrics_poll_reads_vllms_families(polled: Polled) -> None:
    first, second = polled.before.figures, polled.after.figures
    assert all(scrape.missing is None for scrape in polled.scrapes)
    assert second["requests"] - first["requests"] >= 1  # the completion between them (other modules' too)
    assert second["running"] is not None and second["queue"] is not None
    assert 0.0 <= second["token_usage"] <= 1.0
    assert second["accept_len"] is not None and 1.0 <= second["accept_len"] <= 1 + NGRAM["num_speculative_tokens"]


def test_the_health_line_of_the_real_server_knows_its_launch(polled: Polled, vllm_server: VllmServer) -> None:
    status = polled.status
    health = assess(polled.host, status, ServingStats(), [])
    texts = [check.text for check in health.checks]
    assert not any("not known yet" in text for text in texts), texts
    drift = next(check for check in health.checks if check.name == "drift")
    assert drift.text.startswith("running ≠ known-good: ") and drift.items[0] == "spec ngram:3≠ngram:5"
    env = vllm_server.env  # the server's own environment
    names = [item.split(" ", 1)[0] for item in drift.items[1:]]
    assert names and all(name in env for name in names), names  # the flags agree; its environment is not
    assert "SGLang" not in " ".join(texts)


def test_the_help_panes_name_the_hosts_engine() -> None:
    from rich.console import Console

    from mtptui.ui.screens.help import HelpScreen

    def panes(label: str) -> str:
        console = Console(width=200, record=True, file=open("/dev/null", "w"))
        console.print(HelpScreen([], label)._panes_table())
        return console.export_text()

    assert "vLLM version" in panes("vLLM") and "SGLang" not in panes("vLLM")
    assert "SGLang version" in panes("SGLang")


def test_a_console_script_is_read_as_its_process_shows_it() -> None:
    """`vllm serve` started as a script: the kernel puts the shebang's interpreter first in /proc/PID/cmdline."""
    model = launches("vllm")
    words = ["/venv/bin/python", "/venv/bin/vllm", "serve", "/m/tiny", "--max-num-seqs", "8"]
    launch = model.argv(words, "0.32.0")
    assert (launch.model_path, launch.flags) == ("/m/tiny", {"--max-num-seqs": 8})
    assert model.entry(words) == "/venv/bin/python /venv/bin/vllm serve"
    assert model.entry(["/venv/bin/python", "/venv/bin/other", "serve"]) is None
