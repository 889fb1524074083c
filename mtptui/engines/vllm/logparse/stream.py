"""The incremental vLLM log parser: chunks in, events out as soon as their line is complete.

vLLM prints a multi-line record with its prefix on every line, so an ERROR record's traceback is the lines that
follow with the same process, pid, source location and level; Python's own crash reports (unprefixed) are
folded in as for SGLang. An `error` event is therefore held back until the first line that is not part of it;
`close()` and `flush_pending()` release it. Its `cause` is the root-cause line: the first exception line of
the traceback (a chained traceback prints the original exception first).
"""

from __future__ import annotations

from mtptui.engines.vllm.logparse.events import VllmEvent
from mtptui.engines.vllm.logparse.lines import classify, classify_bare
from mtptui.engines.vllm.logparse.prefix import Split, ranks_of, split_line
from mtptui.engines.sglang.logparse.problems import EXCEPTION_LINE, bare_error
from mtptui.engines.sglang.logparse.events import Event
from mtptui.engines.sglang.logparse.stream import LogParser as SglangLogParser
from mtptui.engines.sglang.logparse.tracebacks import HEADER, PendingError

__all__ = ["LogParser", "parse_text", "root_cause"]


def root_cause(message: str, traceback: str | None) -> str | None:
    """The first exception line of a traceback (or the message itself when it is one)."""
    lines: list[str] = [message, *(traceback.splitlines() if traceback else ())]
    for line in lines:
        if line[:1].isspace() or line.startswith(HEADER):
            continue
        if EXCEPTION_LINE.match(line):
            return line.rstrip()
    return None


class LogParser(SglangLogParser):
    """Parse vLLM log text fed in arbitrary chunks: SGLang's parser's feeding (`feed`/`close`, `feed_lines`/
    `close_lines`), vLLM's lines and folding."""

    def __init__(self) -> None:
        super().__init__()
        self._record: tuple[str | None, int | None, str | None, str | None] | None = None

    def parse_line(self, text: str, out: list[Event]) -> list[Event]:
        """Parse one complete line, appending the events it completes to `out`."""
        self.line_no += 1
        split = split_line(text)
        parsed = classify(split.msg, split.level) if split.prefixed else classify_bare(split.msg)
        if self._pending is not None:
            if self._continues(split, parsed):
                self._pending.fold(split.msg)
                return out
            self.flush_pending(out)
        if parsed is None and not split.prefixed:
            parsed = bare_error(split.msg)
        if parsed is not None:
            kind, fields = parsed
            event = VllmEvent(kind, split.ts, ranks_of(split.process), self.line_no, fields, split.process)
            if kind == "error":
                self._pending = PendingError(event)
                self._record = (split.process, split.pid, split.where, split.level)
            else:
                out.append(event)
        return out

    def _continues(self, split: Split, parsed: object) -> bool:
        """Whether a line belongs to the held-back error: the same record's next line, or a bare crash line."""
        if split.prefixed:
            return (split.process, split.pid, split.where, split.level) == self._record
        return parsed is None

    def flush_pending(self, out: list[Event]) -> list[Event]:
        if self._pending is not None:
            event = self._pending.release()
            event.fields["cause"] = root_cause(event.fields["message"], event.fields["traceback"])
            out.append(event)
            self._pending = None
        return out


def parse_text(text: str | bytes) -> list[VllmEvent]:
    parser = LogParser()
    return [event for event in parser.feed(text) + parser.close() if isinstance(event, VllmEvent)]
