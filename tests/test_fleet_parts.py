"""The fleet's parts that need no server: label matchers, durations, version from metric families (asked of the
surface), the health rules, host matching, sorting and filtering, sparklines."""

from __future__ import annotations

from pathlib import Path

import pytest

from mtptui.config import load_host_file
from mtptui.errors import UserError
from mtptui.fleet.durations import parse_duration, promql_duration
from mtptui.fleet.health import COLLAPSE_AT, judge
from mtptui.fleet.hosts import host_index, instance_names
from mtptui.fleet.matchers import Matcher, parse_matchers, selector
from mtptui.fleet.rows import Row, Snapshot
from mtptui.fleet.spark import sparkline
from mtptui.fleet.version import ANCHOR, infer_version, observed_families
from mtptui.fleet.view import FleetView
from mtptui.engines.sglang.surface import SUPPORTED, surface_of
from mtptui.engines.sglang.surface_metrics import STARTUP


def test_matchers_parse_like_promql_and_match_anchored() -> None:
    parsed = parse_matchers('{job="sglang", env=~"prod.*",zone!="a\\"b", team!~dev}')
    assert parsed == (Matcher("job", "=", "sglang"), Matcher("env", "=~", "prod.*"), Matcher("zone", "!=", 'a"b'),
                      Matcher("team", "!~", "dev"))
    assert selector("num_running_reqs", parsed[:1]) == '{__name__=~"sglang[:_]num_running_reqs",job="sglang"}'
    assert parsed[1].matches({"env": "prod-eu"}) and not parsed[1].matches({"env": "preprod"})
    assert parsed[2].matches({}) and not Matcher("zone", "=", "a").matches({})
    assert parse_matchers("") == () and parse_matchers(None) == ()


@pytest.mark.parametrize("text", ["job", "=x", 'job="a" env="b"', 'job="unterminated'])
def test_a_bad_matcher_is_one_sentence(text: str) -> None:
    with pytest.raises(UserError, match="^--match .* is not"):
        parse_matchers(text)


def test_durations() -> None:
    assert [parse_duration(t, "w") for t in ("30s", "1m", "1h30m", "1500ms")] == [30, 60, 5400, 1.5]
    assert [promql_duration(s) for s in (60, 1.5)] == ["60s", "1500ms"]
    for bad in ("1 m", "0s", "abc", ""):
        with pytest.raises(UserError):
            parse_duration(bad, "--window")


def _startup_families(version: str) -> dict[str, bool]:
    """What a fresh server of ``version`` exports before any request: its startup gauges (no spec ones)."""
    metrics = surface_of(version).metrics
    return {name: False for name, m in metrics.items() if m.moves == STARTUP and "spec" not in name}


def _serving_families(version: str) -> dict[str, bool]:
    metrics = surface_of(version).metrics
    return {name: "is_streaming" in m.labels for name, m in metrics.items() if m.kind != "histogram"}


@pytest.mark.parametrize("version", SUPPORTED)
def test_the_version_is_the_release_whose_families_fit(version: str) -> None:
    assert infer_version(_startup_families(version)) == version
    assert infer_version(_serving_families(version)) == version


def test_either_prefix_reads_the_same_and_nothing_or_a_stranger_is_no_version() -> None:
    series = [{"__name__": "sglang_spec_verify_calls_total"}, {"__name__": ANCHOR.replace(":", "_")}]
    assert infer_version(observed_families(series)) == "0.5.23"
    assert infer_version({}) is None
    assert infer_version({"sglang:a_family_of_a_later_release": False, ANCHOR: False}) is None
    assert infer_version({"sglang:generation_tokens_total": True, ANCHOR: False}) == "0.5.23"  # is_streaming


def test_acceptance_collapse_towards_one_and_below_its_history() -> None:
    steady = [3.1, 3.05, 3.12, 3.08, 3.1, 3.07]
    assert judge(True, "", (3.09, steady), (None, []), "1h").state == "ok"
    low = judge(True, "", (COLLAPSE_AT - 0.1, steady), (None, []), "1h")
    assert low.reasons == ("acceptance collapse: accept length 1.10, the drafts are almost never accepted",)
    fallen = judge(True, "", (2.5, steady), (None, []), "1h")
    assert fallen.state == "warn" and fallen.reasons[0].startswith(
        "acceptance collapse: accept length 2.50 vs 3.09 over the last 1h (-19 %, p = ")
    assert judge(True, "", (2.5, steady[:3]), (None, []), "1h").state == "ok"  # too little history to say


def test_slowdown_against_its_own_history_beyond_the_noise() -> None:
    past = [50.2, 49.1, 51.0, 50.5, 49.8, 50.9, 50.1]
    slow = judge(True, "", (None, []), (30.0, past), "6h")
    assert slow.state == "warn" and slow.reasons[0].startswith(
        "slowdown: a request decodes at 30.0 tok/s vs 50.2 over the last 6h (-40 %, p = ")
    assert judge(True, "", (None, []), (49.0, past), "6h").state == "ok"  # inside the noise
    assert judge(True, "", (None, []), (60.0, past), "6h").state == "ok"  # faster is not a problem
    noisy = [20.0, 80.0, 30.0, 70.0, 50.0]
    assert judge(True, "", (None, []), (40.0, noisy), "6h").state == "ok"  # not significant


