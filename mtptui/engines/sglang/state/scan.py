"""The `--summary` fast path: raw log bytes straight into a ServerState.

One regular expression per line (`FAST_LINE`) reads a plain `[date time ranks] ` prefix (behind a container
wrapper such as `sglang-1  | `, if any) and recognises the three frequent lines in their usual form: a decode
line (only `#running-req` and `gen throughput` are taken, for the running means; the line is parsed in full only
if it is still in the bounded series when that is read), an access line (its status) and a prefill line. One
match instead of a dozen string calls keeps every shape of log fast: a new timestamp on every line, interleaved
ranks and wrappers cost nothing extra. A prefixed line in any other form takes the per-kind checks below, and
anything unusual (ANSI codes, other wrappers, a traceback in progress, a value that does not read as a number)
goes through `LogParser.parse_line`, so the result equals `ServerState().apply_all(parse_text(...))`; tests
hold the two paths equal on every shape of log.
"""

from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache
from typing import BinaryIO, Callable

from mtptui.engines.sglang.logparse import Event, LogParser
from mtptui.engines.sglang.logparse.batches import parse_batch
from mtptui.engines.sglang.logparse.lines import ACCESS, Parsed, classify
from mtptui.engines.sglang.logparse.prefix import CONTAINER, RANK
from mtptui.engines.sglang.logparse.problems import BARE_TRACEBACK
from mtptui.engines.sglang.state import phases
from mtptui.engines.sglang.state.model import ServerState

BLOCK = 1 << 20
MAX_KINDS, MAX_KIND_CHARS = 4096, 240  # messages remembered with their kind, and the longest one remembered
PLAIN = (str, int, float, bool, type(None))
MAX_TAILS = 4096  # distinct prefix tails remembered (a few rank tags; every line's own with milliseconds)

# Groups: 1 date and time, 2 the rest of the prefix (milliseconds, rank tags: checked by `Tails`), then the kind
# as `lastindex`: 3 decode with no running request, 4 decode with some (its gen throughput), 5 access (its status),
# 6 prefill, 7 any other message; the loop reads no group it can do without. ASCII only, so it accepts a subset
# of what `split_line` reads, and reads it the same way: the wrapper is prefix.CONTAINER (atomic), the prefix runs
# to the first `] `. A decode line is read as `batches.read_pairs` reads it, the last part of a key winning:
# `#running-req` is the first part and the only one, `gen throughput` the last part of its key (`, ` before it:
# not the end of a longer key), its value ending where the part does. The only cheap proof that no second
# `#running-req` follows is that no `i` does: none of SGLang's decode keys after it has one (a line with one
# takes `odd_decode`). `[^i]*` scans as fast as `.*` would. Numbers are bounded so that `int` and `float` always
# agree with the full parser. `[0-9]`, not `\d` (the same under re.ASCII): a range is checked in line, a category
# by a call, on every digit. Optional groups cost sre dearly: hence branches (`|())` at the end, `(?: [^"]*"|")`)
# where `(...)?` would read more naturally.
GEN = r"(?=, )(?>[^i]*, gen throughput \(token/s\): )"
GEN_END = r"(?:, [^i]*|,|)$"
FAST_LINE = (
    r"([0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9] [0-9][0-9]:[0-9][0-9]:[0-9][0-9])([^]]*)\] "
    r"(?:Decode batch[.,] #running-req: (?:0" + GEN + r"[0-9]{1,18}\.[0-9]{1,18}" + GEN_END + r"()"
    r"|[1-9][0-9]{0,17}" + GEN + r"([0-9]{1,18}\.[0-9]{1,18})" + GEN_END + r")"
    r'|INFO:      *\S+ - "[A-Z]+ \S+(?: [^"]*"|") ([0-9]{3})\b'
    r"|Prefill batch[.,]()"
    r"|())")
