"""Where the palette's Screenshot command saves: Downloads or Pictures when the user has one, else mtptui's data dir.

Textual's own default is the Downloads folder, which a server's account often lacks; saving there then fails.
"""

from __future__ import annotations

from pathlib import Path

import platformdirs

from mtptui.config.paths import data_home


def screenshot_dir() -> Path:
    """The first existing of the user's Downloads and Pictures folders, else ``$XDG_DATA_HOME/mtptui/screenshots``."""
    for folder in (platformdirs.user_downloads_path(), platformdirs.user_pictures_path()):
        if folder.is_dir() and folder != Path.home():
            return folder
    return data_home() / "screenshots"
