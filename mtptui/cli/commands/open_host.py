"""`mtptui HOST`: the live dashboard of a configured host."""

from __future__ import annotations

from mtptui.cli.commands._common import add

NAME = "open"


def register(sub, parent) -> None:
    p = add(sub, parent, NAME, "open the dashboard of HOST (same as `mtptui HOST`)")
    p.add_argument("host", metavar="HOST", help="host name from a host file, e.g. ct129")
    p.add_argument("--theme", default=None, help="theme name (see themes/): mtptui-dark (default), mtptui-light")
    p.set_defaults(run=run)


def run(args) -> int:
    from mtptui.cli.commands._dashboard import check_theme, run_app
    from mtptui.config import find_host
    from mtptui.ops.connect import open_session
    from mtptui.ops.feed_host import feed_for_host
    from mtptui.ui.app import AppContext
    from mtptui.ui.hostkey import HostKeyDialogs

    host_path, host = find_host(args.host, args.config)
    check_theme(args.theme)
    host_keys = HostKeyDialogs()  # known_hosts = "ask": an unknown key is shown in a dialog
    session = open_session(host, readonly=args.readonly, accept_host_key=host_keys)
    context = AppContext(host.name, host=host, readonly=args.readonly, session=session,
                         host_path=host_path, host_keys=host_keys)
    run_app(feed_for_host(session), context, args.theme)
    return 0
