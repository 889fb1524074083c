"""The gateway's bearer token, read when it is needed from the file or the environment variable a config names.

The token is never in a config file, never in a sentence: errors name where it was looked for. A token file
that other users can read is refused (as ssh refuses such a key), and a token must be what an HTTP header can
carry (visible ASCII), so a stray character is one sentence, not an encoding traceback deep in the client.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from mtptui.config.files import read_bounded
from mtptui.errors import ConfigError

TOKEN_FILE_LIMIT = 64 * 1024
HEADER_SAFE = re.compile(r"[\x21-\x7e]+")


def _checked(token: str, where: str) -> str:
    if not token:
        raise ConfigError(f"{where} is empty")
    if not HEADER_SAFE.fullmatch(token):
        raise ConfigError(f"{where} holds characters a bearer token cannot have (only visible ASCII, no spaces)")
    return token


def _from_file(name: str) -> str:
    path = Path(name).expanduser()
    data = read_bounded(path, "token file", TOKEN_FILE_LIMIT)
    mode = path.stat().st_mode & 0o777
    if mode & 0o077:
        raise ConfigError(f"{path}: the gateway token file can be read by other users (mode {mode:o}): "
                          f"chmod 600 {path}")
    return _checked(data.decode("utf-8", errors="replace").strip(), f"the gateway token file {path}")


def read_token(file: str | None, env: str | None) -> str | None:
    """The token from ``file`` or the variable ``env`` (whitespace around it dropped); None when neither is named."""
    if file:
        return _from_file(file)
    if env:
        value = os.environ.get(env)
        if value is None:
            raise ConfigError(f"the environment variable {env}, named for the gateway's token, is not set")
        return _checked(value.strip(), f"the environment variable {env} (the gateway's token)")
    return None
