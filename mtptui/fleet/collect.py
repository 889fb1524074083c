"""One refresh of the fleet: the targets, one PromQL query per figure for all instances, sparklines and
history from range queries, then a row per SGLang instance (``collect``)."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from mtptui.fleet.durations import promql_duration, short_duration
from mtptui.fleet.health import judge
from mtptui.fleet.hosts import HostEntry
from mtptui.fleet.promql import families_query, figure_queries, recorded_queries
from mtptui.fleet.matchers import selector
from mtptui.fleet.prom import Prometheus
from mtptui.fleet.rows import Row, Snapshot, default_order
from mtptui.fleet.series import by_key, history_values, row_figures, spark_values, version_of
from mtptui.fleet.settings import FleetSettings
from mtptui.fleet.targets import Key, Target, select_targets
from mtptui.fleet.version import queried_families

SPARK_POINTS = 20
HISTORY_POINTS = 120


def _figures(settings: FleetSettings) -> dict[str, str]:
    """Figure → PromQL: the expressions themselves, or the series recording rules made of them."""
    queries = recorded_queries if settings.recorded else figure_queries
    return queries(settings.matchers, settings.window_s)


def _ranges(settings: FleetSettings, at: float) -> dict[str, tuple[str, float, float, float]]:
    """Range queries: name → (expr, start, end, step)."""
    w, figures = settings.window_s, _figures(settings)
    spark_span = w * SPARK_POINTS / 2
    ranges = {"spark": (figures["output_tok_s"], at - spark_span, at, w / 2)}
    if settings.history_s > w:
        step = max(w, settings.history_s / HISTORY_POINTS)
        end, start = at - w, at - settings.history_s
        ranges |= {"decode_history": (figures["decode_tok_s"], start, end, step),
                   "accept_verify_history": (figures["accept_len_verify"], start, end, step),
                   "accept_gauge_history": (figures["accept_len_gauge"], start, end, step)}
    return ranges


def _instants(settings: FleetSettings) -> dict[str, str]:
    m = settings.matchers
    seen = f"group by (instance, job) (last_over_time({selector('max_total_num_tokens', m)}" \
           f"[{promql_duration(settings.history_s)}]))"
    return {**_figures(settings), "families": families_query(queried_families(), m), "seen": seen}


async def fetch(prom: Prometheus, settings: FleetSettings, at: float) -> tuple[list[dict[str, Any]], dict, dict]:
    """(raw targets, instant results by name, range results by name), all asked at once."""
    instants, ranges = _instants(settings), _ranges(settings, at)
    calls = [prom.targets(), *(prom.query(e, at, f"the {n} query") for n, e in instants.items()),
             *(prom.query_range(*r, f"the {n} query") for n, r in ranges.items())]
    results = await asyncio.gather(*calls)
    instant = dict(zip(instants, results[1:1 + len(instants)]))
    return results[0], instant, dict(zip(ranges, results[1 + len(instants):]))


def window_notes(targets: list[Target], window_s: float) -> list[str]:
    """What the operator should know about the window: a rate needs a few scrapes inside it."""
    slowest = max((t.interval_s for t in targets if t.interval_s), default=None)
    if slowest is None or window_s >= 4 * slowest:
        return []
    return [f"the window {short_duration(window_s)} holds fewer than 4 scrapes of every {short_duration(slowest)}: "
            f"rates may be missing or jumpy (use --window {short_duration(4 * slowest)} or more)"]


def _included(target: Target, instant: dict[str, list]) -> bool:
    """An SGLang instance: it exported SGLang's families within the history, or its job says sglang."""
    return target.key in by_key(instant["seen"]) or "sglang" in target.job.lower()


async def collect(prom: Prometheus, settings: FleetSettings, hosts: dict[str, HostEntry],
                  at: float | None = None) -> Snapshot:
    """The fleet at ``at`` (now by default), one row per SGLang instance among the matching targets."""
    at = time.time() if at is None else at
    raw, instant, ranges = await fetch(prom, settings, at)
    targets = select_targets(raw, settings.matchers)
    chosen = [t for t in targets.values() if _included(t, instant)]
    rows = [build_row(t, instant, ranges, settings, hosts, at) for t in chosen]
    return Snapshot(prom.url, at, settings.window_s, settings.history_s,
                    ",".join(m.promql() for m in settings.matchers), settings.window_s / 2, default_order(rows),
                    window_notes(chosen, settings.window_s))


def build_row(target: Target, instant: dict[str, list], ranges: dict[str, list], settings: FleetSettings,
              hosts: dict[str, HostEntry], at: float) -> Row:
    key: Key = target.key
    host = hosts.get(target.instance)
    row = Row(target.instance, target.job, target.up, last_error=target.last_error,
              scrape_age_s=None if target.last_scrape is None else round(max(0.0, at - target.last_scrape), 2),
              host=host[1].name if host else None, host_file=host[0] if host else None)
    row.version, row.version_source = version_of(target, instant["families"], host)
    if target.up:
        row_figures(row, key, instant)
    row.spark = spark_values(ranges["spark"], key, at, settings.window_s / 2, SPARK_POINTS)
    verify = row.accept_len_source == "spec_verify_calls_total"
    accept_past = history_values(ranges.get("accept_verify_history" if verify else "accept_gauge_history"), key)
    health = judge(target.up, target.last_error, (row.accept_len, accept_past),
                   (row.decode_tok_s, history_values(ranges.get("decode_history"), key)),
                   short_duration(settings.history_s))
    row.health, row.health_reasons = health.state, health.reasons
    return row
