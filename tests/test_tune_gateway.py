"""The tune behind a gateway, offline: --drain-timeout and --no-gateway as `mtptui restart` has them, the refusal
for the last ready worker, and the plan's and report's words about the drain. The tune itself behind the real
gateway is in tests/test_lab_gateway_restart.py."""

from __future__ import annotations

import argparse

import pytest

from mtptui.cli.commands._restart_host import refuse_dropping_traffic
from mtptui.cli.main import build_parser
from mtptui.config import load_host_file
from mtptui.errors import UserError
from mtptui.ops.restart.drain import DRAIN_TIMEOUT_S, DrainOptions, DrainPlan
from mtptui.ops.tune.arms import make_arms
from mtptui.ops.tune.grid import parse_grid
from mtptui.ops.tune.plan import Original, TunePlan, Workload
from mtptui.ops.tune.report import render_run
from mtptui.ops.tune.state import TuneRun
from tests.conftest import CONFIGS

HOST = load_host_file(CONFIGS / "ct129.toml")
GATEWAY, WORKER, PEER = "http://127.0.0.1:30080", "http://127.0.0.1:30000", "http://127.0.0.1:30001"


def options(command: str) -> dict[str, argparse.Action]:
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return {a.dest: a for a in sub.choices[command]._actions}


def test_tune_takes_the_drain_options_of_restart_with_the_same_words_and_default() -> None:
    tune, restart = options("tune"), options("restart")
    for dest in ("drain_timeout", "no_gateway"):
        assert (tune[dest].option_strings, tune[dest].help, tune[dest].default) == (
            restart[dest].option_strings, restart[dest].help, restart[dest].default)
    assert f"(default {DRAIN_TIMEOUT_S:g})" in tune["drain_timeout"].help


def test_a_bad_drain_timeout_is_one_sentence_before_the_host_is_asked(capsys) -> None:
    from mtptui.cli.main import main

    assert main(["tune", "demo", "--yes", "--drain-timeout", "0"]) == 1
    assert capsys.readouterr().err.strip() == "mtptui: --drain-timeout must be a number of seconds above 0, not 0"


def drain(last: bool) -> DrainPlan:
    return DrainPlan(GATEWAY, WORKER, "w1", "m", [] if last else [PEER], 45.0, last=last)


def test_the_last_ready_worker_is_tuned_only_with_yes_in_the_restart_s_words() -> None:
    with pytest.raises(UserError) as refused:
        refuse_dropping_traffic(drain(last=True), "lab", "tune")
    assert str(refused.value) == (f"refusing to tune lab without --yes: {WORKER} is the last ready worker of its "
                                  f"model in the gateway at {GATEWAY}: the restart drops the traffic it serves "
                                  f"(no gateway steps)")
    refuse_dropping_traffic(drain(last=False), "lab", "tune")  # another worker takes the traffic: no refusal
    refuse_dropping_traffic(None, "lab", "tune")


def plan(gateway: DrainPlan | None, notes: list[str] | None = None) -> TunePlan:
    base = HOST.profile("restored")
    return TunePlan(HOST, "restored", make_arms(base, "restored", parse_grid(["steps=2,3"]), HOST.sglang_version),
                    Workload((1,), 1), "original", Original("restored", base, True, "the unit"),
                    drain=DrainOptions(timeout_s=45.0), gateway=gateway, gateway_notes=notes or [])


def test_the_plan_and_the_report_say_the_arms_are_drained_and_measured_with_the_gateway_s_traffic() -> None:
    tune = plan(drain(last=False))
    said = "\n".join(tune.describe())
    assert (f"gateway: every restart (each arm's, the final one) is drained through the gateway at {GATEWAY}: "
            f"{WORKER} is removed, waits until it holds no request (at most 45 s, --drain-timeout)") in said
    assert "the gateway's own traffic reaches it and mixes with the benchmark" in said
    run = TuneRun(tune)
    run.restarts = [{"profile": p, "arm": None, "ok": True, "steps": steps, "gateway": None}
                    for p, steps in (("a", ["gateway_remove", "draining"]), ("b", ["stopping"]))]
    assert f"gateway: 1 of 2 restart(s) drained through the gateway at {GATEWAY}" in render_run(run)
    assert run.to_json()["gateway"]["drained"] is True and run.to_json()["restarts"][1]["steps"] == ["stopping"]


def test_without_the_gateway_steps_the_plan_says_so_and_no_drain_is_claimed() -> None:
    note = f"the gateway steps are left out (--no-gateway): the gateway at {GATEWAY} keeps sending"
    said = "\n".join(plan(None, [note]).describe())
    assert f"gateway: {note}" in said and "drained through" not in said
    assert "drained through" not in render_run(TuneRun(plan(None, [note])))
    assert "mixes with the benchmark" not in "\n".join(plan(None).describe())
