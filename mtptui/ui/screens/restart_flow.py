"""The start of a restart from any screen: the dashboard's restart panel runs it (plan, confirm, progress)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mtptui.ui.context import HostApp


def restart_with(app: "HostApp", profile: str | None) -> None:
    """Start the restart flow on the dashboard (the bottom screen): the known-good profile when None."""
    from mtptui.ui.screens.dashboard import DashboardScreen

    dashboard = app.screen_stack[0]
    if isinstance(dashboard, DashboardScreen):
        dashboard.restart_panel.begin(profile)
