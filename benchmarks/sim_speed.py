"""Measure the simulated server's decode speed per launch profile, from the client and from its own truth.

    .venv/bin/python benchmarks/sim_speed.py [--tokens 400] [--concurrency 1]

For the mission's two profiles and a launch without speculative decoding: one warm-up request, then
``--concurrency`` streams of ``--tokens`` tokens each. Prints client tok/s (tokens after the first chunk /
time from first to last chunk), the server's truth from /sim/requests, and the accept length from sglext.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.simserver import NO_SPEC_ARGV, profile_argv, profile_env, start_sim  # noqa: E402

PROMPT = [{"role": "user", "content": "Write a red-black tree in Python with insert, delete and search."}]


def one_stream(url: str, tokens: int) -> tuple[float, float | None, str]:
    body = {"messages": PROMPT, "stream": True, "max_tokens": tokens, "ignore_eos": True,
            "stream_options": {"include_usage": True, "continuous_usage_stats": True},
            "return_spec_tokens_details": True}
    first = last = None
    n_first = n_last = 0
    accept, rid = None, ""
    with httpx.stream("POST", url + "/v1/chat/completions", json=body, timeout=120) as response:
        for line in response.iter_lines():
            if not line.startswith("data: ") or line == "data: [DONE]":
                continue
            now, event = time.perf_counter(), json.loads(line[6:])
            rid = event.get("id", rid)
            accept = event.get("sglext", {}).get("spec_tokens_details", {}).get("spec_accept_length", accept)
            if event["choices"] and event.get("usage"):
                n_last, last = event["usage"]["completion_tokens"], now
                if first is None:
                    first, n_first = now, n_last
    return (n_last - n_first) / (last - first), accept, rid


def measure(name: str, argv: list[str], env: dict[str, str], tokens: int, concurrency: int) -> None:
    with tempfile.TemporaryDirectory() as tmp, start_sim(Path(tmp), argv, env=env) as sim:
        one_stream(sim.url, 60)
        with ThreadPoolExecutor(concurrency) as pool:
            results = list(pool.map(lambda _: one_stream(sim.url, tokens), range(concurrency)))
        truth = {r["rid"]: r for r in httpx.get(sim.url + "/sim/requests").json()["requests"]}
    for rate, accept, rid in results:
        server = truth[rid]["decode_tok_s"]
        accept_text = f"{accept:.2f}" if accept is not None else "-"
        print(f"{name:16s} client {rate:6.2f} tok/s  server {server:6.2f} tok/s  "
              f"diff {100 * (rate / server - 1):+5.2f}%  accept len {accept_text}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tokens", type=int, default=400)
    parser.add_argument("--concurrency", type=int, default=1)
    args = parser.parse_args()
    for name in ("redeploy-1step", "restored"):
        measure(name, profile_argv(name), profile_env(name), args.tokens, args.concurrency)
    measure("no-speculation", NO_SPEC_ARGV, {}, args.tokens, args.concurrency)


if __name__ == "__main__":
    main()
