"""The health verdict: drift from known-good, speed and acceptance against this host's bench history (three runs
of each profile the bench recorded against the simulated server, the server log followed:
tests/ui_fixtures/health-*-bench.json, by scripts/record_health_fixtures.py), the one-line layout at every width,
and the serving figures read from SGLang's own log lines."""

from __future__ import annotations

import copy
import json

import pytest

from mtptui.bench.history import append_run, load_runs
from mtptui.ops.baseline import accept_baseline, host_runs, no_spec_baseline, speed_baseline
from mtptui.ops.drift import known_good_drift, short_value
from mtptui.ops.health.verdict import BAD, OK, UNKNOWN, WARN, Check, judge, speed_check
from mtptui.ops.health.assess import HealthAssessor, assess, running_shape
from mtptui.ops.health.text import health_line, width_of
from mtptui.ops.server_up import ServerUp
from mtptui.engines.sglang.flags import FlagSet
from mtptui.engines.sglang.logparse import LogParser
from mtptui.engines.sglang.state.serving import ServingStats
from tests.ui_fixtures.support import FIXTURES, demo_host, demo_status

VERSION = "0.5.12.post1"
BAD_RUNS, GOOD_RUNS = (json.loads((FIXTURES / f"health-{name}-bench.json").read_text())
                       for name in ("redeploy", "restored"))
GOOD_RUN = GOOD_RUNS[0]
GOOD_LOG_MEAN = sum(rate for run in GOOD_RUNS for rate in run["log_rates"]) / sum(
    len(run["log_rates"]) for run in GOOD_RUNS)


def history(*runs: dict, path) -> list[dict]:
    """The runs as the bench history stores and reads them back."""
    for run in runs:
        append_run(run, path)
    return load_runs(path)


def relabelled(run: dict, **fingerprint) -> dict:
    other = copy.deepcopy(run)
    other["fingerprint"].update(fingerprint)
    return other


def without_speculation(run: dict, tok_s: float) -> dict:
    """The run as a launch without speculative decoding would have measured it (``tok_s`` per request, in the
    log too)."""
    other = copy.deepcopy(run)
    flags = other["fingerprint"]["launch_flags"]
    for key in [key for key in flags if key.startswith("speculative_")]:
        del flags[key]
    for index, request in enumerate(other["requests"]):
        request.update(decode_tok_s=tok_s + index * 0.5, accept_len=None)
    other["summary"].update(output_tok_s=tok_s, accept_len=None, log_tok_s=tok_s)
    other["log_rates"] = [tok_s - 0.5, tok_s, tok_s + 0.5, tok_s + 0.2]
    return other


@pytest.fixture
def runs(tmp_path) -> list[dict]:
    return host_runs(history(*BAD_RUNS, *GOOD_RUNS, path=tmp_path / "h.jsonl"), "demo")


def restored_launch() -> FlagSet:
    host = demo_host()
    return FlagSet.from_profile(host.profile("restored"), host.sglang_version)


def serving_with(speeds: list[float], accepts: list[float], running: int = 1, every_s: float = 8.0) -> ServingStats:
    """Steady decode lines at these speeds, ``every_s`` of log time apart (after the first line, which covers
    the request's prefill): five of them span LASTS_S, so what they say has lasted."""
    serving = ServingStats()
    for index, (speed, accept) in enumerate(zip([speeds[0], *speeds], [accepts[0], *accepts])):
        serving.decode({"running_req": running, "gen_throughput": speed * running, "accept_len": accept,
                        "tokens": 700 * running}, t=index * every_s, warm_up=False)
    serving.accept.popleft()  # the acceptance of the prefill's line counts; these tests give exactly their own
    serving.accept_t.popleft()
    return serving


# Drift -------------------------------------------------------------------------------------------------------

def test_drift_names_the_redeploys_flags_speed_deciding_ones_first() -> None:
    drift = known_good_drift(demo_host(), demo_status().launch)
    assert drift.count == 8
    assert [str(item) for item in drift.items[:3]] == ["steps 1≠3", "draft 2≠4", "max-running 1≠16"]


def test_no_drift_when_the_known_good_profile_runs() -> None:
    assert known_good_drift(demo_host(), restored_launch()).count == 0


