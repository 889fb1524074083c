"""`mtptui fleet`: every SGLang instance a Prometheus scrapes, as a screen or once as a table or JSON.

Enter on a row hands over to that host's dashboard (`mtptui HOST`, read-only) in the same process; quitting
the dashboard comes back to the fleet as it was left.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any, Callable

from mtptui.cli.commands._common import Subparsers, add

if TYPE_CHECKING:
    from mtptui.cli.commands._dashboard import TerminalApp
    from mtptui.fleet.hosts import HostEntry
    from mtptui.fleet.rows import Snapshot
    from mtptui.fleet.settings import FleetSettings

NAME = "fleet"


def register(sub: Subparsers, parent: argparse.ArgumentParser) -> None:
    p = add(sub, parent, NAME, "every SGLang instance Prometheus scrapes: figures, health, drill-down",
            description="Read the fleet from Prometheus's HTTP API (targets, query, query_range) and show one row "
                        "per SGLang instance; Enter opens the dashboard of the host profile that matches the row. "
                        "Settings: [prometheus] in $XDG_CONFIG_HOME/mtptui/fleet.toml. Always read-only.")
    p.add_argument("--prometheus", metavar="URL", default=None, help="Prometheus base URL (else url in fleet.toml)")
    p.add_argument("--gateway", metavar="URL", default=None,
                   help="read the workers of this SGLang gateway (SMG) too: status, load, health (else [gateway] "
                        "in fleet.toml); alone, the fleet is the gateway's workers")
    p.add_argument("--match", metavar="LABELS", default=None,
                   help='label matchers every target and query must pass, e.g. job="sglang",env=~"prod.*"')
    p.add_argument("--window", metavar="DURATION", default=None, help="rate window of the figures (default 1m)")
    p.add_argument("--history", metavar="DURATION", default=None,
                   help="how far back each instance's own history goes for the health flag (default 1h)")
    p.add_argument("--recorded", action="store_true", default=None,
                   help="read the figures from the series of the recording rules --rules prints (large fleets)")
    p.add_argument("--rules", action="store_true",
                   help="print Prometheus recording rules for every figure (for --window and --match) and exit")
    p.add_argument("--once", action="store_true", help="print the fleet once and exit")
    p.add_argument("--json", action="store_true", help="with --once: print JSON (implies --once)")
    p.add_argument("--theme", default=None, help="theme name (see themes/): mtptui-dark (default), mtptui-light")
    p.set_defaults(run=run)


def host_index(config_file: str | None) -> dict[str, HostEntry]:
    """Instance label → (host file, host) for every readable host file (a broken one only loses its rows)."""
    from mtptui.config import list_hosts
    from mtptui.fleet.hosts import host_index as index

    return index(list_hosts(config_file)[0])


async def snapshot_once(settings: FleetSettings, hosts: dict[str, HostEntry]) -> Snapshot:
    from mtptui.fleet.refresh import refresh

    return await refresh(settings, hosts)


def print_table(snapshot: Snapshot) -> None:
    from mtptui.fleet.view import COLUMNS, FleetView, cells
    from mtptui.text import visible

    columns = tuple(title for title in COLUMNS if snapshot.gateway or title != "gateway")
    rows = [list(columns)] + [cells(row, columns) for row in FleetView(snapshot=snapshot).rows()]
    widths = [max(len(r[i]) for r in rows) for i in range(len(columns))]
    for row in rows:
        line = "  ".join(c.rjust(w) if COLUMNS[t][1] else c.ljust(w) for c, w, t in zip(row, widths, columns))
        print(visible(line.rstrip()))
    if not snapshot.rows:
        print(f"no SGLang instance among the targets of {snapshot.prometheus or snapshot.gateway}")
    for note in snapshot.notes:
        print(visible(f"note: {note}"))


def run(args: argparse.Namespace) -> int:
    import asyncio

    from mtptui.fleet.settings import load_settings, rules_for

    if args.rules:
        print(rules_for(args.match, args.window), end="")
        return 0
    settings = load_settings(url=args.prometheus, match=args.match, window=args.window, history=args.history,
                             recorded=args.recorded, gateway=args.gateway)
    hosts = host_index(args.config)
    if not (args.once or args.json):
        from mtptui.cli.commands._dashboard import check_theme

        check_theme(args.theme)
        return screen_loop(settings, hosts, args.config, args.theme)
    snapshot = asyncio.run(snapshot_once(settings, hosts))
    if args.json:
        from mtptui.cli.commands._common import print_json

        print_json(snapshot.to_json())
    else:
        print_table(snapshot)
    return 0


def screen_loop(settings: FleetSettings, hosts: dict[str, HostEntry], config_file: str | None, theme: str | None,
                runner: Callable[[TerminalApp], Any] | None = None) -> int:
    """The fleet screen; a row's Enter runs that host's dashboard (read-only), then the fleet again."""
    from mtptui.cli.commands._dashboard import dashboard_app, run_dashboard
    from mtptui.errors import UserError
    from mtptui.fleet.view import FleetView
    from mtptui.ui.fleet.app import FleetApp

    runner = runner or run_dashboard
    view = FleetView()
    while True:
        drill = runner(FleetApp(settings, hosts, view, theme=theme))
        if drill is None:
            return 0
        try:
            runner(dashboard_app(drill.host_file, drill.host, readonly=True, theme=theme))
        except UserError as exc:
            view.notice = f"{drill.host.name}: {exc}"
