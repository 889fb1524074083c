"""The tune screen (`T`): snapshots of a tune running and finished, and its keys (refused under --readonly, no
host to tune, saving the best arm, quitting while a tune runs).

The snapshots show a recorded tune: ``tests/ui_fixtures/tune-lab.json`` is the JSON result of
benchmarks/tune_lab.py (`mtptui tune` on the lab host in the bad redeploy, systemd, default grid). The arms are
rebuilt from the demo host's known-good profile as the tune builds them, and given the recorded measurements;
the running snapshot is the same tune cut in its third arm. The tune itself, over SSH, is tests/test_lab_tune.py.
"""

from __future__ import annotations

import json
import tomllib

import pytest

from mtptui.ops.tune.arms import SPEC_FLAGS, Measured, make_arms, resolved_values
from mtptui.ops.tune.grid import parse_grid
from mtptui.ops.tune.plan import Original, TunePlan, Workload
from mtptui.ops.tune.state import TuneEvent, TuneRun
from mtptui.ops.tune.verdict import Verdict
from mtptui.ui import messages
from tests.ui_fixtures.support import FIXTURES, SIZE, make_app, settle, wait_until

RECORDED = json.loads((FIXTURES / "tune-lab.json").read_text())
NOW = 1000.0


def recorded_run(cut_in_arm: int | None = None) -> TuneRun:
    """The recorded tune on the demo host; ``cut_in_arm``: as it was while that arm measured its second level."""
    from tests.ui_fixtures.support import demo_host

    host = demo_host()
    arms = make_arms(host.profile("restored"), "restored", parse_grid(None), host.sglang_version)
    workload = Workload(tuple(RECORDED["workload"]["concurrency"]), RECORDED["workload"]["requests"],
                        RECORDED["workload"]["max_tokens"])
    base = resolved_values(host.profile("restored"), SPEC_FLAGS, host.sglang_version)
    plan = TunePlan(host, "restored", arms, workload, "original",
                    Original("redeploy-1step", host.profile("redeploy-1step"), True, "running: pid 4242"), base)
    run = TuneRun(plan, clock=lambda: NOW)
    recorded = {a["name"]: a for a in RECORDED["arms"]}
    order = plan.runnable  # the base arm first, as the tune runs them
    start = NOW - sum(recorded[a.name]["duration_s"] for a in order[:cut_in_arm or 4]) - 30.0
    for index, arm in enumerate(order):
        data = recorded[arm.name]
        arm.started = start
        arm.results = [Measured(**{k: r[k] for k in ("concurrency", "output_tok_s", "request_tok_s", "accept_len",
                                                     "ttft_ms", "tpot_ms")}) for r in data["results"]]
        if index == cut_in_arm:
            arm.results, arm.status, arm.phase = arm.results[:1], "running", "c=4: 3/8 requests"
            run.current, run.phase = arm.name, arm.phase
            break
        arm.status, arm.canary, arm.ended = data["status"], data["canary"], start + data["duration_s"]
        start = arm.ended
    run.started, run.state = NOW - 600.0, "running"
    run.started_at = "2026-11-29T14:50:00+00:00"  # the arms table says whose results they are
    run.restart_s = [8.0]
    if cut_in_arm is None:
        best = next(a for a in arms if a.name == RECORDED["best"])
        run.verdict = Verdict(best, RECORDED["verdict"], RECORDED["notes"])
        run.state, run.kept, run.restore = "finished", "original", RECORDED["restore"]
    return run


async def open_tune(pilot, app) -> None:
    await settle(pilot, app)
    await pilot.press("T")
    await wait_until(pilot, lambda: type(app.screen).__name__ == "TuneScreen")


async def show(pilot, app, run: TuneRun) -> None:
    screen = app.screen
    screen.post_message(messages.TuneStarted(run, lambda: None))
    await pilot.pause()
    app.clear_notifications()
    await pilot.pause()


def test_the_recorded_tune_found_the_restored_settings() -> None:
    """What the snapshots show is what the tune found: steps 3 / draft 4 best, every canary passing."""
    assert RECORDED["best"] == "steps3-topk1-draft4" and RECORDED["kept"] == "original"
    assert [a["canary"] for a in RECORDED["arms"]] == ["pass"] * 4


