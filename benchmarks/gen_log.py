"""Generate realistic SGLang 0.5.23 server logs of several shapes for the parser benchmark.

Every shape has two startup sequences (tqdm bars split by ``\\r``) around a crash with a traceback; they differ
in what the parser's prefix handling sees between them:

- ``busy``: the issue 3 mix (45% decode lines on a hybrid mamba pool with speculative fields, 40% uvicorn
  access lines, 10% prefill, 5% other) at 20 lines per second, so many lines share one timestamp prefix.
- ``quiet``: the mission's server: one request at a time, about a line a second (a decode line every couple of
  seconds, health checks and metrics scrapes between), so nearly every line has a new timestamp and the rank
  tag alternates between ``TP0`` and none.
- ``ranks``: DP attention at DP=4 TP=4 EP=4: the four DP groups' batch lines interleave (``DP2 TP2 EP2``).
- ``access``: a server behind a load balancer: 85% access lines from many clients, few batches.
- ``container``: the quiet server as ``docker compose logs`` prints it, every line behind ``sglang-1  | ``.

Deterministic for a seed; ``busy`` is byte for byte what this script wrote before it had shapes.

    python benchmarks/gen_log.py benchmarks/out/sglang-1m.log --lines 1000000 [--shape quiet]
"""

from __future__ import annotations

import argparse
import itertools
import random
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Callable, Iterator

RANKS = ("TP0", "TP1")
START = datetime(2026, 5, 11, 23, 48, 0)


@dataclass(frozen=True)
class Shape:
    """How one kind of server fills its log between startups."""

    step_s: tuple[float, float]  # seconds between two lines, drawn uniformly (fixed when both are equal)
    cuts: tuple[float, float, float]  # cumulative shares of decode, access and prefill lines; the rest is other
    stats_ranks: tuple[str, ...] = ("TP0",)  # rank tags of the batch lines, taken in turn (one per DP group)
    startup_ranks: tuple[str, ...] = RANKS
    running: tuple[int, int] = (1, 16)
    wrapper: str = ""


DP4 = tuple(f"DP{i} TP{i} EP{i}" for i in range(4))
SHAPES = {
    "busy": Shape((0.05, 0.05), (0.45, 0.85, 0.95)),
    "quiet": Shape((0.3, 1.7), (0.45, 0.85, 0.95), running=(1, 1)),
    "ranks": Shape((0.01, 0.03), (0.60, 0.80, 0.95), DP4, DP4),
    "access": Shape((0.005, 0.05), (0.08, 0.93, 0.98)),
    "container": Shape((0.3, 1.7), (0.45, 0.85, 0.95), running=(1, 1), wrapper="sglang-1  | "),
}


class Clock:
    """A log clock that advances a little with every line."""

    def __init__(self) -> None:
        self.now = START

    def tick(self, seconds: float = 0.05) -> str:
        self.now += timedelta(seconds=seconds)
        return self.now.strftime("%Y-%m-%d %H:%M:%S")


def startup(clock: Clock, rng: random.Random, ranks: tuple[str, ...] = RANKS) -> list[str]:
    """One 0.5.23 startup with an MTP draft head: weights, pools, graphs, uvicorn, ready."""
    return weights(clock, ranks) + pools(clock, ranks) + graphs(clock, ranks) + serving(clock, rng, ranks[0])


def weights(clock: Clock, ranks: tuple[str, ...]) -> list[str]:
    ts = clock.tick
    out = [f"[{ts()} {r}] Memory baseline taken. mem usage=0.52 GB" for r in ranks]
    out += [f"[{ts()} {r}] Load weight begin. avail mem=46.85 GB" for r in ranks]
    shards = 15
    out.append("\r" + "\r".join(f"Multi-thread loading shards: {100 * i // shards:3d}% Completed | {i}/{shards} "
                                 f"[00:{i:02d}<00:{shards - i:02d},  1.07s/it]" for i in range(shards + 1)))
    out += [f"[{ts(2)} {r}] Load weight end. elapsed=28.41 s, type=Qwen3_5ForCausalLM, avail mem=21.20 GB, "
            f"mem usage=25.61 GB." for r in ranks]
    out += [f"[{ts()} {r}] Load weight end. elapsed=0.19 s, type=Qwen3_5ForCausalLMMTP, avail mem=18.38 GB, "
            f"mem usage=2.82 GB." for r in ranks]
    return out


