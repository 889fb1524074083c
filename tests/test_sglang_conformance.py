"""The per-version description of SGLang (mtptui.engines.sglang.surface) against the facts read from the real wheels.

``tests/fixtures/sglang-conformance.json`` is written by ``scripts/sglang_conformance.py`` from the published
wheels (routes, response model fields, metric families, /server_info keys, text templates); nothing is
downloaded here. A new SGLang version: add it to SUPPORTED, run the script, fix what these tests show.
"""

from __future__ import annotations

import asyncio
import io
import json
import random
import re
import string
from pathlib import Path

import pytest

from mtptui.engines.sglang.surface import SUPPORTED, surface_of

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "sglang-conformance.json"
FACTS = json.loads(FIXTURE.read_text())["versions"]
NESTED_STATE = {"graph", "kvcache", "token_capacity", "weight", "step_time_dict", "dspark_info_record"}
CONDITIONAL_INFO = {"kv_event_sources"}  # only with a gRPC port


def template_regex(template: str) -> re.Pattern:
    """A fixture template (``x={:.2f} GB``, or %-style) as a regex; a placeholder matches any text."""
    parts = []
    for literal, name, _spec, _conv in string.Formatter().parse(template):
        parts.append(re.sub(r"%(\.\d+)?[sdf]", "\0", literal))
        if name is not None:
            parts.append("\0")
    return re.compile(".*?".join(re.escape(p) for p in "".join(parts).split("\0")), re.S)


def matches_some_template(text: str, version: str) -> bool:
    return any(template_regex(t).fullmatch(text) for t in FACTS[version]["texts"])


@pytest.fixture(params=SUPPORTED)
def version(request) -> str:
    return request.param


def test_the_fixture_covers_every_supported_version() -> None:
    assert sorted(FACTS) == sorted(SUPPORTED)


def test_every_route_is_the_releases(version: str) -> None:
    routes = FACTS[version]["routes"]
    for path, methods in surface_of(version).routes.items():
        assert set(methods) <= set(routes.get(path, ())), (version, path)


def test_response_fields_are_the_releases(version: str) -> None:
    s, models = surface_of(version), FACTS[version]["models"]
    assert list(s.usage_fields) == models["UsageInfo"]
    assert list(s.sglext_fields) == models["SglExt"]
    assert list(s.spec_details_fields) == models.get("SpecTokensDetails", [])
    assert list(s.stream_delta_fields) == (models.get("StreamDelta") or models["_StreamDelta"])
    assert ("return_spec_tokens_details" in models["ChatCompletionRequest"]) == s.spec_in_sglext


def test_metric_families_names_kinds_labels_and_buckets(version: str) -> None:
    facts, base = FACTS[version]["metrics"], FACTS[version]["metric_labels"]
    for metric in surface_of(version).metrics.values():
        fact = facts.get(metric.name)
        assert fact is not None, (version, metric.name)
        collector = "scheduler" if fact["collector"].startswith("Scheduler") else "tokenizer"
        assert (metric.kind, list(metric.labels)) == (fact["kind"], base[collector] + fact["extra_labels"]), metric
        assert list(metric.buckets) == fact.get("buckets", []), metric.name


def test_no_family_a_release_lacks(version: str) -> None:
    """What one release has and the other lacks (spec_verify_calls_total, 0.5.23's gauges) is told apart."""
    ours = surface_of(version).metrics
    for other in SUPPORTED:
        for name in surface_of(other).metrics:
            assert (name in ours) == (name in FACTS[version]["metrics"]), (version, name)


def test_server_info_keys(version: str) -> None:
    info, s = FACTS[version]["server_info"], surface_of(version)
    assert set(s.server_info_keys) == set(info["server_info"]) | set(info["scheduler_info"]) - CONDITIONAL_INFO
    assert set(s.internal_state_keys) == set(info["internal_state"]) - NESTED_STATE


@pytest.mark.parametrize("key, values", [
    ("max_tokens_too_large", (200000, 131072)), ("context_exceeded", (262144, 262160, 16, 262144)),
    ("input_too_long", (9, 8)), ("messages_empty", ()), ("prompt_empty", ()), ("max_new_tokens_negative", (-3,)),
    ("temperature_negative", (-1.0,)),
    ("completion_max_tokens", ()), ("media_type", ()), ("generate_no_input", ()), ("cache_flushed", ()),
    ("deprecated", ("/get_server_info", "/server_info")), ("ready", ()), ("draft_capture_end", (1.2, 0.4, 3.1)),
])
def test_texts_are_the_releases(version: str, key: str, values: tuple) -> None:
    text = surface_of(version).text(key, *values)
    assert matches_some_template(text, version), text


@pytest.mark.parametrize("key, values", [
    ("adaptive_disabled", ("speculative_algorithm=NGRAM (only EAGLE/EAGLE3 are supported)",)),
    ("adaptive_init", (3, [1, 3, 7])), ("adaptive_built", (7, 1.25, 0.31)), ("adaptive_updated", (3, 1, 0.2)),
    ("adaptive_switch", (3, 1, 4, 2)),
])
def test_adaptive_log_lines_are_the_releases(version: str, key: str, values: tuple) -> None:
    text = surface_of(version).text(key, *values)
    assert matches_some_template(text, version), text


def test_release_only_adaptive_texts() -> None:
    old, new = surface_of("0.5.12.post1"), surface_of("0.5.23")
    assert matches_some_template(old.text("adaptive_added", 2, [1, 3, 7]), old.version)
    assert matches_some_template(new.text("adaptive_not_candidate", 2, [0, 1, 3, 5, 7]), new.version)
    assert "adaptive_added" not in new.texts and "adaptive_not_candidate" not in old.texts


