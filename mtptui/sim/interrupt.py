"""A simulated server's startup, interruptible by SIGTERM or SIGINT (engine-neutral).

Before uvicorn installs its own handlers, a stop signal cancels the startup: the real servers' startups end
there too (SGLang's launcher, vLLM's `KeyboardInterrupt("terminated")`), and nothing is left listening.
"""

from __future__ import annotations

import asyncio
import signal
from typing import Awaitable

STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)


async def unless_stopped(work: Awaitable[object]) -> bool:
    """Await ``work``; False when SIGTERM/SIGINT arrived first (the work is cancelled)."""
    loop = asyncio.get_running_loop()
    task = asyncio.current_task()
    assert task is not None
    for sig in STOP_SIGNALS:
        loop.add_signal_handler(sig, task.cancel)
    try:
        await work
        return True
    except asyncio.CancelledError:
        return False
    finally:
        for sig in STOP_SIGNALS:
            loop.remove_signal_handler(sig)
