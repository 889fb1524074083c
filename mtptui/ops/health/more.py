"""The health checks that live in modules of their own, handed to ``mtptui.ops.health.judge`` as one hook:
speculation as it runs (mtptui.ops.health.speculation) and the cost of a decode step (mtptui.ops.health.step_cost)."""

from __future__ import annotations

from typing import Any, Callable, Sequence

from mtptui.config import HostConfig
from mtptui.ops.baseline import Baseline, host_runs
from mtptui.ops.drift import Drift
from mtptui.ops.health.verdict import Check
from mtptui.ops.health.speculation import adjust_for
from mtptui.ops.health.step_cost import step_baselines, step_cost_check
from mtptui.engines.sglang.flags import FlagSet
from mtptui.engines.sglang.state.serving import ServingStats
from mtptui.speculation import LiveSpeculation

Bases = tuple[Baseline | None, Baseline | None]
# The last baselines, their key and the history they came from (held, so no other list can take its id): the
# history changes seldom, the live figures twice a second.
_last: list[tuple[tuple[object, ...], Bases, object]] = []


def more_checks(view: LiveSpeculation | None, drift: Drift | None, serving: ServingStats,
                runs: Sequence[dict[str, Any]], host: HostConfig | None, version: str | None, load: int | None,
                shape: tuple[str, ...] | None, launch: FlagSet | None) -> Callable[[list[Check]], list[Check]]:
    """The hook: the speculation check in its place, and the step-cost check at the end when it has one."""
    accept = list(serving.accept)
    speculation = adjust_for(view, drift, accept[-1] if accept else None)
    step = None
    if shape is not None and launch is not None and not (view is not None and view.downshifted):
        step = step_cost_check(list(serving.step_ms), accept, *_bases(runs, host, version, load, shape, launch))
    return lambda checks: speculation(checks) + ([step] if step else [])


def _bases(runs: Sequence[dict[str, Any]], host: HostConfig | None, version: str | None, load: int | None,
           shape: tuple[str, ...], launch: FlagSet) -> Bases:
    from mtptui.engines.sglang.spec_v2 import from_launch

    v2 = from_launch(version, launch.get("--speculative-algorithm"), launch.get("--speculative-eagle-topk"),
                     bool(launch.get("--disable-overlap-schedule")), launch.env)
    key = (id(runs), len(runs), host.name if host else None, version, load, shape, v2)
    if not _last or _last[0][0] != key:
        mine = host_runs(runs, host.name) if host else []
        _last[:] = [(key, step_baselines(mine, version, load, shape, v2), runs)]
    return _last[0][1]
