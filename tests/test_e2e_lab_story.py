"""End to end over SSH: the mission's story against the lab host, in a real terminal (tmux, 160x48).

`mtptui lab` reaches the lab only through the ``gpu-lab`` alias of the operator's private ~/.ssh/config. With
the host's users decoding, the dashboard shows the bad redeploy (~35 tok/s, accept length ~1.75); the bench
screen measures it through the tunnel; `d` shows the mission's flags; `R` restores the known-good profile (the
systemd manager here, the process manager in the second test) and the banner reaches ready; `b` `g` measures
~55 tok/s and says improvement over the run before. A profile that crashes at start is rolled back over SSH.
"""

from __future__ import annotations

import re
import shlex
import sys
from typing import Iterator

import pytest

from tests.lab import operator_env
from tests.test_e2e_demo_tmux import ROOT, TMUX, Terminal, own_terminal
from tests.test_e2e_story_tmux import BENCH_S, MISSION_ROWS, diff_row, every_mission_row, finished, output_tok_s

pytestmark = [pytest.mark.e2e, pytest.mark.ssh, pytest.mark.needs(None if TMUX else "tmux is not installed")]



PAINTED = re.compile(r"output tok/s\s+[\d.]+\s")  # the results pane has the run's figure


@pytest.fixture
def lab_terminal() -> Iterator[Terminal]:
    with own_terminal("mtptui-lab") as term:
        yield term

# the bench's verdict as the comparison pane words it: "vs best earlier: 54.0 vs 34.4 tok/s, 57 % faster, outside
# the noise" (read from the screen with its line breaks folded)
VERDICT = re.compile(r"vs best earlier: ([\d.]+) vs ([\d.]+) tok/s, ([\d.]+) % (faster|slower), "
                     r"(outside the noise|within the noise)")


def open_lab(term: Terminal, host) -> None:
    env = {**operator_env(host.lab), "TERM": "xterm-256color", "COLUMNS": "160", "LINES": "48"}
    keep = ("HOME", "TERM", "COLUMNS", "LINES", "PATH", "PYTHONPATH", "LC_ALL", "LANG")
    assignments = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items() if k in keep or k.startswith("XDG_"))
    term.start(f"cd {shlex.quote(str(ROOT))} && env -i {assignments} {shlex.quote(sys.executable)} -m mtptui.cli.main "
               f"lab --config {shlex.quote(str(host.path))}; echo EXITED $?; sleep 60")


def steady(screen: str) -> tuple[float, float]:
    """(steady mean tok/s, last accept len) as the dashboard shows them."""
    mean = re.search(r"steady mean ([\d.]+)", screen)
    accept = re.search(r"accept len\s+([\d.]+) now", screen)
    assert mean and accept, screen
    return float(mean[1]), float(accept[1])


def back(term: Terminal) -> None:
    term.keys("Escape")
    term.wait_for("the dashboard", lambda s: "mtptui  lab" in s and "b Bench" in s, 10)


def see_the_bad_redeploy(term: Terminal, host) -> None:
    users = host.lab.start_users()
    try:
        screen = term.wait_for("the bad redeploy decoding", lambda s: "● ready" in s and "steady mean" in s
                               and "accept len" in s and " now" in s, 90)
        mean, accept = steady(screen)
        assert 28 < mean < 42 and 1.4 < accept < 2.1, screen  # the mission's ~35 tok/s and ~1.75
        assert "sglang-qwen.service (pid" in screen or "process pid" in screen
    finally:
        users.kill()
        users.wait()


def restore(term: Terminal) -> None:
    term.keys("R")
    term.wait_for("the restore's confirm dialog", lambda s: "with profile restored?" in s, 30)
    term.keys("y")
    term.wait_for("the restored server ready", lambda s: "is ready with profile restored" in s, 120)


def test_the_story_over_ssh_with_systemd(lab_systemd, lab_terminal) -> None:
    term = lab_terminal
    open_lab(term, lab_systemd)
    term.wait_for("the dashboard over SSH", lambda s: "mtptui  lab · gpu-lab" in s and "● connected" in s, 60)
    see_the_bad_redeploy(term, lab_systemd)

    term.keys("b")
    term.wait_for("the bench screen", lambda s: "workload" in s and "ready to start" in s, 15)
    assert "http://127.0.0.1:30000 via SSH" in term.screen()
    term.keys("s")
    screen = term.wait_for("the bad state's bench",
                           lambda s: finished(s) and "the first run of this workload" in s
                           and PAINTED.search(s), BENCH_S)
    before = output_tok_s(screen)
    assert 28 < before < 42 and re.search(r"accept length\s+1\.[5-9]\d", screen), screen

    back(term)
    term.keys("d")
    screen = term.wait_for("the diff", every_mission_row, 30)
    for flag, (running, good) in MISSION_ROWS.items():  # here the unit runs the redeploy, the profile is good
        row = diff_row(flag, screen)
        assert row[0].startswith(running) and row[1].startswith(running) and row[2] == good, (flag, row)

    back(term)
    restore(term)
    term.keys("b")
    term.wait_for("the bench screen with the first run", lambda s: "workload" in s and "Go again" in s, 15)
    term.keys("g")
    screen = term.wait_for("the verdict", lambda s: VERDICT.search(" ".join(s.split())) and finished(s)
                           and PAINTED.search(s), BENCH_S)
    flat = " ".join(screen.split())
    verdict = VERDICT.search(flat)
    assert verdict and 45 < output_tok_s(screen) < 65 and verdict[4] == "faster", screen
    assert verdict[5] == "outside the noise" and float(verdict[3]) > 25, screen
    assert float(verdict[2]) == before and re.search(r"accept length\s+[23]\.\d\d", screen)

    log = lab_systemd.log_text()  # the dashboard's traffic arrived inside the lab
    assert log.count('"POST /v1/chat/completions HTTP/1.1" 200') >= 8
    assert '"GET /server_info HTTP/1.1" 200' in log and '"GET /metrics HTTP/1.1"' in log
    back(term)
    term.keys("q")
    assert "EXITED 0" in term.wait_for("the app's exit", lambda s: "EXITED" in s, 30)


def test_restore_and_rollback_over_ssh_with_the_process_manager(lab_process, lab_terminal) -> None:
    term = lab_terminal
    open_lab(term, lab_process)
    term.wait_for("the dashboard over SSH", lambda s: "mtptui  lab · gpu-lab" in s and "● ready" in s, 60)
    restore(term)
    term.wait_for("the new process in the header", lambda s: re.search(r"process pid \d+: running", s), 30)

    term.keys("r")
    term.wait_for("the profile picker", lambda s: "Restart with which profile?" in s, 15)
    term.keys("Enter")  # no-extra-buffer: the hybrid model crashes at start without extra_buffer
    term.wait_for("the confirm dialog", lambda s: "with profile no-extra-buffer?" in s, 30)
    term.keys("y")
    term.wait_for("the rollback", lambda s: "restart rolled back" in s and "x Dismiss" in s, 120)
    # The crash's toasts may cover the banner's end for a few seconds; they time out, the banner stays.
    term.wait_for("the previous launch ready again", lambda s: "ready again" in s and "x Dismiss" in s, 30)
    term.keys("x")
    term.wait_for("the banner gone", lambda s: "restart rolled back" not in s, 10)
    term.keys("q")
    assert "EXITED 0" in term.wait_for("the app's exit", lambda s: "EXITED" in s, 30)
