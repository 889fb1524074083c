"""What the problems line says about a run's errors: the exception line, for this server run only."""

from __future__ import annotations

from mtptui.engines.sglang.logparse import parse_text
from mtptui.engines.sglang.state import ServerState
from mtptui.engines.sglang.state.errors import headline

CRASH = """[2026-05-11 23:50:01 TP0] Scheduler hit an exception: Traceback (most recent call last):
  File "/sglang/srt/managers/scheduler.py", line 2300, in run_scheduler_process
    scheduler = Scheduler(server_args, port_args, gpu_id, tp_rank)
ValueError: Speculative decoding for Qwen3_5ForCausalLM is not compatible with radix cache \
when using --mamba-scheduler-strategy no_buffer.

[2026-05-11 23:50:01] Received sigquit from a child process. It usually means the child failed.
"""
RESTART = """[2026-05-11 23:51:00 TP0] Load weight begin. avail mem=47.00 GB
[2026-05-11 23:51:30 TP0] KV cache pool is full. Retract requests. #retracted_reqs: 1, #new_token_ratio: 0.5
"""


def state_of(text: str) -> ServerState:
    state = ServerState()
    state.apply_all(parse_text(text))
    return state


def test_a_crash_is_named_by_its_exception_line_not_the_traceback_opener_or_the_sigquit_echo():
    run = state_of(CRASH).startup
    assert run.errors == 2 and run.last_error["message"].startswith("Received sigquit")
    assert headline(run.cause) == ("ValueError: Speculative decoding for Qwen3_5ForCausalLM is not compatible with "
                                   "radix cache when using --mamba-scheduler-strategy no_buffer.")


def test_a_new_startup_starts_its_problems_afresh_while_the_stream_keeps_its_totals():
    state = state_of(CRASH + RESTART)
    assert (state.startup.errors, state.startup.warnings, state.startup.cause) == (0, 1, None)
    assert state.last_error is not None and state.warning_count == 1


def test_a_cut_off_traceback_says_so_instead_of_showing_a_caret_line():
    error = {"message": "Scheduler hit an exception: Traceback (most recent call last):",
             "traceback": '  File "x.py", line 1, in f\n    g(\n    ^^^^'}
    assert headline(error) == "Scheduler hit an exception (its exception line is not in the log: cut off)"
    assert headline({"message": "Not enough memory.", "traceback": None}) == "Not enough memory."
