"""One huge log line costs a bounded head, not its size: the splitter keeps the first MAX_LINE_CHARS characters
of an oversize line and says how many it dropped; the parser, parse-log and the dashboard's buffer carry on.

Memory is measured with tracemalloc (allocations, not time): a 20 MB line used to be held whole, then joined
(and parsed, cleaned) as one string.
"""

from __future__ import annotations

import subprocess
import sys
import tracemalloc

from mtptui.engines.sglang.logparse import LogParser
from mtptui.engines.sglang.logparse.splitter import MAX_LINE_CHARS, LineSplitter, cut
from mtptui.ui.logbuffer import MAX_LINE_CHARS as VIEW_CHARS
from mtptui.ui.logbuffer import LogBuffer, LogLine
from mtptui.ui.pump import LineParser

DECODE = (b"[2026-05-11 23:49:08 TP0] Decode batch, #running-req: 1, #token: 5, token usage: 0.00, accept len: 3.00, "
          b"accept rate: 0.75, cuda graph: True, gen throughput (token/s): 50.00, #queue-req: 0\n")
BLOCK = 1 << 16


def long_log(megabytes: int, fill: bytes = b"x"):
    """Chunks of a log whose second line is `megabytes` MB long, as a follower delivers them."""
    yield b"[2026-05-11 23:49:07 TP0] before\n[2026-05-11 23:49:07 TP0] "
    for _ in range(megabytes * (1 << 20) // BLOCK):
        yield fill * (BLOCK // len(fill))
    yield b"\n" + DECODE


def peak_bytes(run) -> int:
    tracemalloc.start()
    try:
        run()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_the_splitter_keeps_a_bounded_head_and_says_how_much_it_dropped() -> None:
    splitter, lines = LineSplitter(), []
    peak = peak_bytes(lambda: [lines.extend(splitter.split(chunk)) for chunk in long_log(20)])
    head = "[2026-05-11 23:49:07 TP0] " + "x" * (MAX_LINE_CHARS - 26)
    dropped = 20 * (1 << 20) + 26 - MAX_LINE_CHARS
    assert lines[1] == head + f" … [{dropped:,} more chars not kept]"
    assert lines[0].endswith("before") and lines[2] == DECODE.decode().strip() and len(lines) == 3
    assert peak < 2 * (1 << 20)  # the 20 MB line was never held whole


def test_a_multibyte_line_is_cut_at_characters_and_a_line_inside_one_chunk_too() -> None:
    splitter = LineSplitter()
    lines = [line for chunk in long_log(2, "é".encode()) for line in splitter.split(chunk)]
    assert lines[1].startswith("[2026-05-11 23:49:07 TP0] éé") and lines[1].endswith(" more chars not kept]")
    text = "a" * (MAX_LINE_CHARS + 5) + "\nshort\n"
    assert LineSplitter().split(text) == ["a" * MAX_LINE_CHARS + " … [5 more chars not kept]", "short"]


def test_the_parser_reads_on_after_a_huge_line() -> None:
    parser, events = LogParser(), []
    peak = peak_bytes(lambda: [events.extend(parser.feed(chunk)) for chunk in long_log(20)])
    events += parser.close()
    assert [(e.kind, e.line, e.fields["gen_throughput"]) for e in events] == [("decode", 3, 50.0)]
    assert peak < 4 * (1 << 20)


def test_the_dashboard_keeps_a_short_head_that_counts_every_dropped_character() -> None:
    parser, buffer = LineParser(), LogBuffer()

    def feed() -> None:
        for chunk in long_log(20):
            lines: list[LogLine] = []
            parser.feed(chunk, lines, [])
            buffer.append(lines)

    peak = peak_bytes(feed)
    total = 20 * (1 << 20) + 26
    assert buffer.text(1) == "[2026-05-11 23:49:07 TP0] " + "x" * (VIEW_CHARS - 26) + \
        f" … [{total - VIEW_CHARS:,} more chars not kept]"
    assert buffer.text(2).startswith("[2026-05-11 23:49:08 TP0] Decode batch") and peak < 4 * (1 << 20)


def test_cut_of_a_cut_line_counts_from_the_original() -> None:
    once = cut("y" * 1000, 100)
    assert once == "y" * 100 + " … [900 more chars not kept]"
    assert cut(once, 10) == "y" * 10 + " … [990 more chars not kept]"


def test_parse_log_on_a_huge_line_gives_the_events_after_it(tmp_path) -> None:
    path = tmp_path / "long.log"
    with path.open("wb") as handle:
        for chunk in long_log(8):
            handle.write(chunk)
    out = subprocess.run([sys.executable, "-m", "mtptui.cli.main", "parse-log", str(path)], capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0 and out.stderr == ""
    assert out.stdout.count("\n") == 1 and '"kind": "decode"' in out.stdout and '"line": 3' in out.stdout
