"""The health verdict on speculation as it runs: an engine's own downshift is not a misconfigured launch.

A server running one draft step is either the incident (a launch configured with one step where the known-good
profile runs more) or adaptive speculation shifting down on a workload whose drafts are seldom accepted. With
the configured and live sides (mtptui.speculation.LiveSpeculation) the verdict tells them apart:

- configured 1 step, not adaptive, known-good more: bad, "1 draft step configured (misconfigured launch)";
- adaptive, live below configured: ok, "adaptive downshift (acceptance low)"; the acceptance the downshift
  answers is then not judged against what the configured shape reached (it runs another shape), so the
  acceptance check gives way to this one.

``adjust`` is the hook ``mtptui.ops.health.judge`` calls with its checks.
"""

from __future__ import annotations

from typing import Callable

from mtptui.ops.drift import Drift
from mtptui.ops.health.verdict import BAD, OK, Check
from mtptui.speculation import LiveSpeculation

Adjust = Callable[[list[Check]], list[Check]]


def _good_steps(drift: Drift | None) -> str | None:
    """The known-good profile's steps where they differ from the running launch's."""
    item = next((item for item in (drift.items if drift else ()) if item.name == "steps"), None)
    return item.good if item is not None else None


def speculation_check(view: LiveSpeculation | None, drift: Drift | None, accept_now: float | None) -> Check | None:
    """The downshift or the misconfiguration; None when speculation runs as configured."""
    if view is None or view.configured is None:
        return None
    configured, live = view.configured_steps, view.live_steps
    if view.downshifted:
        accept = f", accept {accept_now:.2f}" if accept_now is not None else ""
        return Check("speculation", OK, f"adaptive downshift (acceptance low): steps {configured}→{live}{accept}",
                     f"adaptive {configured}→{live}")
    good = _good_steps(drift)
    if configured == 1 and not view.adaptive and good not in (None, "1"):
        return Check("speculation", BAD, f"1 draft step configured (misconfigured launch; known-good runs {good})",
                     "1 step configured!")
    return None


def adjust_for(view: LiveSpeculation | None, drift: Drift | None, accept_now: float | None) -> Adjust:
    """The hook: the speculation check after the others, in place of the acceptance check during a downshift."""
    check = speculation_check(view, drift, accept_now)

    def adjust(checks: list[Check]) -> list[Check]:
        if check is None:
            return checks
        return [c for c in checks if not (view is not None and view.downshifted and c.name == "accept")] + [check]

    return adjust