def test_drift_is_unknown_without_a_launch_or_a_known_good_profile() -> None:
    host = demo_host()
    assert known_good_drift(host, None) is None
    assert known_good_drift(host.model_copy(update={"known_good": None}), restored_launch()) is None


@pytest.mark.parametrize(("resolved", "short"), [("2 (auto)", "2"), ("auto (from GPU memory)", "auto"),
                                                 ("unset (default 0.9)", "default"), ("unset", "unset"),
                                                 (None, "unset"), ("qwen3", "qwen3")])
def test_short_values(resolved, short) -> None:
    assert short_value(resolved) == short


# Baselines ---------------------------------------------------------------------------------------------------

def test_speed_baseline_is_the_known_good_profiles_log_rate_at_this_load(runs) -> None:
    base = speed_baseline(runs, VERSION, 1, demo_host())
    assert base.stale is None and base.runs == 3 and len(base.run_means) == 3
    assert base.mean == pytest.approx(GOOD_LOG_MEAN)  # the log's steady lines during the benches: the live measure
    assert base.source == "bench, restored, c=1, 3 runs"
    assert speed_baseline(runs, VERSION, 4) is None  # no run at four running requests


def test_a_run_measured_another_way_is_no_speed_baseline(tmp_path) -> None:
    """A tune arm or an old run without the log's rate: its per-request client figure is another measure."""
    other = copy.deepcopy(GOOD_RUN)
    other["log_rates"] = []
    runs = host_runs(history(other, path=tmp_path / "h.jsonl"), "demo")
    assert speed_baseline(runs, VERSION, 1) is None
    check = assess(demo_host(), demo_status(launch=restored_launch()), serving_with([54.0] * 5, [3.1] * 5),
                   runs).checks[1]
    assert check.state == UNKNOWN and check.text == ("no log-rate baseline: 1 bench run(s) here did not read the "
                                                     "server log")


def test_the_known_good_profiles_runs_are_the_baseline_even_beside_a_faster_one(tmp_path) -> None:
    faster = copy.deepcopy(GOOD_RUN)
    faster["fingerprint"]["launch_flags"]["speculative_num_steps"] = 4  # a tune arm: not the known-good launch
    faster["log_rates"] = [rate + 8 for rate in faster["log_rates"]]
    faster["summary"]["output_tok_s"] += 8
    runs = host_runs(history(*GOOD_RUNS, faster, path=tmp_path / "h.jsonl"), "demo")
    base = speed_baseline(runs, VERSION, 1, demo_host())
    assert base.profile == "restored" and base.mean == pytest.approx(GOOD_LOG_MEAN)


def test_a_baseline_on_another_version_is_stale_not_used(tmp_path) -> None:
    runs = host_runs(history(*(relabelled(run, server_version="0.5.23") for run in GOOD_RUNS),
                             path=tmp_path / "h.jsonl"), "demo")
    base = speed_baseline(runs, VERSION, 1)
    assert base.stale == "0.5.23"
    check = judge(None, [34.0] * 5, [], speed_base=base).checks[1]
    assert check.state == UNKNOWN and "stale" in check.text and "0.5.23" in check.text


def test_runs_of_other_targets_and_foreign_models_are_not_this_hosts(tmp_path) -> None:
    foreign = dict(GOOD_RUN, foreign_model="the server answered with another model")
    runs = history(relabelled(GOOD_RUN, target="ct129"), foreign, path=tmp_path / "h.jsonl")
    assert host_runs(runs, "demo") == []


def test_acceptance_baseline_is_the_running_shapes_own(runs) -> None:
    redeploy = accept_baseline(runs, VERSION, running_shape(demo_status().launch))
    restored = accept_baseline(runs, VERSION, running_shape(restored_launch()))
    assert redeploy.mean == pytest.approx(1.75, abs=0.01)
    assert restored.mean == pytest.approx(3.03, abs=0.01)


# The verdict -------------------------------------------------------------------------------------------------

