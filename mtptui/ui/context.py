"""What the screens know of the app: the context it was started with, and the app's own typed face.

Screens, widgets and commands import this module, never mtptui.ui.app (which imports them all to build
the app), so the app and its screens do not import each other.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from textual.app import App

from mtptui.config import HostConfig

if TYPE_CHECKING:
    from textual.theme import Theme

    from mtptui.ops.feed import Feed
    from mtptui.ops.profile_save import ProfileStore
    from mtptui.ui.session import Session


class PausableLoad(Protocol):
    """Load the app itself puts on the server (the demo's background chat): paused while a measurement runs."""

    paused: bool


@dataclass
class AppContext:
    """What the screens need besides the feed: the host, --readonly, the host session (mtptui.ops.connect) for
    actions that change the host, where profiles are saved, and load of our own to pause for a measurement."""

    host_label: str
    host: HostConfig | None = None
    readonly: bool = False
    session: Any = None
    host_path: Any = None  # the host file it was read from (where the flags form saves profiles by default)
    profile_store: ProfileStore | None = None  # None: mtptui.ops.profile_save.HostFileStore(host_path)
    background_load: PausableLoad | None = None
    host_keys: Any = None  # mtptui.ui.hostkey.HostKeyDialogs the session asks about unknown keys, if any


class HostApp(App[None]):
    """The dashboard app as screens see it (MtpApp is the one implementation)."""

    feed: Feed
    context: AppContext
    session: Session
    shipped_themes: dict[str, Theme]


def profile_store(context: AppContext) -> ProfileStore:
    """Where the flags form and the tune save a profile for this context."""
    from mtptui.ops.profile_save import HostFileStore

    return context.profile_store or HostFileStore(context.host_path)
