"""The health verdict from what the dashboard holds: the host's configuration, its status, the log's serving
figures and the bench history (``assess``); the pieces are in ``drift``, ``baseline`` and ``health``."""

from __future__ import annotations

from statistics import median
from typing import Any, Callable, Generic, Sequence, TypeVar

from mtptui.config import HostConfig
from mtptui.ops.baseline import Baseline, accept_baseline, host_runs, no_spec_baseline, speed_baseline
from mtptui.ops.drift import Drift, known_good_drift
from mtptui.ops.feed import HostStatus
from mtptui.ops.health import Health, judge
from mtptui.sglang.flags import FlagSet, resolve_effective
from mtptui.sglang.state.serving import ServingStats

SPEC_FLAGS = ("--speculative-num-steps", "--speculative-num-draft-tokens", "--speculative-eagle-topk")


def running_shape(launch: FlagSet | None) -> tuple[str, ...] | None:
    """(steps, draft tokens, topk) as SGLang resolves them; None without speculative decoding."""
    if launch is None or launch.get("--speculative-algorithm") is None:
        return None
    effective = resolve_effective(launch)
    return tuple("" if effective.get(flag) is None or effective[flag].value is None else str(effective[flag].value)
                 for flag in SPEC_FLAGS)


def load_now(serving: ServingStats) -> int | None:
    """The usual number of running requests lately (the concurrency a baseline must have been measured at)."""
    busy = [count for count in serving.running if count]
    return round(median(busy)) if busy else None


T = TypeVar("T")
Baselines = tuple[Baseline | None, Baseline | None, Baseline | None]


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

    def forget(self) -> None:
        self.objects, self.values, self.last = (), (), None


_drift: _LastOf[Drift | None] = _LastOf()
_baselines: _LastOf[Baselines] = _LastOf()


def baselines(runs: Sequence[dict[str, Any]], host: HostConfig | None, version: str | None, load: int | None,
              shape: tuple[str, ...] | None) -> Baselines:
    """(speed, acceptance, no-speculation) baselines of the host's runs."""
    mine = host_runs(runs, host.name) if host else []
    return (speed_baseline(mine, version, load),
            accept_baseline(mine, version, shape) if shape else None,
            no_spec_baseline(mine, version, load) if shape else None)


def assess(host: HostConfig | None, status: HostStatus | None, serving: ServingStats,
           runs: Sequence[dict[str, Any]], down: str | None = None) -> Health:
    """Drift, speed, acceptance and the cost of speculation of what runs now on ``host`` (``down``: the server
    crashed or stopped)."""
    launch = status.launch if status else None
    version = (status.version if status else None) or (host.sglang_version if host else None)
    load = load_now(serving)
    shape = running_shape(launch)
    drift = _drift.get((host, launch), (), lambda: known_good_drift(host, launch))
    speed_base, accept_base, no_spec_base = _baselines.get(
        (runs, host), (len(runs), version, load, shape), lambda: baselines(runs, host, version, load, shape))
    return judge(drift, list(serving.speed), list(serving.accept), speed_base=speed_base, accept_base=accept_base,
                 no_spec_base=no_spec_base, speculative=launch is None or shape is not None, down=down)
