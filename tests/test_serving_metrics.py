"""The serving figures only /metrics has, per SGLang version: read from the exposition the simulated server
renders for that release (its own families and labels), with either name prefix, and turned into a rate."""

from __future__ import annotations

import pytest

from mtptui.ops.metrics_feed import FAMILIES, exported, parse
from mtptui.engines.sglang.state.serving import ServingStats
from mtptui.engines.sglang.surface import surface_of
from mtptui.sim.metrics import SimMetrics

VERSIONS = ("0.5.12.post1", "0.5.23")


def exposition(version: str, served: int) -> str:
    metrics = SimMetrics("qwen", surface_of(version))
    metrics.set(num_running_reqs=1, num_queue_reqs=3, full_token_usage=0.25, mamba_usage=0.5, num_retracted_reqs=0)
    metrics.inc("num_requests", served - 1, streaming=True)
    metrics.inc("num_requests", 1, streaming=False)
    metrics.inc("num_aborted_requests", 2)
    return metrics.render().decode()


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("prefix", ["sglang:", "sglang_"])
def test_figures_of_each_release_with_either_prefix(version, prefix) -> None:
    text = exposition(version, served=5).replace("sglang:", prefix)
    figures = parse(text, exported(version), t=1.0).figures
    assert figures["requests"] == 5 and figures["aborted"] == 2  # summed over is_streaming (0.5.23)
    assert figures["queue"] == 3 and figures["running"] == 1
    assert figures["full_token_usage"] == 0.25 and figures["mamba_usage"] == 0.5


def test_a_family_the_release_does_not_export_is_not_asked_for() -> None:
    assert set(exported("0.5.12.post1")) <= set(FAMILIES)
    assert exported("9.9.9") == FAMILIES  # a release mtptui does not know: everything is looked for


def test_a_rate_from_two_scrapes_and_nothing_while_metrics_are_missing() -> None:
    serving = ServingStats()
    serving.apply_metrics(10.0, parse(exposition("0.5.23", 5), exported("0.5.23"), 10.0).figures)
    assert serving.metrics_rate is None  # one scrape: no rate yet
    serving.apply_metrics(15.0, parse(exposition("0.5.23", 15), exported("0.5.23"), 15.0).figures)
    assert serving.metrics_rate == pytest.approx(2.0)
    serving.apply_metrics(20.0, {}, "/metrics answered HTTP 404 (no --enable-metrics?)")
    assert serving.metrics_rate is None and serving.metrics == {} and "404" in serving.metrics_missing


def test_one_reader_of_the_exposition_serves_the_feed_and_the_bench() -> None:
    """Either prefix, every label set, no _created time; the feed sums and the bench sums the same samples."""
    from mtptui.bench.metrics_poll import parse_metrics
    from mtptui.ops.metrics_feed import FAMILIES, parse
    from mtptui.engines.sglang.exposition import family_values

    text = ("# TYPE sglang:num_running_reqs gauge\n"
            'sglang:num_running_reqs{tp_rank="0"} 3\n'
            "# TYPE sglang_num_running_reqs gauge\n"
            'sglang_num_running_reqs{tp_rank="1"} 2\n'
            "# TYPE sglang:generation_tokens counter\n"
            "sglang:generation_tokens_total 40\n"
            "sglang:generation_tokens_created 1.7e9\n")
    found = family_values(text, ["sglang:num_running_reqs", "sglang:generation_tokens_total", "sglang:token_usage"])
    assert found == {"sglang:num_running_reqs": [3.0, 2.0], "sglang:generation_tokens_total": [40.0]}
    assert parse(text, FAMILIES, 0.0).get("running") == parse_metrics(text).running == 5.0
    assert parse(text, FAMILIES, 0.0).get("token_usage") is None and parse_metrics(text).gen_tokens == 40.0
    with pytest.raises(ValueError):
        family_values("this is { not an exposition", ["sglang:num_running_reqs"])
