"""A fleet row and the snapshot of the whole fleet, with the JSON of ``mtptui fleet --once --json``.

A figure that cannot be had is None (JSON null), never 0: an instance that is down, a family its SGLang
version does not export, a rate without two samples in the window, a quantile of an empty histogram.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HEALTH_ORDER = {"down": 0, "warn": 1, "ok": 2}


@dataclass
class Row:
    """One instance of an engine (SGLang, vLLM) as Prometheus sees it."""

    instance: str
    job: str
    up: bool | None
    scrape_age_s: float | None = None
    last_error: str = ""
    version: str | None = None
    version_source: str | None = None
    engine: str | None = None  # the engine whose families it exports (mtptui.engines.registry.FLEET)
    output_tok_s: float | None = None
    accept_len: float | None = None
    accept_len_source: str | None = None
    running: float | None = None
    queued: float | None = None
    kv_usage: float | None = None
    ttft_p50_ms: float | None = None
    ttft_p99_ms: float | None = None
    itl_p50_ms: float | None = None
    itl_p99_ms: float | None = None
    request_rate: float | None = None
    error_rate: float | None = None
    decode_tok_s: float | None = None
    health: str = "ok"
    health_reasons: tuple[str, ...] = ()
    host: str | None = None
    host_file: Path | None = None
    spark: list[float | None] = field(default_factory=list)  # output tok/s over the sparkline span
    gateway_status: str | None = None  # the gateway's word for the worker (mtptui.fleet.gateway_source)
    gateway_load: int | None = None  # requests the gateway has in flight to it
    gateway_healthy: bool | None = None

    @property
    def key(self) -> tuple[str, str]:
        return self.instance, self.job

    def to_json(self) -> dict[str, Any]:
        data = {name: getattr(self, name) for name in self.__dataclass_fields__}
        data["health_reasons"] = list(self.health_reasons)
        data["host_file"] = str(self.host_file) if self.host_file else None
        data["spark_output_tok_s"] = [None if v is None else round(v, 2) for v in data.pop("spark")]
        return data


@dataclass
class Snapshot:
    """The fleet at one evaluation time."""

    prometheus: str | None  # None for a fleet read from a gateway alone
    time: float
    window_s: float
    history_s: float
    match: str
    spark_step_s: float
    rows: list[Row]
    notes: list[str] = field(default_factory=list)
    gateway: str | None = None  # the gateway the workers' status and load come from

    def to_json(self) -> dict[str, Any]:
        return {"prometheus": self.prometheus, "time": round(self.time, 3), "window_s": self.window_s,
                "history_s": self.history_s, "match": self.match, "spark_step_s": self.spark_step_s,
                "notes": self.notes, "gateway": self.gateway, "instances": [row.to_json() for row in self.rows]}


def default_order(rows: list[Row]) -> list[Row]:
    """Worst health first, then by instance."""
    return sorted(rows, key=lambda r: (HEALTH_ORDER.get(r.health, 3), r.instance, r.job))