def pools(clock: Clock, ranks: tuple[str, ...]) -> list[str]:
    out = []
    for rank in ranks:
        out.append(f"[{clock.tick()} {rank}] Mamba Cache is allocated. max_mamba_cache_size: 48, "
                   f"conv_state size: 0.28GB, ssm_state size: 6.33GB ")
        for size in ("5.23", "0.33"):  # target pool, then the draft model's
            out.append(f"[{clock.tick()} {rank}] KV Cache is allocated. dtype: torch.bfloat16, #tokens: 685000, "
                       f"K size: {size} GB, V size: {size} GB")
        out.append(f"[{clock.tick()} {rank}] Memory pool end. avail mem=4.12 GB")
    return out


def graphs(clock: Clock, ranks: tuple[str, ...]) -> list[str]:
    out = [f"[{clock.tick()} {r}] Capture target verify CUDA graph begin. backend=full, num_tokens_per_req=4, "
           f"avail mem=4.04 GB" for r in ranks]
    sizes = [16, 12, 8, 4, 2, 1]
    out.append("\r" + "\r".join(
        f"Capturing batches (bs={bs} avail_mem={4.0 - i * 0.05:.2f} GB): {100 * i // len(sizes):3d}%|"
        f"{'█' * i}{' ' * (10 - i)}| {i}/{len(sizes)} [00:{2 * i:02d}<00:10,  2.96s/it]"
        for i, bs in enumerate(sizes + sizes[-1:])))
    out += [f"[{clock.tick(20)} {r}] Capture target verify CUDA graph end. bs=[1, 2, 4, 8, 12, 16], "
            f"elapsed=21.36 s, mem usage=0.61 GB, avail mem=3.43 GB." for r in ranks]
    return out


def serving(clock: Clock, rng: random.Random, rank: str = "TP0") -> list[str]:
    ts = clock.tick
    return [f"[{ts()} {rank}] max_total_num_tokens=685000, chunked_prefill_size=8192, max_prefill_tokens=16384, "
            f"max_running_requests=16, context_len=131072, available_gpu_mem=3.43 GB",
            f"[{ts()}] INFO:     Started server process [177326]",
            f"[{ts()}] INFO:     Waiting for application startup.",
            f"[{ts()}] INFO:     Application startup complete.",
            f"[{ts()}] INFO:     Uvicorn running on http://0.0.0.0:30000 (Press CTRL+C to quit)",
            f"[{ts()}] INFO:     127.0.0.1:40000 - \"GET /model_info HTTP/1.1\" 200 OK",
            prefill(clock, rng, rank=rank), decode(clock, rng, warm=True, rank=rank),
            f"[{ts()}] INFO:     127.0.0.1:40001 - \"POST /generate HTTP/1.1\" 200 OK",
            f"[{ts()}] The server is fired up and ready to roll!"]


def decode(clock: Clock, rng: random.Random, warm: bool = False, step: float = 0.05, rank: str = "TP0",
           running: tuple[int, int] = (1, 16)) -> str:
    running_req = rng.randint(*running)
    gen = rng.uniform(2, 9) if warm else rng.uniform(40, 60) * min(running_req, 4)
    accept = rng.uniform(2.8, 3.5)
    return (f"[{clock.tick(step)} {rank}] Decode batch, #running-req: {running_req}, "
            f"#full token: {rng.randint(1000, 680000)}, "
            f"full token usage: {rng.random():.2f}, mamba num: {running_req * 3}, mamba usage: {rng.random():.2f}, "
            f"accept len: {accept:.2f}, accept rate: {(accept - 1) / 3:.2f}, cuda graph: True, "
            f"gen throughput (token/s): {gen:.2f}, #queue-req: {rng.randint(0, 3)}")


def prefill(clock: Clock, rng: random.Random, step: float = 0.05, rank: str = "TP0") -> str:
    return (f"[{clock.tick(step)} {rank}] Prefill batch, #new-seq: 1, #new-token: {rng.randint(8, 4096)}, "
            f"#cached-token: {rng.randint(0, 250000)}, full token usage: {rng.random():.2f}, "
            f"mamba usage: {rng.random():.2f}, #running-req: {rng.randint(0, 15)}, #queue-req: 0, "
            f"#pending-token: 0, cuda graph: False, input throughput (token/s): {rng.uniform(500, 9000):.2f}")


