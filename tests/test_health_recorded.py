"""The health line over recorded demo logs, line after line (issue 29, item 1): green on the known-good profile
through 11 minutes of steady load, red on the incident within its first minute.

The fixtures were recorded from the live demo by scripts/record_health_fixtures.py: each profile's server log from
its first line (three bench runs, then the demo's background load) and the three bench runs, filed here in the
history as the bench files them. The log is fed to the dashboard one decode line at a time and every step is
judged as painted, so time is the log's own: no wall-clock wait, no timed assertion.
"""

from __future__ import annotations

import json

from mtptui.bench.history import append_run
from mtptui.engines.sglang.flags import FlagSet
from mtptui.engines.sglang.logparse.timestamps import parse_ts
from tests.health_support import health_of
from tests.ui_fixtures.support import (FIXTURES, SIZE, ControlledFeed, demo_host, demo_status, make_app, wait_handled,
                                      wait_until)

MINUTE_S = 60.0


def launch_of(profile: str) -> FlagSet:
    host = demo_host()
    return FlagSet.from_profile(host.profile(profile), host.sglang_version)


def file_history() -> None:
    for name in ("redeploy", "restored"):
        for run in json.loads((FIXTURES / f"health-{name}-bench.json").read_text()):
            append_run(run)


def steps(name: str) -> list[list[str]]:
    """The recorded log cut after every decode line: what the dashboard has seen when it repaints."""
    chunks, chunk = [], []
    for line in (FIXTURES / f"health-{name}.log").read_text(encoding="utf-8").splitlines():
        chunk.append(line)
        if "Decode batch" in line:
            chunks.append(chunk)
            chunk = []
    return chunks


def log_time(line: str) -> float:
    return parse_ts(line[1:20])


async def judged_steps(name: str, profile: str) -> list[tuple[float, str, str, str]]:
    """(log time, verdict, speed check's state, line) after each decode line of the recording."""
    file_history()
    status = demo_status(launch=launch_of(profile), launch_source="running pid 4242")
    feed = ControlledFeed(status)
    app, _ = make_app(feed=feed)
    seen = []
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: len(app.screen.history_runs) == 6)
        for chunk in steps(name):
            feed.push(chunk)
            feed.send(status)  # the host's poll after each line: the pump posts the line now, not 0.1 s later
            await wait_handled(lambda: app.live.lines_seen >= len(feed.lines))
            app.screen.paint(everything=True)
            health = health_of(app)
            line = app.screen.query_one("#health").renderable.plain
            seen.append((log_time(chunk[-1]), health.state, health.checks[1].state, line))
    return seen


async def test_the_known_good_profile_stays_green_over_ten_minutes_of_steady_load() -> None:
    seen = await judged_steps("restored", "restored")
    judged = [step for step in seen if step[2] != "unknown"]
    assert judged, "the speed was never judged"
    assert judged[-1][0] - judged[0][0] >= 10 * MINUTE_S  # ten minutes of log time, every decode line judged
    assert not [step for step in seen if step[1] in ("bad", "warn")], "the line cried wolf"
    assert all(step[1] == "ok" for step in judged), [step for step in judged if step[1] != "ok"][:3]
    assert "vs 54 = bench, restored, c=1, 3 runs" in judged[-1][3]  # where the baseline comes from


async def test_the_incident_turns_red_within_its_first_minute_and_stays_red() -> None:
    seen = await judged_steps("redeploy", "redeploy-1step")
    first_decode = seen[0][0]
    assert seen[0][1] == "bad"  # the drift is there from the first line
    speed_red = [t for t, _, speed, _ in seen if speed == "bad"]
    assert speed_red and speed_red[0] - first_decode <= MINUTE_S, speed_red[:1]
    after = [step for step in seen if step[0] >= speed_red[0]]
    assert all(step[2] == "bad" for step in after)  # the slowdown lasts, so the verdict does
    assert "34 tok/s" in after[-1][3] or "35 tok/s" in after[-1][3]
