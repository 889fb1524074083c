"""This host's own baselines, from its bench history: what it decoded per request, and what it accepted.

A run is this host's when the bench filed it under the host's name and it measured the host's model. Like is
compared with like: the live figure is the log's steady decode lines (gen throughput per running request,
``mtptui.engines.sglang.state.steady``), so a speed baseline is the same figure read from the server's log during bench
runs (their ``log_rates``); a run that did not read the log (``bench --url``, or one recorded before the bench
kept log rates) was measured another way and is no baseline. Only runs at the concurrency the server runs at now
are comparable. A baseline recorded on another SGLang version is *stale*: it is named, never used
(``Baseline.stale``). Three baselines are asked for:

- speed: the host's known-good profile as benched here (the runs whose launch matches it), else the best
  configuration this host has run (``mtptui.bench.compare.best_group``);
- acceptance: the runs whose speculative shape (steps, draft tokens, topk) is the one that runs now;
- no speculation: the best configuration without a speculative algorithm (does speculation pay for itself?).

``Baseline.source`` says where it comes from: ``bench, restored, c=1, 3 runs``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Sequence

from mtptui.bench.compare import best_group
from mtptui.bench.stats import mean

if TYPE_CHECKING:
    from mtptui.config import HostConfig

Run = dict[str, Any]
SPEC_KEYS = ("speculative_num_steps", "speculative_num_draft_tokens", "speculative_eagle_topk")


@dataclass(frozen=True)
class Baseline:
    """Samples of the chosen runs and each run's own figure (``run_means``: the run-to-run spread); ``stale``
    names the version they were measured on when it is not the running one (then they are not to be used)."""

    samples: tuple[float, ...]
    runs: int
    version: str | None
    recorded_at: str | None = None
    stale: str | None = None
    run_means: tuple[float, ...] = ()
    profile: str | None = None  # the host profile the runs' launch matches
    concurrency: int | None = None

    @property
    def mean(self) -> float:
        return mean(self.samples)

    @property
    def source(self) -> str:
        """``bench, restored, c=1, 3 runs``: the measurement, the launch, the load and how many runs."""
        load = f"c={self.concurrency}, " if self.concurrency is not None else ""
        runs = f"{self.runs} run{'s' if self.runs != 1 else ''}"
        return f"bench, {self.profile or 'a launch matching no profile'}, {load}{runs}"


def host_runs(runs: Sequence[Run], host: str) -> list[Run]:
    """The runs the bench filed under this host that measured its own model."""
    return [run for run in runs if (run.get("fingerprint") or {}).get("target") == host
            and not run.get("foreign_model")]


def speculative(run: Run) -> bool:
    return bool((run["fingerprint"].get("launch_flags") or {}).get("speculative_algorithm"))


def spec_shape(flags: dict[str, Any]) -> tuple[str, ...]:
    """(steps, draft tokens, topk) as text, comparable between /server_info and a resolved launch."""
    return tuple("" if flags.get(key) is None else str(flags[key]) for key in SPEC_KEYS)


def log_rates(run: Run) -> tuple[float, ...]:
    """The run's steady decode lines read from the server's log, per request (empty: measured another way)."""
    return tuple(float(rate) for rate in run.get("log_rates") or () if isinstance(rate, (int, float)))


def speed_samples(runs: Sequence[Run]) -> tuple[float, ...]:
    return tuple(rate for run in runs for rate in log_rates(run))


def accept_samples(runs: Sequence[Run]) -> tuple[float, ...]:
    """Per-request accept lengths, else (0.5.12.post1 sends none per request) each run's own figure."""
    per_request = tuple(float(r["accept_len"]) for run in runs for r in run.get("requests") or []
                        if r.get("ok") and isinstance(r.get("accept_len"), (int, float)))
    if per_request:
        return per_request
    return tuple(float(run["summary"]["accept_len"]) for run in runs
                 if isinstance((run.get("summary") or {}).get("accept_len"), (int, float)))


def _at_load(runs: Sequence[Run], concurrency: int | None) -> list[Run]:
    return [run for run in runs if concurrency is None or run["fingerprint"].get("concurrency") == concurrency]


def _profile_of(host: HostConfig | None, group: Sequence[Run]) -> str | None:
    from mtptui.ops.bench_baseline import matching_profile

    return matching_profile(host, group[-1].get("fingerprint") or {}) if group else None


def pick(runs: Sequence[Run], version: str | None, concurrency: int | None, keep: Callable[[Run], bool],
         samples: Callable[[Sequence[Run]], tuple[float, ...]], *, host: HostConfig | None = None,
         prefer: Callable[[Run], bool] | None = None) -> Baseline | None:
    """The best group of the kept runs at this load on this version (the ``prefer``red runs' when there are
    any); a stale one when only other versions have it."""
    candidates = [run for run in _at_load(runs, concurrency) if keep(run) and samples([run])]
    same = [run for run in candidates if run["fingerprint"].get("server_version") == version]
    other = [run for run in candidates if run["fingerprint"].get("server_version") != version]
    for pool, stale in ((same, False), (other, True)):
        preferred = [run for run in pool if prefer(run)] if prefer is not None else []
        group = best_group(preferred or pool)
        values = samples(group)
        if values:
            measured_on = group[-1]["fingerprint"].get("server_version")
            return Baseline(values, len(group), measured_on, group[-1].get("recorded_at"),
                            stale=str(measured_on) if stale else None,
                            run_means=tuple(mean(samples([run])) for run in group),
                            profile=_profile_of(host, group), concurrency=concurrency)
    return None


def speed_baseline(runs: Sequence[Run], version: str | None, concurrency: int | None,
                   host: HostConfig | None = None) -> Baseline | None:
    """The known-good profile's log rate at this load, else the best configuration's."""
    return pick(runs, version, concurrency, lambda run: True, speed_samples, host=host,
                prefer=_known_good(host))


def no_spec_baseline(runs: Sequence[Run], version: str | None, concurrency: int | None,
                     host: HostConfig | None = None) -> Baseline | None:
    return pick(runs, version, concurrency, lambda run: not speculative(run), speed_samples, host=host)


def accept_baseline(runs: Sequence[Run], version: str | None, shape: tuple[str, ...],
                    host: HostConfig | None = None) -> Baseline | None:
    """Acceptance this speculative shape reached before (any load: acceptance hardly depends on it)."""
    def same_shape(run: Run) -> bool:
        return speculative(run) and spec_shape(run["fingerprint"].get("launch_flags") or {}) == shape

    return pick(runs, version, None, same_shape, accept_samples, host=host)


def unmeasured(runs: Sequence[Run], concurrency: int | None) -> int:
    """Runs at this load that did not read the server's log (measured another way: no speed baseline)."""
    return sum(1 for run in _at_load(runs, concurrency) if not log_rates(run))


def _known_good(host: HostConfig | None) -> Callable[[Run], bool] | None:
    if host is None or host.known_good is None:
        return None
    from mtptui.ops.bench_baseline import matching_profile

    return lambda run: matching_profile(host, run.get("fingerprint") or {}) == host.known_good
