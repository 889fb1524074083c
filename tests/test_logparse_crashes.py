"""Crash reports as real logs show them: a traceback cut off by the end of the input, a bare exception line
without any logging prefix, and a live stream that pauses mid-traceback (released on the caller's clock)."""

from __future__ import annotations

import io

from mtptui.engines.sglang.logparse import LogParser, parse_text
from mtptui.engines.sglang.logparse.quiet import QuietRelease
from mtptui.engines.sglang.state import ServerState, state_to_dict
from mtptui.engines.sglang.state.scan import summarize_stream
from tests.logparse_contract import ev

TS = "2026-05-11 23:49:09"
SCHEDULER = "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py"

# A log fetched while the scheduler was still writing its traceback: it ends after a frame's source line.
CUT_OFF = f"""[2026-05-11 23:49:07] INFO:     127.0.0.1:40052 - "POST /v1/chat/completions HTTP/1.1" 200 OK
[{TS} TP0] Scheduler hit an exception: Traceback (most recent call last):
  File "{SCHEDULER}", line 2931, in run_scheduler_process
    scheduler.event_loop_overlap()
  File "/usr/local/lib/python3.12/dist-packages/torch/utils/_contextlib.py", line 116, in decorate_context
    return func(*args, **kwargs)
           ^^^^^^^^^^^^^^^^^^^^^
  File "{SCHEDULER}", line 1012, in event_loop_overlap
    batch_result = self.run_batch(batch)
"""
CUT_OFF_FRAME = f'File "{SCHEDULER}", line 1012, in event_loop_overlap'

# What Python's own handler (or a subprocess) prints: the exception line first, no prefix, then its text.
BARE = """Exception: Capture cuda graph failed: RuntimeError: CUDA error: out of memory
CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.
For debugging consider passing CUDA_LAUNCH_BLOCKING=1

Possible solutions:
1. set --mem-fraction-static to a smaller value (e.g., 0.8 or 0.7)
2. set --cuda-graph-max-bs to a smaller value (e.g., 16)
Open an issue on GitHub https://github.com/sgl-project/sglang/issues/new/choose 

[2026-05-11 23:49:12] Received sigquit from a child process. It usually means the child failed.
"""


def test_traceback_cut_off_by_the_end_of_the_input_is_a_truncated_error() -> None:
    events = [e.to_dict() for e in parse_text(CUT_OFF)]
    assert events[1] == ev("error", TS, {"TP": 0}, line=2,
                           message="Scheduler hit an exception: Traceback (most recent call last):",
                           traceback="\n".join(CUT_OFF.splitlines()[2:]), last_frame=CUT_OFF_FRAME, truncated=True)


def test_a_complete_traceback_is_not_truncated_and_names_its_last_frame() -> None:
    (event,) = parse_text(CUT_OFF.split("\n", 1)[1] + "RuntimeError: Decode out of memory.\n")
    assert (event.get("truncated"), event.get("last_frame")) == (False, CUT_OFF_FRAME)


def test_a_header_alone_at_the_end_is_truncated_without_a_frame() -> None:
    (event,) = parse_text("Traceback (most recent call last):\n")
    assert event.to_dict() == ev("error", message="Traceback (most recent call last):", truncated=True)


def test_an_error_without_a_traceback_is_not_truncated() -> None:
    (event,) = parse_text(f"[{TS} TP0] Prefill out of memory. Try to lower your batch size.\n")
    assert (event.get("truncated"), event.get("last_frame")) == (False, None)


def test_bare_exception_line_and_its_continuation_are_one_error() -> None:
    lines = BARE.splitlines()
    assert [e.to_dict() for e in parse_text(BARE)] == [
        ev("error", line=1, message=lines[0], traceback="\n".join(lines[1:8])),
        ev("error", "2026-05-11 23:49:12", line=10,
           message="Received sigquit from a child process. It usually means the child failed."),
    ]


def test_bare_exception_names() -> None:
    for line in ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.", "AssertionError",
                 "ValueError: Unknown speculative algorithm name: FOO", "llm0-1  | KeyError: 'model_type'"):
        assert [e.kind for e in parse_text(line + "\n")] == ["error"], line


