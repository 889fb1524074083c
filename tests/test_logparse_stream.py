"""The incremental interface: chunks, line endings, UTF-8 splits, held-back errors and their tracebacks."""

from __future__ import annotations

from mtptui.engines.sglang.logparse import LogParser, parse_text
from mtptui.engines.sglang.logparse.splitter import MAX_LINE_CHARS, cut
from mtptui.engines.sglang.logparse.stream import MAX_TRACEBACK_LINES
from tests.logparse_contract import ev

TS = "2026-05-11 23:49:07"
P = f"[{TS} TP0] "
DECODE = (f"{P}Decode batch, #running-req: 1, #token: 5, token usage: 0.00, cuda graph: True, "
          "gen throughput (token/s): 50.00, #queue-req: 0")


def test_events_come_out_as_soon_as_the_line_is_complete() -> None:
    parser = LogParser()
    assert parser.feed(DECODE[:40]) == []
    assert parser.feed(DECODE[40:]) == []
    events = parser.feed("\n")
    assert [e.kind for e in events] == ["decode"] and events[0].line == 1
    assert parser.close() == []


def test_close_flushes_an_unterminated_last_line() -> None:
    parser = LogParser()
    assert parser.feed(DECODE.encode()) == []
    assert [e.to_dict()["gen_throughput"] for e in parser.close()] == [50.0]


def test_chunk_ending_mid_utf8_character() -> None:
    line = "Capturing batches (bs=8 avail_mem=4.00 GB):  50%|█████     | 1/2 [00:01<00:01,  1.00s/it]\n"
    line = line.encode()
    cut = line.index("█".encode()) + 1  # inside the three bytes of the block character
    parser = LogParser()
    events = parser.feed(line[:cut]) + parser.feed(line[cut:]) + parser.close()
    assert [e.to_dict() for e in events] == [ev("graph_capture_progress", bs=8, avail_mem_gb=4.0, done=1, total=2)]


def test_crlf_split_across_chunks_counts_once() -> None:
    parser = LogParser()
    events = parser.feed(DECODE + "\r") + parser.feed("\n" + DECODE + "\r\n") + parser.close()
    assert [e.line for e in events] == [1, 2]


def test_carriage_return_and_newline_each_end_a_line() -> None:
    pairs = list(LogParser().feed_lines("a\rb\nc\r\nd\n\n"))
    assert [text for text, _ in pairs] == ["a", "b", "c", "d", ""]


def test_invalid_utf8_is_replaced_not_raised() -> None:
    events = parse_text(b"\xff\xfe" + DECODE.encode() + b"\n" + DECODE.encode()[:-1] + b"\xc3\n")
    assert [e.line for e in events] == [2]  # line 1 starts with garbage, line 2's last value is garbled


def test_feed_lines_pairs_raw_lines_with_their_events() -> None:
    parser = LogParser()
    text = f"\x1b[1m{DECODE}\x1b[0m\n{P}Scheduler hit an exception: boom\n  File \"x.py\", line 1\nRuntimeError: x\n"
    pairs = list(parser.feed_lines(text))
    assert [raw for raw, _ in pairs] == [f"\x1b[1m{DECODE}\x1b[0m", f"{P}Scheduler hit an exception: boom",
                                         '  File "x.py", line 1', "RuntimeError: x"]
    assert [[e.kind for e in events] for _, events in pairs] == [["decode"], [], [], []]
    ((raw, (event,)),) = parser.close_lines()
    assert raw == ""
    assert event.to_dict() == ev("error", TS, {"TP": 0}, line=2, message="Scheduler hit an exception: boom",
                                 traceback='  File "x.py", line 1\nRuntimeError: x', last_frame='File "x.py", line 1')