def test_the_bad_redeploy_is_red_with_the_slowdown(runs) -> None:
    serving = serving_with([34.2, 33.8, 34.5, 34.0, 33.9], [1.75, 1.72, 1.78, 1.74, 1.70])
    health = assess(demo_host(), demo_status(), serving, runs)
    assert health.state == BAD
    drift, speed, accept = health.checks[:3]
    assert drift.state == BAD and drift.text == "running ≠ known-good: 8 flags"
    assert speed.state == BAD and speed.text == "34 tok/s (−37 %) vs 54 = bench, restored, c=1, 3 runs"
    assert accept.state == OK  # 1.75 is what one MTP step usually gets: the flags are the problem, not the drafts
    assert health.actions == ("diff", "restore")


def test_the_restored_profile_is_green(runs) -> None:
    serving = serving_with([54.0, 56.1, 53.2, 55.0, 54.4], [3.1, 3.2, 3.0, 3.15, 3.05])
    health = assess(demo_host(), demo_status(launch=restored_launch()), serving, runs)
    assert health.state == OK, health
    assert health.actions == ()


def test_speed_within_the_noise_holds_and_beyond_it_does_not(runs) -> None:
    base = speed_baseline(runs, VERSION, 1, demo_host())
    times = [8.0 * i for i in range(5)]  # a line every 8 s: what five lines say has lasted 32 s

    def state(speeds: list[float]) -> str:
        return speed_check(speeds, base, times=times).state

    assert state([53.0, 55.5, 54.0, 54.5, 53.8]) == OK
    assert state([52.5, 53.0, 52.0, 52.6, 52.8]) == OK  # −3 %: less than the 5 % that counts
    assert state([50.5, 51.0, 50.8, 51.2, 50.6]) == BAD  # −6 %, beyond the runs' spread, for 32 s
    assert speed_check([50.5, 51.0, 50.8], base, times=times[:3]).state == OK  # 16 s of it: not yet


def test_no_baseline_is_said_and_the_drift_still_shown() -> None:
    health = assess(demo_host(), demo_status(), serving_with([34.0] * 5, [1.75] * 5), [])
    assert health.state == BAD  # the drift alone
    assert health.checks[1].state == UNKNOWN and health.checks[1].text == "no baseline on this host yet"
    assert health.actions == ("diff", "restore", "bench")


def test_green_only_when_every_check_holds() -> None:
    health = assess(demo_host(), demo_status(launch=restored_launch()), serving_with([54.0] * 5, [3.1] * 5), [])
    assert health.state == UNKNOWN  # no drift, but no baseline to hold the speed against


def test_too_few_decode_lines_are_not_judged(runs) -> None:
    health = assess(demo_host(), demo_status(launch=restored_launch()), serving_with([20.0, 21.0], [1.0, 1.0]),
                    runs)
    assert [check.state for check in health.checks] == [OK, UNKNOWN]


def test_acceptance_collapse_towards_one(runs) -> None:
    health = assess(demo_host(), demo_status(launch=restored_launch()),
                    serving_with([54.0] * 5, [1.05, 1.1, 1.0, 1.08, 1.02]), runs)
    accept = health.checks[2]
    assert health.state == BAD and accept.state == BAD and accept.text.startswith("acceptance collapse: accept 1.05")


def test_acceptance_below_what_the_shape_reached_before(runs) -> None:
    health = assess(demo_host(), demo_status(launch=restored_launch()),
                    serving_with([54.0] * 5, [2.1, 2.2, 2.0, 2.15, 2.05]), runs)
    accept = health.checks[2]
    assert accept.state == BAD and "vs 3.03 usual" in accept.text and "−" in accept.text


def test_speculation_that_costs_more_than_it_gains(tmp_path) -> None:
    runs = host_runs(history(without_speculation(GOOD_RUN, 40.0), path=tmp_path / "h.jsonl"), "demo")
    assert no_spec_baseline(runs, VERSION, 1).mean == pytest.approx(40.05)
    health = assess(demo_host(), demo_status(), serving_with([34.2, 33.8, 34.5, 34.0, 34.1], [1.75] * 5), runs)
    cost = [check for check in health.checks if check.name == "spec-cost"]
    assert cost and cost[0].state == BAD and "40 tok/s without it" in cost[0].text


