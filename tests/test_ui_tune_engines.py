"""The tune screen on a tune across engines: the arms of both engines in one table, the engines as steps with
each switch made, the answer, the canary's scope and the ladder. The tune itself is tests/test_lab_tune_engines.py;
the run shown here is built as the tuner builds it (profile arms of the ct129 host with a vLLM server beside it)."""

from __future__ import annotations

import json
from io import StringIO

from rich.console import Console

from mtptui.config.loader import load_host_file
from mtptui.ops.tune.engines_verdict import judge_profiles
from mtptui.ops.tune.ladder import ladder_of
from mtptui.ops.tune.plan import Original, TunePlan, Workload
from mtptui.ops.tune.profile_arms import profile_arms
from mtptui.ops.tune.state import TuneRun
from tests.test_tune import measured
from tests.test_tune_engines import host_file, host_file_with_mtp1
from tests.test_ui_tune import open_tune, show
from tests.ui_fixtures.support import SIZE, make_app


def engines_run(tmp_path) -> TuneRun:
    host = load_host_file(host_file_with_mtp1(tmp_path))
    arms = profile_arms(host, ["restored", "vllm-mtp3", "vllm-mtp1"])
    original = Original("redeploy-1step", host.profile("redeploy-1step"), True, "running:pid 4242")
    run = TuneRun(TunePlan(host, "restored", arms, Workload((1, 16)), "original", original), clock=lambda: 0.0)
    for arm, (c1, c16) in zip(arms, [(50.0, 160.0), (60.0, 150.0), (40.0, 220.0)]):
        measured(arm, 1, c1, c1)
        measured(arm, 16, c16, c16 / 16)
        arm.status, arm.canary = "done", "pass"
    run.switches = ["switching to vLLM: stopping the SGLang server", "switching to SGLang: stopping the vLLM server"]
    run.verdict = judge_profiles(arms, [1, 16], original.name, original.engine)
    run.ladder = ladder_of(arms, [1, 16], run.verdict.best, host)
    run.state, run.kept, run.restore = "finished", "original", "ct129 runs redeploy-1step again"
    return run


def text_of(renderable) -> str:
    console = Console(width=200, record=True, file=StringIO())
    console.print(renderable)
    return console.export_text()


async def test_the_screen_shows_both_engines_arms_the_switches_as_steps_the_answer_and_the_ladder(tmp_path) -> None:
    from mtptui.ui.widgets.tune_status import TuneStatus
    from mtptui.ui.widgets.tune_table import TuneTable

    run = engines_run(tmp_path)
    app, _ = make_app(host=run.plan.host)
    async with app.run_test(size=SIZE) as pilot:
        await open_tune(pilot, app)
        await show(pilot, app, run)
        screen = app.screen
        status = screen.query_one(TuneStatus)
        table = text_of(screen.query_one(TuneTable).renderable)
        text = status.renderable.plain
        title = str(screen.query_one("#tune-title").renderable)
        assert status.has_class("-engines")
    for label in ("SGLang steps 3 / draft 4", "vLLM mtp 3", "vLLM mtp 1"):
        assert label in table, table
    assert "engines, one at a time: SGLang → vLLM → SGLang" in text
    assert "switch 1: switching to vLLM: stopping the SGLang server" in text
    assert "switch 2: switching to SGLang: stopping the vLLM server" in text
    assert "verdict: Switch to vLLM mtp 3: 60 tok/s at c=1, SGLang steps 3 / draft 4 is 17 % slower" in text
    assert "outputs of SGLang and vLLM are not comparable" in text
    assert "ladder: the best steps change with load (c=1: 3, c=16: 1): one vLLM launch can serve them all with " \
           "num_speculative_tokens_per_batch_size [[1, 15, 3], [16, 1024, 1]]" in text
    assert "arms restored, vllm-mtp3, vllm-mtp1" in title
    ladder = run.to_json()["ladder"]
    assert ladder["engine"] == "vllm" and ladder["from_arm"] == "vllm-mtp3"
    assert json.loads(ladder["flags"]["speculative-config"])["num_speculative_tokens"] == 3


async def test_e_turns_the_next_tune_into_one_across_engines_and_back(tmp_path) -> None:
    from mtptui.ui.widgets.tune_status import TuneStatus

    host = load_host_file(host_file(tmp_path))
    app, _ = make_app(host=host)
    async with app.run_test(size=SIZE) as pilot:
        await open_tune(pilot, app)
        screen = app.screen
        await pilot.press("e")
        await pilot.pause()
        on = screen.query_one(TuneStatus).renderable.plain
        options = dict(screen.plan_options)
        await pilot.press("e")
        await pilot.pause()
        off = screen.query_one(TuneStatus).renderable.plain
    assert options["arms"] == "restored,vllm-mtp3,vllm-bad"
    assert "s: plan a tune across engines, arms restored,vllm-mtp3,vllm-bad · e: the grid instead" in on
    assert "s: plan a tune from the known-good profile" in off and "arms" not in screen.plan_options


async def test_the_adaptive_arm_is_for_the_grid_not_for_a_tune_across_engines(tmp_path) -> None:
    """`m` then `e`: the adaptive arm is dropped, saying so; `m` while across engines says why and changes nothing."""
    app, _ = make_app(host=load_host_file(host_file(tmp_path)))
    async with app.run_test(size=SIZE) as pilot:
        await open_tune(pilot, app)
        screen = app.screen
        await pilot.press("m")
        await pilot.pause()
        assert screen.plan_options.get("adaptive") is True
        await pilot.press("e")
        await pilot.pause()
        assert "adaptive" not in screen.plan_options and screen.plan_options["arms"]
        await pilot.press("m")
        await pilot.pause()
        said = [n.message for n in app._notifications]
        assert "adaptive" not in screen.plan_options
    assert any(message.endswith("(without the adaptive arm: its answer is the winning engine's ladder).")
               for message in said), said
    assert any(message.startswith("A tune across engines proposes the winning engine's ladder") for message in said)


async def test_e_on_a_host_of_one_engine_says_why_and_changes_nothing() -> None:
    app, _ = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await open_tune(pilot, app)
        await pilot.press("e")
        await pilot.pause()
        said = [n.message for n in app._notifications]
        assert "arms" not in app.screen.plan_options
    assert any("names no other engine's server" in message for message in said), said