def test_error_is_released_by_the_next_prefixed_line() -> None:
    parser = LogParser()
    assert parser.feed(f"{P}Scheduler hit an exception: Traceback (most recent call last):\n") == []
    traceback = '  File "a.py", line 3, in f\n    g()\nValueError: Unknown speculative algorithm name: FOO\n\n'
    assert parser.feed(traceback) == []
    events = parser.feed(f"[{TS}] SIGQUIT received. signum=None, frame=None. It usually means one child failed.\n")
    assert [(e.kind, e.line) for e in events] == [("error", 1)]
    assert events[0].get("traceback") == '  File "a.py", line 3, in f\n    g()\n' \
                                         "ValueError: Unknown speculative algorithm name: FOO"
    assert [e.to_dict() for e in parser.close()] == [
        ev("error", TS, line=6,
           message="SIGQUIT received. signum=None, frame=None. It usually means one child failed.")]


def test_chained_traceback_stays_in_one_error() -> None:
    text = (f"{P}Scheduler hit an exception: Traceback (most recent call last):\n"
            "  File \"a.py\", line 1\nKeyError: 1\n\n"
            "During handling of the above exception, another exception occurred:\n\n"
            "Traceback (most recent call last):\n  File \"b.py\", line 2\n"
            "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n")
    (event,) = parse_text(text)
    assert event.get("traceback").splitlines()[-1].startswith("torch.OutOfMemoryError")
    assert event.get("traceback").count("\n") == 7


def test_multi_line_error_message_is_folded() -> None:
    (event,) = parse_text(f"{P}Prefill out of memory. Try to lower your batch size.\nTry to allocate 9000 tokens.\n")
    assert event.to_dict() == ev("error", TS, {"TP": 0}, message="Prefill out of memory. Try to lower your batch size.",
                                 traceback="Try to allocate 9000 tokens.")


def test_a_recognised_unprefixed_line_ends_the_traceback() -> None:
    text = (f"{P}Scheduler hit an exception: x\nValueError: y\n"
            "Multi-thread loading shards:   0% Completed | 0/2 [00:00<?, ?it/s]\n")
    assert [(e.kind, e.get("traceback")) for e in parse_text(text)] == [("error", "ValueError: y"),
                                                                       ("shard_progress", None)]


def test_bare_traceback_is_an_error() -> None:
    text = ("Traceback (most recent call last):\n  File \"launch_server.py\", line 9\n"
            "AssertionError\n[2026-05-11 23:49:09] INFO:     Started server process [1]\n")
    assert [e.to_dict() for e in parse_text(text)] == [
        ev("error", message="Traceback (most recent call last):",
           traceback='  File "launch_server.py", line 9\nAssertionError', last_frame='File "launch_server.py", line 9')]


def test_flush_pending_releases_an_error_of_a_quiet_stream() -> None:
    parser = LogParser()
    parser.feed(f"{P}Scheduler hit an exception: x\nRuntimeError: y\n")
    assert [e.get("traceback") for e in parser.flush_pending([])] == ["RuntimeError: y"]
    assert parser.close() == []


def test_traceback_memory_is_bounded() -> None:
    text = f"{P}Scheduler hit an exception: x\n" + "  frame\n" * (MAX_TRACEBACK_LINES + 50)
    (event,) = parse_text(text)
    lines = event.get("traceback").splitlines()
    assert len(lines) == MAX_TRACEBACK_LINES + 1 and lines[-1] == "[50 more lines]"


def test_ten_megabyte_line_in_chunks() -> None:
    huge = "x" * 10_000_000
    data = (f"{P}{huge}\n{DECODE}\n{huge}").encode()
    parser = LogParser()
    events, raw = [], []
    for start in range(0, len(data), 65536):
        for text, found in parser.feed_lines(data[start:start + 65536]):
            raw.append(len(text))
            events += found
    for text, found in parser.close_lines():
        raw.append(len(text))
        events += found
    assert raw == [len(cut(P + huge, MAX_LINE_CHARS)), len(DECODE), len(cut(huge, MAX_LINE_CHARS))]  # bounded heads
    assert [(e.kind, e.line) for e in events] == [("decode", 2)]
