"""Benchmarks of the lab host, whose API only the host itself can reach: the CLI and the dashboard's bench screen
go through the SSH connection, and a decoy on the operator's own 127.0.0.1:30000 never sees a request."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from mtptui.bench import history
from mtptui.bench.events import Notice
from mtptui.ops.bench_run import BenchRequest, bench_config, run_bench, target_of_session
from mtptui.ops.connect import open_session
from tests.lab import API_PORT, operator_env
from tests.lab.hosts import ISOLATION_PROBE
from tests.sshd import MODEL, ROOT
from tests.ui_fixtures.support import SIZE, wait_until

pytestmark = pytest.mark.ssh


class Decoy:
    """Something else listening on the operator's 127.0.0.1:30000: it counts who connects (but test_lab's isolation
    probe), and answers nothing."""

    def __init__(self, port: int = API_PORT) -> None:
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", port))
        self.sock.listen()
        self.connections = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            conn.settimeout(5)
            try:
                first = conn.recv(len(ISOLATION_PROBE) + 8)
            except OSError:
                first = b""
            if not first.startswith(f"GET {ISOLATION_PROBE}".encode()):  # test_lab's probe, from another worker
                self.connections += 1
            conn.close()

    def close(self) -> None:
        self.sock.shutdown(socket.SHUT_RDWR)  # wakes the accepting thread, so the port is free at once
        self.sock.close()


@pytest.fixture
def decoy():
    d = Decoy()
    yield d
    d.close()


def chat_requests(log: str) -> int:
    return log.count('"POST /v1/chat/completions HTTP/1.1" 200')


def test_bench_host_cli_measures_the_lab_through_ssh(lab_process, decoy, tmp_path, isolated_dirs):
    lab_process.wait_ready()
    out = tmp_path / "bench.json"
    result = subprocess.run([sys.executable, "-m", "mtptui.cli.main", "bench", "lab", "--config",
                             str(lab_process.path), "--requests", "2", "--max-tokens", "16", "--json", str(out)],
                            capture_output=True, text=True, timeout=120, cwd=ROOT, env=operator_env(lab_process.lab))
    assert result.returncode == 0, result.stderr
    run = json.loads(out.read_text())
    assert run["summary"]["requests_ok"] == 2 and run["fingerprint"]["target"] == "lab"
    assert run["fingerprint"]["model"] == MODEL and run["fingerprint"]["launch_flags"]["speculative_num_steps"] == 1
    assert chat_requests(lab_process.log_text()) == 3  # the warm-up and the two measured requests
    assert decoy.connections == 0


async def test_the_dashboards_bench_screen_measures_the_lab_through_ssh(lab_systemd, decoy):
    from mtptui.ops.feed.host import feed_for_host
    from mtptui.ui.app import AppContext, MtpApp
    from mtptui.ui.screens.bench import BenchScreen
    from tests.test_ui_bench import set_field

    lab_systemd.wait_ready()
    config = lab_systemd.config
    session = open_session(config)
    app = MtpApp(feed_for_host(session), AppContext("lab", host=config, session=session), cursor_blink=False,
                 keymap={})
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("b")
        await wait_until(pilot, lambda: isinstance(app.screen, BenchScreen))
        screen = app.screen
        await set_field(pilot, screen, "requests", "2")
        await set_field(pilot, screen, "max_tokens", "16")
        await pilot.press("s")

        def done() -> bool:
            """the bench run ended"""
            return screen.live.state in ("finished", "failed")

        await wait_until(pilot, done, timeout=90)
        assert screen.live.state == "finished", screen.live.error
    (stored,) = history.load_runs()
    assert stored["fingerprint"]["target"] == "lab" and stored["fingerprint"]["model"] == MODEL
    assert stored["summary"]["requests_ok"] == 2
    log = lab_systemd.log_text()
    assert chat_requests(log) == 3 and '"GET /server_info HTTP/1.1" 200' in log and '"GET /metrics' in log
    assert decoy.connections == 0


async def test_a_run_that_measured_another_model_says_so_and_stays_out_of_the_hosts_history(lab_process):
    lab_process.wait_ready()
    real = lab_process.config
    other = real.model_copy(update={"profiles": {name: p.model_copy(update={"model_path": "/data/models/Other-7B"})
                                                 for name, p in real.profiles.items()}})
    config = bench_config(BenchRequest("rbtree", 1, 2, 16))
    notices: list[str] = []

    def on_event(event) -> None:
        if isinstance(event, Notice):
            notices.append(event.message)

    async with open_session(other, readonly=True) as session:
        foreign = await run_bench(target_of_session(session), config, on_event)
    async with open_session(real, readonly=True) as session:
        first = await run_bench(target_of_session(session), config, on_event)
        second = await run_bench(target_of_session(session), config, on_event)
    assert foreign.run["foreign_model"] and foreign.best.verdict == "no-baseline"
    assert f"model {MODEL!r}, which none of lab's profiles serves" in foreign.best.sentence()
    # (a run this short has no decode-log line for its accept length, which is now said too)
    assert [n for n in notices if "which none of" in n] == [foreign.run["foreign_model"]]
    assert first.best.verdict == "no-baseline" and first.best.reason is None  # the foreign run is no baseline
    assert second.best.baseline["id"] == first.run["id"]
    assert [r["id"] for r in history.load_runs()] == [foreign.run["id"], first.run["id"], second.run["id"]]


def test_nothing_listens_on_the_operators_api_port_while_the_lab_serves(lab_process):
    lab_process.wait_ready()
    with socket.socket() as sock:
        assert sock.connect_ex(("127.0.0.1", API_PORT)) != 0
    assert lab_process.lab.api("/health")[0] == 200
    assert Path(lab_process.log).exists()


def truth_accept(lab, run: dict) -> float:
    """Σ completion tokens / Σ verify steps of the run's requests, as the server on the lab host counted them."""
    status, body = lab.api("/sim/requests")
    truth = {r["rid"]: r for r in json.loads(body)["requests"]}
    mine = [truth[r["rid"]] for r in run["requests"]]
    return sum(t["completion_tokens"] for t in mine) / sum(t["verify_steps"] for t in mine)


