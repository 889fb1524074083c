"""The host's API reached through the SSH connection (ssh -L), as `mtptui bench HOST` and the dashboard do."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import httpx
import pytest

from mtptui.ops.connect import open_session
from tests.sshd import ROOT, nohup_server, process_host, wait_ready

pytestmark = pytest.mark.ssh


@pytest.fixture
def served(tmp_path, sshd):
    host = process_host(tmp_path, sshd)
    nohup_server(sshd, host, "redeploy-1step")
    wait_ready(host, host.log)
    yield host
    host.cleanup()


async def test_ssh_api_url_is_a_local_tunnel_to_the_hosts_api(served):
    async with open_session(served.config) as session:
        url = await session.api_url()
        assert url.startswith("http://127.0.0.1:") and not url.endswith(f":{served.api_port}")
        assert await session.api_url() == url  # asked again (the dashboard polls): the same tunnel
        async with httpx.AsyncClient(timeout=10) as client:  # only the tunnel listens on this port
            response = await client.get(url + "/v1/models")
    assert response.status_code == 200 and response.json()["data"]


def test_ssh_bench_host_runs_through_the_tunnel(served, tmp_path):
    out = tmp_path / "bench.json"
    result = subprocess.run([sys.executable, "-m", "mtptui.cli.main", "bench", served.name, "--config",
                             str(served.path), "--requests", "2", "--max-tokens", "16", "--no-history",
                             "--json", str(out)], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    summary = json.loads(out.read_text())["summary"]
    assert summary["requests_ok"] == 2 and summary["requests_failed"] == 0
    assert summary["output_tok_s"] > 0


async def test_ssh_dashboard_feed_reads_the_version_through_the_tunnel_and_the_start_from_proc(served):
    import asyncio

    from mtptui.ops.feed.items import HostStatus
    from mtptui.ops.feed.host import feed_for_host

    feed = feed_for_host(open_session(served.config, readonly=True))
    statuses: list[HostStatus] = []

    async def read() -> None:
        async for item in feed.items():
            if isinstance(item, HostStatus):
                statuses.append(item)
                if item.started_at is not None and item.launch_source.startswith("running"):
                    await feed.close()

    await asyncio.wait_for(read(), 60)
    pid = int(statuses[-1].launch_source.split()[-1])
    btime = next(int(line.split()[1]) for line in open("/proc/stat") if line.startswith("btime"))
    ticks = int(open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[19])
    assert statuses[-1].started_at == btime + ticks / os.sysconf("SC_CLK_TCK")
    assert statuses[-1].version == "0.5.12.post1"
