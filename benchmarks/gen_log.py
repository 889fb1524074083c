"""Generate a realistic SGLang 0.5.23 server log for the parser benchmark.

The mix follows issue 3: about 45% decode lines on a hybrid mamba pool with speculative fields, 40% uvicorn
access lines, 10% prefill lines and the rest other lines (startup sequences with tqdm bars split by ``\\r``,
info lines, retract warnings, one crash with a traceback followed by a restart). Deterministic for a seed.

    python benchmarks/gen_log.py benchmarks/out/sglang-1m.log --lines 1000000
"""

from __future__ import annotations

import argparse
import random
from datetime import datetime, timedelta
from pathlib import Path
from typing import Callable, Iterator

RANKS = ("TP0", "TP1")
START = datetime(2026, 5, 11, 23, 48, 0)


class Clock:
    """A log clock that advances a little with every line."""

    def __init__(self) -> None:
        self.now = START

    def tick(self, seconds: float = 0.05) -> str:
        self.now += timedelta(seconds=seconds)
        return self.now.strftime("%Y-%m-%d %H:%M:%S")


def startup(clock: Clock, rng: random.Random) -> list[str]:
    """One 0.5.23 startup at TP=2 with an MTP draft head: weights, pools, graphs, uvicorn, ready."""
    return weights(clock) + pools(clock) + graphs(clock) + serving(clock, rng)


def weights(clock: Clock) -> list[str]:
    ts = clock.tick
    out = [f"[{ts()} {r}] Memory baseline taken. mem usage=0.52 GB" for r in RANKS]
    out += [f"[{ts()} {r}] Load weight begin. avail mem=46.85 GB" for r in RANKS]
    shards = 15
    out.append("\r" + "\r".join(f"Multi-thread loading shards: {100 * i // shards:3d}% Completed | {i}/{shards} "
                                 f"[00:{i:02d}<00:{shards - i:02d},  1.07s/it]" for i in range(shards + 1)))
    out += [f"[{ts(2)} {r}] Load weight end. elapsed=28.41 s, type=Qwen3_5ForCausalLM, avail mem=21.20 GB, "
            f"mem usage=25.61 GB." for r in RANKS]
    out += [f"[{ts()} {r}] Load weight end. elapsed=0.19 s, type=Qwen3_5ForCausalLMMTP, avail mem=18.38 GB, "
            f"mem usage=2.82 GB." for r in RANKS]
    return out


def pools(clock: Clock) -> list[str]:
    out = []
    for rank in RANKS:
        out.append(f"[{clock.tick()} {rank}] Mamba Cache is allocated. max_mamba_cache_size: 48, "
                   f"conv_state size: 0.28GB, ssm_state size: 6.33GB ")
        for size in ("5.23", "0.33"):  # target pool, then the draft model's
            out.append(f"[{clock.tick()} {rank}] KV Cache is allocated. dtype: torch.bfloat16, #tokens: 685000, "
                       f"K size: {size} GB, V size: {size} GB")
        out.append(f"[{clock.tick()} {rank}] Memory pool end. avail mem=4.12 GB")
    return out


def graphs(clock: Clock) -> list[str]:
    out = [f"[{clock.tick()} {r}] Capture target verify CUDA graph begin. backend=full, num_tokens_per_req=4, "
           f"avail mem=4.04 GB" for r in RANKS]
    sizes = [16, 12, 8, 4, 2, 1]
    out.append("\r" + "\r".join(
        f"Capturing batches (bs={bs} avail_mem={4.0 - i * 0.05:.2f} GB): {100 * i // len(sizes):3d}%|"
        f"{'█' * i}{' ' * (10 - i)}| {i}/{len(sizes)} [00:{2 * i:02d}<00:10,  2.96s/it]"
        for i, bs in enumerate(sizes + sizes[-1:])))
    out += [f"[{clock.tick(20)} {r}] Capture target verify CUDA graph end. bs=[1, 2, 4, 8, 12, 16], "
            f"elapsed=21.36 s, mem usage=0.61 GB, avail mem=3.43 GB." for r in RANKS]
    return out


def serving(clock: Clock, rng: random.Random) -> list[str]:
    ts = clock.tick
    return [f"[{ts()} TP0] max_total_num_tokens=685000, chunked_prefill_size=8192, max_prefill_tokens=16384, "
            f"max_running_requests=16, context_len=131072, available_gpu_mem=3.43 GB",
            f"[{ts()}] INFO:     Started server process [177326]",
            f"[{ts()}] INFO:     Waiting for application startup.",
            f"[{ts()}] INFO:     Application startup complete.",
            f"[{ts()}] INFO:     Uvicorn running on http://0.0.0.0:30000 (Press CTRL+C to quit)",
            f"[{ts()}] INFO:     127.0.0.1:40000 - \"GET /model_info HTTP/1.1\" 200 OK",
            prefill(clock, rng), decode(clock, rng, warm=True),
            f"[{ts()}] INFO:     127.0.0.1:40001 - \"POST /generate HTTP/1.1\" 200 OK",
            f"[{ts()}] The server is fired up and ready to roll!"]