def access(clock: Clock, rng: random.Random, step: float = 0.05) -> str:
    path, status = rng.choice(ACCESS)
    return f"[{clock.tick(step)}] INFO:     127.0.0.1:{rng.randint(30000, 60000)} - \"{path} HTTP/1.1\" {status}"


ACCESS = [("POST /v1/chat/completions", "200 OK")] * 30 + [
    ("GET /health", "200 OK"), ("GET /metrics", "200 OK"), ("GET /v1/models", "200 OK"),
    ("POST /v1/chat/completions", "400 Bad Request"), ("GET /health", "503 Service Unavailable")]


def other(clock: Clock, rng: random.Random, step: float = 0.05) -> str:
    return rng.choice(OTHER)(clock.tick(step), rng)


OTHER: list[Callable[[str, random.Random], str]] = [
    lambda ts, rng: f"[{ts} TP0] KV cache pool is full. Retract requests. #retracted_reqs: {rng.randint(1, 3)}, "
                    f"#new_tokens_gained: {rng.randint(100, 9000)}, #mamba_num_gained: 3",
    lambda ts, rng: f"[{ts}] Endpoint '/get_model_info' is deprecated and will be removed in a future version. "
                    f"Please use '/model_info' instead.",
    lambda ts, rng: f"[{ts} TP0] Cache flushed successfully!",
    lambda ts, rng: f"[{ts}] INFO:     Shutting down connection {rng.randint(1, 99)}",
    lambda ts, rng: f"[{ts} TP1] Registering {rng.randint(1, 400)} cuda graph addresses",
]


def crash(clock: Clock, rank: str = "TP0") -> list[str]:
    """A runtime crash: scheduler exception with an unprefixed traceback, then SIGQUIT."""
    return [f"[{clock.tick()} {rank}] Scheduler hit an exception: Traceback (most recent call last):",
            '  File "/sgl/python/sglang/srt/managers/scheduler.py", line 6370, in run_scheduler_process',
            "    scheduler.event_loop_overlap()",
            "RuntimeError: Decode out of memory. Try to lower your batch size.",
            f"[{clock.tick()}] SIGQUIT received. signum=None, frame=None. It usually means one child failed."]


def body(clock: Clock, rng: random.Random, count: int, shape: Shape = SHAPES["busy"]) -> Iterator[str]:
    stats_ranks = itertools.cycle(shape.stats_ranks)
    low, high = shape.step_s
    decode_cut, access_cut, prefill_cut = shape.cuts
    for _ in range(count):
        step = low if low == high else rng.uniform(low, high)
        roll = rng.random()
        if roll < decode_cut:
            yield decode(clock, rng, step=step, rank=next(stats_ranks), running=shape.running)
        elif roll < access_cut:
            yield access(clock, rng, step)
        elif roll < prefill_cut:
            yield prefill(clock, rng, step, next(stats_ranks))
        else:
            yield other(clock, rng, step)


def generate(lines: int, seed: int = 0, shape: str = "busy") -> Iterator[str]:
    """About `lines` physical lines: startup, serving, a crash and a restart midway, more serving."""
    form, rng, clock = SHAPES[shape], random.Random(seed), Clock()
    first, second = startup(clock, rng, form.startup_ranks), startup(clock, rng, form.startup_ranks)
    serving_lines = max(0, lines - len(first) - len(second) - 5)
    def lines_in_order() -> Iterator[str]:
        yield from first
        yield from body(clock, rng, serving_lines // 2, form)
        yield from crash(clock, form.stats_ranks[0])  # stamped after the first half, so not built before it
        yield from second
        yield from body(clock, rng, serving_lines - serving_lines // 2, form)

    for line in lines_in_order():
        yield form.wrapper + line


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--shape", choices=sorted(SHAPES), default="busy")
    args = parser.parse_args()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", encoding="utf-8", newline="\n") as fh:
        for line in generate(args.lines, args.seed, args.shape):
            fh.write(line + "\n")


if __name__ == "__main__":
    main()
