"""Make screenshots/fleet.svg from a live fleet: the fleet tests' simulated servers (both SGLang versions,
different profiles, under load), scraped every second by Debian's Prometheus, one of them stopped.

    .venv/bin/python scripts/fleet_screenshot.py [--out screenshots] [--settle 90]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SIZE = (160, 48)


async def shoot(app, out: Path) -> None:
    async with app.run_test(size=SIZE) as pilot:
        deadline = time.monotonic() + 60
        while app.screen.updated_at is None or app.screen.error:
            if time.monotonic() > deadline:
                raise SystemExit(f"fleet_screenshot: no fleet from Prometheus ({app.screen.error})")
            await pilot.pause(0.2)
        await pilot.press("down")
        await pilot.pause(0.3)
        app.save_screenshot("fleet.svg", str(out))
    print(f"fleet_screenshot: {out / 'fleet.svg'}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "screenshots")
    parser.add_argument("--settle", type=float, default=90.0, help="seconds of load before the shot (the trend)")
    args = parser.parse_args()
    from mtptui.cli.commands.fleet import host_index
    from mtptui.fleet.settings import load_settings
    from mtptui.ui.fleet.app import FleetApp
    from tests.fleet_lab import WINDOW_S, FleetLab
    from tests.test_fleet_prometheus import host_file

    with tempfile.TemporaryDirectory(prefix="fleet-shot-") as tmp:
        lab = FleetLab(Path(tmp))
        try:
            lab.start_servers()
            with lab.prometheus(Path(tmp) / "prom") as prom:
                lab.prom = prom
                lab.start_load()
                lab.wait_for_full_windows()
                time.sleep(args.settle)
                lab.stop_server("nospec-0.5.23")
                host_file(Path(tmp), "gpu-a", lab.sims["restored-0.5.12"])
                settings = load_settings(url=prom.url, window=f"{WINDOW_S:g}s")
                asyncio.run(shoot(FleetApp(settings, host_index(tmp), keymap={}), args.out))
        finally:
            lab.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
