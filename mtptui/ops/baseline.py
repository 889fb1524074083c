"""This host's own baselines, from its bench history: what it decoded per request, and what it accepted.

A run is this host's when the bench filed it under the host's name and it measured the host's model. Figures are
per request (the bench's ``decode_tok_s``; the log's gen throughput divided by ``#running-req``), and only runs at
the concurrency the server runs at now are comparable. A baseline recorded on another SGLang version is *stale*:
it is named, never used (``Baseline.stale``). Three baselines are asked for:

- speed: the best configuration this host has run (``mtptui.bench.compare.best_group``), as the bench picks its;
- acceptance: the runs whose speculative shape (steps, draft tokens, topk) is the one that runs now;
- no speculation: the best configuration without a speculative algorithm (does speculation pay for itself?).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

from mtptui.bench.compare import best_group
from mtptui.bench.stats import mean

Run = dict[str, Any]
SPEC_KEYS = ("speculative_num_steps", "speculative_num_draft_tokens", "speculative_eagle_topk")


@dataclass(frozen=True)
class Baseline:
    """Per-request samples of the chosen runs; ``stale`` names the version they were measured on when it is not
    the running one (then the samples are not to be used)."""

    samples: tuple[float, ...]
    runs: int
    version: str | None
    recorded_at: str | None = None
    stale: str | None = None

    @property
    def mean(self) -> float:
        return mean(self.samples)


def host_runs(runs: Sequence[Run], host: str) -> list[Run]:
    """The runs the bench filed under this host that measured its own model."""
    return [run for run in runs if (run.get("fingerprint") or {}).get("target") == host
            and not run.get("foreign_model")]


def speculative(run: Run) -> bool:
    return bool((run["fingerprint"].get("launch_flags") or {}).get("speculative_algorithm"))


def spec_shape(flags: dict[str, Any]) -> tuple[str, ...]:
    """(steps, draft tokens, topk) as text, comparable between /server_info and a resolved launch."""
    return tuple("" if flags.get(key) is None else str(flags[key]) for key in SPEC_KEYS)


def speed_samples(runs: Sequence[Run]) -> tuple[float, ...]:
    return tuple(float(r["decode_tok_s"]) for run in runs for r in run.get("requests") or []
                 if r.get("ok") and isinstance(r.get("decode_tok_s"), (int, float)))


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


def pick(runs: Sequence[Run], version: str | None, concurrency: int | None, keep: Callable[[Run], bool],
         samples: Callable[[Sequence[Run]], tuple[float, ...]]) -> Baseline | None:
    """The best group of the kept runs at this load on this version; a stale one when only other versions have it."""
    candidates = [run for run in _at_load(runs, concurrency) if keep(run)]
    same = [run for run in candidates if run["fingerprint"].get("server_version") == version]
    other = [run for run in candidates if run["fingerprint"].get("server_version") != version]
    for pool, stale in ((same, False), (other, True)):
        group = best_group(pool)
        values = samples(group)
        if values:
            measured_on = group[-1]["fingerprint"].get("server_version")
            return Baseline(values, len(group), measured_on, group[-1].get("recorded_at"),
                            stale=str(measured_on) if stale else None)
    return None


def speed_baseline(runs: Sequence[Run], version: str | None, concurrency: int | None) -> Baseline | None:
    return pick(runs, version, concurrency, lambda run: True, speed_samples)


def no_spec_baseline(runs: Sequence[Run], version: str | None, concurrency: int | None) -> Baseline | None:
    return pick(runs, version, concurrency, lambda run: not speculative(run), speed_samples)


def accept_baseline(runs: Sequence[Run], version: str | None, shape: tuple[str, ...]) -> Baseline | None:
    """Acceptance this speculative shape reached before (any load: acceptance hardly depends on it)."""
    def same_shape(run: Run) -> bool:
        return speculative(run) and spec_shape(run["fingerprint"].get("launch_flags") or {}) == shape

    return pick(runs, version, None, same_shape, accept_samples)
