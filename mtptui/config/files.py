"""Read a small file the user names (a host file, a prompt set, a unit or command line to compare), within bounds.

A path naming a device, a FIFO, a socket or a directory is refused before it is opened (reading /dev/zero never
ends; opening a FIFO waits for a writer), and a file over its limit is refused before it is read: each is one
sentence, never a hang or a MemoryError.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from mtptui.errors import ConfigError, UserError

MiB = 1 << 20
HOST_FILE_LIMIT = MiB  # a host with fifty profiles is about 20 KB
INPUT_FILE_LIMIT = 16 * MiB  # prompt sets, units and command lines to compare

_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"))


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a plain file")


def read_bounded(path: Path, what: str, limit: int, error: type[UserError] = ConfigError) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes; ``error`` (one sentence naming ``what``) otherwise.

    /proc files say they are empty, so the size is checked on what is read as well as on what stat says.
    """
    try:
        mode, size = (st := os.stat(path)).st_mode, st.st_size
        if not stat.S_ISREG(mode):
            raise error(f"{path}: not a regular file ({_kind(mode)}), so not a {what}")
        if size <= limit:
            with open(path, "rb") as handle:
                data = handle.read(limit + 1)
            size = max(size, len(data))
    except FileNotFoundError:
        raise error(f"{path}: no such file") from None
    except OSError as exc:
        raise error(f"{path}: cannot read: {exc}") from None
    if size > limit:
        raise error(f"{path}: {size:,} bytes is too large for a {what} (the limit is {limit // MiB} MiB)")
    return data
