"""What the screens know of the app: the context it was started with, and the app's own typed face.

Screens, widgets and commands import this module, never mtptui.ui.app (which imports them all to build
the app), so the app and its screens do not import each other.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, cast

from textual.app import App
from textual.dom import DOMNode

from mtptui.config import HostConfig

if TYPE_CHECKING:
    from textual.theme import Theme

    from mtptui.ops.connect import HostSession
    from mtptui.ops.feed.items import Feed
    from mtptui.ops.profile_save import ProfileStore
    from mtptui.ui.hostkey import HostKeyDialogs
    from mtptui.ui.live_host import LiveHost


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
    session: HostSession | None = None
    host_path: Path | None = None  # the host file it was read from (where the flags form saves profiles by default)
    profile_store: ProfileStore | None = None  # None: mtptui.ops.profile_save.HostFileStore(host_path)
    background_load: PausableLoad | None = None
    host_keys: HostKeyDialogs | None = None  # the dialogs the session asks about unknown keys, if any


class HostApp(App[None]):
    """The dashboard app as screens see it (MtpApp is the one implementation)."""

    feed: Feed
    context: AppContext
    live: LiveHost  # what the dashboard knows of the host now (``context.session`` is the SSH session)
    shipped_themes: dict[str, Theme]

    @property
    def readonly(self) -> bool:
        return self.context.readonly

    def refuse(self, action: str, reason: str) -> None:
        """Say why an action that changes the host (or needs it) is not done, in a toast and a message."""
        from mtptui.ui.messages import ActionRefused

        self.notify(reason, title="refused", severity="warning")
        self.post_message(ActionRefused(action, reason))


def host_app(node: DOMNode) -> HostApp:
    """The app of a dashboard screen or widget, as screens see it."""
    return cast(HostApp, node.app)  # Textual types DOMNode.app as App[Any]; the dashboard's app is a HostApp


def profile_store(context: AppContext) -> ProfileStore:
    """Where the flags form and the tune save a profile for this context."""
    from mtptui.ops.profile_save import HostFileStore

    return context.profile_store or HostFileStore(context.host_path)
