"""Time the health line's verdict (issue 18): ``assess`` as the dashboard calls it on every repaint (at most twice a
second), against a bench history of N runs, and the one-line layout at 80 and 160 columns.

The history is the two recorded demo runs (tests/ui_fixtures/bench-*.json) repeated under distinct ids and
launch flags (so ``best_group`` sees N/2 configurations), all filed under the demo host; the live figures are a
full window (120 decode lines). "warm" is a repaint with the same launch and history (the diff and the baselines
are remembered), "cold" one right after either changed. CPU time of this process, best and median of ``--runs``.

    python benchmarks/health_verdict.py                  # 10, 100 and 1000 runs of history
    python benchmarks/health_verdict.py --history 5000 --runs 9
"""

from __future__ import annotations

import argparse
import copy
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from mtptui.bench.fingerprint import class_key, config_key  # noqa: E402
from mtptui.ops.health import assess as health_assess  # noqa: E402
from mtptui.ops.health.assess import assess  # noqa: E402
from mtptui.ops.health.text import health_line  # noqa: E402
from mtptui.engines.sglang.state.serving import SAMPLES, ServingStats  # noqa: E402
from tests.ui_fixtures.support import FIXTURES, demo_host, demo_status  # noqa: E402


def history(size: int) -> list[dict]:
    recorded = [json.loads((FIXTURES / name).read_text()) for name in ("bench-redeploy.json", "bench-restored.json")]
    runs = []
    for index in range(size):
        run = copy.deepcopy(recorded[index % 2])
        run["id"] = f"run{index}"
        run["fingerprint"]["launch_flags"]["chunked_prefill_size"] = 1024 + index // 2  # N/2 configurations
        run["class_key"], run["config_key"] = class_key(run["fingerprint"]), config_key(run["fingerprint"])
        runs.append(run)
    return runs


def live() -> ServingStats:
    serving = ServingStats()
    for index in range(SAMPLES):
        serving.decode({"running_req": 1, "gen_throughput": 34.0 + index % 5 * 0.3, "accept_len": 1.75,
                        "tokens": 600 + index, "queue_req": 0, "token_usage": 0.01, "mamba_usage": 0.05}, None, False)
    return serving


def cpu_ms(work, repeat: int) -> float:
    start = time.process_time()
    for _ in range(repeat):
        work()
    return (time.process_time() - start) / repeat * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--history", type=int, nargs="+", default=[10, 100, 1000])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    host, status, serving = demo_host(), demo_status(), live()
    keys = {"diff": "d", "restore": "R", "bench": "b"}.get
    print(f"{'history runs':>12}  {'assess ms warm (best / median)':>30}  {'cold':>15}  {'line 80+160 ms':>16}")
    for size in args.history:
        runs = history(size)
        repeat = max(1, 2000 // size)
        judged = [cpu_ms(lambda: assess(host, status, serving, runs), repeat) for _ in range(args.runs)]
        cold = [cpu_ms(lambda: forget() or assess(host, status, serving, runs), repeat) for _ in range(args.runs)]
        health = assess(host, status, serving, runs)
        laid = [cpu_ms(lambda: (health_line(health, 79, keys), health_line(health, 159, keys)), 200)
                for _ in range(args.runs)]
        print(f"{size:>12}  {min(judged):>16.3f} / {statistics.median(judged):<11.3f}  "
              f"{min(cold):>6.3f} / {statistics.median(cold):<6.3f}  {min(laid):>6.3f} / {statistics.median(laid):<6.3f}")


def forget() -> None:
    """The cold path: the launch or the history just changed (a restart, a bench run)."""
    health_assess._drift.forget()
    health_assess._baselines.forget()


if __name__ == "__main__":
    main()