def test_down_says_why() -> None:
    down = judge(False, 'Get "http://10.0.0.5:30000/metrics": connection refused', (3.0, []), (50.0, []), "1h")
    assert down == type(down)("down", ('down: Get "http://10.0.0.5:30000/metrics": connection refused',))


def _host(tmp_path: Path, name: str, body: str) -> tuple[Path, object]:
    path = tmp_path / f"{name}.toml"
    path.write_text(f'name = "{name}"\n{body}\n[server]\nmanager = "systemd"\nunit = "sglang.service"\n'
                    '[log]\nkind = "journal"\n')
    return path, load_host_file(path)


def test_an_instance_finds_its_host_by_mapping_or_api_address(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / ".ssh").mkdir()
    (tmp_path / ".ssh" / "config").write_text("Host gpu-alias\n    HostName 10.0.0.7\n")
    explicit = _host(tmp_path, "a", 'api_url = "http://127.0.0.1:30000"\nprometheus_instance = "gpu-a:9400"\n'
                                    '[ssh]\ntarget = "10.0.0.5"')
    tunnelled = _host(tmp_path, "b", 'api_url = "http://127.0.0.1:30000"\n[ssh]\ntarget = "gpu-alias"')
    direct = _host(tmp_path, "c", 'api_url = "http://[fd00::5]:30000"\n[ssh]\ntarget = "gpu-c"')
    local = _host(tmp_path, "d", 'api_url = "http://127.0.0.1:31000"')
    assert instance_names(explicit[1]) == {"gpu-a:9400"}
    assert instance_names(tunnelled[1]) == {"gpu-alias:30000", "10.0.0.7:30000"}
    assert instance_names(direct[1]) == {"[fd00::5]:30000"}
    assert instance_names(local[1]) == {"127.0.0.1:31000"}
    twin = _host(tmp_path, "e", 'api_url = "http://127.0.0.1:31000"')
    assert host_index([local, twin])["127.0.0.1:31000"] is local  # the first in lookup order


def _rows() -> list[Row]:
    return [Row("10.0.0.1:30000", "sglang", True, output_tok_s=50.0, accept_len=3.1, queued=0, version="0.5.23",
                health="ok"),
            Row("10.0.0.2:30000", "sglang", True, output_tok_s=None, accept_len=None, queued=4, health="warn",
                host="ct129"),
            Row("10.0.0.3:30000", "sglang", False, health="down"),
            Row("10.0.0.4:30000", "sglang", True, output_tok_s=80.0, accept_len=1.1, queued=1, health="ok")]


def test_sorting_puts_the_worst_first_and_no_figure_last() -> None:
    view = FleetView(snapshot=Snapshot("http://p", 0, 60, 3600, "", 30, _rows()))
    assert [r.instance[7] for r in view.rows()] == ["3", "2", "1", "4"]  # down, warn, then by instance
    view.sort = "output_tok_s"
    assert [r.instance[7] for r in view.rows()] == ["4", "1", "2", "3"]
    view.reverse = True
    assert [r.instance[7] for r in view.rows()] == ["1", "4", "2", "3"]
    view.sort, view.reverse = "accept_len", False
    assert [r.instance[7] for r in view.rows()] == ["4", "1", "2", "3"]
    assert view.next_sort() == "queued" and [r.instance[7] for r in view.rows()][:2] == ["2", "4"]


def test_filtering_by_text_and_hiding_with_a_bang() -> None:
    view = FleetView(snapshot=Snapshot("http://p", 0, 60, 3600, "", 30, _rows()), filter="ct129")
    assert [r.instance for r in view.rows()] == ["10.0.0.2:30000"]
    view.filter = "!down"
    assert len(view.rows()) == 3 and all(r.health != "down" for r in view.rows())
    view.filter = "0.5.23"
    assert [r.instance for r in view.rows()] == ["10.0.0.1:30000"]


def test_a_window_with_too_few_scrapes_is_noted() -> None:
    from mtptui.fleet.collect import window_notes
    from mtptui.fleet.targets import Target

    targets = [Target("a:1", "sglang", True, None, "", 15.0), Target("b:1", "sglang", True, None, "", 30.0)]
    assert window_notes(targets, 120) == []
    assert window_notes(targets, 60) == ["the window 1m holds fewer than 4 scrapes of every 30s: rates may be missing "
                                         "or jumpy (use --window 2m or more)"]


def test_sparklines_scale_to_their_top_and_leave_gaps() -> None:
    assert sparkline([0, 35, 70, None, 70]) == "▁▅█ █"
    assert sparkline([None, 0, 0]) == " ▁▁" and sparkline([]) == ""
