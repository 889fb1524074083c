"""The PromQL behind every figure of a fleet row: one query per figure for the whole fleet, per instance.

Counters (tokens, requests, aborts, verify calls, histogram buckets) come from SGLang's tokenizer and carry
no rank labels; scheduler gauges carry ``tp_rank``/``pp_rank``/``moe_ep_rank`` and are aggregated per
instance: ranks of one batch report the same running and queued counts (``max``; a ``dp_rank`` label, where
one exists, is summed over), the fullest rank's KV usage is the instance's, the accept-length gauge is
averaged. Both prefixes are read (``sglang:`` and a re-export's ``sglang_``). vLLM's families stand beside them
(mtptui.engines.registry.FLEET: every engine's expression of a figure, joined by ``or``): its gauges carry an
``engine`` label per engine core, summed; its accept length is 1 + Δaccepted / Δdrafts.
"""

from __future__ import annotations

from mtptui.engines.registry import FLEET, FleetFamilies
from mtptui.fleet.durations import promql_duration, short_duration
from mtptui.fleet.matchers import Matcher, selector

BY = "by (instance, job)"
SGLANG = FLEET["sglang"]

Matchers = tuple[Matcher, ...]


def _rate(family: str, matchers: Matchers, window: str, suffix: str = "", engine: FleetFamilies = SGLANG,
          picks: str = "") -> str:
    return f"rate({selector(family, matchers, suffix, engine.prefix, picks)}[{window}])"


def _sum_rate(family: str, matchers: Matchers, window: str, suffix: str = "", engine: FleetFamilies = SGLANG,
              picks: str = "") -> str:
    return f"sum {BY} ({_rate(family, matchers, window, suffix, engine, picks)})"


def _quantile(q: float, family: str, matchers: Matchers, window: str, engine: FleetFamilies = SGLANG) -> str:
    buckets = f"sum by (instance, job, le) ({_rate(family, matchers, window, '_bucket', engine)})"
    return f"histogram_quantile({q}, {buckets})"


def _batch_gauge(family: str, matchers: Matchers, engine: FleetFamilies = SGLANG) -> str:
    """A scheduler gauge per instance: ranks of one batch say the same (max), data-parallel ones add up; an
    engine without rank labels sums its engines' gauges."""
    chosen = selector(family, matchers, prefix=engine.prefix)
    return f"sum {BY} (max by (instance, job, dp_rank) ({chosen}))" if engine.per_rank else f"sum {BY} ({chosen})"


def engine_figures(engine: FleetFamilies, matchers: Matchers, window_s: float) -> dict[str, str]:
    """Figure name → PromQL over one engine's families, one series per (instance, job) exporting them."""
    w = promql_duration(window_s)
    requests = _sum_rate(engine.finished, matchers, w, engine=engine)
    aborted = _sum_rate(engine.aborted[0], matchers, w, engine=engine, picks=engine.aborted[1])
    numerator, denominator, base = engine.accept
    ratio = f"{_sum_rate(numerator, matchers, w, engine=engine)} / {_sum_rate(denominator, matchers, w, engine=engine)}"
    figures = {
        "output_tok_s": _sum_rate(engine.generation, matchers, w, engine=engine),
        "accept_len_verify": f"{base:g} + {ratio}" if base else ratio,
        "running": _batch_gauge(engine.running, matchers, engine),
        "queued": _batch_gauge(engine.queued, matchers, engine),
        "kv_usage": f"max {BY} ({selector(engine.kv_usage, matchers, prefix=engine.prefix)})",
        "ttft_p50_s": _quantile(0.5, engine.ttft, matchers, w, engine),
        "ttft_p99_s": _quantile(0.99, engine.ttft, matchers, w, engine),
        "itl_p50_s": _quantile(0.5, engine.itl, matchers, w, engine),
        "itl_p99_s": _quantile(0.99, engine.itl, matchers, w, engine),
        "request_rate": requests,
        "error_rate": f"{aborted} or (0 * {requests})",
        "decode_tok_s": decode_speed(matchers, window_s, engine),
    }
    if engine.accept_gauge:
        gauge = selector(engine.accept_gauge, matchers, prefix=engine.prefix)
        figures["accept_len_gauge"] = f"avg {BY} (avg_over_time({gauge}[{w}]))"
    return figures


