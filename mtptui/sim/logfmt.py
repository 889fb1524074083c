"""How SGLang's log looks: logging prefixes, tqdm progress bars, uvicorn's formatters, and where each goes.

SGLang logs to stderr (``logging.basicConfig`` without a stream; tqdm too), and uvicorn writes its access
lines to stdout: a unit or redirect that keeps only stdout loses most of the log.

Prefixes follow ``configure_logger`` (sglang-log-formats.md §1): ``[YYYY-MM-DD HH:MM:SS] `` for the main
process, ``[... TPn] `` for scheduler ranks when tp_size > 1, ``.mmm`` milliseconds with ``SGLANG_LOG_MS``.
tqdm bars are written the way tqdm writes to a file: each refresh is ``\\r`` + the bar (padded to the last
length), and the closed bar ends with ``\\n`` (0.5.12+ bar formats carry no newline of their own).
"""

from __future__ import annotations

import logging
import sys
import time
from typing import Any, Callable, TextIO, TypedDict

SHARD_BAR_FORMAT = "{desc}: {percentage:3.0f}% Completed | {n_fmt}/{total_fmt} [{elapsed}<{remaining}, {rate_fmt}]"
_BLOCKS = " " + "".join(chr(c) for c in range(0x258F, 0x2587, -1))  # " ▏▎▍▌▋▊▉█", tqdm's UTF-8 charset
LEVELS = {"debug": 10, "info": 20, "warning": 30, "error": 40, "critical": 50}


def format_interval(seconds: float) -> str:
    """tqdm's ``format_interval``: ``MM:SS`` or ``H:MM:SS``."""
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours:d}:{minutes:02d}:{secs:02d}" if hours else f"{minutes:02d}:{secs:02d}"


class _Meter(TypedDict):
    """tqdm's ``format_meter`` fields the bar formats use."""

    n_fmt: str
    total_fmt: str
    elapsed: str
    remaining: str
    rate_fmt: str
    percentage: float


def _meter_parts(n: int, total: int, elapsed: float) -> _Meter:
    rate = n / elapsed if n and elapsed > 0 else None
    if rate is None:
        rate_fmt, remaining = "?it/s", "?"
    else:
        rate_fmt = f"{1 / rate:5.2f}s/it" if 1 / rate > 1 else f"{rate:5.2f}it/s"
        remaining = format_interval((total - n) / rate)
    return {"n_fmt": str(n), "total_fmt": str(total), "elapsed": format_interval(elapsed),
            "remaining": remaining, "rate_fmt": rate_fmt, "percentage": 100.0 * n / total if total else 0.0}


def shard_bar(desc: str, n: int, total: int, elapsed: float) -> str:
    """One refresh of SGLang's weight-loading bar (``BAR_FORMAT``)."""
    return SHARD_BAR_FORMAT.format(desc=desc, **_meter_parts(n, total, elapsed))


def _blocks(fraction: float, width: int = 10) -> str:
    full, part = divmod(int(fraction * width * 8), 8)
    bar = _BLOCKS[-1] * full
    return bar + _BLOCKS[part] + " " * (width - full - 1) if full < width else bar


def plain_bar(desc: str, n: int, total: int, elapsed: float) -> str:
    """One refresh of a tqdm bar in its default format (``{l_bar}{bar}{r_bar}``, 10 columns on a file)."""
    parts = _meter_parts(n, total, elapsed)
    prefix = f"{desc}: " if desc else ""
    return (f"{prefix}{parts['percentage']:3.0f}%|{_blocks(n / total if total else 0)}| "
            f"{n}/{total} [{parts['elapsed']}<{parts['remaining']}, {parts['rate_fmt']}]")


class LogWriter:
    """Writes log lines with SGLang's prefixes to a stream (stderr), flushing each write (a log file is tailed live)."""

    def __init__(self, tp_size: int = 1, *, stream: TextIO | None = None, log_ms: bool = False,
                 level: str = "info", clock: Callable[[], float] = time.time) -> None:
        self.tp_size = tp_size
        self.stream = stream or sys.stderr
        self.log_ms = log_ms
        self.level = LEVELS.get(level.lower(), 20)
        self.clock = clock
        self._bar_len = 0

    def stamp(self, ranks: str = "") -> str:
        now = self.clock()
        text = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(now))
        if self.log_ms:
            text += f".{int(now * 1000) % 1000:03d}"
        return f"[{text}{ranks}] "

    def write(self, text: str) -> None:
        self.stream.write(text)
        self.stream.flush()

    def main(self, message: str, level: str = "info") -> None:
        """A line from the main (tokenizer/HTTP) process: no rank tag."""
        if LEVELS[level] >= self.level:
            self.write(self.stamp() + message + "\n")

    def rank(self, rank: int, message: str, level: str = "info") -> None:
        """A line from scheduler rank ``rank``: ``TPn`` only when there is more than one rank."""
        if LEVELS[level] >= self.level:
            self.write(self.stamp(f" TP{rank}" if self.tp_size > 1 else "") + message + "\n")

    def each_rank(self, message_of: Callable[[int], str], level: str = "info") -> None:
        for rank in range(self.tp_size):
            self.rank(rank, message_of(rank), level)

    def bar(self, text: str) -> None:
        """One tqdm refresh: carriage return, the bar, spaces over a longer previous refresh."""
        self.write("\r" + text + " " * max(self._bar_len - len(text), 0))
        self._bar_len = len(text)

    def bar_close(self) -> None:
        self.write("\n")
        self._bar_len = 0


def uvicorn_log_config(level: str = "info") -> dict[str, Any]:
    """uvicorn's LOGGING_CONFIG with SGLang's formats (``set_uvicorn_logging_configs``): access lines to stdout,
    the rest to stderr."""
    return uvicorn_logging(level, "[%(asctime)s] %(levelprefix)s %(message)s",
                           '[%(asctime)s] %(levelprefix)s %(client_addr)s - "%(request_line)s" %(status_code)s',
                           "%Y-%m-%d %H:%M:%S", False)


def uvicorn_logging(level: str, fmt: str, access: str, datefmt: str | None, colours: bool | None) -> dict[str, Any]:
    """A uvicorn logging config (engine-neutral): access lines to stdout, the rest to stderr, in these formats
    (``colours`` None: uvicorn's own choice, colour on a terminal)."""
    level = level.upper()
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {
            "default": {"()": "uvicorn.logging.DefaultFormatter", "fmt": fmt, "datefmt": datefmt,
                        "use_colors": colours},
            "access": {"()": "uvicorn.logging.AccessFormatter", "fmt": access, "datefmt": datefmt,
                       "use_colors": colours},
        },
        "handlers": {
            "default": {"formatter": "default", "class": "logging.StreamHandler", "stream": "ext://sys.stderr"},
            "access": {"formatter": "access", "class": "logging.StreamHandler", "stream": "ext://sys.stdout"},
        },
        "loggers": {
            "uvicorn": {"handlers": ["default"], "level": level, "propagate": False},
            "uvicorn.error": {"level": level},
            "uvicorn.access": {"handlers": ["access"], "level": level, "propagate": False},
        },
    }


class AccessFilter(logging.Filter):
    """Drops uvicorn's access lines whose request path ``skip`` names (each engine's own flag and rule)."""

    def __init__(self, skip: Callable[[str], bool]) -> None:
        super().__init__()
        self.skip = skip

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args if isinstance(record.args, tuple) else ()
        return not self.skip(str(args[2]) if len(args) > 2 else "")
