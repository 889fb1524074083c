"""The bench's accept length from each source, per SGLang version, against the simulated server's truth.

    .venv/bin/python benchmarks/accept_sources.py [--requests 4] [--max-tokens 128]

For each supported version and the mission's two profiles, one `BenchRunner` run with the server's log
followed (through the local transport, as the demo's) and /metrics on; the summary keeps every source's
figure (sglext, spec_verify_calls_total deltas, decode-log lines, spec_accept_length gauge updates,
/server_info's lifetime average) beside the one it reports. Truth: Σ completion tokens / Σ verify steps of
the run's requests, from /sim/requests.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from mtptui.bench.load import LoadPlan  # noqa: E402
from mtptui.bench.prompts import load_prompt_set  # noqa: E402
from mtptui.bench.runner import BenchConfig, BenchRunner  # noqa: E402
from mtptui.engines.sglang.surface import SUPPORTED  # noqa: E402
from tests.simserver import profile_argv, profile_env, start_sim, version_args  # noqa: E402
from tests.test_bench_sim import server_log, truth_accept, truth_of  # noqa: E402

SOURCES = (("sglext", "accept_len_sglext"), ("metrics", "accept_len_metrics"), ("server log", "accept_len_log"),
           ("gauge", "accept_len_gauge"), ("server_info", "accept_len_server_info"))


async def measure(sim, args: argparse.Namespace) -> tuple[dict, float]:
    plan = LoadPlan(requests=args.requests, concurrency=1, warmup=1)
    config = BenchConfig(url=sim.url, prompts=load_prompt_set("rbtree"), plan=plan, max_tokens=args.max_tokens)
    result = await BenchRunner(config, log=server_log(sim)).run()
    return result.summary, truth_accept(truth_of(sim.url, result))


def row(version: str, profile: str, summary: dict, truth: float) -> str:
    cells = []
    for name, key in SOURCES:
        value = summary.get(key)
        cells.append(f"{name} {value:.2f} ({value - truth:+.2f})" if value is not None else f"{name} -")
    return (f"{version:<13} {profile:<15} truth {truth:.2f}  reported {summary['accept_len']:.2f} "
            f"({summary['accept_len_source']})  |  " + "  ".join(cells))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=4)
    parser.add_argument("--max-tokens", type=int, default=128)
    args = parser.parse_args()
    for version in SUPPORTED:
        for profile in ("redeploy-1step", "restored"):
            with tempfile.TemporaryDirectory() as tmp, start_sim(Path(tmp), profile_argv(profile, version),
                                                                 env=profile_env(profile),
                                                                 sim_args=version_args(version)) as sim:
                httpx.get(sim.url + "/health", timeout=30)
                summary, truth = asyncio.run(measure(sim, args))
            print(row(version, profile, summary, truth))


if __name__ == "__main__":
    main()
