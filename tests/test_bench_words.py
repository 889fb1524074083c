"""The bench verdict in the operator's words: a sentence, the baseline named by profile and time, flags written
as --flag-name, and the statistics behind `i` on the bench screen."""

from __future__ import annotations

import json

from mtptui.bench.compare import Comparison, compare
from mtptui.bench.verdict_text import flag_name, percent, statistics_line, verdict_sentence
from mtptui.ops.bench_baseline import baseline_name, matching_profile
from mtptui.ops.bench_run import BenchOutcome
from mtptui.ui import messages
from mtptui.ui.bench_state import BenchSettings
from mtptui.ui.widgets.bench_compare import BenchCompare
from tests.ui_fixtures.support import FIXTURES, SIZE, demo_host, make_app, settle, wait_until

BAD, GOOD = (json.loads((FIXTURES / name).read_text()) for name in ("bench-redeploy.json", "bench-restored.json"))


def test_the_verdict_is_a_sentence() -> None:
    slower = Comparison("regression", 34.3, 53.9, change=34.3 / 53.9 - 1, p_value=0.0004, method="Welch",
                        now_runs=3, before_runs=3)
    assert verdict_sentence(slower) == "34.3 vs 53.9 tok/s, 36 % slower, outside the noise"
    same = Comparison("no-change", 50.2, 50.0, change=0.004, p_value=0.6, method="Welch")
    assert verdict_sentence(same) == "50.2 vs 50.0 tok/s, 0.4 % faster, within the noise"
    unsure = Comparison("inconclusive", 40.0, 50.0, change=-0.2, method="too few successful requests to test")
    assert verdict_sentence(unsure) == "40.0 vs 50.0 tok/s, 20 % slower, too few numbers to tell from noise"
    assert verdict_sentence(Comparison("no-baseline")).startswith("the first run of this workload here")
    assert statistics_line(slower).startswith("p = 0.0004 (Welch); 3 run(s) now vs 3")
    assert percent(-0.0995) == "10 %" and percent(0.0994) == "9.9 %"


def test_recorded_flags_are_written_as_flags() -> None:
    assert flag_name("speculative_num_steps") == "--speculative-num-steps"
    assert flag_name("version") == "SGLang version" and flag_name("--tp-size") == "--tp-size"


def test_the_baseline_is_named_by_the_profile_its_flags_match_and_its_time() -> None:
    host = demo_host()
    assert matching_profile(host, BAD["fingerprint"]) == "redeploy-1step"
    assert matching_profile(host, GOOD["fingerprint"]) == "restored"  # NEXTN is reported as EAGLE: still a match
    assert matching_profile(None, GOOD["fingerprint"]) is None
    stranger = {**GOOD["fingerprint"], "launch_flags": {**GOOD["fingerprint"]["launch_flags"], "tp_size": 8}}
    assert matching_profile(host, stranger) is None
    assert baseline_name(host, BAD) == f"profile redeploy-1step, run {BAD['id']} of {BAD['recorded_at'][:10]} " \
                                      f"{BAD['recorded_at'][11:16]} UTC"


async def test_i_shows_the_statistics_behind_the_verdict() -> None:
    app, _ = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        await pilot.press("b")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "BenchScreen")
        screen = app.screen
        screen.live.begin(BenchSettings())
        outcome = BenchOutcome(GOOD, compare([GOOD], [BAD]))
        screen.post_message(messages.BenchFinished(outcome))
        await wait_until(pilot, lambda: screen.live.outcome is not None)
        pane = screen.query_one(BenchCompare)
        shown = lambda: "\n".join(str(part) for part in pane.renderable.renderables)  # noqa: E731
        screen.paint()
        assert verdict_sentence(outcome.best) in shown() and "statistics:" not in shown()
        assert "--speculative-num-steps: 3 / 1" in shown() and "baseline: profile redeploy-1step" in shown()
        await pilot.press("i")
        assert f"statistics: {statistics_line(outcome.best)}" in shown()
        await pilot.press("i")
        assert "statistics:" not in shown()
