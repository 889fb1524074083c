"""`mtptui bench`: fire prompts at the OpenAI-compatible API and measure like bench_serving.

Heavy imports (httpx, prometheus_client) happen inside `run`, so `mtptui --help` stays fast.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from mtptui.bench.patience import DEADLINE_BASE_S, DEADLINE_PER_TOKEN_S, SILENCE_S
from mtptui.cli.commands._common import Subparsers, add
from mtptui.errors import UserError

if TYPE_CHECKING:
    from mtptui.bench.events import BenchEvent
    from mtptui.bench.report import ProgressBar
    from mtptui.bench.runner import BenchConfig
    from mtptui.ops.bench_run import ApiTarget, BenchOutcome
    from mtptui.ops.connect import HostSession

NAME = "bench"
EPILOG = ("Every run is appended to the history in $XDG_DATA_HOME/mtptui/ and compared with the best earlier run "
          "of the same workload on the same target.")


def register(sub: Subparsers, parent: argparse.ArgumentParser) -> None:
    p = add(sub, parent, NAME, "benchmark a server: TTFT, TPOT, ITL, tok/s, accept length")
    p.epilog = EPILOG
    p.add_argument("host", nargs="?", metavar="HOST", help="host whose API to measure")
    p.add_argument("--url", metavar="URL", default=None, help="API base URL instead of a host")
    p.add_argument("--prompts", metavar="NAME|FILE", default=None,
                   help="prompt set name or TOML file (default: rbtree)")
    p.add_argument("--concurrency", metavar="N", type=int, default=1, help="requests in flight at once (default 1)")
    p.add_argument("--requests", metavar="N", type=int, default=None,
                   help="measured requests (default: max(4, 2 x concurrency))")
    p.add_argument("--max-tokens", metavar="N", type=int, default=512, help="output tokens per request (default 512)")
    p.add_argument("--json", dest="json_file", metavar="FILE", default=None, help="write the full result here")
    p.add_argument("--warmup", metavar="N", type=int, default=1, help="warm-up requests, not measured (default 1)")
    p.add_argument("--rate", metavar="R", type=float, default=None,
                   help="Poisson arrivals per second (default: all at once)")
    p.add_argument("--seed", metavar="N", type=int, default=0, help="seed of the arrival times (default 0)")
    p.add_argument("--temperature", metavar="T", type=float, default=0.0, help="sampling temperature (default 0)")
    p.add_argument("--top-p", metavar="P", type=float, default=None, help="nucleus sampling (default: not sent)")
    p.add_argument("--ignore-eos", action="store_true", help="generate max-tokens even past end of sequence")
    p.add_argument("--no-thinking", action="store_true", help="ask the chat template to skip reasoning (Qwen)")
    p.add_argument("--model", metavar="NAME", default=None, help="model name to send (default: the server's)")
    p.add_argument("--repeat", metavar="K", type=int, default=1, help="run K times: the spread is the run-to-run noise")
    p.add_argument("--timeout", metavar="S", type=float, default=SILENCE_S,
                   help=f"seconds without data before a request fails (default {SILENCE_S:g})")
    p.add_argument("--deadline", metavar="S", type=float, default=None,
                   help=f"seconds a request may take in all (default: {DEADLINE_BASE_S:g} + "
                        f"{DEADLINE_PER_TOKEN_S:g} per max token)")
    p.add_argument("--no-history", action="store_true", help="do not record this run")
    p.add_argument("--compare", action="store_true", help="show the baseline and the flags that differ")
    p.set_defaults(run=run)


def _check_numbers(args: argparse.Namespace) -> None:
    checks = [(args.concurrency >= 1, "--concurrency"), (args.requests is None or args.requests >= 1, "--requests"),
              (args.max_tokens >= 1, "--max-tokens"), (args.warmup >= 0, "--warmup"), (args.repeat >= 1, "--repeat"),
              (args.rate is None or args.rate > 0, "--rate"), (args.timeout > 0, "--timeout"),
              (args.deadline is None or args.deadline > 0, "--deadline")]
    for good, flag in checks:
        if not good:
            raise UserError(f"{flag} must be positive")


def _target(args: argparse.Namespace) -> tuple[ApiTarget, HostSession | None]:
    """The API to measure: a host's, through its session (SSH for a remote host), or a URL's, directly."""
    from mtptui.ops.bench_run import target_of_url

    if bool(args.host) == bool(args.url):
        raise UserError("give either a HOST or --url URL")
    if args.url:
        if not args.url.startswith(("http://", "https://")):
            raise UserError(f"--url must start with http:// or https://, not {args.url!r}")
        return target_of_url(args.url), None
    from mtptui.config import find_host
    from mtptui.ops.bench_run import target_of_session
    from mtptui.ops.connect import open_session

    _, host = find_host(args.host, args.config)
    session = open_session(host, readonly=True)  # a benchmark changes nothing on the host
    return target_of_session(session), session


def _config(args: argparse.Namespace) -> BenchConfig:
    from mtptui.bench.load import LoadPlan
    from mtptui.bench.payload import Sampling
    from mtptui.bench.runner import BenchConfig

    plan = LoadPlan(requests=args.requests or max(4, 2 * args.concurrency), concurrency=args.concurrency,
                    warmup=args.warmup, rate=args.rate, seed=args.seed)
    sampling = Sampling(temperature=args.temperature, top_p=args.top_p, ignore_eos=args.ignore_eos,
                        enable_thinking=False if args.no_thinking else None)
    return BenchConfig.for_workload(args.prompts, plan, args.max_tokens, sampling, model=args.model,
                                    timeout=args.timeout, deadline=args.deadline)


class _Bars:
    """One progress bar per repeat on stderr."""

    def __init__(self, repeat: int) -> None:
        self.repeat, self.k = repeat, 0
        self.bar: ProgressBar | None = None

    def __call__(self, event: BenchEvent) -> None:
        from mtptui.bench.events import Notice, RunFinished, RunStarted
        from mtptui.bench.report import ProgressBar
        from mtptui.text import visible

        if isinstance(event, Notice) and self.bar is None:  # said after the run (e.g. another model answered)
            print(visible(f"warning: {event.message}"), file=sys.stderr)
        if isinstance(event, RunStarted):
            self.k += 1
            self.bar = ProgressBar(sys.stderr, label=f"run {self.k}/{self.repeat} " if self.repeat > 1 else "")
        if self.bar is not None:
            self.bar(event)
        if isinstance(event, RunFinished) and self.bar is not None:
            self.bar.finish()
            self.bar = None


async def _measure(args: argparse.Namespace, config: BenchConfig) -> BenchOutcome:
    from mtptui.ops.bench_run import run_bench

    target, session = _target(args)
    try:
        return await run_bench(target, config, _Bars(args.repeat), repeat=args.repeat, record=not args.no_history)
    finally:
        if session is not None:
            await session.close()


def _write_json(path: str, document: dict[str, Any]) -> None:
    """The run's Bench JSON, in a file only its owner can read (0600)."""
    import json
    import os

    from mtptui.secrets import open_private

    try:
        with os.fdopen(open_private(path, os.O_WRONLY | os.O_TRUNC), "w", encoding="utf-8") as handle:
            json.dump(document, handle, indent=2, ensure_ascii=False)
            handle.write("\n")
    except OSError as exc:
        raise UserError(f"cannot write {path}: {exc.strerror or exc}") from None


def run(args: argparse.Namespace) -> int:
    import asyncio

    from mtptui.bench.report import comparison_text, results_table
    from mtptui.text import visible

    _check_numbers(args)
    outcome = asyncio.run(_measure(args, _config(args)))
    runs, comparison = outcome.runs, outcome.best
    print(visible(results_table(runs[-1])))
    if len(runs) > 1:
        rates = [r["summary"]["output_tok_s"] for r in runs]
        print("repeats (output tok/s): " + ", ".join("-" if v is None else f"{v:.1f}" for v in rates))
    print(visible(comparison_text(comparison, detail=args.compare)))
    if outcome.steps is not None:
        print(visible(f"steps: {outcome.steps.sentence()}"))
    if args.json_file:
        document = dict(runs[-1], comparison=comparison.to_json(),
                        step_cost=outcome.steps.to_json() if outcome.steps else None)
        if len(runs) > 1:
            document["repeats"] = [r["summary"] for r in runs]
        _write_json(args.json_file, document)
    return 0