def test_no_speculation_note_when_speculation_pays(tmp_path) -> None:
    runs = host_runs(history(without_speculation(GOOD_RUN, 22.0), path=tmp_path / "h.jsonl"), "demo")
    health = assess(demo_host(), demo_status(), serving_with([34.2, 33.8, 34.5, 34.0, 34.1], [1.75] * 5), runs)
    assert "spec-cost" not in [check.name for check in health.checks]


# One line at any width ---------------------------------------------------------------------------------------

def bad_redeploy_health(runs):
    return assess(demo_host(), demo_status(), serving_with([34.2, 33.8, 34.5, 34.0, 33.9], [1.75] * 5), runs)


def text(segments) -> str:
    return "".join(part for part, _ in segments)


@pytest.mark.parametrize("width", [20, 40, 60, 79, 99, 119, 159, 240])
def test_the_line_fits_its_width(runs, width) -> None:
    assert width_of(health_line(bad_redeploy_health(runs), width)) <= width


def test_wide_line_names_three_flags_the_slowdown_and_the_keys(runs) -> None:
    line = text(health_line(bad_redeploy_health(runs), 159, {"diff": "d", "restore": "R"}.get))
    assert "steps 1≠3, draft 2≠4, max-running 1≠16 +5" in line
    assert "34 tok/s (−37 %) vs 54 = bench, restored, c=1, 3 runs" in line
    assert line.endswith("d why · R restore")


def test_eighty_columns_keep_the_first_flag_and_the_slowdown(runs) -> None:
    line = text(health_line(bad_redeploy_health(runs), 79, {"diff": "d", "restore": "R"}.get))
    assert line == "● unhealthy │ ≠ known-good: steps 1≠3 +7 │ 34 tok/s (−37 %) │ d why · R restore"


# Serving figures from the log --------------------------------------------------------------------------------

LOG = """\
[2026-05-11 23:49:01 TP0] Prefill batch, #new-seq: 3, #new-token: 8, #cached-token: 0, full token usage: 0.12, \
mamba usage: 0.02, #running-req: 1, #queue-req: 4, #pending-token: 0, cuda graph: False, \
input throughput (token/s): 9.58
[2026-05-11 23:49:07 TP0] Decode batch, #running-req: 4, #full token: 685000, full token usage: 0.49, mamba num: 12, \
mamba usage: 0.67, accept len: 2.77, accept rate: 0.69, cuda graph: True, gen throughput (token/s): 8.44, #queue-req: 2
[2026-05-11 23:49:08 TP0] Decode batch, #running-req: 4, #full token: 6000, full token usage: 0.01, mamba num: 12, \
mamba usage: 0.67, accept len: 3.10, accept rate: 0.70, cuda graph: True, gen throughput (token/s): 120.00, \
#queue-req: 0
[2026-05-11 23:49:09 TP0] KV cache pool is full. Retract requests. #retracted_reqs: 2, #new_tokens_gained: 1024
[2026-05-11 23:49:09] INFO:     127.0.0.1:54680 - "POST /v1/chat/completions HTTP/1.1" 503 Service Unavailable
"""


def test_serving_figures_from_batch_lines() -> None:
    serving = ServingStats()
    for t, event in enumerate(LogParser().feed(LOG.encode())):
        if event.kind == "decode":
            serving.decode(event.fields, float(t), warm_up=False)
        else:
            serving.apply(event, float(t))
    assert list(serving.queued) == [4, 2, 0]
    assert list(serving.running) == [1, 4, 4]
    assert list(serving.token_usage) == [0.12, 0.49, 0.01]
    assert list(serving.mamba_usage) == [0.02, 0.67, 0.67]
    assert serving.retractions == 2 and serving.http_errors == 1
    assert list(serving.speed) == [30.0]  # the first line seen covers what came before it: not steady
    short, medium, long = serving.accept_by_context  # 1,500 and 171,250 tokens per running request
    assert list(short) == [3.10] and list(medium) == [] and list(long) == [2.77]


def test_warm_up_and_idle_batches_are_not_judged() -> None:
    serving = ServingStats()
    serving.decode({"running_req": 1, "gen_throughput": 5.0, "accept_len": 1.0, "tokens": 10}, None, warm_up=True)
    serving.decode({"running_req": 0, "gen_throughput": 0.0, "accept_len": None, "tokens": 0}, None, warm_up=False)
    assert not serving.speed and not serving.accept
    assert list(serving.running) == [1, 0]


