"""The health verdict from what the dashboard holds: the host's configuration, its status, the log's serving
figures and the bench history (``HealthAssessor.assess``); the pieces are in ``drift``, ``baseline`` and
``health``.

The samples carry the log's own times, so a change turns the line red only once it has lasted
(``mtptui.ops.health.lasting``), however fast the log arrives. During a restart the line says which profile comes
and shows no figure; a host that does not answer is said instead of any figure.
"""

from __future__ import annotations

from statistics import median
from typing import Any, Callable, Generic, Sequence, TypeVar

from mtptui.config import HostConfig
from mtptui.engines.registry import dashboard, launches
from mtptui.ops.baseline import Baseline, accept_baseline, host_runs, no_spec_baseline, speed_baseline, unmeasured
from mtptui.ops.drift import Drift, known_good_drift
from mtptui.ops.feed.items import HostStatus
from mtptui.ops.server_up import ServerUp
from mtptui.ops.health.verdict import (LASTS_S, Adjust, Evidence, Health, judge_evidence, not_connected, restarting,
                                       server_down)
from mtptui.engines.sglang.state.serving import ServingStats
from mtptui.speculation import LiveSpeculation


def running_shape(launch: Any, host: HostConfig | None = None) -> tuple[str, ...] | None:
    """(steps, draft tokens, topk) as the host's engine resolves them; None without speculative decoding."""
    shape = launches(host.engine if host else None).shape
    return shape(launch) if shape is not None and launch is not None else None


def load_now(serving: ServingStats) -> int | None:
    """The usual number of running requests lately (the concurrency a baseline must have been measured at)."""
    busy = [count for count in serving.running if count]
    return round(median(busy)) if busy else None


T = TypeVar("T")
Baselines = tuple[Baseline | None, Baseline | None, Baseline | None, int]


class _LastOf(Generic[T]):
    """Remembers the last result of a computation by its key: the launch and the history change seldom, the
    live figures twice a second (the dashboard repaints), so the diff and the baselines are not redone each time."""

    def __init__(self) -> None:
        self.objects: tuple[object, ...] = ()  # held, so that no other object can take their identity
        self.values: tuple[object, ...] = ()
        self.last: tuple[T] | None = None  # the last result, once there is one

    def get(self, objects: tuple[object, ...], values: tuple[object, ...], compute: Callable[[], T]) -> T:
        """``compute()`` unless the ``objects`` are the very same and the ``values`` equal as last time."""
        same = len(objects) == len(self.objects) and all(a is b for a, b in zip(objects, self.objects))
        if self.last is None or not same or values != self.values:
            self.objects, self.values, self.last = objects, values, (compute(),)
        return self.last[0]


def baselines(runs: Sequence[dict[str, Any]], host: HostConfig | None, version: str | None, load: int | None,
              shape: tuple[str, ...] | None) -> Baselines:
    """(speed, acceptance, no-speculation) baselines of the host's runs, and the runs no speed baseline can use."""
    mine = host_runs(runs, host.name) if host else []
    return (speed_baseline(mine, version, load, host),
            accept_baseline(mine, version, shape, host) if shape else None,
            no_spec_baseline(mine, version, load, host) if shape else None,
            unmeasured(mine, load))


class HealthAssessor:
    """One dashboard's verdicts: the drift and the baselines, remembered while the launch and history stay."""

    def __init__(self) -> None:
        self._drift: _LastOf[Drift | None] = _LastOf()
        self._baselines: _LastOf[Baselines] = _LastOf()

    def assess(self, host: HostConfig | None, status: HostStatus | None, serving: ServingStats,
               runs: Sequence[dict[str, Any]], up: ServerUp | None = None, *, restarting_to: str | None = None,
               speculation: LiveSpeculation | None = None) -> Health:
        """Drift, speed, acceptance, the cost of speculation and the pools of what runs now on ``host``
        (``up``: whether the server is up, mtptui.ops.server_up: a host that does not answer or a server that
        crashed or stopped is said instead of any figure; ``restarting_to``: the profile a restart brings up;
        ``speculation``: configured vs live, with the checks of mtptui.ops.health.more)."""
        launch = status.launch if status else None
        files = status.launch_files if status else None  # the files the launches read, as the host feed read them
        drift = self._drift.get((host, launch, files), (), lambda: known_good_drift(host, launch, files))
        if up is not None and up.offline is not None:
            return not_connected(up.offline, host.name if host else "HOST")
        if restarting_to is not None:
            return restarting(restarting_to)
        if up is not None and up.down is not None:
            return server_down(drift, up.down)
        evidence = self.evidence(host, status, serving, runs, drift)
        return judge_evidence(evidence, adjust=more(evidence, serving, speculation, runs, host, status))

    def evidence(self, host: HostConfig | None, status: HostStatus | None, serving: ServingStats,
                 runs: Sequence[dict[str, Any]], drift: Drift | None) -> Evidence:
        launch = status.launch if status else None
        version = (status.version if status else None) or (host.sglang_version if host else None)
        load, shape = load_now(serving), running_shape(launch, host)
        speed_base, accept_base, no_spec_base, missing = self._baselines.get(
            (runs, host), (len(runs), version, load, shape), lambda: baselines(runs, host, version, load, shape))
        return Evidence(drift, list(serving.speed), list(serving.accept), speed_base, list(serving.speed_t),
                        list(serving.accept_t), accept_base, no_spec_base,
                        speculative=launch is None or shape is not None, unmeasured=missing, serving=serving,
                        launch=launch, engine=dashboard(host.engine if host else None).label,
                        lasts_s=host.health_lasts_s if host else LASTS_S)


def more(evidence: Evidence, serving: ServingStats, speculation: LiveSpeculation | None,
         runs: Sequence[dict[str, Any]], host: HostConfig | None, status: HostStatus | None) -> Adjust:
    """The checks of their own modules (speculation as it runs, the step cost: mtptui.ops.health.more), as one
    hook over the reasons' list."""
    from mtptui.ops.health.more import more_checks

    launch = evidence.launch
    version = (status.version if status else None) or (host.sglang_version if host else None)
    return more_checks(speculation, evidence.drift, serving, runs, host, version, load_now(serving),
                       running_shape(launch, host), launch)


def assess(host: HostConfig | None, status: HostStatus | None, serving: ServingStats,
           runs: Sequence[dict[str, Any]], up: ServerUp | None = None,
           speculation: LiveSpeculation | None = None) -> Health:
    """One verdict, nothing remembered: for a headless caller and tests (``speculation``: configured vs live,
    mtptui.ops.speculation_view)."""
    return HealthAssessor().assess(host, status, serving, runs, up, speculation=speculation)