def figure_queries(matchers: Matchers, window_s: float) -> dict[str, str]:
    """Figure name → PromQL whose result has one series per (instance, job): every engine's own expression of
    the figure, joined by ``or`` (each instance exports one engine's families, so it gets that engine's)."""
    per_engine = [engine_figures(engine, matchers, window_s) for engine in FLEET.values()]
    names = list(dict.fromkeys(name for figures in per_engine for name in figures))
    return {name: " or ".join(f"({figures[name]})" for figures in per_engine if name in figures) for name in names}


def decode_speed(matchers: Matchers, window_s: float, engine: FleetFamilies = SGLANG) -> str:
    """Tokens per second of one request while it decodes (1 / mean inter-token latency): the load-independent
    speed the slowdown rule compares with the instance's own past."""
    w = promql_duration(window_s)
    return (f"{_sum_rate(engine.itl, matchers, w, '_count', engine)} / "
            f"{_sum_rate(engine.itl, matchers, w, '_sum', engine)}")


HISTORY_STATS = ("count", "avg", "stddev")


def history_queries(name: str, expr: str, span_s: float, step_s: float, offset_s: float,
                    below: float) -> dict[str, str]:
    """Count, mean and (population) standard deviation of ``expr`` sampled every ``step_s`` over ``span_s``
    ending ``offset_s`` ago, for the instances whose figure now is at most ``below`` times that mean (only they
    can be "below their history"): an instance's past as three figures, not a series of points (a range query
    of every point cost a refresh 1.8 million samples at 10,000 instances), and only where it can matter.
    Samples without a value (NaN of an idle window, infinities) are left out, as the health rules always did."""
    past = f"({expr} > -Inf < +Inf)[{promql_duration(span_s)}:{promql_duration(step_s)}] " \
           f"offset {promql_duration(offset_s)}"
    worse = f"({expr}) <= on (instance, job) ({below:g} * avg_over_time({past}))"
    return {f"{name}:{stat}": f"{stat}_over_time({past}) and on (instance, job) ({worse})" for stat in HISTORY_STATS}


FAMILIES_LOOKBACK = "5m"  # Prometheus's own lookback: an instance that just went down still has its families


def families_query(families: tuple[str, ...], matchers: Matchers) -> str:
    """Which of ``families`` (SGLang's, by their ``sglang:`` names) and of the other engines' anchors each
    instance exported lately, and whether they carry ``is_streaming``."""
    names = "|".join(sorted(f.removeprefix("sglang:") for f in families))
    wanted = [(SGLANG.prefix, names), *((e.prefix, e.anchor) for e in FLEET.values() if e is not SGLANG)]
    return " or ".join(f"group by (instance, job, __name__, is_streaming) "
                       f"(last_over_time({selector(f'({names})', matchers, prefix=prefix)}[{FAMILIES_LOOKBACK}]))"
                       for prefix, names in wanted)


def anchors(matchers: Matchers) -> str:
    """A selector of every engine's anchor family: the series any server of an engine mtptui knows exports."""
    names = "|".join(f"{e.prefix}{e.anchor}" for e in FLEET.values())
    return "{" + ",".join([f'__name__=~"{names}"', *(m.promql() for m in matchers)]) + "}"


def record_name(figure: str, window_s: float) -> str:
    """The series a recording rule writes for ``figure`` over ``window_s``: ``mtptui:output_tok_s:1m``."""
    return f"mtptui:{figure}:{short_duration(window_s)}"


def recorded_queries(matchers: Matchers, window_s: float) -> dict[str, str]:
    """The figures read from recorded series (they keep ``instance`` and ``job``, so only those matchers apply:
    the others were part of the rules' own expressions)."""
    kept = [m.promql() for m in matchers if m.name in ("instance", "job")]
    return {name: f"{record_name(name, window_s)}{{{','.join(kept)}}}" for name in figure_queries(matchers, window_s)}


def _yaml_string(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def rules_yaml(matchers: Matchers, window_s: float) -> str:
    """A Prometheus rules file recording every figure of every instance, for ``--recorded``."""
    window = short_duration(window_s)
    match = ",".join(m.promql() for m in matchers) or "all targets"
    lines = [f"# mtptui fleet recording rules: window {window}, {match} (mtptui fleet --rules)",
             "# Prometheus evaluates them every evaluation_interval; mtptui fleet --recorded reads the results.",
             "groups:", f"  - name: mtptui-fleet-{window}", "    rules:"]
    for name, expr in figure_queries(matchers, window_s).items():
        lines += [f"      - record: {record_name(name, window_s)}", f"        expr: {_yaml_string(expr)}"]
    return "\n".join(lines) + "\n"
