"""What to say after a copy: Textual writes the text as an OSC 52 sequence, and no terminal acknowledges it.

So the note says how it was sent, and names the one refusal mtptui can see for itself: tmux with
``set-clipboard`` other than ``on`` keeps an application's OSC 52 from reaching the terminal.
"""

from __future__ import annotations

import os
import subprocess
from typing import Mapping

SENT = "sent as OSC 52: the terminal may refuse it without saying so"
TMUX_FIX = "tmux set -g set-clipboard on"


def tmux_set_clipboard(env: Mapping[str, str]) -> str | None:
    """The ``set-clipboard`` option of the tmux server ``env`` runs inside; None when tmux does not answer."""
    try:
        done = subprocess.run(["tmux", "show-options", "-gv", "set-clipboard"], capture_output=True, text=True,
                              timeout=2, env=dict(env), check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() or None if done.returncode == 0 else None


def copy_note(env: Mapping[str, str] | None = None) -> str:
    """One honest sentence about where the copied text went."""
    env = os.environ if env is None else env
    if not env.get("TMUX"):
        return SENT
    setting = tmux_set_clipboard(env)
    if setting == "on":
        return f"{SENT} (tmux passes it on: set-clipboard on)"
    if setting is None:
        return f"{SENT}; tmux passes it on only with set-clipboard on ({TMUX_FIX})"
    return f"not copied: tmux has set-clipboard {setting}, so it keeps OSC 52 from the terminal ({TMUX_FIX})"