def decode(clock: Clock, rng: random.Random, warm: bool = False) -> str:
    running = rng.randint(1, 16)
    gen = rng.uniform(2, 9) if warm else rng.uniform(40, 60) * min(running, 4)
    accept = rng.uniform(2.8, 3.5)
    return (f"[{clock.tick()} TP0] Decode batch, #running-req: {running}, #full token: {rng.randint(1000, 680000)}, "
            f"full token usage: {rng.random():.2f}, mamba num: {running * 3}, mamba usage: {rng.random():.2f}, "
            f"accept len: {accept:.2f}, accept rate: {(accept - 1) / 3:.2f}, cuda graph: True, "
            f"gen throughput (token/s): {gen:.2f}, #queue-req: {rng.randint(0, 3)}")


def prefill(clock: Clock, rng: random.Random) -> str:
    return (f"[{clock.tick()} TP0] Prefill batch, #new-seq: 1, #new-token: {rng.randint(8, 4096)}, "
            f"#cached-token: {rng.randint(0, 250000)}, full token usage: {rng.random():.2f}, "
            f"mamba usage: {rng.random():.2f}, #running-req: {rng.randint(0, 15)}, #queue-req: 0, "
            f"#pending-token: 0, cuda graph: False, input throughput (token/s): {rng.uniform(500, 9000):.2f}")


def access(clock: Clock, rng: random.Random) -> str:
    path, status = rng.choice(ACCESS)
    return f"[{clock.tick()}] INFO:     127.0.0.1:{rng.randint(30000, 60000)} - \"{path} HTTP/1.1\" {status}"


ACCESS = [("POST /v1/chat/completions", "200 OK")] * 30 + [
    ("GET /health", "200 OK"), ("GET /metrics", "200 OK"), ("GET /v1/models", "200 OK"),
    ("POST /v1/chat/completions", "400 Bad Request"), ("GET /health", "503 Service Unavailable")]


def other(clock: Clock, rng: random.Random) -> str:
    return rng.choice(OTHER)(clock.tick(), rng)


OTHER: list[Callable[[str, random.Random], str]] = [
    lambda ts, rng: f"[{ts} TP0] KV cache pool is full. Retract requests. #retracted_reqs: {rng.randint(1, 3)}, "
                    f"#new_tokens_gained: {rng.randint(100, 9000)}, #mamba_num_gained: 3",
    lambda ts, rng: f"[{ts}] Endpoint '/get_model_info' is deprecated and will be removed in a future version. "
                    f"Please use '/model_info' instead.",
    lambda ts, rng: f"[{ts} TP0] Cache flushed successfully!",
    lambda ts, rng: f"[{ts}] INFO:     Shutting down connection {rng.randint(1, 99)}",
    lambda ts, rng: f"[{ts} TP1] Registering {rng.randint(1, 400)} cuda graph addresses",
]


def crash(clock: Clock) -> list[str]:
    """A runtime crash: scheduler exception with an unprefixed traceback, then SIGQUIT."""
    return [f"[{clock.tick()} TP0] Scheduler hit an exception: Traceback (most recent call last):",
            '  File "/sgl/python/sglang/srt/managers/scheduler.py", line 6370, in run_scheduler_process',
            "    scheduler.event_loop_overlap()",
            "RuntimeError: Decode out of memory. Try to lower your batch size.",
            f"[{clock.tick()}] SIGQUIT received. signum=None, frame=None. It usually means one child failed."]


def body(clock: Clock, rng: random.Random, count: int) -> Iterator[str]:
    for _ in range(count):
        roll = rng.random()
        if roll < 0.45:
            yield decode(clock, rng)
        elif roll < 0.85:
            yield access(clock, rng)
        elif roll < 0.95:
            yield prefill(clock, rng)
        else:
            yield other(clock, rng)


def generate(lines: int, seed: int = 0) -> Iterator[str]:
    """About `lines` physical lines: startup, serving, a crash and a restart midway, more serving."""
    rng, clock = random.Random(seed), Clock()
    first, second = startup(clock, rng), startup(clock, rng)
    serving = max(0, lines - len(first) - len(second) - 5)
    yield from first
    yield from body(clock, rng, serving // 2)
    yield from crash(clock)
    yield from second
    yield from body(clock, rng, serving - serving // 2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", encoding="utf-8", newline="\n") as fh:
        for line in generate(args.lines, args.seed):
            fh.write(line + "\n")


if __name__ == "__main__":
    main()