def test_lines_that_only_look_like_exceptions_are_not_errors() -> None:
    for line in ("UserWarning: TypedStorage is deprecated.", "Error: not a Python exception name",
                 "see RuntimeError: in the docs", "/usr/lib/x.py:3: FutureWarning: soon", "INFO: Error: x"):
        assert parse_text(line + "\n") == [], line


def test_summary_fast_path_reports_both_crash_forms() -> None:
    for text, message in ((CUT_OFF, "Scheduler hit an exception: Traceback (most recent call last):"),
                          (BARE.rsplit("\n", 2)[0], BARE.split("\n", 1)[0])):
        fast = state_to_dict(summarize_stream(io.BytesIO(text.encode()), ServerState()))
        reduced = ServerState()
        reduced.apply_all(parse_text(text))
        assert fast == state_to_dict(reduced)
        assert (fast["phase"], fast["error"]["message"]) == ("crashed", message)


def test_quiet_release_waits_for_the_quiet_period_on_the_callers_clock() -> None:
    parser, quiet = LogParser(), QuietRelease(quiet_s=2.0)
    parser.feed(CUT_OFF)
    quiet.fed(100.0)
    assert quiet.wait_s(parser, 101.5) == 0.5
    assert quiet.release(parser, 101.9, []) == []
    (event,) = quiet.release(parser, 102.0, [])
    assert (event.get("truncated"), event.get("last_frame")) == (True, CUT_OFF_FRAME)
    assert quiet.wait_s(parser, 102.0) is None and parser.close() == []


def test_quiet_release_restarts_with_every_line_and_idles_without_an_error() -> None:
    parser, quiet = LogParser(), QuietRelease(quiet_s=2.0)
    assert quiet.wait_s(parser, 0.0) is None
    parser.feed(BARE.split("\n", 1)[0] + "\n")
    quiet.fed(10.0)
    parser.feed("Possible solutions:\n")
    quiet.fed(11.5)
    assert quiet.release(parser, 12.5, []) == []
    (event,) = quiet.release(parser, 13.5, [])
    assert (event.get("traceback"), event.get("truncated")) == ("Possible solutions:", False)


# A traceback whose header carries the logging prefix (one rank's logger printed it) and that the input cuts off
# before its exception line.
DECODE = (f"[{TS} TP0] Decode batch, #running-req: 1, #token: 640, token usage: 0.01, cuda graph: True, "
          "gen throughput (token/s): 54.10, #queue-req: 0")
PREFIXED = f"""{DECODE}
[{TS} TP0] Traceback (most recent call last):
  File "{SCHEDULER}", line 2931, in run_scheduler_process
    scheduler.event_loop_overlap()
  File "{SCHEDULER}", line 1012, in event_loop_overlap
    batch_result = self.run_batch(batch)
"""


def test_a_prefixed_traceback_cut_off_is_a_truncated_error_with_its_last_frame() -> None:
    events = [e.to_dict() for e in parse_text(PREFIXED)]
    assert [e["kind"] for e in events] == ["decode", "error"]
    assert events[1] == ev("error", TS, {"TP": 0}, line=2, message="Traceback (most recent call last):",
                           traceback="\n".join(PREFIXED.splitlines()[2:]), last_frame=CUT_OFF_FRAME, truncated=True)


def test_a_complete_prefixed_traceback_is_one_error_ending_in_its_exception() -> None:
    (_, event) = parse_text(PREFIXED + "RuntimeError: CUDA error: an illegal memory access was encountered\n")
    assert (event.get("truncated"), event.get("last_frame")) == (False, CUT_OFF_FRAME)
    assert event.get("traceback").endswith("RuntimeError: CUDA error: an illegal memory access was encountered")


def test_the_summary_and_the_dashboard_state_show_the_prefixed_cut_off_crash() -> None:
    from mtptui.engines.sglang.state.errors import headline

    fast = state_to_dict(summarize_stream(io.BytesIO(PREFIXED.encode()), ServerState()))
    reduced = ServerState()
    reduced.apply_all(parse_text(PREFIXED))
    assert fast == state_to_dict(reduced)
    error = fast["error"]
    assert (fast["phase"], error["truncated"], error["last_frame"]) == ("crashed", True, CUT_OFF_FRAME)
    assert headline(error) == ("a traceback (its exception line is not in the log: cut off, last frame "
                               "scheduler.py:1012 in event_loop_overlap)")
