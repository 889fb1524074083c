"""From query results (series per (instance, job)) to a row's figures, version, sparkline and history."""

from __future__ import annotations

from mtptui.fleet.hosts import HostEntry
from mtptui.fleet.rows import Row
from mtptui.fleet.targets import Key, Target
from mtptui.fleet.version import infer_version, observed_families
from mtptui.sglang.surface import known_surface

VERIFY = "sglang:spec_verify_calls_total"
VERSION_LABELS = ("sglang_version", "version")
# figure name → (row field, scale, decimals)
_PLAIN = {"output_tok_s": ("output_tok_s", 1, 2), "running": ("running", 1, 0), "queued": ("queued", 1, 0),
          "kv_usage": ("kv_usage", 1, 5), "ttft_p50_s": ("ttft_p50_ms", 1000, 2),
          "ttft_p99_s": ("ttft_p99_ms", 1000, 2), "itl_p50_s": ("itl_p50_ms", 1000, 2),
          "itl_p99_s": ("itl_p99_ms", 1000, 2), "request_rate": ("request_rate", 1, 4),
          "error_rate": ("error_rate", 1, 4), "decode_tok_s": ("decode_tok_s", 1, 2)}


def by_key(result: list) -> dict[Key, object]:
    """``[(labels, value), ...]`` keyed by (instance, job)."""
    return {(labels.get("instance", ""), labels.get("job", "")): value for labels, value in result}


def _scaled(value: float | None, scale: float, decimals: int) -> float | None:
    return None if value is None else round(value * scale, decimals)


def row_figures(row: Row, key: Key, instant: dict[str, list]) -> None:
    """The live figures of an instance that is up (one that is down has none: its rates would be its past)."""
    for name, (attr, scale, decimals) in _PLAIN.items():
        setattr(row, attr, _scaled(by_key(instant[name]).get(key), scale, decimals))
    surface = known_surface(row.version)
    verify = by_key(instant["accept_len_verify"]).get(key)
    if surface.has_metric(VERIFY) if surface else verify is not None:
        row.accept_len, source = _scaled(verify, 1, 3), "spec_verify_calls_total"
    else:  # the gauge keeps its last value while idle: only a window with decoding has an accept length
        gauge = by_key(instant["accept_len_gauge"]).get(key) if row.decode_tok_s else None
        row.accept_len, source = _scaled(gauge, 1, 3), "spec_accept_length gauge"
    row.accept_len_source = source if row.accept_len is not None else None


def version_of(target: Target, families: list, host: HostEntry | None) -> tuple[str | None, str | None]:
    """(version, where it came from): a target label, else the families exported, else the host file."""
    for label in VERSION_LABELS:
        if target.labels.get(label):
            return target.labels[label], "target label"
    mine = [labels for labels, _ in families if (labels.get("instance"), labels.get("job")) == target.key]
    inferred = infer_version(observed_families(mine))
    if inferred:
        return inferred, "metric families"
    if host is not None:
        return host[1].sglang_version, "host file"
    return None, None


def _points(result: list | None, key: Key) -> list[tuple[float, float | None]]:
    for labels, points in result or []:
        if (labels.get("instance", ""), labels.get("job", "")) == key:
            return points
    return []


def spark_values(result: list | None, key: Key, end: float, step: float, count: int) -> list[float | None]:
    """``count`` values ending at ``end``, ``step`` apart; None where Prometheus has no value."""
    points = {round((end - t) / step): v for t, v in _points(result, key)}
    return [None if points.get(i) is None else round(points[i], 2) for i in range(count - 1, -1, -1)]


def history_values(result: list | None, key: Key) -> list[float]:
    """The instance's past values (samples without a value, such as idle windows, left out)."""
    return [v for _, v in _points(result, key) if v is not None]