def test_bench_host_gives_each_versions_accept_length_and_names_its_source(lab_process_each, tmp_path):
    """0.5.12.post1 sends no per-request acceptance: the server's own decode-log lines, read over SSH, give it."""
    host = lab_process_each
    host.wait_ready()
    out = tmp_path / "bench.json"
    result = subprocess.run([sys.executable, "-m", "mtptui.cli.main", "bench", "lab", "--config", str(host.path),
                             "--requests", "3", "--max-tokens", "96", "--no-history", "--json", str(out)],
                            capture_output=True, text=True, timeout=180, cwd=ROOT, env=operator_env(host.lab))
    assert result.returncode == 0, result.stderr
    run = json.loads(out.read_text())
    summary, source = run["summary"], ("server log" if host.lab.version == "0.5.12.post1" else "sglext")
    assert run["fingerprint"]["server_version"] == host.lab.version and summary["accept_len_source"] == source
    assert abs(summary["accept_len"] - truth_accept(host.lab, run)) <= 0.3
    assert f"{summary['accept_len']:.2f} ({source})" in result.stdout


async def test_the_openai_client_through_the_labs_tunnel(lab_process_each):
    import httpx
    import openai

    host = lab_process_each
    host.wait_ready()
    prompt = [{"role": "user", "content": "Write a trie."}]
    async with open_session(host.config, readonly=True) as session, \
            httpx.AsyncClient(trust_env=False, timeout=60) as http:
        client = openai.AsyncOpenAI(base_url=await session.api_url() + "/v1", api_key="none", http_client=http,
                                    max_retries=0)
        chunks = [c async for c in await client.chat.completions.create(
            model="m", messages=prompt, max_tokens=24, stream=True, stream_options={"include_usage": True})]
        reply = await client.chat.completions.create(model="m", messages=prompt, max_tokens=8)
        text = await client.completions.create(model="m", prompt="def f():", max_tokens=6)
        for stream in (False, True):
            with pytest.raises(openai.BadRequestError) as caught:
                await client.chat.completions.create(model="m", messages=prompt, max_tokens=300_000, stream=stream)
            assert caught.value.body["message"].startswith("Requested token count exceeds the model's maximum")
    assert chunks[0].choices[0].delta.role == "assistant" and chunks[-1].usage.completion_tokens == 24
    assert reply.usage.completion_tokens == 8 and text.usage.completion_tokens == 6
