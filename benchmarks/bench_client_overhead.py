"""What the benchmark client costs at 64 concurrent streams, and whether it bends the numbers it measures.

    .venv/bin/python benchmarks/bench_client_overhead.py [--concurrency 64] [--requests 128] [--max-tokens 96]

1. Live. The simulated server (the mission's known-good profile, with --max-running-requests raised to the
   concurrency so that every stream decodes at once) is measured by `BenchRunner` in this process:
   - output tok/s as measured vs the server's truth from /sim/requests (all tokens / first arrival to last token);
   - per-request decode tok/s vs the truth's, and token counts (must be equal);
   - the client's CPU time (`time.process_time`, this process only: event loop, httpx, SSE, JSON, metrics)
     per SSE event and as a share of one core over the run.
2. Offline. The per-event cost of the parse path alone (SSE decoding, JSON, usage delta, live bin) on
   recorded SGLang chunks, without network: an upper bound on the events per second one core can book.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mtptui.bench.chunks import StreamRecord, apply_event  # noqa: E402
from mtptui.bench.events import RequestDone  # noqa: E402
from mtptui.bench.live import RateBins  # noqa: E402
from mtptui.bench.load import LoadPlan  # noqa: E402
from mtptui.bench.prompts import load_prompt_set  # noqa: E402
from mtptui.bench.runner import BenchConfig, BenchRunner  # noqa: E402
from mtptui.bench.sse import EventParser  # noqa: E402
from mtptui.bench.tokens import TokenCounter  # noqa: E402
from tests.simserver import profile_argv, profile_env, start_sim  # noqa: E402


def sim_argv(concurrency: int) -> list[str]:
    argv = profile_argv("restored")
    index = argv.index("--max-running-requests")
    return argv[:index + 1] + [str(concurrency)] + argv[index + 2:]


async def live_run(url: str, args: argparse.Namespace):
    plan = LoadPlan(requests=args.requests, concurrency=args.concurrency, warmup=args.concurrency)
    config = BenchConfig(url=url, prompts=load_prompt_set("chat"), plan=plan, max_tokens=args.max_tokens)
    events = []  # SSE events of every request, warm-up included, from the live feed
    on_event = lambda e: events.append(e.metrics.events) if isinstance(e, RequestDone) else None  # noqa: E731
    cpu0, wall0 = time.process_time(), time.perf_counter()
    result = await BenchRunner(config).run(on_event=on_event)
    return result, sum(events), time.process_time() - cpu0, time.perf_counter() - wall0


def live(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp, start_sim(Path(tmp), sim_argv(args.concurrency),
                                                         env=profile_env("restored")) as sim:
        result, events, cpu, wall = asyncio.run(live_run(sim.url, args))
        truth = {t["rid"]: t for t in httpx.get(sim.url + "/sim/requests").json()["requests"]}
    real = [truth[r.metrics.rid] for r in result.requests]
    span = max(t["last_token"] for t in real) - min(t["arrival"] for t in real)
    truth_tok_s = sum(t["completion_tokens"] for t in real) / span
    per_request = [r.metrics.decode_tok_s / t["decode_tok_s"] - 1 for r, t in zip(result.requests, real)]
    same_tokens = all(r.metrics.output_tokens == t["completion_tokens"] for r, t in zip(result.requests, real))
    s = result.summary
    print(f"live: {args.concurrency} streams, {args.requests} requests x {args.max_tokens} tokens "
          f"(+{args.concurrency} warm-up), {s['requests_failed']} failed")
    print(f"  output tok/s  measured {s['output_tok_s']:8.1f}   truth {truth_tok_s:8.1f}   "
          f"diff {100 * (s['output_tok_s'] / truth_tok_s - 1):+.2f} %")
    print(f"  per-request decode tok/s vs truth: median {100 * statistics.median(per_request):+.2f} %, "
          f"token counts equal: {same_tokens}")
    print(f"  client CPU {cpu:.2f} s over {wall:.2f} s wall = {100 * cpu / wall:.1f} % of one core; "
          f"{events} SSE events -> {1e6 * cpu / events:.0f} us CPU per event (all client work included)")


def recorded_events(steps: int) -> list[str]:
    """SSE text of one request in SGLang's format: role, `steps` 3-token chunks with usage, finish, usage, DONE."""
    def chunk(delta, usage=None):
        body = {"id": "r", "object": "chat.completion.chunk", "created": 0, "model": "m", "usage": usage,
                "choices": [] if delta is None else [{"index": 0, "delta": delta, "logprobs": None,
                                                      "finish_reason": None, "matched_stop": None}]}
        return "data: " + json.dumps(body) + "\n\n"
    usage = lambda n: {"prompt_tokens": 512, "total_tokens": 512 + n, "completion_tokens": n,  # noqa: E731
                       "prompt_tokens_details": None, "reasoning_tokens": n}
    events = [chunk({"role": "assistant", "content": ""})]
    events += [chunk({"role": None, "content": None, "reasoning_content": " the tree rotates",
                      "tool_calls": None}, usage(3 * (i + 1))) for i in range(steps)]
    return events + [chunk({}), chunk(None, usage(3 * steps)), "data: [DONE]\n\n"]


def offline(args: argparse.Namespace) -> None:
    events = recorded_events(200)
    bins, repeats = RateBins(0.0, 1.0), max(1, args.replay // len(events))
    start = time.perf_counter()
    for _ in range(repeats):
        record, parser, counter = StreamRecord(start=0.0), EventParser(), TokenCounter()
        for text in events:
            for sse in parser.feed(text):
                if (chunk := apply_event(record, sse.data, time.perf_counter())) is not None:
                    bins.add(chunk.t, counter.step(chunk))
    seconds = time.perf_counter() - start
    count = repeats * len(events)
    print(f"offline: parse path {1e6 * seconds / count:.1f} us per event ({count} events) -> "
          f"{count / seconds:,.0f} events/s on one core")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--requests", type=int, default=128)
    parser.add_argument("--max-tokens", type=int, default=96)
    parser.add_argument("--replay", type=int, default=200_000, help="events replayed offline")
    args = parser.parse_args()
    offline(args)
    live(args)


if __name__ == "__main__":
    main()
