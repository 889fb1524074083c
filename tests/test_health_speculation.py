"""The health verdict's speculation checks: an adaptive downshift is not the incident's one-step launch, and a
slower step at the same acceptance is said ("same acceptance, slower steps") against this host's bench runs of
the same shape (tests/ui_fixtures/bench-restored.json: the known-good profile, 3 steps)."""

from __future__ import annotations

from mtptui.ops.drift import Drift, DriftItem
from mtptui.ops.health.verdict import BAD, OK, Check
from mtptui.ops.health.assess import assess
from mtptui.ops.health.speculation import adjust_for, speculation_check
from mtptui.speculation import LiveSpeculation, SpecShape
from tests.test_health import GOOD_RUN, history, restored_launch, serving_with
from tests.ui_fixtures.support import demo_host, demo_status

THREE, ONE = SpecShape("EAGLE", 3, 1, 4), SpecShape("EAGLE", 1, 1, 2)
INCIDENT = Drift("restored", (DriftItem("steps", "1", "3"), DriftItem("draft", "2", "4")))


def test_an_adaptive_downshift_is_ok_and_says_why() -> None:
    view = LiveSpeculation(THREE, ONE, (1, 3, 7), switches=1, source="log")
    check = speculation_check(view, Drift("adaptive", ()), 1.15)
    assert (check.state, check.text, check.short) == (OK, "adaptive downshift (acceptance low): steps 3→1, accept "
                                                          "1.15", "adaptive 3→1")


def test_one_step_configured_where_known_good_runs_more_is_the_misconfiguration() -> None:
    check = speculation_check(LiveSpeculation(ONE, ONE, None), INCIDENT, 1.75)
    assert (check.state, check.text) == (BAD, "1 draft step configured (misconfigured launch; known-good runs 3)")
    assert speculation_check(LiveSpeculation(ONE, ONE, None), Drift("one-step", ()), 1.75) is None  # known-good: 1
    assert speculation_check(LiveSpeculation(ONE, ONE, None), None, None) is None  # nothing to call it against
    assert speculation_check(LiveSpeculation(ONE, ONE, (1, 3, 7)), INCIDENT, 1.2) is None  # adaptive, at its start
    assert speculation_check(LiveSpeculation(THREE, THREE, (1, 3, 7)), None, 3.1) is None  # as configured


def test_during_a_downshift_the_acceptance_check_gives_way() -> None:
    accept = Check("accept", BAD, "acceptance collapse: accept 1.15", "accept 1.15!")
    speed = Check("speed", OK, "x", "x")
    adjust = adjust_for(LiveSpeculation(THREE, ONE, (1, 3, 7)), None, 1.15)
    assert [c.name for c in adjust([speed, accept])] == ["speed", "speculation"]
    assert adjust_for(None, None, None)([speed, accept]) == [speed, accept]


def test_slower_steps_at_the_same_acceptance_are_bad(tmp_path) -> None:
    runs = history(GOOD_RUN, path=tmp_path / "h.jsonl")
    accept = GOOD_RUN["summary"]["accept_len"]  # 3.13, steps of ~57 ms in the bench run
    usual = serving_with([55.2, 54.8, 55.6, 55.0, 54.9], [accept] * 5)
    slow = serving_with([48.4, 48.0, 48.9, 48.2, 48.1], [accept] * 5)  # 14 % longer steps, the same acceptance
    status = demo_status(launch=restored_launch())
    assert "step-cost" not in {c.name for c in assess(demo_host(), status, usual, runs).checks}
    health = assess(demo_host(), status, slow, runs)
    (step,) = [c for c in health.checks if c.name == "step-cost"]
    assert step.state == BAD and step.text.startswith("same acceptance, slower steps (+1")
    drafts_worse = serving_with([48.4, 48.0, 48.9, 48.2, 48.1], [2.7] * 5)  # fewer accepted: another story
    assert "step-cost" not in {c.name for c in assess(demo_host(), status, drafts_worse, runs).checks}
