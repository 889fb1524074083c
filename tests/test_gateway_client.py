"""The gateway client against the real SGLang gateway (smg 1.13.0) in front of two simulated servers."""

from __future__ import annotations

import asyncio
import socket
import threading

import pytest

from mtptui.gateway.client import Gateway
from mtptui.gateway.http import GatewayError
from mtptui.gateway.match import find_worker, worker_addresses
from tests.gateway_lab import gateway_rig, wait_workers
from tests.simserver import free_port


def run(coro):
    return asyncio.run(coro)


async def _workers(url: str, token: str | None = None):
    async with Gateway(url, token=token) as gateway:
        return await gateway.generation(), await gateway.workers()


def test_lists_both_replicas_ready_with_what_they_reported(gateway_rig_module) -> None:
    rig = gateway_rig_module
    generation, workers = run(_workers(rig.url))
    assert generation == "smg"
    assert sorted(w.url for w in workers) == sorted(sim.url for sim in rig.sims)
    for worker in workers:
        assert (worker.status, worker.healthy, worker.load, worker.runtime) == ("ready", True, 0, "sglang")
        assert worker.version == "0.5.12.post1" and worker.labels["tp_size"] == "2"
        assert worker.id and worker.describe() == f"{worker.url} ready, healthy, load 0"


def test_finds_this_hosts_worker_by_url_or_by_address(gateway_rig_module) -> None:
    rig = gateway_rig_module
    _, workers = run(_workers(rig.url))
    sim = rig.sims[1]
    assert find_worker(workers, rig.url, worker_url=sim.url + "/").url == sim.url
    assert find_worker(workers, rig.url, addresses=worker_addresses(sim.url, rig.url)).url == sim.url
    with pytest.raises(GatewayError, match="lists no worker at http://127.0.0.1:1 "):
        find_worker(workers, rig.url, worker_url="http://127.0.0.1:1")
    both = {f"127.0.0.1:{s.port}" for s in rig.sims}
    with pytest.raises(GatewayError, match="lists 2 workers that could be this host .*set worker_url"):
        find_worker(workers, rig.url, addresses=both)


def test_remove_shows_draining_then_gone_and_add_waits_until_ready(gateway_rig_module) -> None:
    rig = gateway_rig_module
    sim = rig.sims[0]

    async def cycle() -> tuple[list, list, object]:
        removing, adding = [], []
        async with Gateway(rig.url, poll_s=0.2) as gateway:
            mine = find_worker(await gateway.workers(), rig.url, worker_url=sim.url)
            await gateway.remove(mine, seen=lambda w: removing.append(w.status if w else "gone"))
            listed_after = [w.url for w in await gateway.workers()]
            added = await gateway.add(sim.url, seen=lambda w: adding.append(w.status if w else None))
        return removing, listed_after, (added, adding)

    removing, listed_after, (added, adding) = run(cycle())
    assert "draining" in removing and removing[-1] == "gone"
    assert sim.url not in listed_after
    assert added.url == sim.url and added.status == "ready" and adding[-1] == "ready"
    assert wait_workers(rig.url, {s.url: "ready" for s in rig.sims}, timeout=10)


def test_adding_a_worker_it_already_has_waits_for_that_one(gateway_rig_module) -> None:
    rig = gateway_rig_module
    async def again():
        async with Gateway(rig.url) as gateway:
            return await gateway.add(rig.sims[1].url)
    assert run(again()).url == rig.sims[1].url
    assert len(rig.workers()) == 2


def test_a_worker_that_never_comes_up_times_out_with_its_last_status(gateway_rig_module) -> None:
    rig = gateway_rig_module
    nowhere = f"http://127.0.0.1:{free_port()}"

    async def add():
        async with Gateway(rig.url, poll_s=0.2) as gateway:
            await gateway.add(nowhere, timeout_s=2)
    with pytest.raises(GatewayError, match=rf"{nowhere} did not become ready .* within 2 s \(last status: pending\)"):
        run(add())


def test_health_says_ready_with_its_healthy_workers(gateway_rig_module) -> None:
    async def health():
        async with Gateway(gateway_rig_module.url) as gateway:
            return await gateway.health()
    found = run(health())
    assert found.ok and found.readiness == "ready" and found.total_workers >= 2


def test_unreachable_gateway_is_one_sentence() -> None:
    port = free_port()
    with pytest.raises(GatewayError) as caught:
        run(_workers(f"http://127.0.0.1:{port}"))
    assert str(caught.value) == f"cannot reach the gateway at http://127.0.0.1:{port}: connection refused"


def test_a_gateway_that_never_answers_fails_at_its_deadline() -> None:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        url = f"http://127.0.0.1:{server.getsockname()[1]}"

        async def slow():
            async with Gateway(url, deadline_s=0.5) as gateway:
                await gateway.workers()
        with pytest.raises(GatewayError, match=r"did not answer the worker list within 0.5 s"):
            run(slow())


def test_credentials_refused_or_missing_name_the_token_not_its_value(tmp_path) -> None:
    with gateway_rig(tmp_path, replicas=1, token="s3cret-token") as rig:
        for token in (None, "wrong"):
            refused = r"refused the credentials \(HTTP 401: .*\): check the bearer token"
            with pytest.raises(GatewayError, match=refused) as caught:
                run(_workers(rig.url, token))
            assert "s3cret" not in str(caught.value) and (token is None or token not in str(caught.value))
        generation, workers = run(_workers(rig.url, "s3cret-token"))
        assert generation == "smg" and [w.url for w in workers] == [rig.sims[0].url]


def test_malformed_and_huge_answers_are_one_sentence(hostile_http) -> None:
    cases = {"/junk": "without a list of workers", "/notjson": "without a list of workers",
             "/deep": "without a list of workers", "/huge": "with more than 1 MiB",
             "/nourl": "listed a worker without a URL"}
    for path, expected in cases.items():
        async def ask(path: str = path):
            async with Gateway(hostile_http + path) as gateway:
                gateway.http.body_limit = 1 << 20
                await gateway.workers()
        with pytest.raises(GatewayError, match=expected):
            run(ask())


@pytest.fixture
def hostile_http():
    """A loopback HTTP server answering ``PREFIX/workers`` with what a gateway should never send."""
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    bodies = {"/junk": b'{"workers": 7}', "/notjson": b"<html>nope</html>", "/deep": b"[" * 100000,
              "/huge": b'{"workers": ["' + b"x" * (3 << 20) + b'"]}', "/nourl": b'{"workers": [{"id": 1}]}'}

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 - the stdlib's name
            body = bodies.get(self.path.removesuffix("/workers"), b"{}")
            self.send_response(200)
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()