def test_eighty_columns_without_a_baseline_say_so_and_keep_the_drift() -> None:
    health = assess(demo_host(), demo_status(), serving_with([34.0] * 5, [1.75] * 5), [])
    line = text(health_line(health, 79, {"diff": "d", "restore": "R", "bench": "b"}.get))
    assert line == "● unhealthy │ ≠ known-good: steps 1≠3 +7 │ no baseline │ d why · R restore"


def test_a_server_that_is_down_is_red_and_its_last_figures_are_not_judged(runs) -> None:
    health = assess(demo_host(), demo_status(launch=restored_launch()), serving_with([54.0] * 5, [3.1] * 5), runs,
                    ServerUp("down", "crashed"))
    assert health.state == BAD and [check.name for check in health.checks] == ["server", "drift"]
    assert health.checks[0].text == "server crashed: nothing serves" and health.actions == ("restore",)


def test_drift_values_from_the_host_are_shown_not_obeyed() -> None:
    host = demo_host()
    launch = FlagSet.from_profile(host.profile("redeploy-1step"), host.sglang_version)
    launch.flags["--tool-call-parser"] = "qwen\x1b]52;c;bad\x07\n\u202eevil"
    (item,) = [i for i in known_good_drift(host, launch).items if i.name == "tool-call-parser"]
    assert item.running == "qwen\\x1b]52;c;bad\\x07\\n\\u202eevil"


def test_a_new_launch_or_history_is_judged_afresh(runs) -> None:
    """The diff and the baselines are remembered between repaints, never across a restart or a bench run."""
    host, serving = demo_host(), serving_with([54.0] * 5, [3.1] * 5)
    assert assess(host, demo_status(), serving, runs).checks[0].state == BAD
    assert assess(host, demo_status(launch=restored_launch()), serving, runs).checks[0].state == OK
    assert assess(host, demo_status(launch=restored_launch()), serving, []).checks[1].state == UNKNOWN
    assert assess(host, demo_status(launch=restored_launch()), serving, runs).checks[1].state == OK


# A full pool, a change that lasts, a restart, a lost host, reasons of other modules ------------------------

def test_a_saturated_kv_or_mamba_pool_is_a_warning(runs) -> None:
    serving = serving_with([54.0] * 5, [3.05] * 5)
    serving.mamba_usage.append(1.0)  # full of cached states, nobody waits: SGLang evicts them for new requests
    assert assess(demo_host(), demo_status(launch=restored_launch()), serving, runs).state == OK
    serving.queued.append(3)  # full, and requests wait for room: saturated
    health = assess(demo_host(), demo_status(launch=restored_launch()), serving, runs)
    pool = health.checks[-1]
    assert health.state == WARN and pool.state == WARN and pool.text == "pool full: mamba 1.00, 3 queued"
    line = text(health_line(health, 159))
    assert line.startswith("▲ warning") and "pool full: mamba 1.00, 3 queued" in line
    serving.mamba_usage.append(0.6)
    assert assess(demo_host(), demo_status(launch=restored_launch()), serving, runs).state == OK


def test_a_full_kv_pool_that_retracted_requests_is_a_warning(runs) -> None:
    serving = ServingStats()
    for event in LogParser().feed(LOG.encode()):  # ends with SGLang's retraction warning
        serving.apply(event, 10.0) if event.kind != "decode" else serving.decode(event.fields, 10.0, False)
    serving.token_usage.append(1.0)
    check = assess(demo_host(), demo_status(launch=restored_launch()), serving, runs).checks[-1]
    assert check.state == WARN and check.text == "pool full: KV 1.00, requests retracted"


def timed_serving(speeds: list[float], every_s: float = 2.0) -> ServingStats:
    """Steady decode lines ``every_s`` seconds of log time apart."""
    serving = ServingStats()
    for index, speed in enumerate([speeds[0], *speeds]):
        serving.decode({"running_req": 1, "gen_throughput": speed, "accept_len": 3.05, "tokens": 700},
                       t=index * every_s, warm_up=False)
    return serving


