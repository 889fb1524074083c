"""How vLLM's log looks: its logging prefix per process, colour, multi-line messages, and where lines go.

`(APIServer pid=N) INFO 12-01 19:58:38 [api_utils.py:286] message` (vllm/logger.py's format, date `%m-%d
%H:%M:%S`), written to stdout (`VLLM_LOGGING_STREAM`), at `VLLM_LOGGING_LEVEL` (INFO), with
`VLLM_LOGGING_PREFIX` in front. Colour as vLLM decides it: off with `NO_COLOR` or `VLLM_LOGGING_COLOR=0`, on with
`VLLM_LOGGING_COLOR=1` or `FORCE_COLOR`, else when the stream is a terminal; coloured lines wrap the process in
cyan, the level in its colour, the time and the source in grey. A message with newlines repeats the prefix
after each (`\\r\\n` + prefix), as vLLM's NewLineFormatter does. The simulated server is one process: every
prefix carries its pid, whichever of vLLM's processes (API server, engine core, workers) it speaks for.
"""

from __future__ import annotations

import os
import sys
import time
from typing import Callable, Mapping, TextIO

from mtptui.sim.logfmt import uvicorn_logging

LEVELS = {"DEBUG": 10, "INFO": 20, "WARNING": 30, "ERROR": 40, "CRITICAL": 50}
LEVEL_COLOURS = {"DEBUG": "\033[37m", "INFO": "\033[32m", "WARNING": "\033[33m", "ERROR": "\033[31m",
                 "CRITICAL": "\033[35m"}
GREY, RESET, PROCESS_COLOUR, PROCESS_RESET = "\033[90m", "\033[0m", "\033[0;36m", "\033[0;0m"
DATE_FORMAT = "%m-%d %H:%M:%S"


def use_colour(env: Mapping[str, str], stream: TextIO) -> bool:
    """vLLM's `_use_color` for the stream the log goes to."""
    if env.get("NO_COLOR") or env.get("VLLM_LOGGING_COLOR", "auto") == "0":
        return False
    if env.get("VLLM_LOGGING_COLOR") == "1" or env.get("FORCE_COLOR"):
        return True
    return bool(getattr(stream, "isatty", lambda: False)())


def stream_of(env: Mapping[str, str]) -> TextIO:
    return sys.stderr if env.get("VLLM_LOGGING_STREAM") == "ext://sys.stderr" else sys.stdout


class VllmLog:
    """Writes vLLM's log lines for the processes of one server (one pid here), flushing each write."""

    def __init__(self, env: Mapping[str, str] | None = None, stream: TextIO | None = None,
                 clock: Callable[[], float] = time.time) -> None:
        env = os.environ if env is None else env
        self.stream = stream or stream_of(env)
        self.colour = use_colour(env, self.stream)
        self.level = LEVELS.get(env.get("VLLM_LOGGING_LEVEL", "INFO").upper(), 20)
        self.prefix_text = env.get("VLLM_LOGGING_PREFIX", "")
        self.pid = os.getpid()
        self.clock = clock

    def _prefix(self, process: str, level: str, where: str) -> str:
        stamp = time.strftime(DATE_FORMAT, time.localtime(self.clock()))
        proc = f"({process} pid={self.pid})"
        if not self.colour:
            return f"{self.prefix_text}{proc} {level} {stamp} [{where}] "
        return (f"{self.prefix_text}{PROCESS_COLOUR}{proc}{PROCESS_RESET} {LEVEL_COLOURS[level]}{level}{RESET} "
                f"{GREY}{stamp}{RESET} {GREY}[{where}]{RESET} ")

    def line(self, process: str, where: str, message: str, level: str = "INFO") -> None:
        """One record of ``process`` from source ``where`` (`file.py:N`)."""
        if LEVELS[level] < self.level:
            return
        prefix = self._prefix(process, level, where)
        self.write(prefix + message.replace("\n", "\r\n" + prefix) + "\n")

    def write(self, text: str) -> None:
        self.stream.write(text)
        self.stream.flush()

    def bar(self, text: str) -> None:
        """One refresh of a tqdm bar whose format ends in a newline (vLLM's checkpoint-shard bar)."""
        self.write("\n" + text + "\n")

    def bar_close(self) -> None:
        self.write("\n")


def uvicorn_log_config(level: str = "info") -> dict[str, object]:
    """uvicorn's own logging as `vllm serve` leaves it: `INFO:     ...` lines, access lines on stdout, the rest on
    stderr, colour only on a terminal."""
    config: dict[str, object] = uvicorn_logging(level, "%(levelprefix)s %(message)s",
                                                '%(levelprefix)s %(client_addr)s - "%(request_line)s" %(status_code)s',
                                                None, None)
    return config