def test_tune_running(snap_compare) -> None:
    app, _ = make_app()

    async def run_before(pilot) -> None:
        await open_tune(pilot, app)
        await show(pilot, app, recorded_run(cut_in_arm=2))

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_tune_finished_with_the_best_marked(snap_compare) -> None:
    app, _ = make_app()

    async def run_before(pilot) -> None:
        await open_tune(pilot, app)
        await show(pilot, app, recorded_run())

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_the_eta_counts_the_arms_left() -> None:
    from mtptui.ui.widgets.tune_status import status_text

    run = recorded_run(cut_in_arm=2)
    done = [a.ended - a.started for a in run.arms if a.status == "done"]
    assert len(done) == 2
    per_arm = sum(done) / 2
    running_for = NOW - next(a.started for a in run.arms if a.status == "running")
    eta = max(0.0, per_arm - running_for) + per_arm + 8.0
    assert run.eta_s() == pytest.approx(eta)
    minutes, seconds = divmod(int(round(eta)), 60)
    assert f"2 arm(s) left · ETA {minutes} min {seconds:02d} s" in status_text(run).plain


async def test_t_is_refused_under_readonly() -> None:
    app, _ = make_app(readonly=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        await pilot.press("T")
        await pilot.pause()
        assert type(app.screen).__name__ == "DashboardScreen"
        assert [n.message for n in app._notifications] == [
            "Refused: the tune screen (restarts with each arm of a grid) changes the host, and mtptui runs with "
            "--readonly."]


async def test_start_without_a_host_session_says_so_and_changes_nothing() -> None:
    app, _ = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await open_tune(pilot, app)
        await pilot.press("s")
        await pilot.pause()
        said = [n.message for n in app._notifications]  # beside what the replayed log says (server ready, ...)
        assert said.count("This dashboard has no connection to a host to tune.") == 1, said
        assert app.screen.run is None and not app.screen.running


@pytest.mark.parametrize("known_good", [False, True])
async def test_the_best_arm_is_saved_as_a_profile_or_as_known_good(tmp_path, monkeypatch, known_good) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    app, _ = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await open_tune(pilot, app)
        run = recorded_run()
        app.screen.post_message(messages.TuneEnded(run))
        await pilot.pause()
        await pilot.press("K" if known_good else "k")
        await pilot.pause()
    saved = tomllib.loads((tmp_path / "mtptui" / "hosts" / "demo.toml").read_text())
    best = run.verdict.best
    assert saved["profiles"]["steps3-topk1-draft4"]["flags"] == best.profile.flags
    assert saved["profiles"]["steps3-topk1-draft4"]["note"] == "best arm of a tune of restored"
    assert saved["known_good"] == ("steps3-topk1-draft4" if known_good else "restored")
    assert app.context.host.known_good == saved["known_good"]


async def test_quitting_while_a_tune_runs_asks_then_aborts_and_quits_once_it_ended() -> None:
    app, _ = make_app()
    aborted = []
    async with app.run_test(size=SIZE) as pilot:
        await open_tune(pilot, app)
        screen = app.screen
        run = recorded_run(cut_in_arm=2)
        screen.post_message(messages.TuneStarted(run, lambda: aborted.append(True)))
        await pilot.pause()
        await pilot.press("q")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "QuitScreen")
        await pilot.press("y")
        await pilot.pause()
        assert aborted == [True] and app.is_running  # still here: the original is being restored
        run.state, run.aborted, run.kept = "aborted", "aborted", "original"
        run.restore = "lab runs redeploy-1step again"
        screen.post_message(messages.TuneProgress(TuneEvent("finished", "tune aborted")))
        screen.post_message(messages.TuneEnded(run))
        await wait_until(pilot, lambda: not app.is_running)


async def test_a_asks_then_aborts_and_the_key_is_gone_once_the_tune_ended() -> None:
    app, _ = make_app()
    aborted = []
    async with app.run_test(size=SIZE) as pilot:
        await open_tune(pilot, app)
        screen = app.screen
        assert not screen.check_action("abort", ())  # nothing runs: nothing to abort
        run = recorded_run(cut_in_arm=2)
        screen.post_message(messages.TuneStarted(run, lambda: aborted.append(True)))
        await pilot.pause()
        await pilot.press("a")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "ConfirmScreen")
        await pilot.press("n")
        await pilot.pause()
        assert aborted == [] and app.screen is screen
        await pilot.press("a")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "ConfirmScreen")
        await pilot.press("y")
        await pilot.pause()
        assert aborted == [True] and app.is_running
        run.state, run.aborted, run.kept = "aborted", "aborted", "original"
        screen.post_message(messages.TuneEnded(run))
        await pilot.pause()
        assert not screen.check_action("abort", ()) and screen.check_action("start", ())


