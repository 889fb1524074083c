"""Host key "ask" in the dashboard: an unknown key opens a dialog with its fingerprint and the file it goes to.

The session is opened before the app exists, so ``HostKeyDialogs`` is handed to it as the host-key callback and
bound to the app once it runs. A changed key never reaches it (the transport refuses those outright), and a
transport asks at most once per key: "no" stays no for the rest of the run.
"""

from __future__ import annotations

import asyncio
from typing import Any

from rich.text import Text

from mtptui.remote.hostkeys import HostKeyQuestion, host_port
from mtptui.text import visible
from mtptui.ui.screens.confirm import ConfirmScreen


def question_body(question: HostKeyQuestion) -> Text:
    where = visible(host_port(question.host, question.port))
    return Text.assemble(
        f"mtptui has never seen the host key of {where}:\n\n",
        (f"  {question.key_type}  {question.fingerprint}\n\n", "bold"),
        "Compare it with the key on the host (ssh-keygen -lf /etc/ssh/ssh_host_*_key.pub there, or ask whoever "
        "runs it). Trust adds it to ",
        (visible(question.known_hosts_file), "bold"),
        " and connects; Cancel refuses the connection.",
    )


class HostKeyDialogs:
    """The callable the SSH transport asks (``accept_host_key``); answers through the bound app's dialog."""

    def __init__(self) -> None:
        self.app: Any = None

    async def __call__(self, question: HostKeyQuestion) -> bool:
        if self.app is None:
            return False
        answer: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        dialog = ConfirmScreen(f"Trust the host key of {host_port(question.host, question.port)}?",
                               question_body(question), confirm_label="Trust")

        def answered(yes: bool | None) -> None:
            if not answer.done():
                answer.set_result(bool(yes))

        self.app.push_screen(dialog, answered)
        return await answer
