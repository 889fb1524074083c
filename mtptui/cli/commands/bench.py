"""`mtptui bench`: fire prompts at the OpenAI-compatible API and measure like bench_serving."""

from __future__ import annotations

from mtptui.cli.commands._common import add, not_implemented

NAME = "bench"


def register(sub, parent) -> None:
    p = add(sub, parent, NAME, "benchmark a server: TTFT, TPOT, ITL, tok/s, accept length")
    p.add_argument("host", nargs="?", metavar="HOST", help="host whose API to measure")
    p.add_argument("--url", default=None, help="API base URL instead of a host")
    p.add_argument("--prompts", default=None, help="prompt set name or TOML file")
    p.add_argument("--concurrency", type=int, default=1)
    p.add_argument("--requests", type=int, default=None)
    p.add_argument("--max-tokens", type=int, default=None)
    p.add_argument("--json", dest="json_file", metavar="FILE", default=None, help="write the full result here")
    p.set_defaults(run=run)


def run(args) -> int:
    return not_implemented("bench")