# A container wrapper as `FAST_LINE` reads it, when a `[` follows: the same on every line that starts so, as
# nothing in it can take the `[`. A log from one container repeats its own on every line.
WRAPPER = re.compile(rf"(?>{CONTAINER.pattern})(?=\[)", re.ASCII)
IDLE, BUSY, STATUS, PREFILL = 3, 4, 5, 6  # `lastindex` of a match of each kind
TAIL = re.compile(r"((?:[.,]\d{1,6})?)((?: [A-Z][A-Z_]*\d+)*)")  # the rest of prefix.HEAD after the seconds


class Tails(dict):
    """`.123 DP0 TP0` → (".123", {"DP": 0, "TP": 0}), False when it is not milliseconds and rank tags.

    The ranks dict is shared between lines: never change it (`Event` gets a copy).
    """

    def __missing__(self, tail: str) -> tuple[str, dict[str, int]] | bool:
        if len(self) >= MAX_TAILS:
            self.clear()
        m = TAIL.fullmatch(tail)
        self[tail] = found = (m.group(1), {k: int(v) for k, v in RANK.findall(m.group(2))}) if m else False
        return found


TAILS = Tails()


class Kinds(dict):
    """Message → `lines.classify(message)`, remembered for the short messages that recur (`Cache flushed
    successfully!`, a deprecation notice, a retraction warning): classifying one takes a dozen prefix and regex
    checks, about 30,000 instructions here, and such lines are 5% of a busy log. Only plain field values are
    remembered, so a copy of the fields is as good as a new reading; `classify` reads the message alone.
    """

    def __missing__(self, message: str) -> Parsed:
        parsed = classify(message)
        plain = parsed is None or all(isinstance(value, PLAIN) for value in parsed[1].values())
        if plain and len(message) <= MAX_KIND_CHARS:
            if len(self) >= MAX_KINDS:
                self.clear()
            self[message] = parsed
        return parsed


KINDS = Kinds()


@lru_cache(maxsize=16)
def fast_line(wrapper: str) -> re.Pattern[str]:
    """`FAST_LINE` trying `wrapper` literally before the general container wrapper (same match, ~1000 fewer
    sre steps a line)."""
    known = rf"{re.escape(wrapper)}\[|" if wrapper else ""
    return re.compile(rf"(?:\[|{known}(?>{CONTAINER.pattern})\[){FAST_LINE}", re.ASCII)


Match = Callable[[str], "re.Match[str] | None"]


def no_match(text: str) -> None:
    return None


