"""`mtptui demo`: the dashboard on an embedded simulated host."""

from __future__ import annotations

import os
import sys

from mtptui.cli.commands._common import add

NAME = "demo"
DESCRIPTION = (
    "Start a simulated SGLang server on this machine in the mission's bad state (profile redeploy-1step, the "
    "known-good unit on disk beside it) and open the dashboard on it. No GPU, no SSH, no config needed. "
    "MTPTUI_DEMO_SPEED sets the startup pace (default 3); the server stops when you quit."
)


def register(sub, parent) -> None:
    p = add(sub, parent, NAME, "dashboard on a simulated SGLang host: no GPU, no SSH, no config needed", DESCRIPTION)
    p.add_argument("--theme", default=None, help="theme name (see themes/): mtptui-dark (default), mtptui-light")
    p.set_defaults(run=run)


def run(args) -> int:
    from mtptui.cli.commands._dashboard import check_theme, run_app
    from mtptui.demo.run import DemoRun, demo_speed

    check_theme(args.theme)
    demo = DemoRun.prepare(speed=demo_speed())
    os.environ.update(demo.server_environment())  # servers (re)started from here run the simulated one
    demo.start()
    try:
        from mtptui.ops.connect import open_session

        run_app(*demo_dashboard(demo, open_session(demo.host, readonly=args.readonly)), args.theme)
    finally:
        demo.stop()
    print(f"mtptui demo: the simulated server stopped; its log, the known-good unit and the demo host file are in "
          f"{demo.run_dir}", file=sys.stderr)
    return 0


def demo_dashboard(demo, session):
    """(feed, context) of the dashboard on a started demo run: any host's, plus where its profiles are saved
    and the load to pause while a measurement runs."""
    from mtptui.ui.app import AppContext

    feed = demo.feed(session)
    return feed, AppContext("demo", host=demo.host, readonly=session.readonly, session=session,
                            host_path=demo.host_path, profile_store=demo.profile_store(), background_load=demo.load)
