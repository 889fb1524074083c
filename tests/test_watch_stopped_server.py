"""A restart's watch reads the log from before the stop: the stopped server's last words (SGLang's running-phase
SIGQUIT line when its process group is stopped) are not the new start's crash; the same line once the new start
has loaded anything is. Nor are its last decode batches (it serves until the SIGTERM) the new start being ready."""

from __future__ import annotations

from mtptui.ops.progress import StartupTracker
from mtptui.engines.sglang.logparse import LogParser

OLD_SERVER_GOING = (
    "[2026-12-01 22:18:40] SIGTERM received. signum=None frame=None. Draining requests and shutting down...\n"
    "[2026-12-01 22:18:40] Subprocess scheduler_0 (pid=4242) crashed with exit code -15. Triggering SIGQUIT for "
    "cleanup...\n"
    "[2026-12-01 22:18:40] SIGQUIT received. signum=None, frame=None. It usually means one child failed.\n"
)
NEW_START = ("[2026-12-01 22:18:45 TP0] Load weight begin. avail mem=44.12 GB\n"
             "[2026-12-01 22:18:46 TP0] Load weight end. elapsed=0.95 s, type=Qwen3_5ForCausalLM, "
             "dtype=torch.bfloat16, avail mem=18.51 GB, mem usage=25.61 GB.\n")


OLD_SERVER_SERVING = ("[2025-10-22 10:27:57 TP0] Decode batch. #running-req: 1, #token: 186, token usage: 0.00, accept "
                      "len: 1.95, accept rate: 0.49, cuda graph: True, gen throughput (token/s): 178.86, #queue-req: "
                      "0, \n")  # a real SGLang line (/work/shared/real-logs/01-*)


def _tracked(text: str) -> tuple[StartupTracker, list[str]]:
    from mtptui.engines.registry import launches

    steps: list[str] = []
    tracker = StartupTracker(lambda step, message, detail: steps.append(step), launches("sglang").watch()[1])
    parser = LogParser()
    for event in [*parser.feed(text.encode()), *parser.flush_pending([])]:
        tracker.apply(event)
    return tracker, steps


def test_the_stopped_servers_sigquit_line_is_not_the_new_starts_crash() -> None:
    tracker, steps = _tracked(OLD_SERVER_GOING + NEW_START)
    assert tracker.state.phase == "loading_weights" and "crashed" not in steps


def test_the_same_line_after_the_new_start_loaded_anything_is_its_crash() -> None:
    tracker, steps = _tracked(NEW_START + OLD_SERVER_GOING.splitlines(keepends=True)[2])
    assert tracker.state.phase == "crashed" and steps[-1] == "crashed"


def test_the_stopped_servers_last_decode_batches_are_not_the_new_start_ready() -> None:
    tracker, steps = _tracked(OLD_SERVER_SERVING)
    assert tracker.state.phase == "starting" and not tracker.settled and "ready" not in steps
    tracker, steps = _tracked(OLD_SERVER_SERVING + OLD_SERVER_GOING + NEW_START)
    assert tracker.state.phase == "loading_weights" and "ready" not in steps and "crashed" not in steps