def decode_line(m: re.Match[str]) -> tuple[str, str]:
    """A decode line's timestamp and message, from its `FAST_LINE` match (`DecodeHistory.resolve`)."""
    return m.group(1) + TAILS[m.group(2)][0], m.string[m.end(2) + 2:]


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
        state.decode.resolve = decode_line

    def lines(self, lines: list[str]) -> None:
        # One flat loop on purpose: a function call per line costs about what the fast path's work does. The
        # decode totals live in locals meanwhile, handed back before anything else may touch them.
        parser, state, decode, tails = self.parser, self.state, self.state.decode, TAILS
        base, statuses, add_raw = parser.line_no, [], decode.raw.append
        wrapper = WRAPPER.match(lines[0]) if lines else None
        fast_match = fast_line(wrapper.group() if wrapper else "").match
        match, settled = self.matcher(fast_match, parser.pending is None), state.phase in phases.SETTLED
        count, total, steady, warm = decode.counters()
        prefills = 0
        for index, text in enumerate(lines):
            m = match(text)
            kind = m.lastindex if m else 0
            if kind == BUSY or kind == IDLE:
                tail = m[2]
                if not tail or tails[tail]:
                    if not settled:
                        state.batch_seen()
                        settled = state.phase in phases.SETTLED
                    count += 1
                    if warm:
                        warm = False
                    elif kind == BUSY:
                        total += float(m[4])
                        steady += 1
                    add_raw(m)
                    continue
            elif kind == STATUS:
                tail = m[2]
                if not tail or tails[tail]:
                    statuses.append(m[5])
                    continue
            elif kind == PREFILL:
                tail = m[2]
                if not tail or tails[tail]:
                    if not settled:
                        state.batch_seen()
                        settled = state.phase in phases.SETTLED
                    prefills += 1
                    continue
            decode.set_counters(count, total, steady, warm)
            state.prefill_count, prefills = state.prefill_count + prefills, 0
            match = self.matcher(fast_match, self.other(text, m, kind, base + index))
            count, total, steady, warm = decode.counters()
            settled = state.phase in phases.SETTLED
        decode.set_counters(count, total, steady, warm)
        state.prefill_count += prefills
        parser.line_no = base + len(lines)
        self.add_statuses(statuses)

    def matcher(self, match: Match, fast: bool) -> Match:
        """`match`, unless lines cannot take the fast path: none while an error waits for its traceback, none with
        an escape code in it once the log has one (the full parser strips them). Chosen here, not on every line."""
        if not fast:
            return no_match
        if self.ansi:
            return lambda text: None if "\x1b" in text else match(text)
        return match

    def other(self, text: str, m: re.Match[str] | None, kind: int, index: int) -> bool:
        """Any line but a usual decode or access line; True if no error is pending after it."""
        if not kind or not TAILS[m.group(2)]:
            return self.slow(text, index)
        return self.prefixed(text, m, kind, index)

    def prefixed(self, text: str, m: re.Match[str], kind: int, index: int) -> bool:
        """A line with a plain prefix, other than a usual decode or access line."""
        ts = m.group(1)
        ms, ranks = TAILS[m.group(2)]
        start = m.end(2) + 2
        if text.startswith("Decode batch", start) and text[start + 12:start + 13] in (".", ","):
            return self.odd_decode(text, m, start, index)
        if text.startswith("INFO:     ", start) and (access := ACCESS.match(text, start)) is not None:
            self.add_statuses([access.group(4)])
            return True
        return self.message(text, start, ts + ms, ranks, index)

    def odd_decode(self, text: str, line: re.Match[str], start: int, index: int) -> bool:
        """A decode line in an unusual form, its two numbers read as the full parser reads them (else the latter)."""
        parsed = parse_batch(text[start:])
        fields = parsed[1] if parsed else {}
        running, gen = fields.get("running_req"), fields.get("gen_throughput")
        if running is None or gen is None:
            return self.slow(text, index)
        if self.state.phase not in phases.SETTLED:
            self.state.batch_seen()
        self.state.decode.add_raw(line, running, gen)
        return True

    def message(self, text: str, start: int, ts: str, ranks: dict[str, int], index: int) -> bool:
        """Any other prefixed line, classified directly as its prefix is known; True if no error is pending."""
        if text.startswith("[gpu_id=", start):  # ≈0.2.x tag after the prefix: the full parser drops it
            return self.slow(text, index)
        parsed = KINDS[text[start:]]
        if parsed is None:  # a prefixed traceback header waits for its frames, as an error does
            return self.slow(text, index) if text.startswith(BARE_TRACEBACK, start) else True
        kind, fields = parsed
        if kind == "error":  # an error waits for its traceback: the parser's job
            return self.slow(text, index)
        self.state.apply(Event(kind, ts, dict(ranks), index + 1, dict(fields)))  # the cached dict stays as it is
        return True

    def slow(self, text: str, index: int) -> bool:
        """The full parser for one line (0-based `index` in the input); True if no error is pending after it."""
        self.parser.line_no = index
        for event in self.parser.parse_line(text, []):
            self.state.apply(event)
        return self.parser.pending is None

    def add_statuses(self, statuses: list[str]) -> None:
        counts = self.state.http_status
        for status, count in Counter(statuses).items():
            counts[int(status)] = counts.get(int(status), 0) + count
