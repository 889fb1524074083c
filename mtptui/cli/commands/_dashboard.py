"""What `mtptui HOST`, `mtptui demo` and `mtptui fleet` share: theme check, the host's dashboard app, running an
app with a clean exit on SIGTERM/SIGHUP."""

from __future__ import annotations

import signal
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from mtptui.config.models import HostConfig
    from mtptui.ops.feed.items import Feed
    from mtptui.ui.app import MtpApp
    from mtptui.ui.context import AppContext


def check_theme(name: str | None) -> None:
    """A bad --theme is a one-sentence error before anything starts."""
    from mtptui.ui.themes import check_theme as check

    check(name)


def dashboard_app(host_path: Path, host: HostConfig, *, readonly: bool, theme: str | None) -> MtpApp:
    """The dashboard of a configured host over its session (SSH, or this machine without [ssh])."""
    from mtptui.ops.connect import open_session
    from mtptui.ops.feed.host import feed_for_host
    from mtptui.ui.app import MtpApp
    from mtptui.ui.context import AppContext
    from mtptui.ui.hostkey import HostKeyDialogs

    host_keys = HostKeyDialogs()  # known_hosts = "ask": an unknown key is shown in a dialog
    session = open_session(host, readonly=readonly, accept_host_key=host_keys)
    context = AppContext(host.name, host=host, readonly=readonly, session=session,
                         host_path=host_path, host_keys=host_keys)
    return MtpApp(feed_for_host(session), context, theme=theme)


class TerminalApp(Protocol):
    """What the CLI needs of a Textual app (only ui/ imports Textual): run it, end it."""

    def run(self) -> Any: ...

    def exit(self) -> None: ...


def run_dashboard(app: TerminalApp) -> Any:
    """Run a Textual app; SIGTERM and SIGHUP end it like `q`, so the caller's cleanup runs. Its return value."""
    previous = {sig: signal.signal(sig, lambda *_: app.exit()) for sig in (signal.SIGTERM, signal.SIGHUP)}
    try:
        return app.run()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def run_app(feed: Feed, context: AppContext, theme: str | None) -> None:
    """Run the dashboard on ``feed``."""
    from mtptui.ui.app import MtpApp

    run_dashboard(MtpApp(feed, context, theme=theme))
