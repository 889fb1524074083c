"""Screens of the app, and the registry the ops screens (diff, flags, bench, restore, restart, tune) plug into.

An ops screen registers a factory: ``register("diff", lambda app: DiffScreen(app.context))``. Until one is
registered for a name, its key and palette command say so in a notification instead of doing nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Union

if TYPE_CHECKING:
    from textual.screen import Screen

# What a factory gives the app: a screen to push, a screen and what to do with its result, or None when it did
# what the key asks itself (the restart flow).
OpsScreen = Union["Screen[Any]", "tuple[Screen[Any], Callable[[Any], None]]", None]


@dataclass
class OpsEntry:
    """One ops screen: what it is called and how to make it (None while it is not built)."""

    title: str
    changes_host: bool = False
    factory: "Callable[..., OpsScreen] | None" = None
    needs_host: bool = True  # not offered while the host is not connected


OPS_SCREENS: dict[str, OpsEntry] = {
    "diff": OpsEntry("the side-by-side diff (running vs unit vs profile)"),
    "flags": OpsEntry("the launch-flags form", needs_host=False),
    "bench": OpsEntry("the benchmark screen"),
    "restore": OpsEntry("restoring the known-good profile", changes_host=True),
    "restart": OpsEntry("restarting with a chosen profile", changes_host=True),
    "tune": OpsEntry("the tune screen (restarts with each arm of a grid)", changes_host=True),
}


def register(name: str, factory: "Callable[..., OpsScreen]") -> None:
    """Plug in an ops screen; ``factory(app, **kwargs)`` returns the screen to push."""
    OPS_SCREENS[name].factory = factory
