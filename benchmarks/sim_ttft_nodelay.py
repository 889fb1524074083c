"""TTFT measured against the simulated server on a kept-alive connection, vs the server's own TTFT.

    .venv/bin/python benchmarks/sim_ttft_nodelay.py [--requests 40] [--src DIR]

Starts ``mtptui sim`` (the known-good profile) from the source tree ``--src`` (default: this checkout; give an
extracted older commit to measure before a change, e.g. ``git archive COMMIT | tar -x -C /tmp/before``), then
sends sequential streamed chat requests on one keep-alive httpx connection. For each: the client's TTFT
(request sent to the first chunk with text), the server's own TTFT from /sim/requests (arrival to first
token) and their difference, which is what the transport adds. Without TCP_NODELAY on the accepted socket,
the first chunk after the response headers waits for the client's delayed ACK (Nagle).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.simserver import READY_LINE, free_port, profile_argv, profile_env  # noqa: E402

PROMPT = [{"role": "user", "content": "Write a red-black tree in Python."}]


def start(src: Path, log: Path, port: int) -> subprocess.Popen:
    env = {**os.environ, **profile_env("restored"), "PYTHONPATH": str(src)}
    argv = [sys.executable, "-m", "mtptui.cli.main", "sim", "--host", "127.0.0.1", "--port", str(port), "--speed",
            "200", "--", *profile_argv("restored")]
    with open(log, "wb") as out:
        proc = subprocess.Popen(argv, cwd=src, env=env, stdout=out, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 60
    while READY_LINE not in log.read_text(errors="replace"):
        if proc.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"the simulated server did not start:\n{log.read_text()[-2000:]}")
        time.sleep(0.05)
    return proc


def one(client: httpx.Client) -> tuple[str, float]:
    """(request id, client TTFT in s) of one streamed request."""
    body = {"messages": PROMPT, "stream": True, "max_tokens": 8,
            "chat_template_kwargs": {"enable_thinking": False}}
    sent = time.perf_counter()
    rid, ttft = "", None
    with client.stream("POST", "/v1/chat/completions", json=body) as response:
        for line in response.iter_lines():
            if not line.startswith("data: {"):
                continue
            event = json.loads(line[6:])
            rid = rid or event["id"]
            delta = (event["choices"] or [{}])[0].get("delta", {})
            if ttft is None and (delta.get("content") or delta.get("reasoning_content")):
                ttft = time.perf_counter() - sent
    return rid, ttft


def measure(url: str, requests: int) -> dict:
    client_ttft: dict[str, float] = {}
    with httpx.Client(base_url=url, timeout=60, trust_env=False) as client:
        one(client)  # warm-up: the connection is open and the first decode batch is behind us
        for _ in range(requests):
            rid, ttft = one(client)
            client_ttft[rid] = ttft
        truth = {r["rid"]: r for r in client.get("/sim/requests").json()["requests"]}
    server = {rid: truth[rid]["first_token"] - truth[rid]["arrival"] for rid in client_ttft}
    extra = [client_ttft[rid] - server[rid] for rid in client_ttft]
    def ms(values: list[float]) -> str:
        return f"median {statistics.median(values) * 1e3:6.1f} ms, mean {statistics.fmean(values) * 1e3:6.1f} ms"

    return {"client TTFT": ms(list(client_ttft.values())), "server TTFT": ms(list(server.values())),
            "client - server": ms(extra)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=40)
    parser.add_argument("--src", type=Path, default=ROOT, help="source tree to run the simulated server from")
    args = parser.parse_args()
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        proc = start(args.src.resolve(), Path(tmp) / "sim.log", port)
        try:
            figures = measure(f"http://127.0.0.1:{port}", args.requests)
        finally:
            proc.terminate()
            proc.wait(timeout=15)
    print(f"simulated server from {args.src}, {args.requests} sequential requests on one keep-alive connection")
    for name, value in figures.items():
        print(f"  {name:<16} {value}")


if __name__ == "__main__":
    main()