async def test_tune_finished_at_every_size(svg) -> None:
    """160x48, 100x30 and 80x24: every arm's row, the verdict and the Help key on screen; the plot from 30 rows."""
    from tests.test_ui_sizes import at_every_size, help_key, on_screen

    app, _ = make_app()

    async def run_before(pilot) -> None:
        await open_tune(pilot, app)
        await show(pilot, app, recorded_run())

    def essentials(app) -> None:
        screen = app.screen
        on_screen(screen.query_one("#tune-table"), rows=2 + 4 + 2)  # title, header, four arms, border
        on_screen(screen.query_one("#tune-status"), rows=4)
        if app.size.height >= 30:
            on_screen(screen.query_one("#tune-plot"), rows=10)

    await at_every_size(app, svg, run_before, essentials, help_key)


def proposed_run(reason: str | None = None) -> TuneRun:
    """A finished tune whose best steps differ by concurrency (3 at c=1, 1 at c=16), with its adaptive arm measured
    (or failed, for ``reason``: what the host said)."""
    from mtptui.ops.tune.adaptive import adaptive_arms
    from mtptui.ops.tune.verdict import judge
    from tests.test_tune import HOST, tune_run
    from tests.test_tune_adaptive import SHALLOW_AT_16, measured_grid

    run = tune_run(measured_grid(SHALLOW_AT_16), lambda: NOW)
    run.plan.host = HOST.model_copy(update={"profiles": dict(HOST.profiles)})
    run.plan.adaptive = True
    (arm,) = adaptive_arms(run.plan)
    if reason is None:
        arm.results = [Measured(1, 54.2, 54.2, 3.0, 120.0, 18.0), Measured(16, 515.0, 32.2, 1.7, 130.0, 31.0)]
        arm.status, arm.canary = "done", "pass"
    else:
        arm.status, arm.reason = "failed", reason
    run.verdict = judge(run.plan.arms, [1, 16], None)
    run.state, run.kept, run.restore = "finished", "original", "ct129 runs redeploy-1step again"
    return run


async def test_m_turns_the_adaptive_arm_on_for_the_next_tune_and_the_proposal_shows_under_the_verdict() -> None:
    from mtptui.ui.widgets.tune_status import TuneStatus

    app, _ = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await open_tune(pilot, app)
        screen = app.screen
        status = screen.query_one(TuneStatus)
        assert "m: adaptive arm off" in status.renderable.plain and not screen.adaptive
        await pilot.press("m")
        await pilot.pause()
        assert screen.plan_options["adaptive"] is True  # what plan_tune is given: `mtptui tune --adaptive`
        assert "m: adaptive arm on" in status.renderable.plain
        screen.post_message(messages.TuneEnded(proposed_run()))
        await pilot.pause()
        text = status.renderable.plain
        assert "adaptive: set --speculative-adaptive from steps 3, candidates 1,3,7 (best steps c=1: 3, c=16: 1)" \
            in text
        assert "measured as one more arm: c=1: 54.2 tok/s, c=16: 515.0 tok/s" in text
        assert status.has_class("-proposal") and " · adaptive arm" in str(screen.query_one("#tune-title").renderable)
        await pilot.press("m")  # not while a tune runs, but after one: off again for the next
        await pilot.pause()
        assert screen.plan_options["adaptive"] is False


async def test_a_failed_adaptive_arm_says_why_in_the_hosts_words_as_text() -> None:
    from mtptui.ui.widgets.tune_status import TuneStatus

    app, _ = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await open_tune(pilot, app)
        app.screen.post_message(messages.TuneEnded(proposed_run("crashed: [bold red]oom[/] \x1b[2J")))
        await pilot.pause()
        text = app.screen.query_one(TuneStatus).renderable.plain
        assert "  its arm: failed (crashed: [bold red]oom[/] " in text and "\x1b" not in text
