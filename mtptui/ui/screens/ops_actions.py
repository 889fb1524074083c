"""Plugs the diff and flags screens and the two restart keys into the ops registry.

R restores the known-good profile, r picks a profile first; both end in the dashboard's restart panel
(plan, confirm dialog, live progress, rollback report). Refusal under --readonly happens before any of it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mtptui.ui.screens import register
from mtptui.ui.screens.restart_flow import restart_with

if TYPE_CHECKING:
    from mtptui.ui.context import HostApp
    from mtptui.ui.screens import OpsScreen
    from mtptui.ui.screens.diff import DiffScreen
    from mtptui.ui.screens.flags import FlagsScreen


def _restore(app: "HostApp", profile: str | None = None) -> None:
    restart_with(app, None)


def _restart(app: "HostApp", profile: str | None = None) -> OpsScreen:
    from mtptui.ui.screens.profile_pick import ProfilePickScreen

    if profile is not None:
        restart_with(app, profile)
        return None
    if app.context.host is None or not app.context.host.own_profiles():
        app.notify("This host has no launch profiles.", severity="warning")
        return None
    def picked(name: str | None) -> None:
        if name:
            restart_with(app, name)

    return ProfilePickScreen(app.context.host), picked


def _diff(app: "HostApp", profile: str | None = None) -> DiffScreen:
    from mtptui.ui.screens.diff import DiffScreen

    return DiffScreen(app, profile)


def _flags(app: "HostApp", profile: str | None = None) -> FlagsScreen:
    from mtptui.ui.screens.flags import FlagsScreen

    return FlagsScreen(app, profile)


register("restore", _restore)
register("restart", _restart)
register("diff", _diff)
register("flags", _flags)
