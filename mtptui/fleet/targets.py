"""Prometheus's scrape targets, as the fleet needs them: identity, up or down, when last scraped, why it failed."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from typing import Any

from mtptui.fleet.durations import parse_duration
from mtptui.fleet.matchers import Matcher
from mtptui.errors import UserError

Key = tuple[str, str]  # (instance, job)


@dataclass(frozen=True)
class Target:
    """One active target."""

    instance: str
    job: str
    up: bool | None  # None: not scraped yet
    last_scrape: float | None  # epoch seconds of the last attempt
    last_error: str
    interval_s: float | None
    scrape_url: str = ""
    labels: dict[str, str] = field(default_factory=dict)

    @property
    def key(self) -> Key:
        return self.instance, self.job


def _epoch(text: Any) -> float | None:
    """RFC 3339 with nanoseconds; Go's zero time (never scraped) is None."""
    if not isinstance(text, str) or text.startswith("0001-"):
        return None
    try:
        return datetime.fromisoformat(text).timestamp()
    except ValueError:
        return None


def _interval(text: Any) -> float | None:
    return _parsed_interval(str(text)) if text else None


@lru_cache(maxsize=64)  # a fleet's targets share a handful of intervals
def _parsed_interval(text: str) -> float | None:
    try:
        return parse_duration(text, "scrape interval")
    except UserError:
        return None


def parse_target(raw: dict[str, Any]) -> Target:
    labels = {str(k): str(v) for k, v in (raw.get("labels") or {}).items()}
    health = raw.get("health")
    return Target(labels.get("instance", ""), labels.get("job", str(raw.get("scrapePool", ""))),
                  True if health == "up" else False if health == "down" else None, _epoch(raw.get("lastScrape")),
                  str(raw.get("lastError") or ""), _interval(raw.get("scrapeInterval")),
                  str(raw.get("scrapeUrl") or ""), labels)


def select_targets(raw: list[dict[str, Any]], matchers: tuple[Matcher, ...]) -> dict[Key, Target]:
    """Targets whose labels pass every matcher, by (instance, job)."""
    targets = (parse_target(item) for item in raw)
    return {t.key: t for t in targets if all(m.matches(t.labels) for m in matchers)}
