"""What `mtptui HOST` and `mtptui demo` share: theme check, running the app, clean exit on SIGTERM/SIGHUP."""

from __future__ import annotations

import signal


def check_theme(name: str | None) -> None:
    """A bad --theme is a one-sentence error before anything starts."""
    from mtptui.ui.themes import check_theme as check

    check(name)


def run_app(feed, context, theme: str | None) -> None:
    """Run the dashboard; SIGTERM and SIGHUP end it like `q`, so the caller's cleanup runs."""
    from mtptui.ui.app import MtpApp

    app = MtpApp(feed, context, theme=theme)
    previous = {sig: signal.signal(sig, lambda *_: app.exit()) for sig in (signal.SIGTERM, signal.SIGHUP)}
    try:
        app.run()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
