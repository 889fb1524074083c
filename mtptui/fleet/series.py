"""From query results (series per (instance, job)) to a row's figures, version, sparkline and history.

Each result is indexed by (instance, job) once per refresh (``Indexed``), so a row looks its figures up instead
of scanning every result: a refresh costs the same per instance at 3 or 10,000 instances.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mtptui.engines.names import NAMES as ENGINES
from mtptui.engines.registry import dashboard, family_engine, fleet_families
from mtptui.fleet.health import History
from mtptui.fleet.hosts import HostEntry
from mtptui.fleet.rows import Row
from mtptui.fleet.targets import Key, Target
from mtptui.fleet.version import infer_version, observed_families
from mtptui.engines.sglang.surface import known_surface

VERIFY = "sglang:spec_verify_calls_total"
VERSION_LABELS = ("sglang_version", "version")
# figure name → (row field, scale, decimals)
_PLAIN = {"output_tok_s": ("output_tok_s", 1, 2), "running": ("running", 1, 0), "queued": ("queued", 1, 0),
          "kv_usage": ("kv_usage", 1, 5), "ttft_p50_s": ("ttft_p50_ms", 1000, 2),
          "ttft_p99_s": ("ttft_p99_ms", 1000, 2), "itl_p50_s": ("itl_p50_ms", 1000, 2),
          "itl_p99_s": ("itl_p99_ms", 1000, 2), "request_rate": ("request_rate", 1, 4),
          "error_rate": ("error_rate", 1, 4), "decode_tok_s": ("decode_tok_s", 1, 2)}


Points = list[tuple[float, float | None]]
NO_HISTORY = History()


def by_key(result: list[tuple[dict[str, str], Any]]) -> dict[Key, Any]:
    """``[(labels, value), ...]`` keyed by (instance, job)."""
    return {(labels.get("instance", ""), labels.get("job", "")): value for labels, value in result}


def families_by_key(result: list[tuple[dict[str, str], Any]]) -> dict[Key, list[dict[str, str]]]:
    """The families query's series (their labels) grouped by (instance, job)."""
    grouped: dict[Key, list[dict[str, str]]] = {}
    for labels, _ in result:
        grouped.setdefault((labels.get("instance", ""), labels.get("job", "")), []).append(labels)
    return grouped


@dataclass(frozen=True)
class Indexed:
    """One refresh's results keyed by (instance, job): instant figures, families, range points."""

    figures: dict[str, dict[Key, Any]]
    families: dict[Key, list[dict[str, str]]]
    ranges: dict[str, dict[Key, Points]]

    @classmethod
    def of(cls, instant: dict[str, Any], ranges: dict[str, list[tuple[dict[str, str], Points]]]) -> "Indexed":
        """From the instant results (figures already keyed, families as series) and the range results."""
        return cls({name: result for name, result in instant.items() if name != "families"},
                   families_by_key(instant.get("families", [])),
                   {name: by_key(result) for name, result in ranges.items()})

    def points(self, name: str, key: Key) -> Points:
        return self.ranges.get(name, {}).get(key, [])

    def history(self, name: str, key: Key) -> History:
        """The instance's past of one figure, from the count, mean and deviation queries (none: no history)."""
        count = self.figures.get(f"{name}:count", {}).get(key)
        if not count:  # most instances: not below their past, so not asked
            return NO_HISTORY
        centre = self.figures.get(f"{name}:avg", {}).get(key)
        deviation = self.figures.get(f"{name}:stddev", {}).get(key)
        if centre is None or deviation is None:
            return NO_HISTORY
        n = int(count)
        return History(n, centre, deviation ** 2 * n / (n - 1) if n > 1 else 0.0)


def _scaled(value: float | None, scale: float, decimals: int) -> float | None:
    return None if value is None else round(value * scale, decimals)


def row_figures(row: Row, key: Key, figures: dict[str, dict[Key, Any]]) -> None:
    """The live figures of an instance that is up (one that is down has none: its rates would be its past)."""
    for name, (attr, scale, decimals) in _PLAIN.items():
        setattr(row, attr, _scaled(figures[name].get(key), scale, decimals))
    surface = known_surface(row.version)
    verify = figures["accept_len_verify"].get(key)
    if surface.has_metric(VERIFY) if surface else verify is not None:
        row.accept_len, source = _scaled(verify, 1, 3), fleet_families(row.engine).accept_source
    else:  # the gauge keeps its last value while idle: only a window with decoding has an accept length
        gauge = figures["accept_len_gauge"].get(key) if row.decode_tok_s else None
        row.accept_len, source = _scaled(gauge, 1, 3), "spec_accept_length gauge"
    row.accept_len_source = source if row.accept_len is not None else None


def _family_engines(series: list[dict[str, str]]) -> list[str | None]:
    return [family_engine(labels["__name__"]) if isinstance(labels.get("__name__"), str) else None
            for labels in series]


def engine_of(target: Target, families: dict[Key, list[dict[str, str]]], host: HostEntry | None) -> str | None:
    """The engine an instance runs: the one whose families it exports, else its host file's, else the one its
    job names; None when nothing says."""
    exported = [name for name in _family_engines(families.get(target.key, [])) if name is not None]
    if exported:
        return exported[0]
    if host is not None:
        return host[1].engine
    return next((name for name in ENGINES if name in target.job.lower()), None)


def version_of(target: Target, families: dict[Key, list[dict[str, str]]],
               host: HostEntry | None) -> tuple[str | None, str | None]:
    """(version, where it came from): a target label, else the SGLang families exported (vLLM's say no release),
    else the host file where it names one."""
    for label in VERSION_LABELS:
        if target.labels.get(label):
            return target.labels[label], "target label"
    inferred = infer_version(observed_families(families.get(target.key, [])))
    if inferred:
        return inferred, "metric families"
    said = dashboard(host[1].engine).host_version(host[1]) if host is not None else None
    return (said, "host file") if said else (None, None)


def spark_values(points: Points, end: float, step: float, count: int) -> list[float | None]:
    """``count`` values ending at ``end``, ``step`` apart; None where Prometheus has no value."""
    spark: list[float | None] = [None] * count
    last = count - 1 + 0.5  # i = count - 1 - round((end - t) / step), without a call per point
    for t, v in points:
        position = last - (end - t) / step
        if 0 <= position < count and v is not None:
            spark[int(position)] = v  # rounded where it is written out (Row.to_json)
    return spark