def test_adaptive_tuning_defaults_are_the_releases(version: str) -> None:
    from mtptui.engines.sglang.adaptive import DEFAULT_CANDIDATES, DEFAULT_TIERS, Tuning

    facts = FACTS[version]["adaptive"]
    defaults = {k: v for k, v in facts["defaults"].items() if k != "candidate_steps"}
    assert {name: getattr(Tuning(), name) for name in defaults} == defaults
    if version == "0.5.12.post1":
        assert (facts["defaults"]["candidate_steps"], facts["default_config"]) == (list(DEFAULT_CANDIDATES), None)
    else:
        table = {str(t.batch_size): {"candidate_steps": list(t.candidates), "ceiling_coeff": t.tuning.ceiling_coeff,
                                     "down_hysteresis": t.tuning.down_hysteresis,
                                     "up_hysteresis": t.tuning.up_hysteresis} for t in DEFAULT_TIERS}
        assert table == facts["default_config"]


def test_adaptive_is_turned_off_for_the_releases_reasons(version: str) -> None:
    from mtptui.engines.sglang.adaptive import REASONS

    reasons = FACTS[version]["adaptive"]["reasons"]
    for text in REASONS[version].values():
        assert any(template_regex(t).fullmatch(text) for t in reasons), text


def test_draft_capture_lines() -> None:
    old, new = surface_of("0.5.12.post1"), surface_of("0.5.23")
    assert matches_some_template(old.text("draft_capture_begin", 3.25), old.version)
    assert matches_some_template(new.text("draft_capture_begin", "full", 1, [1, 2, 4], 3.25), new.version)


def test_the_graph_batch_sizes_line_is_0512s_only() -> None:
    assert matches_some_template(surface_of("0.5.12.post1").text("capture_bs", [1, 2, 4]), "0.5.12.post1")
    assert "capture_bs" not in surface_of("0.5.23").texts
    assert not matches_some_template("Capture cuda graph bs [1, 2, 4]", "0.5.23")


# The simulated server, held to the same facts ---------------------------------------------------------------

def _sim_runtime(version: str, profile: str = "restored"):
    import random

    from mtptui.sim.boot import build_boot
    from mtptui.sim.engine import Engine
    from mtptui.sim.launch import settings_for
    from mtptui.sim.logfmt import LogWriter
    from mtptui.sim.metrics import SimMetrics
    from mtptui.sim.runtime import Runtime
    from tests.simserver import profile_argv

    boot = build_boot(settings_for(profile_argv(profile, version), version))
    log = LogWriter(2, stream=io.StringIO())
    metrics = SimMetrics(boot.settings.served_model_name, boot.surface)
    return Runtime(boot, Engine(boot, log, random.Random(0), metrics), log, metrics, 0, "127.0.0.1", 30000)


def test_the_simulated_server_serves_the_releases_routes(version: str) -> None:
    from mtptui.sim.api import SimApi

    served = {route.path: set(route.methods) - {"HEAD"} for route in SimApi(_sim_runtime(version)).routes()}
    routes = FACTS[version]["routes"]
    for path, methods in served.items():
        if path not in ("/sim/requests", "/metrics"):  # ours; /metrics is mounted by SGLang's metrics middleware
            assert methods <= set(routes[path]), (version, path)


def test_the_simulated_servers_metric_families_are_the_releases(version: str) -> None:
    rt = _sim_runtime(version)
    facts, base = FACTS[version]["metrics"], FACTS[version]["metric_labels"]
    for family in rt.metrics.registry.collect():
        name = family.name + ("_total" if family.type == "counter" else "")
        fact = facts[name]
        collector = "scheduler" if fact["collector"].startswith("Scheduler") else "tokenizer"
        assert family.type == fact["kind"], name
        declared = rt.metrics.registry._names_to_collectors[family.name + ("_total" if family.type == "counter"
                                                                          else "")]._labelnames
        assert list(declared) == base[collector] + fact["extra_labels"], name


def _startup_log(version: str, profile: str) -> list[str]:
    """The simulated startup log of ``profile`` (paced instantly), one line per entry, tqdm bars left out."""
    from mtptui.sim.logfmt import LogWriter
    from mtptui.sim.startup import Pacer, run_startup

    class Instant(Pacer):
        async def sleep(self, seconds: float) -> None:
            self.total += seconds

    rt, out = _sim_runtime(version, profile), io.StringIO()
    asyncio.run(run_startup(rt.boot, LogWriter(2, stream=out), Instant(1.0, random.Random(0))))
    return [line for line in out.getvalue().split("\n") if line and "\r" not in line]


@pytest.mark.parametrize("profile", ["restored", "redeploy-1step"])
def test_the_simulated_startup_log_uses_the_releases_templates(version: str, profile: str) -> None:
    from scripts.sglang_conformance import MARKERS

    messages = [re.sub(r"^\[[^\]]*\] ", "", line) for line in _startup_log(version, profile)]
    messages = [m for m in messages if any(marker in m for marker in MARKERS)]
    assert len(messages) > 10
    for message in messages:
        assert matches_some_template(message, version), (version, message)


def test_draft_graphs_are_logged_on_rank_0_only(version: str) -> None:
    draft = [line for line in _startup_log(version, "restored") if "Capture draft" in line]
    assert draft and all(" TP0] " in line for line in draft)


def test_one_step_mtp_captures_no_draft_decode_graph_on_0512() -> None:
    lines = _startup_log("0.5.12.post1", "redeploy-1step")
    assert not [line for line in lines if "Capture draft cuda graph" in line]
    assert [line for line in lines if "Capture draft extend cuda graph begin" in line]
    assert [line for line in lines if line.endswith("Capture cuda graph bs [1]")]
