"""Which supported SGLang release an instance runs, from the metric families it exports (asked of the surface).

Releases differ in families (0.5.23 adds ``spec_verify_calls_total`` and startup gauges) and labels (0.5.23's
token counters carry ``is_streaming``). An instance runs the release whose description has every family and
label seen and the fewest distinguishing families not seen; nothing seen is no answer.
"""

from __future__ import annotations

from functools import cache

from mtptui.engines.sglang.surface import SUPPORTED, metric_name, surface_of

STREAMING = "is_streaming"
ANCHOR = "sglang:max_total_num_tokens"  # set at startup by every release: an instance that exports anything


@cache
def distinguishing() -> tuple[str, ...]:
    """Counter and gauge families not every release has, or whose labels differ between releases."""
    sets = [surface_of(v).metrics for v in SUPPORTED]
    union = set().union(*sets)
    common = set(sets[0]).intersection(*sets[1:])
    relabelled = {name for name in common if len({m[name].labels for m in sets}) > 1}
    kinds = {name: m[name].kind for m in sets for name in m}
    return tuple(sorted(n for n in (union - common) | relabelled if kinds[n] != "histogram"))


def queried_families() -> tuple[str, ...]:
    """What the families query asks for: the distinguishing families and the anchor."""
    return (*distinguishing(), ANCHOR)


def observed_families(series: list[dict[str, str]]) -> dict[str, bool]:
    """Family (``sglang:`` name) → whether it carries ``is_streaming``, from ``families_query`` results."""
    seen: dict[str, bool] = {}
    for labels in series:
        if not isinstance(labels.get("__name__"), str) or not labels["__name__"]:
            continue  # a Prometheus whose functions drop the name tells nothing here
        name = metric_name(labels["__name__"])
        if not name.startswith("sglang:"):
            continue  # another engine's family (the families query asks for each engine's anchor)
        seen[name] = seen.get(name, False) or bool(labels.get(STREAMING))
    return seen


def _fits(version: str, seen: dict[str, bool]) -> bool:
    metrics = surface_of(version).metrics
    return all(name in metrics and streams == (STREAMING in metrics[name].labels) for name, streams in seen.items())


def infer_version(seen: dict[str, bool]) -> str | None:
    """The supported release these families fit best, or None when nothing was seen or nothing fits."""
    if not seen:
        return None
    fitting = [v for v in SUPPORTED if _fits(v, seen)]
    unseen = {v: sum(1 for n in distinguishing() if n in surface_of(v).metrics and n not in seen) for v in fitting}
    return min(fitting, key=lambda v: unseen[v]) if fitting else None
