"""The `--summary` fast path: raw log bytes straight into a ServerState.

Lines behind a plain `[...] ` prefix (nearly all lines of a busy server) skip the generic prefix parser: the
last two prefixes seen are compared with `startswith`. Decode, prefill and access lines then feed the state
without an Event: a decode line gives up only the two numbers the running means need, and is parsed in full
only if it is still in the bounded series when that is read. Anything unusual (ANSI codes, wrappers, a
traceback in progress, a value that does not read as a number) goes through `LogParser.parse_line`, so the
result equals `ServerState().apply_all(parse_text(...))`; a test holds the two paths equal.
"""

from __future__ import annotations

from typing import BinaryIO

from mtptui.sglang.logparse import Event, LogParser
from mtptui.sglang.logparse.lines import ACCESS, classify
from mtptui.sglang.logparse.prefix import parse_head
from mtptui.sglang.state import phases
from mtptui.sglang.state.model import ServerState

BLOCK = 1 << 20
RUNNING, RUNNING_LEN = "#running-req: ", len("#running-req: ")
GEN, GEN_LEN = "gen throughput (token/s): ", len("gen throughput (token/s): ")
NAN = float("nan")


def summarize_stream(stream: BinaryIO, state: ServerState) -> ServerState:
    """Read `stream` to its end in large blocks and fold every line into `state`."""
    parser = LogParser()
    scan = _Scan(parser, state)
    read = getattr(stream, "read1", stream.read)
    while block := read(BLOCK):
        scan.ansi = scan.ansi or b"\x1b" in block
        scan.lines(parser.splitter.split(block))
    scan.lines(parser.splitter.close())
    state.apply_all(parser.flush_pending([]))
    return state


class _Scan:
    """Fast handling of the frequent lines, the full parser for the rest."""

    def __init__(self, parser: LogParser, state: ServerState) -> None:
        self.parser, self.state = parser, state
        self.ansi = False  # once an escape code was seen, every line is checked for one
        self.recent = [("\0", None, {}, 0), ("\0", None, {}, 0)]  # (prefix incl. `] `, ts, ranks, its length)

    def prefix(self, text: str) -> tuple[str, str, dict[str, int], int] | None:
        """Parse a new `[...] ` prefix and remember it; None when the line has no plain SGLang prefix."""
        end = text.find("] ") if text[:1] == "[" else -1
        head = parse_head(text[1:end]) if end > 0 else None
        if head is None or text[end + 2:end + 3] == "[":  # `[gpu_id=0] ` after the prefix: the slow path
            return None
        entry = (text[:end + 2], head.ts, head.ranks, end + 2)
        self.recent = [entry, self.recent[0]]
        return entry

    def lines(self, lines: list[str]) -> None:
        # One flat loop on purpose: a function call per line costs about what the fast path's work does.
        parser, state, decode, settled = self.parser, self.state, self.state.decode, phases.SETTLED
        base, statuses, ansi = parser.line_no, {}, self.ansi
        (p1, t1, r1, n1), (p2, t2, r2, n2) = self.recent
        fast = parser.pending is None
        for index, text in enumerate(lines):
            if not fast or ansi and "\x1b" in text:
                fast = self.slow(text, base + index)
                continue
            if text.startswith(p1):
                ts, ranks, start = t1, r1, n1
            elif text.startswith(p2):
                ts, ranks, start = t2, r2, n2
            else:
                entry = self.prefix(text)
                if entry is None:
                    fast = self.slow(text, base + index)
                    continue
                (p1, t1, r1, n1), (p2, t2, r2, n2) = self.recent
                ts, ranks, start = t1, r1, n1
            if text.startswith("Decode batch", start) and text[start + 12:start + 13] in (".", ","):
                i, j = text.find(RUNNING, start) + RUNNING_LEN, text.rfind(GEN) + GEN_LEN
                gen = NAN
                if i > RUNNING_LEN and j > GEN_LEN:
                    k, m = text.find(", ", i), text.find(", ", j)
                    try:
                        running = int(text[i:k] if k > 0 else text[i:].rstrip(", "))
                        gen = float(text[j:m] if m > 0 else text[j:].rstrip(", "))
                    except ValueError:
                        gen = NAN
                if gen - gen == 0.0:  # read, and neither nan nor inf (the full parser makes those null)
                    if state.phase not in settled:
                        state.batch_seen()
                    decode.add_raw(ts, text, start, running, gen)
                else:
                    fast = self.slow(text, base + index)
            elif text.startswith("INFO:     ", start) and (match := ACCESS.match(text, start)) is not None:
                status = match.group(4)
                statuses[status] = statuses.get(status, 0) + 1
            elif text.startswith("Prefill batch", start) and text[start + 13:start + 14] in (".", ","):
                if state.phase not in settled:
                    state.batch_seen()
                state.prefill_count += 1
            else:
                fast = self.message(text, start, ts, ranks, base + index)
        parser.line_no = base + len(lines)
        self.add_statuses(statuses)

    def message(self, text: str, start: int, ts: str, ranks: dict[str, int], index: int) -> bool:
        """Any other prefixed line, classified directly as its prefix is known; True if no error is pending."""
        parsed = classify(text[start:])
        if parsed is None:
            return True
        kind, fields = parsed
        if kind == "error":  # an error waits for its traceback: the parser's job
            return self.slow(text, index)
        self.state.apply(Event(kind, ts, dict(ranks), index + 1, fields))
        return True

    def slow(self, text: str, index: int) -> bool:
        """The full parser for one line (0-based `index` in the input); True if no error is pending after it."""
        self.parser.line_no = index
        for event in self.parser.parse_line(text, []):
            self.state.apply(event)
        return self.parser.pending is None

    def add_statuses(self, statuses: dict[str, int]) -> None:
        counts = self.state.http_status
        for status, count in statuses.items():
            counts[int(status)] = counts.get(int(status), 0) + count
