"""`mtptui demo`: the dashboard on an embedded simulated host."""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING

from mtptui.cli.commands._common import Subparsers, add

if TYPE_CHECKING:
    from mtptui.demo.run import DemoRun
    from mtptui.ops.connect import HostSession
    from mtptui.ops.feed.items import Feed
    from mtptui.ui.context import AppContext

NAME = "demo"
DESCRIPTION = (
    "Start a simulated SGLang server (or, with --engine vllm, a simulated vLLM) on this machine in the mission's "
    "bad state (profile redeploy-1step, the known-good unit on disk beside it) and open the dashboard on it. No "
    "GPU, no SSH, no config needed. MTPTUI_DEMO_SPEED sets the startup pace (default 3); the server stops when you "
    "quit."
)


def register(sub: Subparsers, parent: argparse.ArgumentParser) -> None:
    from mtptui.engines.registry import NAMES

    p = add(sub, parent, NAME, "dashboard on a simulated SGLang or vLLM host: no GPU, no SSH, no config needed",
            DESCRIPTION)
    p.add_argument("--theme", default=None, help="theme name (see themes/): mtptui-dark (default), mtptui-light")
    p.add_argument("--engine", choices=NAMES, default=None, help="the engine the demo host runs (default sglang)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from mtptui.cli.commands._dashboard import check_theme, run_app
    from mtptui.demo.run import DemoRun, demo_speed

    check_theme(args.theme)
    demo = DemoRun.prepare(speed=demo_speed(), engine=args.engine)
    os.environ.update(demo.server_environment())  # servers (re)started from here run the simulated one
    demo.start()
    try:
        from mtptui.ops.connect import open_session

        feed, context = demo_dashboard(demo, open_session(demo.host, readonly=args.readonly))
        run_app(feed, context, args.theme)
    finally:
        demo.stop()
    from mtptui.demo.run import KEEP_RUNS

    print(f"mtptui demo: the simulated server stopped; its log, the known-good unit and the demo host file are in "
          f"{demo.run_dir} (the last {KEEP_RUNS} runs are kept)", file=sys.stderr)
    return 0


def demo_dashboard(demo: DemoRun, session: HostSession) -> tuple[Feed, AppContext]:
    """(feed, context) of the dashboard on a started demo run: any host's, plus where its profiles are saved
    and the load to pause while a measurement runs."""
    from mtptui.ui.context import AppContext

    feed = demo.feed(session)
    return feed, AppContext("demo", host=demo.host, readonly=session.readonly, session=session,
                            host_path=demo.host_path, profile_store=demo.profile_store(), background_load=demo.load)