def speed_verdicts(runs, window: list[float], host=None) -> list[tuple[str, str]]:
    """(state, text) of the speed check after each line of ``window`` (a line every 2 s of log time)."""
    status = demo_status(launch=restored_launch())
    checks = [assess(host or demo_host(), status, timed_serving(window[:count]), runs).checks[1]
              for count in range(3, len(window) + 1)]
    return [(check.state, check.text) for check in checks]


def test_a_drop_turns_red_only_once_it_has_lasted(runs) -> None:
    verdicts = speed_verdicts(runs, [54.0] * 20 + [43.0] * 30)  # 20 % below from line 20 on
    first_red = next(index for index, (state, _) in enumerate(verdicts) if state == BAD) + 3
    assert 20 <= (first_red - 20) * 2.0 <= 36  # about LASTS_S of log time after the drop began
    below_before = [said for state, said in verdicts[:first_red - 3] if "watching" in said]
    assert below_before and all(state == BAD for state, _ in verdicts[first_red - 3:])


def test_a_host_file_sets_how_long_a_drop_must_last(runs) -> None:
    """``health_lasts_s = 12``: red within 12 s of log time of a deep drop, where the default 30 s still watches."""
    window = [54.0] * 20 + [35.0] * 30  # 35 % below from line 20 on, a line every 2 s

    def first_red(verdicts: list[tuple[str, str]]) -> float:
        """seconds of log time from the drop to the first red"""
        return (next(index for index, (state, _) in enumerate(verdicts) if state == BAD) + 3 - 20) * 2.0

    short = speed_verdicts(runs, window, demo_host().model_copy(update={"health_lasts_s": 12.0}))
    default = speed_verdicts(runs, window)
    assert first_red(short) <= 16 < 20 <= first_red(default)
    watching = [said for _, said in short if "watching" in said]
    assert watching and all(said.endswith(" s of 12)") for said in watching), watching
    assert all(state == BAD for state, _ in short[int(first_red(short) / 2) + 17:])


def test_a_recorded_log_that_arrives_at_once_is_judged_as_it_was_lived(runs) -> None:
    """All its lines 2 s apart, 40 s below: red at the first look (the samples span the time, not the reading)."""
    serving = timed_serving([34.0] * 20)
    assert assess(demo_host(), demo_status(launch=restored_launch()), serving, runs).checks[1].state == BAD


def test_a_dip_that_comes_back_never_turns_red(runs) -> None:
    verdicts = speed_verdicts(runs, [54.0] * 20 + [44.0] * 8 + [54.0] * 30)  # 16 s below, then back
    assert BAD not in [state for state, _ in verdicts] and verdicts[-1] == (OK, verdicts[-1][1])
    assert "watching" not in verdicts[-1][1]


def test_during_a_restart_the_line_names_what_comes_and_no_figure() -> None:
    health = HealthAssessor().assess(demo_host(), demo_status(), serving_with([34.0] * 5, [1.75] * 5), [],
                                     restarting_to="restored")
    line = text(health_line(health, 159))
    assert line == "● unverified │ restarting to restored…" and health.actions == ()


def test_a_host_that_does_not_answer_is_said_with_the_check_command() -> None:
    health = HealthAssessor().assess(demo_host(), demo_status(), serving_with([34.0] * 5, [1.75] * 5), [],
                                     ServerUp("offline", "cannot connect to gpu-box: Connection refused"))
    line = text(health_line(health, 159, {"reconnect": "C"}.get))
    assert line == ("● unverified │ not connected: cannot connect to gpu-box: Connection refused · mtptui check "
                    "demo says why │ C reconnect")


def test_a_reason_of_another_module_is_judged_in_its_place(monkeypatch, runs) -> None:
    from mtptui.ops.health import verdict as health_module

    monkeypatch.setattr(health_module, "REASONS", list(health_module.REASONS))
    def adaptive(evidence):
        if evidence.serving is not None and evidence.launch is not None:
            return Check("adaptive", BAD, "speculation shortened: 1 step", "spec 1 step")
        return None

    health_module.REASONS.insert(2, adaptive)
    health = assess(demo_host(), demo_status(launch=restored_launch()), serving_with([54.0] * 5, [3.05] * 5), runs)
    assert [check.name for check in health.checks] == ["drift", "speed", "adaptive", "accept"]
    assert health.state == BAD
