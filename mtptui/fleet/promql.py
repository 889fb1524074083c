"""The PromQL behind every figure of a fleet row: one query per figure for the whole fleet, per instance.

Counters (tokens, requests, aborts, verify calls, histogram buckets) come from SGLang's tokenizer and carry
no rank labels; scheduler gauges carry ``tp_rank``/``pp_rank``/``moe_ep_rank`` and are aggregated per
instance: ranks of one batch report the same running and queued counts (``max``; a ``dp_rank`` label, where
one exists, is summed over), the fullest rank's KV usage is the instance's, the accept-length gauge is
averaged. Both prefixes are read (``sglang:`` and a re-export's ``sglang_``).
"""

from __future__ import annotations

from mtptui.fleet.durations import promql_duration, short_duration
from mtptui.fleet.matchers import Matcher, selector

BY = "by (instance, job)"

Matchers = tuple[Matcher, ...]


def _rate(family: str, matchers: Matchers, window: str, suffix: str = "") -> str:
    return f"rate({selector(family, matchers, suffix)}[{window}])"


def _sum_rate(family: str, matchers: Matchers, window: str, suffix: str = "") -> str:
    return f"sum {BY} ({_rate(family, matchers, window, suffix)})"


def _quantile(q: float, family: str, matchers: Matchers, window: str) -> str:
    buckets = f"sum by (instance, job, le) ({_rate(family, matchers, window, '_bucket')})"
    return f"histogram_quantile({q}, {buckets})"


def _batch_gauge(family: str, matchers: Matchers) -> str:
    return f"sum {BY} (max by (instance, job, dp_rank) ({selector(family, matchers)}))"


def figure_queries(matchers: Matchers, window_s: float) -> dict[str, str]:
    """Figure name → PromQL whose result has one series per (instance, job)."""
    w = promql_duration(window_s)
    requests = _sum_rate("num_requests_total", matchers, w)
    return {
        "output_tok_s": _sum_rate("generation_tokens_total", matchers, w),
        "accept_len_verify": f"{_sum_rate('generation_tokens_total', matchers, w)} / "
                             f"{_sum_rate('spec_verify_calls_total', matchers, w)}",
        "accept_len_gauge": f"avg {BY} (avg_over_time({selector('spec_accept_length', matchers)}[{w}]))",
        "running": _batch_gauge("num_running_reqs", matchers),
        "queued": _batch_gauge("num_queue_reqs", matchers),
        "kv_usage": f"max {BY} ({selector('token_usage', matchers)})",
        "ttft_p50_s": _quantile(0.5, "time_to_first_token_seconds", matchers, w),
        "ttft_p99_s": _quantile(0.99, "time_to_first_token_seconds", matchers, w),
        "itl_p50_s": _quantile(0.5, "inter_token_latency_seconds", matchers, w),
        "itl_p99_s": _quantile(0.99, "inter_token_latency_seconds", matchers, w),
        "request_rate": requests,
        "error_rate": f"{_sum_rate('num_aborted_requests_total', matchers, w)} or (0 * {requests})",
        "decode_tok_s": decode_speed(matchers, window_s),
    }


def decode_speed(matchers: Matchers, window_s: float) -> str:
    """Tokens per second of one request while it decodes (1 / mean inter-token latency): the load-independent
    speed the slowdown rule compares with the instance's own past."""
    w = promql_duration(window_s)
    return (f"{_sum_rate('inter_token_latency_seconds', matchers, w, '_count')} / "
            f"{_sum_rate('inter_token_latency_seconds', matchers, w, '_sum')}")


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
    """Which of ``families`` each instance exported lately, and whether they carry ``is_streaming``."""
    names = "|".join(sorted(f.removeprefix("sglang:") for f in families))
    parts = [f'__name__=~"sglang[:_]({names})"', *(m.promql() for m in matchers)]
    return (f"group by (instance, job, __name__, is_streaming) "
            f"(last_over_time({{{','.join(parts)}}}[{FAMILIES_LOOKBACK}]))")


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
