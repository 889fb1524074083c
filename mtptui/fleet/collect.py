"""One refresh of the fleet: the targets, one PromQL query per figure for all instances, sparklines and
history from range queries, then a row per SGLang instance (``collect``)."""

from __future__ import annotations

import asyncio
import time
from typing import Any, Coroutine

from mtptui.fleet.durations import promql_duration, short_duration
from mtptui.fleet.health import MIN_EFFECT, judge
from mtptui.fleet.hosts import HostEntry
from mtptui.engines.names import NAMES as ENGINES
from mtptui.fleet.promql import FAMILIES_LOOKBACK, anchors, families_query, figure_queries, history_queries, \
    recorded_queries
from mtptui.fleet.prom import PromError, Prometheus
from mtptui.fleet.rows import Row, Snapshot, default_order
from mtptui.fleet.series import Indexed, engine_of, row_figures, spark_values, version_of
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
    return {"spark": (figures["output_tok_s"], at - spark_span, at, w / 2)}


def _histories(settings: FleetSettings) -> dict[str, str]:
    """Each instance's own past of the figures the health rules compare (see ``history_queries``)."""
    w, figures = settings.window_s, _figures(settings)
    if settings.history_s <= w:
        return {}
    step = max(w, settings.history_s / HISTORY_POINTS)
    # the accept length from verify calls where the instance counts them, else its gauge (as the row reads it)
    accept = f"({figures['accept_len_verify']}) or ({figures['accept_len_gauge']})"
    pasts = {"decode_history": figures["decode_tok_s"], "accept_history": accept}
    below = 1 - MIN_EFFECT
    return {query: expr for name, figure in pasts.items()
            for query, expr in history_queries(name, figure, settings.history_s - w, step, w, below).items()}


def _instants(settings: FleetSettings) -> dict[str, str]:
    m = settings.matchers
    anchor = anchors(m)
    # instances that exported an engine's families within the history but not lately (the families query has those)
    seen = f"group by (instance, job) (last_over_time({anchor}[{promql_duration(settings.history_s)}])) unless " \
           f"on (instance, job) (last_over_time({anchor}[{FAMILIES_LOOKBACK}]))"
    return {**_figures(settings), **_histories(settings), "families": families_query(queried_families(), m),
            "seen": seen}


async def fetch(prom: Prometheus, settings: FleetSettings,
                at: float) -> tuple[list[dict[str, Any]], dict[str, Any], dict[str, Any]]:
    """(raw targets, instant results by name, range results by name), all asked at once."""
    instants, ranges = _instants(settings), _ranges(settings, at)
    calls: list[Coroutine[Any, Any, Any]] = [prom.targets(), *(_instant(prom, n, e, at) for n, e in instants.items()),
             *(prom.query_range(*r, f"the {n} query") for n, r in ranges.items())]
    results = await all_within(calls, prom.timeout, f"Prometheus at {prom.url} did not give the fleet within "
                                                   f"{prom.timeout:g} s")
    instant = dict(zip(instants, results[1:1 + len(instants)]))
    return results[0], instant, dict(zip(ranges, results[1 + len(instants):]))


def _instant(prom: Prometheus, name: str, expr: str, at: float) -> Coroutine[Any, Any, Any]:
    """The families query keeps every series' labels; the figures are keyed by (instance, job) as they come."""
    query = prom.query if name == "families" else prom.query_by_key
    return query(expr, at, f"the {name} query")


async def all_within(calls: list[Coroutine[Any, Any, Any]], deadline_s: float, late: str) -> list[Any]:
    """Every call's result, in order, within one deadline for all of them (an answer that trickles in byte by
    byte never ends a refresh otherwise); the first failure cancels the rest."""
    tasks = [asyncio.ensure_future(call) for call in calls]
    done, pending = await asyncio.wait(tasks, timeout=deadline_s, return_when=asyncio.FIRST_EXCEPTION)
    for task in pending:
        task.cancel()
    await asyncio.gather(*pending, return_exceptions=True)
    failures = [error for task in tasks if task in done and (error := task.exception())]  # each one retrieved
    if failures:
        raise failures[0]
    if pending:
        raise PromError(late)
    return [task.result() for task in tasks]


def window_notes(targets: list[Target], window_s: float) -> list[str]:
    """What the operator should know about the window: a rate needs a few scrapes inside it."""
    slowest = max((t.interval_s for t in targets if t.interval_s), default=None)
    if slowest is None or window_s >= 4 * slowest:
        return []
    return [f"the window {short_duration(window_s)} holds fewer than 4 scrapes of every {short_duration(slowest)}: "
            f"rates may be missing or jumpy (use --window {short_duration(4 * slowest)} or more)"]


def _included(target: Target, found: Indexed) -> bool:
    """An instance of an engine mtptui knows: it exported the engine's families within the history, or its job
    names the engine."""
    return target.key in found.figures["seen"] or target.key in found.families or \
        any(name in target.job.lower() for name in ENGINES)


async def collect(prom: Prometheus, settings: FleetSettings, hosts: dict[str, HostEntry],
                  at: float | None = None) -> Snapshot:
    """The fleet at ``at`` (now by default), one row per SGLang instance among the matching targets."""
    at = time.time() if at is None else at
    raw, instant, ranges = await fetch(prom, settings, at)
    targets = select_targets(raw, settings.matchers)
    found = Indexed.of(instant, ranges)
    chosen = [t for t in targets.values() if _included(t, found)]
    history = short_duration(settings.history_s)
    rows = [build_row(t, found, settings, hosts, at, history) for t in chosen]
    return Snapshot(prom.url, at, settings.window_s, settings.history_s,
                    ",".join(m.promql() for m in settings.matchers), settings.window_s / 2, default_order(rows),
                    window_notes(chosen, settings.window_s))


def build_row(target: Target, found: Indexed, settings: FleetSettings, hosts: dict[str, HostEntry],
              at: float, history: str) -> Row:
    key: Key = target.key
    host = hosts.get(target.instance)
    row = Row(target.instance, target.job, target.up, last_error=target.last_error,
              scrape_age_s=None if target.last_scrape is None else round(max(0.0, at - target.last_scrape), 2),
              host=host[1].name if host else None, host_file=host[0] if host else None)
    row.engine = engine_of(target, found.families, host)
    row.version, row.version_source = version_of(target, found.families, host)
    if target.up:
        row_figures(row, key, found.figures)
    row.spark = spark_values(found.points("spark", key), at, settings.window_s / 2, SPARK_POINTS)
    health = judge(target.up, target.last_error, (row.accept_len, found.history("accept_history", key)),
                   (row.decode_tok_s, found.history("decode_history", key)),
                   history)
    row.health, row.health_reasons = health.state, health.reasons
    return row
