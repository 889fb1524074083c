"""How the simulated server stops while it serves, as its SGLang release does (mtptui.engines.sglang.surface_shutdown).

SIGTERM to the server alone drains: the requests it holds run to their end (new ones are still accepted, as
SGLang accepts them), ``/health`` answers 503, and the release's watchdog lines are logged until none is left;
then 0.5.12.post1 kills itself (SIGKILL) and 0.5.23 lets uvicorn shut down. A SIGTERM to the whole process group
kills SGLang's scheduler processes, and with them every request: the simulated server has one stand-in child
process for them (``SchedulerStandIn``) whose death it notices as SGLang's subprocess watchdog does.

The watchdogs' periods (5 s, 1 s) run at the startup pace (``--speed``) like the simulated startup, with a floor
so a stream that just finished is written out before the process ends.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from typing import Callable

from mtptui.engines.sglang.surface_shutdown import CHILD_WATCH_S, WATCHDOG_S, Shutdown, shutdown_of
from mtptui.sim.runtime import Runtime

MIN_WATCHDOG_S = 0.25
MIN_CHILD_WATCH_S = 0.05
# The stand-in child: dies on SIGTERM/SIGINT (Python's defaults), and with its parent (PR_SET_PDEATHSIG on Linux,
# else at the next look at its parent).
CHILD = """import os, sys, time
parent = int(sys.argv[1])
if sys.platform.startswith("linux"):
    import ctypes
    ctypes.CDLL(None).prctl(1, 9)
while os.getppid() == parent:
    time.sleep(0.5)
"""
CHILD_NAME = "mtptui-sim-scheduler-stand-in"


class SchedulerStandIn:
    """One child process that stands for SGLang's scheduler and detokenizer processes (nothing runs in it)."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen([sys.executable, "-S", "-c", CHILD, str(os.getpid()), CHILD_NAME],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def exit_code(self) -> int | None:
        """None while it runs, else its exit status (-15: killed by SIGTERM)."""
        return self.proc.poll()

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()


class ShutdownWatch:
    """SGLang's SIGTERM handler, its drain watchdog and its subprocess watchdog, for one serving runtime."""

    def __init__(self, rt: Runtime, speed: float, stop_server: Callable[[], None],
                 before_kill: Callable[[], None] | None = None) -> None:
        self.rt, self.stop_server, self.before_kill = rt, stop_server, before_kill
        self.facts: Shutdown = shutdown_of(rt.boot.settings.version)
        self.watchdog_s = max(WATCHDOG_S / max(speed, 1e-6), MIN_WATCHDOG_S)
        self.child_watch_s = max(CHILD_WATCH_S / max(speed, 1e-6), MIN_CHILD_WATCH_S)
        self.child = SchedulerStandIn()
        self.draining = False
        self.ending = False  # the server ends by itself: the child's exit is no crash

    def sigterm(self) -> None:
        """The signal handler: from now on the server drains."""
        self.rt.log.main(self.facts.text("sigterm"), "warning")
        self.draining = True
        self.rt.status = "draining"

    def held(self) -> list[str]:
        """The ids of the requests the server still holds, waiting or running (health probes aside)."""
        engine = self.rt.engine
        return [r.rid for r in [*engine.waiting, *engine.running] if not r.health and not r.finished]

    async def run(self) -> None:
        """Both watchdogs, until the server is stopped."""
        await asyncio.gather(self._drain_watchdog(), self._child_watchdog())

    def close(self) -> None:
        """The server is ending by another way (SIGINT, startup): the stand-in child goes with it."""
        self.ending = True
        self.child.stop()

    async def _drain_watchdog(self) -> None:
        while not self.draining:
            await asyncio.sleep(self.watchdog_s)
        while True:
            held = self.held()
            self.rt.log.main(self.facts.text("draining", len(held), held))
            if not held:
                break
            await asyncio.sleep(self.watchdog_s)
        self.close()
        pid = os.getpid()
        if self.facts.drained_exit == "sigkill":
            self._kill_itself()
        self.rt.log.main(self.facts.text("kill_tree", pid, False, pid))
        self.stop_server()

    async def _child_watchdog(self) -> None:
        while (code := self.child.exit_code()) is None:
            await asyncio.sleep(self.child_watch_s)
        if self.ending:
            return
        pid = os.getpid()
        self.rt.log.main(self.facts.text("child_crashed", "scheduler_0", self.child.proc.pid, code), "error")
        self.rt.log.main(self.facts.text("sigquit"), "error")
        if "kill_tree" in self.facts.texts:
            self.rt.log.main(self.facts.text("kill_tree", pid, True, pid))
        self._kill_itself()

    def _kill_itself(self) -> None:
        """SGLang's kill_process_tree including itself: SIGKILL (the simulator's own files cleaned first)."""
        if self.before_kill is not None:
            self.before_kill()
        os.kill(os.getpid(), signal.SIGKILL)
