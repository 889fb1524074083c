"""Record the health line's test fixtures from the live demo: bench runs and a long log of each profile.

    .venv/bin/python scripts/record_health_fixtures.py [--out tests/ui_fixtures] [--minutes 11] [--incident 3]

For each profile (``restored``, then the bad ``redeploy-1step``) it starts the demo's simulated server the way
`mtptui demo` does, waits until it serves, benches it three times as the bench screen does (rbtree, concurrency
1, 3 requests, 192 max tokens, the server log followed: the runs carry their log rate), then keeps the demo's
background load going for the given minutes and keeps the log. Files (in ``--out``):

- ``health-<profile>-bench.json``: the three runs (Bench JSON, not yet filed in a history);
- ``health-<profile>.log``: the server log from its first line, the benches' lines and the steady load after.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

PROFILES = {"restored": "restored", "redeploy": "redeploy-1step"}


async def wait_ready(api_url: str, timeout_s: float = 120.0) -> None:
    import httpx

    deadline = time.monotonic() + timeout_s
    async with httpx.AsyncClient(timeout=2, trust_env=False) as client:
        while time.monotonic() < deadline:
            try:
                if (await client.get(f"{api_url}/health")).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            await asyncio.sleep(0.5)
    raise SystemExit(f"record: the server at {api_url} never became ready")


async def bench_three(demo) -> list[dict]:
    from mtptui.ops.bench_run import BenchRequest, bench_config, run_bench, target_of_session
    from mtptui.ops.connect import open_session
    from mtptui.ui.bench_state import BenchSettings

    settings = BenchSettings()
    request = BenchRequest(settings.prompts, settings.concurrency, settings.requests, settings.max_tokens, 1)
    session = open_session(demo.host)
    try:
        outcome = await run_bench(target_of_session(session), bench_config(request), lambda event: None, repeat=3,
                                  record=False)
    finally:
        await session.close()
    return outcome.runs


async def steady_load(demo, minutes: float) -> None:
    from mtptui.demo.load import DemoLoad

    async def ignore(item) -> None:
        return None

    task = asyncio.create_task(DemoLoad(demo.api_url)(ignore))
    await asyncio.sleep(minutes * 60)
    task.cancel()


async def record(name: str, profile: str, out: Path, minutes: float) -> None:
    from mtptui.demo.run import DemoRun

    demo = DemoRun.prepare(tempfile.mkdtemp(prefix="mtptui-record-"), speed=20)
    os.environ.update(demo.server_environment())
    demo.start(profile)
    try:
        await wait_ready(demo.api_url)
        runs = await bench_three(demo)
        (out / f"health-{name}-bench.json").write_text(json.dumps(runs, indent=1) + "\n", encoding="utf-8")
        await steady_load(demo, minutes)
        (out / f"health-{name}.log").write_bytes(demo.log_path.read_bytes())
        print(f"record: {name}: {len(runs)} runs, log rate "
              f"{[round(run['summary'].get('log_tok_s') or 0, 1) for run in runs]}, {minutes:g} min of load")
    finally:
        demo.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "tests" / "ui_fixtures")
    parser.add_argument("--minutes", type=float, default=11.0, help="steady load on the known-good profile")
    parser.add_argument("--incident", type=float, default=3.0, help="steady load on the bad redeploy")
    args = parser.parse_args()
    asyncio.run(record("restored", PROFILES["restored"], args.out, args.minutes))
    asyncio.run(record("redeploy", PROFILES["redeploy"], args.out, args.incident))


if __name__ == "__main__":
    main()
